"""Reading a photo with effort where it is needed: one look at the whole photo, then the extra views
(the half turn, the crops) only where that first look leaves doubt.

The kiosk's full reading (:meth:`vision.detector.CardDetector.detect`) reads every photo in two turns,
and a large photo, or one whose corners come out small, also as four crops in two turns: ten passes of
the model for a 1920 px table. Most corners are read surely by the first pass, and the corner reader
confirms them from the full-resolution photo. :func:`read_focused` reads the whole photo upright once,
lets the corner reader give its opinion, and looks again only at the *spots in doubt*:

* a corner whose merged score (detector and reader) is under ``SURE``, or whose runner-up code scores
  at least ``RIVAL`` times its best (a 6 that could be a 9);
* a faint trace: a candidate the first pass scored between ``FAINT`` and the candidates' threshold,
  away from every corner found (a card seen but not read);
* a small corner (under ``SMALL_CORNER`` model-input pixels) in a photo large enough to be tiled.

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
:class:`ViewStore` on disk), so reading rules can be compared on hundreds of photos without running
the model again (``python -m vision.effort``). The thresholds were chosen with it: docs/vision.md.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from vision.errors import InvalidValueError
from vision.geometry import (
    TILE_OVERLAP,
    box_iou_one,
    candidate_boxes,
    class_nms,
    from_crop,
    fuse_readable,
    in_regions,
    letterbox,
    overlap_max,
    rect_input_size,
    rotate_image,
    suppress,
    tile_grid,
    turns,
    unrotate_boxes,
)
from vision.reader import CONTEXT, patch_square
from vision.types import Detection

FULL = "full"
FOCUSED = "focused"
EFFORTS = (FULL, FOCUSED)
EFFORT_ENV = "TABLETALLY_EFFORT"  # the kiosk's reading effort (full or focused) without a rebuild
DEFAULT_EFFORT = FOCUSED  # as many photos read exactly as the full reading, sooner (python -m vision.effort)

FAINT = 0.05  # a first-pass candidate scoring this much, away from the corners found, is looked at again
SURE = 0.5  # a corner whose merged score reaches this (and has no close rival) is not looked at again
RIVAL = 0.3  # a runner-up code scoring this share of the best makes the corner doubtful
FUSE_IOU = 0.55  # as vision.geometry.fuse_views
LOOK = 2.0 - TILE_OVERLAP  # a large photo is looked at once at the scale of the full reading's 2 x 2 crops
CROP_SURE = 0.3  # after the upright crops, a corner under this merged score gets its crop half turned
WINDOW = 320  # input pixels: the side of the window around a spot in doubt read again after such a look
REUSE = 0.05  # after such a look, boxes whose patches differ by under this share of a side are read once

View = tuple[np.ndarray, np.ndarray]
Rect = tuple[int, int, int, int]


def effort_from_env() -> str:
    """The reading effort: ``$TABLETALLY_EFFORT`` (full or focused), else ``DEFAULT_EFFORT``."""
    return (os.environ.get(EFFORT_ENV) or DEFAULT_EFFORT).strip().lower()


def _key(image: np.ndarray) -> str:
    """A short fingerprint of a photo's pixels (the store's key when none is given)."""
    return hashlib.blake2b(np.ascontiguousarray(image).data, digest_size=12).hexdigest()


class Passes:
    """The model passes over one photo (the whole photo or one crop, in a quarter turn), each run once.

    Every pass keeps its candidates down to ``FAINT`` (so a rule can see faint traces);
    :meth:`whole` and :meth:`crop` give them down to ``floor`` (default the detector's
    ``candidate_conf``, which is what the full reading uses). ``store`` (any mutable mapping) keeps the
    raw candidates and each pass's time under ``key`` (default: a fingerprint of the photo), so a second
    reading of the same photo with the same detector runs no pass again. ``passes`` and ``ms`` count the
    passes run (or taken from the store) for this photo and their model time. ``keep`` (below ``FAINT``)
    keeps every pass's candidates down to it instead: a taught deck's rescue takes the upright
    whole-photo pass down to its own floor from here (:meth:`vision.deck.DeckMemory.rescue`).
    """

    def __init__(
        self,
        detector: Any,
        image: np.ndarray,
        store: MutableMapping[str, Any] | None = None,
        key: str | None = None,
        keep: float | None = None,
    ) -> None:
        self.detector = detector
        self.image = image
        self.store = store
        self._keep = keep
        self._given_key = key
        self._seen: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
        self._read: dict[tuple[float, ...], tuple[np.ndarray, float]] = {}
        self.passes = 0
        self.ms = 0.0
        self.live_ms = 0.0  # of ``ms``, the passes run now (not taken from the store)
        self.shaped = False
        """Whether the whole photo at the model's own long side is read at an input shaped as the photo
        (the same scale as the model's square input, less padding; a model with a dynamic input only)."""

    @property
    def key(self) -> str:
        """The store's key for this photo: the one given, else the photo's fingerprint, taken at the
        first use only (hashing a 1920x1080 photo costs several ms, and the kiosk reads with no store)."""
        if self._given_key is None:
            self._given_key = _key(self.image)
        return self._given_key

    def read(self, image: np.ndarray, boxes: np.ndarray, near: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """The corner reader's opinion on ``boxes`` of this photo, each box read once: the first look and
        the final reading share the corners both hold. ``near`` (over 0) also takes a box as read where a
        box read before (or earlier in ``boxes``) cuts almost the same patch: centres and sides within
        ``near`` times that patch's side (:func:`vision.reader.patch_square`)."""
        reader = self.detector.reader
        keys = [tuple(float(v) for v in box) for box in boxes]
        new = [i for i, key in enumerate(keys) if key not in self._read]
        twins: dict[int, tuple[float, ...]] = {}
        if near > 0 and new:
            new, twins = self._twins(keys, new, near, getattr(reader, "context", CONTEXT))
        if new:
            cards, none = reader.read(image, boxes[new])
            for k, i in enumerate(new):
                self._read[keys[i]] = (cards[k], float(none[k]))
        for i, twin in twins.items():
            self._read[keys[i]] = self._read[twin]
        if not keys:
            return reader.read(image, boxes)  # type: ignore[no-any-return]
        return (
            np.stack([self._read[key][0] for key in keys]).astype(np.float32),
            np.array([self._read[key][1] for key in keys], np.float32),
        )

    def _twins(
        self, keys: list[tuple[float, ...]], new: list[int], near: float, context: float
    ) -> tuple[list[int], dict[int, tuple[float, ...]]]:
        """Of the boxes ``new`` (indices into ``keys``), those still to read, and for each of the others
        the box read (or to read) whose patch is almost its own (:meth:`read`)."""
        read = list(self._read)
        squares = [patch_square(key, context) for key in read]  # type: ignore[arg-type]
        todo: list[int] = []
        twins: dict[int, tuple[float, ...]] = {}
        for i in new:
            cx, cy, side = patch_square(keys[i], context)  # type: ignore[arg-type]
            for key, (tx, ty, tside) in zip(read, squares, strict=True):
                limit = near * tside
                if abs(cx - tx) <= limit and abs(cy - ty) <= limit and abs(side - tside) <= limit:
                    twins[i] = key
                    break
            else:
                todo.append(i)
                read.append(keys[i])
                squares.append((cx, cy, side))
        return todo, twins

    @property
    def floor(self) -> float:
        return float(min(FAINT, self.detector.candidate_conf))

    @property
    def keep(self) -> float:
        """The lowest score each pass keeps: ``floor``, or the lower ``keep`` given."""
        return self.floor if self._keep is None else min(self._keep, self.floor)

    def _get(self, name: str, run: Any) -> tuple[np.ndarray, np.ndarray]:
        if name not in self._seen:
            # passes kept down to a lower ``keep`` are stored apart from the usual ones
            slot = f"{name}@{self.keep:g}" if self._keep is not None and self.keep < self.floor else name
            stored = self.store.get(f"{self.key}/{slot}") if self.store is not None else None
            if stored is None:
                start = time.perf_counter()
                boxes, scores = run()
                stored = (boxes, scores, (time.perf_counter() - start) * 1000.0)
                self.live_ms += stored[2]
                if self.store is not None:
                    self.store[f"{self.key}/{slot}"] = stored
            self._seen[name] = stored
            self.passes += 1
            self.ms += float(stored[2])
        boxes, scores, _ = self._seen[name]
        return boxes, scores

    def _pass(self, image: np.ndarray, quarter_turns: int, long_side: int | None = None) -> View:
        det = self.detector
        turned = rotate_image(image, quarter_turns)
        if long_side is not None:
            size = rect_input_size(turned.shape[:2], long_side)
        else:
            size = det.input_hw or rect_input_size(turned.shape[:2], det.imgsz)
        padded, lb = letterbox(turned, size)
        output = det.run_model(padded)
        boxes, scores = candidate_boxes(output, len(det.codes), lb, turned.shape[:2], self.keep)
        return unrotate_boxes(boxes, quarter_turns, image.shape[:2]), scores

    def _size_tag(self, long_side: int | None) -> str:
        """A pass's name's input size: none for the model's own input (``input_hw``), "R" for a "rect"
        input of long side imgsz, else the long side asked for."""
        if long_side is not None:
            return f"R{long_side}" if long_side == self.detector.imgsz else f"L{long_side}"
        return "" if self.detector.input_hw is not None else f"R{self.detector.imgsz}"

    @staticmethod
    def _above(view: View, floor: float) -> View:
        boxes, scores = view
        keep = scores.max(axis=1) >= floor if len(scores) else np.zeros(0, bool)
        return boxes[keep], scores[keep]

    def whole(self, quarter_turns: int = 0, floor: float | None = None, long_side: int | None = None) -> View:
        """The whole photo's candidates in ``quarter_turns``, down to ``floor``; ``long_side`` (a model
        with a dynamic input only) reads it at an input of that long side, shaped as the photo, instead
        of the model's own; so does ``shaped`` at the model's own long side."""
        det = self.detector
        if not getattr(det, "resizable", False):
            long_side = None  # the model's own input
        elif long_side in (None, det.imgsz):
            # shaped: the model's own input still where the photo's shape fills it (a square photo)
            shaped = self.shaped and rect_input_size(self.image.shape[:2], det.imgsz) != det.input_hw
            long_side = det.imgsz if shaped else None
        view = self._get(
            f"w{quarter_turns}{self._size_tag(long_side)}",
            lambda: self._pass(self.image, quarter_turns, long_side),
        )
        return self._above(view, self.detector.candidate_conf if floor is None else floor)

    def crop(self, tiles: int, index: int, quarter_turns: int = 0, floor: float | None = None) -> View:
        """Crop ``index`` of the ``tiles`` x ``tiles`` grid, in ``quarter_turns``: its candidates in photo
        pixels, without the boxes its inner edges cut (as the full reading's tiled view)."""
        height, width = self.image.shape[:2]
        rect = tile_grid(height, width, tiles)[index]
        view = self._get(
            f"t{tiles}.{index}.{quarter_turns}{self._size_tag(None)}",
            lambda: self._region(rect, quarter_turns),
        )
        return self._above(view, self.detector.candidate_conf if floor is None else floor)

    def window(self, rect: Rect, quarter_turns: int, long_side: int, floor: float | None = None) -> View:
        """The part ``rect`` (x, y, width, height) of the photo in ``quarter_turns``, read at an input of
        ``long_side`` (a model with a dynamic input): its candidates in photo pixels, as :meth:`crop`."""
        x0, y0, w, h = rect
        view = self._get(
            f"r{x0}.{y0}.{w}.{h}.{quarter_turns}{self._size_tag(long_side)}",
            lambda: self._region(rect, quarter_turns, long_side),
        )
        return self._above(view, self.detector.candidate_conf if floor is None else floor)

    def _region(self, rect: Rect, quarter_turns: int, long_side: int | None = None) -> View:
        """One pass over the part ``rect`` of the photo: candidates in photo pixels, less those its inner
        edges cut (a neighbouring view sees them whole)."""
        x0, y0, cw, ch = rect
        boxes, scores = self._pass(self.image[y0 : y0 + ch, x0 : x0 + cw], quarter_turns, long_side)
        return from_crop(boxes, scores, rect, self.image.shape[:2])

    def tiled(self, tiles: int, quarter_turns: int, indices: list[int] | None = None) -> View:
        """The crops ``indices`` (default all) of the grid as one view."""
        count = tiles * tiles
        parts = [self.crop(tiles, i, quarter_turns) for i in (range(count) if indices is None else indices)]
        if not parts:
            return np.zeros((0, 4), np.float32), np.zeros((0, len(self.detector.codes)), np.float32)
        return np.concatenate([b for b, _ in parts]), np.concatenate([s for _, s in parts])


def fuse_covered(
    views: list[tuple[np.ndarray, np.ndarray, list[Rect] | None]], iou: float = FUSE_IOU, chunk: int = 256
) -> View:
    """:func:`vision.geometry.fuse_views` for views that looked at parts of the photo: each candidate's
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


def _final(detector: Any, image: np.ndarray, view: View, read: Any = None) -> list[Detection]:
    """Candidates of the fused views to corners, as the full reading ends: threshold, reader, NMS."""
    boxes, scores = view
    keep = scores.max(axis=1) >= detector.candidate_conf if len(scores) else np.zeros(0, bool)
    boxes, scores = boxes[keep], scores[keep]
    if detector.reader is not None:
        boxes, scores = detector.reread(image, boxes, scores, read)
    return suppress(boxes, scores, detector.codes, detector.iou, detector.cross_iou)


def read_full(detector: Any, passes: Passes) -> list[Detection]:
    """The kiosk's full reading (:meth:`CardDetector.detect`) from ``passes``: the same views, the same
    vote; with a store, a photo read before costs no pass."""
    return list(detector.read_views(passes.image, passes.whole, passes.tiled))


@dataclass(frozen=True)
class Doubt:
    """Where the first look left doubt: centres of the spots in photo pixels, by reason."""

    unsure: np.ndarray  # corners read, but not surely (low merged score, or a close rival code)
    faint: np.ndarray  # traces under the candidates' threshold, away from every corner read
    small: np.ndarray  # corners read surely but small, in a photo large enough to be tiled

    @property
    def any(self) -> bool:
        return bool(len(self.unsure) or len(self.faint) or len(self.small))


def _opinion(detector: Any, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, read: Any) -> View:
    """Candidates to corners and their merged scores: the corner reader's opinion (``read``) merged with
    the detector's (:meth:`CardDetector.reader_opinion`, ``merged``); without a reader, the candidates left
    by suppression within each class, with the detector's scores."""
    if detector.reader is not None and len(boxes):
        boxes, det_scores, cards = detector.reader_opinion(image, boxes, scores, read)
        return boxes, detector.merged(det_scores, cards)
    keep = class_nms(boxes, scores, detector.iou)
    return boxes[keep], scores[keep]


def _doubtful(detector: Any, merged: np.ndarray, sure: float, rival: float) -> tuple[np.ndarray, np.ndarray]:
    """Of corners with ``merged`` scores, those kept (the best reaching ``conf``) and those in doubt: the
    best between ``candidate_conf`` and ``sure``, or kept with a runner-up scoring ``rival`` times it."""
    ordered = np.sort(merged, axis=1) if len(merged) else np.zeros((0, 2), np.float32)
    best, second = ordered[:, -1], ordered[:, -2]
    kept = best >= detector.conf
    unsure = ((best >= detector.candidate_conf) & (best < sure)) | (kept & (second >= rival * best))
    return kept, unsure


def _centres(boxes: np.ndarray) -> np.ndarray:
    return np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)


@dataclass(frozen=True)
class FocusRules:
    """The thresholds of :func:`read_focused` (see the module doc)."""

    sure: float = SURE
    rival: float = RIVAL
    faint: float = FAINT
    small_tiles: bool = True  # small sure corners of a large photo get their crops
    turn_for_unsure: bool = True  # unsure spots also get the half turn of the whole photo
    crop_turns: int = 2  # the crops are read in at most this many turns (1: upright only)
    # after the upright 2 x 2 crops, the next turn's crops only where the views so far (fused, re-read)
    # leave a corner under this merged score, a close rival or a faint trace; None: every crop, every turn
    crop_sure: float | None = CROP_SURE
    look: float = LOOK  # a large photo's first look: input long side over imgsz (dynamic-input model)
    window: int = WINDOW  # after such a look, a spot in doubt is read again in a window of this input side
    shaped: bool = True  # a large photo's whole-photo looks at the model's long side: shaped as the photo
    reuse: float = REUSE  # after a large look, the reader reads one box for boxes of almost its patch


DEFAULT_FOCUS = FocusRules()


def find_doubt(
    detector: Any,
    passes: Passes,
    rules: FocusRules = DEFAULT_FOCUS,
    side: int | None = None,
    read: Any = None,
) -> tuple[Doubt, View]:
    """A look: the whole photo upright (at an input of long side ``side``, default the model's own),
    re-read by the corner reader. Returns where it leaves doubt and its merged candidates (boxes, scores
    after the reader; what :func:`read_focused` keeps when nothing is in doubt). Small corners are
    doubtful only in a look at the model's own size."""
    from vision.detector import AUTO_TILE_FACTOR, SMALL_CORNER

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
        small_mask = kept & ~unsure_mask & (size < SMALL_CORNER)
        # A photo tiled by size alone, or one whose corners are mostly small, as the full reading decides.
        if large_photo or (kept.any() and float(np.median(size[kept])) < SMALL_CORNER):
            small = _centres(boxes[small_mask])
    doubt = Doubt(_centres(boxes[unsure_mask]), _centres(faint_boxes), small)
    return doubt, (boxes[kept], merged[kept])


def read_focused(detector: Any, passes: Passes, rules: FocusRules = DEFAULT_FOCUS) -> list[Detection]:
    """Read with effort where needed (module doc): one pass, then the extra views on the spots in doubt."""
    from vision.detector import TILE_ROTATIONS, read_far

    image = passes.image
    hw = image.shape[:2]
    side = look_side(detector, hw, rules)
    passes.shaped = passes.shaped or (rules.shaped and side > detector.imgsz)
    far = read_far(detector, passes) if hasattr(detector, "tiles_after") else None
    if far is not None:  # a far table: its corners read through finer crops (vision.detector.read_far)
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
    if not hasattr(detector, "grid_scale"):
        if tiled:
            for k in turns(min(rotations, TILE_ROTATIONS, rules.crop_turns)):
                views.append((*passes.tiled(2, k, needed), [grid[i] for i in needed]))
        return _final(detector, image, fuse_covered(views), passes.read)
    # each spot voted on by the views that could read it (vision.geometry.fuse_readable)
    for n, k in enumerate(turns(min(rotations, TILE_ROTATIONS, rules.crop_turns)) if tiled else ()):
        if n and rules.crop_sure is not None:  # the next turns only for the crops still in doubt
            needed = _crops_in_doubt(detector, passes, views, grid, needed, rules)
            if not needed:
                break
        views.append((*passes.tiled(2, k, needed), [grid[i] for i in needed]))
    return _final(detector, image, _fuse_scaled(detector, hw, views), passes.read)


def _fuse_scaled(
    detector: Any, hw: tuple[int, int], views: list[tuple[np.ndarray, np.ndarray, list[Rect] | None]]
) -> View:
    """The whole-photo views and 2 x 2 crops of :func:`read_focused`, each spot voted on by the views that
    could read it (:func:`vision.geometry.fuse_readable`)."""
    scales = [detector.view_scale(hw) if r is None else detector.grid_scale(hw, 2) for _, _, r in views]
    return fuse_readable([v[:2] for v in views], scales, regions=[v[2] for v in views])


def _crops_in_doubt(
    detector: Any,
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


def _read_large(detector: Any, passes: Passes, rules: FocusRules, side: int) -> list[Detection]:
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
    if not hasattr(detector, "view_scale"):
        return _final(detector, image, fuse_covered(views), read)
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


def look_side(detector: Any, image_hw: tuple[int, int], rules: FocusRules = DEFAULT_FOCUS) -> int:
    """The input long side of the first look at a photo of ``image_hw``: for a photo the full reading
    crops by its size alone (long side over ``AUTO_TILE_FACTOR`` x imgsz), read by a model with a dynamic
    input, ``rules.look`` x imgsz (to a multiple of 32, never over the photo's own size): its corners are
    seen at the crops' scale in one pass; otherwise the model's own input."""
    from vision.detector import AUTO_TILE_FACTOR

    imgsz = int(detector.imgsz)
    large = max(image_hw) > AUTO_TILE_FACTOR * imgsz
    if not getattr(detector, "resizable", False) or not large or rules.look <= 1.0:
        return imgsz
    return max(imgsz, min(round(rules.look * imgsz / 32) * 32, -(-max(image_hw) // 32) * 32))


def _mostly_small(detector: Any, boxes: np.ndarray, hw: tuple[int, int]) -> bool:
    """Whether the median of corner ``boxes`` found in the whole photo is under ``SMALL_CORNER``
    model-input pixels (the full reading's own test for adding crops: ``corners_are_small``)."""
    from vision.detector import SMALL_CORNER

    in_h, in_w = detector.input_hw or rect_input_size(hw, detector.imgsz)
    scale = min(in_h / hw[0], in_w / hw[1])
    size = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])) * scale
    return bool(len(size)) and float(np.median(size)) < SMALL_CORNER


def _tiles_worth(detector: Any, doubt: Doubt, first: View, hw: tuple[int, int]) -> bool:
    """Whether unsure or faint spots also get crops: in a photo the full reading would tile (large, or
    its corners small in the model input)."""
    from vision.detector import AUTO_TILE_FACTOR, SMALL_CORNER

    if max(hw) > AUTO_TILE_FACTOR * detector.imgsz:
        return True
    boxes, _ = first
    if not len(boxes):
        return bool(len(doubt.faint))
    in_h, in_w = detector.input_hw or rect_input_size(hw, detector.imgsz)
    scale = min(in_h / hw[0], in_w / hw[1])
    size = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])) * scale
    return float(np.median(size)) < SMALL_CORNER


