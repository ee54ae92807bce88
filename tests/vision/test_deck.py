"""A taught deck (vision.deck, vision.teach): names and codes, reading order, the memory's blend and
checks, the shelf."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.base.types import CARD_CODES, CardReading, DetectedCard
from vision.deck.memory import MIN_CARDS, VIEWS, DeckError, DeckMemory, reader_fingerprint, use_deck, views
from vision.deck.shelf import INFO_FILE, DeckShelf, check_deck_name
from vision.reader.corners import DEFAULT_READER, CornerReader
from vision.teach import TeachPhoto, by_geometry, code_from_filename, match_photo, parse_order, reading_order

needs_reader = pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="models/reader.onnx not exported")


def card(code: str, x: float, y: float, size: float = 20.0, conf: float = 0.9) -> DetectedCard:
    """A card read by two corners: one at (x, y), the other 4 corner sizes down and 3 right."""
    a = (x, y, x + size, y + size)
    b = (x + 3 * size, y + 4 * size, x + 4 * size, y + 5 * size)
    return DetectedCard(code, conf, False, (a, b))


def reading(cards: list[DetectedCard]) -> CardReading:
    return CardReading("p", 1.0, tuple(cards), (tuple(range(len(cards))),) if cards else (), 2000, 1000)


# ----------------------------------------------------------------------------------------- names, codes


def test_a_single_card_photo_is_named_by_its_code() -> None:
    assert code_from_filename("photos/QH.jpg") == "QH"
    assert code_from_filename("10s.png") == "10S"
    assert code_from_filename("JK-2.jpg") == "JK"
    with pytest.raises(DeckError, match="not a card code"):
        code_from_filename("hearts.jpg")
    with pytest.raises(DeckError, match="not a card code"):
        code_from_filename("1H.jpg")


def test_an_order_names_every_unknown_code() -> None:
    assert parse_order("AH 2H, 3h") == ("AH", "2H", "3H")
    with pytest.raises(DeckError, match=r"unknown card codes 1H, ZZ"):
        parse_order("AH 1H ZZ")
    with pytest.raises(DeckError, match="no cards"):
        parse_order(" , ")


def test_a_deck_name_is_plain_text_and_not_standard() -> None:
    assert check_deck_name("  Grandma's deck ".replace("'", "")) == "Grandmas deck"
    for bad in ("standard", "Standard", "", "../x", ".hidden", "a/b", "x" * 41):
        with pytest.raises(DeckError):
            check_deck_name(bad)


# ------------------------------------------------------------------------------------- matching a photo


def test_cards_are_matched_in_reading_order_rows_then_left_to_right() -> None:
    cards = [card("3H", 400, 50), card("AH", 0, 40), card("5H", 150, 400), card("2H", 200, 60)]
    assert [cards[i].code for i in reading_order(cards)] == ["AH", "2H", "3H", "5H"]


def test_a_row_matches_its_order_and_keeps_what_the_reader_saw() -> None:
    cards = [card("AH", 0, 40), card("5H", 200, 40), card("3H", 400, 40)]
    found = match_photo(
        TeachPhoto("hearts.jpg", np.zeros((1, 1, 3), np.uint8), ("AH", "2H", "3H")), reading(cards)
    )
    assert [(m.code, m.read, m.agrees) for m in found] == [
        ("AH", "AH", True),
        ("2H", "5H", False),
        ("3H", "3H", True),
    ]


def test_a_row_of_the_wrong_suit_is_refused_naming_the_photo() -> None:
    cards = [card(c, 200 * k, 40) for k, c in enumerate(["AS", "2S", "3S", "4S"])]
    photo = TeachPhoto("hearts.jpg", np.zeros((1, 1, 3), np.uint8), ("AH", "2H", "3H", "4H"))
    with pytest.raises(DeckError, match=r"hearts.jpg: 4 of 4 cards read as other cards \(AH read AS"):
        match_photo(photo, reading(cards))


def test_a_single_card_photo_with_no_card_or_two_is_refused() -> None:
    photo = TeachPhoto("QH.jpg", np.zeros((1, 1, 3), np.uint8), ("QH",))
    with pytest.raises(DeckError, match="QH.jpg: found no card"):
        match_photo(photo, reading([]))
    with pytest.raises(DeckError, match=r"QH.jpg: found 2 cards \(QH 7C\)"):
        match_photo(photo, reading([card("QH", 0, 0), card("7C", 600, 300)]))


def test_a_single_card_the_reader_is_sure_is_another_suit_is_refused() -> None:
    photo = TeachPhoto("QH.jpg", np.zeros((1, 1, 3), np.uint8), ("QH",))
    with pytest.raises(DeckError, match="sure this card is QS"):
        match_photo(photo, reading([card("QS", 0, 0, conf=0.97)]))
    # a rank the reader confuses (the deck's "3" read as "5") is what teaching is for
    assert match_photo(photo, reading([card("KH", 0, 0, conf=0.97)]))[0].read == "KH"


def test_a_card_whose_two_corners_were_read_as_two_cards_is_one_card_again() -> None:
    whole = card("3H", 100, 100)
    split = [DetectedCard("3H", 0.8, False, whole.boxes[:1]), DetectedCard("5H", 0.6, False, whole.boxes[1:])]
    (joined,) = by_geometry(split)
    assert joined.code == "3H" and sorted(joined.boxes) == sorted(whole.boxes)
    found = match_photo(TeachPhoto("3H.jpg", np.zeros((1, 1, 3), np.uint8), ("3H",)), reading(split))
    assert len(found) == 1 and len(found[0].boxes) == 2


# ------------------------------------------------------------------------------------------- the memory


def memory_of(features_by_code: dict[str, np.ndarray], name: str = "test") -> DeckMemory:
    codes = tuple(features_by_code)
    features = np.concatenate([np.repeat(f[None], len(VIEWS), axis=0) for f in features_by_code.values()])
    patches = np.zeros((len(codes), 64, 64, 3), np.uint8)
    return DeckMemory(
        name, codes, patches, tuple(f"{c}.jpg" for c in codes), features.astype(np.float32), "r"
    )


def test_the_memory_moves_probability_only_among_the_taught_cards() -> None:
    rng = np.random.default_rng(0)
    taught = {c: rng.normal(size=16) for c in ("3H", "5H", "7H")}
    memory = memory_of(taught)
    cards = np.full((1, len(CARD_CODES)), 0.01, np.float32)
    cards[0, CARD_CODES.index("5H")] = 0.5  # the reader takes the deck's 3 for a 5
    cards[0, CARD_CODES.index("3H")] = 0.1
    memory.weight, memory.rerank = 0.3, False
    out = memory.blend(cards, taught["3H"][None])
    three, five = CARD_CODES.index("3H"), CARD_CODES.index("5H")
    assert out[0, three] > cards[0, three] and out[0, five] < cards[0, five]
    untaught = [i for i, c in enumerate(CARD_CODES) if c not in taught]
    assert np.array_equal(out[0, untaught], cards[0, untaught])
    assert out.sum() == pytest.approx(cards.sum(), rel=1e-5)
    memory.weight, memory.rerank = 1.0, True  # the memory names the card, the reader says how sure
    out = memory.blend(cards, taught["3H"][None])
    assert out.argmax() == three and out.max() == pytest.approx(cards.max())
    assert np.array_equal(out[0, untaught], cards[0, untaught])


def test_the_memory_leaves_a_corner_the_reader_is_sure_of() -> None:
    rng = np.random.default_rng(5)
    taught = {c: rng.normal(size=16) for c in ("3H", "5H", "7H")}
    memory = memory_of(taught)
    cards = np.full((1, len(CARD_CODES)), 0.001, np.float32)
    cards[0, CARD_CODES.index("5H")] = 0.95
    assert np.array_equal(memory.blend(cards, taught["3H"][None]), cards)


def test_the_memory_leaves_a_corner_whose_taught_cards_it_cannot_tell_apart() -> None:
    rng = np.random.default_rng(6)
    taught = {c: rng.normal(size=16) for c in ("3H", "5H", "7H")}
    memory = memory_of(taught)
    cards = np.full((1, len(CARD_CODES)), 0.01, np.float32)
    cards[0, CARD_CODES.index("5H")] = 0.5
    mixes = [a * taught["3H"] + (1 - a) * taught["5H"] for a in np.linspace(0.3, 0.7, 41)]
    gaps = [float(np.diff(np.sort(memory.similarities(m[None])[1][0])[-2:])[0]) for m in mixes]
    between = mixes[int(np.argmin(gaps))][None]  # as like the deck's 3 as its 5
    assert min(gaps) < memory.margin
    assert np.array_equal(memory.blend(cards, between), cards)
    assert not np.array_equal(memory.blend(cards, taught["3H"][None]), cards)


def test_two_cards_taught_alike_and_too_few_cards_are_refused() -> None:
    rng = np.random.default_rng(1)
    taught = {c: rng.normal(size=16) for c in CARD_CODES[:MIN_CARDS]}
    memory_of(taught).check()
    taught["2S"] = taught["AS"] + 0.01  # the photo of AS was taken again as "2S"
    with pytest.raises(DeckError, match=r"AS and 2S look the same to the reader \(2S.jpg, AS.jpg\)"):
        memory_of(taught).check()
    with pytest.raises(DeckError, match=f"only 3 different cards taught; teach at least {MIN_CARDS}"):
        memory_of({c: rng.normal(size=16) for c in ("AS", "2S", "3S")}).check()


def test_a_kept_corner_is_seen_in_every_view_at_the_reader_size() -> None:
    kept = np.random.default_rng(2).integers(0, 255, (64, 64, 3), np.uint8)
    seen = views(kept)
    assert len(seen) == len(VIEWS) and all(v.shape == (48, 48, 3) for v in seen)
    assert not np.array_equal(seen[0], seen[3])  # turned


# -------------------------------------------------------------------------------------------- the shelf


@pytest.fixture(scope="module")
def reader() -> CornerReader:
    if not DEFAULT_READER.is_file():
        pytest.skip("models/reader.onnx not exported")
    return CornerReader(DEFAULT_READER, threads=1).load()


def small_memory(reader: CornerReader, name: str = "Family") -> DeckMemory:
    patches = np.random.default_rng(3).integers(0, 255, (3, 64, 64, 3), np.uint8)
    return DeckMemory.build(name, ("AS", "2S", "3S"), patches, ("a.jpg", "a.jpg", "b.jpg"), reader)


@needs_reader
def test_a_saved_deck_loads_as_it_was_and_is_listed(tmp_path: Path, reader: CornerReader) -> None:
    shelf = DeckShelf(tmp_path)
    memory = small_memory(reader)
    shelf.save(memory)
    assert shelf.names() == ["Family"]
    loaded = shelf.load("Family", reader)
    assert loaded.codes == memory.codes and loaded.sources == memory.sources
    assert np.array_equal(loaded.patches, memory.patches) and np.array_equal(loaded.features, memory.features)
    assert shelf.info("Family")["cards"] == ["AS", "2S", "3S"]
    with pytest.raises(DeckError, match="exists"):
        shelf.save(memory)
    assert sorted(p.name for p in shelf.root.iterdir()) == ["Family"]


@needs_reader
def test_a_save_cut_short_leaves_nothing_behind(
    tmp_path: Path, reader: CornerReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = DeckShelf(tmp_path)

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full_disk)
    with pytest.raises(DeckError, match="could not save deck 'Family': No space left on device"):
        shelf.save(small_memory(reader))
    assert list(shelf.root.iterdir()) == [] and shelf.names() == []


@needs_reader
def test_replacing_a_deck_that_fails_keeps_the_old_one(
    tmp_path: Path, reader: CornerReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = DeckShelf(tmp_path)
    shelf.save(small_memory(reader))
    before = (shelf.path("Family") / INFO_FILE).read_bytes()
    monkeypatch.setattr(
        np, "savez_compressed", lambda *a, **k: (_ for _ in ()).throw(OSError(5, "I/O error"))
    )
    with pytest.raises(DeckError):
        shelf.save(small_memory(reader), replace=True)
    assert (shelf.path("Family") / INFO_FILE).read_bytes() == before
    assert sorted(p.name for p in shelf.root.iterdir()) == ["Family"]


@needs_reader
def test_removing_a_deck_removes_its_folder_whole(tmp_path: Path, reader: CornerReader) -> None:
    shelf = DeckShelf(tmp_path)
    shelf.save(small_memory(reader))
    shelf.remove("Family")
    assert shelf.names() == [] and list(shelf.root.iterdir()) == []
    with pytest.raises(DeckError, match=r"no taught deck 'Family' \(none taught yet\)"):
        shelf.remove("Family")
    with pytest.raises(DeckError, match="no taught deck 'Other'"):
        shelf.load("Other", reader)


@needs_reader
def test_a_damaged_deck_is_named_not_a_traceback(tmp_path: Path, reader: CornerReader) -> None:
    shelf = DeckShelf(tmp_path)
    folder = shelf.save(small_memory(reader))
    (folder / "memory.npz").write_bytes(b"not a zip")
    with pytest.raises(DeckError, match="damaged"):
        shelf.load("Family", reader)


@needs_reader
def test_a_deck_taught_with_another_reader_is_rebuilt_from_its_patches(
    tmp_path: Path, reader: CornerReader
) -> None:
    shelf = DeckShelf(tmp_path)
    memory = small_memory(reader)
    memory.reader, kept = "another", memory.features.copy()
    memory.features = np.zeros_like(memory.features)
    shelf.save(memory)
    loaded = shelf.load("Family", reader)
    assert loaded.reader == reader_fingerprint(reader)
    assert np.allclose(loaded.features, kept, atol=1e-5)


@needs_reader
def test_without_a_deck_the_reader_reads_exactly_as_the_standard_one(reader: CornerReader) -> None:
    image = np.random.default_rng(4).integers(0, 255, (240, 320, 3), np.uint8)
    boxes = np.array([[20, 20, 50, 60], [100, 80, 130, 120], [200, 150, 240, 200]], np.float32)
    standard = [a.tobytes() for a in reader.read(image, boxes)]

    class Detector:
        pass

    detector = Detector()
    detector.reader = reader  # type: ignore[attr-defined]
    use_deck(detector, small_memory(reader))
    assert [a.tobytes() for a in reader.read(image, boxes)] != standard
    use_deck(detector, None)
    assert [a.tobytes() for a in reader.read(image, boxes)] == standard


def test_the_features_output_leaves_the_logits_bit_for_bit(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from models.training.reader.features import add_features

    rng = np.random.default_rng(6)
    nodes = [
        helper.make_node("GlobalAveragePool", ["patches"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "w", "b"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_reader",
        [helper.make_tensor_value_info("patches", TensorProto.FLOAT, ["n", 3, 48, 48])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 54])],
        initializer=[
            numpy_helper.from_array(rng.normal(size=(54, 3)).astype(np.float32), name="w"),
            numpy_helper.from_array(rng.normal(size=54).astype(np.float32), name="b"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "reader.onnx"
    path.write_bytes(model.SerializeToString())
    assert "added 'features' (N x 3)" in add_features(path)
    assert "already has" in add_features(path)
    edited = onnx.load(str(path))
    assert [o.name for o in edited.graph.output] == ["logits", "features"]
    (tmp_path / "not.onnx").write_bytes(b"junk")
    with pytest.raises(ValueError, match="cannot read"):
        add_features(tmp_path / "not.onnx")


# ------------------------------------------------------------------------------- rescuing faint corners


def lettered(offset_y: int = 0) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A light photo with the letters A, 2 and 3 printed in a row (a deck's corner indices, as the
    memory sees them), and the letters' boxes."""
    import cv2

    image = np.full((300, 400, 3), 200, np.uint8)
    boxes = []
    for k, letter in enumerate("A23"):
        x0, y0 = 40 + 80 * k, 60 + offset_y
        cv2.putText(image, letter, (x0 + 3, y0 + 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
        boxes.append((float(x0), float(y0), float(x0 + 30), float(y0 + 40)))
    return image, boxes


CONF = 0.2  # the detector's threshold: a rescued card's confidence


def faint(spots: list[tuple[tuple[float, ...], float]], floor: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """The faint candidates of one pass a taught deck's rescue looks at (here given: boxes and their best
    scores, under the threshold), down to ``floor``."""
    boxes = np.array([b for b, _ in spots], np.float32).reshape(-1, 4)
    scores = np.zeros((len(spots), len(CARD_CODES)), np.float32)
    scores[:, 0] = [s for _, s in spots]
    keep = scores.max(axis=1) >= floor
    return boxes[keep], scores[keep]


def lettered_memory(reader: CornerReader) -> DeckMemory:
    from vision.deck.memory import kept_patch

    image, boxes = lettered()
    patches = np.stack([kept_patch(image, b) for b in boxes])
    return DeckMemory.build("Family", ("AS", "2S", "3S"), patches, ("row.jpg",) * 3, reader)


@needs_reader
def test_a_taught_deck_rescues_corners_the_detector_scored_low(reader: CornerReader) -> None:
    memory = lettered_memory(reader)
    image, boxes = lettered(offset_y=120)  # another photo: the same cards elsewhere
    rescued = memory.rescue(reader, image, [], faint([(boxes[0], 0.02), (boxes[2], 0.06)]), CONF)
    assert sorted((d.code, d.box) for d in rescued) == [("3S", boxes[2]), ("AS", boxes[0])]
    assert all(d.confidence == CONF for d in rescued)  # shown as doubtful, for the players


@needs_reader
def test_a_false_candidate_that_matches_no_prototype_is_not_accepted(reader: CornerReader) -> None:
    memory = lettered_memory(reader)
    image, _ = lettered(offset_y=120)
    blank = (300.0, 230.0, 330.0, 270.0)  # the bare table
    assert memory.rescue(reader, image, [], faint([(blank, 0.1)]), CONF) == []


@needs_reader
def test_a_faint_candidate_on_a_corner_already_read_is_not_added_again(reader: CornerReader) -> None:
    from vision.base.types import Detection

    memory = lettered_memory(reader)
    image, boxes = lettered(offset_y=120)
    found = [Detection("AS", 0.9, boxes[0])]
    x0, y0, x1, y1 = boxes[0]
    again = (x0 + 2, y0 + 1, x1 + 2, y1 + 1)  # the same corner, a little shifted
    rescued = memory.rescue(reader, image, found, faint([(again, 0.05), (boxes[1], 0.05)]), CONF)
    assert [(d.code, d.box) for d in rescued] == [("AS", boxes[0]), ("2S", boxes[1])]


@needs_reader
@pytest.mark.parametrize("effort", ["focused", "full"])
def test_the_rescue_reuses_the_readings_upright_pass_and_runs_none_of_its_own(
    reader: CornerReader, monkeypatch: pytest.MonkeyPatch, effort: str
) -> None:
    from vision.reading.detector import CardDetector
    from vision.reading.passes import Passes

    detector = CardDetector(reader=DEFAULT_READER, threads=1, effort=effort)
    if not detector.model_path.is_file():
        pytest.skip("models/cards.onnx not exported")
    detector.load()
    inputs: list[tuple[int, ...]] = []
    run_model = detector.run_model

    def counted(letterboxed: np.ndarray) -> np.ndarray:
        inputs.append(letterboxed.shape)
        return run_model(letterboxed)

    monkeypatch.setattr(detector, "run_model", counted)
    image, _ = lettered(offset_y=120)
    detector.detect(image)
    standard = list(inputs)
    memory = lettered_memory(reader)
    use_deck(detector, memory)
    inputs.clear()
    found = detector.detect(image)
    assert inputs == standard  # the taught reading runs the standard reading's passes, none more
    # the same corners as the rescue given an upright pass of its own
    own = Passes(detector, image, keep=memory.rescue_floor).whole(0, floor=memory.rescue_floor)
    assert found == memory.rescue(reader, image, detector._read(image), own, detector.conf)


@needs_reader
def test_a_deck_keeps_its_photos_and_its_detector_when_cards_are_added(
    tmp_path: Path, reader: CornerReader
) -> None:
    from types import SimpleNamespace

    from vision.deck.memory import kept_patch

    shelf = DeckShelf(tmp_path)
    image, boxes = lettered()
    matches = [SimpleNamespace(code=c, boxes=(b,)) for c, b in zip(("AS", "2S", "3S"), boxes, strict=True)]
    memory = small_memory(reader)
    folder = shelf.save(memory, photos=[("row.jpg", image, matches)])
    kept = shelf.taught_cards("Family")
    assert [(p, c, b) for p, _, c, b in kept] == [("row.jpg", m.code, m.boxes) for m in matches]
    assert np.abs(kept[0][1].astype(int) - image).mean() < 3  # the photo itself (JPEG)
    assert not shelf.has_detector("Family") and shelf.load("Family", reader).model is None
    (folder / "model").mkdir()
    (folder / "model" / "cards.onnx").write_bytes(b"a taught detector")
    assert shelf.load("Family", reader).model == folder / "model"
    more = DeckMemory.build("Family", ("4S",), np.stack([kept_patch(image, boxes[0])]), ("4S.jpg",), reader)
    shelf.save(memory.merged(more), replace=True, photos=[("4S.jpg", image, matches[:1])], carry=True)
    assert shelf.has_detector("Family") and len(shelf.taught_cards("Family")) == 4
    shelf.save(memory, replace=True)  # taught again from scratch: the old photos and detector go
    assert not shelf.has_detector("Family")
    with pytest.raises(DeckError, match="keeps no teaching photos"):
        shelf.taught_cards("Family")


def test_reading_with_a_decks_detector_and_back_restores_the_shipped_one_exactly(tmp_path: Path) -> None:
    import shutil

    from vision.reading.detector import CardDetector
    from vision.runtimes.model_files import DEFAULT_ONNX

    if not DEFAULT_ONNX.is_file():
        pytest.skip("models/cards.onnx not exported")
    own = tmp_path / "model"
    own.mkdir()
    shutil.copy2(DEFAULT_ONNX, own / "cards.onnx")
    shutil.copy2(DEFAULT_ONNX.parent / "classes.json", own / "classes.json")
    image, _ = lettered()
    detector = CardDetector(threads=1, tiles=1, rotations=1, reader="off").load()
    before = detector.detect(image)
    shipped = DEFAULT_ONNX.read_bytes()
    detector.use_model(own)
    assert detector.model_path == own / "cards.onnx"
    detector.use_model(tmp_path / "nothing here")  # a deck without a detector: the shipped one
    assert detector.model_path == DEFAULT_ONNX
    detector.use_model(own)
    detector.use_model(None)
    assert detector.model_path == DEFAULT_ONNX and detector.detect(image) == before
    assert DEFAULT_ONNX.read_bytes() == shipped
