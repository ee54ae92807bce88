"""A far table: corners too small for the whole-photo look are read through finer crops, and voted on only
by the views that could read them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.helpers import raw_output
from vision.base.geometry import READABLE_PX, fuse_readable, fuse_views
from vision.base.types import CARD_CODES
from vision.reading.detector import CardDetector
from vision.reading.focused import read_with_effort
from vision.reading.rules import FINE_PX

# Four index-sized white squares on a dark cloth, 18 px in a 2304 x 1296 still (a 1 m table from a Camera
# Module 3 at 0.77 m, captured at 2304 px): 4.5 px in the 576 px model's view of the whole photo, 8.1 px in
# the 2 x 2 crops, 11.7 px in the 3 x 3 crops.
SPOTS = ((300, 300), (1150, 650), (2000, 1000), (400, 1000))
SIDE = 18


def far_table(spots: tuple[tuple[int, int], ...] = SPOTS) -> np.ndarray:
    image = np.full((1296, 2304, 3), (30, 90, 40), np.uint8)
    for x, y in spots:
        cv2.rectangle(image, (x, y), (x + SIDE - 1, y + SIDE - 1), (255, 255, 255), cv2.FILLED)
    return image


class ScaleLimitedDetector(CardDetector):
    """The real detector's reading around a stand-in model that reads a white square as a 4C corner only
    where it is at least ``FINE_PX`` tall in the model input, as the real model reads a far corner only
    from about 9 px (models/eval/placement.md)."""

    def run_model(self, letterboxed: np.ndarray) -> np.ndarray:
        mask = (letterboxed.min(axis=2) > 200).astype(np.uint8)
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        boxes, scores = [], []
        for x, y, w, h, _ in stats[1:count]:
            if h >= FINE_PX:
                boxes.append((x + w / 2, y + h / 2, float(w), float(h)))
                scores.append({"4C": 0.9})
        return raw_output(boxes, scores, anchors=max(len(boxes), 1))


@pytest.fixture
def detector(make_model: Callable[..., Path]) -> Callable[..., ScaleLimitedDetector]:
    model = make_model(raw_output([], [], anchors=1), imgsz=576)  # a fixed 576 input, as the NCNN files

    def make(**kwargs: object) -> ScaleLimitedDetector:
        return ScaleLimitedDetector(model, **kwargs).load()  # type: ignore[arg-type]

    return make


def _scores(**codes: float) -> np.ndarray:
    row = np.zeros((1, len(CARD_CODES)), np.float32)
    for code, value in codes.items():
        row[0, CARD_CODES.index(code)] = value
    return row


@pytest.mark.parametrize("effort", ["focused", "full"])
def test_a_far_table_too_small_for_the_whole_photo_look_is_read_through_the_crops(
    detector: Callable[..., ScaleLimitedDetector], effort: str
) -> None:
    reader = detector(rotations=2)
    found, passes = read_with_effort(reader, far_table(), effort)
    assert sorted(d.code for d in found) == ["4C"] * 4
    assert all(d.confidence == pytest.approx(0.9) for d in found)  # not voted down by the coarse views
    centres = sorted((round((d.box[0] + d.box[2]) / 2), round((d.box[1] + d.box[3]) / 2)) for d in found)
    assert centres == sorted((x + SIDE // 2, y + SIDE // 2) for x, y in SPOTS)
    assert reader.tiles_after((1296, 2304), np.zeros((0, 4), np.float32)) == 3
    if effort == "focused":
        assert passes.passes == 1 + 9  # the whole photo, then the 3 x 3 crops upright


def test_a_table_near_enough_for_the_2x2_crops_keeps_them(
    detector: Callable[..., ScaleLimitedDetector],
) -> None:
    reader = detector()
    # Corners 7 px in the whole photo's view are 12.6 px in the 2 x 2 crops: no finer grid is needed.
    assert reader.tiles_after((1296, 2304), np.array([[0, 0, 28, 28]], np.float32)) == 2
    # A small photo is not cut finer than its own pixels: 3 x 3 crops of 1280 px would be enlarged.
    assert reader.tiles_after((720, 1280), np.array([[0, 0, 9, 9]], np.float32)) == 2
    # An empty small photo is left alone, as before.
    assert reader.tiles_after((480, 640), np.zeros((0, 4), np.float32)) == 1


@pytest.mark.parametrize("effort", ["focused", "full"])
def test_a_photo_with_nothing_in_it_stays_empty(
    detector: Callable[..., ScaleLimitedDetector], effort: str
) -> None:
    found, passes = read_with_effort(detector(rotations=2), far_table(()), effort)
    assert found == []
    if effort == "focused":
        assert passes.passes == 1 + 9  # nothing in the whole photo: it could be a far table


def test_a_corner_seen_only_in_crops_is_not_voted_down_by_views_too_coarse_to_see_it() -> None:
    small = np.array([[100, 100, 118, 118]], np.float32)  # 18 px: 4.5 px at the whole photo's 0.25
    large = np.array([[500, 100, 560, 160]], np.float32)  # 60 px: 15 px in the whole photo's view
    empty = (np.zeros((0, 4), np.float32), np.zeros((0, len(CARD_CODES)), np.float32))
    crops = (np.concatenate([small, large]), np.concatenate([_scores(AS=0.8), _scores(KD=0.8)]))
    scales = [0.25, 0.25, 0.65, 0.65]  # two turns of the whole photo, two of the 3 x 3 crops
    assert 18 * 0.25 < READABLE_PX <= 60 * 0.25
    boxes, scores = fuse_readable([empty, empty, crops, crops], scales)
    best = scores.max(axis=1)
    # The small corner: only the crops could read it, and both saw it. The large one: every view could
    # read it and the whole-photo views saw nothing there, so they vote it down, as fuse_views does.
    assert best[:2] == pytest.approx([0.8, 0.4])
    assert fuse_views([empty, empty, crops, crops])[1].max(axis=1)[:2] == pytest.approx([0.4, 0.4])
    # A corner one crop turn missed is still voted down by the other crops, which could read it.
    boxes, scores = fuse_readable([empty, empty, crops, empty], scales)
    assert scores.max(axis=1) == pytest.approx([0.4, 0.2])
    # Views at one scale are fused exactly as fuse_views fuses them.
    same = fuse_readable([empty, crops], [0.25, 0.25])[1]
    assert same == pytest.approx(fuse_views([empty, crops])[1])


def test_a_view_votes_only_where_it_looked_and_could_read() -> None:
    small = np.array([[100, 100, 118, 118]], np.float32)
    empty = (np.zeros((0, 4), np.float32), np.zeros((0, len(CARD_CODES)), np.float32))
    look = (small, _scores(AS=0.8))  # the large look (scale 0.45) saw it; the first look (0.25) could not
    window_far = [(1000, 1000, 300, 300)]  # a half-turned window elsewhere: it did not look there
    window_on = [(0, 0, 300, 300)]
    scales = [0.25, 0.45, 0.45]
    fused = fuse_readable([empty, look, empty], scales, regions=[None, None, window_far])[1]
    assert fused.max() == pytest.approx(0.8)
    fused = fuse_readable([empty, look, empty], scales, regions=[None, None, window_on])[1]
    assert fused.max() == pytest.approx(0.4)  # the window looked there at the same scale, and saw nothing
