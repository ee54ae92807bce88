"""How a card is shown on screen: ``10♠``, ``A♥``, ``Joker`` (:func:`card_label`). A module of its own, so the
scan, the rules' messages and the screens all take it from one home without importing each other."""

from __future__ import annotations

from ui.i18n import _

JOKER = "JK"
SUIT_SIGNS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def card_label(code: str) -> str:
    """A card code as shown on screen: 10♠, A♥, Joker."""
    if code == JOKER:
        return _("Joker")
    return code[:-1] + SUIT_SIGNS.get(code[-1], code[-1])
