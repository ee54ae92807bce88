"""Photo to cards end to end through ONNX Runtime (a tiny constant-output model), and the drawing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.helpers import raw_output, table_photo
from vision.base.photo import check_not_blank
from vision.base.types import ImageError, ModelError
from vision.pipeline import annotate, read_cards
from vision.reading.detector import CardDetector


def xywh(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float, float, float]:
    """A box of a 640x480 photo in the model's 320 input (scale 0.5, 40 px padding on top)."""
    return ((x1 + x2) / 4, (y1 + y2) / 4 + 40, (x2 - x1) / 2, (y2 - y1) / 2)


# Hand 1: the 7S with both corners (100 px apart = 5 corner sizes) and the 8S; hand 2: the 9D, far right.
TABLE = raw_output(
    [
        xywh(50, 50, 70, 80),
        xywh(110, 130, 130, 160),
        xywh(80, 55, 100, 85),
        xywh(560, 380, 580, 410),
    ],
    [{"7S": 0.92}, {"7S": 0.88}, {"8S": 0.9}, {"9D": 0.4, "6D": 0.3}],
    anchors=30,
)


@pytest.fixture
def detector(make_model: Callable[..., Path]) -> CardDetector:
    # One pass: the corners are small, so the default would read 2 x 2 crops too, and this fake model
    # answers every crop alike.
    return CardDetector(make_model(TABLE), tiles=1)


def test_a_photo_is_read_into_physical_cards_grouped_into_hands(detector: CardDetector) -> None:
    reading = read_cards(table_photo(), detector)
    assert reading.codes == ["7S", "8S", "9D"]
    seven, eight, nine = reading.cards
    assert len(seven.boxes) == 2 and seven.confidence == pytest.approx(0.92)
    assert seven.box == pytest.approx((50, 50, 130, 160), abs=0.01)
    assert not seven.uncertain and not eight.uncertain
    assert nine.uncertain and nine.alternatives[0][0] == "6D"
    assert reading.hands == ((0, 1), (2,))
    assert (reading.width, reading.height) == (640, 480) and reading.image == "photo"
    assert reading.ms > 0


def test_asking_for_one_hand_puts_every_card_in_it(detector: CardDetector) -> None:
    assert read_cards(table_photo(), detector, n_hands=1).hands == ((0, 1, 2),)


def test_a_photo_file_is_read_by_path(detector: CardDetector, photo_file: Path) -> None:
    reading = read_cards(photo_file, detector)
    assert reading.image == str(photo_file) and len(reading.cards) == 3


def test_a_missing_photo_is_an_image_error(detector: CardDetector, tmp_path: Path) -> None:
    with pytest.raises(ImageError, match=r"gone\.jpg: no such file"):
        read_cards(tmp_path / "gone.jpg", detector)


def test_an_unreadable_photo_is_an_image_error(detector: CardDetector, tmp_path: Path) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"PNG? no.")
    with pytest.raises(ImageError, match=r"bad\.png: not a readable image"):
        read_cards(bad, detector)
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    with pytest.raises(ImageError, match="the file is empty"):
        read_cards(empty, detector)
    with pytest.raises(ImageError, match="not a file"):
        read_cards(tmp_path, detector)


@pytest.mark.parametrize("value", [0, 128, 255])
def test_a_blank_photo_is_an_image_error(detector: CardDetector, value: int) -> None:
    with pytest.raises(ImageError, match="the photo is blank"):
        read_cards(np.full((480, 640, 3), value, np.uint8), detector)


def test_a_dim_but_real_photo_is_not_blank() -> None:
    dim = (table_photo().astype(np.float32) * 0.15).astype(np.uint8)
    check_not_blank(dim)


def test_a_tiny_photo_is_an_image_error() -> None:
    with pytest.raises(ImageError, match="too small"):
        check_not_blank(table_photo(20, 16))


def test_a_missing_model_is_a_model_error_from_read_cards(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        read_cards(table_photo(), CardDetector(tmp_path / "cards.onnx"))


def test_annotate_draws_every_card_and_leaves_the_photo_alone(detector: CardDetector) -> None:
    photo = table_photo()
    before = photo.copy()
    reading = read_cards(photo, detector)
    drawn = annotate(photo, reading)
    assert np.array_equal(photo, before)
    assert drawn.shape == photo.shape
    for card in reading.cards:
        x1, y1, x2, y2 = (round(v) for v in card.boxes[0])
        assert not np.array_equal(drawn[y1 : y2 + 1, x1 : x2 + 1], photo[y1 : y2 + 1, x1 : x2 + 1])
    # Uncertain cards are drawn in red.
    x1, y1, x2, _ = (round(v) for v in reading.cards[2].boxes[0])
    assert drawn[y1 + 5, x1].tolist() == [0, 0, 255]
    assert cv2.imencode(".jpg", drawn)[0]


def test_a_card_read_twice_from_one_pack_is_read_again_from_its_alternatives(
    make_model: Callable[..., Path],
) -> None:
    """Two eights of spades far apart (two cards): with one pack the weaker is its next reading, the 8C."""
    twice = raw_output(
        [xywh(50, 50, 70, 80), xywh(560, 380, 580, 410)], [{"8S": 0.9}, {"8S": 0.6, "8C": 0.35}], anchors=30
    )
    detector = CardDetector(make_model(twice), tiles=1, rotations=1, reader="off")
    assert read_cards(table_photo(), detector).codes == ["8S", "8S"]
    one_pack = read_cards(table_photo(), detector, decks=1)
    assert one_pack.codes == ["8S", "8C"]
    assert one_pack.cards[1].uncertain and one_pack.cards[1].alternatives[0][0] == "8S"
    assert read_cards(table_photo(), detector, decks=2).codes == ["8S", "8S"]


def test_a_bad_number_of_packs_is_named_before_the_photo_is_read(
    detector: CardDetector, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="decks must be a whole number >= 1, got 0"):
        read_cards(tmp_path / "gone.jpg", detector, decks=0)
