"""A detector without a model: scripted detections, shipped beside the real one as
:class:`vision.cameras.FolderCamera` is beside the Pi camera.

:class:`FakeDetector` follows the :class:`vision.runtimes.protocols.Detector` protocol, so the kiosk, the
pipeline
and their tests run end to end (pairing corners into cards, grouping hands, limiting copies) on
detections written by hand, with no model file and no runtime. It checks each photo as the real detector
does, and records what it was asked.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from vision.base.errors import InvalidValueError, ModelError
from vision.base.photo import check_image_array
from vision.base.types import Detection

__all__ = ["FakeDetector", "Reading"]

Reading = Sequence[Detection] | Callable[[np.ndarray], Iterable[Detection]]
"""What the fake finds in one photo: a fixed list of detections, or a function of the photo."""


class FakeDetector:
    """Finds the detections it was given, one scripted reading per photo.

    The ``n``-th call to :meth:`detect` returns ``readings[n]`` (a list of :class:`Detection`, or a
    function of the photo returning them); after the last reading it starts again with ``loop=True`` (a
    table that does not change), otherwise it raises :class:`ModelError`. ``load_error``, when given, is
    raised by :meth:`load` and :meth:`detect`, as a missing or broken model would be.

    ``photos`` records the photos ``detect`` was given (in order) and ``loads`` how often ``load`` ran.
    """

    def __init__(
        self,
        *readings: Reading,
        loop: bool = True,
        load_error: ModelError | None = None,
        model_path: str | Path = "fake-model.onnx",
    ) -> None:
        if not readings and load_error is None:
            raise InvalidValueError("a FakeDetector needs at least one scripted reading (or a load_error)")
        for reading in readings:
            if not callable(reading) and not all(isinstance(d, Detection) for d in reading):
                raise InvalidValueError(f"a scripted reading must hold Detection values, got {reading!r}")
        self._readings = readings
        self.loop = loop
        self.load_error = load_error
        self._model_path = Path(model_path)
        self._lock = threading.Lock()
        self._loaded = False
        self.loads = 0
        self.photos: list[np.ndarray] = []

    def __repr__(self) -> str:
        return f"FakeDetector({len(self._readings)} reading(s), {len(self.photos)} photo(s) read)"

    @property
    def model_path(self) -> Path:
        return self._model_path

    @property
    def loaded(self) -> bool:
        return self._loaded

    def load(self) -> FakeDetector:
        """ "Load" the scripted model: raises ``load_error`` when one was given. Returns self."""
        with self._lock:
            self.loads += 1
            if self.load_error is not None:
                raise self.load_error
            self._loaded = True
        return self

    def detect(self, image: np.ndarray) -> list[Detection]:
        """The next scripted reading of ``image`` (checked as the real detector checks a photo)."""
        check_image_array(image)
        self.load()
        with self._lock:
            index = len(self.photos)
            if index >= len(self._readings) and not self.loop:
                raise ModelError(
                    f"fake detector: no more scripted readings (all {len(self._readings)} were used)"
                )
            self.photos.append(image)
            reading = self._readings[index % len(self._readings)]
        found = list(reading(image) if callable(reading) else reading)
        if not all(isinstance(d, Detection) for d in found):
            raise InvalidValueError(f"a scripted reading must give Detection values, got {found!r}")
        return found
