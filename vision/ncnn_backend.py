"""The NCNN backend: the same card model converted for Tencent's NCNN runtime (``models/cards.ncnn.param``
and ``.bin``), behind the same :class:`~vision.detector.Detector` protocol as the ONNX Runtime detector.

Published Raspberry Pi 5 tables put NCNN at about twice ONNX Runtime for YOLO11n; on x86 it can be far
slower. So no runtime is assumed: this module is also the home of the kiosk's choice among ONNX Runtime,
NCNN and OpenVINO (:mod:`vision.openvino_backend`): ``tabletally doctor`` and the installer time each
one installed on the device (:func:`time_runtimes`) and the kiosk uses the fastest (``$TABLETALLY_RUNTIME``;
ONNX Runtime by default).

:class:`NcnnDetector` is a :class:`~vision.detector.CardDetector` whose one model pass
(:meth:`~vision.detector.CardDetector.run_model`) runs through NCNN: the letterbox, the views (turns,
crops, the focused reading), the corner reader (still ONNX Runtime: a small batch) and the suppression are
the same code. The model is converted once, at export time (``python -m models.training.export_ncnn``,
with ``pnnx`` from PyPI), and shipped; nothing is converted at run time. ``ncnn`` (PyPI) is imported only
when the model loads; its absence is a clear :class:`ModelError`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from vision.detector import CardDetector
from vision.errors import InvalidValueError, ModelError
from vision.model_config import exported_imgsz, load_class_codes
from vision.runtime import MODELS_DIR

__all__ = [
    "DEFAULT_NCNN",
    "RUNTIMES",
    "RUNTIME_ENV",
    "NcnnDetector",
    "choose_runtime",
    "detector_for_runtime",
    "installed_runtimes",
    "time_runtimes",
    "time_runtimes_apart",
]

DEFAULT_NCNN = MODELS_DIR / "cards.ncnn.param"
"""The converted model's graph; its weights are the ``.bin`` beside it."""
RUNTIME_ENV = "TABLETALLY_RUNTIME"  # onnx (default), ncnn or openvino: the runtime the kiosk reads with
RUNTIMES = ("onnx", "ncnn", "openvino")
DEFAULT_RUNTIME = "onnx"
NAMES = {"onnx": "ONNX Runtime", "ncnn": "NCNN", "openvino": "OpenVINO"}
AS_GOOD = 1.1  # a runtime within this factor of the fastest is as good (the default is kept)
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
        """One pass through NCNN: the same ``(1, 4 + classes, anchors)`` output as the ONNX model's.

        NCNN makes its input from the BGR pixels itself (turned to RGB, scaled to [0, 1]): a copy in its
        own memory, about a tenth of the time a float array built by numpy takes to cross into NCNN."""
        ncnn = self._ncnn
        height, width = letterboxed.shape[:2]
        pixels = np.ascontiguousarray(letterboxed)
        tensor = ncnn.Mat.from_pixels(pixels, ncnn.Mat.PixelType.PIXEL_BGR2RGB, width, height)
        tensor.substract_mean_normalize([], [1 / 255.0] * 3)
        extractor = self._session.create_extractor()
        try:
            extractor.input(INPUT_NAME, tensor)
            status, out = extractor.extract(OUTPUT_NAME)
        finally:
            del extractor
        if status != 0:
            raise ModelError(f"{self.model_path}: NCNN could not run the model (status {status})")
        output: np.ndarray = np.array(out, dtype=np.float32)[None]
        return output


def _one_of() -> str:
    return ", ".join(RUNTIMES[:-1]) + " or " + RUNTIMES[-1]


def runtime_from_env() -> str:
    """The runtime the kiosk reads with: ``$TABLETALLY_RUNTIME`` (one of ``RUNTIMES``), else onnx."""
    value = (os.environ.get(RUNTIME_ENV) or DEFAULT_RUNTIME).strip().lower()
    if value not in RUNTIMES:
        raise InvalidValueError(f"${RUNTIME_ENV} must be {_one_of()}, got {value!r}")
    return value


def detector_for_runtime(runtime: str | None = None, **kwargs: Any) -> CardDetector:
    """The kiosk's detector on ``runtime`` (default :func:`runtime_from_env`): a CardDetector (ONNX
    Runtime), an NcnnDetector (its own converted model: ``model_path`` is ignored) or an OpenVinoDetector
    (the same ONNX file), with ``kwargs`` as CardDetector takes them."""
    runtime = runtime or runtime_from_env()
    if runtime == "ncnn":
        kwargs.pop("model_path", None)
        return NcnnDetector(**kwargs)
    if runtime == "openvino":
        from vision.openvino_backend import OpenVinoDetector

        return OpenVinoDetector(**kwargs)
    if runtime == "onnx":
        return CardDetector(**kwargs)
    raise InvalidValueError(f"runtime must be {_one_of()}, got {runtime!r}")


def time_runtimes(
    images: list[np.ndarray], repeat: int = 3, threads: int = 2, runtimes: tuple[str, ...] | None = None
) -> dict[str, float | str]:
    """Median ms of one model pass per runtime (default: those installed) on ``images``, each letterboxed
    to the input that runtime's model gets in the kiosk (a fixed input, else the photo's "rect" input), on
    this device; a runtime that cannot load gives its message instead. In this process:
    :func:`time_runtimes_apart` runs it in one child process per runtime, as the doctor and the installer
    do."""
    from vision.geometry import letterbox, rect_input_size

    results: dict[str, float | str] = {}
    for runtime in installed_runtimes() if runtimes is None else runtimes:
        try:
            detector = detector_for_runtime(runtime, threads=threads, reader="off").load()
        except ModelError as exc:
            results[runtime] = str(exc)
            continue
        padded = [
            letterbox(image, detector.input_hw or rect_input_size(image.shape[:2], detector.imgsz))[0]
            for image in images
        ]
        detector.run_model(padded[0])  # the first pass allocates
        times = []
        for _ in range(repeat):
            for item in padded:
                start = time.perf_counter()
                detector.run_model(item)
                times.append((time.perf_counter() - start) * 1000)
        results[runtime] = statistics.median(times)
    return results


