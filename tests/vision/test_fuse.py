"""Fusing views (vision.base.geometry.fuse_views, fuse_readable; vision.reading.focused.fuse_covered): the
pairwise vote
gives exactly what the plain all-against-all vote gives, on candidate sets the shipped model finds in real
photos."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.base.geometry import (
    FUSE_IOU,
    READABLE_PX,
    box_iou_one,
    fuse_readable,
    fuse_views,
    in_regions,
    overlap_max,
    tile_grid,
)
from vision.base.photo import load_image
from vision.reading.detector import CardDetector
from vision.reading.focused import fuse_covered
from vision.reading.passes import Passes

DEMO = Path(__file__).resolve().parents[2] / "vision" / "demo"


def plain_readable(
    views: list[tuple[np.ndarray, np.ndarray]],
    scales: list[float],
    regions: list[list[tuple[int, int, int, int]] | None],
) -> tuple[np.ndarray, np.ndarray]:
    """The vote of fuse_readable computed the plain way: every candidate against every candidate of each
    view, the class maxima over a full N x M x classes array."""
    boxes = np.concatenate([b for b, _ in views]).astype(np.float32)
    total = np.zeros((len(boxes), views[0][1].shape[1]), np.float32)
    voters = np.zeros(len(boxes), np.float32)
    size = np.sqrt(np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None))
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    covered = [in_regions(cx, cy, rects) for rects in regions]
    finest = np.max([np.where(c, sc, 0.0) for c, sc in zip(covered, scales, strict=True)], axis=0)
    for (view_boxes, view_scores), scale, covers in zip(views, scales, covered, strict=True):
        votes = covers & ((size * scale >= READABLE_PX) | (scale >= 0.99 * finest))
        voters += votes
        if len(view_boxes):
            overlap = box_iou_one(boxes[:, None, :], view_boxes) > FUSE_IOU
            seen = np.where(overlap[:, :, None], view_scores[None, :, :], 0.0).max(axis=1)
            total += seen * votes[:, None]
    return boxes, total / np.maximum(voters, 1.0)[:, None]


@pytest.fixture(scope="module")
def demo_views() -> list[tuple[list[tuple[np.ndarray, np.ndarray]], list[float], tuple[int, int]]]:
    """Per demo photo: the full reading's views (whole photo and 2 x 2 crops, two turns each), down to
    the faint floor, and their scales."""
    detector = CardDetector(rotations=2).load()
    found = []
    for name in ("round5.jpg", "seep2.jpg"):
        image = load_image(DEMO / name)
        passes = Passes(detector, image)
        hw = image.shape[:2]
        views = [passes.whole(k, floor=passes.floor) for k in (0, 2)]
        views += [passes.tiled(2, k) for k in (0, 2)]
        scales = [detector.view_scale(hw)] * 2 + [detector.grid_scale(hw, 2)] * 2
        found.append((views, scales, hw))
    return found


def test_the_pairwise_vote_equals_the_plain_vote_on_real_candidates(
    demo_views: list[tuple[list[tuple[np.ndarray, np.ndarray]], list[float], tuple[int, int]]],
) -> None:
    for views, scales, hw in demo_views:
        assert sum(len(b) for b, _ in views) > 100  # a real, crowded candidate set
        grid = tile_grid(hw[0], hw[1], 2)
        everywhere: list[list[tuple[int, int, int, int]] | None] = [None] * 4
        for regions in (everywhere, [None, None, grid[:2], grid[1:]]):
            want = plain_readable(views, scales, regions)
            got = fuse_readable(views, scales, regions=regions)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        # one scale for every view: fuse_views' vote, and fuse_covered's where the views looked, exactly
        same = [scales[0]] * 4
        assert np.array_equal(fuse_views(views)[1], plain_readable(views, same, [None] * 4)[1])
        parts = [None, None, grid[:2], grid[1:]]
        covered = fuse_covered([(b, sc, r) for (b, sc), r in zip(views, parts, strict=True)])[1]
        assert np.array_equal(covered, plain_readable(views, same, parts)[1])


def test_a_box_takes_each_class_at_its_best_among_the_overlapping_candidates_and_0_elsewhere() -> None:
    boxes = np.array([[0, 0, 10, 10], [100, 100, 110, 110], [50, 50, 60, 60]], np.float32)
    view = np.array([[0, 0, 10, 11], [1, 0, 10, 10], [300, 300, 310, 310]], np.float32)
    scores = np.array([[0.2, 0.7], [0.6, 0.1], [0.9, 0.9]], np.float32)
    assert overlap_max(boxes, view, scores) == pytest.approx(np.array([[0.6, 0.7], [0, 0], [0, 0]]))
    # rows left out are not computed
    rows = np.array([False, True, True])
    assert overlap_max(boxes, view, scores, rows=rows).tolist() == [[0, 0], [0, 0], [0, 0]]
