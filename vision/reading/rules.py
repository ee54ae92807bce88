"""The reading's rules: the thresholds the reading strategies (:mod:`vision.reading.full`,
:mod:`~vision.reading.focused`, :mod:`~vision.reading.far`) share, the reading effort, the rules of the
focused reading (:class:`FocusRules`), and :class:`PassDetector`, the detector as a strategy sees it: the
settings of its model and the passes it runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vision.base.geometry import TILE_OVERLAP
from vision.base.types import Detection
from vision.reader.corners import CornerReader

AUTO_TILE_FACTOR = 2.0  # chosen by measurement (make bench, reading part)
SMALL_CORNER = 24.0  # median corner size (model input pixels) under which auto also tiles (make bench)
READER_WEIGHT = 0.5  # the reader's weight in a corner's scores: docs/vision.md ("The corner reader")
READER_FLOOR = 0.5  # with a reader, the detector's candidates down to this share of ``conf`` are re-read
FINE_PX = 9.0  # a far table's crops are chosen to show its median corner at least this large (placement.md)
FAR_PX = 4.0  # the corner size (whole-photo model input pixels) assumed when the whole photo shows none
FAR_QUANTILE = 0.25  # the finer grid is chosen for the smaller corners found: this quantile of their sizes
FAR_TILES = 3  # the finest grid a far table gets (3 x 3: a 4 px corner of a 16:9 photo seen at 10 px)
TILE_ROTATIONS = 2  # the crops are read in at most this many turns (four would cost 8 more passes)
LOOK_STEP = "look"  # progress: a pass of the model (the whole photo, a turn or a crop) begins
CORNERS_STEP = "corners"  # progress: the corner reader begins to read the corners found

FULL = "full"
FOCUSED = "focused"
EFFORTS = (FULL, FOCUSED)
EFFORT_ENV = "TABLETALLY_EFFORT"  # the kiosk's reading effort (full or focused) without a rebuild
DEFAULT_EFFORT = (
    FOCUSED  # as many photos read exactly as the full reading, sooner (python -m vision.devtools.effort)
)

FAINT = 0.05  # a first-pass candidate scoring this much, away from the corners found, is looked at again
SURE = 0.5  # a corner whose merged score reaches this (and has no close rival) is not looked at again
RIVAL = 0.3  # a runner-up code scoring this share of the best makes the corner doubtful
FUSE_IOU = 0.55  # as vision.base.geometry.fuse_views
LOOK = 2.0 - TILE_OVERLAP  # a large photo is looked at once at the scale of the full reading's 2 x 2 crops
CROP_SURE = 0.3  # after the upright crops, a corner under this merged score gets its crop half turned
WINDOW = 320  # input pixels: the side of the window around a spot in doubt read again after such a look
REUSE = 0.05  # after such a look, boxes whose patches differ by under this share of a side are read once


View = tuple[np.ndarray, np.ndarray]
"""Candidates of one view: boxes (N x 4, photo pixels) and class scores (N x classes)."""
Rect = tuple[int, int, int, int]
"""x, y, width, height of a part of the photo."""
ReadFn = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""The corner reader's ``read(image, boxes)``: card probabilities and "no corner" per box."""
Progress = Callable[[str], None]
"""Told ``LOOK_STEP`` before each pass of the model and ``CORNERS_STEP`` before the corner reader reads."""


def merge_reading(scores: np.ndarray, cards: np.ndarray, weight: float = READER_WEIGHT) -> np.ndarray:
    """The detector's class scores merged with the corner reader's card probabilities, class by class:
    the weighted geometric mean ``scores ** (1 - weight) * cards ** weight`` (float32)."""
    return (scores ** (1.0 - weight) * cards**weight).astype(np.float32)


def effort_from_env() -> str:
    """The reading effort: ``$TABLETALLY_EFFORT`` (full or focused), else ``DEFAULT_EFFORT``."""
    return (os.environ.get(EFFORT_ENV) or DEFAULT_EFFORT).strip().lower()


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


def focus_rules(text: str) -> FocusRules:
    """Rules from text, e.g. ``sure=0.5,rival=0.3,faint=0.05,small_tiles=0`` (unnamed ones keep their
    defaults); ``default`` for the shipped ones. Raises ValueError naming a bad part."""
    if text == "default":
        return DEFAULT_FOCUS
    values: dict[str, float | int | bool | None] = {}
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
    return FocusRules(**values)  # type: ignore[arg-type]


class PassDetector(Protocol):
    """The detector as the reading strategies see it: its model's input and classes, its thresholds and
    views, and one pass of its model (:meth:`run_model`). :class:`vision.reading.detector.CardDetector`
    is the one there is."""

    imgsz: int
    input_hw: tuple[int, int] | None
    resizable: bool
    codes: tuple[str, ...]
    conf: float
    iou: float
    cross_iou: float
    tiles: int | None
    rotations: int
    reader: CornerReader | None

    @property
    def candidate_conf(self) -> float: ...

    @property
    def small_corner(self) -> float: ...

    def run_model(self, letterboxed: np.ndarray) -> np.ndarray: ...

    def read_corners(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def view_scale(self, image_hw: tuple[int, int]) -> float: ...

    def grid_scale(self, image_hw: tuple[int, int], tiles: int) -> float: ...

    def tiles_after(self, image_hw: tuple[int, int], boxes: np.ndarray) -> int: ...

    def read_views(
        self,
        image: np.ndarray,
        whole: Callable[[int], View],
        tiled: Callable[[int, int], View],
    ) -> list[Detection]: ...

    def vote(
        self, views: list[View], image: np.ndarray, scales: list[float] | None = None
    ) -> list[Detection]: ...

    def reread(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, read: ReadFn | None = None
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def reader_opinion(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, read: ReadFn | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

    def merged(self, scores: np.ndarray, cards: np.ndarray) -> np.ndarray: ...


def look_side(detector: PassDetector, image_hw: tuple[int, int], rules: FocusRules = DEFAULT_FOCUS) -> int:
    """The input long side of the first look at a photo of ``image_hw``: for a photo the full reading
    crops by its size alone (long side over ``AUTO_TILE_FACTOR`` x imgsz), read by a model with a dynamic
    input, ``rules.look`` x imgsz (to a multiple of 32, never over the photo's own size): its corners are
    seen at the crops' scale in one pass; otherwise the model's own input."""
    imgsz = int(detector.imgsz)
    large = max(image_hw) > AUTO_TILE_FACTOR * imgsz
    if not detector.resizable or not large or rules.look <= 1.0:
        return imgsz
    return max(imgsz, min(round(rules.look * imgsz / 32) * 32, -(-max(image_hw) // 32) * 32))
