"""The game-night record: one SQLite file (stdlib sqlite3, WAL) plus the scan photos beside it.

The record is event-sourced. A game row holds the game's definition (the scorer's JSON game log without its
rounds or deals); every confirmed action is one row in ``events`` (``add`` a round/deal, ``undo`` the
last one, ``edit`` an earlier one), committed in its own transaction the moment the players confirm it. The
current log is the fold of those events, so an edit or an undo never destroys what was there before.
In-progress state (the screen a game is on, the current scan, the cards typed so far) lives in ``drafts`` so
that a restart resumes exactly where the kiosk was. Each scan keeps its photo (a JPEG in ``photos/`` beside
the database), what the detector read and what the players confirmed.

The store never computes a score: it keeps what was confirmed, and the scorer turns it into numbers.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

DB_NAME = "tabletally.sqlite3"
PHOTOS_DIR = "photos"
ENV_DATA_DIR = "TABLETALLY_DATA_DIR"
SCHEMA_VERSION = 1
# A game night runs past midnight: games belong to the night that started at this local hour.
NIGHT_STARTS_HOUR = 6

_SCHEMA = """
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
"""
_GAME_COLS = "id, kind, definition, status, winner, created, ended"
_SCAN_COLS = "id, game_id, entry_number, target, photo, detected, confirmed, created"
_EVENTS_OF = "SELECT action, position, payload FROM events WHERE game_id = ? ORDER BY id"
_EVENT_INSERT = "INSERT INTO events(game_id, action, position, payload, created) VALUES (?, ?, ?, ?, ?)"


class StoreError(Exception):
    """The record cannot be opened or an action on it is not possible (the message says which)."""


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


def default_data_dir() -> Path:
    """$TABLETALLY_DATA_DIR if set, else the per-user data directory (platformdirs)."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("tabletally", appauthor=False))


def night_of(moment: dt.datetime) -> dt.date:
    """The game night a local time belongs to (a night runs from 06:00 to 06:00 the next day)."""
    return (moment - dt.timedelta(hours=NIGHT_STARTS_HOUR)).date()


def _now() -> dt.datetime:
    return dt.datetime.now().replace(microsecond=0)


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


