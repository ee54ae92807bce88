"""Editing the cards a round holds: the one home for what the Jhyap round and the Seep deal share.

Each *owner* (a player in Jhyap, a team in Seep) holds a pile of cards, or None while nothing was entered
for it. Cards read in the middle of the table (the draw and discard piles of a whole-table photo) belong to
the *table*: they are shown but not scored unless a player moves them to someone. Every change a player
makes (a card fixed, confirmed, added, removed, moved, a pile typed) goes through these methods; the flows
say who may hold cards and what a scan puts where.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ui.logic.scan import HandCard, ScanResult, normalize_code

TABLE_CARDS = None
"""The owner of the cards in the middle of the table, in every method that takes an owner."""

Owner = str | None


def scan_meta(scan: ScanResult, scan_id: int | None, photo: str | None) -> dict[str, Any]:
    """What a round keeps of a scan: its record id, photo file, size, the cards as read and their groups."""
    return {
        "scan_id": scan_id,
        "photo": photo,
        "width": scan.width,
        "height": scan.height,
        "cards": [c.to_dict() for c in scan.cards],
        "groups": [list(g) for g in scan.groups],
    }


class CardEditing:
    """The card piles of a round and every edit of them. Subclasses hold ``piles`` (owner -> cards or None),
    ``table_cards`` (the middle of the table) and ``message``, and say who may hold cards (``owners``) and
    what a scan puts where (``_take_scan``)."""

    piles: dict[str, list[HandCard] | None]
    table_cards: list[HandCard]
    message: str | None

    @property
    def owners(self) -> tuple[str, ...]:  # pragma: no cover - every flow says who holds cards
        raise NotImplementedError

    def _not_an_owner(self, owner: str) -> str:
        return f"{owner!r} holds no cards in this round (holders: {', '.join(self.owners)})"

    def _check_owner(self, owner: str) -> None:
        if owner not in self.owners:
            raise ValueError(self._not_an_owner(owner))

    def pile(self, owner: Owner) -> list[HandCard]:
        """The cards of ``owner`` (the table's for None), made empty if nothing was entered yet."""
        if owner is TABLE_CARDS:
            return self.table_cards
        self._check_owner(owner)
        cards = self.piles.get(owner)
        if cards is None:
            cards = []
            self.piles[owner] = cards
        return cards

    def card(self, owner: Owner, index: int) -> HandCard:
        cards = self.pile(owner)
        if not 0 <= index < len(cards):
            who = "the table" if owner is None else repr(owner)
            raise ValueError(f"{who} has no card {index + 1} (holds {len(cards)})")
        return cards[index]

    def set_card(self, owner: Owner, index: int, code: str) -> None:
        """The card is ``code`` (a player fixed it): it keeps its place on the photo and is no longer in
        doubt."""
        self.pile(owner)[index] = self.card(owner, index).fixed_as(normalize_code(code))

    def confirm_card(self, owner: Owner, index: int) -> None:
        """The card is what the camera read (a player looked)."""
        self.set_card(owner, index, self.card(owner, index).code)

    def add_card(self, owner: Owner, code: str) -> None:
        self.pile(owner).append(HandCard(normalize_code(code), fixed=True))

    def remove_card(self, owner: Owner, index: int) -> HandCard:
        card = self.card(owner, index)
        del self.pile(owner)[index]
        return card

    def move_card(self, owner: Owner, index: int, to: Owner) -> None:
        """Give the card to another owner (or to the table): it keeps its code, box and doubt."""
        if to is not TABLE_CARDS:
            self._check_owner(to)
        if to == owner:
            return
        card = self.remove_card(owner, index)
        self.pile(to).append(card)

    def type_cards(self, owner: str, codes: Sequence[str]) -> None:
        """Replace an owner's cards with typed ones (no camera)."""
        self._check_owner(owner)
        self.piles[owner] = [HandCard(normalize_code(c), fixed=True) for c in codes]

    def confirm_all(self) -> None:
        """Every card in doubt is as read (the players scored without changing it)."""
        for owner, cards in self.piles.items():
            if cards:
                self.piles[owner] = [c.fixed_as(c.code) for c in cards]

    @property
    def uncertain_left(self) -> int:
        """Cards still in doubt that count (the table's cards are not scored)."""
        return sum(1 for cards in self.piles.values() if cards for c in cards if c.needs_look)

    def apply_scan(
        self, scan: ScanResult, scan_id: int | None = None, photo: str | None = None
    ) -> dict[str, Any] | None:
        """Put a scan's cards where they belong and return the round's note of the scan (:func:`scan_meta`;
        its record id and photo are filled in when the scan is kept); a camera that gave no photo changes
        nothing (the screen offers a retry), returns None, and its message is kept to show."""
        self.message = scan.error
        if scan.camera_failed:
            return None
        meta = scan_meta(scan, scan_id, photo)
        self._take_scan(scan, meta)
        return meta

    def _take_scan(self, scan: ScanResult, meta: dict[str, Any]) -> None:  # pragma: no cover - per flow
        raise NotImplementedError
