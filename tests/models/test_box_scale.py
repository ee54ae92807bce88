"""deck_tune.box_scale / keep_box_scale: how much larger a taught detector draws boxes, kept beside it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from models.training.deck_tune import box_scale, keep_box_scale
from vision.runtimes.model_files import MODELS_DIR, model_box_scale

DEMO = Path(__file__).resolve().parents[2] / "vision" / "demo"


def _photos() -> list[tuple[np.ndarray, list[str]]]:
    return [
        (np.asarray(cv2.imread(str(p), cv2.IMREAD_COLOR)), []) for p in sorted(DEMO.glob("round*.jpg"))[:2]
    ]


def test_the_shipped_model_against_itself_is_one() -> None:
    assert box_scale(MODELS_DIR / "cards.onnx", _photos(), pairs=5) == 1.0


def test_too_few_corners_give_none() -> None:
    blank: list[tuple[np.ndarray, list[str]]] = [(np.full((480, 640, 3), 40, np.uint8), [])]
    assert box_scale(MODELS_DIR / "cards.onnx", blank) is None


def test_kept_and_removed_in_classes_json(tmp_path: Path) -> None:
    shutil.copy2(MODELS_DIR / "cards.onnx", tmp_path / "cards.onnx")
    shutil.copy2(MODELS_DIR / "classes.json", tmp_path / "classes.json")
    keep_box_scale(tmp_path, 1.133)
    assert model_box_scale(tmp_path / "cards.onnx") == 1.133
    keep_box_scale(tmp_path, None)
    assert "box_scale" not in json.loads((tmp_path / "classes.json").read_text(encoding="utf-8"))
    assert model_box_scale(tmp_path / "cards.onnx") == 1.0
