"""The benchmark's measuring parts: a detect-only subprocess, and agreement between two backends."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import pytest

from tests.vision.helpers import raw_output, table_photo
from vision.bench import _agreement, _run_worker, main


def test_the_onnx_worker_reports_times_startup_memory_and_what_it_found(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    model = make_model(raw_output([(55, 72.5, 10, 15)], [{"7S": 0.9}], anchors=4))
    photos = []
    for k in range(2):
        photos.append(tmp_path / f"p{k}.jpg")
        cv2.imwrite(str(photos[-1]), table_photo(seed=k))
    result = _run_worker("onnx", model, photos, repeat=2, threads=1)
    assert len(result["ms"]) == 4 and all(ms > 0 for ms in result["ms"])
    assert 0 < result["startup_s"] < 60
    assert 20 < result["peak_rss_mb"] < 2000
    assert [code for code, _, _ in result["found"][str(photos[0])]] == ["7S"]


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
