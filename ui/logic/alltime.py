"""All-time standings, a player's record, the nights and a night's story, from the record's game logs.

Nothing here is stored: every figure is added up from the scorer's facts of each game
(:mod:`scorer.facts`), replayed from the game logs the record keeps, and each game's players are found
through the record's seats (so a renamed or merged player is one player in every game).

* "played" counts every game a player sat in, finished or not; Jhyap "won" counts the finished games whose
  replay names the player as winner; Seep "won" the ended games whose team was ahead on baazis.
* A Jhyap player's average hand is over every round they played (their hand at its end); their best
  comeback is the most points they were behind and still won.
* Seep baazis and sweeps are their team's, in the games they played.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer import JhyapFacts, ScorerError, SeepFacts
from ui.logic import games as rules
from ui.store import GameRecord, GameStatus, Store, night_of

LAST_NIGHTS = 5  # nights shown on a player's page


@dataclass(frozen=True)
class JhyapRecord:
    played: int = 0
    won: int = 0
    calls: int = 0
    calls_won: int = 0
    penalties: int = 0
    eliminations: int = 0
    rounds: int = 0
    hand_points: int = 0
    best_comeback: int | None = None

    @property
    def win_rate(self) -> float | None:
        return self.won / self.played if self.played else None

    @property
    def average_hand(self) -> float | None:
        return self.hand_points / self.rounds if self.rounds else None


@dataclass(frozen=True)
class SeepRecord:
    played: int = 0
    won: int = 0
    baazis: int = 0
    sweeps: int = 0

    @property
    def win_rate(self) -> float | None:
        return self.won / self.played if self.played else None


@dataclass(frozen=True)
class NightPlayed:
    """One night of one player: games played and won."""

    date: dt.date
    played: int
    won: int


@dataclass(frozen=True)
class PlayerRecord:
    id: int
    name: str
    jhyap: JhyapRecord
    seep: SeepRecord
    nights: tuple[NightPlayed, ...]  # the most recent first

    @property
    def played(self) -> int:
        return self.jhyap.played + self.seep.played

    @property
    def won(self) -> int:
        return self.jhyap.won + self.seep.won


@dataclass(frozen=True)
class Call:
    """A call that held: who, with what hand, by how many points, in which game and round."""

    name: str
    hand: int
    margin: int
    game_id: int
    round: int


@dataclass(frozen=True)
class NightStory:
    """A night in a few lines: its winners (the most games won), the best call that held (the widest
    margin), the biggest comeback (a Jhyap winner's points behind) and the most sweeps (a Seep team's)."""

    date: dt.date
    games: int
    winners: tuple[str, ...]
    wins: int
    best_call: Call | None
    comeback: tuple[str, int] | None
    sweeps: tuple[tuple[str, ...], int] | None


@dataclass(frozen=True)
class NightLine:
    date: dt.date
    games: int
    jhyap: int
    seep: int
    winners: tuple[str, ...]  # each finished game's winner (a Seep team as "A & B"), in order
    players: tuple[str, ...]
    ended: dt.datetime | None


@dataclass(frozen=True)
class AllTime:
    players: tuple[PlayerRecord, ...]  # the most games won first
    nights: tuple[NightLine, ...]  # the most recent first
    unreadable: tuple[tuple[int, str], ...] = ()  # (game id, the scorer's message) of games not counted


@dataclass
class _Tally:
    jhyap: dict[str, Any] = field(default_factory=dict)
    seep: dict[str, Any] = field(default_factory=dict)
    nights: dict[dt.date, list[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class GameFacts:
    """One game of the record with its players' names (their current ones, in the log's seat order) and
    its facts; ``facts`` is None when the log does not replay (``problem`` says why)."""

    record: GameRecord
    players: tuple[tuple[int, str], ...]  # (player id, current name) per seat
    facts: JhyapFacts | SeepFacts | None
    problem: str | None = None

    def name_of(self, played: str) -> str:
        """The current name of the player who played as ``played``."""
        for (_pid, name), seat in zip(self.players, self.record.names, strict=False):
            if seat == played:
                return name
        return played

    def id_of(self, played: str) -> int | None:
        for (pid, _name), seat in zip(self.players, self.record.names, strict=False):
            if seat == played:
                return pid
        return None

    @property
    def winners(self) -> tuple[str, ...]:
        """Who won the game (current names): the Jhyap winner of a finished game, the Seep team ahead on
        baazis of an ended one; nobody otherwise."""
        facts = self.facts
        if isinstance(facts, JhyapFacts):
            return (self.name_of(facts.winner),) if facts.finished and facts.winner else ()
        if isinstance(facts, SeepFacts) and facts.winner and self.record.status is GameStatus.FINISHED:
            return tuple(self.name_of(n) for n in facts.teams[facts.winner].players)
        return ()


def game_facts(
    records: Sequence[GameRecord], seating: Mapping[int, tuple[int, ...]], names: Mapping[int, str]
) -> list[GameFacts]:
    """Each game with its players and facts."""
    out: list[GameFacts] = []
    for record in records:
        ids = seating.get(record.id, ())
        players = tuple((pid, names.get(pid, played)) for pid, played in zip(ids, record.names, strict=False))
        facts = _facts_of(record.log())
        if isinstance(facts, str):
            out.append(GameFacts(record, players, None, facts))
        else:
            out.append(GameFacts(record, players, facts))
    return out


_FACTS: dict[str, JhyapFacts | SeepFacts | str] = {}  # a game log's facts, or why it does not replay
_FACTS_KEPT = 20_000


def _facts_of(log: dict[str, Any]) -> JhyapFacts | SeepFacts | str:
    """The scorer's facts of a game log, replayed once per log in this process: the facts depend on the log
    alone, so a log seen before (the same game, not changed since) is not replayed again."""
    key = json.dumps(log, sort_keys=True, ensure_ascii=False)
    found = _FACTS.get(key)
    if found is not None:
        return found
    facts: JhyapFacts | SeepFacts | str
    try:
        facts = rules.facts(log)
    except ScorerError as exc:
        facts = str(exc)
    if len(_FACTS) >= _FACTS_KEPT:
        _FACTS.clear()
    _FACTS[key] = facts
    return facts


def _add(table: dict[str, int | None], **values: int) -> None:
    for key, value in values.items():
        table[key] = int(table.get(key) or 0) + value


def tally(games: Sequence[GameFacts], names: Mapping[int, str]) -> AllTime:
    """Add up ``games`` per player (``names``: every player's current name by id)."""
    jhyap: dict[int, dict[str, int | None]] = {}
    seep: dict[int, dict[str, int | None]] = {}
    nights: dict[int, dict[dt.date, list[int]]] = {}
    unreadable: list[tuple[int, str]] = []
    for game in games:
        record, facts = game.record, game.facts
        night = night_of(record.created)
        winners = set(game.winners)
        for pid, name in game.players:
            slot = nights.setdefault(pid, {}).setdefault(night, [0, 0])
            slot[0] += 1
            slot[1] += name in winners
            table = (jhyap if record.kind == "jhyap" else seep).setdefault(pid, {})
            _add(table, played=1, won=int(name in winners))
        if facts is None:
            unreadable.append((record.id, game.problem or ""))
            continue
        if isinstance(facts, JhyapFacts):
            for played, mine in facts.players.items():
                who = game.id_of(played)
                if who is None:
                    continue
                table = jhyap[who]
                _add(
                    table,
                    calls=mine.calls,
                    calls_won=mine.calls_held,
                    penalties=mine.penalties,
                    eliminations=int(mine.eliminated_in is not None),
                    rounds=len(mine.hands),
                    hand_points=sum(mine.hands),
                )
                if mine.comeback is not None:
                    best = table.get("best_comeback")
                    table["best_comeback"] = mine.comeback if best is None else max(best, mine.comeback)
        else:
            for team in facts.teams.values():
                for played in team.players:
                    who = game.id_of(played)
                    if who is not None:
                        _add(seep[who], baazis=team.baazis, sweeps=team.sweeps)
    players = [
        PlayerRecord(
            id=pid,
            name=name,
            jhyap=JhyapRecord(**jhyap.get(pid, {})),  # type: ignore[arg-type]
            seep=SeepRecord(**seep.get(pid, {})),  # type: ignore[arg-type]
            nights=tuple(
                NightPlayed(date, p, w) for date, (p, w) in sorted(nights.get(pid, {}).items(), reverse=True)
            ),
        )
        for pid, name in names.items()
    ]
    players.sort(key=lambda p: (-p.won, -(p.won / p.played if p.played else 0), -p.played, p.name.casefold()))
    return AllTime(tuple(players), (), tuple(unreadable))


def night_lines(
    games: Sequence[GameFacts], ended: Mapping[dt.date, dt.datetime | None]
) -> tuple[NightLine, ...]:
    by_night: dict[dt.date, list[GameFacts]] = {}
    for game in games:
        by_night.setdefault(night_of(game.record.created), []).append(game)
    lines = []
    for date, found in sorted(by_night.items(), reverse=True):
        seen: list[str] = []
        for game in found:
            seen += [name for _pid, name in game.players if name not in seen]
        lines.append(
            NightLine(
                date=date,
                games=len(found),
                jhyap=sum(g.record.kind == "jhyap" for g in found),
                seep=sum(g.record.kind == "seep" for g in found),
                winners=tuple(" & ".join(g.winners) for g in found if g.winners),
                players=tuple(seen),
                ended=ended.get(date),
            )
        )
    return tuple(lines)


def story(date: dt.date, games: Sequence[GameFacts]) -> NightStory:
    """The story of the night ``date`` from its games."""
    wins: dict[str, int] = {}
    order: list[str] = []
    best: Call | None = None
    comeback: tuple[str, int] | None = None
    sweeps: dict[tuple[str, ...], int] = {}
    for game in games:
        for _pid, name in game.players:
            if name not in order:
                order.append(name)
        for name in game.winners:
            wins[name] = wins.get(name, 0) + 1
        facts = game.facts
        if isinstance(facts, JhyapFacts):
            for call in facts.calls:
                if call.held and (best is None or (call.margin, -call.hand) > (best.margin, -best.hand)):
                    best = Call(
                        game.name_of(call.caller), call.hand, call.margin, game.record.id, call.number
                    )
            for played, mine in facts.players.items():
                if mine.comeback and (comeback is None or mine.comeback > comeback[1]):
                    comeback = (game.name_of(played), mine.comeback)
        elif isinstance(facts, SeepFacts):
            for team in facts.teams.values():
                key = tuple(game.name_of(n) for n in team.players)
                sweeps[key] = sweeps.get(key, 0) + team.sweeps
    top = max(wins.values(), default=0)
    winners = tuple(n for n in order if top and wins.get(n) == top)
    most = max(sweeps.items(), key=lambda kv: kv[1], default=None)
    return NightStory(
        date=date,
        games=len(games),
        winners=winners,
        wins=top,
        best_call=best,
        comeback=comeback,
        sweeps=most if most and most[1] else None,
    )


class Records:
    """The record's all-time view, read once: players, their records, the nights and their stories."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.names = {p.id: p.name for p in store.players()}
        self.games = game_facts(store.games(), store.seating(), self.names)
        ended: dict[dt.date, dt.datetime | None] = dict(store.ended_nights())
        tallied = tally(self.games, self.names)
        self.all_time = AllTime(tallied.players, night_lines(self.games, ended), tallied.unreadable)

    def player(self, player_id: int) -> PlayerRecord:
        for record in self.all_time.players:
            if record.id == player_id:
                return record
        raise KeyError(player_id)

    def night_games(self, date: dt.date) -> list[GameFacts]:
        return [g for g in self.games if night_of(g.record.created) == date]

    def story(self, date: dt.date) -> NightStory:
        return story(date, self.night_games(date))


def warm_up(store: Store) -> threading.Thread:
    """Replay every game of the record once, in a thread of its own, so that the first Players or Nights
    screen finds the facts ready (a record of many nights takes seconds to replay on a Pi)."""

    def work() -> None:
        with contextlib.suppress(Exception):  # a record fault shows on the screen that reads it, not here
            game_facts(store.games(), {}, {})

    thread = threading.Thread(target=work, name="records-warm-up", daemon=True)
    thread.start()
    return thread


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def stats_json(all_time: AllTime) -> dict[str, Any]:
    """``tabletally stats --json``: every player's Jhyap and Seep record, and the nights."""
    players = []
    for p in all_time.players:
        j, s = p.jhyap, p.seep
        players.append(
            {
                "name": p.name,
                "jhyap": {
                    "played": j.played,
                    "won": j.won,
                    "win_rate": _rate(j.win_rate),
                    "calls": j.calls,
                    "calls_won": j.calls_won,
                    "penalties": j.penalties,
                    "eliminations": j.eliminations,
                    "rounds": j.rounds,
                    "average_hand": None if j.average_hand is None else round(j.average_hand, 2),
                    "best_comeback": j.best_comeback,
                },
                "seep": {
                    "played": s.played,
                    "won": s.won,
                    "win_rate": _rate(s.win_rate),
                    "baazis": s.baazis,
                    "sweeps": s.sweeps,
                },
                "nights": len(p.nights),
                "last_night": p.nights[0].date.isoformat() if p.nights else None,
            }
        )
    nights = [
        {
            "date": n.date.isoformat(),
            "games": n.games,
            "jhyap": n.jhyap,
            "seep": n.seep,
            "winners": list(n.winners),
            "players": list(n.players),
        }
        for n in all_time.nights
    ]
    out: dict[str, Any] = {"players": players, "nights": nights}
    if all_time.unreadable:
        out["unreadable"] = [{"game": gid, "problem": why} for gid, why in all_time.unreadable]
    return out
