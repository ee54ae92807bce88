"""ONNX Runtime, the kiosk's default runtime: how an ONNX file is opened (the card model and the corner
reader alike), how BGR pictures become a model's input, and :class:`OnnxPass`, one pass of the card
model (:class:`vision.runtimes.protocols.ModelPass`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from vision.base.errors import ModelError
from vision.base.types import CARD_CODES
from vision.runtimes.model_files import exported_imgsz, load_class_codes, metadata_imgsz, metadata_names


def onnx_session(path: Path, threads: int, what: str) -> Any:
    """An ONNX Runtime CPU session on ``path`` with ``threads`` intra-op threads that do not spin.

    ``what`` names the file in the :class:`ModelError` raised when it is not a valid ONNX model (e.g.
    "model file", "reader model").
    """
    try:
        import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ModelError(f"onnxruntime is not installed: {exc}") from exc
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    # Threads that spin while waiting for work steal the CPU from everything else on a small board
    # (the kiosk's UI), and on a busy machine they slow inference itself down (make bench, backends part).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"{what} {path} is not a valid ONNX model: {first_line}") from exc


def bgr_batch_input(images: np.ndarray) -> np.ndarray:
    """N x H x W x 3 uint8 BGR pictures -> N x 3 x H x W float32 RGB in [0, 1], a model's input."""
    tensor = np.ascontiguousarray(images[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32)
    tensor /= np.float32(255.0)  # in place: no second array of the same size
    return tensor


def to_input_tensor(letterboxed_bgr: np.ndarray) -> np.ndarray:
    """HxWx3 uint8 BGR -> 1x3xHxW float32 RGB in [0, 1]."""
    return bgr_batch_input(letterboxed_bgr[None])


class OnnxPass:
    """One pass of the exported card model with ONNX Runtime (``threads`` intra-op threads). ``imgsz``
    (a multiple of 32) is the input a dynamic model is read at; a fixed model must have it, if given."""

    def __init__(self, model_path: Path, threads: int = 2, imgsz: int | None = None) -> None:
        self.model_path = model_path
        self.threads = threads
        self.requested_imgsz = imgsz
        self.imgsz: int = imgsz or 640
        self.input_hw: tuple[int, int] | None = None
        self.resizable = False
        self.codes: tuple[str, ...] = CARD_CODES
        self._session: Any = None
        self._input_name = ""

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def load(self) -> None:
        if self._session is not None:
            return
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
            self.resizable = True
            self.imgsz = self.requested_imgsz or metadata_imgsz(meta_map.get("imgsz")) or 640
            exported = exported_imgsz(self.model_path)
            # dynamic: read at the square it was exported for, as a fixed model of that size; else each
            # photo gets a "rect" input of long side imgsz
            self.input_hw = (self.imgsz, self.imgsz) if exported == self.imgsz else None
        self.codes = load_class_codes(self.model_path, metadata_names(meta_map.get("names")))
        outputs = session.get_outputs()
        out_shape = outputs[0].shape
        if len(out_shape) != 3 or (isinstance(out_shape[1], int) and out_shape[1] != 4 + len(self.codes)):
            raise ModelError(
                f"{self.model_path}: output shape {out_shape} does not match {len(self.codes)} classes "
                f"(expected (1, {4 + len(self.codes)}, N), an Ultralytics detection export without NMS)"
            )
        self._input_name = inputs[0].name
        self._session = session

    def drop_session(self) -> None:
        """Close the session once its description of the model is read (OpenVINO runs the file itself)."""
        self._session = None

    def run(self, letterboxed: np.ndarray) -> np.ndarray:
        """The model's raw output ``(1, 4 + classes, anchors)`` for one letterboxed HxWx3 BGR input."""
        output: np.ndarray = self._session.run(None, {self._input_name: to_input_tensor(letterboxed)})[0]
        return output
