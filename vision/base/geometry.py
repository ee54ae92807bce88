"""The detector's geometry, apart from any runtime: fitting a photo into the model input (letterbox),
turning it by quarter turns and back, cutting it into overlapping crops, decoding a YOLO output into
boxes, and non-maximum suppression (within a class, then across classes).

Pure numpy (OpenCV only to resize in :func:`letterbox`); no model runtime is imported here, so every
backend (:mod:`vision.reading.detector`'s ONNX Runtime, the adapters) shares the same steps and they can be
tested on plain arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.base.errors import ModelError
from vision.base.types import Detection

__all__ = [
    "FUSE_IOU",
    "MAX_CANDIDATES",
    "PAD_VALUE",
    "READABLE_PX",
    "TILE_OVERLAP",
    "Letterbox",
    "box_iou_one",
    "candidate_boxes",
    "class_nms",
    "decode_predictions",
    "fuse_readable",
    "fuse_views",
    "letterbox",
    "nms",
    "overlap_max",
    "rect_input_size",
    "rotate_image",
    "suppress",
    "tile_grid",
    "tile_origins",
    "turns",
    "unrotate_boxes",
]

PAD_VALUE = 114
TILE_OVERLAP = 0.2
FUSE_IOU = 0.55  # candidates of two views overlapping this much are the same corner
READABLE_PX = 8.0  # a corner box this large in a view's input is read there (models/eval/placement.md)
MAX_CANDIDATES = 300  # per pass, the best kept: far more than a table of cards shows; a broken model
# that scores every anchor would otherwise make fusing the views take seconds


def turns(rotations: int) -> tuple[int, ...]:
    """The clockwise quarter turns a view is read in: 1 -> (0,), 2 -> (0, 2), 4 -> (0, 1, 2, 3).

    Half turns come first: a corner index turned upside down is still an index the model was trained on
    (every card prints it both ways up), so two readings 180 degrees apart are the cheapest second opinion.
    """
    return {1: (0,), 2: (0, 2), 4: (0, 1, 2, 3)}[rotations]


def rotate_image(image: np.ndarray, quarter_turns: int) -> np.ndarray:
    """``image`` turned clockwise by ``quarter_turns`` x 90 degrees (0-3), as a contiguous array."""
    if quarter_turns % 4 == 0:
        return image
    return np.ascontiguousarray(np.rot90(image, -(quarter_turns % 4)))


def unrotate_boxes(boxes: np.ndarray, quarter_turns: int, image_hw: tuple[int, int]) -> np.ndarray:
    """Map Nx4 xyxy ``boxes`` found in an image turned clockwise by ``quarter_turns`` (see
    :func:`rotate_image`) back onto the unturned image of ``image_hw`` (height, width)."""
    k = quarter_turns % 4
    if k == 0 or len(boxes) == 0:
        return boxes
    height, width = image_hw
    u1, v1, u2, v2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    if k == 1:  # (x, y) went to (height - y, x)
        back = [v1, height - u2, v2, height - u1]
    elif k == 2:  # (x, y) went to (width - x, height - y)
        back = [width - u2, height - v2, width - u1, height - v1]
    else:  # (x, y) went to (y, width - x)
        back = [width - v2, u1, width - v1, u2]
    return np.stack(back, axis=1).astype(np.float32)


def fuse_views(
    views: list[tuple[np.ndarray, np.ndarray]], iou: float = FUSE_IOU, chunk: int = 256
) -> tuple[np.ndarray, np.ndarray]:
    """Fuse the candidates (boxes, class scores) of several views of one photo (its quarter turns, its
    crops) by averaging what each view says about each spot.

    Every candidate of every view is kept; its class scores become the mean, over the views, of the
    per-class maximum among that view's candidates overlapping it (IoU > ``iou``); a view that saw
    nothing there counts 0. A corner read the same way in every view keeps its score; one read
    differently in different turns, or seen in only one, is marked down, so the views vote. One view is
    returned unchanged.
    """
    if len(views) == 1:
        return views[0]
    boxes = np.concatenate([b for b, _ in views]).astype(np.float32)
    n_classes = views[0][1].shape[1]
    fused = np.zeros((len(boxes), n_classes), dtype=np.float32)
    for view_boxes, view_scores in views:
        if len(view_boxes) == 0:
            continue
        fused += overlap_max(boxes, view_boxes, view_scores, iou, chunk)
    fused /= len(views)
    return boxes, fused


def overlap_max(
    boxes: np.ndarray,
    view_boxes: np.ndarray,
    view_scores: np.ndarray,
    iou: float = FUSE_IOU,
    chunk: int = 256,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """For each of ``boxes`` (N x 4 xyxy): the per-class maximum of ``view_scores`` over the
    ``view_boxes`` overlapping it (IoU > ``iou``), 0 where none does (scores under 0 count as 0): one
    view's vote in :func:`fuse_views`. ``rows`` (a boolean mask over ``boxes``) computes only those
    rows, the others left 0.

    Only the pairs of boxes that can touch (centres closer than half their widths and heights, the
    view's boxes sorted by centre) have their IoU taken, and only the overlapping ones are gathered and
    reduced (a box overlaps a handful of a view's candidates), instead of an N x M x classes array: the
    same values, far less work."""
    out = np.zeros((len(boxes), view_scores.shape[1]), dtype=np.float32)
    index = np.arange(len(boxes)) if rows is None else np.flatnonzero(rows)
    if len(view_boxes) == 0 or len(index) == 0:
        return out
    scores = view_scores.astype(np.float32, copy=False)
    view_cx = (view_boxes[:, 0] + view_boxes[:, 2]) / 2
    view_cy = (view_boxes[:, 1] + view_boxes[:, 3]) / 2
    order = np.argsort(view_cx, kind="stable")
    sorted_cx = view_cx[order]
    half_w = float((view_boxes[:, 2] - view_boxes[:, 0]).max()) / 2 + 1.0  # 1 px to spare: a superset
    view_half_h = (view_boxes[:, 3] - view_boxes[:, 1]) / 2 + 1.0
    for start in range(0, len(index), chunk):
        part = index[start : start + chunk]
        own = boxes[part]
        cx, cy = (own[:, 0] + own[:, 2]) / 2, (own[:, 1] + own[:, 3]) / 2
        reach = (own[:, 2] - own[:, 0]) / 2 + half_w
        lo = np.searchsorted(sorted_cx, cx - reach, side="left")
        counts = np.searchsorted(sorted_cx, cx + reach, side="right") - lo
        near = np.repeat(np.arange(len(part)), counts)  # pairs by row, as the reduction needs
        seen = order[np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(len(near))]
        close = np.abs(cy[near] - view_cy[seen]) <= (own[near, 3] - own[near, 1]) / 2 + view_half_h[seen]
        near, seen = near[close], seen[close]
        overlap = box_iou_one(own[near], view_boxes[seen]) > iou
        near, seen = near[overlap], seen[overlap]
        if not len(near):
            continue
        first = np.flatnonzero(np.concatenate([[True], near[1:] != near[:-1]]))
        out[part[near[first]]] = np.maximum(np.maximum.reduceat(scores[seen], first, axis=0), 0.0)
    return out


def in_regions(x: np.ndarray, y: np.ndarray, rects: list[tuple[int, int, int, int]] | None) -> np.ndarray:
    """Which of the points (``x``, ``y``, photo pixels) lie in any of ``rects`` (x, y, width, height; the
    edges included): every point where ``rects`` is None (a view of the whole photo)."""
    if rects is None:
        return np.ones(len(x), dtype=bool)
    inside = np.zeros(len(x), dtype=bool)
    for x0, y0, w, h in rects:
        inside |= (x >= x0) & (x <= x0 + w) & (y >= y0) & (y <= y0 + h)
    return inside


def fuse_readable(
    views: list[tuple[np.ndarray, np.ndarray]],
    scales: list[float],
    readable: float = READABLE_PX,
    iou: float = FUSE_IOU,
    chunk: int = 256,
    regions: list[list[tuple[int, int, int, int]] | None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fuse_views` for views seen at different scales (``scales``: model-input pixels per photo
    pixel of each view: the whole photo, a grid of crops): a view votes on a spot only where it could read
    it, its corner box there (``sqrt(w * h)``, in that view's input pixels) at least ``readable`` pixels,
    or where it is among the finest views that looked (scale within 1 % of the finest). A corner too small
    for the whole-photo views, seen in the crops, is then voted on by the crops alone, instead of the
    coarse views' "nothing here" dividing its score; a corner every view can read is fused as before.
    ``regions`` (one per view: None for the whole photo, else the x, y, width, height rectangles it looked
    at) leaves a view out where it did not look, as :func:`vision.reading.focused.fuse_covered`."""
    if len(views) == 1:
        return views[0]
    if len(scales) != len(views) or (regions is not None and len(regions) != len(views)):
        raise ValueError(f"{len(views)} views need as many scales (and regions), got {len(scales)}")
    boxes = np.concatenate([b for b, _ in views]).astype(np.float32)
    n_classes = views[0][1].shape[1]
    total = np.zeros((len(boxes), n_classes), dtype=np.float32)
    voters = np.zeros(len(boxes), dtype=np.float32)
    size = np.sqrt(np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None))
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    covered = [in_regions(cx, cy, rects) for rects in regions or [None] * len(views)]
    # the finest scale among the views that looked at each spot
    finest = np.max([np.where(c, sc, 0.0) for c, sc in zip(covered, scales, strict=True)], axis=0)
    for (view_boxes, view_scores), scale, covers in zip(views, scales, covered, strict=True):
        votes = covers & ((size * scale >= readable) | (scale >= 0.99 * finest))
        voters += votes
        if len(view_boxes) == 0 or not votes.any():
            continue
        # only the spots this view votes on: the others would add 0
        total += overlap_max(boxes, view_boxes, view_scores, iou, chunk, rows=votes)
    return boxes, total / np.maximum(voters, 1.0)[:, None]


@dataclass(frozen=True)
class Letterbox:
    """How a photo was fitted into the model input: scale, then padding left/top; ``size`` is (h, w)."""

    scale: float
    pad_x: float
    pad_y: float
    size: tuple[int, int]


def letterbox(image: np.ndarray, size: int | tuple[int, int]) -> tuple[np.ndarray, Letterbox]:
    """Resize ``image`` to fit ``size`` (a square side, or (height, width)) keeping its aspect, padding
    the rest evenly with grey 114, as Ultralytics does."""
    import cv2

    out_h, out_w = (size, size) if isinstance(size, int) else size
    h, w = image.shape[:2]
    scale = min(out_h / h, out_w / w)
    new_w, new_h = round(w * scale), round(h * scale)
    resized = image
    # A big photo (a 12 MP Pi still) is first halved with area averaging while it is at least twice
    # the target size: one bilinear step would skip pixels and alias the thin strokes of the corner
    # indices, unlike the smoothly shrunk training photos.
    while resized.shape[0] >= 2 * new_h and resized.shape[1] >= 2 * new_w:
        half = (resized.shape[1] // 2, resized.shape[0] // 2)
        resized = cv2.resize(resized, half, interpolation=cv2.INTER_AREA)
    if (new_w, new_h) != (resized.shape[1], resized.shape[0]):
        resized = cv2.resize(resized, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    dw, dh = (out_w - new_w) / 2, (out_h - new_h) / 2
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    grey = (PAD_VALUE, PAD_VALUE, PAD_VALUE)
    padded = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT, value=grey)
    return padded, Letterbox(scale, float(left), float(top), (out_h, out_w))


def rect_input_size(image_hw: tuple[int, int], imgsz: int, stride: int = 32) -> tuple[int, int]:
    """For a model with a dynamic input: the long side ``imgsz``, the short side the smallest multiple of
    ``stride`` that holds the photo's aspect (Ultralytics' "rect" inference: less padding, less work)."""
    h, w = image_hw
    scale = imgsz / max(h, w)
    return (
        max(stride, math.ceil(round(h * scale) / stride) * stride),
        max(stride, math.ceil(round(w * scale) / stride) * stride),
    )


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy non-maximum suppression; returns the indices kept, best score first."""
    if len(boxes) == 0:
        return np.zeros(0, dtype=np.int64)
    x1, y1, x2, y2 = boxes.T
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(-scores, kind="stable")
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        iou = box_iou_one(boxes[i], boxes[rest], areas[i], areas[rest])
        order = rest[iou <= iou_threshold]
    return np.asarray(keep, dtype=np.int64)


def box_iou_one(
    box: np.ndarray, others: np.ndarray, area: float | None = None, areas: Any = None
) -> np.ndarray:
    """IoU of one xyxy box with each of ``others`` (Nx4): N values. ``box`` may also be an Mx1x4 stack of
    boxes, giving an MxN array (every box with every other)."""
    if area is None:
        area = (box[..., 2] - box[..., 0]) * (box[..., 3] - box[..., 1])
    if areas is None:
        areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    w = np.clip(np.minimum(box[..., 2], others[:, 2]) - np.maximum(box[..., 0], others[:, 0]), 0, None)
    h = np.clip(np.minimum(box[..., 3], others[:, 3]) - np.maximum(box[..., 1], others[:, 1]), 0, None)
    inter = w * h
    iou: np.ndarray = inter / np.maximum(area + areas - inter, 1e-9)
    return iou


def candidate_boxes(
    output: np.ndarray,
    n_classes: int,
    lb: Letterbox,
    image_shape: tuple[int, int],
    conf: float = 0.25,
    limit: int = MAX_CANDIDATES,
) -> tuple[np.ndarray, np.ndarray]:
    """The raw output's boxes whose best class score reaches ``conf``, before any suppression: at most
    ``limit`` of them, the best scored (in the model's anchor order).

    Returns ``(boxes, scores)``: Nx4 xyxy in photo pixels (clipped to the photo) and NxC class scores.
    """
    pred = np.asarray(output, dtype=np.float32)
    if pred.ndim == 3:
        if pred.shape[0] != 1:
            raise ModelError(f"model output has batch size {pred.shape[0]}, expected 1")
        pred = pred[0]
    if pred.ndim != 2 or pred.shape[0] != 4 + n_classes:
        raise ModelError(
            f"model output has shape {tuple(np.shape(output))}, expected (1, {4 + n_classes}, N) "
            f"for {n_classes} classes"
        )
    pred = pred.T  # N x (4 + C)
    best = pred[:, 4:].max(axis=1)
    keep = np.flatnonzero(best >= conf)
    if len(keep) > limit:
        keep = np.sort(keep[np.argsort(-best[keep], kind="stable")[:limit]])
    pred = pred[keep]
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    boxes[:, [0, 2]] = (boxes[:, [0, 2]] - lb.pad_x) / lb.scale
    boxes[:, [1, 3]] = (boxes[:, [1, 3]] - lb.pad_y) / lb.scale
    height, width = image_shape
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
    valid = (boxes[:, 2] - boxes[:, 0] >= 1) & (boxes[:, 3] - boxes[:, 1] >= 1)
    return boxes[valid], np.ascontiguousarray(pred[valid, 4:])


def class_nms(boxes: np.ndarray, scores: np.ndarray, iou: float = 0.5) -> np.ndarray:
    """Non-maximum suppression within each box's best class (boxes of different classes never suppress
    each other); the indices kept, best first."""
    if len(boxes) == 0:
        return np.zeros(0, dtype=np.int64)
    best = scores.argmax(axis=1)
    best_score = scores[np.arange(len(scores)), best]
    # shift each class to its own region so boxes of different classes never overlap
    span = float(boxes.max()) + 1.0
    return nms(boxes + best[:, None].astype(np.float32) * span, best_score, iou)


def suppress(
    boxes: np.ndarray,
    scores: np.ndarray,
    codes: tuple[str, ...],
    iou: float = 0.5,
    cross_iou: float = 0.7,
    alternative_floor: float = 0.1,
    max_detections: int = 300,
) -> list[Detection]:
    """Class-aware NMS at ``iou``, then cross-class NMS at ``cross_iou``, best first.

    Each detection's ``alternatives`` are the other codes scoring at least ``alternative_floor`` for the
    same box or for a box of another class that it suppressed.
    """
    if len(boxes) == 0:
        return []
    keep = class_nms(boxes, scores, iou)
    boxes, scores = boxes[keep], scores[keep]
    best = scores.argmax(axis=1)
    best_score = scores[np.arange(len(scores)), best]

    # Cross-class NMS: one spot, one corner; the suppressed codes become alternatives.
    order = np.argsort(-best_score, kind="stable")
    alive = np.ones(len(order), dtype=bool)
    detections: list[Detection] = []
    for pos, i in enumerate(order):
        if not alive[pos]:
            continue
        alt: dict[int, float] = {}
        for c in np.flatnonzero(scores[i] >= alternative_floor):
            if c != best[i]:
                alt[int(c)] = float(scores[i, c])
        rest = order[pos + 1 :]
        overlapping = np.flatnonzero(alive[pos + 1 :] & (box_iou_one(boxes[i], boxes[rest]) > cross_iou))
        for k in overlapping:
            j = rest[k]
            alive[pos + 1 + k] = False
            if best[j] != best[i]:
                alt[int(best[j])] = max(alt.get(int(best[j]), 0.0), float(best_score[j]))
        alternatives = tuple(
            (codes[c], round(min(s, 1.0), 4)) for c, s in sorted(alt.items(), key=lambda kv: -kv[1])
        )
        detections.append(
            Detection(
                codes[int(best[i])],
                round(min(float(best_score[i]), 1.0), 4),
                tuple(float(v) for v in boxes[i]),  # type: ignore[arg-type]
                alternatives,
            )
        )
        if len(detections) >= max_detections:
            break
    return detections


def decode_predictions(
    output: np.ndarray,
    codes: tuple[str, ...],
    lb: Letterbox,
    image_shape: tuple[int, int],
    conf: float = 0.25,
    iou: float = 0.5,
    cross_iou: float = 0.7,
) -> list[Detection]:
    """Turn the raw model output into corner detections in photo pixels.

    ``output`` is ``(1, 4 + C, N)`` (or ``(4 + C, N)``) with xywh in letterboxed-input pixels and C class
    scores. Boxes under ``conf`` are dropped, then overlaps are suppressed (see :func:`suppress`).
    """
    boxes, scores = candidate_boxes(output, len(codes), lb, image_shape, conf)
    return suppress(boxes, scores, codes, iou, cross_iou)


def tile_origins(length: int, tile: int, overlap: float) -> list[int]:
    """Start offsets of tiles of ``tile`` pixels covering ``length`` with at least ``overlap`` shared."""
    if tile >= length:
        return [0]
    count = math.ceil((length - tile) / (tile * (1 - overlap))) + 1
    step = (length - tile) / (count - 1)
    return [round(k * step) for k in range(count)]


def from_crop(
    boxes: np.ndarray,
    scores: np.ndarray,
    rect: tuple[int, int, int, int],
    image_hw: tuple[int, int],
    margin: float = 2.0,
) -> tuple[np.ndarray, np.ndarray]:
    """A crop's candidates (boxes in the crop's pixels, class scores) in the photo's pixels, less those that
    touch one of the crop's inner edges (within ``margin`` pixels): their corner was cut, and a
    neighbouring crop, or the whole photo, sees it whole. ``rect`` is the crop's (x0, y0, width, height)
    in a photo of ``image_hw``."""
    height, width = image_hw
    x0, y0, cw, ch = rect
    cut = (
        ((boxes[:, 0] <= margin) & (x0 > 0))
        | ((boxes[:, 1] <= margin) & (y0 > 0))
        | ((boxes[:, 2] >= cw - margin) & (x0 + cw < width))
        | ((boxes[:, 3] >= ch - margin) & (y0 + ch < height))
    )
    return boxes[~cut] + np.array([x0, y0, x0, y0], np.float32), scores[~cut]


def tile_grid(height: int, width: int, tiles: int) -> list[tuple[int, int, int, int]]:
    """The crops (x0, y0, width, height) of a ``tiles`` x ``tiles`` grid over a ``height`` x ``width`` photo,
    neighbours sharing at least ``TILE_OVERLAP`` of a crop: the kiosk's tiles."""
    tile_w = math.ceil(width / (tiles - (tiles - 1) * TILE_OVERLAP))
    tile_h = math.ceil(height / (tiles - (tiles - 1) * TILE_OVERLAP))
    return [
        (x0, y0, min(tile_w, width - x0), min(tile_h, height - y0))
        for y0 in tile_origins(height, tile_h, TILE_OVERLAP)
        for x0 in tile_origins(width, tile_w, TILE_OVERLAP)
    ]
