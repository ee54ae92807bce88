"""The game-night record: one SQLite file (stdlib sqlite3, WAL) plus the scan photos beside it.

The record is event-sourced. A game row holds the game's definition (the scorer's JSON game log without its
rounds or deals); every confirmed action is one row in ``events`` (``add`` a round/deal, ``undo`` the
last one, ``edit`` an earlier one), committed in its own transaction the moment the players confirm it. The
current log is the fold of those events, so an edit or an undo never destroys what was there before.
In-progress state (the screen a game is on, the current scan, the cards typed so far) lives in ``drafts`` so
that a restart resumes exactly where the kiosk was. Each scan keeps its photo (a JPEG in ``photos/`` beside
the database), what the detector read and what the players confirmed.

The store never computes a score: it keeps what was confirmed, and the scorer turns it into numbers.

Faults of the disk or the file are :class:`RecordFault` errors that say which (:class:`Fault`): a record
with corrupt pages, a database of another program (refused by name and never changed), a record of a newer
TableTally, a full disk, a record the kiosk may not write. The record is checked before anything is written
to it. A full disk drops the scan photo before anything else: the scan is kept without its photo, and
:meth:`Store.delete_old_photos` makes room. A corrupt record is set aside (renamed, never deleted) by
:func:`set_aside`, which first exports every game it can still read.
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import shutil
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

DB_NAME = "tabletally.sqlite3"
PHOTOS_DIR = "photos"
ENV_DATA_DIR = "TABLETALLY_DATA_DIR"
SCHEMA_VERSION = 1
APPLICATION_ID = 0x54546C79  # "TTly": PRAGMA application_id of every TableTally record
PRIVATE_DIR = 0o700  # the record and photos are the kiosk user's alone, whatever the umask
PRIVATE_FILE = 0o600
PHOTO_RESERVE = 16 * 1024 * 1024  # bytes a photo may never take: the room the record keeps for scores
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


class Fault(Enum):
    """What went wrong with the record's file or disk (see :class:`RecordFault`)."""

    CORRUPT = "corrupt"  # pages of the file are damaged, or it is not a database at all
    FOREIGN = "foreign"  # a database of another program
    NEWER = "newer"  # written by a newer TableTally (a higher schema_version)
    FULL = "full"  # no space left on the disk
    READ_ONLY = "read_only"  # the kiosk may not write the record or its folder
    BUSY = "busy"  # another program holds the record locked
    IO = "io"  # the disk failed to read or write


