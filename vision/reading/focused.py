"""Reading a photo with effort where it is needed: one look at the whole photo, then the extra views
(the half turn, the crops) only where that first look leaves doubt.

The kiosk's full reading (:meth:`vision.reading.detector.CardDetector.detect`) reads every photo in two turns,
and a large photo, or one whose corners come out small, also as four crops in two turns: ten passes of
the model for a 1920 px table. Most corners are read surely by the first pass, and the corner reader
confirms them from the full-resolution photo. :func:`read_focused` reads the whole photo upright once,
lets the corner reader give its opinion, and looks again only at the *spots in doubt*:

* a corner whose merged score (detector and reader) is under ``SURE``, or whose runner-up code scores
  at least ``RIVAL`` times its best (a 6 that could be a 9);
* a faint trace: a candidate the first pass scored between ``FAINT`` and the candidates' threshold,
  away from every corner found (a card seen but not read);
* a small corner (under ``SMALL_CORNER`` model-input pixels, for the model's own boxes:
  ``small_corner``) in a photo large enough to be tiled.

For those spots it adds the whole photo turned half a turn (when the detector reads in two turns) and
the crops of the 2 x 2 grid that hold them, upright; only the crops holding a spot that these views,
fused and re-read by the corner reader, still leave in doubt (a merged score under ``CROP_SURE``, a
close rival, a faint trace) are read again in the detector's other turn. Each spot is then voted on by
exactly the views that looked at it (:func:`fuse_covered`), as the full reading votes over all of them.
A photo without doubt costs one pass and one small batch of the reader.

A large photo (one the full reading crops by its size alone: a 1920 px table, a fanned deck) read by a
model that takes inputs of any size (``CardDetector.resizable``) is looked at whole at an input shaped
as the photo (the model's long side, the short side only as long as the photo needs: the scale of its
square input, less padding; ``FocusRules.shaped``), and gets one more look instead of crops: where the
first look finds small corners, faint traces or nothing, the whole photo is looked at again at the
scale of the full reading's crops (``LOOK`` x imgsz on the long side, :func:`look_side`): one pass of
1024 x 576 for a 16:9 photo instead of eight crops. The spots that look leaves in doubt are read again
in the half turn, each in a window of ``WINDOW`` input pixels around it at the same scale
(:func:`spot_windows`), or the whole photo turned where the windows would cost more. After that look
the corner reader reads boxes that cut almost the same patch (within ``REUSE`` of its side) once.

:class:`Passes` runs each pass of the model once per photo and can remember it in a store (a dict, or
:class:`vision.devtools.effort.ViewStore` on disk), so reading rules can be compared on hundreds of photos
without running
the model again (``python -m vision.devtools.effort``). The thresholds were chosen with it: docs/vision.md.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from functools import partial

import numpy as np

from vision.base.errors import InvalidValueError
from vision.base.geometry import (
    box_iou_one,
    class_nms,
    fuse_readable,
    in_regions,
    overlap_max,
    rect_input_size,
    suppress,
    tile_grid,
    turns,
)
from vision.base.types import Detection
from vision.reading.far import read_far
from vision.reading.full import read_full
from vision.reading.passes import Passes, Stored
from vision.reading.rules import (
    AUTO_TILE_FACTOR,
    DEFAULT_FOCUS,
    EFFORTS,
    FOCUSED,
    FULL,
    FUSE_IOU,
    TILE_ROTATIONS,
    FocusRules,
    PassDetector,
    ReadFn,
    Rect,
    View,
    look_side,
)


def fuse_covered(
    views: list[tuple[np.ndarray, np.ndarray, list[Rect] | None]], iou: float = FUSE_IOU, chunk: int = 256
) -> View:
    """:func:`vision.base.geometry.fuse_views` for views that looked at parts of the photo: each candidate's
    class scores are the mean, over the views whose regions (``None``: the whole photo; else a list of
    x, y, width, height rectangles) hold its centre, of that view's per-class maximum among its own
    candidates overlapping it (IoU > ``iou``; 0 where it saw nothing there). Views that all cover the
    whole photo give exactly ``fuse_views``'s result."""
    if len(views) == 1:
        return views[0][0], views[0][1]
    boxes = np.concatenate([b for b, _, _ in views]).astype(np.float32)
    n_classes = views[0][1].shape[1]
    total = np.zeros((len(boxes), n_classes), dtype=np.float32)
    looked = np.zeros(len(boxes), dtype=np.float32)
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    for view_boxes, view_scores, rects in views:
        covers = in_regions(cx, cy, rects)
        looked += covers
        if len(view_boxes) and covers.any():
            total += overlap_max(boxes, view_boxes, view_scores, iou, chunk, rows=covers)
    return boxes, total / np.maximum(looked, 1.0)[:, None]


