"""Playing cards: ranks, suits, card codes and the fixed card order shared with the card model.

A card code is a rank ``A 2 3 4 5 6 7 8 9 10 J Q K`` followed by a suit ``S H D C``; ``JK`` is a
joker. :meth:`Card.parse` accepts ASCII in any case and ``T`` for ten, so ``ts``, ``10s`` and ``10S``
are the same card. :attr:`Card.code` is the canonical spelling (``"10S"``, ``"AH"``, ``"JK"``).

``ALL_CARDS`` (and ``CARD_CODES``) is the fixed order of the 53 distinct cards: for each suit in
``S H D C`` the ranks ``A 2 .. 10 J Q K``, then the joker. It is also the class order of the
card-recognition model, and cards sort in this order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from scorer.errors import CardError, JhyapError, LogError, ScorerError, SeepError

__all__ = [
    "ALL_CARDS",
    "CARD_CODES",
    "JOKER",
    "JOKERS_PER_DECK",
    "Card",
    "CardError",
    "JhyapError",
    "LogError",
    "Rank",
    "ScorerError",
    "SeepError",
    "Suit",
    "cards_over_decks",
    "copies_in_decks",
    "parse_cards",
]


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def index(self) -> int:
        """Position in the card order (S=0, H=1, D=2, C=3)."""
        return _SUIT_INDEX[self]


class Rank(Enum):
    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def index(self) -> int:
        """Position in the card order (A=0, 2=1, ..., 10=9, J=10, Q=11, K=12)."""
        return _RANK_INDEX[self]

    @property
    def number(self) -> int:
        """The rank as a number: A=1, 2-10 face value, J=11, Q=12, K=13."""
        return _RANK_INDEX[self] + 1


_SUIT_INDEX: dict[Suit, int] = {suit: i for i, suit in enumerate(Suit)}
_RANK_INDEX: dict[Rank, int] = {rank: i for i, rank in enumerate(Rank)}
_RANK_BY_CODE: dict[str, Rank] = {rank.value: rank for rank in Rank} | {"T": Rank.TEN}
_SUIT_BY_CODE: dict[str, Suit] = {suit.value: suit for suit in Suit}
_JOKER_CODE = "JK"
_JOKER_ORDER = len(Suit) * len(Rank)
_CODE_HELP = "expected a rank A 2-10 J Q K (T for ten) and a suit S H D C, or JK for a joker"


@dataclass(frozen=True, order=True)
class Card:
    """One playing card; a joker has neither rank nor suit.

    Cards are immutable, hashable and sort in the ``ALL_CARDS`` order. Build them with
    :meth:`parse` (``Card.parse("10s")``) or directly (``Card(Rank.TEN, Suit.SPADES)``).
    """

    rank: Rank | None = field(compare=False)
    suit: Suit | None = field(compare=False)
    # Position in ALL_CARDS; equality, hashing and ordering use only this.
    _order: int = field(init=False, repr=False, compare=True)

    def __post_init__(self) -> None:
        if self.rank is not None and not isinstance(self.rank, Rank):
            raise CardError(f"card rank must be a Rank or None, got {self.rank!r}")
        if self.suit is not None and not isinstance(self.suit, Suit):
            raise CardError(f"card suit must be a Suit or None, got {self.suit!r}")
        if (self.rank is None) != (self.suit is None):
            raise CardError(
                f"a card needs both a rank and a suit (or neither, for a joker), got {self.rank}/{self.suit}"
            )
        if self.rank is None or self.suit is None:
            order = _JOKER_ORDER
        else:
            order = self.suit.index * len(Rank) + self.rank.index
        object.__setattr__(self, "_order", order)

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card for ``code``: any case, ``T`` or ``10`` for ten, ``JK`` for a joker.

        Raises :class:`CardError` naming the bad code.
        """
        if not isinstance(code, str):
            raise CardError(f"card code must be a string, got {code!r}")
        if not code.isascii():
            # str.upper() maps some letters onto ASCII ones ("ſ", the long s, becomes "S"): a card code is
            # ASCII before any case folding, so "Aſ" is not the ace of spades.
            raise CardError(
                f"unknown card code {code!r}: card codes are ASCII letters and digits; {_CODE_HELP}"
            )
        text = code.upper()
        if text == _JOKER_CODE:
            return JOKER
        rank = _RANK_BY_CODE.get(text[:-1])
        suit = _SUIT_BY_CODE.get(text[-1:])
        if rank is None or suit is None:
            raise CardError(f"unknown card code {code!r}: {_CODE_HELP}")
        return cls(rank, suit)

    @property
    def is_joker(self) -> bool:
        return self.rank is None

    @property
    def code(self) -> str:
        """The canonical code: ``"10S"``, ``"AH"``, ``"JK"``."""
        if self.rank is None or self.suit is None:
            return _JOKER_CODE
        return self.rank.value + self.suit.value

    @property
    def index(self) -> int:
        """Position in ``ALL_CARDS`` (the card model's class id)."""
        return self._order

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


JOKER = Card(None, None)

ALL_CARDS: tuple[Card, ...] = (*(Card(rank, suit) for suit in Suit for rank in Rank), JOKER)
"""The 53 distinct cards in the fixed order: S H D C, each A..K, then the joker."""

CARD_CODES: tuple[str, ...] = tuple(card.code for card in ALL_CARDS)
"""``ALL_CARDS`` as codes: ``("AS", "2S", ..., "KC", "JK")``."""


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """Parse several card codes, keeping their order. Raises :class:`CardError` naming the first bad one.

    A single string is rejected (it is almost always a mistake for a list of codes).
    """
    if isinstance(codes, str):
        raise CardError(f"expected a list of card codes, got the string {codes!r}")
    return tuple(Card.parse(code) for code in codes)


JOKERS_PER_DECK = 2
"""A deck (a pack) holds one of each of the 52 cards and two jokers."""


def copies_in_decks(card: Card, decks: int) -> int:
    """How many copies of ``card`` ``decks`` mixed decks hold (each deck: one of each card, two jokers).

    The one home of the deck's make-up: the games check hands against it, and vision reads no card more
    often than the packs in play hold."""
    return decks * (JOKERS_PER_DECK if card.is_joker else 1)


def cards_over_decks(cards: Iterable[Card], decks: int) -> frozenset[Card]:
    """The cards that appear more often in ``cards`` than ``decks`` decks can hold."""
    counts = Counter(cards)
    return frozenset(card for card, n in counts.items() if n > copies_in_decks(card, decks))
