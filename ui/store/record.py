"""The :class:`Store`: games, their events, drafts, scans and settings in one SQLite file (WAL)."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ui.store.faults import Fault, RecordFault, StoreError, as_fault
from ui.store.files import (
    DB_NAME,
    NIGHT_STARTS_HOUR,
    PHOTOS_DIR,
    night_of,
    now,
    private_dir,
    private_files,
)
from ui.store.migrations import migrate
from ui.store.nights import Night, end_night, ended_nights, group_nights
from ui.store.photos import PHOTO_RESERVE, photo_usage, write_photo
from ui.store.players import Player, merge, names_of, rename, seat_game, seating
from ui.store.players import players as players_of
from ui.store.schema import (
    APPLICATION_ID,
    EVENT_INSERT,
    EVENTS_OF,
    GAME_COLS,
    SCAN_COLS,
    SCHEMA,
    check_record,
)
from ui.store.values import Draft, GameRecord, GameStatus, ScanRecord, fold_events


class Store:
    """The SQLite record of every game night. Thread-safe (one connection, one lock)."""

    def __init__(self, data_dir: Path | str, clock: Callable[[], dt.datetime] = now) -> None:
        self.data_dir = Path(data_dir).expanduser()
        self.clock = clock
        self.photos_dropped = 0  # scans kept without their photo because the disk was full
        self.photo_reserve = PHOTO_RESERVE
        try:
            private_dir(self.data_dir)
            private_dir(self.photos_dir)
        except OSError as exc:
            raise as_fault(exc, self.data_dir, "cannot create the data directory") from exc
        self._lock = threading.RLock()
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
        except sqlite3.Error as exc:
            raise as_fault(exc, self.path, "cannot open the record") from exc
        try:
            # Look before writing anything: a foreign or newer database is refused unchanged.
            if not fresh:
                check_record(self._db, self.path)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed action survives a power cut, not just a crash of the process.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            with self._tx():
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self.migrated_from = migrate(self._db)
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            private_files(self.path)
        except StoreError:
            self._db.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self._db.close()
            raise as_fault(exc, self.path, "cannot open the record") from exc

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
                raise as_fault(exc, self.path, "cannot write the record") from exc
            try:
                yield self._db
            except BaseException as exc:
                with suppress(sqlite3.Error):  # SQLite may have rolled back already (a full disk does)
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error | OSError):
                    raise as_fault(exc, self.path, "cannot write the record") from exc
                raise
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                with suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise as_fault(exc, self.path, "cannot write the record") from exc

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, params).fetchall())
            except sqlite3.Error as exc:
                raise as_fault(exc, self.path, "cannot read the record") from exc

    def _stamp(self) -> str:
        return self.clock().isoformat(timespec="seconds")

    # -- games ----------------------------------------------------------------------------------------
    def create_game(self, kind: str, definition: Mapping[str, Any]) -> int:
        if kind not in ("jhyap", "seep"):
            raise StoreError(f"unknown game kind {kind!r} (expected 'jhyap' or 'seep')")
        definition = {k: v for k, v in definition.items() if k not in ("rounds", "deals")}
        names = names_of(kind, definition)
        with self._tx() as db:
            stamp = self._stamp()
            cur = db.execute(
                "INSERT INTO games(kind, definition, created) VALUES (?, ?, ?)",
                (kind, json.dumps(definition, ensure_ascii=False), stamp),
            )
            game_id = int(cur.lastrowid or 0)
            seat_game(db, game_id, names, stamp)
            return game_id

    def add_game(
        self,
        log: Mapping[str, Any],
        created: dt.datetime,
        status: GameStatus,
        winner: str | None,
        same: Callable[[dict[str, Any]], bool],
    ) -> tuple[int, bool]:
        """Add a whole game from its log (an import), unless a game of the record is the same one
        (``same(its log)``): the check and the adding are one transaction. Returns (the game's id, whether
        it was added); its rounds or deals become ``add`` events stamped ``created``."""
        kind = str(log.get("game"))
        if kind not in ("jhyap", "seep"):
            raise StoreError(f"unknown game kind {kind!r} (expected 'jhyap' or 'seep')")
        key = "rounds" if kind == "jhyap" else "deals"
        definition = {k: v for k, v in log.items() if k != key}
        names = names_of(kind, definition)
        stamp = created.isoformat(timespec="seconds")
        with self._tx() as db:
            rows = db.execute(f"SELECT {GAME_COLS} FROM games WHERE kind = ? ORDER BY id", (kind,)).fetchall()
            for row in rows:
                if same(self._record(row, db).log()):
                    return int(row[0]), False
            ended = None if status is GameStatus.PLAYING else stamp
            cur = db.execute(
                "INSERT INTO games(kind, definition, status, winner, created, ended) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (kind, json.dumps(definition, ensure_ascii=False), status.value, winner, stamp, ended),
            )
            game_id = int(cur.lastrowid or 0)
            db.executemany(
                EVENT_INSERT,
                [(game_id, "add", None, json.dumps(e, ensure_ascii=False), stamp) for e in log[key]],
            )
            seat_game(db, game_id, names, stamp)
            return game_id, True

    def game(self, game_id: int) -> GameRecord:
        rows = self._query(f"SELECT {GAME_COLS} FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise StoreError(f"no game with id {game_id}")
        return self._record(rows[0])

    def _record(self, row: tuple[Any, ...], db: sqlite3.Connection | None = None) -> GameRecord:
        game_id, kind, definition, status, winner, created, ended = row
        events = (
            self._query(EVENTS_OF, (game_id,)) if db is None else db.execute(EVENTS_OF, (game_id,)).fetchall()
        )
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
            rows = self._query(f"SELECT {GAME_COLS} FROM games ORDER BY id")
        else:
            rows = self._query(
                f"SELECT {GAME_COLS} FROM games WHERE created >= ? ORDER BY id",
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
        rows = self._query(f"SELECT {GAME_COLS} FROM games WHERE status = 'playing' ORDER BY id DESC")
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
                EVENT_INSERT,
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
                EVENT_INSERT,
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
                EVENT_INSERT,
                (game_id, "edit", position, json.dumps(entry, ensure_ascii=False), self._stamp()),
            )
            self._confirm_scans(db, confirmed_scans)

    def _count_entries(self, db: sqlite3.Connection, game_id: int) -> int:
        events = db.execute(EVENTS_OF, (game_id,))
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
        """The names of past players, those of the most recent night first, then the most games played."""
        return [p.name for p in self.players()[:limit]]

    # -- players and nights ---------------------------------------------------------------------------
    def players(self) -> list[Player]:
        """Every player, those of the most recent night first, then the most games, then by name."""
        with self._lock:
            try:
                return players_of(self._db)
            except sqlite3.Error as exc:
                raise as_fault(exc, self.path, "cannot read the record") from exc

    def player(self, player_id: int) -> Player:
        for found in self.players():
            if found.id == player_id:
                return found
        raise StoreError(f"no player with id {player_id}")

    def rename_player(self, player_id: int, name: str) -> str:
        """Rename a player (the games keep the names played; every table shows the new one)."""
        with self._tx() as db:
            return rename(db, player_id, name)

    def merge_players(self, keep: int, gone: int) -> None:
        """Make ``gone`` and ``keep`` one player, named as ``keep`` (refused if they played together)."""
        with self._tx() as db:
            merge(db, keep, gone)

    def seating(self) -> dict[int, tuple[int, ...]]:
        """Every game's players by id, in seat order (Seep: team A, then team B)."""
        with self._lock:
            try:
                return seating(self._db)
            except sqlite3.Error as exc:
                raise as_fault(exc, self.path, "cannot read the record") from exc

    def nights(self) -> list[Night]:
        """Every night with games, the most recent first."""
        return group_nights(self.games(), self.ended_nights())

    def ended_nights(self) -> dict[dt.date, dt.datetime]:
        """When each ended night was ended."""
        with self._lock:
            try:
                return ended_nights(self._db)
            except sqlite3.Error as exc:
                raise as_fault(exc, self.path, "cannot read the record") from exc

    def night(self, date: dt.date) -> Night:
        start = dt.datetime.combine(date, dt.time(NIGHT_STARTS_HOUR))
        games = [g for g in self.games(since=start) if night_of(g.created) == date]
        return Night(date, tuple(games), self.ended_nights().get(date))

    def end_night(self, date: dt.date | None = None) -> None:
        """Note that a night (tonight by default) was ended: its story was told."""
        with self._tx() as db:
            end_night(db, date or night_of(self.clock()), self._stamp())

    def story_due(self) -> Night | None:
        """The latest night before tonight with games, when it was never ended (its story not yet told)."""
        tonight = night_of(self.clock())
        start = dt.datetime.combine(tonight, dt.time(NIGHT_STARTS_HOUR))
        rows = self._query(
            "SELECT created FROM games WHERE created < ? ORDER BY id DESC LIMIT 1", (start.isoformat(),)
        )
        if not rows:
            return None
        night = self.night(night_of(dt.datetime.fromisoformat(rows[0][0])))
        return None if night.ended is not None else night

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
        """Write ``photo`` whole or not at all (:func:`write_photo`); a photo dropped for a full disk is
        counted in ``photos_dropped``."""
        if write_photo(photo, jpeg, self.photo_reserve):
            return True
        self.photos_dropped += 1
        return False

    # -- room on the disk ---------------------------------------------------------------------------
    def photo_usage(self) -> tuple[int, int]:
        """(number, bytes) of the scan photos kept beside the record."""
        return photo_usage(self.photos_dir)

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

    def scan(self, scan_id: int) -> ScanRecord:
        rows = self._query(
            f"SELECT {SCAN_COLS} FROM scans WHERE id = ?",
            (scan_id,),
        )
        if not rows:
            raise StoreError(f"no scan with id {scan_id}")
        return self._scan(rows[0])

    def scans(self, game_id: int) -> list[ScanRecord]:
        rows = self._query(
            f"SELECT {SCAN_COLS} FROM scans WHERE game_id = ? ORDER BY id",
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
