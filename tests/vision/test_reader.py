"""The corner reader: patch geometry, the ONNX reader, and how the detector merges its second opinion."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.vision.helpers import raw_output, table_photo, write_constant_reader
from vision.base.types import CARD_CODES, ModelError
from vision.reader.corners import DEFAULT_READER, CornerReader, corner_patch, patch_square
from vision.reading.detector import CardDetector
from vision.reading.rules import READER_FLOOR, READER_WEIGHT


def to_input_xywh(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float, float, float]:
    """A photo box (640x480 photo) as the model's xywh in the 320 letterboxed input."""
    return ((x1 + x2) / 4, (y1 + y2) / 4 + 40, (x2 - x1) / 2, (y2 - y1) / 2)


def test_a_patch_is_a_square_around_the_box_one_and_a_half_times_its_longer_side() -> None:
    assert patch_square((100, 200, 120, 240)) == (110, 220, 60)
    image = np.zeros((480, 640, 3), np.uint8)
    image[200:240, 100:120] = 255  # the box itself, white
    patch = corner_patch(image, (100, 200, 120, 240), size=60)
    assert patch.shape == (60, 60, 3)
    # the box fills the middle 40 rows and 20 columns of the 60-pixel square, the rest is black
    assert patch[12:48, 22:38].min() == 255
    assert patch[:8].max() == 0 and patch[:, :18].max() == 0


def test_a_patch_past_the_photo_edge_repeats_the_edge_and_keeps_its_size() -> None:
    image = np.full((100, 100, 3), 80, np.uint8)
    patch = corner_patch(image, (90, 90, 110, 110))
    assert patch.shape == (48, 48, 3)
    assert int(patch.min()) == 80 == int(patch.max())


def test_the_reader_gives_card_probabilities_and_a_no_corner_share(tmp_path: Path) -> None:
    model = write_constant_reader(tmp_path, {"9S": 3.0, "6S": 1.0, "none": 1.0})
    reader = CornerReader(model)
    cards, none = reader.read(
        table_photo(), np.array([[100, 100, 120, 130], [300, 200, 330, 240]], np.float32)
    )
    assert cards.shape == (2, len(CARD_CODES)) and none.shape == (2,)
    np.testing.assert_allclose(cards.sum(axis=1) + none, 1.0, rtol=1e-5)
    assert CARD_CODES[int(cards[0].argmax())] == "9S"
    assert cards[0, CARD_CODES.index("9S")] == pytest.approx(np.exp(3) / (np.exp(3) + 2 * np.e), rel=1e-3)
    empty_cards, empty_none = reader.read(table_photo(), np.zeros((0, 4), np.float32))
    assert empty_cards.shape == (0, len(CARD_CODES)) and empty_none.shape == (0,)


def test_a_missing_reader_is_a_model_error_that_says_how_to_read_without_it(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"reader model .*nowhere\.onnx not found .*TABLETALLY_READER=off"):
        CornerReader(tmp_path / "nowhere.onnx").load()


def test_a_reader_whose_classes_are_not_the_cards_and_none_is_refused(tmp_path: Path) -> None:
    model = write_constant_reader(tmp_path, {"9S": 3.0})
    (tmp_path / "reader.json").write_text(json.dumps({"names": ["a", "b"]}))
    with pytest.raises(ModelError, match="reader.json: 'names' must be the 53 card codes then 'none'"):
        CornerReader(model).load()
    (tmp_path / "reader.json").write_text("{not json")
    with pytest.raises(ModelError, match="reader.json: cannot read"):
        CornerReader(model).load()