class Store:
    """The SQLite record of every game night. Thread-safe (one connection, one lock)."""

    def __init__(self, data_dir: Path | str, clock: Callable[[], dt.datetime] = _now) -> None:
        self.data_dir = Path(data_dir).expanduser()
        self.clock = clock
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self.photos_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the data directory {self.data_dir}: {exc.strerror}") from exc
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed action survives a power cut, not just a crash of the process.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            with self._tx():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the record {self.path}: {exc}") from exc

    # -- plumbing -----------------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self.data_dir / DB_NAME

    @property
    def photos_dir(self) -> Path:
        return self.data_dir / PHOTOS_DIR

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._db.execute(sql, params).fetchall())

    def _stamp(self) -> str:
        return self.clock().isoformat(timespec="seconds")

    # -- games ----------------------------------------------------------------------------------------
    def create_game(self, kind: str, definition: Mapping[str, Any]) -> int:
        if kind not in ("jhyap", "seep"):
            raise StoreError(f"unknown game kind {kind!r} (expected 'jhyap' or 'seep')")
        definition = {k: v for k, v in definition.items() if k not in ("rounds", "deals")}
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO games(kind, definition, created) VALUES (?, ?, ?)",
                (kind, json.dumps(definition, ensure_ascii=False), self._stamp()),
            )
            return int(cur.lastrowid or 0)

    def game(self, game_id: int) -> GameRecord:
        rows = self._query(f"SELECT {_GAME_COLS} FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise StoreError(f"no game with id {game_id}")
        return self._record(rows[0])

    def _record(self, row: tuple[Any, ...]) -> GameRecord:
        game_id, kind, definition, status, winner, created, ended = row
        events = self._query(_EVENTS_OF, (game_id,))
        entries = fold_events([(a, p, json.loads(x) if x else None) for a, p, x in events])
        return GameRecord(
            id=game_id,
            kind=kind,
            definition=json.loads(definition),
            entries=tuple(entries),
            status=GameStatus(status),
            winner=winner,
            created=dt.datetime.fromisoformat(created),
            ended=dt.datetime.fromisoformat(ended) if ended else None,
        )

    def games(self, since: dt.datetime | None = None) -> list[GameRecord]:
        """Every game (optionally created at or after ``since``), oldest first."""
        if since is None:
            rows = self._query(f"SELECT {_GAME_COLS} FROM games ORDER BY id")
        else:
            rows = self._query(
                f"SELECT {_GAME_COLS} FROM games WHERE created >= ? ORDER BY id",
                (since.isoformat(timespec="seconds"),),
            )
        return [self._record(r) for r in rows]

    def tonight(self) -> list[GameRecord]:
        """The games of the current game night (see :func:`night_of`)."""
        night = night_of(self.clock())
        start = dt.datetime.combine(night, dt.time(NIGHT_STARTS_HOUR))
        return self.games(since=start)

    def unfinished(self) -> list[GameRecord]:
        """Games still being played, most recent first."""
        rows = self._query(f"SELECT {_GAME_COLS} FROM games WHERE status = 'playing' ORDER BY id DESC")
        return [self._record(r) for r in rows]

    def _require_game(self, db: sqlite3.Connection, game_id: int) -> None:
        row = db.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game with id {game_id}")

    def add_entry(
        self,
        game_id: int,
        entry: Mapping[str, Any],
        clear_draft: bool = True,
        confirmed_scans: Sequence[tuple[int, Any]] = (),
    ) -> int:
        """Record a confirmed round (Jhyap) or deal (Seep), with what the players confirmed for each of its
        scans, in one transaction; returns the entry's 0-based position in the log."""
        with self._tx() as db:
            self._require_game(db, game_id)
            db.execute(
                _EVENT_INSERT,
                (game_id, "add", None, json.dumps(entry, ensure_ascii=False), self._stamp()),
            )
            self._confirm_scans(db, confirmed_scans)
            if clear_draft:
                db.execute("DELETE FROM drafts WHERE game_id = ?", (game_id,))
        return len(self.game(game_id).entries) - 1

    def _confirm_scans(self, db: sqlite3.Connection, confirmed_scans: Sequence[tuple[int, Any]]) -> None:
        for scan_id, confirmed in confirmed_scans:
            cur = db.execute(
                "UPDATE scans SET confirmed = ? WHERE id = ?",
                (json.dumps(confirmed, ensure_ascii=False), scan_id),
            )
            if cur.rowcount == 0:
                raise StoreError(f"no scan with id {scan_id}")

    def undo_last(self, game_id: int) -> None:
        """Remove the last confirmed round/deal (kept in the history as an ``undo`` event)."""
        with self._tx() as db:
            self._require_game(db, game_id)
            count = self._count_entries(db, game_id)
            if count == 0:
                raise StoreError(f"game {game_id} has no round to undo")
            db.execute(
                _EVENT_INSERT,
                (game_id, "undo", count - 1, None, self._stamp()),
            )
            db.execute(
                "UPDATE games SET status = 'playing', winner = NULL, ended = NULL WHERE id = ?", (game_id,)
            )

    def replace_entry(
        self,
        game_id: int,
        position: int,
        entry: Mapping[str, Any],
        confirmed_scans: Sequence[tuple[int, Any]] = (),
    ) -> None:
        """Replace an earlier round/deal; every later one is recomputed by the scorer from the new log."""
        with self._tx() as db:
            self._require_game(db, game_id)
            count = self._count_entries(db, game_id)
            if not 0 <= position < count:
                raise StoreError(f"game {game_id} has no round {position + 1} (it has {count})")
            db.execute(
                _EVENT_INSERT,
                (game_id, "edit", position, json.dumps(entry, ensure_ascii=False), self._stamp()),
            )
            self._confirm_scans(db, confirmed_scans)

    def _count_entries(self, db: sqlite3.Connection, game_id: int) -> int:
        events = db.execute(_EVENTS_OF, (game_id,))
        return len(fold_events([(a, p, x) for a, p, x in events.fetchall()]))

    def set_status(self, game_id: int, status: GameStatus, winner: str | None = None) -> None:
        with self._tx() as db:
            self._require_game(db, game_id)
            ended = None if status is GameStatus.PLAYING else self._stamp()
            db.execute(
                "UPDATE games SET status = ?, winner = ?, ended = ? WHERE id = ?",
                (status.value, winner, ended, game_id),
            )
            if status is not GameStatus.PLAYING:
                db.execute("DELETE FROM drafts WHERE game_id = ?", (game_id,))

    def history(self, game_id: int) -> list[tuple[str, int | None, Any, dt.datetime]]:
        """Every event of a game in order: (action, position, payload, when)."""
        rows = self._query(
            "SELECT action, position, payload, created FROM events WHERE game_id = ? ORDER BY id", (game_id,)
        )
        return [(a, p, json.loads(x) if x else None, dt.datetime.fromisoformat(c)) for a, p, x, c in rows]

    def recent_names(self, limit: int = 12) -> list[str]:
        """Player names of recent games, most recent first, without repeats."""
        names: list[str] = []
        for (definition,) in self._query("SELECT definition FROM games ORDER BY id DESC LIMIT 50"):
            data = json.loads(definition)
            found = list(data.get("players", []))
            for team in ("A", "B"):
                found += list(data.get("teams", {}).get(team, []))
            for name in found:
                if name not in names:
                    names.append(name)
        return names[:limit]

    # -- in-progress state ------------------------------------------------------------------------
    def save_draft(self, game_id: int, screen: str, state: Mapping[str, Any]) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO drafts(game_id, screen, state, updated) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(game_id) DO UPDATE SET screen = excluded.screen, state = excluded.state, "
                "updated = excluded.updated",
                (game_id, screen, json.dumps(state, ensure_ascii=False), self._stamp()),
            )

    def draft(self, game_id: int) -> Draft | None:
        rows = self._query("SELECT game_id, screen, state, updated FROM drafts WHERE game_id = ?", (game_id,))
        if not rows:
            return None
        gid, screen, state, updated = rows[0]
        return Draft(gid, screen, json.loads(state), dt.datetime.fromisoformat(updated))

    def clear_draft(self, game_id: int) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM drafts WHERE game_id = ?", (game_id,))

    # -- scans ----------------------------------------------------------------------------------------
    def add_scan(
        self, game_id: int, entry_number: int, target: str, jpeg: bytes | None, detected: Any
    ) -> ScanRecord:
        """Keep a scan: its photo (JPEG bytes, written beside the record) and what the detector read."""
        stamp = self.clock().strftime("%Y%m%d-%H%M%S")
        photo: Path | None = None
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO scans(game_id, entry_number, target, photo, detected, created) "
                "VALUES (?, ?, ?, NULL, ?, ?)",
                (game_id, entry_number, target, json.dumps(detected, ensure_ascii=False), self._stamp()),
            )
            scan_id = int(cur.lastrowid or 0)
            if jpeg is not None:
                photo = self.photos_dir / f"game{game_id:04d}-r{entry_number:02d}-{stamp}-scan{scan_id}.jpg"
                tmp = photo.with_suffix(".part")
                with open(tmp, "wb") as fh:
                    fh.write(jpeg)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, photo)
                db.execute("UPDATE scans SET photo = ? WHERE id = ?", (photo.name, scan_id))
        return self.scan(scan_id)

    def confirm_scan(self, scan_id: int, confirmed: Any) -> None:
        """Record what the players confirmed for a scan (the cards as finally scored)."""
        with self._tx() as db:
            self._confirm_scans(db, [(scan_id, confirmed)])

    def scan(self, scan_id: int) -> ScanRecord:
        rows = self._query(
            f"SELECT {_SCAN_COLS} FROM scans WHERE id = ?",
            (scan_id,),
        )
        if not rows:
            raise StoreError(f"no scan with id {scan_id}")
        return self._scan(rows[0])

    def scans(self, game_id: int) -> list[ScanRecord]:
        rows = self._query(
            f"SELECT {_SCAN_COLS} FROM scans WHERE game_id = ? ORDER BY id",
            (game_id,),
        )
        return [self._scan(r) for r in rows]

    def _scan(self, row: tuple[Any, ...]) -> ScanRecord:
        sid, gid, number, target, photo, detected, confirmed, created = row
        return ScanRecord(
            id=sid,
            game_id=gid,
            entry_number=number,
            target=target,
            photo=self.photos_dir / photo if photo else None,
            detected=json.loads(detected),
            confirmed=json.loads(confirmed) if confirmed else None,
            created=dt.datetime.fromisoformat(created),
        )

    # -- settings -------------------------------------------------------------------------------------
    def setting(self, key: str, default: str | None = None) -> str | None:
        rows = self._query("SELECT value FROM settings WHERE key = ?", (key,))
        return rows[0][0] if rows else default

    def set_setting(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO settings(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
