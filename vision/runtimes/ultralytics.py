"""The Ultralytics backend: ``models/cards.pt`` run by Ultralytics (torch), behind the same
:class:`~vision.runtimes.protocols.Detector` protocol as the ONNX Runtime detector, to check that the exported
model
reads what the trained one reads (``tabletally detect --backend ultralytics``, the agreement test).

It reads the whole photo once, upright, without the corner reader (Ultralytics has neither crops nor
turns), and applies the same cross-class suppression as :class:`~vision.reading.detector.CardDetector`, so the
two differ only by the runtime and its letterbox. Neither torch nor Ultralytics is imported until the
model is loaded; they come with the ``train`` extra, and their absence is a clear :class:`ModelError`.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.errors import InvalidValueError, ModelError
from vision.base.geometry import Letterbox, decode_predictions
from vision.base.photo import check_image_array
from vision.base.types import CARD_CODES, Detection
from vision.runtimes.model_files import (
    DEFAULT_CONF,
    DEFAULT_PT,
    exported_imgsz,
    load_class_codes,
    loading_conf,
)

__all__ = ["UltralyticsDetector"]


class UltralyticsDetector:
    """Finds card corner indices with an Ultralytics ``.pt`` model (default ``models/cards.pt``).

    ``imgsz`` defaults to the size the model was shipped at (its ``classes.json`` "imgsz"), else the size
    it was trained at; ``conf`` to the model's tuned threshold (``classes.json`` "conf"), else 0.25.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        imgsz: int | None = None,
        conf: float | None = None,
        iou: float = 0.5,
        cross_iou: float = 0.7,
    ) -> None:
        self.model_path = Path(model_path) if model_path is not None else DEFAULT_PT
        if conf is not None and not 0.0 < conf < 1.0:
            raise InvalidValueError(f"conf must lie between 0 and 1, got {conf}")
        if not 0.0 < iou <= 1.0 or not 0.0 < cross_iou <= 1.0:
            raise InvalidValueError(f"iou thresholds must lie in (0, 1], got {iou} and {cross_iou}")
        if imgsz is not None and (imgsz < 32 or imgsz % 32):
            raise InvalidValueError(f"imgsz must be a multiple of 32 and at least 32, got {imgsz}")
        self.requested_imgsz = imgsz
        self.requested_conf = conf
        self.conf: float = conf if conf is not None else DEFAULT_CONF
        self.iou = iou
        self.cross_iou = cross_iou
        self.imgsz: int = imgsz or 640
        self.codes: tuple[str, ...] = CARD_CODES
        self.rotations = 1
        """Always one upright reading (the ONNX detector's ``rotations``, for the doctor and reports)."""
        self.reader = None
        """Never a corner reader (as :attr:`vision.reading.detector.CardDetector.reader`)."""
        self._lock = threading.Lock()
        self._yolo: Any = None

    def __repr__(self) -> str:
        return f"UltralyticsDetector({str(self.model_path)!r}, imgsz={self.imgsz})"

    @property
    def loaded(self) -> bool:
        return self._yolo is not None

    def load(self) -> UltralyticsDetector:
        """Load the model now (it is otherwise loaded by the first ``detect``). Returns self."""
        with self._lock:
            if not self.loaded:
                self.conf = loading_conf(self.model_path, self.requested_conf, self.conf)
                self._load()
        return self

    def _load(self) -> None:
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
        self.codes = load_class_codes(self.model_path, getattr(yolo, "names", None))
        if self.requested_imgsz is None:  # the exported size (classes.json), else the training size
            args = getattr(getattr(yolo, "model", None), "args", None) or {}
            trained = int(args.get("imgsz", 640)) if isinstance(args, dict) else 640
            self.imgsz = exported_imgsz(self.model_path) or trained
        self._yolo = yolo

    def detect(self, image: np.ndarray) -> list[Detection]:
        """Corner detections in ``image`` (HxWx3 uint8 BGR), best first, boxes in photo pixels."""
        check_image_array(image)
        self.load()
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
