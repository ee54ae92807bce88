"""What each player did in one game, as the rules see it: the facts a record of many nights adds up.

A Jhyap game's calls (who called, with what hand, whether the call held and by how much), each player's
failed calls (the caller penalty paid), the round they went out in, their hand at the end of every round
they played, and the winner's comeback; a Seep game's baazis and sweeps per team and the team ahead on
baazis. Every fact comes from replaying the game (:func:`score_jhyap`, :func:`score_seep`); a game
that does not replay raises the same error its replay does.

* A call *holds* when no other hand beats the caller's (the caller adds 0); its ``margin`` is the
  lowest other hand minus the caller's hand (negative or 0 when the call was beaten).
* A Jhyap *comeback* is the most points the winner was behind the lowest total of the others still in
  at the end of any round; 0 when the winner was never behind. Only a finished game with a winner has one.
* A Seep game is *won* by the team with more baazis; with the baazis level nobody won it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scorer._frozen import FrozenDict, freeze
from scorer.errors import JhyapError, SeepError
from scorer.jhyap import JhyapGame, score_jhyap
from scorer.seep import SeepGame, score_seep

__all__ = [
    "JhyapCall",
    "JhyapFacts",
    "JhyapPlayerFacts",
    "SeepFacts",
    "SeepTeamFacts",
    "jhyap_facts",
    "seep_facts",
]


@dataclass(frozen=True)
class JhyapCall:
    """One call: round ``number``, the ``caller`` and their ``hand`` total, whether it ``held``, and the
    ``margin`` (the lowest other hand minus the caller's)."""

    number: int
    caller: str
    hand: int
    held: bool
    margin: int


@dataclass(frozen=True)
class JhyapPlayerFacts:
    """One player in one Jhyap game. ``hands`` holds their hand total at the end of each round they
    played; ``eliminated_in`` the round they went out in (None if never); ``comeback`` is None unless they
    won the game."""

    name: str
    won: bool
    calls: int
    calls_held: int
    penalties: int
    eliminated_in: int | None
    hands: tuple[int, ...]
    comeback: int | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "hands", tuple(self.hands))


@dataclass(frozen=True)
class JhyapFacts:
    """A Jhyap game's facts: finished or not, its winner, its calls in order and each player's facts (in
    seating order)."""

    finished: bool
    winner: str | None
    rounds: int
    calls: tuple[JhyapCall, ...]
    players: Mapping[str, JhyapPlayerFacts]

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(self.calls))
        object.__setattr__(self, "players", freeze(self.players))


@dataclass(frozen=True)
class SeepTeamFacts:
    """One team in one Seep game: its players, baazis won, sweeps made (first and last plays included)."""

    team: str
    players: tuple[str, ...]
    baazis: int
    sweeps: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))


@dataclass(frozen=True)
class SeepFacts:
    """A Seep game's facts: deals played, the team ahead on baazis (None when level), each team's facts."""

    deals: int
    winner: str | None
    teams: Mapping[str, SeepTeamFacts]

    def __post_init__(self) -> None:
        object.__setattr__(self, "teams", freeze(self.teams))


def jhyap_facts(game: JhyapGame) -> JhyapFacts:
    """The facts of ``game`` (replayed; :class:`JhyapError` names its first bad round)."""
    if not isinstance(game, JhyapGame):
        raise JhyapError(f"expected a JhyapGame, got {game!r}")
    state = score_jhyap(game)
    calls: list[JhyapCall] = []
    hands: dict[str, list[int]] = {name: [] for name in game.players}
    out_in: dict[str, int] = {}
    behind = 0  # the most the eventual winner trailed the others' lowest total
    for result in state.rounds:
        caller_hand = result.hand_totals[result.caller]
        others = [total for name, total in result.hand_totals.items() if name != result.caller]
        # A round has at least two players in, so the caller always has someone to be compared with.
        margin = min(others) - caller_hand
        calls.append(JhyapCall(result.number, result.caller, caller_hand, result.caller_won, margin))
        for name, total in result.hand_totals.items():
            hands[name].append(total)
        out_in.update(dict.fromkeys(result.eliminated, result.number))
        winner = state.winner
        if winner is not None:
            still_in = [n for n in result.hand_totals if n != winner and n not in result.eliminated]
            if still_in:
                behind = max(behind, result.totals[winner] - min(result.totals[n] for n in still_in))
    players: dict[str, JhyapPlayerFacts] = {}
    for name in game.players:
        mine = [c for c in calls if c.caller == name]
        won = state.finished and state.winner == name
        players[name] = JhyapPlayerFacts(
            name=name,
            won=won,
            calls=len(mine),
            calls_held=sum(c.held for c in mine),
            penalties=sum(not c.held for c in mine),
            eliminated_in=out_in.get(name),
            hands=tuple(hands[name]),
            comeback=behind if won else None,
        )
    return JhyapFacts(
        finished=state.finished,
        winner=state.winner,
        rounds=len(state.rounds),
        calls=tuple(calls),
        players=FrozenDict(players),
    )


def seep_facts(game: SeepGame) -> SeepFacts:
    """The facts of ``game`` (replayed; :class:`SeepError` names its first bad deal)."""
    if not isinstance(game, SeepGame):
        raise SeepError(f"expected a SeepGame, got {game!r}")
    state = score_seep(game)
    sweeps = {team: 0 for team in game.teams}
    for deal in game.deals:
        for sweep in deal.sweeps:
            sweeps[sweep.team] += 1
    first, second = game.team_names
    a, b = state.baazis[first], state.baazis[second]
    winner = None if a == b else (first if a > b else second)
    teams = {
        team: SeepTeamFacts(team, tuple(game.teams[team]), state.baazis[team], sweeps[team])
        for team in game.teams
    }
    return SeepFacts(deals=len(state.deals), winner=winner, teams=FrozenDict(teams))
