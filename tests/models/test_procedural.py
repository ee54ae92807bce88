"""Procedural decks: drawn faces in the face-cache format, exact index boxes, used by the scenes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from models.training.classes import CLASS_INDEX
from models.training.data.corners import Box, load_index_boxes
from models.training.data.decks import ALL_DECKS, Family, Split, procedural_decks
from models.training.data.faces import BACK, CORNERS_FILE
from models.training.data.faces import main as faces_main
from models.training.data.procedural import (
    COURT_FONT_SHARE,
    COURT_PIP_SHARE,
    COURT_RANKS,
    FAINT_STYLES,
    JOKER_MARKS,
    LATIN_FAMILY,
    LETTER_COURT_SOURCE,
    SECOND_GENERATION,
    THIRD_GENERATION,
    DeckPainter,
    FontError,
    deck_style,
    face_without_index,
    find_fonts,
    find_pip_fonts,
    render_procedural_decks,
    sample_style,
)
from models.training.data.scenes import PROCEDURAL_SHARE, FaceLibrary, SceneKind, SceneMaker
from models.training.data.synth import split_decks
from scorer.cards import CARD_CODES
from tests.models.conftest import have_fonts

WIDTH = 160  # small faces: fast, and still every part of the drawing
SEED = 3


pytestmark = pytest.mark.skipif(not have_fonts(), reason="no DejaVu/Noto fonts: run deploy/dev-setup.sh")


def _fake_court_source(out: Path) -> None:
    """A rendered 'standard' deck with only its court cards (flat colour pictures) and its corners.json."""
    deck = out / "standard"
    deck.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for code in CARD_CODES:
        if code[:-1] in ("J", "Q", "K"):
            img = np.full((216, WIDTH, 4), 255, np.uint8)
            img[:, :, :3] = rng.integers(0, 255, 3)
            cv2.imwrite(str(deck / f"{code}.png"), img)
    (deck / CORNERS_FILE).write_text(json.dumps({"index_box": [0.03, 0.03, 0.18, 0.3]}))


@pytest.fixture(scope="module")
def proc_faces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("proc")
    _fake_court_source(out)
    assert render_procedural_decks(out, 2, SEED, width=WIDTH) == ["proc-00", "proc-01"]
    return out


def test_every_deck_has_all_faces_and_a_valid_corners_file(proc_faces: Path) -> None:
    decks = procedural_decks(proc_faces)
    assert [d.name for d in decks] == ["proc-00", "proc-01"]
    for deck in decks:
        assert (
            deck.family is Family.PROCEDURAL
            and deck.split is Split.TRAIN
            and deck.path == proc_faces / deck.name
        )
        files = {p.name for p in deck.path.iterdir()}
        assert files == {f"{c}.png" for c in CARD_CODES} | {f"{BACK}.png", CORNERS_FILE}
        heights = set()
        for name in files - {CORNERS_FILE}:
            img = cv2.imread(str(deck.path / name), cv2.IMREAD_UNCHANGED)
            assert img.ndim == 3 and img.shape[2] == 4 and img.shape[1] == WIDTH
            assert img[0, 0, 3] == 0 and img[img.shape[0] // 2, WIDTH // 2, 3] == 255  # rounded corners
            heights.add(img.shape[0])
        assert len(heights) == 1 and 0.68 <= WIDTH / heights.pop() <= 0.73
        data = json.loads((deck.path / CORNERS_FILE).read_text())
        box, joker = load_index_boxes(deck.path)
        assert joker is not None
        for b in (box, joker):
            assert 0 <= b.x0 < b.x1 <= 0.5 and 0 <= b.y0 < b.y1 <= 0.5
        assert 0.08 <= box.y1 - box.y0 <= 0.36  # index 10-22 % (jumbo: 23-32 %) of the height, plus the pad
        assert set(data["cards"]) == set(CARD_CODES) - {"JK"}
        assert data["procedural"]["court_source"] == "standard"


def test_some_decks_print_jumbo_or_condensed_indices() -> None:
    fonts, pip_fonts = find_fonts(), find_pip_fonts()
    styles = [deck_style(SEED, i, fonts, pip_fonts, ()) for i in range(300)]
    heights = np.array([s.summary["index_height"] for s in styles], float)
    squeezed = np.array([s.rank_xscale for s in styles])
    assert heights.max() <= 0.32 + 1e-3 and 0.12 <= (heights > 0.225).mean() <= 0.28
    assert squeezed.min() >= 0.62 and 0.2 <= (squeezed < 1).mean() <= 0.4
    narrow = next(s for s in styles if s.rank_xscale < 0.7)
    wide = DeckPainter(replace(narrow, rank_xscale=1.0), WIDTH, Path("/nonexistent"))
    thin = DeckPainter(narrow, WIDTH, Path("/nonexistent"))
    for rank in ("8", "10", "Q"):
        (m_wide, base_wide), (m_thin, base_thin) = wide.ranks[rank], thin.ranks[rank]
        assert m_thin.shape[0] == m_wide.shape[0] and base_thin == base_wide  # same height and baseline
        assert m_thin.shape[1] <= 0.72 * m_wide.shape[1]


def test_rank_fonts_are_drawn_by_family_not_by_file() -> None:
    fonts = find_fonts()
    families = {f.stem.split("-")[0] for f in fonts}
    picked = [deck_style(SEED, i, fonts, (), ()).rank_font.stem.split("-")[0] for i in range(400)]
    counts = [picked.count(f) for f in families]
    assert len(set(picked)) >= 0.8 * len(families)
    assert max(counts) <= 4 * 400 / len(families)  # a family with 18 weights is not 18 times as likely


def test_tall_narrow_and_squarish_digit_fonts_are_index_fonts() -> None:
    """The ivr_edinburgh deck's tall rounded-rectangle digits: fonts of that look are in the pool."""
    for stem in ("BebasNeue-Regular", "Dosis-Medium", "Jura-Bold", "B612-Bold", "B612Mono-Regular", "OCRB"):
        assert LATIN_FAMILY.match(stem.split("-")[0]), stem
    for stem in ("NotoSansSymbols2-Regular", "NotoSansDevanagari-Regular", "Quicksand-Bold"):
        assert not LATIN_FAMILY.match(stem.split("-")[0]), stem


