"""The Seep deal screen, as plain Python: sweeps during play, then the point cards of one team or both.

A team's scan holds its captured point cards (spades, aces, the ten of diamonds); when only one team is
scanned the scorer gives the other team everything else. With both scanned, the 100-point check names the
missing (or doubled) cards. All points come from the scorer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorer import ScorerError, SeepState
from ui.i18n import _
from ui.logic import games
from ui.logic.card_edit import CardEditing
from ui.logic.scan import JOKER, HandCard, ScanResult
from vision.table.seats import SeatError, SeatMap, assign_to_seats

BOTH = "both"
"""The scan target of one photo of both teams' piles, one pile on each half of the table."""
HALVES = SeatMap(((0.5, 0.8), (0.5, 0.2)), middle=0.0)
"""Where the teams' piles lie by default: the first team's on the kiosk's half (the photo's bottom)."""


class SeepDealFlow(CardEditing):
    decks = 1
    """Seep is played with one pack: a scan reads no card twice (``Scanner.scan``)."""

    def __init__(self, log: Mapping[str, Any], edit_position: int | None = None) -> None:
        self.log = dict(log)
        self.edit_position = edit_position
        self.teams: dict[str, tuple[str, ...]] = {t: tuple(m) for t, m in log["teams"].items()}
        self.sweeps: list[tuple[str, str]] = []
        self.captured: dict[str, list[HandCard] | None] = {t: None for t in self.teams}
        self.scans: dict[str, dict[str, Any]] = {}
        self.message: str | None = None
        self.table_cards: list[HandCard] = []
        self.halves = HALVES  # the teams' halves of the table, in team order
        if edit_position is not None:
            old = log["deals"][edit_position]
            for team, cards in old["captured"].items():
                self.captured[team] = [HandCard(code=c, fixed=True) for c in cards]
            self.sweeps = [(s["team"], s.get("when", "normal")) for s in old.get("sweeps", [])]

    @property
    def number(self) -> int:
        return (self.edit_position if self.edit_position is not None else len(self.log["deals"])) + 1

    # -- during play -------------------------------------------------------------------------------------
    def add_sweep(self, team: str, when: str = "normal") -> None:
        if team not in self.teams:
            raise ValueError(f"unknown team {team!r} (teams: {', '.join(self.teams)})")
        if when not in games.SWEEP_KINDS:
            raise ValueError(f"unknown sweep kind {when!r} (expected first, normal or last)")
        self.sweeps.append((team, when))

    def undo_sweep(self) -> None:
        if self.sweeps:
            self.sweeps.pop()

    def sweep_counts(self, team: str) -> dict[str, int]:
        """A team's sweeps by kind (first play, normal, last play)."""
        return {kind: sum(1 for t, w in self.sweeps if t == team and w == kind) for kind in games.SWEEP_KINDS}

    def sweep_total(self, team: str) -> int:
        """A team's sweeps of every kind: the one count the deal's screen shows for the team (its pile's
        row and its Sweep button alike), as the scorer counts each of them."""
        return sum(self.sweep_counts(team).values())

    def can_sweep(self, team: str, when: str = "normal") -> bool:
        """Whether one more sweep of kind ``when`` by ``team`` is possible in this deal (its button is on):
        the scorer's limits on a deal's sweeps (games.seep_sweeps_problem), the counts with every sweep so
        far, and whether ``team`` took cards, as far as the piles are known (another team's sweep that
        does not fit its pile is said by ``problems``, and leaves this button alone)."""
        trial = [*self.sweeps, (team, when)]
        counts = games.seep_sweeps_problem(self.log, {}, trial, self.edit_position)
        cards = games.seep_sweeps_problem(self.log, self.codes(), [(team, when)], self.edit_position)
        return counts is None and cards is None

    # -- the point cards ----------------------------------------------------------------------------------
    @property
    def owners(self) -> tuple[str, ...]:
        return tuple(self.teams)

    @property
    def piles(self) -> dict[str, list[HandCard] | None]:  # type: ignore[override]
        return self.captured

    def _not_an_owner(self, owner: str) -> str:
        return f"unknown team {owner!r} (teams: {', '.join(self.teams)})"

    def _take_scan(self, scan: ScanResult, meta: dict[str, Any]) -> None:
        """One team's pile, or both piles in one photo (``BOTH``): each card to the team whose half of the
        table it lies on."""
        meta.pop("groups", None)
        if scan.target == BOTH:
            teams = list(self.teams)
            boxes = [c.box for c in scan.cards]
            if len(teams) != len(self.halves) or not all(boxes):
                raise ValueError("the photo's cards have no places to split them by")
            halves = assign_to_seats(boxes, self.halves, scan.width, scan.height)  # type: ignore[arg-type]
            meta["seat_of"] = halves
            self.scans[BOTH] = meta
            self.table_cards = []
            for team in teams:
                self.captured[team] = []
            for card, half in zip(scan.cards, halves, strict=True):
                self.pile(None if half is None else teams[half]).append(card)
            return
        if scan.target not in self.teams:
            raise ValueError(f"scan for {scan.target!r}, which is not a team")
        self.scans[scan.target] = meta
        if scan.cards or self.captured.get(scan.target) is None:
            self.captured[scan.target] = list(scan.cards)

    def swap_halves(self) -> None:
        """The teams' piles lie the other way round (the next photo of both is split the other way), and
        the piles already read change teams."""
        self.halves = SeatMap(tuple(reversed(self.halves.seats)), self.halves.centre, self.halves.middle)
        a, b = list(self.teams)
        self.captured[a], self.captured[b] = self.captured[b], self.captured[a]

    def clear_team(self, team: str) -> None:
        """Forget a team's cards (the scorer then gives that team everything the other did not take)."""
        self.captured[team] = None
        self.scans.pop(team, None)

    # -- checks and preview ---------------------------------------------------------------------------
    def codes(self) -> dict[str, list[str] | None]:
        return {t: [c.code for c in v] if v is not None else None for t, v in self.captured.items()}

    @property
    def both_scanned(self) -> bool:
        return all(c is not None for c in self.captured.values())

    def missing(self) -> tuple[str, ...]:
        """Point cards neither team holds, when both teams were scanned."""
        if not self.both_scanned:
            return ()
        try:
            return games.missing_point_cards(self.codes())
        except ScorerError:
            return ()

    def jokers(self) -> tuple[str, ...]:
        """The teams whose pile holds a joker (read or typed: Seep is played without jokers)."""
        return tuple(t for t, cards in self.captured.items() if any(c.code == JOKER for c in cards or []))

    def doubled(self) -> tuple[str, ...]:
        try:
            return games.doubled_cards(self.codes())
        except ScorerError:
            return ()

    def entry(self) -> dict[str, Any]:
        return games.seep_entry(self.codes(), self.sweeps)

    def problems(self) -> list[str]:
        if all(c is None for c in self.captured.values()):
            return [_("Scan both piles, or type a team's point cards.")]
        if self.edit_position is None:
            error = games.check_seep_entry(self.log, self.entry())
        else:
            error = games.check_seep_entry(self.log, self.entry(), self.edit_position)
        return [error] if error else []

    def preview(self) -> SeepState | None:
        if self.problems():
            return None
        if self.edit_position is None:
            return games.seep_preview(self.log, self.entry())
        deals = list(self.log["deals"])
        deals[self.edit_position] = self.entry()
        try:
            return games.seep_state({**self.log, "deals": deals})
        except ScorerError:
            return None

    # -- the draft --------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "edit_position": self.edit_position,
            "sweeps": [list(s) for s in self.sweeps],
            "captured": {
                t: [c.to_dict() for c in v] if v is not None else None for t, v in self.captured.items()
            },
            "scans": self.scans,
            "table_cards": [c.to_dict() for c in self.table_cards],
            "halves": self.halves.to_json(),
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, log: Mapping[str, Any], data: Mapping[str, Any]) -> SeepDealFlow:
        flow = cls(log, data.get("edit_position"))
        flow.sweeps = [(str(t), str(w)) for t, w in data.get("sweeps", [])]
        for team, cards in dict(data.get("captured", {})).items():
            if team in flow.teams:
                flow.captured[team] = [HandCard.from_dict(c) for c in cards] if cards is not None else None
        flow.scans = dict(data.get("scans", {}))
        flow.table_cards = [HandCard.from_dict(c) for c in data.get("table_cards", [])]
        try:
            flow.halves = SeatMap.from_json(data["halves"]) if data.get("halves") else HALVES
        except SeatError:
            flow.halves = HALVES
        flow.message = data.get("message")
        return flow

    def scan_ids(self) -> list[tuple[int, str]]:
        return [(int(m["scan_id"]), t) for t, m in self.scans.items() if m.get("scan_id") is not None]
