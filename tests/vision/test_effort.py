"""Reading with effort where it is needed (vision.reading.focused): the views voted on where they looked,
the full reading rebuilt from passes, one pass for a sure first look, more only where it leaves doubt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.vision.helpers import raw_output, table_photo
from vision.base.geometry import fuse_views
from vision.base.types import CARD_CODES
from vision.reading.detector import CardDetector
from vision.reading.focused import fuse_covered, read_focused, read_with_effort, spot_windows
from vision.reading.full import read_full
from vision.reading.passes import Passes
from vision.reading.rules import FOCUSED, FULL, FocusRules, focus_rules, look_side


def to_input_xywh(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float, float, float]:
    """A photo box (640x480 photo) as the model's xywh in the 320 letterboxed input."""
    return ((x1 + x2) / 4, (y1 + y2) / 4 + 40, (x2 - x1) / 2, (y2 - y1) / 2)


def random_view(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    xy = rng.uniform(0, 600, (n, 2)).astype(np.float32)
    boxes = np.concatenate([xy, xy + rng.uniform(10, 30, (n, 2)).astype(np.float32)], axis=1)
    return boxes, rng.uniform(0, 1, (n, 53)).astype(np.float32)


def test_views_that_all_see_the_whole_photo_fuse_as_the_full_reading_fuses() -> None:
    rng = np.random.default_rng(5)
    views = [random_view(rng, n) for n in (12, 0, 30)]
    boxes, scores = fuse_covered([(b, s, None) for b, s in views])
    want_boxes, want_scores = fuse_views(views)
    assert np.array_equal(boxes, want_boxes) and np.allclose(scores, want_scores)


def test_a_spot_is_voted_on_only_by_the_views_that_looked_at_it() -> None:
    score = np.zeros((1, 53), np.float32)
    score[0, 7] = 0.8
    inside = np.array([[10, 10, 30, 30]], np.float32)
    outside = np.array([[300, 300, 320, 320]], np.float32)
    whole = (np.concatenate([inside, outside]), np.concatenate([score, score]), None)
    crop = (np.zeros((0, 4), np.float32), np.zeros((0, 53), np.float32), [(0, 0, 100, 100)])
    _, fused = fuse_covered([whole, crop])
    # the crop looked at the first spot and saw nothing there: half the vote; the second it never saw
    assert fused[0, 7] == pytest.approx(0.4) and fused[1, 7] == pytest.approx(0.8)


@pytest.mark.parametrize("rotations", [1, 2])
def test_the_full_reading_from_passes_is_the_detectors_own(
    make_model: Callable[..., Path], rotations: int
) -> None:
    out = raw_output([(100, 100, 14, 18), (200, 150, 30, 40)], [{"QH": 0.9}, {"9S": 0.3, "6S": 0.2}], 30)
    detector = CardDetector(make_model(out), rotations=rotations).load()
    for photo in (table_photo(), table_photo(1400, 1000, seed=2)):  # one view; tiled by size
        found, passes = read_with_effort(detector, photo, FULL)
        assert found == detector.detect(photo)
        assert passes.passes in (rotations, rotations * 5)  # the whole photo; the crops too


def test_a_sure_first_look_costs_one_pass(make_model: Callable[..., Path]) -> None:
    out = raw_output([to_input_xywh(100, 100, 140, 160)], [{"10C": 0.95}], anchors=20)
    detector = CardDetector(make_model(out), rotations=2).load()
    found, passes = read_with_effort(detector, table_photo(), FOCUSED)
    assert [d.code for d in found] == ["10C"] and passes.passes == 1
    assert read_with_effort(detector, table_photo(), FULL)[1].passes == 2


def test_an_unsure_corner_is_looked_at_again_in_the_half_turn(make_model: Callable[..., Path]) -> None:
    out = raw_output([to_input_xywh(100, 100, 140, 160)], [{"6S": 0.4, "9S": 0.3}], anchors=20)
    detector = CardDetector(make_model(out), rotations=2).load()
    _, passes = read_with_effort(detector, table_photo(), FOCUSED)
    assert passes.passes == 2


def test_a_faint_trace_in_a_large_photo_gets_the_crops_that_hold_it(make_model: Callable[..., Path]) -> None:
    out = raw_output([(40, 60, 6, 8)], [{"KD": 0.08}], anchors=20)  # top left, under the threshold
    detector = CardDetector(make_model(out), rotations=1).load()
    passes = Passes(detector, table_photo(1400, 1000, seed=3))
    read_focused(detector, passes)
    assert passes.passes == 2  # the whole photo, then only the top-left crop


def test_a_store_spares_every_pass_of_a_photo_read_before(make_model: Callable[..., Path]) -> None:
    out = raw_output([(100, 100, 14, 18)], [{"QH": 0.35}], anchors=10)
    detector = CardDetector(make_model(out), rotations=2).load()
    store: dict[str, Any] = {}
    photo = table_photo(1400, 1000)
    first, passes = read_with_effort(detector, photo, FULL, store, "p")
    again, stored = read_with_effort(detector, photo, FULL, store, "p")
    assert again == first and stored.passes == passes.passes == 10
    assert passes.live_ms > 0 and stored.live_ms == 0 and stored.ms == pytest.approx(passes.ms)
    assert read_with_effort(detector, photo, FOCUSED, store, "p")[1].live_ms == 0


def test_an_unknown_effort_is_refused(make_model: Callable[..., Path]) -> None:
    detector = CardDetector(make_model(raw_output([], [], anchors=4)))
    with pytest.raises(ValueError, match="effort must be one of full, focused, got 'some'"):
        read_with_effort(detector.load(), table_photo(), "some")


def test_the_detector_reads_with_the_effort_it_was_given_or_the_environment_names(
    make_model: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.base.errors import InvalidValueError

    out = raw_output([to_input_xywh(100, 100, 140, 160)], [{"10C": 0.95}], anchors=20)
    model = make_model(out)
    focused = CardDetector(model, rotations=2, effort="focused")
    assert focused.detect(table_photo()) == read_with_effort(focused, table_photo(), FOCUSED)[0]
    monkeypatch.setenv("TABLETALLY_EFFORT", "focused")
    assert CardDetector(model).effort == "focused"
    monkeypatch.setenv("TABLETALLY_EFFORT", "lazy")
    with pytest.raises(InvalidValueError, match="effort must be full or focused, got 'lazy'"):
        CardDetector(model)


def test_the_corner_reader_reads_each_corner_of_a_photo_once() -> None:
    asked: list[int] = []

    class Reader:
        context = 1.5

        def read(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            asked.append(len(boxes))
            cards = np.zeros((len(boxes), 53), np.float32)
            cards[:, 0] = boxes[:, 0] / 1000  # a reading that depends on the box
            return cards, np.zeros(len(boxes), np.float32)

    class Detector:
        reader = Reader()

        def read_corners(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return self.reader.read(image, boxes)

    passes = Passes(Detector(), table_photo())  # type: ignore[arg-type]
    first = np.array([[10, 10, 30, 30], [50, 50, 70, 70]], np.float32)
    again = np.array([[50, 50, 70, 70], [90, 90, 110, 110]], np.float32)
    cards, _ = passes.read(passes.image, first)
    cards_again, _ = passes.read(passes.image, again)
    assert asked == [2, 1]  # the box read before was not read again
    assert cards_again[0, 0] == cards[1, 0] == pytest.approx(0.05) and cards_again[1, 0] == pytest.approx(
        0.09
    )


def recording(detector: CardDetector) -> list[tuple[int, int]]:
    """The input sizes (height, width) of every pass ``detector`` runs from now on."""
    sizes: list[tuple[int, int]] = []
    run = detector.run_model

    def run_model(letterboxed: np.ndarray) -> np.ndarray:
        sizes.append(letterboxed.shape[:2])
        return run(letterboxed)

    detector.run_model = run_model  # type: ignore[method-assign]
    return sizes


def test_small_corners_in_a_large_photo_are_looked_at_again_at_the_scale_of_the_full_readings_crops(
    make_model: Callable[..., Path],
) -> None:
    out = raw_output([(300, 200, 12, 16)], [{"10C": 0.95}], anchors=20)  # small in the 576 x 352 look
    detector = CardDetector(make_model(out, imgsz=None), imgsz=576, rotations=2).load()
    sizes = recording(detector)
    found, passes = read_with_effort(detector, table_photo(1920, 1080), FOCUSED)
    assert [d.code for d in found] == ["10C"] and passes.passes == 2
    # then 1.8 x 576 to a multiple of 32: the 2 x 2 crops' scale, in one pass instead of eight
    assert sizes == [(352, 576), (576, 1024)]
    assert look_side(detector, (1080, 1920)) == 1024 and look_side(detector, (480, 640)) == 576


def test_a_large_photo_whose_corners_are_large_and_sure_costs_one_pass(
    make_model: Callable[..., Path],
) -> None:
    out = raw_output([(300, 200, 30, 40)], [{"10C": 0.95}], anchors=20)
    detector = CardDetector(make_model(out, imgsz=None), imgsz=576, rotations=2).load()
    sizes = recording(detector)
    assert [d.code for d in read_with_effort(detector, table_photo(1920, 1080), FOCUSED)[0]] == ["10C"]
    assert sizes == [(352, 576)]


def test_a_model_of_one_input_size_looks_at_a_large_photo_at_that_size(
    make_model: Callable[..., Path],
) -> None:
    out = raw_output([(100, 100, 30, 40)], [{"10C": 0.95}], anchors=20)
    detector = CardDetector(make_model(out, imgsz=320), rotations=2).load()
    assert look_side(detector, (1080, 1920)) == 320


def test_after_a_large_look_a_spot_in_doubt_is_read_again_half_turned_in_a_window_around_it(
    make_model: Callable[..., Path],
) -> None:
    # small corners in the 576 x 352 look call for the 1024 x 576 look, where one of them is
    # unsure: at (562, 375) in the photo
    out = raw_output([(100, 100, 12, 16), (300, 200, 20, 26)], [{"10C": 0.95}, {"6S": 0.4, "9S": 0.3}], 20)
    detector = CardDetector(make_model(out, imgsz=None), imgsz=576, rotations=2).load()
    sizes = recording(detector)
    _, passes = read_with_effort(detector, table_photo(1920, 1080), FOCUSED)
    assert sizes == [(352, 576), (576, 1024), (320, 320)] and passes.passes == 3
    (name,) = [n for n in passes._seen if n.startswith("r")]
    x0, y0, w, h, turn = (int(v) for v in name.split("L")[0][1:].split("."))
    assert (w, h, turn) == (600, 600, 2) and x0 < 562 < x0 + w and y0 < 375 < y0 + h


def test_spots_close_together_share_a_window_and_windows_stay_inside_the_photo() -> None:
    spots = np.array([[10, 10], [200, 210], [1900, 1000], [1000, 500]], np.float32)
    rects = spot_windows(spots, (1080, 1920), 600)
    assert rects == [(0, 0, 600, 600), (700, 200, 600, 600), (1320, 480, 600, 600)]


def test_the_focused_reading_reads_the_demo_photos_as_the_full_reading_with_fewer_passes() -> None:
    from collections import Counter

    from vision.cameras import DEMO_DIR
    from vision.devtools.effort import EffortReader
    from vision.pipeline import read_cards

    detector = CardDetector(rotations=2, reader=None).load()  # the shipped model and corner reader
    assert detector.resizable  # the shipped export takes the large look's input
    focused, full = EffortReader(detector, FOCUSED), EffortReader(detector, FULL)
    for photo in sorted(DEMO_DIR.glob("*.jpg")):
        assert Counter(read_cards(photo, focused).codes) == Counter(read_cards(photo, full).codes), photo.name
        assert focused.last is not None and full.last is not None
        assert focused.last.passes < full.last.passes


def square_export(detector: CardDetector) -> CardDetector:
    """``detector`` (a model of any input size) read as one exported for a 576 square, as the shipped
    model is: the model's own input is then that square."""
    detector.input_hw = (576, 576)
    return detector


@pytest.mark.parametrize("small", [False, True])
def test_a_large_photo_is_looked_at_shaped_as_the_photo_unless_the_rules_say_otherwise(
    make_model: Callable[..., Path], small: bool
) -> None:
    # large and sure at 576 (read whole), or small there (the large look follows)
    out = raw_output([(300, 200, 12, 16) if small else (300, 200, 30, 40)], [{"10C": 0.95}], anchors=20)
    detector = square_export(CardDetector(make_model(out, imgsz=None), imgsz=576, rotations=2).load())
    sizes = recording(detector)
    read_focused(detector, Passes(detector, table_photo(1920, 1080)), FocusRules(shaped=False))
    assert sizes[0] == (576, 576)
    sizes.clear()
    passes = Passes(detector, table_photo(1920, 1080))
    assert [d.code for d in read_focused(detector, passes)] == ["10C"]
    # the same scale, less padding; no pass at the square
    assert sizes == ([(352, 576), (576, 1024)] if small else [(352, 576)])
    assert list(passes._seen) == (["w0R576", "w0L1024"] if small else ["w0R576"])


def test_a_photo_shaped_as_the_square_input_takes_the_full_readings_own_pass(
    make_model: Callable[..., Path],
) -> None:
    out = raw_output([(300, 200, 30, 40)], [{"10C": 0.95}], anchors=20)
    detector = square_export(CardDetector(make_model(out, imgsz=None), imgsz=576, rotations=2).load())
    passes = Passes(detector, table_photo(1200, 1200))  # large, and square
    read_focused(detector, passes, FocusRules(shaped=True))
    full = Passes(detector, passes.image)
    read_full(detector, full)
    assert passes.shaped and list(passes._seen) == ["w0"] and "w0" in full._seen


def test_a_photo_too_small_for_the_large_look_keeps_the_models_own_input(
    make_model: Callable[..., Path],
) -> None:
    out = raw_output([(300, 200, 30, 40)], [{"10C": 0.95}], anchors=20)
    detector = square_export(CardDetector(make_model(out, imgsz=None), imgsz=576, rotations=2).load())
    sizes = recording(detector)
    passes = Passes(detector, table_photo(1024, 768))
    read_focused(detector, passes, FocusRules(shaped=True))
    assert not passes.shaped and sizes == [(576, 576)]


def test_boxes_cutting_almost_the_same_patch_are_read_once_where_asked() -> None:
    asked: list[int] = []

    class Reader:
        context = 1.5

        def read(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            asked.append(len(boxes))
            cards = np.zeros((len(boxes), 53), np.float32)
            cards[:, 0] = boxes[:, 0] / 1000
            return cards, np.zeros(len(boxes), np.float32)

    class Detector:
        reader = Reader()

        def read_corners(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return self.reader.read(image, boxes)

    passes = Passes(Detector(), table_photo())  # type: ignore[arg-type]
    first = np.array([[100, 100, 120, 130], [101, 100, 121, 130], [300, 300, 320, 330]], np.float32)
    cards, _ = passes.read(passes.image, first, near=0.03)
    assert asked == [2]  # the second box cuts almost the first one's patch: one reading for both
    assert cards[1, 0] == cards[0, 0] == pytest.approx(0.1)
    moved = np.array([[110, 100, 130, 130]], np.float32)  # a third of a box over: a patch of its own
    passes.read(passes.image, moved, near=0.03)
    exact = np.array([[100.5, 100, 120.5, 130]], np.float32)
    passes.read(passes.image, exact)  # without ``near``: each box read as itself
    assert asked == [2, 1, 1]


def test_the_rules_read_from_text_include_the_shaped_look_and_the_readers_reuse() -> None:
    assert focus_rules("shaped=1,reuse=0.03") == FocusRules(shaped=True, reuse=0.03)
    assert focus_rules("shaped=0") == FocusRules(shaped=False)


def test_after_the_upright_crops_only_the_crops_still_in_doubt_are_read_half_turned(
    make_model: Callable[..., Path],
) -> None:
    from vision.reading.rules import focus_rules

    # One small sure corner in the middle of every view: the first look finds it small in a large photo,
    # so every crop holding it is read upright; fused with the crops it is sure, and no crop is in doubt.
    out = raw_output([(160, 160, 12, 12)], [{"KD": 0.95}], anchors=20)
    detector = CardDetector(make_model(out), rotations=2).load()
    photo = table_photo(1400, 1000, seed=3)
    passes = Passes(detector, photo)
    assert [d.code for d in read_focused(detector, passes)][:1] == ["KD"]
    assert sorted(passes._seen) == ["t2.0.0", "t2.1.0", "t2.2.0", "t2.3.0", "w0", "w2"]
    every = Passes(detector, photo)
    read_focused(detector, every, focus_rules("crop_sure=none"))
    assert every.passes == 10  # every crop in both turns, as before the rule


def test_a_crop_holding_a_corner_still_in_doubt_is_read_in_the_next_turn(
    make_model: Callable[..., Path],
) -> None:
    from vision.base.geometry import tile_grid
    from vision.base.types import CARD_CODES
    from vision.reading.focused import _crops_in_doubt
    from vision.reading.rules import FocusRules

    detector = CardDetector(make_model(raw_output([], [], anchors=4)), rotations=2).load()
    photo = table_photo(1400, 1000, seed=3)
    grid = tile_grid(1000, 1400, 2)
    scores = np.zeros((2, 53), np.float32)
    scores[0, CARD_CODES.index("KD")] = 0.9  # sure, in the top-left crop only
    scores[1, CARD_CODES.index("6S")], scores[1, CARD_CODES.index("9S")] = 0.45, 0.4  # a close rival
    boxes = np.array([[100, 100, 160, 170], [1200, 800, 1260, 870]], np.float32)
    views: list[tuple[np.ndarray, np.ndarray, list[tuple[int, int, int, int]] | None]] = [
        (boxes, scores, None)
    ]
    rules = FocusRules()
    assert _crops_in_doubt(detector, Passes(detector, photo), views, grid, [0, 1, 2, 3], rules) == [3]
    scores[1, CARD_CODES.index("9S")] = 0.05  # no rival left, but under crop_sure
    scores[1, CARD_CODES.index("6S")] = 0.28
    assert _crops_in_doubt(detector, Passes(detector, photo), views, grid, [0, 1, 2, 3], rules) == [3]
    assert _crops_in_doubt(detector, Passes(detector, photo), views, grid, [0, 1, 2], rules) == []
    scores[1, CARD_CODES.index("6S")] = 0.9
    assert _crops_in_doubt(detector, Passes(detector, photo), views, grid, [0, 1, 2, 3], rules) == []
    # a faint trace the views left under the candidates' threshold, in the bottom-left crop only
    trace = np.zeros((1, 53), np.float32)
    trace[0, CARD_CODES.index("2C")] = 0.08
    trace_box = np.array([[100, 800, 160, 870]], np.float32)
    views = [(np.concatenate([boxes, trace_box]), np.concatenate([scores, trace]), None)]
    assert detector.candidate_conf > 0.08
    assert _crops_in_doubt(detector, Passes(detector, photo), views, grid, [0, 1, 2, 3], rules) == [2]


def test_after_a_large_look_the_reader_reads_a_corner_found_twice_in_almost_one_box_once(
    make_model: Callable[..., Path],
) -> None:
    # one small corner, found as two codes in boxes a pixel apart (the large look sees it at (562, 375))
    out = raw_output([(300, 200, 12, 16), (300.5, 200, 12, 16)], [{"10C": 0.95}, {"10S": 0.5}], anchors=20)
    detector = square_export(CardDetector(make_model(out, imgsz=None), imgsz=576, rotations=2).load())
    asked: list[int] = []

    class Reader:
        deck = None
        context = 1.5

        def read(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            asked.append(len(boxes))
            cards = np.zeros((len(boxes), 53), np.float32)
            cards[:, CARD_CODES.index("10C")] = 0.9
            return cards, np.full(len(boxes), 0.1, np.float32)

    detector.reader = Reader()  # type: ignore[assignment]
    found = read_focused(detector, Passes(detector, table_photo(1920, 1080)), FocusRules(reuse=0.0))
    assert [d.code for d in found] == ["10C"] and asked[0] == 2
    asked.clear()
    found = read_focused(detector, Passes(detector, table_photo(1920, 1080)))
    assert [d.code for d in found] == ["10C"] and asked[0] == 1
