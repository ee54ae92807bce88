"""Game nights: the games of one night (06:00 to 06:00, :func:`~ui.store.files.night_of`) and whether the
players said good night. A night is its games; the record keeps only when it was ended."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from ui.store.files import night_of
from ui.store.values import GameRecord


@dataclass(frozen=True)
class Night:
    """One night: its date (the evening it began), its games oldest first, and when it was ended (the
    "Good night" tap, or the story shown at the next night's first game); None while it is open."""

    date: dt.date
    games: tuple[GameRecord, ...]
    ended: dt.datetime | None


def group_nights(games: Sequence[GameRecord], ended: dict[dt.date, dt.datetime]) -> list[Night]:
    """``games`` grouped by night, the most recent night first."""
    by_night: dict[dt.date, list[GameRecord]] = {}
    for game in games:
        by_night.setdefault(night_of(game.created), []).append(game)
    return [
        Night(date, tuple(sorted(found, key=lambda g: g.id)), ended.get(date))
        for date, found in sorted(by_night.items(), reverse=True)
    ]


def ended_nights(db: sqlite3.Connection) -> dict[dt.date, dt.datetime]:
    return {
        dt.date.fromisoformat(night): dt.datetime.fromisoformat(ended)
        for night, ended in db.execute("SELECT night, ended FROM nights")
    }


def end_night(db: sqlite3.Connection, night: dt.date, stamp: str) -> None:
    """Note that ``night`` was ended (the first time only)."""
    db.execute("INSERT OR IGNORE INTO nights(night, ended) VALUES (?, ?)", (night.isoformat(), stamp))
