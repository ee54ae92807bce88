"""Bringing an older record to this TableTally's schema, in the same transaction that opens it.

Each step turns schema N-1 into N; a record is migrated step by step and its ``schema_version`` set last,
all in one transaction: a kill or a power cut at any moment leaves the old record whole (and the next start
migrates it again) or the new one complete, never a mixture. A newer record is refused before this runs
(:func:`~ui.store.schema.check_record`).

* 1 -> 2: players across nights. Every game's names become players (a name is one player, any case) and
  the game's seats point at them; the nights table starts empty.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ui.store.players import seat_every_game
from ui.store.schema import SCHEMA_VERSION


def _to_2(db: sqlite3.Connection) -> None:
    seat_every_game(db)


STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {2: _to_2}


def migrate(db: sqlite3.Connection) -> int:
    """Bring the record open on ``db`` (its tables already created) to :data:`SCHEMA_VERSION` inside the
    caller's transaction; returns the version it had (a fresh record has this one)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    version = int(row[0]) if row is not None else SCHEMA_VERSION
    for step in range(version + 1, SCHEMA_VERSION + 1):
        STEPS[step](db)
    if row is not None and version == SCHEMA_VERSION:
        return version
    db.execute(
        "INSERT INTO meta(key, value) VALUES ('schema_version', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (str(SCHEMA_VERSION),),
    )
    return version