def test_same_seed_gives_identical_files(proc_faces: Path, tmp_path: Path) -> None:
    _fake_court_source(tmp_path)
    render_procedural_decks(tmp_path, 1, SEED, width=WIDTH)
    for path in sorted((proc_faces / "proc-00").iterdir()):
        assert (tmp_path / "proc-00" / path.name).read_bytes() == path.read_bytes(), path.name
    other = tmp_path / "other"
    _fake_court_source(other)
    render_procedural_decks(other, 1, SEED + 1, width=WIDTH)
    assert (other / "proc-00" / "10H.png").read_bytes() != (proc_faces / "proc-00" / "10H.png").read_bytes()


def _inside(ys: np.ndarray, xs: np.ndarray, box: Box, w: int, h: int) -> bool:
    return bool(
        xs.min() >= np.floor(box.x0 * w)
        and xs.max() < np.ceil(box.x1 * w)
        and ys.min() >= np.floor(box.y0 * h)
        and ys.max() < np.ceil(box.y1 * h)
    )


@pytest.mark.parametrize("deck", [0, 1])
@pytest.mark.parametrize("code", ["10H", "10S", "AS", "AD", "JK"])
def test_index_box_contains_all_the_drawn_index_ink(proc_faces: Path, deck: int, code: str) -> None:
    """What the corner index adds to a face lies inside the deck's box (top-left) and its 180-degree turn."""
    face, bare = face_without_index(proc_faces, SEED, deck, code, width=WIDTH)
    saved = cv2.imread(str(proc_faces / f"proc-{deck:02d}" / f"{code}.png"), cv2.IMREAD_UNCHANGED)
    assert np.array_equal(face, saved)
    box, joker = load_index_boxes(proc_faces / f"proc-{deck:02d}")
    if code == "JK":
        assert joker is not None
        box = joker
    h, w = face.shape[:2]
    ink = np.abs(face[:, :, :3].astype(int) - bare[:, :, :3].astype(int)).max(axis=2) > 12
    top_left = ink.copy()
    top_left[h // 2 :] = False
    top_left[:, w // 2 :] = False
    bottom_right = ink & ~top_left
    for part, b in ((top_left, box), (bottom_right, box.rotated180())):
        ys, xs = np.nonzero(part)
        assert len(xs) > 20  # the rank and pip really are drawn
        assert _inside(ys, xs, b, w, h), (code, b, xs.min(), xs.max(), ys.min(), ys.max())


def test_procedural_deck_loads_in_the_face_library_and_renders_a_scene(proc_faces: Path) -> None:
    library = FaceLibrary(proc_faces, procedural_decks(proc_faces))
    faces = library.deck_faces(library.decks[0])
    assert set(faces) == set(CARD_CODES) | {BACK}
    assert len(faces["JK"].boxes) == 2 and faces[BACK].boxes == ()
    result = SceneMaker(library).make(np.random.default_rng(4), 320, 240, SceneKind.UPRIGHT)
    assert len(result.labels) == 2 and len(result.cards) == 1
    assert result.decks[0].startswith("proc-")
    for cls, x0, y0, x1, y1 in result.labels:
        assert 0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 240
        assert CLASS_INDEX[result.cards[0]] == cls


def test_split_decks_adds_procedural_decks_to_training_only(proc_faces: Path) -> None:
    train = {d.name for d in split_decks(Split.TRAIN, faces=proc_faces)}
    assert {"proc-00", "proc-01"} <= train
    try:
        val = {d.name for d in split_decks(Split.VAL, faces=proc_faces)}
    except FileNotFoundError:  # no SVG card art installed
        val = set()
    assert not any(n.startswith("proc-") for n in val)
    assert [d.name for d in split_decks(Split.TRAIN, ("proc-01",), faces=proc_faces)] == ["proc-01"]


def test_scenes_draw_procedural_decks_at_their_share(proc_faces: Path) -> None:
    procs = procedural_decks(proc_faces)
    mixed = SceneMaker(SimpleNamespace(decks=ALL_DECKS[:3] + procs))  # type: ignore[arg-type]
    rng = np.random.default_rng(1)
    share = np.mean([mixed.pick_deck(rng).family is Family.PROCEDURAL for _ in range(3000)])
    assert abs(share - PROCEDURAL_SHARE) < 0.04
    # without procedural decks the draw is the old one: one integer per pick, same generator state
    svg_only = SceneMaker(SimpleNamespace(decks=ALL_DECKS[:5]))  # type: ignore[arg-type]
    a, b = np.random.default_rng(2), np.random.default_rng(2)
    assert [svg_only.pick_deck(a) for _ in range(20)] == [ALL_DECKS[int(b.integers(5))] for _ in range(20)]


def test_faces_cli_draws_only_the_procedural_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert faces_main(["--out", str(tmp_path), "--only-procedural", "--procedural", "1"]) == 0
    assert [d.name for d in procedural_decks(tmp_path)] == ["proc-00"]
    assert "drew 1 procedural decks" in capsys.readouterr().out
    assert faces_main(["--out", str(tmp_path), "--only-procedural", "--procedural", "-1"]) == 2


def test_no_fonts_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FontError, match="fonts-dejavu-core"):
        find_fonts(tmp_path)


def test_some_decks_swap_their_court_pictures_round_j_q_k() -> None:
    fonts, pip_fonts = find_fonts(), find_pip_fonts()
    styles = [sample_style(np.random.default_rng([SEED, i]), fonts, pip_fonts, ()) for i in range(300)]
    swapped = [s for s in styles if s.court_pictures != COURT_RANKS]
    assert 0.3 <= len(swapped) / len(styles) <= 0.5
    for s in swapped:  # every court card shows another court rank's picture
        assert sorted(s.court_pictures) == sorted(COURT_RANKS)
        assert all(s.court_picture_rank(r) != r for r in COURT_RANKS)
        assert s.summary["court_pictures"] == "".join(s.court_pictures)


def test_a_swapped_deck_draws_the_other_ranks_picture(proc_faces: Path) -> None:
    style = deck_style(SEED, 0, find_fonts(), find_pip_fonts(), ["standard"])
    plain = DeckPainter(replace(style, court_pictures=COURT_RANKS), WIDTH, proc_faces)
    swapped = DeckPainter(replace(style, court_pictures=("Q", "K", "J")), WIDTH, proc_faces)

    def centre(face: np.ndarray) -> list[int]:
        return face[face.shape[0] // 2, WIDTH // 2, :3].tolist()

    for rank, shown in (("J", "Q"), ("Q", "K"), ("K", "J")):
        assert centre(swapped.face(rank + "H")) == centre(plain.face(shown + "H"))
        assert centre(swapped.face(rank + "H")) != centre(plain.face(rank + "H"))
        # the index still names the card's own rank: the top-left corner is drawn as in the plain deck
        x0, y0, x1, y1 = (
            int(v * s) for v, s in zip(plain.index_box.as_list(), (WIDTH, plain.height) * 2, strict=True)
        )
        assert np.array_equal(swapped.face(rank + "H")[y0:y1, x0:x1], plain.face(rank + "H")[y0:y1, x0:x1])


SECOND_ONLY = ("court_mix", "court_sources", "joker_mark", "summary")


def test_second_generation_decks_keep_every_first_generation_draw() -> None:
    fonts, pip_fonts = find_fonts(), find_pip_fonts()
    for i in range(20):
        first = sample_style(np.random.default_rng([SEED, i]), fonts, pip_fonts, ("standard",))
        second = sample_style(np.random.default_rng([SEED, i]), fonts, pip_fonts, ("standard",), generation=2)
        assert first.court_mix is None and first.joker_mark == "letters" and first.court_sources == ()
        assert second.court_mix is not None and second.court_sources == ("standard",)
        for name in first.__dataclass_fields__:
            if name not in SECOND_ONLY:
                assert getattr(first, name) == getattr(second, name), name
    # the deck number decides the generation
    assert deck_style(SEED, SECOND_GENERATION - 1, fonts, pip_fonts, ()).court_mix is None
    assert deck_style(SEED, SECOND_GENERATION, fonts, pip_fonts, ()).court_mix is not None


def test_second_generation_jokers_show_every_corner_mark() -> None:
    fonts, pip_fonts = find_fonts(), find_pip_fonts()
    marks = [deck_style(SEED, SECOND_GENERATION + i, fonts, pip_fonts, ()).joker_mark for i in range(200)]
    assert set(marks) == set(JOKER_MARKS)
    assert 0.3 <= marks.count("letters") / len(marks) <= 0.5


@pytest.mark.parametrize("mark", [m for m in JOKER_MARKS if m != "letters"])
def test_a_joker_mark_is_drawn_in_the_corner_inside_its_box(proc_faces: Path, mark: str) -> None:
    style = deck_style(SEED, SECOND_GENERATION, find_fonts(), find_pip_fonts(), ["standard"])
    painter = DeckPainter(replace(style, joker_mark=mark), WIDTH, proc_faces)
    letters = DeckPainter(replace(style, joker_mark="letters"), WIDTH, proc_faces)
    with_mark, without = painter.face("JK"), painter.face("JK", with_index=False)
    ink = np.abs(with_mark[:, :, :3].astype(int) - without[:, :, :3].astype(int)).max(axis=2) > 40
    ys, xs = np.nonzero(ink[: painter.height // 2, : WIDTH // 2])
    assert len(xs) > 10
    box = painter.joker_box
    assert box.x0 * WIDTH <= xs.min() and xs.max() < box.x1 * WIDTH
    assert box.y0 * painter.height <= ys.min() and ys.max() < box.y1 * painter.height
    # a mark is about as wide as it is tall; "JOKER" down the corner is several times taller than wide
    assert 0.7 <= (box.y1 - box.y0) * painter.height / ((box.x1 - box.x0) * WIDTH) <= 1.4
    jb = letters.joker_box
    assert (jb.y1 - jb.y0) * painter.height > 2.5 * (jb.x1 - jb.x0) * WIDTH


def test_second_generation_court_cards_draw_each_picture_for_the_card(proc_faces: Path) -> None:
    style = deck_style(SEED, SECOND_GENERATION + 1, find_fonts(), find_pip_fonts(), ["standard"])
    painter = DeckPainter(style, WIDTH, proc_faces)
    choices = {r + s: painter.court_choice(r, s) for r in COURT_RANKS for s in "SHDC"}
    assert {source for source, _, _ in choices.values()} == {"standard"}
    assert all(shown[-1] == code[-1] for code, (_, shown, _) in choices.items())  # the card's own suit
    # the picture's rank is drawn per card, not per deck: the 12 cards show more than one mapping
    assert len({(code[:-1], shown[:-1]) for code, (_, shown, _) in choices.items()}) > 3
    assert any(hue for _, _, hue in choices.values()) and not all(hue for _, _, hue in choices.values())
    # a turned hue changes the picture's colours (the fake source's pictures are flat colours)
    code, (source, shown, hue) = next((c, v) for c, v in choices.items() if v[2])
    turned, plain = painter._court_picture(source, shown, hue), painter._court_picture(source, shown)
    assert turned is not None and plain is not None
    assert not np.allclose(turned.mean(axis=(0, 1)), plain.mean(axis=(0, 1)), atol=5)
    face = painter.face(code)
    assert face.shape == (painter.height, WIDTH, 4)


def test_a_letter_picture_deck_lends_each_court_card_only_its_own_rank(
    proc_faces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # jolly-royal's court "pictures" are giant letters: a Q must never show its K
    sources = ("standard", LETTER_COURT_SOURCE[0])
    codes = [r + s for r in COURT_RANKS for s in "SHDC"]
    shown, other = [], 0
    for i in range(12):
        style = replace(
            deck_style(SEED, SECOND_GENERATION + i, find_fonts(), find_pip_fonts(), ()), court_sources=sources
        )
        painter = DeckPainter(style, WIDTH, proc_faces)
        choices = {c: painter.court_choice(c[:-1], c[-1]) for c in codes}
        with monkeypatch.context() as m:
            m.setattr("models.training.data.procedural.LETTER_COURT_SOURCE", ())
            before = {c: painter.court_choice(c[:-1], c[-1]) for c in codes}
        for code, (source, picture, hue) in choices.items():
            if source == LETTER_COURT_SOURCE[0]:
                shown.append(picture == code)
                assert (source, hue) == before[code][::2]
            else:
                assert (source, picture, hue) == before[code]  # the other sources' draws are unchanged
                other += picture != code
    assert len(shown) > 20 and all(shown)
    assert other > 0  # the other source still lends other ranks' pictures


THIRD_ONLY = ("court_font", "court_xscale", "court_pip", "summary")


def test_third_generation_decks_keep_every_second_generation_draw() -> None:
    fonts, pip_fonts = find_fonts(), find_pip_fonts()
    for i in range(20):
        second = sample_style(np.random.default_rng([SEED, i]), fonts, pip_fonts, ("standard",), generation=2)
        third = sample_style(np.random.default_rng([SEED, i]), fonts, pip_fonts, ("standard",), generation=3)
        assert second.court_font is None and second.court_pip == 0
        assert second.court_xscale == second.rank_xscale
        for name in second.__dataclass_fields__:
            if name not in THIRD_ONLY:
                assert getattr(second, name) == getattr(third, name), name
    assert deck_style(SEED, THIRD_GENERATION - 1, fonts, pip_fonts, ()).summary["court_font"] is None
    with pytest.raises(ValueError, match="generation must be 1, 2 or 3, got 4"):
        sample_style(np.random.default_rng(0), fonts, pip_fonts, (), generation=4)


def test_third_generation_draws_court_fonts_and_pips_in_their_shares() -> None:
    fonts, pip_fonts = find_fonts(), find_pip_fonts()
    styles = [deck_style(SEED, THIRD_GENERATION + i, fonts, pip_fonts, ()) for i in range(300)]
    own_font = [s for s in styles if s.court_font is not None]
    assert abs(len(own_font) / len(styles) - COURT_FONT_SHARE) < 0.08
    assert abs(sum(s.court_pip > 0 for s in styles) / len(styles) - COURT_PIP_SHARE) < 0.08
    assert all(0.09 <= s.court_pip <= 0.15 for s in styles if s.court_pip)
    assert len({s.court_font for s in own_font}) > 30  # many fonts, and never a hairline one
    assert not any(w in s.court_font.stem for s in own_font for w in FAINT_STYLES if s.court_font)
    assert any(s.court_xscale < 1 for s in own_font) and any(s.court_xscale == 1 for s in own_font)


def test_court_letters_in_their_own_font_change_only_the_court_index(proc_faces: Path) -> None:
    fonts, pip_fonts = find_fonts(), find_pip_fonts()
    style = replace(deck_style(SEED, THIRD_GENERATION, fonts, pip_fonts, ["standard"]), court_pip=0.0)
    other = next(f for f in fonts if f.stem.startswith("DejaVuSerif") and f != style.rank_font)
    own = DeckPainter(replace(style, court_font=other, court_xscale=0.7), WIDTH, proc_faces)
    plain = DeckPainter(replace(style, court_font=None), WIDTH, proc_faces)
    for rank in ("A", "7", "10"):
        assert np.array_equal(own.ranks[rank][0], plain.ranks[rank][0])
    for rank in COURT_RANKS:
        assert not np.array_equal(own.ranks[rank][0], plain.ranks[rank][0])
    # the court letters' index boxes are measured from their own ink, and stay within the corner
    for code in ("JH", "QS", "KD"):
        box = own.card_boxes[code]
        assert box != plain.card_boxes[code] and box[2] < 0.5 and box[3] < 0.5


def test_a_court_pip_sits_in_the_picture_corners_not_in_the_index(proc_faces: Path) -> None:
    style = deck_style(SEED, THIRD_GENERATION, find_fonts(), find_pip_fonts(), ["standard"])
    with_pip = DeckPainter(replace(style, court_pip=0.12), WIDTH, proc_faces)
    without = DeckPainter(replace(style, court_pip=0.0), WIDTH, proc_faces)
    assert with_pip.card_boxes == without.card_boxes
    a, b = with_pip.face("KH"), without.face("KH")
    changed = np.abs(a[:, :, :3].astype(int) - b[:, :, :3].astype(int)).max(axis=2) > 40
    ys, xs = np.nonzero(changed)
    assert len(xs) > 50
    # right of the top-left index column, in both corners of the picture (rotational symmetry)
    assert xs.min() >= with_pip.index_box.x1 * WIDTH
    h = with_pip.height
    assert (ys < h / 2).any() and (ys > h / 2).any()
    # number cards have no court pip
    assert np.array_equal(with_pip.face("7H"), without.face("7H"))
