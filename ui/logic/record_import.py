"""Bringing exported game logs back into the record (``tabletally import``, and the games a salvage saved).

A log is checked whole by the scorer before anything is written; files are all read and checked before
the first game is added, so bad input changes nothing. A game already in the record is not doubled: the
same players, rules and rounds (or the file's rounds being the first of the record's game) is the same
game; a record's game whose rounds are the first of the file's gets the rest added, one confirmed round at
a time as the kiosk adds them.

A game's night is the date in its file's name when it has one (the Tonight export writes
``YYYY-MM-DD-gameN-KIND.json``, the day the game began): the file's time when it was written that day (a
game begun after midnight belongs to the night before), else that evening; a file without a date in its
name is placed by its time.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorer import JhyapFacts, ScorerError
from ui.logic import games
from ui.store import NIGHT_STARTS_HOUR, GameStatus, Store

_DATED = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-")
MAX_BYTES = 8 * 1024 * 1024  # a game log is a few kB; a file this big is not one


class LogImportError(ValueError):
    """A file that cannot be imported; the message names the file and the problem."""


@dataclass(frozen=True)
class Imported:
    """One imported log: the record's game, and whether it was added (False: it was already there).
    ``extended`` counts the rounds or deals added to a game the record had fewer of."""

    source: str
    game_id: int
    kind: str
    added: bool
    entries: int
    extended: int = 0


@dataclass(frozen=True)
class CheckedLog:
    source: str
    log: dict[str, Any]  # canonical, as the scorer writes it
    created: dt.datetime


def _entries_key(log: Mapping[str, Any]) -> str:
    return "rounds" if log["game"] == "jhyap" else "deals"


def check_log(text: str, source: str, created: dt.datetime) -> CheckedLog:
    """``text`` checked as a game log by the scorer (any problem is a LogImportError naming ``source``)."""
    try:
        log = games.parse_log(text)
    except ScorerError as exc:
        raise LogImportError(f"{source}: {exc}") from None
    return CheckedLog(source, log, created)


def file_date(path: Path) -> dt.datetime:
    """When the game in ``path`` was played: the export's date in its name (the file's time when it was
    written that day, else that evening), else the file's modification time."""
    match = _DATED.match(path.name)
    if match:
        try:
            day = dt.date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            pass
        else:
            written = dt.datetime.fromtimestamp(path.stat().st_mtime).replace(microsecond=0)
            if written.date() == day:  # exported the day the game began: after midnight is the night before
                return written
            return dt.datetime.combine(day, dt.time(max(NIGHT_STARTS_HOUR, 20)))
    return dt.datetime.fromtimestamp(path.stat().st_mtime).replace(microsecond=0)


def read_logs(paths: Sequence[Path]) -> list[CheckedLog]:
    """Every file read and checked; the first bad one raises LogImportError (nothing is imported)."""
    if not paths:
        raise LogImportError("no game log given")
    checked = []
    for path in paths:
        try:
            if path.stat().st_size > MAX_BYTES:
                raise LogImportError(f"{path}: {path.stat().st_size:,} bytes is not a game log")
            raw = path.read_bytes()
            created = file_date(path)
        except OSError as exc:
            raise LogImportError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise LogImportError(f"{path}: not UTF-8 text (byte {exc.start})") from None
        checked.append(check_log(text, str(path), created))
    return checked


def _status(log: Mapping[str, Any]) -> tuple[GameStatus, str | None]:
    """How an imported game stands: a finished Jhyap game and its winner; an unfinished one was stopped;
    a Seep game is ended, won by the team ahead on baazis."""
    facts = games.facts(log)
    if isinstance(facts, JhyapFacts):
        if facts.finished:
            return GameStatus.FINISHED, facts.winner
        return GameStatus.ABANDONED, None
    winner = " & ".join(facts.teams[facts.winner].players) if facts.winner else None
    return GameStatus.FINISHED, winner


def _same(log: Mapping[str, Any]) -> Callable[[dict[str, Any]], bool]:
    """Whether a record's game log is the game ``log`` (one's rounds the first of the other's)."""
    key = _entries_key(log)
    head = {k: v for k, v in log.items() if k != key}
    mine = list(log[key])

    def same(other: dict[str, Any]) -> bool:
        if other.get("game") != log["game"]:
            return False
        try:
            theirs = games.canonical_log(other)
        except ScorerError:
            return False
        if {k: v for k, v in theirs.items() if k != key} != head:
            return False
        entries = list(theirs[key])
        shorter = min(len(entries), len(mine))
        return entries[:shorter] == mine[:shorter]

    return same


def import_log(store: Store, log: Mapping[str, Any], created: dt.datetime, source: str = "") -> Imported:
    """Bring one game log into the record (the plain function ``tabletally import`` and a salvage call).

    ``log`` is checked by the scorer first (LogImportError naming ``source``); a game already there is not
    doubled, and one the record has fewer rounds of gets the rest."""
    try:
        canonical = games.canonical_log(log)
    except ScorerError as exc:
        raise LogImportError(f"{source or 'game log'}: {exc}") from None
    status, winner = _status(canonical)
    key = _entries_key(canonical)
    game_id, added = store.add_game(canonical, created, status, winner, same=_same(canonical))
    extended = 0
    if not added:
        record = store.game(game_id)
        have = len(record.entries)
        for entry in canonical[key][have:]:
            store.add_entry(game_id, entry, clear_draft=False)
            extended += 1
        if extended and status is GameStatus.FINISHED and record.status is not GameStatus.FINISHED:
            store.set_status(game_id, status, winner)
    return Imported(source, game_id, canonical["game"], added, len(canonical[key]), extended)


def import_files(store: Store, paths: Sequence[Path]) -> list[Imported]:
    """Import every file of ``paths`` (all checked first: one bad file imports none)."""
    return [import_log(store, c.log, c.created, c.source) for c in read_logs(paths)]
