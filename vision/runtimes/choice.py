"""Which runtime the kiosk reads with: ONNX Runtime, NCNN or OpenVINO (:mod:`vision.runtimes.onnx`,
:mod:`~vision.runtimes.ncnn`, :mod:`~vision.runtimes.openvino`), each one pass of the same card model.

Published Raspberry Pi 5 tables put NCNN ahead of ONNX Runtime for YOLO11n; on x86 it can be far slower.
So no runtime is assumed: ``tabletally doctor`` and the installer time each one installed on the device
(:func:`time_runtimes_apart`) and the kiosk uses the fastest (``$TABLETALLY_RUNTIME``; ONNX Runtime by
default, :func:`choose_runtime`). :func:`open_pass` opens the chosen runtime's pass.
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

import numpy as np

from vision.base.errors import InvalidValueError, ModelError
from vision.base.geometry import letterbox, rect_input_size
from vision.runtimes.model_files import model_from_env
from vision.runtimes.ncnn import DEFAULT_NCNN, NcnnPass
from vision.runtimes.onnx import OnnxPass
from vision.runtimes.openvino import OpenVinoPass
from vision.runtimes.protocols import ModelPass

__all__ = [
    "RUNTIMES",
    "RUNTIME_ENV",
    "choose_runtime",
    "installed_runtimes",
    "open_pass",
    "runtime_from_env",
    "time_runtimes",
    "time_runtimes_apart",
]

RUNTIME_ENV = "TABLETALLY_RUNTIME"  # onnx (default), ncnn or openvino: the runtime the kiosk reads with
RUNTIMES = ("onnx", "ncnn", "openvino")
DEFAULT_RUNTIME = "onnx"
NAMES = {"onnx": "ONNX Runtime", "ncnn": "NCNN", "openvino": "OpenVINO"}
AS_GOOD = 1.1  # a runtime within this factor of the fastest is as good (the default is kept)


def _one_of() -> str:
    return ", ".join(RUNTIMES[:-1]) + " or " + RUNTIMES[-1]


def runtime_from_env() -> str:
    """The runtime the kiosk reads with: ``$TABLETALLY_RUNTIME`` (one of ``RUNTIMES``), else onnx."""
    value = (os.environ.get(RUNTIME_ENV) or DEFAULT_RUNTIME).strip().lower()
    if value not in RUNTIMES:
        raise InvalidValueError(f"${RUNTIME_ENV} must be {_one_of()}, got {value!r}")
    return value


def open_pass(
    runtime: str, model_path: Path | None = None, threads: int = 2, imgsz: int | None = None
) -> ModelPass:
    """One pass of the card model on ``runtime`` (onnx, ncnn or openvino), not yet loaded: ``model_path``
    (default: that runtime's shipped model, :func:`default_model`) with ``threads`` threads."""
    path = default_model(runtime) if model_path is None else model_path
    if runtime == "onnx":
        return OnnxPass(path, threads, imgsz)
    if runtime == "ncnn":
        return NcnnPass(path, threads, imgsz)
    if runtime == "openvino":
        return OpenVinoPass(path, threads, imgsz)
    raise InvalidValueError(f"runtime must be {_one_of()}, got {runtime!r}")


def default_model(runtime: str) -> Path:
    """The model ``runtime`` reads by default: NCNN its own conversion, the others
    ``$TABLETALLY_MODEL``, else the shipped ONNX file."""
    return DEFAULT_NCNN if runtime == "ncnn" else model_from_env()


def time_runtimes(
    images: list[np.ndarray], repeat: int = 3, threads: int = 2, runtimes: tuple[str, ...] | None = None
) -> dict[str, float | str]:
    """Median ms of one model pass per runtime (default: those installed) on ``images``, each letterboxed
    to the input that runtime's model gets in the kiosk (a fixed input, else the photo's "rect" input), on
    this device; a runtime that cannot load gives its message instead. In this process:
    :func:`time_runtimes_apart` runs it in one child process per runtime, as the doctor and the installer
    do."""
    results: dict[str, float | str] = {}
    for runtime in installed_runtimes() if runtimes is None else runtimes:
        try:
            model = open_pass(runtime, threads=threads)
            model.load()
        except ModelError as exc:
            results[runtime] = str(exc)
            continue
        padded = [
            letterbox(image, model.input_hw or rect_input_size(image.shape[:2], model.imgsz))[0]
            for image in images
        ]
        model.run(padded[0])  # the first pass allocates
        times = []
        for _ in range(repeat):
            for item in padded:
                start = time.perf_counter()
                model.run(item)
                times.append((time.perf_counter() - start) * 1000)
        results[runtime] = statistics.median(times)
    return results


TIMING_PHOTOS = 2  # the bundled demo photos timed by time_runtimes_apart
TIMING_LIMIT_S = 180  # a runtime whose timing takes longer is named as too slow
# One runtime timed in a child process: prints {"<runtime>": ms or its message} as one JSON line.
_TIME_ONE_RUNTIME = """
import json, sys
from vision.base.photo import load_image
from vision.cameras import demo_photos
from vision.runtimes.choice import time_runtimes
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
    """``python -m vision.runtimes.choice --choose``: time each runtime installed on this device (in child
    processes) and print the kiosk's choice as an environment line, ``TABLETALLY_RUNTIME=onnx``, ``=ncnn``
    or ``=openvino``, after a comment line saying why. ``--times JSON`` chooses from figures timed elsewhere
    (as the doctor's ``--json`` gives them) instead. The installer writes these lines into the kiosk's
    environment."""
    parser = argparse.ArgumentParser(prog="python -m vision.runtimes.choice", description=main.__doc__)
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
                f"vision.runtimes.choice: --times must be a JSON object of ms per runtime: {exc}",
                file=sys.stderr,
            )
            return 2
    runtime, why = choose_runtime(times)
    print(f"# {why}")
    print(f"{RUNTIME_ENV}={runtime}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
