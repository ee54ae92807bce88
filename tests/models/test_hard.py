"""The training photos the detector reads wrong, picked as a training folder of their own."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.hard import HardError, PhotoReading, main, pick, read_photos, score, write
from models.onnx_detect import Detection

W, H = 640, 480


def _det(code: str, x0: float, y0: float, x1: float, y1: float, score: float = 0.9) -> Detection:
    return Detection(code, 0, score, x0, y0, x1, y1)


def _yolo(cls: int, x1: float, y1: float, x2: float, y2: float) -> str:
    return f"{cls} {(x1 + x2) / 2 / W} {(y1 + y2) / 2 / H} {(x2 - x1) / W} {(y2 - y1) / H}"


def _dataset(root: Path, labels: dict[str, list[str]]) -> Path:
    """A dataset of models.synth's shape: one noisy 640 x 480 photo per entry, with those label lines."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    rng = np.random.default_rng(len(labels))
    for stem, lines in labels.items():
        cv2.imwrite(str(root / "images" / "train" / f"{stem}.jpg"), rng.integers(0, 255, (H, W, 3), np.uint8))
        (root / "labels" / "train" / f"{stem}.txt").write_text("".join(f"{line}\n" for line in lines))
    return root


AS = ("AS", (10.0, 10.0, 30.0, 40.0))
KH = ("KH", (100.0, 100.0, 120.0, 130.0))
QD = ("QD", (300.0, 200.0, 320.0, 230.0))


def test_a_photo_read_right_scores_nothing() -> None:
    assert score([AS, KH], [_det("AS", 10, 10, 30, 40), _det("KH", 101, 99, 121, 131)]) == (0, 0)


def test_a_missed_corner_and_one_read_as_another_card_are_both_wrong() -> None:
    # KH read as KD where it lies; QD not found at all
    assert score([AS, KH, QD], [_det("AS", 10, 10, 30, 40), _det("KD", 100, 100, 120, 130)]) == (2, 0)


def test_a_detection_that_overlaps_no_labelled_corner_is_extra() -> None:
    dets = [_det("AS", 10, 10, 30, 40), _det("7C", 500, 400, 520, 430), _det("AS", 12, 300, 32, 330)]
    assert score([AS], dets) == (0, 2)
    assert score([], [_det("JK", 0, 0, 10, 10)]) == (0, 1)


def test_a_detection_barely_touching_a_corner_does_not_read_it() -> None:
    # IoU of the two boxes under CORNER_IOU: the corner is missed and the detection is extra
    assert score([AS], [_det("AS", 25, 35, 45, 65)]) == (1, 1)


def _readings() -> list[PhotoReading]:
    flags = [(0, 0), (1, 0), (0, 0), (0, 2), (3, 1), (0, 0), (1, 0)]
    return [PhotoReading(Path(f"d/images/train/{i}.jpg"), 5, w, e) for i, (w, e) in enumerate(flags)]


def test_pick_keeps_every_hard_photo_by_default_in_the_order_read() -> None:
    assert [r.photo.stem for r in pick(_readings(), None, 0)] == ["1", "3", "4", "6"]
    assert [r.photo.stem for r in pick(_readings(), 9, 0)] == ["1", "3", "4", "6"]


def test_pick_takes_count_of_them_by_seed_and_the_same_seed_picks_the_same() -> None:
    first = pick(_readings(), 2, seed=5)
    assert len(first) == 2 and all(r.hard for r in first)
    assert first == pick(_readings(), 2, seed=5)
    draws = {tuple(r.photo.stem for r in pick(_readings(), 2, seed=s)) for s in range(20)}
    assert len(draws) > 1
    with pytest.raises(HardError, match="--count must be at least 1, got 0"):
        pick(_readings(), 0, 0)


def test_the_picked_photos_are_copied_byte_for_byte_with_their_labels(tmp_path: Path) -> None:
    src = _dataset(
        tmp_path / "synth9", {"000000": [_yolo(0, 10, 10, 30, 40)], "000001": [_yolo(5, 100, 100, 120, 130)]}
    )

    def detect(image: np.ndarray) -> list[Detection]:  # reads the ace wherever it is, nothing else
        return [_det("AS", 10, 10, 30, 40)]

    readings = read_photos([src], detect)
    assert [(r.photo.stem, r.corners, r.wrong, r.extra) for r in readings] == [
        ("000000", 1, 0, 0),
        ("000001", 1, 1, 1),
    ]
    out = tmp_path / "hard"
    write(out, pick(readings, None, 0), {"photos": 2})
    copied = out / "images" / "train" / "synth9_000001.jpg"
    assert copied.read_bytes() == (src / "images" / "train" / "000001.jpg").read_bytes()
    label = out / "labels" / "train" / "synth9_000001.txt"
    assert label.read_text() == (src / "labels" / "train" / "000001.txt").read_text()
    assert sorted(p.name for p in (out / "images" / "train").iterdir()) == ["synth9_000001.jpg"]
    assert "train: images/train" in (out / "data.yaml").read_text()
    manifest = json.loads((out / "hard.json").read_text())
    assert manifest["photos"] == 2
    assert manifest["picked"] == [
        {"photo": str(src / "images/train/000001.jpg"), "corners": 1, "wrong": 1, "extra": 1}
    ]


def test_a_folder_that_is_not_a_dataset_and_an_unreadable_photo_are_named(tmp_path: Path) -> None:
    with pytest.raises(HardError, match=r"nowhere: not a dataset of models.synth"):
        read_photos([tmp_path / "nowhere"], lambda image: [])
    src = _dataset(tmp_path / "d", {"000000": []})
    (src / "images" / "train" / "000000.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(HardError, match=r"000000\.jpg: not a readable image"):
        read_photos([src], lambda image: [])


def test_the_command_reads_with_the_shipped_model_and_reports_what_it_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # noise photos: the model finds none of their labelled corners, so each photo is hard
    src = _dataset(tmp_path / "noise", {f"{i:06d}": [_yolo(i, 100, 100, 120, 130)] for i in range(3)})
    out = tmp_path / "hard"
    assert main(["--src", str(src), "--out", str(out), "--count", "2", "--seed", "1"]) == 0
    assert "3 photos, 3 hard (3 with a wrong corner" in capsys.readouterr().out
    manifest = json.loads((out / "hard.json").read_text())
    assert (manifest["photos"], manifest["hard"], manifest["wrong_corners"], len(manifest["picked"])) == (
        3,
        3,
        3,
        2,
    )
    assert len(list((out / "labels" / "train").iterdir())) == 2


def test_the_command_names_a_missing_model_and_a_missing_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["--src", str(tmp_path), "--out", str(tmp_path / "o"), "--model", str(tmp_path / "no.onnx")])
        == 2
    )
    assert "no.onnx" in capsys.readouterr().err
    assert main(["--src", str(tmp_path / "none"), "--out", str(tmp_path / "o")]) == 2
    assert "none: not a dataset of models.synth" in capsys.readouterr().err
