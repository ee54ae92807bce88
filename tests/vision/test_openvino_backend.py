"""The OpenVINO backend: the shipped ONNX file read by OpenVINO gives ONNX Runtime's output and corners,
at the model's own square and at other sizes; a clear error without the package; the runtime setting."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from vision.base.errors import ModelError
from vision.base.geometry import letterbox
from vision.base.photo import load_image
from vision.cameras import demo_photos
from vision.reading.detector import CardDetector, OpenVinoDetector, detector_for_runtime
from vision.runtimes.choice import RUNTIME_ENV, runtime_from_env, time_runtimes
from vision.runtimes.openvino import compile_options

needs_openvino = pytest.mark.skipif(
    importlib.util.find_spec("openvino") is None, reason="openvino is not installed"
)


def test_without_the_openvino_package_loading_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openvino", None)  # import openvino raises ImportError
    with pytest.raises(ModelError, match=r"the openvino runtime is not installed \(pip install openvino\)"):
        OpenVinoDetector(reader="off").load()


def test_the_kiosk_reads_with_openvino_when_the_environment_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUNTIME_ENV, "OpenVINO")
    assert runtime_from_env() == "openvino"
    detector = detector_for_runtime(reader="off")
    assert type(detector) is OpenVinoDetector
    assert detector.model_path == CardDetector(reader="off").model_path  # the same ONNX file


def test_openvino_computes_in_32_bit_floats_with_the_threads_asked_for() -> None:
    options = compile_options(3)
    assert options["INFERENCE_PRECISION_HINT"] == "f32" and options["INFERENCE_NUM_THREADS"] == 3


@needs_openvino
def test_the_onnx_file_read_by_openvino_gives_onnx_runtimes_output_and_corners() -> None:
    image = load_image(demo_photos()[0])
    ort = CardDetector(tiles=1, rotations=1, reader="off").load()
    ov = OpenVinoDetector(tiles=1, rotations=1, reader="off").load()
    assert (ov.imgsz, ov.input_hw, ov.resizable, ov.codes) == (
        ort.imgsz,
        ort.input_hw,
        ort.resizable,
        ort.codes,
    )
    assert ov.input_hw is not None
    for size in (ov.input_hw, (448, 640)):  # the compiled square, and another size (the dynamic model)
        padded, _ = letterbox(image, size)
        a, b = ort.run_model(padded), ov.run_model(padded)
        assert a.shape == b.shape and float(np.abs(a - b).max()) < 0.01
    found, expected = ov.detect(image), ort.detect(image)
    assert expected and [d.code for d in found] == [d.code for d in expected]
    assert np.allclose([d.box for d in found], [d.box for d in expected], atol=0.5)


@needs_openvino
def test_the_full_reading_through_openvino_finds_the_cards_onnx_runtime_finds() -> None:
    image = load_image(demo_photos()[-1])
    ort = CardDetector(rotations=2, effort="full").load()
    ov = OpenVinoDetector(rotations=2, effort="full").load()
    assert sorted(d.code for d in ov.detect(image)) == sorted(d.code for d in ort.detect(image))


@needs_openvino
def test_openvino_is_timed_like_the_other_runtimes() -> None:
    times = time_runtimes([load_image(demo_photos()[0])], repeat=1, runtimes=("openvino",))
    assert isinstance(times["openvino"], float) and times["openvino"] > 0
