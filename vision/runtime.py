"""What the detector and the corner reader share: where the shipped models live, how an ONNX file is
opened, and how BGR pictures become a model's input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from vision.types import ModelError

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


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
    # (the kiosk's UI), and on a busy machine they slow inference itself down (docs/vision.md).
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