def _final(
    detector: PassDetector, image: np.ndarray, view: View, read: ReadFn | None = None
) -> list[Detection]:
    """Candidates of the fused views to corners, as the full reading ends: threshold, reader, NMS."""
    boxes, scores = view
    keep = scores.max(axis=1) >= detector.candidate_conf if len(scores) else np.zeros(0, bool)
    boxes, scores = boxes[keep], scores[keep]
    if detector.reader is not None:
        boxes, scores = detector.reread(image, boxes, scores, read)
    return suppress(boxes, scores, detector.codes, detector.iou, detector.cross_iou)


@dataclass(frozen=True)
class Doubt:
    """Where the first look left doubt: centres of the spots in photo pixels, by reason."""

    unsure: np.ndarray  # corners read, but not surely (low merged score, or a close rival code)
    faint: np.ndarray  # traces under the candidates' threshold, away from every corner read
    small: np.ndarray  # corners read surely but small, in a photo large enough to be tiled

    @property
    def any(self) -> bool:
        return bool(len(self.unsure) or len(self.faint) or len(self.small))


def _opinion(
    detector: PassDetector, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, read: ReadFn | None
) -> View:
    """Candidates to corners and their merged scores: the corner reader's opinion (``read``) merged with
    the detector's (:meth:`CardDetector.reader_opinion`, ``merged``); without a reader, the candidates left
    by suppression within each class, with the detector's scores."""
    if detector.reader is not None and len(boxes):
        boxes, det_scores, cards = detector.reader_opinion(image, boxes, scores, read)
        return boxes, detector.merged(det_scores, cards)
    keep = class_nms(boxes, scores, detector.iou)
    return boxes[keep], scores[keep]


def _doubtful(
    detector: PassDetector, merged: np.ndarray, sure: float, rival: float
) -> tuple[np.ndarray, np.ndarray]:
    """Of corners with ``merged`` scores, those kept (the best reaching ``conf``) and those in doubt: the
    best between ``candidate_conf`` and ``sure``, or kept with a runner-up scoring ``rival`` times it."""
    ordered = np.sort(merged, axis=1) if len(merged) else np.zeros((0, 2), np.float32)
    best, second = ordered[:, -1], ordered[:, -2]
    kept = best >= detector.conf
    unsure = ((best >= detector.candidate_conf) & (best < sure)) | (kept & (second >= rival * best))
    return kept, unsure


def _centres(boxes: np.ndarray) -> np.ndarray:
    return np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)


def find_doubt(
    detector: PassDetector,
    passes: Passes,
    rules: FocusRules = DEFAULT_FOCUS,
    side: int | None = None,
    read: ReadFn | None = None,
) -> tuple[Doubt, View]:
    """A look: the whole photo upright (at an input of long side ``side``, default the model's own),
    re-read by the corner reader. Returns where it leaves doubt and its merged candidates (boxes, scores
    after the reader; what :func:`read_focused` keeps when nothing is in doubt). Small corners are
    doubtful only in a look at the model's own size."""
    image = passes.image
    hw = image.shape[:2]
    side = side or detector.imgsz
    boxes, merged = _opinion(detector, image, *passes.whole(0, long_side=side), read or passes.read)
    kept, unsure_mask = _doubtful(detector, merged, rules.sure, rules.rival)
    faint_boxes, _ = passes.whole(0, floor=rules.faint, long_side=side)
    if len(faint_boxes) and len(boxes):
        near = np.zeros(len(faint_boxes), dtype=bool)
        for start in range(0, len(faint_boxes), 256):
            near[start : start + 256] = (
                box_iou_one(faint_boxes[start : start + 256, None, :], boxes) > 0.1
            ).any(axis=1)
        faint_boxes = faint_boxes[~near]
    small = np.zeros((0, 2), np.float32)
    large_photo = max(hw) > AUTO_TILE_FACTOR * detector.imgsz
    if rules.small_tiles and len(boxes) and side == detector.imgsz:
        in_h, in_w = detector.input_hw or rect_input_size(hw, detector.imgsz)
        scale = min(in_h / hw[0], in_w / hw[1])
        size = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])) * scale
        small_mask = kept & ~unsure_mask & (size < detector.small_corner)
        # A photo tiled by size alone, or one whose corners are mostly small, as the full reading decides.
        if large_photo or (kept.any() and float(np.median(size[kept])) < detector.small_corner):
            small = _centres(boxes[small_mask])
    doubt = Doubt(_centres(boxes[unsure_mask]), _centres(faint_boxes), small)
    return doubt, (boxes[kept], merged[kept])


