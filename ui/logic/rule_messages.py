"""The rules engine's refusals, in the players' words and language.

The scorer (pure, English, no I/O) explains a refused round or deal in one sentence that names the round
and the bad input, e.g. ``round 3: caller Asha's hand totals 7, over the call limit of 5``. The kiosk shows
the refusals a table can actually run into (too many copies of a card, a caller above the limit, a hand
above the hand limit, a joker or a doubled card in Seep, missing point cards, two first-play sweeps) as a
translated sentence with the same facts; anything else is shown as the scorer wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ui.i18n import _, ngettext, num
from ui.logic.scan import card_label


def _cards(codes: str) -> str:
    return " ".join(card_label(code) for code in codes.split())


def _over_decks(m: re.Match[str]) -> str:
    decks = int(m["decks"] or 1)
    copies = int(m["copies"])
    text = ngettext(
        "{card} appears {count} times across the hands, but {decks} deck holds only {copies}.",
        "{card} appears {count} times across the hands, but {decks} decks hold only {copies}.",
        decks,
    )
    return text.format(
        card=card_label(m["card"]), count=num(m["count"]), decks=num(decks), copies=num(copies)
    )


def _call_limit(m: re.Match[str]) -> str:
    return _("{caller} called with {total} in hand, over the call limit of {limit}.").format(
        caller=m["caller"], total=num(m["total"]), limit=num(m["limit"])
    )


def _hand_limit(m: re.Match[str]) -> str:
    return _("{player}'s hand holds {count} cards, over the hand limit of {limit}.").format(
        player=m["player"], count=num(m["count"]), limit=num(m["limit"])
    )


def _joker(m: re.Match[str]) -> str:
    return _("Team {team} has a joker, but Seep is played without jokers.").format(team=m["team"])


def _twice(m: re.Match[str]) -> str:
    return _("Cards listed twice: {cards}.").format(cards=_cards(m["cards"]))


def _missing(m: re.Match[str]) -> str:
    return _("Point cards missing from both teams: {cards}.").format(cards=_cards(m["cards"]))


def _first_sweeps(m: re.Match[str]) -> str:
    return _("{n} sweeps on the first play, but a deal has only one first play.").format(n=num(m["n"]))


def _last_sweeps(m: re.Match[str]) -> str:
    return _("{n} sweeps on the last play, but a deal has only one last play.").format(n=num(m["n"]))


_WHERE = r"^(?:round|deal) \d+: "
_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(
            _WHERE + r"(?P<card>\S+) appears (?P<count>\d+) times across the hands, "
            r"but (?:1 deck holds|(?P<decks>\d+) decks hold) only (?P<copies>\d+)$"
        ),
        _over_decks,
    ),
    (
        re.compile(
            _WHERE
            + r"caller (?P<caller>.+)'s hand totals (?P<total>\d+), over the call limit of (?P<limit>\d+)$"
        ),
        _call_limit,
    ),
    (
        re.compile(
            _WHERE
            + r"(?P<player>.+)'s hand holds (?P<count>\d+) cards, over the hand limit of (?P<limit>\d+)"
        ),
        _hand_limit,
    ),
    (re.compile(_WHERE + r"team (?P<team>\S+) captured a joker, but Seep is played without jokers$"), _joker),
    (re.compile(_WHERE + r"cards listed twice: (?P<cards>.+)$"), _twice),
    (re.compile(_WHERE + r"point cards missing from both teams' captures: (?P<cards>.+)$"), _missing),
    (
        re.compile(_WHERE + r"(?P<n>\d+) sweeps on the first play; a deal has only one first play$"),
        _first_sweeps,
    ),
    (
        re.compile(_WHERE + r"(?P<n>\d+) sweeps on the last play; a deal has only one last play$"),
        _last_sweeps,
    ),
)


def explain(message: str) -> str:
    """The scorer's refusal `message` as the kiosk shows it, in the language in use."""
    for pattern, say in _RULES:
        m = pattern.match(message)
        if m:
            return say(m)
    return message
