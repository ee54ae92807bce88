"""The NCNN backend: the same card model converted for Tencent's NCNN runtime (``models/cards.ncnn.param``
and ``.bin``), behind the same :class:`~vision.detector.Detector` protocol as the ONNX Runtime detector.

Published Raspberry Pi 5 tables put NCNN at about twice ONNX Runtime for YOLO11n; on x86 it can be far
slower. So neither is assumed: ``tabletally doctor`` times both on the device (:func:`time_runtimes`) and
the kiosk uses the faster (``$TABLETALLY_RUNTIME``; ONNX Runtime by default).

:class:`NcnnDetector` is a :class:`~vision.detector.CardDetector` whose one model pass
(:meth:`~vision.detector.CardDetector.run_model`) runs through NCNN: the letterbox, the views (turns,
crops, the focused reading), the corner reader (still ONNX Runtime: a small batch) and the suppression are
the same code. The model is converted once, at export time (``python -m models.training.export_ncnn``,
with ``pnnx`` from PyPI), and shipped; nothing is converted at run time. ``ncnn`` (PyPI) is imported only
when the model loads; its absence is a clear :class:`ModelError`.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from vision.detector import CardDetector, to_input_tensor
from vision.errors import InvalidValueError, ModelError
from vision.model_config import exported_imgsz, load_class_codes
from vision.runtime import MODELS_DIR

__all__ = ["DEFAULT_NCNN", "RUNTIME_ENV", "RUNTIMES", "NcnnDetector", "detector_for_runtime", "time_runtimes"]

DEFAULT_NCNN = MODELS_DIR / "cards.ncnn.param"
"""The converted model's graph; its weights are the ``.bin`` beside it."""
RUNTIME_ENV = "TABLETALLY_RUNTIME"  # onnx (default) or ncnn: the runtime the kiosk reads with
RUNTIMES = ("onnx", "ncnn")
INPUT_NAME = "in0"  # pnnx's names for the converted graph's input and output
OUTPUT_NAME = "out0"


class NcnnDetector(CardDetector):
    """A :class:`CardDetector` whose model passes run through NCNN (``model_path``: the ``.param`` file,
    default ``models/cards.ncnn.param``; its ``.bin`` beside it). The input size is the exported one
    (``classes.json`` "imgsz"); the classes are ``classes.json``'s."""

    def __init__(self, model_path: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(DEFAULT_NCNN if model_path is None else model_path, **kwargs)

    def __repr__(self) -> str:
        return f"NcnnDetector({str(self.model_path)!r}, imgsz={self.imgsz}, rotations={self.rotations})"

    def _load_onnx(self) -> None:  # the backend's own load, called by CardDetector.load
        try:
            import ncnn  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError as exc:
            raise ModelError(f"the ncnn runtime is not installed (pip install ncnn): {exc}") from exc
        param = self.model_path
        weights = param.with_suffix(".bin")
        if not weights.is_file():
            raise ModelError(f"NCNN weights {weights} not found beside {param.name}")
        imgsz = exported_imgsz(param)
        if imgsz is None:
            raise ModelError(f"{param}: no exported input size (classes.json 'imgsz') for the NCNN model")
        net = ncnn.Net()
        net.opt.num_threads = self.threads
        # No spinning between layers (NCNN's default is 20 ms): spinning threads take the cores from the
        # touchscreen, and ONNX Runtime's are kept from spinning for the same reason (vision.runtime).
        net.opt.openmp_blocktime = 0
        if net.load_param(str(param)) != 0 or net.load_model(str(weights)) != 0:
            raise ModelError(
                f"{param} is not a valid NCNN model (param and bin must come from one conversion)"
            )
        self.codes = load_class_codes(param)
        self.imgsz = imgsz
        self.input_hw = (imgsz, imgsz)
        self._ncnn = ncnn
        self._session = net

    def run_model(self, letterboxed: np.ndarray) -> np.ndarray:
        """One pass through NCNN: the same ``(1, 4 + classes, anchors)`` output as the ONNX model's."""
        tensor = to_input_tensor(letterboxed)[0]
        extractor = self._session.create_extractor()
        try:
            extractor.input(INPUT_NAME, self._ncnn.Mat(tensor).clone())
            status, out = extractor.extract(OUTPUT_NAME)
        finally:
            del extractor
        if status != 0:
            raise ModelError(f"{self.model_path}: NCNN could not run the model (status {status})")
        output: np.ndarray = np.array(out, dtype=np.float32)[None]
        return output


def runtime_from_env() -> str:
    """The runtime the kiosk reads with: ``$TABLETALLY_RUNTIME`` (onnx or ncnn), else onnx."""
    value = (os.environ.get(RUNTIME_ENV) or "onnx").strip().lower()
    if value not in RUNTIMES:
        raise InvalidValueError(f"${RUNTIME_ENV} must be onnx or ncnn, got {value!r}")
    return value


def detector_for_runtime(runtime: str | None = None, **kwargs: Any) -> CardDetector:
    """The kiosk's detector on ``runtime`` (default :func:`runtime_from_env`): a CardDetector (ONNX
    Runtime) or an NcnnDetector, with ``kwargs`` as CardDetector takes them."""
    runtime = runtime or runtime_from_env()
    if runtime == "ncnn":
        kwargs.pop("model_path", None)
        return NcnnDetector(**kwargs)
    if runtime == "onnx":
        return CardDetector(**kwargs)
    raise InvalidValueError(f"runtime must be onnx or ncnn, got {runtime!r}")


def time_runtimes(
    images: list[np.ndarray], repeat: int = 3, threads: int = 2, runtimes: tuple[str, ...] = RUNTIMES
) -> dict[str, float | str]:
    """Median ms of one model pass per runtime on ``images`` (letterboxed as the detector does), on this
    device; a runtime that cannot load gives its message instead. For ``tabletally doctor``."""
    from vision.geometry import letterbox

    results: dict[str, float | str] = {}
    for runtime in runtimes:
        try:
            detector = detector_for_runtime(runtime, threads=threads, reader="off").load()
        except ModelError as exc:
            results[runtime] = str(exc)
            continue
        size = detector.input_hw or (detector.imgsz, detector.imgsz)
        padded = [letterbox(image, size)[0] for image in images]
        detector.run_model(padded[0])  # the first pass allocates
        times = []
        for _ in range(repeat):
            for item in padded:
                start = time.perf_counter()
                detector.run_model(item)
                times.append((time.perf_counter() - start) * 1000)
        results[runtime] = statistics.median(times)
    return results
