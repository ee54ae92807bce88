"""The card-corner detector, :class:`CardDetector`: the exported YOLO model, one pass at a time on its
runtime (:mod:`vision.runtimes`), read in the views a photo needs (:mod:`vision.reading.full`,
:mod:`~vision.reading.focused`, :mod:`~vision.reading.far`).

Pipeline: letterbox the BGR photo to the model's input (grey 114 padding, as Ultralytics does), run the
model, decode its ``(1, 4 + classes, anchors)`` output (centre x, centre y, width, height in input
pixels, then one sigmoid score per class), drop boxes under the confidence threshold, suppress overlaps
per class, then suppress boxes of *different* classes on the same spot (a corner read both as 6S and 9S
is one corner): the loser's code is kept as an alternative of the winner, so the card can be marked
uncertain. The kiosk reads each photo in several views (turns, crops) that vote, and has the corner
reader (:mod:`vision.reader.corners`) read every candidate again before the suppression.

The geometry of those steps is :mod:`vision.base.geometry`; the model's files and the environment's
settings are read by :mod:`vision.runtimes.model_files`. Other ways of finding corners follow
:class:`vision.runtimes.protocols.Detector` (:mod:`vision.runtimes.ultralytics`, and
:class:`vision.runtimes.fake.FakeDetector`, which stands in for a model in tests).
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from vision.base.errors import InvalidValueError, ModelError
from vision.base.geometry import (
    candidate_boxes,
    class_nms,
    from_crop,
    fuse_readable,
    fuse_views,
    letterbox,
    rect_input_size,
    rotate_image,
    suppress,
    tile_grid,
    turns,
    unrotate_boxes,
)
from vision.base.photo import check_image_array
from vision.base.types import CARD_CODES, Detection, box_size
from vision.reader.corners import DEFAULT_READER, CornerReader
from vision.reading.focused import read_focused, read_with_effort
from vision.reading.full import read_full
from vision.reading.passes import Passes
from vision.reading.rules import (
    AUTO_TILE_FACTOR,
    CORNERS_STEP,
    EFFORTS,
    FAR_PX,
    FAR_QUANTILE,
    FAR_TILES,
    FINE_PX,
    FOCUSED,
    LOOK_STEP,
    READER_FLOOR,
    READER_WEIGHT,
    SMALL_CORNER,
    TILE_ROTATIONS,
    Progress,
    ReadFn,
    effort_from_env,
    merge_reading,
)
from vision.runtimes.choice import RUNTIMES, default_model, open_pass, runtime_from_env
from vision.runtimes.model_files import (
    DEFAULT_CONF,
    DEFAULT_ONNX,
    DEFAULT_ROTATIONS,
    MODEL_ENV,
    READER_ENV,
    ROTATION_CHOICES,
    ROTATIONS_ENV,
    loading_conf,
    model_box_scale,
    reader_from_env,
    rotations_from,
    rotations_from_env,
    tiling,
)
from vision.runtimes.ncnn import DEFAULT_NCNN
from vision.runtimes.onnx import to_input_tensor
from vision.runtimes.protocols import Detector, ModelPass

__all__ = [
    "AUTO_TILE_FACTOR",
    "CORNERS_STEP",
    "LOOK_STEP",
    "DEFAULT_CONF",
    "DEFAULT_ONNX",
    "DEFAULT_ROTATIONS",
    "MODEL_ENV",
    "READER_ENV",
    "READER_FLOOR",
    "READER_WEIGHT",
    "ROTATIONS_ENV",
    "SMALL_CORNER",
    "TILE_ROTATIONS",
    "CardDetector",
    "Detection",
    "Detector",
    "merge_reading",
    "reporting_steps",
    "detector_for_runtime",
    "NcnnDetector",
    "OpenVinoDetector",
    "rotations_from",
    "tiling",
    "to_input_tensor",
]
# DEFAULT_ONNX, DEFAULT_ROTATIONS, MODEL_ENV, READER_ENV, ROTATIONS_ENV, rotations_from and tiling live in
# vision.runtimes.model_files, the reading's thresholds in vision.reading.rules; they are exported here too,
# as the detector's defaults and settings.


class CardDetector:
    """Finds card corner indices in BGR photos with the exported model and ONNX Runtime.

    Runs ``model_path`` (default ``$TABLETALLY_MODEL``, else ``models/cards.onnx``) on ``threads``
    intra-op threads. The model is loaded on first use (or by ``load()``); a missing, corrupt or
    unsuitable model raises :class:`ModelError` naming the file. Bad settings raise
    :class:`InvalidValueError` naming the setting.

    ``tiles=N`` (N >= 2) also runs the model on an N x N grid of overlapping crops, so that small corners
    in a large photo are seen at full resolution, at N * N more passes a turn; ``tiles=1`` never tiles.
    ``tiles=None`` (default) tiles 2 x 2 photos more than ``AUTO_TILE_FACTOR`` times the model input (a
    12 MP still), and smaller photos whose corners, found in the whole photo, are small in the model input
    (median under ``SMALL_CORNER`` pixels: a whole table or a Seep pile seen from afar); a close-up hand
    costs one pass.

    ``rotations`` (1, 2 or 4; default ``$TABLETALLY_ROTATIONS``, else ``DEFAULT_ROTATIONS``) reads the
    whole photo that many times, turned by quarter turns, and the crops in up to ``TILE_ROTATIONS`` turns;
    all these views, the crops included, vote on each corner (:func:`vision.base.geometry.fuse_views`). Each
    turn costs about one more pass; what it buys is measured by make bench.

    ``reader`` (default ``$TABLETALLY_READER``, else the shipped ``models/reader.onnx``; ``"off"`` for
    none) is the corner reader: a second model that reads every corner found again from the
    full-resolution photo, merged with the detector's reading (:meth:`reread`).
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        imgsz: int | None = None,
        conf: float | None = None,
        iou: float = 0.5,
        cross_iou: float = 0.7,
        threads: int = 2,
        tiles: int | None = None,
        rotations: int | None = None,
        reader: str | Path | None = None,
        effort: str | None = None,
        runtime: str = "onnx",
    ) -> None:
        if runtime not in RUNTIMES:
            raise InvalidValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
        self.model_path = Path(model_path) if model_path is not None else default_model(runtime)
        self.own_model_path = self.model_path
        """The model this detector was made with (:meth:`use_model` comes back to it)."""
        effort = effort or effort_from_env()
        if effort not in EFFORTS:
            raise InvalidValueError(f"effort must be {' or '.join(EFFORTS)}, got {effort!r}")
        if conf is not None and not 0.0 < conf < 1.0:
            raise InvalidValueError(f"conf must lie between 0 and 1, got {conf}")
        if not 0.0 < iou <= 1.0 or not 0.0 < cross_iou <= 1.0:
            raise InvalidValueError(f"iou thresholds must lie in (0, 1], got {iou} and {cross_iou}")
        if imgsz is not None and (imgsz < 32 or imgsz % 32):
            raise InvalidValueError(f"imgsz must be a multiple of 32 and at least 32, got {imgsz}")
        if threads < 1:
            raise InvalidValueError(f"threads must be >= 1, got {threads}")
        if tiles is not None and not 1 <= tiles <= 4:
            raise InvalidValueError(f"tiles must be 1 (whole photo only) to 4, or None (auto), got {tiles}")
        if rotations is None:
            rotations = rotations_from_env()
        if rotations not in ROTATION_CHOICES:
            raise InvalidValueError(f"rotations must be 1, 2 or 4, got {rotations!r}")
        if reader is None:
            reader = reader_from_env(DEFAULT_READER)
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
        self.reader: CornerReader | None = None if str(reader) == "off" else CornerReader(reader, threads)
        """The corner reader that re-reads each corner found (:mod:`vision.reader.corners`), or None."""
        self.effort: str = effort
        """``full``: every view of every photo; ``focused``: one look, then the extra views only where it
        leaves doubt (:mod:`vision.reading.focused`; with ``tiles=None`` only: a forced tiling reads in
        full)."""
        self._lock = threading.Lock()
        self.model: ModelPass = open_pass(runtime, self.model_path, threads, imgsz)
        """One pass of the model on its runtime (:mod:`vision.runtimes`)."""
        self.runtime = runtime
        self.progress: Progress | None = None
        """Told how far a reading has come (:func:`reporting_steps`), on the reading's thread; or None."""
        self.imgsz: int = imgsz or 640
        self.input_hw: tuple[int, int] | None = None
        """The input (height, width) each pass gets once loaded: the model's fixed one, or the square it was
        exported for (``classes.json`` "imgsz") where its input is dynamic; None: a "rect" input per photo."""
        self.resizable = False
        """Whether the model also takes inputs of other sizes (dynamic height and width): the focused
        reading's large look (:func:`vision.reading.rules.look_side`)."""
        self.codes: tuple[str, ...] = CARD_CODES
        self.box_scale = 1.0
        """How much larger the model draws a corner's box than the shipped model (``classes.json``
        "box_scale", :func:`vision.runtimes.model_files.model_box_scale`): the size tests follow it."""

    def __repr__(self) -> str:
        if self.runtime != "onnx":
            return f"CardDetector({str(self.model_path)!r}, runtime={self.runtime!r}, imgsz={self.imgsz})"
        return f"CardDetector({str(self.model_path)!r}, imgsz={self.imgsz}, rotations={self.rotations})"

    @property
    def candidate_conf(self) -> float:
        """The score a candidate of one pass needs to be considered: ``conf``, or ``READER_FLOOR * conf``
        with a corner reader (which can raise a weak corner it reads surely over ``conf``)."""
        return self.conf * READER_FLOOR if self.reader is not None else self.conf

    @property
    def small_corner(self) -> float:
        """``SMALL_CORNER`` for this model's boxes: the median corner size (model-input pixels) under which
        a photo's corners are small, times :attr:`box_scale` (exactly ``SMALL_CORNER`` for the shipped
        model)."""
        return SMALL_CORNER * self.box_scale

    @property
    def loaded(self) -> bool:
        return self.model.loaded

    def use_model(self, folder: Path | None) -> None:
        """Read with the model of the same file name in ``folder`` (a taught deck's own detector:
        ``cards.onnx``, or ``cards.ncnn.param`` on NCNN) from the next reading on; None, or a folder
        without that file: the model this detector was made with, as it was. Loads it now (a ModelError
        for a broken one)."""
        own = self.own_model_path
        path = own if folder is None or not (Path(folder) / own.name).is_file() else Path(folder) / own.name
        if path == self.model_path:
            return
        with self._lock:
            self.model_path = path
            self.model = open_pass(self.runtime, path, self.threads, self.requested_imgsz)
        self.load()

    def load(self) -> CardDetector:
        """Load the model now (it is otherwise loaded by the first ``detect``). Returns self."""
        with self._lock:
            if not self.loaded:
                self.conf = loading_conf(self.model_path, self.requested_conf, self.conf)
                model = self.model
                model.load()
                self.imgsz, self.input_hw, self.resizable = model.imgsz, model.input_hw, model.resizable
                self.codes = model.codes
                self.box_scale = model_box_scale(self.model_path)
            if self.reader is not None:
                self.reader.load()
        return self

    def detect(self, image: np.ndarray) -> list[Detection]:
        """Corner detections in ``image`` (HxWx3 uint8 BGR), best first, boxes in photo pixels."""
        check_image_array(image)
        self.load()
        deck = self.reader.deck if self.reader is not None else None
        if deck is None:
            return self._read(image)
        # the reading's passes kept down to the rescue's floor: the rescue takes their upright whole photo
        floor = deck.rescue_floor
        passes = Passes(self, image, keep=floor)
        if self.effort == FOCUSED and self.tiles is None:
            found = read_focused(self, passes)
        else:
            found = read_full(self, passes)
        assert self.reader is not None
        return deck.rescue(self.reader, image, found, passes.whole(0, floor=floor), self.conf)

    def _read(self, image: np.ndarray) -> list[Detection]:
        if self.effort == FOCUSED and self.tiles is None:
            return read_with_effort(self, image, FOCUSED)[0]
        return self.read_views(
            image, lambda k: self._candidates(image, k), lambda n, k: self._tiled_candidates(image, n, k)
        )

    def read_views(
        self,
        image: np.ndarray,
        whole: Callable[[int], tuple[np.ndarray, np.ndarray]],
        tiled: Callable[[int, int], tuple[np.ndarray, np.ndarray]],
    ) -> list[Detection]:
        """The full reading from its passes: ``whole(quarter_turns)`` (the whole photo's candidates) and
        ``tiled(tiles, quarter_turns)`` (a grid of crops as one view). The whole photo in every turn; then,
        unless ``tiles`` was given, the grid :meth:`tiles_after` chooses from what the first turn found, in
        up to ``TILE_ROTATIONS`` turns; each spot voted on by the views that could read it
        (:func:`fuse_readable`)."""
        hw = image.shape[:2]
        views = [whole(k) for k in turns(self.rotations)]
        scales = [self.view_scale(hw)] * len(views)
        tiles = self.tiles_for(hw)
        found: list[Detection] = []
        if self.tiles is None:
            if tiles == 1:
                found = self.vote(views, image)
                if found and not self.corners_are_small(found, hw):
                    return found
                boxes = np.array([d.box for d in found], np.float32).reshape(-1, 4)
            else:
                boxes, scores = views[0]
                boxes = boxes[class_nms(boxes, scores, self.iou)]
            tiles = self.tiles_after(hw, boxes)
            if tiles == 1:
                return found
        elif tiles == 1:  # the whole photo only, as asked: no grid of one crop (the same pass again)
            return self.vote(views, image, scales)
        tile_turns = turns(min(self.rotations, TILE_ROTATIONS))
        views += [tiled(tiles, k) for k in tile_turns]
        scales += [self.grid_scale(hw, tiles)] * len(tile_turns)
        return self.vote(views, image, scales)

    def view_scale(self, image_hw: tuple[int, int]) -> float:
        """Model-input pixels per pixel of a photo (or crop) of ``image_hw`` read whole (any turn)."""
        in_h, in_w = self.input_hw or rect_input_size(image_hw, self.imgsz)
        return min(in_h / image_hw[0], in_w / image_hw[1])

    def grid_scale(self, image_hw: tuple[int, int], tiles: int) -> float:
        """Model-input pixels per photo pixel in the ``tiles`` x ``tiles`` grid's crops (the largest)."""
        return min(self.view_scale((ch, cw)) for _, _, cw, ch in tile_grid(*image_hw, tiles))

    def tiles_after(self, image_hw: tuple[int, int], boxes: np.ndarray) -> int:
        """The grid a photo's reading adds once the whole photo found corners ``boxes`` (photo pixels;
        none: a far table is assumed, ``FAR_PX``): 1 (none) for a photo of corners read at a good size,
        or an empty photo whose 2 x 2 crops would be enlarged (no more of its pixels to see); else 2,
        or finer up to ``FAR_TILES`` while the median corner would stay under ``FINE_PX`` in the crops
        and the finer crops are still no larger in the model input than in the photo."""
        whole = self.view_scale(image_hw)
        if len(boxes):
            sides = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
            if self.tiles_for(image_hw) == 1 and float(np.median(sides)) * whole >= self.small_corner:
                return 1
            size = float(np.quantile(sides, FAR_QUANTILE)) * whole
        else:
            size = FAR_PX
            if self.tiles_for(image_hw) == 1 and self.grid_scale(image_hw, 2) > 1.0:
                return 1
        tiles = 2
        while (
            tiles < FAR_TILES
            and size * self.grid_scale(image_hw, tiles) / whole < FINE_PX
            and self.grid_scale(image_hw, tiles + 1) <= 1.0
        ):
            tiles += 1
        return tiles

    def vote(
        self,
        views: list[tuple[np.ndarray, np.ndarray]],
        image: np.ndarray,
        scales: list[float] | None = None,
    ) -> list[Detection]:
        """The views' candidates fused (:func:`fuse_views`; with the views' ``scales``,
        :func:`fuse_readable`); those still reaching ``candidate_conf`` re-read by the corner reader (when
        there is one: :meth:`reread`), then suppressed."""
        boxes, scores = fuse_views(views) if scales is None else fuse_readable(views, scales)
        keep = scores.max(axis=1) >= self.candidate_conf
        boxes, scores = boxes[keep], scores[keep]
        if self.reader is not None:
            boxes, scores = self.reread(image, boxes, scores)
        return suppress(boxes, scores, self.codes, self.iou, self.cross_iou)

    def reread(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, read: ReadFn | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Candidates (boxes in ``image`` pixels, class scores) after the corner reader's second opinion.

        The boxes left by non-maximum suppression within each class are cut from the photo at full
        resolution and read by the reader; each class score becomes a weighted geometric mean of the
        detector's score and the reader's probability, ``det ** (1 - READER_WEIGHT) * reader **
        READER_WEIGHT`` (the reader's "no corner" share counting for no card), and the boxes whose best
        score reaches ``conf`` are kept. A corner both read alike keeps about its score (a weak one the
        reader is sure of rises over ``conf``: the candidates come down to ``candidate_conf``); one they
        disagree on sinks, and unless one of them is sure it is dropped. ``read`` replaces the reader's
        ``read(image, boxes)`` (:mod:`vision.reading.focused` remembers what it read of a photo).
        """
        if self.reader is None or len(boxes) == 0:
            return boxes, scores
        boxes, scores, cards = self.reader_opinion(image, boxes, scores, read)
        combined = self.merged(scores, cards)
        keep = combined.max(axis=1) >= self.conf
        return boxes[keep], combined[keep]

    def merged(self, scores: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """The detector's class scores merged with the reader's card probabilities: by the taught deck
        when there is one (vision.deck.memory names its own cards with the reader), else
        :func:`merge_reading`."""
        deck = self.reader.deck if self.reader is not None else None
        return merge_reading(scores, cards) if deck is None else deck.merge(scores, cards, self.codes)

    def reader_opinion(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, read: ReadFn | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The candidates left by non-maximum suppression within each class (boxes, the detector's class
        scores) and, for each, the corner reader's card probabilities in the detector's class order (the
        reader's "no corner" share left out, so a row sums to under 1). The first step of :meth:`reread`."""
        if self.reader is None:
            raise ModelError("this detector has no corner reader (reader='off')")
        keep = class_nms(boxes, scores, self.iou)
        boxes, scores = boxes[keep], scores[keep]
        cards, _ = (read or self.read_corners)(image, boxes)
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
        return median * scale < self.small_corner

    def _candidates(
        self, image: np.ndarray, quarter_turns: int = 0, floor: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """One pass of the model over ``image`` turned clockwise by ``quarter_turns``: its candidates
        (boxes in ``image``'s own pixels, class scores) down to ``floor`` (default ``candidate_conf``)
        before suppression."""
        turned = rotate_image(image, quarter_turns)
        size = self.input_hw or rect_input_size(turned.shape[:2], self.imgsz)
        padded, lb = letterbox(turned, size)
        output = self.run_model(padded)
        low = self.candidate_conf if floor is None else floor
        boxes, scores = candidate_boxes(output, len(self.codes), lb, turned.shape[:2], low)
        return unrotate_boxes(boxes, quarter_turns, image.shape[:2]), scores

    def run_model(self, letterboxed: np.ndarray) -> np.ndarray:
        """The model's raw output ``(1, 4 + classes, anchors)`` for one letterboxed HxWx3 BGR input: one
        pass on the detector's runtime (:attr:`model`), told to :attr:`progress` as ``LOOK_STEP``."""
        if self.progress is not None:
            self.progress(LOOK_STEP)
        return self.model.run(letterboxed)

    def read_corners(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The corner reader's ``read`` of ``boxes`` in ``image``, told to :attr:`progress` as
        ``CORNERS_STEP``."""
        if self.reader is None:
            raise ModelError("this detector has no corner reader (reader='off')")
        if self.progress is not None:
            self.progress(CORNERS_STEP)
        return self.reader.read(image, boxes)

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
        hw = image.shape[:2]
        parts = []
        for x0, y0, cw, ch in tile_grid(hw[0], hw[1], tiles):
            boxes, scores = self._candidates(image[y0 : y0 + ch, x0 : x0 + cw], quarter_turns)
            parts.append(from_crop(boxes, scores, (x0, y0, cw, ch), hw))
        return np.concatenate([b for b, _ in parts]), np.concatenate([sc for _, sc in parts])


class NcnnDetector(CardDetector):
    """A :class:`CardDetector` whose model passes run through NCNN (``model_path``: the ``.param`` file,
    default ``models/cards.ncnn.param``; its ``.bin`` beside it; :mod:`vision.runtimes.ncnn`)."""

    def __init__(self, model_path: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(DEFAULT_NCNN if model_path is None else model_path, runtime="ncnn", **kwargs)


class OpenVinoDetector(CardDetector):
    """A :class:`CardDetector` whose model passes run through OpenVINO on the CPU (``model_path``: the ONNX
    file, default as CardDetector's; :mod:`vision.runtimes.openvino`)."""

    def __init__(self, model_path: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(model_path, runtime="openvino", **kwargs)


def detector_for_runtime(runtime: str | None = None, **kwargs: Any) -> CardDetector:
    """The kiosk's detector on ``runtime`` (default :func:`vision.runtimes.choice.runtime_from_env`): ONNX
    Runtime, NCNN (its own converted model: ``model_path`` is ignored) or OpenVINO (the same ONNX file),
    with ``kwargs`` as CardDetector takes them."""
    runtime = runtime or runtime_from_env()
    if runtime == "ncnn":
        kwargs.pop("model_path", None)
        return NcnnDetector(**kwargs)
    if runtime == "openvino":
        return OpenVinoDetector(**kwargs)
    return CardDetector(runtime=runtime, **kwargs)


@runtime_checkable
class ReportsProgress(Protocol):
    """A detector that tells how far a reading has come, through its ``progress`` callback."""

    progress: Progress | None


@contextmanager
def reporting_steps(detector: Detector, tell: Progress) -> Iterator[None]:
    """While inside, ``detector`` tells how far a reading has come: ``tell(LOOK_STEP)`` before each pass
    of its model and ``tell(CORNERS_STEP)`` before its corner reader reads, on the reading's thread (the
    kiosk shows it): its ``progress`` callback (:class:`ReportsProgress`, as :class:`CardDetector` on any
    runtime, whichever reading runs the passes), set for the while; a detector without one (a fake) tells
    nothing. One reading at a time per detector."""
    if not isinstance(detector, ReportsProgress):
        yield
        return
    before, detector.progress = detector.progress, tell
    try:
        yield
    finally:
        detector.progress = before