def read_focused(
    detector: PassDetector, passes: Passes, rules: FocusRules = DEFAULT_FOCUS
) -> list[Detection]:
    """Read with effort where needed (module doc): one pass, then the extra views on the spots in doubt."""
    image = passes.image
    hw = image.shape[:2]
    side = look_side(detector, hw, rules)
    passes.shaped = passes.shaped or (rules.shaped and side > detector.imgsz)
    far = read_far(detector, passes)
    if far is not None:  # a far table: its corners read through finer crops (vision.reading.far.read_far)
        return far
    if side > detector.imgsz:
        # Decided on the first pass's own corners, before the reader: a large look reads them again.
        boxes, scores = passes.whole(0)
        boxes = boxes[class_nms(boxes, scores, detector.iou)]
        if not len(boxes) or _mostly_small(detector, boxes, hw):
            return _read_large(detector, passes, rules, side)
    doubt, first = find_doubt(detector, passes, rules)
    if not doubt.any:
        boxes, scores = first
        return suppress(boxes, scores, detector.codes, detector.iou, detector.cross_iou)
    views: list[tuple[np.ndarray, np.ndarray, list[Rect] | None]] = [(*passes.whole(0), None)]
    rotations = detector.rotations
    if rotations >= 2 and (rules.turn_for_unsure or not (len(doubt.unsure) or len(doubt.faint))):
        for k in turns(rotations)[1:]:
            views.append((*passes.whole(k), None))
    tile_spots = np.concatenate([doubt.unsure, doubt.faint, doubt.small])
    grid = tile_grid(hw[0], hw[1], 2)
    needed = _crops_holding(tile_spots, grid, range(len(grid)))
    tiled = bool(needed) and (len(doubt.small) > 0 or _tiles_worth(detector, doubt, first, hw))
    # each spot voted on by the views that could read it (vision.base.geometry.fuse_readable)
    for n, k in enumerate(turns(min(rotations, TILE_ROTATIONS, rules.crop_turns)) if tiled else ()):
        if n and rules.crop_sure is not None:  # the next turns only for the crops still in doubt
            needed = _crops_in_doubt(detector, passes, views, grid, needed, rules)
            if not needed:
                break
        views.append((*passes.tiled(2, k, needed), [grid[i] for i in needed]))
    return _final(detector, image, _fuse_scaled(detector, hw, views), passes.read)


def _fuse_scaled(
    detector: PassDetector, hw: tuple[int, int], views: list[tuple[np.ndarray, np.ndarray, list[Rect] | None]]
) -> View:
    """The whole-photo views and 2 x 2 crops of :func:`read_focused`, each spot voted on by the views that
    could read it (:func:`vision.base.geometry.fuse_readable`)."""
    scales = [detector.view_scale(hw) if r is None else detector.grid_scale(hw, 2) for _, _, r in views]
    return fuse_readable([v[:2] for v in views], scales, regions=[v[2] for v in views])


def _crops_in_doubt(
    detector: PassDetector,
    passes: Passes,
    views: list[tuple[np.ndarray, np.ndarray, list[Rect] | None]],
    grid: list[Rect],
    needed: list[int],
    rules: FocusRules,
) -> list[int]:
    """Of the crops ``needed`` (indices into ``grid``), those holding a spot that ``views`` (the whole
    photo and the crops read so far), fused and re-read by the corner reader, still leave in doubt: a
    corner whose merged score is under ``rules.crop_sure`` or whose runner-up code scores ``rules.rival``
    times its best, or a fused candidate between ``rules.faint`` and the candidates' threshold. Only these
    crops are read in the next turn."""
    boxes, scores = _fuse_scaled(detector, passes.image.shape[:2], views)
    if not len(boxes):
        return []
    best = scores.max(axis=1)
    keep = best >= detector.candidate_conf
    faint = _centres(boxes[~keep & (best >= rules.faint)])
    boxes, merged = _opinion(detector, passes.image, boxes[keep], scores[keep], passes.read)
    sure = 1.0 if rules.crop_sure is None else rules.crop_sure
    _, unsure = _doubtful(detector, merged, sure, rules.rival)
    return _crops_holding(np.concatenate([_centres(boxes[unsure]), faint]), grid, needed)


def _crops_holding(spots: np.ndarray, grid: list[Rect], crops: Iterable[int]) -> list[int]:
    """Of the ``crops`` (indices into ``grid``), those holding at least one of ``spots`` (N x 2 centres)."""
    return [i for i in crops if bool(in_regions(spots[:, 0], spots[:, 1], [grid[i]]).any())]


