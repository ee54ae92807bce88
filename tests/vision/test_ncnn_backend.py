"""The NCNN backend: the shipped converted model reads as ONNX Runtime does; clear errors; the runtime
setting."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from vision.camera import demo_photos, load_image
from vision.detector import CardDetector
from vision.errors import InvalidValueError, ModelError
from vision.geometry import letterbox
from vision.ncnn_backend import (
    DEFAULT_NCNN,
    RUNTIME_ENV,
    NcnnDetector,
    detector_for_runtime,
    runtime_from_env,
    time_runtimes,
)

needs_ncnn = pytest.mark.skipif(
    not DEFAULT_NCNN.is_file() or importlib.util.find_spec("ncnn") is None,
    reason="no ncnn or no converted model",
)


@needs_ncnn
def test_the_converted_model_reads_a_demo_photo_as_onnx_runtime_does() -> None:
    image = load_image(demo_photos()[0])
    ort = CardDetector(tiles=1, rotations=1, reader="off").load()
    ncnn = NcnnDetector(tiles=1, rotations=1, reader="off").load()
    assert ncnn.imgsz == ort.imgsz and ncnn.codes == ort.codes
    padded, _ = letterbox(image, ort.imgsz)
    a, b = ort.run_model(padded), ncnn.run_model(padded)
    assert a.shape == b.shape and float(np.abs(a[:, 4:] - b[:, 4:]).max()) < 0.02
    assert sorted(d.code for d in ncnn.detect(image)) == sorted(d.code for d in ort.detect(image))


@needs_ncnn
def test_ncnn_weights_missing_beside_the_graph_is_a_model_error(tmp_path: Path) -> None:
    param = tmp_path / "cards.ncnn.param"
    param.write_bytes(DEFAULT_NCNN.read_bytes())
    with pytest.raises(ModelError, match=r"NCNN weights .*cards\.ncnn\.bin not found"):
        NcnnDetector(param, reader="off").load()


def test_the_kiosk_runtime_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RUNTIME_ENV, raising=False)
    assert runtime_from_env() == "onnx"
    monkeypatch.setenv(RUNTIME_ENV, "NCNN")
    assert runtime_from_env() == "ncnn" and isinstance(detector_for_runtime(reader="off"), NcnnDetector)
    monkeypatch.setenv(RUNTIME_ENV, "tflite")
    with pytest.raises(InvalidValueError, match=r"\$TABLETALLY_RUNTIME must be onnx or ncnn, got 'tflite'"):
        runtime_from_env()


@needs_ncnn
def test_both_runtimes_are_timed_on_the_device() -> None:
    times = time_runtimes([load_image(demo_photos()[0])], repeat=1)
    assert set(times) == {"onnx", "ncnn"} and all(isinstance(ms, float) and ms > 0 for ms in times.values())
