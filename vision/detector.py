"""The card-corner detector: the exported YOLO model run with ONNX Runtime (or Ultralytics, to compare).

Pipeline: letterbox the BGR photo to the model's square input (grey 114 padding, as Ultralytics does),
run the model, decode its ``(1, 4 + classes, anchors)`` output (centre x, centre y, width, height in
input pixels, then one sigmoid score per class), drop boxes under the confidence threshold, suppress
overlaps per class, then suppress boxes of *different* classes on the same spot (a corner read both as
6S and 9S is one corner): the loser's code is kept as an alternative of the winner, so the card can be
marked uncertain. The kiosk reads each photo in several views (turns, crops) that vote, and has the
corner reader (:mod:`vision.reader`) read every candidate again before the suppression.

Neither torch nor Ultralytics is imported unless ``backend="ultralytics"`` is asked for.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np

from vision.reader import DEFAULT_READER, CornerReader
from vision.runtime import MODELS_DIR, bgr_batch_input, onnx_session
from vision.types import CARD_CODES, Detection, ImageError, ModelError, box_size

DEFAULT_ONNX = MODELS_DIR / "cards.onnx"
DEFAULT_PT = MODELS_DIR / "cards.pt"
CLASSES_FILE = "classes.json"
MODEL_ENV = "TABLETALLY_MODEL"  # overrides the default ONNX model (as `tabletally doctor` does)
PAD_VALUE = 114
DEFAULT_CONF = 0.25
TILE_OVERLAP = 0.2
AUTO_TILE_FACTOR = 2.0  # measured: see docs/vision.md ("Speed and memory", the tiling tables)
SMALL_CORNER = 24.0  # median corner size (model input pixels) under which auto also tiles: docs/vision.md
READER_ENV = "TABLETALLY_READER"  # the corner reader's model file, or "off" to read without it
READER_WEIGHT = 0.5  # the reader's weight in a corner's scores: docs/vision.md ("The corner reader")
READER_FLOOR = 0.5  # with a reader, the detector's candidates down to this share of ``conf`` are re-read
ROTATIONS_ENV = "TABLETALLY_ROTATIONS"  # the kiosk's quarter turns per photo (1, 2 or 4) without a rebuild
DEFAULT_ROTATIONS = 2  # measured: docs/vision.md ("Reading each view in turns")
ROTATION_CHOICES = (1, 2, 4)
TILE_ROTATIONS = 2  # the crops are read in at most this many turns (4 cost 8 more passes, read no more)
FUSE_IOU = 0.55  # candidates of two views overlapping this much are the same corner
MAX_CANDIDATES = 300  # per pass, the best kept: real photos give at most ~150 (docs/vision.md); a broken
# model that scores every anchor would otherwise make fusing the views take seconds


def tiling(text: str) -> int | None:
    """A tiling given as text (a command-line option): ``1`` to ``4``, or ``auto`` for None (the
    detector decides per photo). Raises ValueError naming the text otherwise."""
    if text == "auto":
        return None
    if text.isdigit() and 1 <= int(text) <= 4:
        return int(text)
    raise ValueError(f"tiles must be 1 to 4 or auto, got {text!r}")


def rotations_from(text: str, source: str = "rotations") -> int:
    """A number of quarter turns given as text (a command-line option, ``$TABLETALLY_ROTATIONS``): 1, 2
    or 4. Raises ValueError naming ``source`` and the text otherwise."""
    if text.strip().isdigit() and int(text) in ROTATION_CHOICES:
        return int(text)
    raise ValueError(f"{source} must be 1, 2 or 4, got {text!r}")


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
        for start in range(0, len(boxes), chunk):
            overlap = box_iou_one(boxes[start : start + chunk, None, :], view_boxes) > iou  # n x m
            seen = np.where(overlap[:, :, None], view_scores[None, :, :], 0.0).max(axis=1)
            fused[start : start + chunk] += seen
    fused /= len(views)
    return boxes, fused


class Backend(StrEnum):
    ONNX = "onnx"
    ULTRALYTICS = "ultralytics"


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
    # indices, unlike the smoothly shrunk training photos. Costs about 8 ms for 12 MP on x86.
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


def to_input_tensor(letterboxed_bgr: np.ndarray) -> np.ndarray:
    """HxWx3 uint8 BGR -> 1x3xHxW float32 RGB in [0, 1]."""
    return bgr_batch_input(letterboxed_bgr[None])


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


def merge_reading(scores: np.ndarray, cards: np.ndarray, weight: float = READER_WEIGHT) -> np.ndarray:
    """The detector's class scores merged with the corner reader's card probabilities, class by class:
    the weighted geometric mean ``scores ** (1 - weight) * cards ** weight`` (float32)."""
    return (scores ** (1.0 - weight) * cards**weight).astype(np.float32)


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


def tile_grid(height: int, width: int, tiles: int) -> list[tuple[int, int, int, int]]:
    """The crops (x0, y0, width, height) of a ``tiles`` x ``tiles`` grid over a ``height`` x ``width`` photo,
    neighbours sharing at least ``TILE_OVERLAP`` of a crop: the kiosk's tiles (``models.tiles`` cuts the
    same ones for training)."""
    tile_w = math.ceil(width / (tiles - (tiles - 1) * TILE_OVERLAP))
    tile_h = math.ceil(height / (tiles - (tiles - 1) * TILE_OVERLAP))
    return [
        (x0, y0, min(tile_w, width - x0), min(tile_h, height - y0))
        for y0 in tile_origins(height, tile_h, TILE_OVERLAP)
        for x0 in tile_origins(width, tile_w, TILE_OVERLAP)
    ]


def load_class_codes(model_path: Path, metadata_names: Any = None) -> tuple[str, ...]:
    """The model's class codes in class order: ``classes.json`` next to the model, else its metadata.

    ``classes.json`` is a list of codes or an object whose ``names`` is that list.

    Every name must be a card code; a model trained on other classes is refused with :class:`ModelError`.
    """
    source = model_path.parent / CLASSES_FILE
    names: Any
    if source.is_file():
        try:
            names = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(f"{source}: not a readable JSON list of class codes: {exc}") from exc
        where = str(source)
        if isinstance(names, dict) and "names" in names:
            names = names["names"]  # {"format": ..., "names": [...]} as written by models.classes
    elif metadata_names is not None:
        names, where = metadata_names, f"{model_path} metadata"
    else:
        return CARD_CODES
    if isinstance(names, dict):
        try:
            names = [names[k] for k in sorted(names, key=int)]
        except (TypeError, ValueError) as exc:
            raise ModelError(f"{where}: class names are not indexed 0..N-1") from exc
    if not isinstance(names, list) or not names:
        raise ModelError(f"{where}: expected a list of class codes, got {type(names).__name__}")
    unknown = [n for n in names if n not in CARD_CODES]
    if unknown:
        raise ModelError(f"{where}: {unknown[:5]} are not card codes (expected codes like 7S, 10H, JK)")
    return tuple(names)


def _metadata_imgsz(raw: str | None) -> int | None:
    """Ultralytics stores the export size as e.g. ``[416, 416]``; its larger side, if readable."""
    import ast

    try:
        value = ast.literal_eval(raw) if raw else None
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(v, int) for v in value):
        return int(max(value))
    return None


def _metadata_names(raw: str | None) -> Any:
    """Ultralytics stores ``names`` as a Python dict literal in the ONNX metadata."""
    if not raw:
        return None
    import ast

    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return None


def tuned_conf(classes: dict[str, Any], source: Path) -> float | None:
    """The threshold a model was tuned for: its ``classes.json`` object's "conf", None where it has none.

    A ModelError naming ``source`` (that file) when "conf" is not a number between 0 and 1.
    """
    value = classes.get("conf")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value < 1.0:
        raise ModelError(f"{source}: 'conf' must be a number between 0 and 1, got {value!r}")
    return float(value)


class CardDetector:
    """Finds card corner indices in BGR photos.

    ``backend="onnx"`` (default) runs ``models/cards.onnx`` (or ``$TABLETALLY_MODEL``) with ONNX Runtime
    on ``threads`` intra-op threads; ``backend="ultralytics"`` runs ``models/cards.pt`` with Ultralytics
    (needs torch) and the same post-processing, to check that both agree. The model is loaded on first
    use (or by ``load()``); a missing, corrupt or unsuitable model raises :class:`ModelError` naming the
    file.

    ``tiles=N`` (N >= 2) also runs the model on an N x N grid of overlapping crops, so that small corners
    in a large photo are seen at full resolution, at N * N more passes a turn; ``tiles=1`` never tiles.
    ``tiles=None`` (default) tiles 2 x 2 photos more than twice the model input (a 12 MP still, a 1280 px
    photo for the 576 px model), and smaller photos whose corners, found in the whole photo, are small
    in the model input (median under ``SMALL_CORNER`` pixels: a whole table or a Seep pile seen from
    afar); both were measured to read more cards, and a close-up hand costs one pass.

    ``rotations`` (1, 2 or 4; default ``$TABLETALLY_ROTATIONS``, else 2 on the onnx backend) reads the whole
    photo that many times, turned by quarter turns, and the crops in up to ``TILE_ROTATIONS`` turns; all
    these views, the crops included, vote on each corner (:func:`fuse_views`). Measured on the held-out
    synthetic photos (the kiosk's tiling), two turns read 0.71 of them exactly against 0.64 for one, at
    about twice the cost; four read no more here and fewer real single cards (docs/vision.md).

    ``reader`` (default ``$TABLETALLY_READER``, else the shipped ``models/reader.onnx``; ``"off"`` for none;
    the onnx backend only) is the corner reader: a second model that reads every corner found again from
    the full-resolution photo, merged with the detector's reading (:meth:`reread`). Measured, it reads
    0.81 of the held-out photos exactly against 0.71 without it, at about 1 ms a corner.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        backend: str = "onnx",
        imgsz: int | None = None,
        conf: float | None = None,
        iou: float = 0.5,
        cross_iou: float = 0.7,
        threads: int = 2,
        tiles: int | None = None,
        rotations: int | None = None,
        reader: str | Path | None = None,
    ) -> None:
        try:
            self.backend = Backend(backend)
        except ValueError:
            raise ModelError(f"unknown backend {backend!r}: use onnx or ultralytics") from None
        if model_path is None and self.backend is Backend.ONNX:
            model_path = os.environ.get(MODEL_ENV) or DEFAULT_ONNX
        elif model_path is None:
            model_path = DEFAULT_PT
        self.model_path = Path(model_path)
        if conf is not None and not 0.0 < conf < 1.0:
            raise ValueError(f"conf must lie between 0 and 1, got {conf}")
        if not 0.0 < iou <= 1.0 or not 0.0 < cross_iou <= 1.0:
            raise ValueError(f"iou thresholds must lie in (0, 1], got {iou} and {cross_iou}")
        if imgsz is not None and (imgsz < 32 or imgsz % 32):
            raise ValueError(f"imgsz must be a multiple of 32 and at least 32, got {imgsz}")
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        if tiles is not None and not 1 <= tiles <= 4:
            raise ValueError(f"tiles must be 1 (whole photo only) to 4, or None (auto), got {tiles}")
        if tiles is not None and tiles > 1 and backend != Backend.ONNX:
            raise ValueError("tiling is only done on the onnx backend")
        if rotations is None:
            from_env = os.environ.get(ROTATIONS_ENV)
            if self.backend is not Backend.ONNX:
                rotations = 1
            elif from_env:
                rotations = rotations_from(from_env, f"${ROTATIONS_ENV}")
            else:
                rotations = DEFAULT_ROTATIONS
        if rotations not in ROTATION_CHOICES:
            raise ValueError(f"rotations must be 1, 2 or 4, got {rotations!r}")
        if rotations > 1 and self.backend is not Backend.ONNX:
            raise ValueError("reading in several turns is only done on the onnx backend")
        self.requested_imgsz = imgsz
        self.requested_conf = conf
        self.conf: float = conf if conf is not None else DEFAULT_CONF
        """The confidence threshold: as given, else the model's ``classes.json`` "conf", else 0.25."""
        self.iou = iou
        self.cross_iou = cross_iou
        self.threads = threads
        self.tiles = tiles
        self.rotations: int = rotations
        """Quarter turns the whole photo is read in (crops: at most ``TILE_ROTATIONS``)."""
        if reader is None:
            reader = (os.environ.get(READER_ENV) or DEFAULT_READER) if self.backend is Backend.ONNX else "off"
        if str(reader) != "off" and self.backend is not Backend.ONNX:
            raise ValueError("the corner reader is only used on the onnx backend")
        self.reader: CornerReader | None = None if str(reader) == "off" else CornerReader(reader, threads)
        """The corner reader that re-reads each corner found (:mod:`vision.reader`), or None."""
        self._lock = threading.Lock()
        self._session: Any = None
        self._yolo: Any = None
        self._input_name = ""
        self.imgsz: int = imgsz or 640
        self.input_hw: tuple[int, int] | None = None
        """The model's fixed input (height, width) once loaded; None for a dynamic-shape model."""
        self.codes: tuple[str, ...] = CARD_CODES

    def __repr__(self) -> str:
        return (
            f"CardDetector({str(self.model_path)!r}, backend={self.backend.value!r}, imgsz={self.imgsz}, "
            f"rotations={self.rotations})"
        )

    @property
    def candidate_conf(self) -> float:
        """The score a candidate of one pass needs to be considered: ``conf``, or ``READER_FLOOR * conf``
        with a corner reader (which can raise a weak corner it reads surely over ``conf``)."""
        return self.conf * READER_FLOOR if self.reader is not None else self.conf

    @property
    def loaded(self) -> bool:
        return self._session is not None or self._yolo is not None

    def load(self) -> CardDetector:
        """Load the model now (it is otherwise loaded by the first ``detect``). Returns self."""
        with self._lock:
            if not self.loaded:
                self._check_file()
                self._model_conf()
                if self.backend is Backend.ONNX:
                    self._load_onnx()
                else:
                    self._load_ultralytics()
            if self.reader is not None:
                self.reader.load()
        return self

    def _classes_json(self) -> dict[str, Any]:
        """``classes.json`` beside the model as an object ({} when missing, unreadable or a bare list)."""
        source = self.model_path.parent / CLASSES_FILE
        try:
            data = json.loads(source.read_text(encoding="utf-8")) if source.is_file() else None
        except (OSError, ValueError):
            return {}  # load_class_codes reports an unreadable classes.json
        return data if isinstance(data, dict) else {}

    def _model_conf(self) -> None:
        """Take the threshold the model was tuned for from ``classes.json`` ("conf"), unless one was given."""
        if self.requested_conf is not None:
            return
        value = tuned_conf(self._classes_json(), self.model_path.parent / CLASSES_FILE)
        if value is not None:
            self.conf = value

    def _check_file(self) -> None:
        p = self.model_path
        if not p.exists():
            hint = " (train and export it: make train)" if p.parent == MODELS_DIR else ""
            raise ModelError(f"model file {p} not found{hint}")
        if not p.is_file():
            raise ModelError(f"model file {p} is not a file")
        if p.stat().st_size == 0:
            raise ModelError(f"model file {p} is empty")

    def _load_onnx(self) -> None:
        session = onnx_session(self.model_path, self.threads, "model file")
        meta_map = session.get_modelmeta().custom_metadata_map
        inputs = session.get_inputs()
        if len(inputs) != 1 or len(inputs[0].shape) != 4:
            raise ModelError(f"{self.model_path}: expected one image input (1, 3, H, W), got {len(inputs)}")
        shape = inputs[0].shape
        h, w = shape[2], shape[3]
        if isinstance(h, int) and isinstance(w, int):
            if self.requested_imgsz is not None and self.requested_imgsz != max(h, w):
                raise ModelError(
                    f"{self.model_path} has a fixed {h}x{w} input, not imgsz={self.requested_imgsz}"
                )
            self.input_hw = (h, w)
            self.imgsz = max(h, w)
        else:
            self.input_hw = None  # dynamic: each photo gets a "rect" input of long side imgsz
            self.imgsz = self.requested_imgsz or _metadata_imgsz(meta_map.get("imgsz")) or 640
        self.codes = load_class_codes(self.model_path, _metadata_names(meta_map.get("names")))
        outputs = session.get_outputs()
        out_shape = outputs[0].shape
        if len(out_shape) != 3 or (isinstance(out_shape[1], int) and out_shape[1] != 4 + len(self.codes)):
            raise ModelError(
                f"{self.model_path}: output shape {out_shape} does not match {len(self.codes)} classes "
                f"(expected (1, {4 + len(self.codes)}, N), an Ultralytics detection export without NMS)"
            )
        self._input_name = inputs[0].name
        self._session = session

    def _load_ultralytics(self) -> None:
        # Nothing may download at run time (fonts, assets, update checks).
        os.environ.setdefault("YOLO_OFFLINE", "1")
        os.environ.setdefault("YOLO_AUTOINSTALL", "False")
        try:
            from ultralytics import YOLO  # type: ignore[attr-defined,unused-ignore]
        except ImportError as exc:
            raise ModelError(
                f"backend 'ultralytics' needs the ultralytics package (pip install -e '.[train]'): {exc}"
            ) from exc
        try:
            yolo = YOLO(str(self.model_path), task="detect")
        except Exception as exc:
            raise ModelError(f"model file {self.model_path} is not a valid Ultralytics model: {exc}") from exc
        names = getattr(yolo, "names", None)
        self.codes = load_class_codes(self.model_path, names)
        if self.requested_imgsz is None:  # the exported size (classes.json), else the training size
            args = getattr(getattr(yolo, "model", None), "args", None) or {}
            exported = self._classes_json().get("imgsz")
            if isinstance(exported, int) and not isinstance(exported, bool) and exported >= 32:
                self.imgsz = exported
            else:
                self.imgsz = int(args.get("imgsz", 640)) if isinstance(args, dict) else 640
        self._yolo = yolo

    def detect(self, image: np.ndarray) -> list[Detection]:
        """Corner detections in ``image`` (HxWx3 uint8 BGR), best first, boxes in photo pixels."""
        check_image_array(image)
        self.load()
        if self.backend is Backend.ULTRALYTICS:
            return self._detect_ultralytics(image)
        hw = image.shape[:2]
        views = [self._candidates(image, k) for k in turns(self.rotations)]
        tiles = self.tiles_for(hw)
        if tiles == 1:
            found = self._suppress(views, image)
            if self.tiles is not None or not self.corners_are_small(found, hw):
                return found
            tiles = 2
        tile_turns = turns(min(self.rotations, TILE_ROTATIONS))
        return self._suppress(views + [self._tiled_candidates(image, tiles, k) for k in tile_turns], image)

    def _suppress(self, views: list[tuple[np.ndarray, np.ndarray]], image: np.ndarray) -> list[Detection]:
        """The views' candidates fused (:func:`fuse_views`); those still reaching ``candidate_conf``
        re-read by the corner reader (when there is one: :meth:`reread`), then suppressed."""
        boxes, scores = fuse_views(views)
        keep = scores.max(axis=1) >= self.candidate_conf
        boxes, scores = boxes[keep], scores[keep]
        if self.reader is not None:
            boxes, scores = self.reread(image, boxes, scores)
        return suppress(boxes, scores, self.codes, self.iou, self.cross_iou)

    def reread(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Candidates (boxes in ``image`` pixels, class scores) after the corner reader's second opinion.

        The boxes left by non-maximum suppression within each class are cut from the photo at full
        resolution and read by the reader; each class score becomes a weighted geometric mean of the
        detector's score and the reader's probability, ``det ** (1 - READER_WEIGHT) * reader **
        READER_WEIGHT`` (the reader's "no corner" share counting for no card), and the boxes whose best
        score reaches ``conf`` are kept. A corner both read alike keeps about its score (a weak one the
        reader is sure of rises over ``conf``: the candidates come down to ``candidate_conf``); one they
        disagree on sinks, and unless one of them is sure it is dropped.
        """
        if self.reader is None or len(boxes) == 0:
            return boxes, scores
        boxes, scores, cards = self.reader_opinion(image, boxes, scores)
        combined = merge_reading(scores, cards)
        keep = combined.max(axis=1) >= self.conf
        return boxes[keep], combined[keep]

    def reader_opinion(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The candidates left by non-maximum suppression within each class (boxes, the detector's class
        scores) and, for each, the corner reader's card probabilities in the detector's class order (the
        reader's "no corner" share left out, so a row sums to under 1). The first step of :meth:`reread`."""
        if self.reader is None:
            raise ModelError("this detector has no corner reader (reader='off')")
        keep = class_nms(boxes, scores, self.iou)
        boxes, scores = boxes[keep], scores[keep]
        cards, _ = self.reader.read(image, boxes)
        if self.codes != CARD_CODES:  # a model with its own class order: the reader's columns follow it
            cards = cards[:, [CARD_CODES.index(c) for c in self.codes]]
        return boxes, scores, cards

    def corners_are_small(self, found: list[Detection], image_hw: tuple[int, int]) -> bool:
        """Whether the median corner box of ``found`` (detections in a photo of ``image_hw``) is under
        ``SMALL_CORNER`` pixels (``sqrt(w * h)``) once the photo is fitted into the model input."""
        if not found:
            return False
        h, w = image_hw
        in_h, in_w = self.input_hw or rect_input_size(image_hw, self.imgsz)
        scale = min(in_h / h, in_w / w)
        median = statistics.median(box_size(d.box) for d in found)
        return median * scale < SMALL_CORNER

    def _candidates(self, image: np.ndarray, quarter_turns: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """One pass of the model over ``image`` turned clockwise by ``quarter_turns``: its candidates
        (boxes in ``image``'s own pixels, class scores) before suppression."""
        turned = rotate_image(image, quarter_turns)
        size = self.input_hw or rect_input_size(turned.shape[:2], self.imgsz)
        padded, lb = letterbox(turned, size)
        output = self._session.run(None, {self._input_name: to_input_tensor(padded)})[0]
        boxes, scores = candidate_boxes(output, len(self.codes), lb, turned.shape[:2], self.candidate_conf)
        return unrotate_boxes(boxes, quarter_turns, image.shape[:2]), scores

    def tiles_for(self, image_hw: tuple[int, int]) -> int:
        """The tiling a photo gets before anything is found in it: as given, else 2 when its long side is
        more than AUTO_TILE_FACTOR times the model input (its corners would shrink too much in one pass),
        else 1 (then ``detect`` still tiles 2 x 2 if the corners found are small)."""
        if self.tiles is not None:
            return self.tiles
        return 2 if max(image_hw) > AUTO_TILE_FACTOR * self.imgsz else 1

    def _tiled_candidates(
        self, image: np.ndarray, tiles: int, quarter_turns: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """One view of ``image`` as a ``tiles`` x ``tiles`` grid of overlapping crops, each seen at full
        scale and turned by ``quarter_turns``; their candidates in photo pixels.

        A box that touches a crop's inner edge is dropped (its corner was cut; a neighbouring crop, or
        the whole photo, sees it whole).
        """
        height, width = image.shape[:2]
        parts = []
        for x0, y0, cw, ch in tile_grid(height, width, tiles):
            crop = image[y0 : y0 + ch, x0 : x0 + cw]
            boxes, scores = self._candidates(crop, quarter_turns)
            m = 2.0
            cut = (
                ((boxes[:, 0] <= m) & (x0 > 0))
                | ((boxes[:, 1] <= m) & (y0 > 0))
                | ((boxes[:, 2] >= cw - m) & (x0 + cw < width))
                | ((boxes[:, 3] >= ch - m) & (y0 + ch < height))
            )
            parts.append((boxes[~cut] + np.array([x0, y0, x0, y0], np.float32), scores[~cut]))
        return np.concatenate([b for b, _ in parts]), np.concatenate([sc for _, sc in parts])

    def _detect_ultralytics(self, image: np.ndarray) -> list[Detection]:
        result = self._yolo.predict(image, imgsz=self.imgsz, conf=self.conf, iou=self.iou, verbose=False)[0]
        boxes = result.boxes
        xyxy = boxes.xyxy.cpu().numpy().astype(np.float32)
        cls = boxes.cls.cpu().numpy().astype(int)
        confs = boxes.conf.cpu().numpy().astype(np.float32)
        # Re-express as a one-hot raw output in photo coordinates so the same cross-class step applies.
        n, c = len(xyxy), len(self.codes)
        raw = np.zeros((4 + c, n), dtype=np.float32)
        raw[0] = (xyxy[:, 0] + xyxy[:, 2]) / 2
        raw[1] = (xyxy[:, 1] + xyxy[:, 3]) / 2
        raw[2] = xyxy[:, 2] - xyxy[:, 0]
        raw[3] = xyxy[:, 3] - xyxy[:, 1]
        raw[4 + cls, np.arange(n)] = confs
        identity = Letterbox(1.0, 0.0, 0.0, (image.shape[0], image.shape[1]))
        return decode_predictions(
            raw, self.codes, identity, image.shape[:2], conf=self.conf, iou=self.iou, cross_iou=self.cross_iou
        )


def check_image_array(image: Any) -> None:
    """Raise :class:`ImageError` unless ``image`` is a non-empty HxWx3 uint8 array."""
    if not isinstance(image, np.ndarray):
        raise ImageError(f"expected an image array, got {type(image).__name__}")
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 1 or image.shape[1] < 1:
        raise ImageError(f"expected an HxWx3 BGR image, got an array of shape {image.shape}")
    if image.dtype != np.uint8:
        raise ImageError(f"expected a uint8 image, got dtype {image.dtype}")
