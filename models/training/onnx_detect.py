"""Run the exported card model with ONNX Runtime, decoded exactly as the kiosk decodes it.

The ONNX graph (Ultralytics YOLO11 export, ``nms=False``) takes ``1x3xSxS`` float32 RGB in [0, 1], the photo
letterboxed (aspect kept, grey 114 padding, centred) to SxS, and returns ``1x(4+53)xN``: per candidate the box
centre x, y, width, height in input pixels, then one score per class (``classes.json`` order). Letterboxing
and decoding (confidence threshold, class-aware then cross-class suppression, boxes back in photo pixels) are
the runtime's own functions from :mod:`vision.detector`, so the evaluation measures what ships. Unlike the
kiosk's :class:`vision.detector.CardDetector` this runs the whole photo once (no tiling) and takes the
threshold per call, which the evaluation's threshold sweep needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.training.classes import CLASSES_JSON, MODELS_DIR, load_class_names
from vision.detector import decode_predictions, letterbox, to_input_tensor

SHIPPED_ONNX = MODELS_DIR / "cards.onnx"


@dataclass(frozen=True)
class Detection:
    """One detected corner index, in photo pixels."""

    code: str
    class_id: int
    score: float
    x0: float
    y0: float
    x1: float
    y1: float


class OnnxCardDetector:
    """The shipped card model, run with ONNX Runtime."""

    def __init__(self, model: Path = SHIPPED_ONNX, classes: Path = CLASSES_JSON, threads: int = 2) -> None:
        import onnxruntime as ort

        if not model.is_file():
            raise FileNotFoundError(
                f"ONNX model not found: {model} (python -m models.training.export writes it)"
            )
        self.names = load_class_names(classes)
        self._index = {code: i for i, code in enumerate(self.names)}
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        shape = inp.shape
        if len(shape) != 4 or not isinstance(shape[2], int) or shape[2] != shape[3]:
            raise ValueError(f"{model}: expected a fixed square input 1x3xSxS, got {shape}")
        self.size = int(shape[2])
        out = self.session.get_outputs()[0].shape
        if len(out) != 3 or out[1] != 4 + len(self.names):
            raise ValueError(
                f"{model}: output shape {out} does not match {len(self.names)} classes in {classes}"
            )

    def detect(self, image: np.ndarray, conf: float = 0.25, iou: float = 0.5) -> list[Detection]:
        """Detect corner indices in a BGR photo; best first."""
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"expected a BGR image HxWx3, got shape {image.shape}")
        padded, lb = letterbox(image, self.size)
        output = self.session.run(None, {self.input_name: to_input_tensor(padded)})[0]
        found = decode_predictions(output, tuple(self.names), lb, image.shape[:2], conf=conf, iou=iou)
        return [Detection(d.code, self._index[d.code], d.confidence, *d.box) for d in found]


def cards_read(detections: list[Detection]) -> list[str]:
    """The set of cards read from a photo: the two (or four) corners of one card count once."""
    return sorted({d.code for d in detections})