def read_with_effort(
    detector: Any,
    image: np.ndarray,
    effort: str = FOCUSED,
    store: MutableMapping[str, Any] | None = None,
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


class ViewStore(MutableMapping[str, Any]):
    """A :class:`Passes` store on disk: one ``.npz`` per photo and pass under ``folder`` (for measuring
    rules on many photos; never used by the kiosk)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.folder / (key.replace("/", "__") + ".npz")

    def __getitem__(self, key: str) -> Any:
        path = self._path(key)
        if not path.is_file():
            raise KeyError(key)
        with np.load(path) as data:
            return data["boxes"], data["scores"], float(data["ms"])

    def __setitem__(self, key: str, value: Any) -> None:
        boxes, scores, ms = value
        np.savez(self._path(key), boxes=boxes, scores=scores, ms=ms)

    def __delitem__(self, key: str) -> None:
        self._path(key).unlink()

    def __iter__(self) -> Any:
        return (p.stem.replace("__", "/") for p in self.folder.glob("*.npz"))

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*.npz"))


class EffortReader:
    """A :class:`vision.detector.Detector` that reads with ``effort`` through ``detector``'s passes, kept
    in ``store`` under each photo's ``key`` (set before each photo); ``last`` is the last photo's
    :class:`Passes`. For measuring (``main``), where a photo is read several ways."""

    def __init__(
        self,
        detector: Any,
        effort: str,
        store: MutableMapping[str, Any] | None = None,
        rules: FocusRules = DEFAULT_FOCUS,
    ) -> None:
        self.detector = detector
        self.effort = effort
        self.store = store
        self.rules = rules
        self.key: str | None = None
        self.last: Passes | None = None

    @property
    def model_path(self) -> Path:
        return Path(self.detector.model_path)

    @property
    def loaded(self) -> bool:
        return bool(self.detector.loaded)

    def load(self) -> EffortReader:
        self.detector.load()
        return self

    def detect(self, image: np.ndarray) -> list[Detection]:
        found, self.last = read_with_effort(
            self.detector, image, self.effort, self.store, self.key, self.rules
        )
        return found


def focus_rules(text: str) -> FocusRules:
    """Rules from text, e.g. ``sure=0.5,rival=0.3,faint=0.05,small_tiles=0`` (unnamed ones keep their
    defaults); ``default`` for the shipped ones. Raises ValueError naming a bad part."""
    if text == "default":
        return DEFAULT_FOCUS
    values: dict[str, Any] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name in ("sure", "rival", "faint"):
            values[name] = float(value)
        elif name in ("small_tiles", "turn_for_unsure", "shaped"):
            values[name] = value not in ("0", "false", "no")
        elif name == "crop_turns":
            values[name] = int(value)
        elif name == "crop_sure":
            values[name] = None if value in ("none", "") else float(value)
        elif name == "look":
            values[name] = float(value)
        elif name == "window":
            values[name] = int(value)
        elif name == "reuse":
            values[name] = float(value)
        else:
            raise ValueError(
                f"unknown rule {name!r} in {text!r} (sure, rival, faint, small_tiles, turn_for_unsure)"
            )
    return FocusRules(**values)


def main(argv: list[str] | None = None) -> int:
    """Compare the full reading with focused ones on the same photos, in one run: against the truth when
    there is one, and always against the full reading (cards it read that a focused one did not)."""
    from vision.camera import IMAGE_SUFFIXES
    from vision.detector import CardDetector
    from vision.evaluate import Score, default_photo_dir, load_truth
    from vision.pipeline import read_cards
    from vision.types import VisionError

    parser = argparse.ArgumentParser(prog="python -m vision.effort", description=main.__doc__)
    parser.add_argument("--truth", type=Path, help="truth file (as vision.evaluate takes)")
    parser.add_argument("--photos", type=Path, help="photo folder (default: next to the truth)")
    parser.add_argument("--store", type=Path, help="keep each pass of the model here and reuse it")
    parser.add_argument("--limit", type=int, help="only the first N photos")
    parser.add_argument("--decks", type=int, help="read no card more often than N packs hold")
    parser.add_argument("--focus", nargs="+", type=focus_rules, default=[DEFAULT_FOCUS], help="rules to try")
    parser.add_argument(
        "--model", type=Path, help="the detector the focused readings use (default: the kiosk's, as the full)"
    )
    args = parser.parse_args(argv)
    if args.truth:
        entries = load_truth(args.truth)
        photos = args.photos or default_photo_dir(args.truth)
        prefix = args.truth.parent.parent.name
    elif args.photos:
        files = sorted(p for p in args.photos.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        entries = [{"image": str(p.relative_to(args.photos)), "cards": None} for p in files]
        photos, prefix = args.photos, args.photos.name
    else:
        parser.error("give --truth or --photos")
    entries = entries[: args.limit]
    store = ViewStore(args.store) if args.store else None
    detector = CardDetector().load()
    focus_detector = CardDetector(args.model).load() if args.model else detector
    readers = {FULL: EffortReader(detector, FULL, store)}
    for k, rules in enumerate(args.focus):
        readers[f"{FOCUSED}{k or ''}"] = EffortReader(focus_detector, FOCUSED, store, rules)
        print(f"{FOCUSED}{k or ''}: {rules}{f' with {args.model}' if args.model else ''}")
    scores = {name: Score() for name in readers}
    times: dict[str, list[float]] = {name: [] for name in readers}
    passes: dict[str, list[int]] = {name: [] for name in readers}
    lost = dict.fromkeys(readers, 0)
    gained = dict.fromkeys(readers, 0)
    alike = dict.fromkeys(readers, 0)
    cards = dict.fromkeys(readers, 0)
    print(f"{len(entries)} photos from {photos}", flush=True)
    for entry in entries:
        codes: dict[str, Counter[str]] = {}
        for name, reader in readers.items():
            reader.key = f"{prefix}.{Path(entry['image']).with_suffix('').as_posix().replace('/', '.')}"
            if reader.detector is not detector:
                reader.key += f"@{Path(reader.detector.model_path).stem}"
            try:
                reading = read_cards(photos / entry["image"], reader, decks=args.decks)
            except VisionError as exc:
                print(f"  {entry['image']}: {exc}", file=sys.stderr)
                break
            assert reader.last is not None
            if entry["cards"] is not None:
                scores[name].add(entry, reading)
            times[name].append(reading.ms - reader.last.live_ms + reader.last.ms)
            passes[name].append(reader.last.passes)
            codes[name] = Counter(reading.codes)
            cards[name] += len(reading.codes)
            lost[name] += sum((codes[FULL] - codes[name]).values())
            gained[name] += sum((codes[name] - codes[FULL]).values())
            alike[name] += codes[name] == codes[FULL]
    header = f"{'reading':9} {'cards':>6} {'right':>6} {'extra':>6} {'miss':>5} {'exact':>9} {'median':>7}"
    print(header + f" {'p90':>7} {'x full':>6} passes  vs full: lost, gained, photos alike")
    base = statistics.median(times[FULL]) if times[FULL] else 0.0
    for name in readers:
        sc, ms = scores[name], sorted(times[name])
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))] if ms else 0.0
        median = statistics.median(ms) if ms else 0.0
        print(
            f"{name:9} {cards[name]:>6} {sc.right / max(sc.right + sc.missing, 1):>6.1%} {sc.extra:>6} "
            f"{sc.missing:>5} {f'{sc.exact}/{sc.photos}':>9} {median:>7.1f} {p90:>7.1f} "
            f"{median / base if base else 0:>6.2f} {statistics.fmean(passes[name]) if ms else 0:>6.2f}  "
            f"{lost[name]}, {gained[name]}, {alike[name]}/{len(ms)}"
        )
    if store is not None:
        print("times: the passes' model time as stored (measured when first run), the rest live")
    return 0


if __name__ == "__main__":
    sys.exit(main())
