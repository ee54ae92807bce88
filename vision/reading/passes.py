"""The model passes over one photo (:class:`Passes`): the whole photo or a part of it, in a quarter turn,
each run once and remembered, so the reading strategies ask for a view as often as they like."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, MutableMapping

import numpy as np

from vision.base.errors import ModelError
from vision.base.geometry import (
    candidate_boxes,
    from_crop,
    letterbox,
    rect_input_size,
    rotate_image,
    tile_grid,
    unrotate_boxes,
)
from vision.reader.corners import patch_square
from vision.reading.rules import FAINT, PassDetector, Rect, View

Stored = tuple[np.ndarray, np.ndarray, float]
"""A pass as a store keeps it: candidate boxes, class scores, and the pass's time in ms."""


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
    whole-photo pass down to its own floor from here (:meth:`vision.deck.memory.DeckMemory.rescue`).
    """

    def __init__(
        self,
        detector: PassDetector,
        image: np.ndarray,
        store: MutableMapping[str, Stored] | None = None,
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
        ``near`` times that patch's side (:func:`vision.reader.corners.patch_square`)."""
        reader = self.detector.reader
        if reader is None:
            raise ModelError("this detector has no corner reader (reader='off')")
        keys = [tuple(float(v) for v in box) for box in boxes]
        new = [i for i, key in enumerate(keys) if key not in self._read]
        twins: dict[int, tuple[float, ...]] = {}
        if near > 0 and new:
            new, twins = self._twins(keys, new, near, reader.context)
        if new:
            cards, none = self.detector.read_corners(image, boxes[new])
            for k, i in enumerate(new):
                self._read[keys[i]] = (cards[k], float(none[k]))
        for i, twin in twins.items():
            self._read[keys[i]] = self._read[twin]
        if not keys:
            return self.detector.read_corners(image, boxes)
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

    def _get(self, name: str, run: Callable[[], View]) -> View:
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
        if not det.resizable:
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
