"""Every game a damaged record still holds, read in TableTally's own code (not the sqlite3 command line).

The record is read without being changed, as deep as it has to be:

1. **past broken indexes**: each table is read by a scan of its own rows (``NOT INDEXED``), never through an
   index, so a damaged index page loses nothing;
2. **table by table**: a table whose pages fail does not stop the others, and the rows read before the
   failure are kept;
3. **page by page**: where SQLite cannot read a table (or the file at all), or actions are missing, the
   file's pages are read here (:mod:`ui.store.pages`): the leaf pages of the games and events tables, found
   from the schema or by the shape of their rows, with the write-ahead log's committed frames laid over them.

A game is saved whole when its definition and every one of its confirmed actions are read. Events are
numbered in order (AUTOINCREMENT) and never deleted, so a missing number is an action that could not be
read; a game that was open when such an action was confirmed may have lost it, and is not whole. When the
last number given is lost too (sqlite_sequence's page), a game open after the last action read is not
whole either. A game is open from its start to its end (or its last action read, when later); one whose
end is lost with an edit made after it is the one case this cannot see.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from ui.store.faults import StoreError
from ui.store.pages import PageFile, table_rows
from ui.store.values import EventAction, GameRecord, GameStatus, fold_events

_KINDS = ("jhyap", "seep")
_STATUSES = tuple(s.value for s in GameStatus)
_ACTIONS = tuple(a.value for a in EventAction)

QUERIES = {  # every column of the rows, in rowid order, through no index
    "games": "SELECT rowid, id, kind, definition, status, winner, created, ended FROM games NOT INDEXED",
    "events": "SELECT rowid, id, game_id, action, position, payload, created FROM events NOT INDEXED",
    "sqlite_sequence": "SELECT rowid, name, seq FROM sqlite_sequence",
}


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _games_row(values: tuple[Any, ...]) -> bool:
    return (
        len(values) >= 7
        and values[1] in _KINDS
        and _text(values[2])
        and values[3] in _STATUSES
        and (values[4] is None or _text(values[4]))
        and _text(values[5])
        and (values[6] is None or _text(values[6]))
    )


def _events_row(values: tuple[Any, ...]) -> bool:
    return (
        len(values) >= 6
        and isinstance(values[1], int)
        and values[2] in _ACTIONS
        and (values[3] is None or isinstance(values[3], int))
        and (values[4] is None or _text(values[4]))
        and _text(values[5])
    )


def _sequence_row(values: tuple[Any, ...]) -> bool:
    return len(values) == 2 and _text(values[0]) and isinstance(values[1], int)


SHAPES = {"games": _games_row, "events": _events_row, "sqlite_sequence": _sequence_row}


class Depth(Enum):
    """How deep the reading had to go (the deepest one any table needed)."""

    TABLES = "whole, past its indexes"  # every table read whole, past any broken index
    TABLE_BY_TABLE = "table by table"  # some table failed part-way; the others were read whole
    PAGES = "page by page"  # some rows were read from the file's pages


@dataclass(frozen=True)
class Salvage:
    """What a (damaged) record still holds.

    ``games``: read whole, oldest first. ``partial``: read, but an action that could not be read may be
    theirs (not to be taken back as they are). ``lost``: the ids of games whose definition could not be
    read; ``lost_rounds``: the rounds and deals of those games that were read all the same.
    ``unread_actions``: confirmed actions (add, undo or edit) that could not be read, whatever their game.
    """

    games: tuple[GameRecord, ...]
    partial: tuple[GameRecord, ...]
    lost: tuple[int, ...]
    lost_rounds: int
    unread_actions: int
    depth: Depth
    problems: tuple[str, ...]

    @property
    def total(self) -> int:
        """Every game the record held, as far as it tells."""
        return len(self.games) + len(self.partial) + len(self.lost)

    @property
    def rounds(self) -> int:
        """The rounds and deals of the games read whole."""
        return sum(len(g.entries) for g in self.games)

    @property
    def not_saved(self) -> int:
        """Games not read whole."""
        return len(self.partial) + len(self.lost)


def _sql_rows(db_path: Path) -> tuple[dict[str, dict[int, tuple[Any, ...]]], list[str], list[str]]:
    """Each table's rows (rowid -> the values after the rowid) as far as SQLite reads them, the tables it
    failed on (each with why), and what SQLite's quick check finds damaged."""
    rows: dict[str, dict[int, tuple[Any, ...]]] = {name: {} for name in QUERIES}
    failed: list[str] = []
    damaged: list[str] = []
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=2)
    except sqlite3.Error as exc:
        return rows, [f"the record does not open: {exc}"], damaged
    try:
        try:  # an empty file is an empty record (SQLite's own view of it), not a damaged one
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            if pages <= 1 and db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
                return rows, failed, damaged
        except sqlite3.Error:
            pass  # its first page is damaged: the scans below say so
        for name, query in QUERIES.items():
            try:
                cursor = db.execute(query)
                while batch := cursor.fetchmany(256):
                    for rowid, *values in batch:
                        rows[name][int(rowid)] = tuple(values)
            except sqlite3.Error as exc:
                failed.append(f"{name}: {exc}")
        try:  # what is damaged, if anything: the indexes the scans above went past, say
            checked = [str(r[0]) for r in db.execute("PRAGMA quick_check(3)")]
            if checked != ["ok"]:
                damaged.append("damaged: " + "; ".join(" ".join(c.split()) for c in checked)[:300])
        except sqlite3.Error as exc:
            damaged.append(f"damaged: {exc}")
    finally:
        db.close()
    return rows, failed, damaged


