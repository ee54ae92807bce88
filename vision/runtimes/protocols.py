"""What the layers above ask of a model runtime: :class:`ModelPass`, one pass of the card model over one
letterboxed picture, and :class:`Detector`, a whole reading of a photo's corners.

The ONNX Runtime, NCNN and OpenVINO adapters (:mod:`vision.runtimes.onnx`, :mod:`~vision.runtimes.ncnn`,
:mod:`~vision.runtimes.openvino`) are model passes: the reading strategies (:mod:`vision.reading`) run
them as often as a photo needs. Ultralytics' ``predict`` (:mod:`vision.runtimes.ultralytics`) and the fake
of the tests (:mod:`vision.runtimes.fake`) read a whole photo themselves and are detectors, as is the
kiosk's :class:`vision.reading.detector.CardDetector`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, Self, runtime_checkable

import numpy as np

from vision.base.types import Detection

__all__ = ["Detector", "ModelPass"]


class ModelPass(Protocol):
    """One pass of the card model: a letterboxed HxWx3 uint8 BGR picture in, the model's raw output
    ``(1, 4 + classes, anchors)`` out. Before :meth:`load`, ``imgsz``, ``input_hw``, ``resizable`` and
    ``codes`` are what was asked for; after it, what the model file says. A missing or broken model raises
    :class:`~vision.base.errors.ModelError` from ``load``."""

    model_path: Path
    imgsz: int
    """The model's input long side."""
    input_hw: tuple[int, int] | None
    """The input (height, width) each pass gets: the model's fixed one, or the square a dynamic model was
    exported for; None: a "rect" input per photo, long side ``imgsz``."""
    resizable: bool
    """Whether the model also takes inputs of other sizes (dynamic height and width)."""
    codes: tuple[str, ...]
    """The model's class order (card codes)."""

    @property
    def loaded(self) -> bool: ...

    def load(self) -> None:
        """Open the model (once; not thread-safe: the detector holds its lock)."""
        ...

    def run(self, letterboxed: np.ndarray) -> np.ndarray:
        """The model's raw output for one letterboxed BGR picture."""
        ...


@runtime_checkable
class Detector(Protocol):
    """Finds card corner indices in photos: what the pipeline and the kiosk need of any backend.

    :class:`vision.reading.detector.CardDetector` is the one that ships; adapters for other runtimes
    (:class:`vision.runtimes.ultralytics.UltralyticsDetector`) and
    :class:`vision.runtimes.fake.FakeDetector` follow the same protocol. A missing or broken model raises
    :class:`~vision.base.errors.ModelError` from ``load`` (or the first ``detect``), a bad photo
    :class:`~vision.base.errors.ImageError`.
    """

    @property
    def model_path(self) -> Path:
        """The model file this detector runs (for messages and the doctor)."""
        ...

    @property
    def loaded(self) -> bool:
        """Whether the model is loaded (``detect`` loads it on first use)."""
        ...

    def load(self) -> Self:
        """Load the model now, from any thread; returns self. Idempotent."""
        ...

    def detect(self, image: np.ndarray) -> list[Detection]:
        """Corner detections in ``image`` (HxWx3 uint8 BGR), best first, boxes in photo pixels."""
        ...
