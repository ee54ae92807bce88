"""The vision value types validate themselves and serialise to the `detect --json` shape."""

from __future__ import annotations

import math

import pytest

from vision.base.errors import InvalidValueError, VisionError
from vision.base.types import CARD_CODES, CardReading, DetectedCard, Detection


def test_card_codes_are_the_53_model_classes_in_suit_then_rank_order() -> None:
    assert len(CARD_CODES) == 53
    assert CARD_CODES[:13] == ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS")
    assert CARD_CODES[13] == "AH" and CARD_CODES[26] == "AD" and CARD_CODES[39] == "AC"
    assert CARD_CODES[-1] == "JK"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"code": "1S"}, "unknown card code '1S'"),
        ({"code": "7s"}, "unknown card code '7s'"),
        ({"confidence": 1.5}, "confidence must lie in"),
        ({"confidence": -0.1}, "confidence must lie in"),
        ({"confidence": "high"}, "must be a number"),
        ({"box": (10, 10, 5, 20)}, "x2 > x1"),
        ({"box": (0, 0, 10)}, "four finite numbers"),
        ({"box": (0, 0, math.nan, 5)}, "four finite numbers"),
        ({"alternatives": (("7S", 0.2),)}, "must not contain 7S"),
        ({"alternatives": (("ZZ", 0.2),)}, "unknown card code 'ZZ'"),
    ],
)
def test_detection_rejects_bad_values_with_a_message_naming_them(kwargs: dict, message: str) -> None:
    values = {"code": "7S", "confidence": 0.9, "box": (0, 0, 10, 10)} | kwargs
    with pytest.raises(InvalidValueError, match=message):
        Detection(**values)


def test_a_bad_value_is_a_vision_error_that_callers_catching_value_error_still_catch() -> None:
    for make in (
        lambda: Detection("7S", 2.0, (0, 0, 1, 1)),
        lambda: DetectedCard("7S", 0.9, False, ()),
        lambda: CardReading("p", 1.0, (), ((0,),), 10, 10),
    ):
        with pytest.raises(VisionError) as caught:
            make()
        assert isinstance(caught.value, ValueError)


def test_detection_normalises_box_to_floats_and_is_frozen() -> None:
    det = Detection("10H", 1, [1, 2, 3, 4])  # type: ignore[arg-type]
    assert det.box == (1.0, 2.0, 3.0, 4.0) and isinstance(det.confidence, float)
    with pytest.raises(AttributeError):
        det.code = "9H"  # type: ignore[misc]


def test_detected_card_box_is_the_union_of_its_corner_boxes() -> None:
    card = DetectedCard("QD", 0.8, False, ((10, 20, 30, 50), (100, 150, 120, 180)))
    assert card.box == (10.0, 20.0, 120.0, 180.0)
    assert card.to_json() == {
        "code": "QD",
        "confidence": 0.8,
        "uncertain": False,
        "box": [10.0, 20.0, 120.0, 180.0],
    }


def test_detected_card_needs_a_box_and_a_bool_uncertain() -> None:
    with pytest.raises(ValueError, match="at least one box"):
        DetectedCard("QD", 0.8, False, ())
    with pytest.raises(ValueError, match="uncertain must be a bool"):
        DetectedCard("QD", 0.8, 1, ((0, 0, 1, 1),))  # type: ignore[arg-type]


def test_card_reading_serialises_to_the_issue_shape() -> None:
    cards = (
        DetectedCard("7S", 0.97123, False, ((1, 2, 3, 4),)),
        DetectedCard("JK", 0.4, True, ((5, 6, 7, 8),), (("QS", 0.3),)),
    )
    reading = CardReading("table.jpg", 48.234, cards, ((1,), (0,)), 640, 480)
    assert reading.to_json() == {
        "image": "table.jpg",
        "ms": 48.2,
        "cards": [
            {"code": "7S", "confidence": 0.9712, "uncertain": False, "box": [1.0, 2.0, 3.0, 4.0]},
            {"code": "JK", "confidence": 0.4, "uncertain": True, "box": [5.0, 6.0, 7.0, 8.0]},
        ],
        "hands": [[1], [0]],
    }
    assert reading.codes == ["7S", "JK"]


@pytest.mark.parametrize("hands", [((0,),), ((0, 1), (1,)), ((0, 2),)])
def test_card_reading_hands_must_use_every_card_index_once(hands: tuple) -> None:
    cards = (DetectedCard("7S", 0.9, False, ((1, 2, 3, 4),)), DetectedCard("8S", 0.9, False, ((1, 2, 3, 4),)))
    with pytest.raises(ValueError, match="card indices once"):
        CardReading("x.jpg", 1.0, cards, hands, 10, 10)