def _sequence(rows: Mapping[int, tuple[Any, ...]]) -> dict[str, int]:
    return {str(v[0]): int(v[1]) for v in rows.values() if _sequence_row(v)}


def _missing(ids: Iterable[int], last: int) -> list[tuple[int, int]]:
    """The ranges (first, last) of the numbers 1..``last`` not in ``ids``."""
    have = set(ids)
    ranges: list[tuple[int, int]] = []
    start = None
    for n in range(1, last + 2):
        if n <= last and n not in have:
            start = n if start is None else start
        elif start is not None:
            ranges.append((start, n - 1))
            start = None
    return ranges


def salvage(db_path: Path) -> Salvage:
    """Read every game ``db_path`` still holds (see the module's text); it changes nothing."""
    rows, failed, damaged = _sql_rows(db_path)
    problems = [*failed, *damaged]
    depth = Depth.TABLE_BY_TABLE if failed else Depth.TABLES
    games = {k: v for k, v in rows["games"].items() if _games_row(v)}
    events = {k: v for k, v in rows["events"].items() if _events_row(v)}
    sequence = _sequence(rows["sqlite_sequence"])
    last_event = max([sequence.get("events", 0), *events])
    last_game = max([sequence.get("games", 0), *games, *(v[1] for v in events.values())])
    if failed or _missing(events, last_event) or _missing(games, last_game):
        try:
            found = PageFile.read(db_path)
        except OSError as exc:
            problems.append(f"the file cannot be read page by page: {exc}")
        else:
            paged = table_rows(found, SHAPES)
            problems.extend(found.problems)
            more_games = {k: v for k, v in paged["games"].items() if k not in games}
            more_events = {k: v for k, v in paged["events"].items() if k not in events}
            if more_games or more_events:
                depth = Depth.PAGES
            games.update(more_games)
            events.update(more_events)
            for name, seq in _sequence(paged["sqlite_sequence"]).items():
                sequence[name] = max(seq, sequence.get(name, 0))
            last_event = max([sequence.get("events", 0), *events])
            last_game = max([sequence.get("games", 0), *games, *(v[1] for v in events.values())])
    return _assemble(
        games, events, last_game, last_event, depth, problems, "events" in sequence or not events
    )


def _when(text: Any) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(str(text))
    except ValueError:
        return None


def _assemble(
    games: Mapping[int, tuple[Any, ...]],
    events: Mapping[int, tuple[Any, ...]],
    last_game: int,
    last_event: int,
    depth: Depth,
    problems: list[str],
    known_last: bool = True,
) -> Salvage:
    by_game: dict[int, list[tuple[str, int | None, Any]]] = {}
    last_seen: dict[int, list[dt.datetime | None]] = {}
    for event_id in sorted(events):
        _id, game_id, action, position, payload, created = events[event_id][:6]
        last_seen[int(game_id)] = [_when(created)]
        try:
            data = json.loads(payload) if payload else None
        except ValueError:
            data = _Unreadable
        by_game.setdefault(int(game_id), []).append((action, position, data))
    gaps = _missing(events, last_event)
    windows = [
        (
            _when(events[a - 1][5]) if a - 1 in events else None,
            _when(events[b + 1][5]) if b + 1 in events else None,
        )
        for a, b in gaps
    ]
    if not known_last:  # the last id given is lost with its page: actions after the last one read may be too
        windows.append((_when(events[max(events)][5]) if events else None, None))
        problems.append(
            "the last actions confirmed may be lost: the record no longer says how many there were"
        )
    whole: list[GameRecord] = []
    partial: list[GameRecord] = []
    lost: list[int] = []
    lost_rounds = 0
    for game_id in range(1, last_game + 1):
        its = by_game.get(game_id, [])
        record = _record(game_id, games.get(game_id), its)
        if record is None:
            lost.append(game_id)
            lost_rounds += _count(its)
            continue
        # A game ends at its end, or at its last action read when later (an edit after the end); a game
        # still being played may have had an action at any time after it began.
        end = None
        if record.status is not GameStatus.PLAYING and record.ended is not None:
            end = max([record.ended, *(t for t in last_seen.get(game_id, ()) if t is not None)])
        touched = any(
            (after is None or record.created <= after) and (end is None or before is None or end >= before)
            for before, after in windows
        )
        (partial if touched else whole).append(record)
    if gaps:
        problems.append(f"{sum(b - a + 1 for a, b in gaps)} confirmed action(s) could not be read")
    return Salvage(
        tuple(whole),
        tuple(partial),
        tuple(lost),
        lost_rounds,
        sum(b - a + 1 for a, b in gaps),
        depth,
        tuple(problems),
    )


class _Unreadable:
    """An event's payload whose text is not JSON (its game cannot be folded)."""


def _count(events: list[tuple[str, int | None, Any]]) -> int:
    """The rounds or deals the events of a game add up to (0 when they do not fold)."""
    try:
        return len(fold_events(events))
    except StoreError:
        return 0


def _record(
    game_id: int, row: tuple[Any, ...] | None, events: list[tuple[str, int | None, Any]]
) -> GameRecord | None:
    """The game as recorded, or None when its row is lost or does not read (bad JSON, dates, events)."""
    if row is None or any(payload is _Unreadable for _a, _p, payload in events):
        return None
    _id, kind, definition, status, winner, created, ended = row[:7]
    try:
        data = json.loads(definition)
        entries = fold_events(events)
        when = dt.datetime.fromisoformat(created)
        ended_at = dt.datetime.fromisoformat(ended) if ended else None
    except (ValueError, TypeError, StoreError):
        return None
    if not isinstance(data, dict):
        return None
    return GameRecord(game_id, kind, data, tuple(entries), GameStatus(status), winner, when, ended_at)
