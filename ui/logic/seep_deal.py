"""The Seep deal screen, as plain Python: sweeps during play, then the point cards of one team or both.

A team's scan holds its captured point cards (spades, aces, the ten of diamonds); when only one team is
scanned the scorer gives the other team everything else. With both scanned, the 100-point check names the
missing (or doubled) cards. All points come from the scorer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorer.cards import ScorerError
from ui.i18n import _
from ui.logic import games
from ui.logic.scan import HandCard, ScanResult, normalize_code


class SeepDealFlow:
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
        return {kind: sum(1 for t, w in self.sweeps if t == team and w == kind) for kind in games.SWEEP_KINDS}

    # -- the point cards ----------------------------------------------------------------------------------
    def apply_scan(self, scan: ScanResult, scan_id: int | None = None, photo: str | None = None) -> None:
        if scan.target not in self.teams:
            raise ValueError(f"scan for {scan.target!r}, which is not a team")
        self.message = scan.error
        if scan.camera_failed:
            return
        self.scans[scan.target] = {
            "scan_id": scan_id,
            "photo": photo,
            "width": scan.width,
            "height": scan.height,
            "cards": [c.to_dict() for c in scan.cards],
        }
        if scan.cards or self.captured.get(scan.target) is None:
            self.captured[scan.target] = list(scan.cards)

    def _cards(self, team: str) -> list[HandCard]:
        if team not in self.teams:
            raise ValueError(f"unknown team {team!r}")
        cards = self.captured.get(team)
        if cards is None:
            cards = []
            self.captured[team] = cards
        return cards

    def set_card(self, team: str, index: int, code: str) -> None:
        cards = self._cards(team)
        old = cards[index]
        cards[index] = old.fixed_as(normalize_code(code))

    def add_card(self, team: str, code: str) -> None:
        self._cards(team).append(HandCard(normalize_code(code), fixed=True))

    def remove_card(self, team: str, index: int) -> None:
        del self._cards(team)[index]

    def type_cards(self, team: str, codes: Sequence[str]) -> None:
        self.captured[team] = [HandCard(normalize_code(c), fixed=True) for c in codes]

    def clear_team(self, team: str) -> None:
        """Forget a team's cards (the scorer then gives that team everything the other did not take)."""
        self.captured[team] = None
        self.scans.pop(team, None)

    def confirm_all(self) -> None:
        for team, cards in self.captured.items():
            if cards:
                self.captured[team] = [c.fixed_as(c.code) for c in cards]

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

    def doubled(self) -> tuple[str, ...]:
        try:
            return games.doubled_cards(self.codes())
        except ScorerError:
            return ()

    def entry(self) -> dict[str, Any]:
        return games.seep_entry(self.codes(), self.sweeps)

    def problems(self) -> list[str]:
        if all(c is None for c in self.captured.values()):
            return [_("Scan one team's point cards (or both).")]
        if self.edit_position is None:
            error = games.check_seep_entry(self.log, self.entry())
        else:
            error = games.check_seep_entry(self.log, self.entry(), self.edit_position)
        return [error] if error else []

    @property
    def uncertain_left(self) -> int:
        return sum(1 for cards in self.captured.values() if cards for c in cards if c.needs_look)

    def preview(self) -> Any | None:
        if self.problems():
            return None
        if self.edit_position is None:
            return games.seep_preview(self.log, self.entry())
        deals = list(self.log["deals"])
        deals[self.edit_position] = self.entry()
        try:
            return games.score({**self.log, "deals": deals})
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
        flow.message = data.get("message")
        return flow

    def scan_ids(self) -> list[tuple[int, str]]:
        return [(int(m["scan_id"]), t) for t, m in self.scans.items() if m.get("scan_id") is not None]
