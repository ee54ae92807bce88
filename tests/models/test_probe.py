"""``python -m models.probe``: single cards of procedural decks drawn now, read by a model, by index shape."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.decks import PROCEDURAL_TRAINED
from models.onnx_detect import SHIPPED_ONNX, OnnxCardDetector
from models.probe import GROUPS, TABLE_BGR, main, on_table, probe
from tests.models.conftest import have_fonts


def test_a_card_lies_centred_on_the_plain_table() -> None:
    face = np.zeros((280, 200, 4), np.uint8)
    face[..., :3] = 255
    face[..., 3] = 255
    face[:20, :20, 3] = 0  # a transparent corner shows the table
    photo = on_table(face)
    assert photo.shape == (480, 640, 3)
    assert tuple(photo[0, 0]) == TABLE_BGR and tuple(photo[240, 320]) == (255, 255, 255)
    assert tuple(photo[(480 - 280) // 2 + 5, (640 - 200) // 2 + 5]) == TABLE_BGR


def test_bad_arguments_and_a_missing_model_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--per-group", "0"]) == 2
    assert "--per-group" in capsys.readouterr().err
    assert main(["--onnx", str(tmp_path / "none.onnx")]) == 2
    assert "ONNX model not found" in capsys.readouterr().err


@pytest.mark.skipif(
    not SHIPPED_ONNX.is_file() or not have_fonts(), reason="needs the shipped model and fonts"
)
def test_probe_reads_one_deck_of_each_index_shape(tmp_path: Path) -> None:
    found = probe(OnnxCardDetector(), tmp_path, first=PROCEDURAL_TRAINED, per_group=1, seed=0)
    assert list(found) == list(GROUPS)
    for decks in found.values():
        assert len(decks) == 1
        index, font, right = decks[0]
        assert index >= PROCEDURAL_TRAINED and font and 0 <= right <= 52
    assert sum(r for decks in found.values() for _, _, r in decks) > 52  # the model reads many of them
