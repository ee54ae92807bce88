"""The benchmark's measuring parts: a detect-only subprocess, and agreement between two backends."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import cv2
import pytest

from tests.vision.helpers import raw_output, table_photo
from vision.devtools.bench import bench_photos, main
from vision.devtools.bench_backends import _agreement, backends_bench, chosen_runtime


def test_the_one_pass_table_times_each_runtime_in_its_own_kept_process(
    make_model: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = make_model(raw_output([(55, 72.5, 10, 15)], [{"7S": 0.9}], anchors=4))
    photos = []
    for k in range(2):
        photos.append(tmp_path / f"p{k}.jpg")
        cv2.imwrite(str(photos[-1]), table_photo(seed=k))
    runtimes = [("ONNX Runtime", "onnx", model), ("again", "onnx", model)]
    figures = backends_bench(photos, runtimes, repeat=2, threads=1)
    for label in ("ONNX Runtime", "again"):
        row = figures[label]
        assert row["median_ms"] > 0 and row["cpu_ms"] >= 0 and row["p90_ms"] >= row["median_ms"]
        assert set(row["parts_ms"]) == {"pre", "run", "post"} and row["parts_ms"]["run"] > 0
        assert 0 < row["startup_s"] < 60 and 20 < row["peak_rss_mb"] < 2000
        assert row["agreement"] == [2, 2]  # one 7S in each photo, found alike
    out = capsys.readouterr().out
    assert "x Ultralytics" in out and "2 of 2" in out


def test_a_runtime_that_fails_is_named(tmp_path: Path) -> None:
    photo = tmp_path / "p.jpg"
    cv2.imwrite(str(photo), table_photo())
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(SystemExit, match="the ONNX Runtime run failed"):
        backends_bench([photo], [("ONNX Runtime", "onnx", broken)], repeat=1, threads=1)


def test_the_photos_of_a_folder_are_timed(tmp_path: Path) -> None:
    for name in ("b.jpg", "a.png", "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    assert bench_photos([tmp_path]) == [tmp_path / "a.png", tmp_path / "b.jpg"]


def test_agreement_counts_corners_both_backends_found() -> None:
    a = {"x.jpg": [("7S", 0.9, [0, 0, 10, 10]), ("8S", 0.9, [50, 50, 60, 60])]}
    b = {"x.jpg": [("7S", 0.8, [1, 1, 10, 10]), ("9S", 0.9, [50, 50, 60, 60])]}
    assert _agreement(a, b) == (1, 3)
    assert _agreement(a, a) == (2, 2)
    two_photos = {**a, "y.jpg": [("KD", 0.9, [0, 0, 10, 10])]}
    assert _agreement(two_photos, {**b, "y.jpg": [("KD", 0.9, [0, 0, 10, 10])]}) == (2, 4)


def test_the_benchmark_says_which_file_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--onnx", str(tmp_path / "no.onnx"), str(tmp_path / "p.jpg")]) == 1
    assert "no.onnx: no such file" in capsys.readouterr().err


def test_a_camera_kept_ready_costs_one_capture_where_one_opened_per_scan_costs_its_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vision.devtools.bench_reading import PiCameraDelays, SimulatedPicamera2, _camera_times

    delays = PiCameraDelays(
        start_s=0.02, frame_s=0.002, settle_frames=3, autofocus_s=0.03, capture_s=0.01, close_s=0.0
    )
    monkeypatch.setattr(SimulatedPicamera2, "delays", delays)
    times = _camera_times([table_photo()], scans=2)
    # sleeps only lengthen on a busy machine: each kept capture costs its capture, well under any opening
    assert all(s >= 0.01 for s in times["kept ready"])
    assert all(s >= 0.02 + 0.03 + 0.01 for s in times["opened for each scan"])
    assert max(times["kept ready"]) < min(times["opened for each scan"])


def test_the_reading_bench_times_each_stage_of_both_readings(
    make_model: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from vision.devtools.bench_reading import STAGES, PiCameraDelays, SimulatedPicamera2, reading_bench

    monkeypatch.setenv(
        "TABLETALLY_MODEL", str(make_model(raw_output([(55, 72.5, 10, 15)], [{"7S": 0.9}], 4)))
    )
    monkeypatch.setattr(SimulatedPicamera2, "delays", PiCameraDelays(0, 0, 1, 0, 0, 0))
    folder = tmp_path / "table"
    folder.mkdir()
    photos = []
    for k in range(2):
        photos.append(folder / f"p{k}.jpg")
        cv2.imwrite(str(photos[-1]), table_photo(seed=k))
    figures = reading_bench(photos, repeat=1, threads=1)
    assert set(figures["kinds"]) == {"table"}
    for effort in ("full", "focused"):
        stages = figures["kinds"]["table"][effort]
        assert set(stages) == set(STAGES) and stages["reading (photo to hands)"][0] > 0
    out = capsys.readouterr().out
    assert "ESTIMATES: Pi 5" in out and "kept ready" in out


def test_other_input_sizes_are_timed_with_the_labelled_corners_they_read(
    make_model: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.devtools.bench_reading import sizes_bench

    # a dynamic-input model finding one 7S at (55, 72.5) in input pixels, whatever the input's size
    model = make_model(raw_output([(55, 72.5, 10, 15)], [{"7S": 0.9}], anchors=4), imgsz=None)
    images, labels = tmp_path / "set" / "images" / "val", tmp_path / "set" / "labels" / "val"
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    photo = images / "p0.jpg"
    cv2.imwrite(str(photo), table_photo(seed=1)[:320, :320])
    # the 7S where a 320 px input puts it (scale 1 on a 320 x 320 photo), and a corner no pass finds
    (labels / "p0.txt").write_text(
        f"{6} {55 / 320} {72.5 / 320} {10 / 320} {15 / 320}\n0 0.9 0.9 0.05 0.05\n"
    )
    figures = sizes_bench([photo], model, sizes=(320, 640), threads=1)
    assert figures[320]["right"] == 1 and figures[320]["missed"] == 1
    assert figures[640]["right"] == 0 and figures[640]["missed"] + figures[640]["other"] == 2
    assert all(row["ms"][0] > 0 for row in figures.values())
    assert "2 labelled corners" in capsys.readouterr().out


def test_the_runtime_the_device_would_choose_is_compared_with_predict_given_the_same_input() -> None:
    def row(kind: str, ms: float, cpu: float, given: str = "576x576") -> dict[str, object]:
        return {"kind": kind, "median_ms": ms, "cpu_ms": cpu, "input": given}

    figures: dict[str, object] = {
        "photos": ["a.jpg"],
        "ONNX Runtime": row("onnx", 44.0, 70.0),
        "NCNN": row("ncnn", 60.0, 66.0),
        "OpenVINO": row("openvino", 38.0, 68.0),
        "onnx other.onnx": row("onnx", 10.0, 10.0),  # another model: not the kiosk's
        "Ultralytics predict, square": row("ultralytics-square", 84.0, 90.0),
        "Ultralytics predict": row("ultralytics", 70.0, 80.0, "rect 576"),
    }
    chosen = chosen_runtime(figures)
    assert chosen is not None
    assert (chosen["runtime"], chosen["ratio_to"]) == ("openvino", "Ultralytics predict, square")
    assert chosen["ratio"] == pytest.approx(84.0 / 38.0) and chosen["cpu_ratio"] == pytest.approx(90.0 / 68.0)
    assert chosen["why"].endswith("OpenVINO is 1.2x faster here")
    figures["OpenVINO"] = row("openvino", 42.0, 68.0)  # within a tenth: the default stays
    assert chosen_runtime(figures)["runtime"] == "onnx"  # type: ignore[index]
    assert chosen_runtime({"ONNX Runtime": row("onnx", 44.0, 70.0)}) is None  # no predict to compare


@pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="openvino is not installed")
def test_openvino_in_the_one_pass_table_finds_the_corners_onnx_runtime_finds(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    model = make_model(raw_output([(55, 72.5, 10, 15)], [{"7S": 0.9}], anchors=4))
    photo = tmp_path / "p.jpg"
    cv2.imwrite(str(photo), table_photo())
    runtimes = [("ONNX Runtime", "onnx", model), ("OpenVINO", "openvino", model)]
    figures = backends_bench([photo], runtimes, repeat=1, threads=1)
    assert figures["OpenVINO"]["agreement"] == [1, 1] and figures["OpenVINO"]["median_ms"] > 0


def test_every_pass_of_the_focused_reading_counts_under_a_stage_of_its_own() -> None:
    from vision.devtools.bench_reading import STAGES, _view_stage

    assert _view_stage("w0") == "whole photo, upright"
    assert _view_stage("w0R576") == "whole photo, upright"  # the look shaped as the photo
    assert _view_stage("w0L1024") == "large look"
    assert _view_stage("w2") == "whole photo, half turn"
    assert _view_stage("w2L1024") == "whole photo, half turn"
    assert _view_stage("r172.134.600.600.2L320") == "windows, turned"
    assert _view_stage("t2.3.0") == "crops"
    assert {_view_stage(n) for n in ("w0", "w0L1024", "w2", "r1.2.3.4.2L320", "t3.8.0")} <= set(STAGES)
