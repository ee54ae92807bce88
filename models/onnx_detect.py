"""Run the exported card model with ONNX Runtime + numpy + OpenCV (no torch, no Ultralytics).

The ONNX graph (Ultralytics YOLO11 export, ``nms=False``) takes ``1x3xSxS`` float32 RGB in [0, 1], the photo
letterboxed (aspect kept, grey 114 padding, centred) to SxS, and returns ``1x(4+53)xN``: per candidate the box
centre x, y, width, height in input pixels, then one score per class (``classes.json`` order). Decoding keeps
candidates over a confidence threshold, applies class-agnostic non-maximum suppression (one corner index has
one identity), and maps boxes back to photo pixels. The runtime detector in ``vision/`` decodes the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.classes import CLASSES_JSON, MODELS_DIR, load_class_names

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


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, float, float, float]:
    """Resize keeping the aspect ratio, pad to ``size`` x ``size``; returns (image, scale, pad_x, pad_y)."""
    h, w = image.shape[:2]
    r = min(size / h, size / w)
    nw, nh = round(w * r), round(h * r)
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR) if (nw, nh) != (w, h) else image
    px, py = (size - nw) / 2, (size - nh) / 2
    top, left = round(py - 0.1), round(px - 0.1)
    out = cv2.copyMakeBorder(
        resized, top, size - nh - top, left, size - nw - left, cv2.BORDER_CONSTANT, value=(114, 114, 114)
    )
    return out, r, left, top


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Greedy non-maximum suppression over x0, y0, x1, y1 boxes; returns kept indices, best first."""
    order = np.argsort(-scores)
    keep: list[int] = []
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        xx0 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy0 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx1 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy1 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.clip(xx1 - xx0, 0, None) * np.clip(yy1 - yy0, 0, None)
        ov = inter / (areas[i] + areas[rest] - inter + 1e-9)
        order = rest[ov <= iou]
    return keep


class OnnxCardDetector:
    """The shipped card model, run with ONNX Runtime."""

    def __init__(self, model: Path = SHIPPED_ONNX, classes: Path = CLASSES_JSON, threads: int = 2) -> None:
        import onnxruntime as ort

        if not model.is_file():
            raise FileNotFoundError(f"ONNX model not found: {model} (python -m models.export writes it)")
        self.names = load_class_names(classes)
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

    def preprocess(self, image: np.ndarray) -> tuple[np.ndarray, float, float, float]:
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"expected a BGR image HxWx3, got shape {image.shape}")
        boxed, r, px, py = letterbox(image, self.size)
        blob = cv2.cvtColor(boxed, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)[None].astype(np.float32) / 255
        return blob, r, px, py

    def detect(self, image: np.ndarray, conf: float = 0.25, iou: float = 0.5) -> list[Detection]:
        """Detect corner indices in a BGR photo; best first."""
        blob, r, px, py = self.preprocess(image)
        pred = self.session.run(None, {self.input_name: blob})[0][0].T  # N x (4 + nc)
        scores = pred[:, 4:]
        cls = scores.argmax(axis=1)
        best = scores[np.arange(len(cls)), cls]
        m = best >= conf
        if not m.any():
            return []
        xywh, cls, best = pred[m, :4], cls[m], best[m]
        boxes = np.stack(
            [
                xywh[:, 0] - xywh[:, 2] / 2,
                xywh[:, 1] - xywh[:, 3] / 2,
                xywh[:, 0] + xywh[:, 2] / 2,
                xywh[:, 1] + xywh[:, 3] / 2,
            ],
            axis=1,
        )
        keep = nms(boxes, best, iou)
        h, w = image.shape[:2]
        out = []
        for i in keep:
            x0, y0, x1, y1 = boxes[i]
            out.append(
                Detection(
                    self.names[int(cls[i])],
                    int(cls[i]),
                    float(best[i]),
                    float(np.clip((x0 - px) / r, 0, w)),
                    float(np.clip((y0 - py) / r, 0, h)),
                    float(np.clip((x1 - px) / r, 0, w)),
                    float(np.clip((y1 - py) / r, 0, h)),
                )
            )
        return out


def cards_read(detections: list[Detection]) -> list[str]:
    """The set of cards read from a photo: the two (or four) corners of one card count once."""
    return sorted({d.code for d in detections})
