"""The reading of a far table: a photo large enough to be cropped whose corners are too small for the 2 x 2
crops is read through a finer grid (:func:`read_far`), as part of the focused reading."""

from __future__ import annotations

import numpy as np

from vision.base.geometry import class_nms, rect_input_size
from vision.base.types import Detection
from vision.reading.passes import Passes
from vision.reading.rules import AUTO_TILE_FACTOR, PassDetector, look_side


def read_far(detector: PassDetector, passes: Passes) -> list[Detection] | None:
    """The focused reading (:func:`vision.reading.focused.read_focused`) of a far table, or None for any other
    photo (the focused reading goes on as before, the passes run here kept in ``passes``).

    A photo large enough to be cropped (long side over ``AUTO_TILE_FACTOR`` x imgsz) whose whole-photo
    look finds its corners too small for the 2 x 2 crops or the large look to show them at ``FINE_PX``
    (:meth:`CardDetector.tiles_after`; where it finds none, its faint traces' size), or finds nothing at
    all (a table too far for it, or an empty one), is read through the finer grid, upright. Each spot
    is voted on only by the views that could read it (:func:`fuse_readable`), so the whole-photo look
    does not vote down a corner too small for it. With a model of any input size, the corners' sizes are
    taken from the focused reading's large look where it takes one
    (:func:`vision.reading.rules.look_side`)."""
    image = passes.image
    hw = image.shape[:2]
    if detector.tiles is not None or max(hw) <= AUTO_TILE_FACTOR * detector.imgsz:
        return None
    boxes, scores = passes.whole(0)
    views = [(boxes, scores)]
    scales = [detector.view_scale(hw)]
    found = boxes[class_nms(boxes, scores, detector.iou)]
    side = look_side(detector, hw)
    sides = np.sqrt((found[:, 2] - found[:, 0]) * (found[:, 3] - found[:, 1]))
    if side > detector.imgsz and (
        not len(found) or float(np.median(sides)) * scales[0] < detector.small_corner
    ):
        # The focused reading takes the large look here anyway: its corners, seen 1.8 times larger, tell
        # their sizes better than the few the first look found (the largest of them).
        look = passes.whole(0, long_side=side)
        in_h, in_w = rect_input_size(hw, side)
        views.append(look)
        scales.append(min(in_h / hw[0], in_w / hw[1]))
        found = look[0][class_nms(look[0], look[1], detector.iou)]
        if not len(found):
            return None
    elif not len(found):  # the faint traces' size, where there are any (else a far table is assumed)
        boxes, scores = passes.whole(0, floor=passes.floor)
        found = boxes[class_nms(boxes, scores, detector.iou)]
    tiles = detector.tiles_after(hw, found)
    if tiles <= 2:
        return None
    views.append(passes.tiled(tiles, 0))
    scales.append(detector.grid_scale(hw, tiles))
    return detector.vote(views, image, scales)