TIMING_PHOTOS = 2  # the bundled demo photos timed by time_runtimes_apart
TIMING_LIMIT_S = 180  # a runtime whose timing takes longer is named as too slow
# One runtime timed in a child process: prints {"<runtime>": ms or its message} as one JSON line.
_TIME_ONE_RUNTIME = """
import json, sys
from vision.camera import demo_photos, load_image
from vision.ncnn_backend import time_runtimes
photos = [load_image(p) for p in demo_photos()[: int(sys.argv[2])]]
print(json.dumps(time_runtimes(photos, runtimes=(sys.argv[1],))))
"""


PACKAGES = {"onnx": "onnxruntime", "ncnn": "ncnn", "openvino": "openvino"}
"""The Python package each runtime of ``RUNTIMES`` is imported from."""


def installed_runtimes() -> tuple[str, ...]:
    """The runtimes of ``RUNTIMES`` whose package is installed here (ONNX Runtime, the default, always
    named: its absence is then timed and reported like any other failure)."""
    return tuple(
        r for r in RUNTIMES if r == DEFAULT_RUNTIME or importlib.util.find_spec(PACKAGES[r]) is not None
    )


def time_runtimes_apart(runtimes: tuple[str, ...] | None = None) -> dict[str, float | str]:
    """:func:`time_runtimes` on the bundled demo photos for ``runtimes`` (default: those installed,
    :func:`installed_runtimes`), each runtime in a child process of its own: one that crashes or hangs is
    named as such, and no runtime's threads or libraries stay in the caller's process (``tabletally
    doctor``, the installer's choice: :func:`main`)."""
    if runtimes is None:
        runtimes = installed_runtimes()
    results: dict[str, float | str] = {}
    for runtime in runtimes:
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _TIME_ONE_RUNTIME, runtime, str(TIMING_PHOTOS)],
                capture_output=True,
                text=True,
                timeout=TIMING_LIMIT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            results[runtime] = f"timing it took more than {TIMING_LIMIT_S // 60} minutes"
            continue
        try:
            value = json.loads(proc.stdout.strip().splitlines()[-1])[runtime]
        except (ValueError, IndexError, KeyError, TypeError):
            value = f"timing it stopped with exit status {proc.returncode}"
        results[runtime] = value if isinstance(value, float | int | str) else str(value)
    return results


def choose_runtime(times: Mapping[str, float | str]) -> tuple[str, str]:
    """The runtime the kiosk should read with, given one pass's ms per runtime on this device (a message
    for one that could not run), and why, in words. ONNX Runtime unless another is faster by more than
    ``AS_GOOD`` (a tenth): a close race is not worth leaving the default for."""
    measured = {k: float(v) for k, v in times.items() if isinstance(v, float | int)}
    if DEFAULT_RUNTIME not in measured:
        problem = times.get(DEFAULT_RUNTIME, "not timed")
        if not measured:
            return (
                DEFAULT_RUNTIME,
                f"no runtime could be timed ({NAMES[DEFAULT_RUNTIME]}: {problem}): the default",
            )
        fastest = min(measured, key=lambda k: measured[k])
        return (
            fastest,
            f"{NAMES[fastest]} {measured[fastest]:.0f} ms; {NAMES[DEFAULT_RUNTIME]} could not run: {problem}",
        )
    fastest = min(measured, key=lambda k: measured[k])
    base = measured[DEFAULT_RUNTIME]
    shown = ", ".join(f"{NAMES.get(k, k)} {v:.0f} ms" for k, v in sorted(measured.items()))
    if fastest != DEFAULT_RUNTIME and base > AS_GOOD * measured[fastest]:
        return fastest, f"{shown}: {NAMES[fastest]} is {base / measured[fastest]:.1f}x faster here"
    return (
        DEFAULT_RUNTIME,
        f"{shown}: {NAMES[DEFAULT_RUNTIME]}, the default, is as fast here (within a tenth)",
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.ncnn_backend --choose``: time each runtime installed on this device (in child
    processes) and print the kiosk's choice as an environment line, ``TABLETALLY_RUNTIME=onnx``, ``=ncnn``
    or ``=openvino``, after a comment line saying why. ``--times JSON`` chooses from figures timed elsewhere
    (as the doctor's ``--json`` gives them) instead. The installer writes these lines into the kiosk's
    environment."""
    parser = argparse.ArgumentParser(prog="python -m vision.ncnn_backend", description=main.__doc__)
    parser.add_argument("--choose", action="store_true", required=True, help="time and choose the runtime")
    parser.add_argument("--times", help='ms per runtime as JSON, e.g. \'{"onnx": 170, "ncnn": 90}\'')
    args = parser.parse_args(argv)
    if args.times is None:
        times: Mapping[str, float | str] = time_runtimes_apart()
    else:
        try:
            times = json.loads(args.times)
            if not isinstance(times, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            print(
                f"vision.ncnn_backend: --times must be a JSON object of ms per runtime: {exc}",
                file=sys.stderr,
            )
            return 2
    runtime, why = choose_runtime(times)
    print(f"# {why}")
    print(f"{RUNTIME_ENV}={runtime}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
