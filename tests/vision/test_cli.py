"""`tabletally detect` and `tabletally cameras`: output shapes, exit statuses, and every bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.cameras as camera_mod
from tests.vision.helpers import raw_output, table_photo
from ui.cli import main


def xywh(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float, float, float]:
    return ((x1 + x2) / 4, (y1 + y2) / 4 + 40, (x2 - x1) / 2, (y2 - y1) / 2)


@pytest.fixture
def model(make_model: Callable[..., Path]) -> Path:
    # Its corners are small (10-15 px in the 320 px input), which the default (--tiles auto) reads again
    # in 2 x 2 crops; this fake model answers every crop alike, so the tests that count cards read the
    # whole photo only (--tiles 1).
    out = raw_output(
        [xywh(50, 50, 70, 80), xywh(110, 130, 130, 160), xywh(560, 380, 580, 410)],
        [{"7S": 0.92}, {"7S": 0.88}, {"QH": 0.35, "QD": 0.3}],
        anchors=16,
    )
    return make_model(out)


@pytest.fixture
def photos(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "good": tmp_path / "good.jpg",
        "blank": tmp_path / "blank.png",
        "garbage": tmp_path / "garbage.jpg",
        "missing": tmp_path / "missing.jpg",
    }
    cv2.imwrite(str(paths["good"]), table_photo())
    cv2.imwrite(str(paths["blank"]), np.zeros((480, 640, 3), np.uint8))
    paths["garbage"].write_text("this is text, not a JPEG")
    return paths


def test_detect_json_prints_one_entry_per_photo_in_the_issue_shape(
    model: Path, photos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    good = str(photos["good"])
    assert main(["detect", good, good, "--json", "--model", str(model), "--tiles", "1"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result) == 2
    entry = result[0]
    assert list(entry) == ["image", "ms", "cards", "hands"]
    assert entry["image"] == good and isinstance(entry["ms"], float)
    assert entry["cards"] == [
        {"code": "7S", "confidence": 0.92, "uncertain": False, "box": [50.0, 50.0, 130.0, 160.0]},
        {"code": "QH", "confidence": 0.35, "uncertain": True, "box": [560.0, 380.0, 580.0, 410.0]},
    ]
    assert entry["hands"] == [[0], [1]]


def test_detect_prints_hands_and_marks_doubtful_cards_for_people(
    model: Path, photos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["detect", str(photos["good"]), "--model", str(model), "--hands", "1", "--tiles", "1"]) == 0
    out = capsys.readouterr().out
    assert f"{photos['good']}: 2 cards in 1 hand (640x480," in out
    assert "  hand 1: 7S 0.92, QH? 0.35 or QD 0.30" in out
    assert "1 uncertain card (marked ?): please check" in out


def test_detect_reports_each_bad_photo_and_still_reads_the_others(
    model: Path, photos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [str(photos[k]) for k in ("missing", "blank", "good", "garbage")]
    assert main(["detect", *args, "--json", "--model", str(model)]) == 1
    captured = capsys.readouterr()
    assert [entry["image"] for entry in json.loads(captured.out)] == [str(photos["good"])]
    errors = captured.err.splitlines()
    assert len(errors) == 3
    assert errors[0] == f"tabletally detect: {photos['missing']}: no such file"
    assert "blank.png: the photo is blank" in errors[1]
    assert "garbage.jpg: not a readable image" in errors[2]
    assert "Traceback" not in captured.err


def test_detect_with_a_missing_model_says_so_and_exits_3(
    tmp_path: Path, photos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["detect", str(photos["good"]), "--model", str(tmp_path / "none.onnx")]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"tabletally detect: model file {tmp_path / 'none.onnx'} not found\n"


def test_detect_with_a_corrupt_model_says_so_and_exits_3(
    tmp_path: Path, photos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    corrupt = tmp_path / "cards.onnx"
    corrupt.write_bytes(b"\x00garbage" * 64)
    assert main(["detect", str(photos["good"]), "--json", "--model", str(corrupt)]) == 3
    err = capsys.readouterr().err
    assert "is not a valid ONNX model" in err and "Traceback" not in err and err.count("\n") == 1


def test_detect_annotate_writes_each_photo_with_its_cards(
    model: Path, photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "annotated"
    good = str(photos["good"])
    assert main(["detect", good, good, "--model", str(model), "--annotate", str(folder)]) == 0
    written = sorted(p.name for p in folder.iterdir())
    assert written == ["good-2.annotated.jpg", "good.annotated.jpg"]
    drawn = cv2.imread(str(folder / "good.annotated.jpg"))
    assert drawn.shape == (480, 640, 3)
    assert f"annotated: {folder / 'good.annotated.jpg'}" in capsys.readouterr().out


def test_detect_annotate_into_an_impossible_folder_is_a_clear_error(
    model: Path, photos: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = photos["good"]  # a file where the folder should be
    assert main(["detect", str(photos["good"]), "--model", str(model), "--annotate", str(blocker)]) == 4
    assert "cannot create the annotation folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--hands", "0"], "must be at least 1"),
        (["--decks", "0"], "must be at least 1"),
        (["--conf", "2"], "strictly between 0 and 1"),
        (["--backend", "tflite"], "invalid choice: 'tflite'"),
        (["--tiles", "5"], "tiles must be 1 to 4 or auto, got '5'"),
        (["--rotations", "3"], "rotations must be 1, 2 or 4, got '3'"),
    ],
)
def test_detect_refuses_bad_options_with_a_usage_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["detect", "x.jpg", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_detect_tiles_only_with_the_onnx_backend(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "x.jpg", "--backend", "ultralytics", "--tiles", "2", "--model", str(model)]) == 2
    assert "--tiles 2 needs the onnx backend" in capsys.readouterr().err
    assert (
        main(["detect", "x.jpg", "--backend", "ultralytics", "--rotations", "2", "--model", str(model)]) == 2
    )
    assert "--rotations 2 needs the onnx backend" in capsys.readouterr().err
    argv = ["detect", "x.jpg", "--backend", "ultralytics", "--reader", "r.onnx", "--model", str(model)]
    assert main(argv) == 2
    assert "--reader needs the onnx backend" in capsys.readouterr().err


def test_detect_names_a_missing_reader(
    model: Path, photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere" / "reader.onnx"
    assert main(["detect", str(photos["good"]), "--model", str(model), "--reader", str(missing)]) == 3
    assert f"reader model {missing} not found" in capsys.readouterr().err


def test_detect_names_a_bad_rotations_setting_in_the_environment(
    model: Path, photos: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLETALLY_ROTATIONS", "many")
    assert main(["detect", str(photos["good"]), "--model", str(model)]) == 2
    assert "$TABLETALLY_ROTATIONS must be 1, 2 or 4, got 'many'" in capsys.readouterr().err


@pytest.mark.usefixtures("no_picamera2")
def test_cameras_lists_sources_with_reasons_and_what_auto_uses(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(camera_mod, "_video_nodes", lambda *a: [])
    monkeypatch.setattr(camera_mod.sys, "platform", "linux")
    cv2.imwrite(str(tmp_path / "demo1.jpg"), table_photo())
    monkeypatch.setattr(camera_mod, "DEMO_DIR", tmp_path)
    assert main(["cameras"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("no   Pi camera") and "needs picamera2" in lines[0]
    assert lines[1].startswith("no   webcam") and "no video capture device" in lines[1]
    assert lines[2].startswith("yes  demo photos (1)")
    assert lines[3] == "auto uses: demo photos (1) (demo)"


@pytest.mark.usefixtures("no_picamera2")
def test_cameras_json_and_exit_1_when_nothing_is_available(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(camera_mod, "_video_nodes", lambda *a: [])
    monkeypatch.setattr(camera_mod.sys, "platform", "linux")
    monkeypatch.setattr(camera_mod, "DEMO_DIR", tmp_path / "none")
    assert main(["cameras", "--json"]) == 1
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    assert [(r["kind"], r["available"]) for r in rows] == [
        ("pi", False),
        ("webcam", False),
        ("folder", False),
    ]