def _read_large(detector: PassDetector, passes: Passes, rules: FocusRules, side: int) -> list[Detection]:
    """The reading of a large photo whose first look found small corners, faint traces or nothing: the
    whole photo looked at again at an input of long side ``side`` (the scale of the full reading's crops,
    in one pass); the spots that look leaves in doubt are read again in the other turns, each in a window
    of ``rules.window`` input pixels around it at the same scale (the whole photo where the windows would
    cost more)."""
    image = passes.image
    hw = image.shape[:2]
    read = partial(passes.read, near=rules.reuse)
    doubt, looked = find_doubt(detector, passes, rules, side, read)
    if not doubt.any:
        boxes, scores = looked
        return suppress(boxes, scores, detector.codes, detector.iou, detector.cross_iou)
    views: list[tuple[np.ndarray, np.ndarray, list[Rect] | None]] = [
        (*passes.whole(0), None),
        (*passes.whole(0, long_side=side), None),
    ]
    rects = spot_windows(
        np.concatenate([doubt.unsure, doubt.faint]), hw, round(rules.window * max(hw) / side)
    )
    in_h, in_w = rect_input_size(hw, side)
    whole = not rules.window or len(rects) * rules.window**2 >= in_h * in_w
    for k in turns(detector.rotations)[1:]:
        if whole:
            views.append((*passes.whole(k, long_side=side), None))
        else:
            parts = [passes.window(rect, k, rules.window) for rect in rects]
            views.append(
                (np.concatenate([b for b, _ in parts]), np.concatenate([c for _, c in parts]), rects)
            )
    # each spot voted on by the views that could read it: the first look not on corners too small for it
    scales = [detector.view_scale(hw)] + [min(in_h / hw[0], in_w / hw[1])] * (len(views) - 1)
    fused = fuse_readable([v[:2] for v in views], scales, regions=[v[2] for v in views])
    return _final(detector, image, fused, read)


def spot_windows(spots: np.ndarray, image_hw: tuple[int, int], side: int) -> list[Rect]:
    """Square windows of ``side`` photo pixels (x, y, width, height; inside the photo) around ``spots``
    (Nx2 centres): one per spot, unless the spot lies in the middle half of a window already made."""
    height, width = image_hw
    w, h = min(side, width), min(side, height)
    rects: list[Rect] = []
    for cx, cy in sorted((float(x), float(y)) for x, y in spots):
        if any(
            x0 + w / 4 <= cx <= x0 + 3 * w / 4 and y0 + h / 4 <= cy <= y0 + 3 * h / 4
            for x0, y0, _, _ in rects
        ):
            continue
        x0 = int(min(max(round(cx - w / 2), 0), width - w))
        y0 = int(min(max(round(cy - h / 2), 0), height - h))
        rects.append((x0, y0, w, h))
    return rects


def _mostly_small(detector: PassDetector, boxes: np.ndarray, hw: tuple[int, int]) -> bool:
    """Whether the median of corner ``boxes`` found in the whole photo is under the model's
    ``small_corner`` model-input pixels (the full reading's own test for adding crops:
    ``corners_are_small``)."""
    in_h, in_w = detector.input_hw or rect_input_size(hw, detector.imgsz)
    scale = min(in_h / hw[0], in_w / hw[1])
    size = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])) * scale
    return bool(len(size)) and float(np.median(size)) < detector.small_corner


def _tiles_worth(detector: PassDetector, doubt: Doubt, first: View, hw: tuple[int, int]) -> bool:
    """Whether unsure or faint spots also get crops: in a photo the full reading would tile (large, or
    its corners small in the model input)."""
    if max(hw) > AUTO_TILE_FACTOR * detector.imgsz:
        return True
    boxes, _ = first
    if not len(boxes):
        return bool(len(doubt.faint))
    in_h, in_w = detector.input_hw or rect_input_size(hw, detector.imgsz)
    scale = min(in_h / hw[0], in_w / hw[1])
    size = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])) * scale
    return float(np.median(size)) < detector.small_corner


def read_with_effort(
    detector: PassDetector,
    image: np.ndarray,
    effort: str = FOCUSED,
    store: MutableMapping[str, Stored] | None = None,
    key: str | None = None,
    rules: FocusRules = DEFAULT_FOCUS,
) -> tuple[list[Detection], Passes]:
    """Corners of ``image`` read with ``effort`` (``full`` or ``focused``), and the passes it took."""
    passes = Passes(detector, image, store, key)
    if effort == FULL:
        return read_full(detector, passes), passes
    if effort == FOCUSED:
        return read_focused(detector, passes, rules), passes
    raise InvalidValueError(f"effort must be one of {', '.join(EFFORTS)}, got {effort!r}")
