"""Players across nights: a name is one player, found again in every game they sit in.

A game's definition keeps the names as they were played (the game log never changes); ``seats`` says which
player sat in each seat of each game, so a player renamed or two players merged from the Players screen are
one player in every record and table without rewriting a game. Names are matched without regard to case
("asha" is Asha). These functions work inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ui.store.faults import StoreError
from ui.store.files import night_of

MAX_NAME = 16  # letters in a name, as the New game form allows


@dataclass(frozen=True)
class Player:
    """A player of the record: ``games`` sat in, ``last_played`` when their latest game began."""

    id: int
    name: str
    games: int
    last_played: dt.datetime | None


def names_of(kind: str, definition: Mapping[str, Any]) -> tuple[str, ...]:
    """The names in a game's seats, in order: Jhyap's players; Seep's team A then team B."""
    if kind == "jhyap":
        return tuple(definition["players"])
    teams = definition["teams"]
    return tuple(teams["A"]) + tuple(teams["B"])


def find_player(db: sqlite3.Connection, name: str) -> int | None:
    """The id of the player called ``name`` (any case), or None."""
    folded = name.casefold()
    for player_id, known in db.execute("SELECT id, name FROM players"):
        if known.casefold() == folded:
            return int(player_id)
    return None


def player_for(db: sqlite3.Connection, name: str, stamp: str) -> int:
    """The player called ``name``; a newcomer is added."""
    found = find_player(db, name)
    if found is not None:
        return found
    cur = db.execute("INSERT INTO players(name, created) VALUES (?, ?)", (name, stamp))
    return int(cur.lastrowid or 0)


def seat_game(db: sqlite3.Connection, game_id: int, names: Sequence[str], stamp: str) -> None:
    """Note who sits in each seat of game ``game_id`` (newcomers become players)."""
    for seat, name in enumerate(names):
        db.execute(
            "INSERT INTO seats(game_id, seat, player_id) VALUES (?, ?, ?)",
            (game_id, seat, player_for(db, name, stamp)),
        )


def seat_every_game(db: sqlite3.Connection) -> int:
    """Seat the players of every game that has no seats yet (the migration to schema 2); returns how many."""
    rows = db.execute(
        "SELECT id, kind, definition, created FROM games "
        "WHERE id NOT IN (SELECT game_id FROM seats) ORDER BY id"
    ).fetchall()
    for game_id, kind, definition, created in rows:
        seat_game(db, game_id, names_of(kind, json.loads(definition)), created)
    return len(rows)


_PLAYERS = """
SELECT p.id, p.name, COUNT(g.id), MAX(g.created)
FROM players p LEFT JOIN seats s ON s.player_id = p.id LEFT JOIN games g ON g.id = s.game_id
GROUP BY p.id
"""


def players(db: sqlite3.Connection) -> list[Player]:
    """Every player: those of the most recent night first, then the most games, the latest game, the name."""
    found = [
        Player(int(i), name, int(n), dt.datetime.fromisoformat(last) if last else None)
        for i, name, n, last in db.execute(_PLAYERS)
    ]

    def order(p: Player) -> tuple[int, int, float, str]:
        if p.last_played is None:
            return (0, 0, 0.0, p.name.casefold())
        night = night_of(p.last_played).toordinal()
        return (-night, -p.games, -p.last_played.timestamp(), p.name.casefold())

    return sorted(found, key=order)


def check_new_name(name: str) -> str:
    """``name`` with its spaces tidied, or StoreError saying why it cannot be a player's name."""
    tidy = " ".join(str(name).split())
    if not tidy:
        raise StoreError("a player's name cannot be empty")
    if len(tidy) > MAX_NAME:
        raise StoreError(f"the name {tidy!r} is too long (at most {MAX_NAME} letters)")
    if any(0xD800 <= ord(ch) <= 0xDFFF or ord(ch) < 0x20 for ch in tidy):
        raise StoreError(f"the name {tidy!r} holds a character that is not a letter")
    return tidy


def rename(db: sqlite3.Connection, player_id: int, name: str) -> str:
    """Give player ``player_id`` a new name (their games keep the names played); returns it."""
    name = check_new_name(name)
    row = db.execute("SELECT name FROM players WHERE id = ?", (player_id,)).fetchone()
    if row is None:
        raise StoreError(f"no player with id {player_id}")
    other = find_player(db, name)
    if other is not None and other != player_id:
        (known,) = db.execute("SELECT name FROM players WHERE id = ?", (other,)).fetchone()
        raise StoreError(f"{known} is already another player: merge the two instead")
    db.execute("UPDATE players SET name = ? WHERE id = ?", (name, player_id))
    return name


def merge(db: sqlite3.Connection, keep: int, gone: int) -> None:
    """Make player ``gone`` one with ``keep``: every seat of ``gone`` becomes ``keep``'s, and ``gone``
    is no more. Two players who sat in the same game are two people and are not merged."""
    if keep == gone:
        raise StoreError("a player cannot be merged with themself")
    names: dict[int, str] = {}
    for player_id in (keep, gone):
        row = db.execute("SELECT name FROM players WHERE id = ?", (player_id,)).fetchone()
        if row is None:
            raise StoreError(f"no player with id {player_id}")
        names[player_id] = row[0]
    both = db.execute(
        "SELECT a.game_id FROM seats a JOIN seats b ON a.game_id = b.game_id "
        "WHERE a.player_id = ? AND b.player_id = ? ORDER BY a.game_id LIMIT 1",
        (keep, gone),
    ).fetchone()
    if both is not None:
        raise StoreError(
            f"{names[keep]} and {names[gone]} played in the same game (game {both[0]}): they are two players"
        )
    db.execute("UPDATE seats SET player_id = ? WHERE player_id = ?", (keep, gone))
    db.execute("DELETE FROM players WHERE id = ?", (gone,))


def seating(db: sqlite3.Connection) -> dict[int, tuple[int, ...]]:
    """Every game's players by id, in seat order."""
    seats: dict[int, list[int]] = {}
    for game_id, player_id in db.execute("SELECT game_id, player_id FROM seats ORDER BY game_id, seat"):
        seats.setdefault(int(game_id), []).append(int(player_id))
    return {game_id: tuple(ids) for game_id, ids in seats.items()}
