"""The NCNN backend: the shipped converted model reads as ONNX Runtime does; clear errors; the runtime
setting."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from vision.base.errors import InvalidValueError, ModelError
from vision.base.geometry import letterbox
from vision.base.photo import load_image
from vision.cameras import demo_photos
from vision.reading.detector import CardDetector, NcnnDetector, detector_for_runtime
from vision.runtimes.choice import RUNTIME_ENV, runtime_from_env, time_runtimes
from vision.runtimes.ncnn import DEFAULT_NCNN

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
    with pytest.raises(
        InvalidValueError, match=r"\$TABLETALLY_RUNTIME must be onnx, ncnn or openvino, got 'tflite'"
    ):
        runtime_from_env()


@needs_ncnn
def test_both_runtimes_are_timed_on_the_device() -> None:
    times = time_runtimes([load_image(demo_photos()[0])], repeat=1, runtimes=("onnx", "ncnn"))
    assert set(times) == {"onnx", "ncnn"} and all(isinstance(ms, float) and ms > 0 for ms in times.values())


def test_the_kiosk_keeps_onnx_runtime_unless_another_is_faster_by_more_than_a_tenth() -> None:
    from vision.runtimes.choice import choose_runtime

    assert choose_runtime({"onnx": 48.0, "ncnn": 460.0})[0] == "onnx"
    assert choose_runtime({"onnx": 100.0, "ncnn": 95.0}) == (
        "onnx",
        "NCNN 95 ms, ONNX Runtime 100 ms: ONNX Runtime, the default, is as fast here (within a tenth)",
    )
    assert choose_runtime({"onnx": 168.0, "ncnn": 88.0}) == (
        "ncnn",
        "NCNN 88 ms, ONNX Runtime 168 ms: NCNN is 1.9x faster here",
    )


def test_a_runtime_that_cannot_run_is_never_chosen_and_its_reason_is_given() -> None:
    from vision.runtimes.choice import choose_runtime

    assert choose_runtime({"onnx": 50.0, "ncnn": "the ncnn runtime is not installed"})[0] == "onnx"
    runtime, why = choose_runtime({"onnx": "model file missing", "ncnn": 90.0})
    assert runtime == "ncnn" and why == "NCNN 90 ms; ONNX Runtime could not run: model file missing"
    runtime, why = choose_runtime({"onnx": "model file missing", "ncnn": "not installed"})
    assert runtime == "onnx" and why.startswith(
        "no runtime could be timed (ONNX Runtime: model file missing)"
    )


def test_the_choice_is_printed_as_the_kiosk_environments_line(capsys: pytest.CaptureFixture[str]) -> None:
    from vision.runtimes.choice import main

    assert main(["--choose", "--times", '{"onnx": 168, "ncnn": 88}']) == 0
    assert (
        capsys.readouterr().out
        == "# NCNN 88 ms, ONNX Runtime 168 ms: NCNN is 1.9x faster here\nTABLETALLY_RUNTIME=ncnn\n"
    )
    assert main(["--choose", "--times", "[1, 2]"]) == 2
    assert "--times must be a JSON object" in capsys.readouterr().err


def test_each_runtime_is_timed_in_a_child_process_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from vision.runtimes import choice

    seen: list[list[str]] = []

    def child(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        seen.append(cmd)
        if cmd[3] == "ncnn":
            return subprocess.CompletedProcess(cmd, -11, "", "Segmentation fault")
        return subprocess.CompletedProcess(cmd, 0, 'loading\n{"onnx": 41.5}\n', "")

    monkeypatch.setattr(subprocess, "run", child)
    assert choice.time_runtimes_apart(("onnx", "ncnn")) == {
        "onnx": 41.5,
        "ncnn": "timing it stopped with exit status -11",
    }
    assert [cmd[3] for cmd in seen] == ["onnx", "ncnn"] and all(cmd[1] == "-c" for cmd in seen)


def test_a_dynamic_export_is_fixed_to_its_square_before_pnnx_converts_it(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    from models.training.export_ncnn import fixed_square

    image = helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, "height", "width"])
    out = helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 3, "height", "width"])
    graph = helper.make_graph([helper.make_node("Relu", ["images"], ["output0"])], "g", [image], [out])
    dynamic = tmp_path / "dynamic.onnx"
    onnx.save(helper.make_model(graph), str(dynamic))
    fixed = onnx.load(str(fixed_square(dynamic, 64, tmp_path / "fixed.onnx")))
    dims = [d.dim_value for d in fixed.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [1, 3, 64, 64]


def test_only_the_runtimes_installed_here_are_timed_the_default_always(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vision.runtimes import choice

    present = {"ncnn"}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object() if name in present else None)
    assert choice.installed_runtimes() == ("onnx", "ncnn")
    present.add("openvino")
    assert choice.installed_runtimes() == ("onnx", "ncnn", "openvino")
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(choice, "installed_runtimes", lambda: ("onnx", "openvino"))

    def child(cmd: list[str], **kwargs: object) -> object:
        import subprocess

        seen.append((cmd[3],))
        return subprocess.CompletedProcess(cmd, 0, json.dumps({cmd[3]: 40.0}) + "\n", "")

    import subprocess

    monkeypatch.setattr(subprocess, "run", child)
    assert choice.time_runtimes_apart() == {"onnx": 40.0, "openvino": 40.0}
    assert seen == [("onnx",), ("openvino",)]
