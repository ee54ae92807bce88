"""Value types of the vision runtime (its errors live in :mod:`vision.base.errors` and are re-exported here).

Everything here is plain data: frozen dataclasses that validate themselves, so a bad value is caught
where it is made, not three modules later. Boxes are ``(x1, y1, x2, y2)`` in pixels of the original
photo (not of the model's letterboxed input).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scorer.cards import CARD_CODES
from vision.base.errors import CameraError, ImageError, InvalidValueError, ModelError, VisionError

Box = tuple[float, float, float, float]
"""x1, y1, x2, y2 in image pixels, x2 > x1 and y2 > y1."""

__all__ = [
    "CARD_CODES",
    "Box",
    "CameraError",
    "CardReading",
    "DetectedCard",
    "Detection",
    "ImageError",
    "InvalidValueError",
    "ModelError",
    "VisionError",
]

# CARD_CODES (from scorer.cards, the one list of the project) is also the model's class order: for each
# suit S, H, D, C the ranks A, 2..10, J, Q, K, then the joker JK.
_CODE_SET = frozenset(CARD_CODES)


def check_code(code: object) -> str:
    """Return ``code`` if it is one of :data:`CARD_CODES`, else raise InvalidValueError naming it."""
    if not isinstance(code, str) or code not in _CODE_SET:
        raise InvalidValueError(f"unknown card code {code!r}; expected one of {', '.join(CARD_CODES)}")
    return code


def check_box(box: object) -> Box:
    """Return ``box`` as a tuple of four floats if it is a finite, non-empty box, else raise
    :class:`InvalidValueError`."""
    try:
        values = tuple(float(v) for v in box)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise InvalidValueError(f"box must be four numbers (x1, y1, x2, y2), got {box!r}") from None
    if len(values) != 4 or not all(math.isfinite(v) for v in values):
        raise InvalidValueError(f"box must be four finite numbers (x1, y1, x2, y2), got {box!r}")
    x1, y1, x2, y2 = values
    if x2 <= x1 or y2 <= y1:
        raise InvalidValueError(f"box must have x2 > x1 and y2 > y1, got {box!r}")
    return x1, y1, x2, y2


def _check_confidence(confidence: object, what: str) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidValueError(f"{what} confidence must be a number, got {confidence!r}")
    if not 0.0 <= float(confidence) <= 1.0:
        raise InvalidValueError(f"{what} confidence must lie in [0, 1], got {confidence!r}")
    return float(confidence)


def _check_alternatives(alternatives: object, own_code: str) -> tuple[tuple[str, float], ...]:
    try:
        pairs = tuple(
            (check_code(code), _check_confidence(score, "alternative"))
            for code, score in alternatives  # type: ignore[attr-defined]
        )
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(f"alternatives must be (code, confidence) pairs: {exc}") from None
    if any(code == own_code for code, _ in pairs):
        raise InvalidValueError(f"alternatives of {own_code} must not contain {own_code} itself")
    return pairs


def box_center(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0


def box_size(box: Box) -> float:
    """Geometric mean of width and height: a size that changes little when the box's contents rotate."""
    return math.sqrt((box[2] - box[0]) * (box[3] - box[1]))


def union_box(boxes: tuple[Box, ...]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


@dataclass(frozen=True)
class Detection:
    """One detected corner index (rank and suit printed in a card's corner).

    ``alternatives`` lists other codes the model gave real weight to for the same box, best first
    (for example ``(("9S", 0.41),)`` for a 6S that could be a 9S).
    """

    code: str
    confidence: float
    box: Box
    alternatives: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        check_code(self.code)
        object.__setattr__(self, "confidence", _check_confidence(self.confidence, f"detection {self.code}"))
        object.__setattr__(self, "box", check_box(self.box))
        object.__setattr__(self, "alternatives", _check_alternatives(self.alternatives, self.code))


@dataclass(frozen=True)
class DetectedCard:
    """One physical card: one or two corner boxes with the same code.

    ``uncertain`` is true when the confidence is low or another code competes (6/9, hearts/diamonds...);
    ``alternatives`` then names the competing codes with their confidence, best first.
    """

    code: str
    confidence: float
    uncertain: bool
    boxes: tuple[Box, ...]
    alternatives: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        check_code(self.code)
        object.__setattr__(self, "confidence", _check_confidence(self.confidence, f"card {self.code}"))
        if not isinstance(self.uncertain, bool):
            raise InvalidValueError(f"uncertain must be a bool, got {self.uncertain!r}")
        boxes = tuple(check_box(b) for b in self.boxes)
        if not boxes:
            raise InvalidValueError(f"card {self.code} needs at least one box")
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "alternatives", _check_alternatives(self.alternatives, self.code))

    @property
    def box(self) -> Box:
        """The union of the card's corner boxes."""
        return union_box(self.boxes)

    def to_json(self) -> dict[str, Any]:
        """The card as in ``tabletally detect --json``: code, confidence, uncertain, box."""
        return {
            "code": self.code,
            "confidence": round(self.confidence, 4),
            "uncertain": self.uncertain,
            "box": [round(v, 1) for v in self.box],
        }


@dataclass(frozen=True)
class CardReading:
    """The cards read from one photo.

    ``ms`` is the time from the decoded image to the card list; ``hands`` groups indices into ``cards``
    by where the cards lie on the table (each group one player's hand); ``width``/``height`` are the
    photo's size in pixels.
    """

    image: str
    ms: float
    cards: tuple[DetectedCard, ...]
    hands: tuple[tuple[int, ...], ...]
    width: int
    height: int

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise InvalidValueError(f"image size must be positive, got {self.width}x{self.height}")
        if self.ms < 0 or not math.isfinite(self.ms):
            raise InvalidValueError(f"ms must be a finite non-negative number, got {self.ms!r}")
        seen = sorted(i for hand in self.hands for i in hand)
        if seen != list(range(len(self.cards))):
            raise InvalidValueError(
                f"hands {self.hands!r} must use each of the {len(self.cards)} card indices once"
            )

    @property
    def codes(self) -> list[str]:
        return [card.code for card in self.cards]

    def to_json(self) -> dict[str, Any]:
        """The reading as one entry of ``tabletally detect --json``."""
        return {
            "image": self.image,
            "ms": round(self.ms, 1),
            "cards": [card.to_json() for card in self.cards],
            "hands": [list(hand) for hand in self.hands],
        }
