"""The Jhyap round screen, as plain Python: caller, scans, hands, fixes, checks, confirm.

The flow holds what the players have said so far about the round being played (or an earlier round being
edited). It serialises to a dict (the kiosk's draft) so a restart resumes it exactly. Hand totals, the call
limit and the deck check all come from the scorer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from scorer import JhyapState, ScorerError
from ui.i18n import _, ngettext, num
from ui.logic import games
from ui.logic.card_edit import CardEditing
from ui.logic.rule_messages import over_hand_limit
from ui.logic.scan import HandCard, ScanResult, normalize_code
from vision.table.seats import SeatError, SeatMap, assign_to_seats

TABLE = "table"


def _typed(codes: Sequence[str]) -> list[HandCard]:
    return [HandCard(code=normalize_code(c), fixed=True) for c in codes]


def order_groups_clockwise(scan: ScanResult) -> list[int]:
    """Detector groups ordered clockwise around the photo's centre, starting at the bottom (nearest the
    camera's lower edge). Seats around a table follow the same order."""
    cx, cy = scan.width / 2, scan.height / 2

    def angle(group: Sequence[int]) -> float:
        boxes = [scan.cards[i].box for i in group if scan.cards[i].box]
        if not boxes:
            return 0.0
        x = sum((b[0] + b[2]) / 2 for b in boxes if b) / len(boxes)
        y = sum((b[1] + b[3]) / 2 for b in boxes if b) / len(boxes)
        # Image y points down; 0 is straight down, clockwise as seen on screen. The bottom seat spans +-45
        # degrees, so start counting 45 degrees before it.
        return (math.atan2(-(x - cx), y - cy) + math.pi / 4) % (2 * math.pi)

    return sorted(range(len(scan.groups)), key=lambda g: angle(scan.groups[g]))


