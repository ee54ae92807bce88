"""What a scan gives the round: each card as shown (:class:`HandCard`: read, with its box and doubt, or typed
and fixed by a player), the scan's result (:class:`ScanResult`, from a vision ``CardReading``:
:func:`reading_to_scan`), the photo fitted for the screen, and the tap-to-fix card picker. Plain data, no
camera and no reading: :mod:`ui.logic.scan` takes the photos and reads them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorer import CARD_CODES, Card, Rank, Suit
from ui.logic.card_words import JOKER

if TYPE_CHECKING:
    from vision.base.types import CardReading

Box = tuple[float, float, float, float]
DISPLAY_SIDE = 1280  # the long side of the photo as the screen shows it (ScanResult.preview)


@dataclass(frozen=True)
class HandCard:
    """One card of a hand as shown on screen: from a scan (with its box) or typed/fixed by a player."""

    code: str
    confidence: float | None = None
    uncertain: bool = False
    box: Box | None = None
    alternatives: tuple[str, ...] = ()
    fixed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "confidence": self.confidence,
            "uncertain": self.uncertain,
            "box": list(self.box) if self.box else None,
            "alternatives": list(self.alternatives),
            "fixed": self.fixed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandCard:
        box = data.get("box")
        return cls(
            code=str(data["code"]),
            confidence=data.get("confidence"),
            uncertain=bool(data.get("uncertain", False)),
            box=(float(box[0]), float(box[1]), float(box[2]), float(box[3])) if box else None,
            alternatives=tuple(data.get("alternatives", ())),
            fixed=bool(data.get("fixed", False)),
        )

    def fixed_as(self, code: str) -> HandCard:
        """This card as confirmed (or corrected) by a player: same box, new code, no longer in doubt."""
        return HandCard(code, self.confidence, self.uncertain, self.box, self.alternatives, True)

    @property
    def needs_look(self) -> bool:
        """Uncertain and not yet confirmed by a player."""
        return self.uncertain and not self.fixed


@dataclass(frozen=True)
class ScanResult:
    """What one scan produced. ``error`` is set when the camera failed (no photo) or the cards could not be
    read (photo kept). ``groups`` are the detector's hands (index tuples into ``cards``)."""

    target: str
    cards: tuple[HandCard, ...] = ()
    groups: tuple[tuple[int, ...], ...] = ()
    width: int = 0
    height: int = 0
    ms: float = 0.0
    jpeg: bytes | None = field(default=None, repr=False)
    image: Any = field(default=None, repr=False)
    preview: Any = field(default=None, repr=False)  # the photo fitted for the screen (fit_for_display)
    camera: str = ""
    error: str | None = None
    camera_failed: bool = False

    def photo_jpeg(self) -> bytes | None:
        """The photo as JPEG bytes for the record: ``jpeg`` when given, else the photo taken, encoded now
        (the slow part of keeping a scan, done after its result is on screen); None without a photo."""
        if self.jpeg is not None or self.image is None:
            return self.jpeg
        return _encode_jpeg(self.image)

    def detected_json(self) -> dict[str, Any]:
        return {
            "cards": [c.to_dict() for c in self.cards],
            "groups": [list(g) for g in self.groups],
            "width": self.width,
            "height": self.height,
            "ms": round(self.ms, 1),
            "camera": self.camera,
            "error": self.error,
        }


# -- the card picker -----------------------------------------------------------------------------------

PICKER_RANKS: tuple[str, ...] = tuple(r.value for r in Rank)
PICKER_SUITS: tuple[str, ...] = tuple(s.value for s in Suit)
RED_SUITS = frozenset({"H", "D"})


def normalize_code(text: str) -> str:
    """The canonical code of a typed card (``ts`` -> ``10S``); ScorerError naming the bad text."""
    return Card.parse(text.strip()).code


@dataclass
class CardPicker:
    """The tap-to-fix picker: 13 ranks x 4 suits + joker. Pick a rank then a suit (or the joker)."""

    rank: str | None = None
    suit: str | None = None

    def start(self, code: str | None) -> None:
        if code and code != JOKER:
            self.rank, self.suit = code[:-1], code[-1]
        else:
            self.rank, self.suit = None, None

    def tap_rank(self, rank: str) -> str | None:
        if rank not in PICKER_RANKS:
            raise ValueError(f"unknown rank {rank!r}")
        self.rank = rank
        return self.code

    def tap_suit(self, suit: str) -> str | None:
        if suit not in PICKER_SUITS:
            raise ValueError(f"unknown suit {suit!r}")
        self.suit = suit
        return self.code

    @property
    def code(self) -> str | None:
        if self.rank and self.suit:
            code = self.rank + self.suit
            return code if code in CARD_CODES else None
        return None


def fit_for_display(image: Any, max_side: int = DISPLAY_SIDE) -> Any:
    """A BGR photo no larger than ``max_side`` on its long side (the screen shows a 12 MP still no better
    than a 1280 px one); the photo itself when it is no larger."""
    h, w = image.shape[:2]
    scale = max_side / max(h, w)
    if scale >= 1:
        return image
    import cv2

    return cv2.resize(image, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)


def _encode_jpeg(image: Any) -> bytes | None:
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), 90])
    return bytes(buf) if ok else None


def reading_to_scan(target: str, reading: CardReading, image: Any, camera: str) -> ScanResult:
    """Turn a vision ``CardReading`` into a ScanResult."""
    cards = tuple(
        HandCard(
            code=c.code,
            confidence=float(c.confidence),
            uncertain=bool(c.uncertain),
            box=tuple(float(v) for v in c.box),  # type: ignore[arg-type]
            alternatives=tuple(code for code, _ in c.alternatives),
        )
        for c in reading.cards
    )
    return ScanResult(
        target=target,
        cards=cards,
        groups=tuple(tuple(h) for h in reading.hands),
        width=int(reading.width),
        height=int(reading.height),
        ms=float(reading.ms),
        image=image,
        camera=camera,
    )
