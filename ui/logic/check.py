"""The check screen, as plain Python: every hand (or team pile) with its total, the table's cards, each card
outlined in its holder's colour on the photo, and what tapping a card offers.

A round's flow (:class:`~ui.logic.jhyap_round.JhyapRoundFlow` or :class:`~ui.logic.seep_deal.SeepDealFlow`)
is turned into a :class:`CheckView`: one :class:`CheckRow` per holder in seating (or team) order, a row
for the cards in the middle of the table when there are any, and a :class:`CardMark` per card with its
place on the photo. :func:`card_choices` is the one-tap menu of a card: the codes the camera also saw, and
"move to <player>" or "to the table".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scorer import ScorerError
from ui.i18n import _
from ui.logic import games
from ui.logic.card_edit import TABLE_CARDS, CardEditing, Owner
from ui.logic.jhyap_round import JhyapRoundFlow
from ui.logic.scan import JOKER, Box, HandCard, card_label
from ui.logic.seep_deal import SeepDealFlow

TABLE_COLOUR = -1
"""The colour index of the table's cards (the screen draws them grey)."""


@dataclass(frozen=True)
class CardMark:
    """One card as the check screen shows it, in a row and (with a box) on the photo."""

    owner: Owner
    index: int
    code: str
    colour: int  # the holder's colour index (seating order), TABLE_COLOUR for the table
    doubtful: bool  # the camera was unsure and no player has looked yet
    flagged: bool  # more copies than the packs in play hold, beyond the hand limit, or a joker in Seep
    box: Box | None

    @property
    def label(self) -> str:
        return card_label(self.code)


@dataclass(frozen=True)
class CheckRow:
    owner: Owner
    title: str
    colour: int
    cards: tuple[CardMark, ...]
    total: int | None  # None: nothing entered yet, or the table (not scored)
    is_caller: bool = False
    entered: bool = True

    @property
    def doubtful(self) -> int:
        return sum(1 for c in self.cards if c.doubtful)


@dataclass(frozen=True)
class CheckView:
    rows: tuple[CheckRow, ...]
    photo: dict[str, Any] | None  # the scan shown: photo file, width, height

    @property
    def marks(self) -> tuple[CardMark, ...]:
        """Every card with a place on the photo."""
        return tuple(c for r in self.rows for c in r.cards if c.box is not None)

    @property
    def doubtful(self) -> int:
        return sum(r.doubtful for r in self.rows if r.owner is not TABLE_CARDS)

    def row(self, owner: Owner) -> CheckRow:
        return next(r for r in self.rows if r.owner == owner)


@dataclass(frozen=True)
class CardChoices:
    """What tapping a card offers, each one tap: another code the camera saw there, or another holder."""

    mark: CardMark
    alternatives: tuple[str, ...]
    move_to: tuple[tuple[Owner, str], ...]  # (holder, button text)


def _marks(
    owner: Owner,
    cards: list[HandCard] | None,
    colour: int,
    over: set[str],
    extra: frozenset[int] = frozenset(),
) -> tuple[CardMark, ...]:
    """``extra``: positions of cards beyond the hand limit, flagged like cards beyond the packs."""
    return tuple(
        CardMark(owner, i, c.code, colour, c.needs_look, c.code in over or i in extra, c.box)
        for i, c in enumerate(cards or [])
    )


def _table_row(flow: CardEditing) -> tuple[CheckRow, ...]:
    if not flow.table_cards:
        return ()
    return (
        CheckRow(
            TABLE_CARDS, _("Table"), TABLE_COLOUR, _marks(None, flow.table_cards, TABLE_COLOUR, set()), None
        ),
    )


def jhyap_view(flow: JhyapRoundFlow) -> CheckView:
    codes = flow.codes()
    over = games.over_decks(codes, flow.decks)
    rows = []
    for p in flow.active:
        hand = flow.hands.get(p)
        rows.append(
            CheckRow(
                owner=p,
                title=p,
                colour=flow.players.index(p),
                cards=_marks(p, hand, flow.players.index(p), over, flow.extra_cards(p)),
                total=games.hand_total(codes[p]) if hand else None,  # no cards yet: no total
                is_caller=p == flow.caller,
                entered=hand is not None,
            )
        )
    photo = flow.table_scan
    if photo is None and flow.player_scans:
        photo = list(flow.player_scans.values())[-1]
    return CheckView((*rows, *_table_row(flow)), photo)


def seep_view(flow: SeepDealFlow) -> CheckView:
    # Flagged: a card listed twice, and a joker (Seep is played without them: the deal's problems say so).
    doubled = {*flow.doubled(), *((JOKER,) if flow.jokers() else ())}
    rows = []
    for k, (team, members) in enumerate(flow.teams.items()):
        cards = flow.captured.get(team)
        try:
            points = games.seep_card_points([c.code for c in cards]) if cards is not None else None
        except ScorerError:
            points = None  # a card Seep has no use for (a joker): the deal's problems say which
        rows.append(
            CheckRow(
                team,
                " & ".join(members),
                k,
                _marks(team, cards, k, doubled),
                points,
                entered=cards is not None,
            )
        )
    photo = flow.scans.get("both") or (list(flow.scans.values())[-1] if flow.scans else None)
    return CheckView((*rows, *_table_row(flow)), photo)


def card_choices(flow: CardEditing, view: CheckView, owner: Owner, index: int) -> CardChoices:
    """The one-tap menu of a card: up to three other codes the camera saw there, then every other holder
    and the table."""
    mark = view.row(owner).cards[index]
    card = flow.card(owner, index)
    alternatives = tuple(a for a in card.alternatives if a != card.code)[:3]
    move: list[tuple[Owner, str]] = [
        (r.owner, _("To {name}").format(name=r.title))
        for r in view.rows
        if r.owner is not TABLE_CARDS and r.owner != owner
    ]
    if owner is not TABLE_CARDS:
        move.append((TABLE_CARDS, _("To the table")))
    return CardChoices(mark, alternatives, tuple(move))


FINGER = 48.0
"""The smallest card a finger can tap, in pixels."""


def fit_chips(
    n: int, width: float, height: float, natural: float, tallest: float = 56.0, gap: float = 4.0
) -> tuple[float, float, int]:
    """Width, height and number per line of ``n`` card chips in a ``width`` x ``height`` row, so that every
    card of a hand shows without scrolling: one line of chips at their natural width when it fits, else
    narrower ones (down to a fingertip, 48 px), else more lines of shorter ones (down to 40 px tall)."""
    if n <= 0:
        return natural, min(height, tallest), 1
    for lines in range(1, n + 1):
        per = math.ceil(n / lines)
        h = min(tallest, (height - (lines - 1) * gap) / lines)
        w = min(natural, (width + gap) / per - gap)
        if w >= FINGER:
            return w, max(h, 40.0), per
        if (height - lines * gap) / (lines + 1) < 40:
            return max(w, 1.0), max(h, 40.0), per  # no room for another line: as narrow as it takes
    return max((width + gap) / n - gap, 1.0), 40.0, n