class JhyapRoundFlow(CardEditing):
    """One Jhyap round being entered. ``log`` is the game log (the scorer's format) before this round.

    With the night's seats known (``seat_map``, one seat per player in seating order), a whole-table scan
    gives each card to the player it lies in front of and the cards in the middle to the table; without,
    the photo's clusters go to players clockwise from the bottom (``order_groups_clockwise``)."""

    def __init__(self, log: Mapping[str, Any], edit_position: int | None = None) -> None:
        self.log = dict(log)
        self.edit_position = edit_position
        before = dict(log)
        if edit_position is not None:
            before["rounds"] = list(log["rounds"])[:edit_position]
        self.before: JhyapState = games.jhyap_state(before)
        self.players: tuple[str, ...] = tuple(log["players"])
        self.active: tuple[str, ...] = self.before.active
        self.decks = games.deck_count(log)
        self.caller: str | None = None
        self.caller_guessed = False  # the caller was preselected (the only hand at or under the limit)
        self.hands: dict[str, list[HandCard] | None] = {p: None for p in self.active}
        self.table_cards: list[HandCard] = []
        self.seat_map: SeatMap | None = None
        self.mode = TABLE
        # The whole-table scan: its cards and groups, which group is whose, and the photo on disk.
        self.table_scan: dict[str, Any] | None = None
        self.player_scans: dict[str, dict[str, Any]] = {}
        self.seat_anchor: str | None = None
        self.seats_confirmed = False
        self.message: str | None = None
        if edit_position is not None:
            old = log["rounds"][edit_position]
            self.caller = old["caller"]
            self.hands = {p: _typed(old["hands"].get(p, [])) for p in self.active}

    # -- who deals, who starts ------------------------------------------------------------------------
    @property
    def number(self) -> int:
        return len(self.before.rounds) + 1

    @property
    def dealer(self) -> str | None:
        return self.before.next_dealer

    @property
    def starter(self) -> str | None:
        return self.before.next_starter

    @property
    def finished(self) -> bool:
        return self.before.finished

    # -- the caller -------------------------------------------------------------------------------------
    def pick_caller(self, player: str) -> None:
        if player not in self.active:
            raise ValueError(f"{player!r} is not playing this round (active: {', '.join(self.active)})")
        self.caller = player
        self.caller_guessed = False

    @property
    def call_limit(self) -> int:
        return int(games.jhyap_game(self.log).rules.call_limit)

    @property
    def hand_limit(self) -> int:
        return int(games.jhyap_game(self.log).rules.hand_limit)

    def extra_cards(self, player: str) -> frozenset[int]:
        """Positions of the cards in ``player``'s hand beyond the hand limit, the ones most likely not held
        (a card of the floor or the pile in the photo): cards no player has fixed before fixed ones, the
        camera's least sure first, then the last read. Empty when the hand is within the limit."""
        hand = self.hands.get(player) or []
        over = len(hand) - self.hand_limit
        if over <= 0:
            return frozenset()
        ranked = sorted(
            range(len(hand)),
            key=lambda i: (hand[i].fixed, hand[i].confidence if hand[i].confidence is not None else 1.0, -i),
        )
        return frozenset(ranked[:over])

    def _guess_caller(self) -> None:
        """Preselect the caller when exactly one hand is at or under the call limit (a tap saved)."""
        if self.caller is not None and not self.caller_guessed:
            return
        limit = self.call_limit
        low = [
            p for p in self.active if self.hands.get(p) and (games.hand_total(self.codes()[p]) or 0) <= limit
        ]
        self.caller = low[0] if len(low) == 1 else None
        self.caller_guessed = self.caller is not None

    # -- the card holders (ui.logic.card_edit) -----------------------------------------------------------
    @property
    def owners(self) -> tuple[str, ...]:
        return self.active

    @property
    def piles(self) -> dict[str, list[HandCard] | None]:  # type: ignore[override]
        return self.hands

    def _not_an_owner(self, owner: str) -> str:
        return f"{owner!r} is not playing this round"

    # -- scans -----------------------------------------------------------------------------------------------
    def _take_scan(self, scan: ScanResult, meta: dict[str, Any]) -> None:
        """Put a scan's cards into the hands: a whole-table scan by seat, a player scan into that hand."""
        if scan.target == TABLE:
            self.table_scan = meta
            seats = self._active_seats()
            if seats is not None:
                boxes = [c.box for c in scan.cards]
                if all(boxes):
                    meta["seat_of"] = assign_to_seats(boxes, seats, scan.width, scan.height)  # type: ignore[arg-type]
            if "seat_of" not in meta:
                meta["order"] = order_groups_clockwise(scan)
            self._assign_table()
        else:
            if scan.target not in self.active:
                raise ValueError(f"scan for {scan.target!r}, who is not playing this round")
            self.player_scans[scan.target] = meta
            if scan.cards or self.hands.get(scan.target) is None:
                self.hands[scan.target] = list(scan.cards)
        self._guess_caller()

    def _active_seats(self) -> SeatMap | None:
        """The night's seats of the players still in, in seating order; None without seats."""
        if self.seat_map is None or len(self.seat_map) != len(self.players) or len(self.active) < 2:
            return None
        try:
            return self.seat_map.only([self.players.index(p) for p in self.active])
        except SeatError:
            return None

    @property
    def seated(self) -> bool:
        """Whether the table scan's cards went to seats (not to clusters)."""
        return bool(self.table_scan and "seat_of" in self.table_scan)

    @property
    def seat_order(self) -> list[str]:
        """Active players in seating order starting with the one whose hand lies nearest the bottom."""
        anchor = self.seat_anchor if self.seat_anchor in self.players else self.players[0]
        start = self.players.index(anchor)
        ring = [self.players[(start + i) % len(self.players)] for i in range(len(self.players))]
        return [p for p in ring if p in self.active]

    def group_owners(self) -> list[tuple[int, str | None]]:
        """(group index, player) for each group of the table scan, in clockwise order."""
        if not self.table_scan:
            return []
        order = self.table_scan["order"]
        seats = self.seat_order
        return [(g, seats[i] if i < len(seats) else None) for i, g in enumerate(order)]

    def _assign_table(self) -> None:
        if not self.table_scan:
            return
        cards = [HandCard.from_dict(c) for c in self.table_scan["cards"]]
        if "seat_of" in self.table_scan:
            self.table_cards = []
            for p in self.active:
                self.hands[p] = []
            for card, seat in zip(cards, self.table_scan["seat_of"], strict=True):
                if seat is None:
                    self.table_cards.append(card)
                else:
                    self.hands[self.active[seat]].append(card)  # type: ignore[union-attr]
            return
        groups = self.table_scan["groups"]
        assigned = set()
        for g, player in self.group_owners():
            if player is None:
                continue
            self.hands[player] = [cards[i] for i in groups[g]]
            assigned.add(player)
        if cards and len(groups) != len(self.active) and not self.message:
            shown = ngettext(
                "The photo shows {n} hand for {players} players:",
                "The photo shows {n} hands for {players} players:",
                len(groups),
            ).format(n=num(len(groups)), players=num(len(self.active)))
            self.message = shown + " " + _("check whose is whose, or scan players one at a time.")

    def confirm_seats(self) -> None:
        self.seats_confirmed = True

    def swap_hands(self, player: str, other: str) -> None:
        """Exchange two players' hands (the table scan gave each the other's cards)."""
        self._check_playing(player, other)
        if player == other:
            raise ValueError(f"cannot swap {player!r}'s hand with itself")
        a, b = self.hands.get(player), self.hands.get(other)
        self.hands[player], self.hands[other] = b, a

    @property
    def needs_seat_confirm(self) -> bool:
        return (
            self.table_scan is not None
            and not self.seated
            and bool(self.table_scan["groups"])
            and not self.seats_confirmed
        )

    # -- fixing cards (the edits themselves are ui.logic.card_edit's) ----------------------------------------
    def _check_playing(self, *players: str) -> None:
        for p in players:
            self._check_owner(p)

    type_hand = CardEditing.type_cards

    # -- what the screen shows -----------------------------------------------------------------------
    def codes(self) -> dict[str, list[str]]:
        return {p: [c.code for c in (self.hands.get(p) or [])] for p in self.active}

    def problems(self) -> list[str]:
        """Everything that stops this round from being scored, in the words the players will read."""
        out: list[str] = []
        if self.caller is None:
            out.append(_("Pick who called Jhyap."))
        missing = [p for p in self.active if not self.hands.get(p)]
        if missing:
            out.append(_("No cards yet for {players}.").format(players=", ".join(missing)))
        if out:
            return out
        error = self.check()
        if error:
            over = {p: len(self.hands.get(p) or []) for p in self.active if self.extra_cards(p)}
            if len(over) > 1:  # the scorer names the first hand over the limit: name them all
                error = over_hand_limit(over, self.hand_limit)
            if over:  # ask, in the line the check screen shows
                error += " " + _(
                    "Is a card from the table in the photo? Remove the marked card, or fix the hand."
                )
            out.append(error)
        return out

    def check(self) -> str | None:
        if self.caller is None:
            return _("Pick who called Jhyap.")
        entry = self.entry()
        if self.edit_position is None:
            return games.check_jhyap_entry(self.log, entry)
        return games.check_jhyap_entry(self.log, entry, self.edit_position)

    @property
    def ready(self) -> bool:
        return not self.problems()

    def entry(self) -> dict[str, Any]:
        if self.caller is None:
            raise ValueError("no caller picked yet")
        return games.jhyap_entry(self.caller, self.codes())

    def preview(self) -> JhyapState | None:
        if self.caller is None or self.problems():
            return None
        if self.edit_position is None:
            return games.jhyap_preview(self.log, self.entry())
        rounds = list(self.log["rounds"])
        rounds[self.edit_position] = self.entry()
        try:
            return games.jhyap_state({**self.log, "rounds": rounds})
        except ScorerError:
            return None

    # -- the draft --------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "edit_position": self.edit_position,
            "caller": self.caller,
            "hands": {p: [c.to_dict() for c in h] if h is not None else None for p, h in self.hands.items()},
            "mode": self.mode,
            "table_scan": self.table_scan,
            "player_scans": self.player_scans,
            "seat_anchor": self.seat_anchor,
            "seats_confirmed": self.seats_confirmed,
            "message": self.message,
            "table_cards": [c.to_dict() for c in self.table_cards],
            "seat_map": self.seat_map.to_json() if self.seat_map else None,
            "caller_guessed": self.caller_guessed,
        }

    @classmethod
    def from_dict(cls, log: Mapping[str, Any], data: Mapping[str, Any]) -> JhyapRoundFlow:
        flow = cls(log, data.get("edit_position"))
        flow.caller = data.get("caller")
        for player, cards in dict(data.get("hands", {})).items():
            if player in flow.active:
                flow.hands[player] = [HandCard.from_dict(c) for c in cards] if cards is not None else None
        flow.mode = data.get("mode", TABLE)
        flow.table_scan = data.get("table_scan")
        flow.player_scans = dict(data.get("player_scans", {}))
        flow.seat_anchor = data.get("seat_anchor")
        flow.seats_confirmed = bool(data.get("seats_confirmed", False))
        flow.message = data.get("message")
        flow.table_cards = [HandCard.from_dict(c) for c in data.get("table_cards", [])]
        flow.caller_guessed = bool(data.get("caller_guessed", False))
        if data.get("seat_map"):
            try:
                flow.seat_map = SeatMap.from_json(data["seat_map"])
            except SeatError:
                flow.seat_map = None
        return flow

    def scan_ids(self) -> list[tuple[int, str]]:
        """(scan id, target) of the scans whose cards are in this round, for recording what was confirmed."""
        out = []
        if self.table_scan and self.table_scan.get("scan_id") is not None:
            out.append((int(self.table_scan["scan_id"]), TABLE))
        for player, meta in self.player_scans.items():
            if meta.get("scan_id") is not None:
                out.append((int(meta["scan_id"]), player))
        return out
