"""The doctor times each runtime of the card model installed on the device and says which the kiosk reads
with, and why; the installer's choice (vision.runtimes.choice.choose_runtime) is the rule it checks
against."""

from __future__ import annotations

from ui.commands.doctor import CheckName, Status, check_runtime


def test_the_kiosk_on_the_faster_runtime_is_ok_and_says_why() -> None:
    check = check_runtime(lambda: {"onnx": 48.0, "ncnn": 460.0}, {})
    assert check.name is CheckName.RUNTIME and check.status is Status.OK
    assert check.summary == (
        "the kiosk reads with ONNX Runtime (the default); one pass: NCNN 460 ms, ONNX Runtime 48 ms: "
        "ONNX Runtime, the default, is as fast here (within a tenth)"
    )
    assert check.details == {"onnx_ms": 48.0, "ncnn_ms": 460.0, "kiosk_uses": "onnx", "best_here": "onnx"}


def test_the_installers_choice_of_ncnn_is_reported_with_the_ratio() -> None:
    check = check_runtime(lambda: {"onnx": 170.0, "ncnn": 90.0}, {"TABLETALLY_RUNTIME": "ncnn"})
    assert check.status is Status.OK
    assert check.summary.startswith("the kiosk reads with NCNN (set in TABLETALLY_RUNTIME)")
    assert check.summary.endswith("NCNN is 1.9x faster here")


def test_a_faster_runtime_the_kiosk_does_not_use_is_a_warning_that_says_how_to_switch() -> None:
    check = check_runtime(lambda: {"onnx": 170.0, "ncnn": 90.0}, {})
    assert check.status is Status.WARN
    assert "the kiosk reads with ONNX Runtime (the default), but NCNN is faster here" in check.summary
    assert check.fix.startswith("Run the installer again (sudo deploy/install.sh")
    assert "TABLETALLY_RUNTIME=ncnn in /etc/tabletally/local.env" in check.fix


def test_a_runtime_within_a_tenth_of_the_fastest_is_as_good() -> None:
    assert check_runtime(lambda: {"onnx": 100.0, "ncnn": 95.0}, {}).status is Status.OK
    assert (
        check_runtime(lambda: {"onnx": 95.0, "ncnn": 100.0}, {"TABLETALLY_RUNTIME": "ncnn"}).status
        is Status.OK
    )


def test_a_runtime_that_cannot_load_is_named_with_its_reason() -> None:
    check = check_runtime(lambda: {"onnx": 50.0, "ncnn": "the ncnn runtime is not installed"}, {})
    assert check.status is Status.OK and check.details["ncnn_error"] == "the ncnn runtime is not installed"
    none = check_runtime(lambda: {"onnx": "model missing", "ncnn": "not installed"}, {})
    assert none.status is Status.WARN and none.summary == "no runtime could run the card model"


def test_openvino_faster_than_the_runtime_the_kiosk_uses_is_a_warning_naming_it() -> None:
    check = check_runtime(lambda: {"onnx": 80.0, "ncnn": 120.0, "openvino": 50.0}, {})
    assert check.status is Status.WARN
    assert "the kiosk reads with ONNX Runtime (the default), but OpenVINO is faster here" in check.summary
    assert check.summary.endswith("OpenVINO is 1.6x faster here")
    assert "TABLETALLY_RUNTIME=openvino in /etc/tabletally/local.env" in check.fix
    assert check.details["openvino_ms"] == 50.0 and check.details["best_here"] == "openvino"
