"""Fixtures of the vision tests: a tiny real ONNX model with a known output, a fake picamera2, photos."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.helpers import FakePicamera2, table_photo, write_constant_model


@pytest.fixture
def make_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Factory: make_model(output, imgsz=320, name="cards.onnx") -> path of a constant-output model.

    A constant model answers a photo turned half a turn exactly as the upright one, so its corners would
    land elsewhere in the turned view: detectors made while it is in use read each view once
    (``$TABLETALLY_ROTATIONS`` = 1) unless a test asks for ``rotations`` itself. They also read without the
    shipped corner reader (``$TABLETALLY_READER`` = off), which would re-read the made-up corners, and
    read every view (``$TABLETALLY_EFFORT`` = full): a made-up corner's doubt means nothing.
    """
    monkeypatch.setenv("TABLETALLY_ROTATIONS", "1")
    monkeypatch.setenv("TABLETALLY_READER", "off")
    monkeypatch.setenv("TABLETALLY_EFFORT", "full")  # every view: the doubt rules are tested in test_effort

    def make(output: np.ndarray, imgsz: int | tuple[int, int] | None = 320, name: str = "cards.onnx") -> Path:
        folder = tmp_path / "model"
        folder.mkdir(exist_ok=True)
        return write_constant_model(folder / name, output, imgsz)

    return make


@pytest.fixture
def photo_file(tmp_path: Path) -> Path:
    path = tmp_path / "table.jpg"
    assert cv2.imwrite(str(path), table_photo())
    return path


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakePicamera2]]:
    """A fake ``picamera2`` module in sys.modules whose Picamera2 is :class:`FakePicamera2`."""
    module = types.ModuleType("picamera2")
    fake = type("Picamera2", (FakePicamera2,), {"instances": [], "cameras": list(FakePicamera2.cameras)})
    module.Picamera2 = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    yield fake


@pytest.fixture
def no_picamera2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import picamera2`` fail, as on a laptop."""
    monkeypatch.setitem(sys.modules, "picamera2", None)
