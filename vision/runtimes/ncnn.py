"""The NCNN runtime: the same card model converted for Tencent's NCNN (``models/cards.ncnn.param`` and
``.bin``), as one pass of the model (:class:`vision.runtimes.protocols.ModelPass`).

:class:`NcnnPass` runs one pass through NCNN; the letterbox, the views (turns, crops, the focused
reading), the corner reader (still ONNX Runtime: a small batch) and the suppression are the same code as
with ONNX Runtime (:class:`vision.reading.detector.CardDetector`). The model is converted once, at export
time (``python -m models.training.export_ncnn``, with ``pnnx`` from PyPI), and shipped; nothing is
converted at run time. ``ncnn`` (PyPI) is imported only when the model loads; its absence is a clear
:class:`ModelError`. Which runtime the kiosk uses is chosen on the device (:mod:`vision.runtimes.choice`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.errors import ModelError
from vision.base.types import CARD_CODES
from vision.runtimes.model_files import MODELS_DIR, exported_imgsz, load_class_codes

__all__ = ["DEFAULT_NCNN", "NcnnPass"]

DEFAULT_NCNN = MODELS_DIR / "cards.ncnn.param"
"""The converted model's graph; its weights are the ``.bin`` beside it."""
INPUT_NAME = "in0"  # pnnx's names for the converted graph's input and output
OUTPUT_NAME = "out0"


class NcnnPass:
    """One pass of the card model through NCNN (``model_path``: the ``.param`` file, default
    ``models/cards.ncnn.param``; its ``.bin`` beside it). The input size is the exported one
    (``classes.json`` "imgsz"); the classes are ``classes.json``'s."""

    def __init__(self, model_path: Path = DEFAULT_NCNN, threads: int = 2, imgsz: int | None = None) -> None:
        self.model_path = model_path
        self.threads = threads
        self.imgsz: int = imgsz or 640
        self.input_hw: tuple[int, int] | None = None
        self.resizable = False
        self.codes: tuple[str, ...] = CARD_CODES
        self._net: Any = None
        self._ncnn: Any = None

    @property
    def loaded(self) -> bool:
        return self._net is not None

    def load(self) -> None:
        if self._net is not None:
            return
        # The wheel's OpenMP threads wait for work actively by default: on a busy machine (the kiosk's UI, a
        # shared development machine) they burn their time slices spinning, and one pass takes many times
        # longer. Passive waiting must be asked for before OpenMP starts (the first import).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
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
        # touchscreen, and ONNX Runtime's are kept from spinning for the same reason (vision.runtimes.onnx).
        net.opt.openmp_blocktime = 0
        if net.load_param(str(param)) != 0 or net.load_model(str(weights)) != 0:
            raise ModelError(
                f"{param} is not a valid NCNN model (param and bin must come from one conversion)"
            )
        self.codes = load_class_codes(param)
        self.imgsz = imgsz
        self.input_hw = (imgsz, imgsz)
        self._ncnn = ncnn
        self._net = net

    def run(self, letterboxed: np.ndarray) -> np.ndarray:
        """One pass through NCNN: the same ``(1, 4 + classes, anchors)`` output as the ONNX model's.

        NCNN makes its input from the BGR pixels itself (turned to RGB, scaled to [0, 1]): a copy in its
        own memory, quicker than a float array built by numpy crossing into NCNN."""
        ncnn = self._ncnn
        height, width = letterboxed.shape[:2]
        pixels = np.ascontiguousarray(letterboxed)
        tensor = ncnn.Mat.from_pixels(pixels, ncnn.Mat.PixelType.PIXEL_BGR2RGB, width, height)
        tensor.substract_mean_normalize([], [1 / 255.0] * 3)
        extractor = self._net.create_extractor()
        try:
            extractor.input(INPUT_NAME, tensor)
            status, out = extractor.extract(OUTPUT_NAME)
        finally:
            del extractor
        if status != 0:
            raise ModelError(f"{self.model_path}: NCNN could not run the model (status {status})")
        output: np.ndarray = np.array(out, dtype=np.float32)[None]
        return output
