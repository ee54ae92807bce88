"""The record's value types (a game, its draft, a scan) and the fold of a game's events into its log."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from ui.store.faults import StoreError


class GameStatus(Enum):
    PLAYING = "playing"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class EventAction(Enum):
    ADD = "add"
    UNDO = "undo"
    EDIT = "edit"


@dataclass(frozen=True)
class GameRecord:
    """One game as recorded: its definition, the confirmed rounds (Jhyap) or deals (Seep), its status."""

    id: int
    kind: str
    definition: Mapping[str, Any]
    entries: tuple[Mapping[str, Any], ...]
    status: GameStatus
    winner: str | None
    created: dt.datetime
    ended: dt.datetime | None

    @property
    def entries_key(self) -> str:
        return "rounds" if self.kind == "jhyap" else "deals"

    def log(self) -> dict[str, Any]:
        """The scorer's JSON game log of this game (what ``tabletally replay`` accepts)."""
        data = dict(self.definition)
        data[self.entries_key] = [dict(e) for e in self.entries]
        return data

    @property
    def names(self) -> tuple[str, ...]:
        if self.kind == "jhyap":
            return tuple(self.definition["players"])
        teams = self.definition["teams"]
        return tuple(teams["A"]) + tuple(teams["B"])


@dataclass(frozen=True)
class Draft:
    game_id: int
    screen: str
    state: Mapping[str, Any]
    updated: dt.datetime


@dataclass(frozen=True)
class ScanRecord:
    id: int
    game_id: int
    entry_number: int
    target: str
    photo: Path | None
    detected: Any
    confirmed: Any
    created: dt.datetime


def fold_events(events: Sequence[tuple[str, int | None, Any]]) -> list[Any]:
    """The current list of entries after applying add / undo / edit events in order."""
    entries: list[Any] = []
    for action, position, payload in events:
        if action == EventAction.ADD.value:
            entries.append(payload)
        elif action == EventAction.UNDO.value:
            if entries:
                entries.pop()
        elif action == EventAction.EDIT.value:
            if position is None or not 0 <= position < len(entries):
                raise StoreError(f"edit of entry {position} but the game has {len(entries)} entries")
            entries[position] = payload
        else:
            raise StoreError(f"unknown event action {action!r}")
    return entries