class RecordFault(StoreError):
    """The record's file or disk failed; ``fault`` says how and ``path`` is the file concerned."""

    def __init__(self, fault: Fault, path: Path, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.fault = fault
        self.path = path
        self.detail = detail


_SQLITE_FAULTS = {
    "SQLITE_CORRUPT": Fault.CORRUPT,
    "SQLITE_NOTADB": Fault.CORRUPT,
    "SQLITE_FULL": Fault.FULL,
    "SQLITE_READONLY": Fault.READ_ONLY,
    "SQLITE_CANTOPEN": Fault.READ_ONLY,
    "SQLITE_PERM": Fault.READ_ONLY,
    "SQLITE_AUTH": Fault.READ_ONLY,
    "SQLITE_BUSY": Fault.BUSY,
    "SQLITE_LOCKED": Fault.BUSY,
    "SQLITE_IOERR": Fault.IO,
}
_OS_FAULTS = {
    errno.ENOSPC: Fault.FULL,
    errno.EDQUOT: Fault.FULL,
    errno.EROFS: Fault.READ_ONLY,
    errno.EACCES: Fault.READ_ONLY,
    errno.EPERM: Fault.READ_ONLY,
    errno.EIO: Fault.IO,
}


def fault_of(exc: BaseException) -> Fault | None:
    """The :class:`Fault` an sqlite3 or OS error means, or None when it is no fault of the disk or file."""
    if isinstance(exc, RecordFault):
        return exc.fault
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        base = "_".join(name.split("_")[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
        if base in _SQLITE_FAULTS:
            return _SQLITE_FAULTS[base]
        text = str(exc).lower()
        for words, fault in (
            ("malformed", Fault.CORRUPT),
            ("not a database", Fault.CORRUPT),
            ("disk is full", Fault.FULL),
            ("readonly", Fault.READ_ONLY),
            ("unable to open", Fault.READ_ONLY),
            ("locked", Fault.BUSY),
            ("disk i/o", Fault.IO),
        ):
            if words in text:
                return fault
        return None
    if isinstance(exc, OSError) and exc.errno is not None:
        return _OS_FAULTS.get(exc.errno)
    return None


def _fault(exc: BaseException, path: Path, doing: str) -> StoreError:
    """``exc`` (from sqlite3 or the OS) as a RecordFault when it is one, else a plain StoreError."""
    fault = fault_of(exc)
    detail = getattr(exc, "strerror", None) or str(exc)
    if fault is None:
        return StoreError(f"{doing} {path}: {detail}")
    return RecordFault(fault, path, f"{doing}: {detail}")


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


def _private_dir(path: Path) -> None:
    """Create ``path`` (and its parents) if needed; the folder itself is the user's alone (0700)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) != PRIVATE_DIR:
        path.chmod(PRIVATE_DIR)


def _private_files(db_path: Path) -> None:
    """The record and its WAL files readable by their user only (0600), whatever the umask was."""
    if os.name != "posix":
        return
    for path in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
        try:
            if stat.S_IMODE(path.stat().st_mode) != PRIVATE_FILE:
                path.chmod(PRIVATE_FILE)
        except FileNotFoundError:
            continue


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
        raise _fault(exc, path, "cannot open the record") from exc


def export_readable(db_path: Path, out_dir: Path) -> list[Path]:
    """Write the JSON game log of every game that can still be read from a damaged record into ``out_dir``
    (``game-0001-jhyap.json``...), reading the file without changing it. Games that cannot be read are
    skipped; returns the files written."""
    written: list[Path] = []
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    except sqlite3.Error:
        return written
    try:
        ids: list[int] = []
        for query in (
            "SELECT id FROM games ORDER BY id",
            "SELECT DISTINCT game_id FROM events ORDER BY game_id",
        ):
            try:  # the games table's own pages may be the damaged ones: then find the games by their events
                ids = [int(r[0]) for r in db.execute(query)]
                break
            except sqlite3.Error:
                continue
        for game_id in ids:
            try:
                kind, definition = db.execute(
                    "SELECT kind, definition FROM games WHERE id = ?", (game_id,)
                ).fetchone()
                events = db.execute(_EVENTS_OF, (game_id,)).fetchall()
                entries = fold_events([(a, p, json.loads(x) if x else None) for a, p, x in events])
                log = dict(json.loads(definition))
            except (sqlite3.Error, ValueError, TypeError, StoreError):
                continue
            log["rounds" if kind == "jhyap" else "deals"] = entries
            _private_dir(out_dir)
            path = out_dir / f"game-{game_id:04d}-{kind}.json"
            path.write_text(json.dumps(log, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
            written.append(path)
    finally:
        db.close()
    return written


def set_aside(data_dir: Path | str, clock: Callable[[], dt.datetime] = _now) -> tuple[Path, list[Path]]:
    """Set a damaged record aside so that a fresh one can start: export the games it can still read
    (to ``exports/recovered-STAMP/``), then rename the file and its WAL files to
    ``tabletally.sqlite3.damaged-STAMP`` (never deleted). Returns (the renamed file, the exported logs)."""
    data_dir = Path(data_dir).expanduser()
    db_path = data_dir / DB_NAME
    stamp = clock().strftime("%Y%m%d-%H%M%S")
    exported = export_readable(db_path, data_dir / "exports" / f"recovered-{stamp}")
    aside = data_dir / f"{DB_NAME}.damaged-{stamp}"
    try:
        for suffix in ("-wal", "-shm", ""):
            source = Path(f"{db_path}{suffix}")
            if source.exists():
                os.replace(source, Path(f"{aside}{suffix}"))
    except OSError as exc:
        raise _fault(exc, db_path, "cannot set the damaged record aside") from exc
    return aside, exported


def delete_photos_before(data_dir: Path | str, moment: dt.datetime) -> tuple[int, int]:
    """Delete the scan photos (and leftover partial files) last written before ``moment``, without opening
    the record: what a full disk needs when the record itself cannot open. Returns (photos, bytes) freed;
    the record then shows those scans without a photo."""
    photos = Path(data_dir).expanduser() / PHOTOS_DIR
    cutoff = moment.timestamp()
    count = freed = 0
    for path in [*photos.glob("*.jpg"), *photos.glob("*.part")]:
        try:
            info = path.stat()
            if path.suffix == ".jpg" and info.st_mtime >= cutoff:
                continue
            path.unlink()
        except OSError:
            continue
        count += path.suffix == ".jpg"
        freed += info.st_size
    return count, freed


def night_start(moment: dt.datetime) -> dt.datetime:
    """When the game night of ``moment`` began (see :func:`night_of`)."""
    return dt.datetime.combine(night_of(moment), dt.time(NIGHT_STARTS_HOUR))


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
        self.photos_dropped = 0  # scans kept without their photo because the disk was full
        self.photo_reserve = PHOTO_RESERVE
        try:
            _private_dir(self.data_dir)
            _private_dir(self.photos_dir)
        except OSError as exc:
            raise _fault(exc, self.data_dir, "cannot create the data directory") from exc
        self._lock = threading.RLock()
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
        except sqlite3.Error as exc:
            raise _fault(exc, self.path, "cannot open the record") from exc
        try:
            # Look before writing anything: a foreign or newer database is refused unchanged.
            if not fresh:
                check_record(self._db, self.path)
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
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            _private_files(self.path)
        except StoreError:
            self._db.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self._db.close()
            raise _fault(exc, self.path, "cannot open the record") from exc

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
        """One transaction; a fault of the disk or file becomes a :class:`RecordFault` (nothing is kept)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _fault(exc, self.path, "cannot write the record") from exc
            try:
                yield self._db
            except BaseException as exc:
                with suppress(sqlite3.Error):  # SQLite may have rolled back already (a full disk does)
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error | OSError):
                    raise _fault(exc, self.path, "cannot write the record") from exc
                raise
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                with suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise _fault(exc, self.path, "cannot write the record") from exc

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, params).fetchall())
            except sqlite3.Error as exc:
                raise _fault(exc, self.path, "cannot read the record") from exc

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
        """Keep a scan: its photo (JPEG bytes, written beside the record) and what the detector read.

        Photos go before scores: when the disk has no room for the photo, the scan is kept without it
        (``photos_dropped`` counts them) and no partial file is left behind."""
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
                if self._write_photo(photo, jpeg):
                    db.execute("UPDATE scans SET photo = ? WHERE id = ?", (photo.name, scan_id))
        return self.scan(scan_id)

    def _write_photo(self, photo: Path, jpeg: bytes) -> bool:
        """Write ``photo`` whole or not at all; False (and nothing on disk) when the disk is full, or
        would keep less than ``photo_reserve`` free for the record."""
        tmp = photo.with_suffix(".part")
        try:
            if shutil.disk_usage(self.photos_dir).free - len(jpeg) < self.photo_reserve:
                raise OSError(errno.ENOSPC, "the photo would take the room kept for the scores")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
            with open(fd, "wb") as fh:
                fh.write(jpeg)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, photo)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            if fault_of(exc) is Fault.FULL:
                self.photos_dropped += 1
                return False
            raise
        return True

    # -- room on the disk ---------------------------------------------------------------------------
    def photo_usage(self) -> tuple[int, int]:
        """(number, bytes) of the scan photos kept beside the record."""
        count = size = 0
        for path in self.photos_dir.glob("*.jpg"):
            try:
                size += path.stat().st_size
            except OSError:
                continue
            count += 1
        return count, size

    def delete_old_photos(self, keep_tonight: bool = True) -> tuple[int, int]:
        """Delete the scan photos of earlier nights (every photo with ``keep_tonight=False``) and any
        leftover partial files; what was read and confirmed stays in the record. Returns (photos, bytes)
        freed. The record is updated first, so a photo it names always exists."""
        keep: set[str] = set()
        if keep_tonight:
            for game in self.tonight():
                keep.update(s.photo.name for s in self.scans(game.id) if s.photo is not None)
        doomed = [p for p in sorted(self.photos_dir.glob("*.jpg")) if p.name not in keep]
        forgotten = False
        if doomed:
            try:
                self._forget_photos(doomed)
                forgotten = True
            except RecordFault as exc:
                if exc.fault is not Fault.FULL:
                    raise
                # No room even to note it: free the space first, then note it (a missing photo only
                # shows as "no photo" until then).
        count = freed = 0
        for path in [*doomed, *self.photos_dir.glob("*.part")]:
            try:
                size = path.stat().st_size
                path.unlink()
            except OSError:
                continue
            count += path.suffix == ".jpg"
            freed += size
        if doomed and not forgotten:
            self._forget_photos(doomed)
        return count, freed

    def _forget_photos(self, photos: Sequence[Path]) -> None:
        with self._tx() as db:
            db.executemany("UPDATE scans SET photo = NULL WHERE photo = ?", [(p.name,) for p in photos])

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
