"""A model's "box_scale" (classes.json): the reading's size tests follow a model that draws larger boxes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vision.reading.detector import CardDetector
from vision.reading.rules import SMALL_CORNER
from vision.runtimes.model_files import MODELS_DIR, model_box_scale


def _model_with(tmp_path: Path, value: object) -> Path:
    """A copy of the shipped model whose classes.json has ``box_scale`` = ``value`` (absent for None)."""
    shutil.copy2(MODELS_DIR / "cards.onnx", tmp_path / "cards.onnx")
    data = json.loads((MODELS_DIR / "classes.json").read_text(encoding="utf-8"))
    if value is not None:
        data["box_scale"] = value
    (tmp_path / "classes.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path / "cards.onnx"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 1.0), (1.133, 1.133), (1, 1.0), (5.0, 1.0), (0.1, 1.0), ("1.2", 1.0), (True, 1.0)],
)
def test_model_box_scale_reads_a_believable_value_only(
    tmp_path: Path, value: object, expected: float
) -> None:
    assert model_box_scale(_model_with(tmp_path, value)) == expected


def test_the_shipped_model_keeps_the_size_tests_as_they_are() -> None:
    detector = CardDetector(threads=1, reader="off").load()
    assert detector.box_scale == 1.0
    assert detector.small_corner == SMALL_CORNER


def test_a_taught_model_and_back(tmp_path: Path) -> None:
    detector = CardDetector(threads=1, reader="off").load()
    detector.use_model(_model_with(tmp_path, 1.25).parent)
    assert detector.small_corner == pytest.approx(SMALL_CORNER * 1.25)
    detector.use_model(None)
    assert detector.small_corner == SMALL_CORNER
