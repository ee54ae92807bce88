"""The record's schema, and the check that a file is a sound TableTally record before anything is written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ui.store.faults import Fault, RecordFault, as_fault

SCHEMA_VERSION = 2  # 2: players, their seats in each game, the nights said good night to
APPLICATION_ID = 0x54546C79  # "TTly": PRAGMA application_id of every TableTally record

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('jhyap', 'seep')),
    definition TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished', 'abandoned')),
    winner TEXT,
    created TEXT NOT NULL,
    ended TEXT
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    action TEXT NOT NULL CHECK (action IN ('add', 'undo', 'edit')),
    position INTEGER,
    payload TEXT,
    created TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id, id);
CREATE TABLE IF NOT EXISTS drafts (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    screen TEXT NOT NULL,
    state TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS scans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    entry_number INTEGER NOT NULL,
    target TEXT NOT NULL,
    photo TEXT,
    detected TEXT NOT NULL,
    confirmed TEXT,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS seats_player ON seats(player_id);
CREATE TABLE IF NOT EXISTS nights (night TEXT PRIMARY KEY, ended TEXT NOT NULL);
"""
GAME_COLS = "id, kind, definition, status, winner, created, ended"
SCAN_COLS = "id, game_id, entry_number, target, photo, detected, confirmed, created"
EVENTS_OF = "SELECT action, position, payload FROM events WHERE game_id = ? ORDER BY id"
EVENT_INSERT = "INSERT INTO events(game_id, action, position, payload, created) VALUES (?, ?, ?, ?, ?)"

_GAMES_COLUMNS = {"id", "kind", "definition", "status", "winner", "created", "ended"}


def check_record(db: sqlite3.Connection, path: Path) -> None:
    """Refuse, by reading only, a file that is not a sound TableTally record of this version or older.

    Raises :class:`RecordFault`: ``CORRUPT`` (not a database, or damaged pages), ``FOREIGN`` (another
    program's database: a different application id, or no TableTally tables), ``NEWER`` (a higher
    schema_version). A database without any table is a fresh record.
    """
    try:
        app_id = int(db.execute("PRAGMA application_id").fetchone()[0])
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app_id not in (0, APPLICATION_ID):
            raise RecordFault(
                Fault.FOREIGN, path, f"a database of another program (application id {app_id:#x})"
            )
        if not tables:
            return
        if "meta" not in tables or "games" not in tables:
            others = ", ".join(sorted(t for t in tables if not t.startswith("sqlite_"))[:5])
            raise RecordFault(Fault.FOREIGN, path, f"a database of another program (tables: {others})")
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        if not columns >= _GAMES_COLUMNS:
            missing = ", ".join(sorted(_GAMES_COLUMNS - columns))
            raise RecordFault(
                Fault.FOREIGN, path, f"a database of another program (its games table has no {missing})"
            )
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            raise RecordFault(Fault.FOREIGN, path, "a database of another program (no schema_version)")
        try:
            version = int(row[0])
        except (TypeError, ValueError):
            raise RecordFault(Fault.FOREIGN, path, f"schema_version {row[0]!r} is not a number") from None
        if version > SCHEMA_VERSION:
            raise RecordFault(
                Fault.NEWER,
                path,
                f"written by a newer TableTally (schema_version {version}; this one reads {SCHEMA_VERSION})",
            )
        problems = [r[0] for r in db.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise RecordFault(Fault.CORRUPT, path, "damaged pages: " + "; ".join(problems)[:300])
    except sqlite3.Error as exc:
        raise as_fault(exc, path, "cannot open the record") from exc
