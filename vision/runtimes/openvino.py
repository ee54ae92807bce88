"""The OpenVINO backend: the shipped ONNX card model (``models/cards.onnx``) read by Intel's OpenVINO runtime,
as one pass of the model (:class:`vision.runtimes.protocols.ModelPass`).

:class:`OpenVinoPass` runs one pass through OpenVINO: the letterbox, the views (turns, crops, the focused
reading), the corner reader (still ONNX Runtime: a small batch) and the suppression are the same code as
with ONNX Runtime. The model's input size and classes are read by ONNX Runtime's own code
(:meth:`vision.runtimes.onnx.OnnxPass.load`, its session then dropped), so both read the file alike.

OpenVINO reads the same ONNX file with its own reader and compiles it for the CPU once, at load: nothing
is converted or written at run time. The compiled model takes the letterboxed BGR pixels as they are (its
own first steps turn them to RGB floats in [0, 1], in place of :func:`vision.runtimes.onnx.to_input_tensor`),
and computes in 32-bit floats, as ONNX Runtime does: OpenVINO would otherwise choose bfloat16 on a CPU
that has it, or float16 on an ARM one, and read other scores. The model's own square input gets a compiled
model of that fixed shape; a model of any input size gets a second, dynamic one for the other sizes (the
focused reading's large look, "rect" inputs).

``openvino`` (PyPI) is imported only when the model loads; its absence is a clear :class:`ModelError`.
Whether it is faster than ONNX Runtime or NCNN on a device is measured there, not assumed
(:func:`vision.runtimes.choice.time_runtimes`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.errors import ModelError
from vision.runtimes.onnx import OnnxPass

__all__ = ["OpenVinoPass", "compile_options"]


def compile_options(threads: int) -> dict[str, Any]:
    """The CPU compile settings: one stream answering one photo at a time with ``threads`` threads, 32-bit
    floats (as ONNX Runtime computes), and threads not pinned to cores (the kiosk's UI shares them)."""
    return {
        "PERFORMANCE_HINT": "LATENCY",
        "NUM_STREAMS": 1,
        "INFERENCE_NUM_THREADS": threads,
        "INFERENCE_PRECISION_HINT": "f32",
        "ENABLE_CPU_PINNING": False,
    }


class OpenVinoPass:
    """One pass of the card model through OpenVINO on the CPU (``model_path``: the ONNX file)."""

    def __init__(self, model_path: Path, threads: int = 2, imgsz: int | None = None) -> None:
        self.model_path = model_path
        self.threads = threads
        self._shape = OnnxPass(model_path, threads, imgsz)
        self.imgsz: int = self._shape.imgsz
        self.input_hw: tuple[int, int] | None = None
        self.resizable = False
        self.codes: tuple[str, ...] = self._shape.codes
        self._requests: dict[tuple[int, int] | None, Any] = {}
        self._run_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return bool(self._requests)

    def load(self) -> None:
        if self._requests:
            return
        try:
            import openvino as ov  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError as exc:
            raise ModelError(f"the openvino runtime is not installed (pip install openvino): {exc}") from exc
        shape = self._shape  # the input size, fixed or any, and the classes, as ONNX Runtime reads them
        shape.load()
        shape.drop_session()
        self.imgsz, self.input_hw, self.resizable, self.codes = (
            shape.imgsz,
            shape.input_hw,
            shape.resizable,
            shape.codes,
        )
        core = ov.Core()
        options = compile_options(self.threads)
        requests: dict[tuple[int, int] | None, Any] = {}
        try:
            model = core.read_model(str(self.model_path))
            if self.input_hw is not None:
                fixed = model.clone()
                fixed.reshape([1, 3, *self.input_hw])
                requests[self.input_hw] = core.compile_model(_bgr_pixels_in(ov, fixed), "CPU", options)
            if self.resizable:
                requests[None] = core.compile_model(_bgr_pixels_in(ov, model), "CPU", options)
        except Exception as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ModelError(f"OpenVINO cannot compile {self.model_path} for the CPU: {first_line}") from exc
        self._requests = {hw: compiled.create_infer_request() for hw, compiled in requests.items()}

    def run(self, letterboxed: np.ndarray) -> np.ndarray:
        """One pass through OpenVINO: the same ``(1, 4 + classes, anchors)`` output as ONNX Runtime's, from
        the letterboxed BGR pixels themselves."""
        hw = (int(letterboxed.shape[0]), int(letterboxed.shape[1]))
        request = self._requests[hw] if hw in self._requests else self._requests.get(None)
        if request is None:
            raise ModelError(f"{self.model_path} takes a {self.input_hw} input, not {hw}")
        pixels = np.ascontiguousarray(letterboxed)[None]
        with self._run_lock:  # one request answers one photo at a time
            request.infer({0: pixels})
            output: np.ndarray = request.get_output_tensor(0).data.copy()
        return output


def _bgr_pixels_in(ov: Any, model: Any) -> Any:
    """``model`` (NCHW RGB floats in [0, 1]) taking 1 x H x W x 3 uint8 BGR pixels instead, converted inside
    the compiled model."""
    from openvino.preprocess import ColorFormat, PrePostProcessor  # type: ignore[import-untyped,import-not-found,unused-ignore]

    ppp = PrePostProcessor(model)
    given = ppp.input()
    given.tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC")).set_color_format(
        ColorFormat.BGR
    )
    given.model().set_layout(ov.Layout("NCHW"))
    given.preprocess().convert_element_type(ov.Type.f32).convert_color(ColorFormat.RGB).scale(255.0)
    return ppp.build()