def test_a_corrupt_reader_is_a_model_error(tmp_path: Path) -> None:
    write_constant_reader(tmp_path, {"9S": 3.0})
    (tmp_path / "reader.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="is not a valid ONNX model"):
        CornerReader(tmp_path / "reader.onnx").load()


def _detector(make_model: Callable[..., Path], reader: Path | str, scores: dict[str, float]) -> CardDetector:
    model = make_model(raw_output([to_input_xywh(100, 100, 120, 130)], [scores], anchors=20))
    return CardDetector(model, tiles=1, conf=0.2, reader=reader)


def _probability(logits: dict[str, float], code: str) -> float:
    """The softmax share of ``code`` when every other class of the 54 has logit -10."""
    others = 54 - len(logits)
    return float(np.exp(logits[code]) / (sum(np.exp(v) for v in logits.values()) + others * np.exp(-10)))


def test_the_reader_overrules_a_corner_it_reads_surely_as_another_card(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    logits = {"9S": 3.0, "6S": 1.0}
    reader = write_constant_reader(tmp_path / "reader", logits)
    (det,) = _detector(make_model, reader, {"6S": 0.6, "9S": 0.2}).detect(table_photo())
    w = READER_WEIGHT
    assert det.code == "9S"
    assert det.confidence == pytest.approx(0.2 ** (1 - w) * _probability(logits, "9S") ** w, abs=1e-3)
    # the detector's reading stays an alternative, so the card is marked uncertain
    assert det.alternatives[0][0] == "6S"
    assert det.alternatives[0][1] == pytest.approx(0.6 ** (1 - w) * _probability(logits, "6S") ** w, abs=1e-3)
    assert det.box == pytest.approx((100, 100, 120, 130), abs=0.01)


def test_a_corner_both_read_alike_keeps_its_card_and_gains_confidence(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    reader = write_constant_reader(tmp_path / "reader", {"6S": 8.0})
    (det,) = _detector(make_model, reader, {"6S": 0.6}).detect(table_photo())
    assert det.code == "6S" and det.confidence == pytest.approx(0.6 ** (1 - READER_WEIGHT), abs=0.01)
    assert det.confidence > 0.6 and not det.alternatives


def test_a_weak_corner_the_reader_is_sure_of_is_kept_though_under_the_threshold(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    reader = write_constant_reader(tmp_path / "reader", {"6S": 8.0})
    detector = _detector(make_model, reader, {"6S": 0.15})
    assert detector.candidate_conf == pytest.approx(0.2 * READER_FLOOR)
    (det,) = detector.detect(table_photo())
    assert det.code == "6S" and det.confidence == pytest.approx(0.15 ** (1 - READER_WEIGHT), abs=0.01)
    assert _detector(make_model, "off", {"6S": 0.15}).detect(table_photo()) == []  # under conf 0.2


def test_a_corner_the_two_read_as_different_cards_neither_sure_is_dropped(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    reader = write_constant_reader(tmp_path / "reader", {"9S": 8.0})
    assert _detector(make_model, reader, {"6S": 0.6}).detect(table_photo()) == []


def test_a_weak_corner_the_reader_sees_no_index_in_is_dropped(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    reader = write_constant_reader(tmp_path / "reader", {"none": 8.0})
    assert _detector(make_model, reader, {"6S": 0.3}).detect(table_photo()) == []
    assert [d.code for d in _detector(make_model, "off", {"6S": 0.3}).detect(table_photo())] == ["6S"]


def test_the_reader_is_the_shipped_file_unless_the_environment_names_another_or_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TABLETALLY_READER", raising=False)
    reader = CardDetector().reader
    assert reader is not None and reader.model_path == DEFAULT_READER
    monkeypatch.setenv("TABLETALLY_READER", "/srv/reader.onnx")
    reader = CardDetector().reader
    assert reader is not None and reader.model_path == Path("/srv/reader.onnx")
    monkeypatch.setenv("TABLETALLY_READER", "off")
    assert CardDetector().reader is None
    from vision.runtimes.ultralytics import UltralyticsDetector

    assert UltralyticsDetector().reader is None  # Ultralytics reads without the corner reader


def test_a_detector_whose_reader_is_missing_fails_to_load_naming_it(
    make_model: Callable[..., Path], tmp_path: Path
) -> None:
    detector = _detector(make_model, tmp_path / "gone.onnx", {"6S": 0.6})
    with pytest.raises(ModelError, match="gone.onnx not found"):
        detector.load()
