"""The JSON game log: TableTally's interchange format (see ``docs/game-log.md``).

:func:`loads` / :func:`game_from_dict` turn a log into a validated :class:`JhyapGame` or
:class:`SeepGame` and raise :class:`LogError` for anything wrong with it (bad JSON, unknown keys,
wrong types, bad card codes, and every rule error found while replaying), with a message that
names the round or deal and the problem. :func:`dumps` / :func:`game_to_dict` write a game back;
:func:`state_to_dict` gives the ``tabletally replay`` output; :func:`replay` does it all at once.

This module does no I/O: callers read and write the text.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TypeVar

from scorer._checks import RULE_VALUE_MAX
from scorer.cards import Card, parse_cards
from scorer.errors import LogError, ScorerError
from scorer.jhyap import JhyapGame, JhyapRound, JhyapRules, JhyapState, score_jhyap
from scorer.seep import (
    Lead,
    SeepDeal,
    SeepGame,
    SeepRules,
    SeepState,
    Sweep,
    SweepWhen,
    score_seep,
)

__all__ = [
    "Game",
    "LogError",
    "State",
    "dumps",
    "game_from_dict",
    "game_to_dict",
    "loads",
    "replay",
    "replay_text",
    "round_from_dict",
    "deal_from_dict",
    "score",
    "state_to_dict",
]

Game = JhyapGame | SeepGame
State = JhyapState | SeepState
JSONDict = dict[str, Any]
_E = TypeVar("_E")  # a round or a deal
_G = TypeVar("_G")  # the game they make

_GAME_KINDS = ("jhyap", "seep")
_JHYAP_KEYS = ("game", "players", "first_dealer", "decks", "rules", "rounds")
_JHYAP_REQUIRED = ("game", "players", "rounds")
_JHYAP_RULE_KEYS = (
    "max_score",
    "call_limit",
    "caller_penalty",
    "tie_penalizes_caller",
    "halve_exact",
    "hand_limit",
)
_ROUND_KEYS = ("caller", "hands")
_SEEP_KEYS = ("game", "teams", "rules", "deals")
_SEEP_REQUIRED = ("game", "teams", "deals")
_SEEP_RULE_KEYS = ("baazi_lead", "min_points", "sweep_points", "first_sweep_points", "last_sweep_points")
_DEAL_KEYS = ("captured", "sweeps")
_DEAL_REQUIRED = ("captured",)
_SWEEP_KEYS = ("team", "when")
_SWEEP_WHEN = {"first": SweepWhen.FIRST, "last": SweepWhen.LAST}


class _JSONObject(dict[str, Any]):
    """A decoded JSON object that remembers keys given more than once (json keeps only the last)."""

    duplicates: tuple[str, ...] = ()


def _object_hook(pairs: list[tuple[str, Any]]) -> _JSONObject:
    obj = _JSONObject(pairs)
    if len(obj) != len(pairs):
        counts = Counter(key for key, _ in pairs)
        obj.duplicates = tuple(key for key, count in counts.items() if count > 1)
    return obj


def _describe(value: object) -> str:
    """A JSON value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _prefix(where: str, message: str) -> str:
    return f"{where}: {message}" if where else message


def _object(value: object, where: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise LogError(_prefix(where, f"{what} must be a JSON object, got {_describe(value)}"))
    duplicates = getattr(value, "duplicates", ())
    if duplicates:
        raise LogError(_prefix(where, f"{what} gives {duplicates[0]!r} more than once"))
    return value


def _keys(
    obj: Mapping[str, Any], allowed: tuple[str, ...], required: tuple[str, ...], where: str, what: str
) -> None:
    for key in obj:
        if key not in allowed:
            raise LogError(_prefix(where, f"unknown key {key!r} in {what} (allowed: {', '.join(allowed)})"))
    for key in required:
        if key not in obj:
            raise LogError(_prefix(where, f"{what} is missing {key!r}"))


def _list(value: object, where: str, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise LogError(_prefix(where, f"{what} must be a JSON list, got {_describe(value)}"))
    return value


def _string(value: object, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise LogError(_prefix(where, f"{what} must be a string, got {_describe(value)}"))
    return value


def _cards(value: object, where: str, what: str) -> tuple[Card, ...]:
    codes = _list(value, where, what)
    for code in codes:
        if not isinstance(code, str):
            raise LogError(_prefix(where, f"{what}: card codes must be strings, got {_describe(code)}"))
    try:
        return parse_cards(codes)
    except ScorerError as exc:
        raise LogError(_prefix(where, f"{what}: {exc}")) from exc


@contextmanager
def _context(where: str) -> Iterator[None]:
    """Turn the rule errors of the block into LogError, with ``where`` prefixed."""
    try:
        yield
    except LogError:
        raise
    except ScorerError as exc:
        raise LogError(_prefix(where, str(exc))) from exc


def _rules_kwargs(value: object, allowed: tuple[str, ...]) -> dict[str, Any]:
    rules = _object(value, "", "rules")
    _keys(rules, allowed, (), "", "rules")
    return dict(rules)


def _replayed(
    raws: list[Any],
    label: str,
    parse: Callable[[object, str], _E],
    build: Callable[[tuple[_E, ...]], _G],
    score_game: Callable[[_G], object],
) -> _G:
    """The game ``build`` makes of the rounds or deals parsed from ``raws``, replayed by ``score_game``.

    When entry N is malformed, a rule broken by entries 1..N-1 is reported first: it is the earlier error.
    """
    entries: list[_E] = []
    for number, raw in enumerate(raws, 1):
        try:
            entries.append(parse(raw, f"{label} {number}"))
        except LogError:
            with _context(""):
                score_game(build(tuple(entries)))
            raise
    with _context(""):
        game = build(tuple(entries))
        score_game(game)
    return game


def _jhyap_from_dict(data: dict[str, Any]) -> JhyapGame:
    _keys(data, _JHYAP_KEYS, _JHYAP_REQUIRED, "", "a Jhyap log")
    players = tuple(_string(name, "", "each player") for name in _list(data["players"], "", "players"))
    rules_kwargs = _rules_kwargs(data.get("rules", {}), _JHYAP_RULE_KEYS)
    first_dealer = data.get("first_dealer")
    if first_dealer is not None:
        _string(first_dealer, "", "first_dealer")
    decks = data.get("decks")
    with _context(""):
        game = JhyapGame(players, JhyapRules(**rules_kwargs), first_dealer, decks)
    raws = _list(data["rounds"], "", "rounds")
    return _replayed(raws, "round", _round, lambda rounds: replace(game, rounds=rounds), score_jhyap)


def _round(raw: object, where: str) -> JhyapRound:
    obj = _object(raw, where, "the round")
    _keys(obj, _ROUND_KEYS, _ROUND_KEYS, where, "the round")
    caller = _string(obj["caller"], where, "caller")
    hands_obj = _object(obj["hands"], where, "hands")
    hands = {player: _cards(cards, where, f"{player}'s hand") for player, cards in hands_obj.items()}
    with _context(where):
        return JhyapRound(caller, hands)


def _seep_from_dict(data: dict[str, Any]) -> SeepGame:
    _keys(data, _SEEP_KEYS, _SEEP_REQUIRED, "", "a Seep log")
    teams_obj = _object(data["teams"], "", "teams")
    teams: dict[str, tuple[str, ...]] = {}
    for team, members in teams_obj.items():
        names = _list(members, "", f"team {team}")
        teams[team] = tuple(_string(name, "", f"each player of team {team}") for name in names)
    rules_kwargs = _rules_kwargs(data.get("rules", {}), _SEEP_RULE_KEYS)
    with _context(""):
        # SeepGame checks that there are two teams of exactly two players.
        game = SeepGame(teams, SeepRules(**rules_kwargs))  # type: ignore[arg-type]
    raws = _list(data["deals"], "", "deals")
    return _replayed(raws, "deal", _deal, lambda deals: replace(game, deals=deals), score_seep)


def _deal(raw: object, where: str) -> SeepDeal:
    obj = _object(raw, where, "the deal")
    _keys(obj, _DEAL_KEYS, _DEAL_REQUIRED, where, "the deal")
    captured_obj = _object(obj["captured"], where, "captured")
    captured = {team: _cards(cards, where, f"team {team}'s cards") for team, cards in captured_obj.items()}
    sweeps = [
        _sweep(raw_sweep, f"{where}: sweep {index}")
        for index, raw_sweep in enumerate(_list(obj.get("sweeps", []), where, "sweeps"), 1)
    ]
    with _context(where):
        return SeepDeal(captured, tuple(sweeps))


def _sweep(raw: object, where: str) -> Sweep:
    obj = _object(raw, where, "the sweep")
    _keys(obj, _SWEEP_KEYS, ("team",), where, "the sweep")
    team = _string(obj["team"], where, "team")
    raw_when = obj.get("when")
    if raw_when is None:
        return Sweep(team)
    if isinstance(raw_when, str) and raw_when in _SWEEP_WHEN:
        return Sweep(team, _SWEEP_WHEN[raw_when])
    raise LogError(f'{where}: "when" must be "first", "last" or absent, got {_describe(raw_when)}')


def round_from_dict(data: object, number: int = 1) -> JhyapRound:
    """One Jhyap round entry of a log (``{"caller": ..., "hands": {...}}``), parsed but not checked
    against any game; ``number`` only labels messages. Use :func:`scorer.jhyap.check_round` to check
    it as the next round of a game. Raises :class:`LogError`."""
    return _round(data, f"round {number}")


def deal_from_dict(data: object, number: int = 1) -> SeepDeal:
    """One Seep deal entry of a log, parsed but not checked against any game; ``number`` only labels
    messages. Use :func:`scorer.seep.check_deal` to check it as the next deal. Raises :class:`LogError`."""
    return _deal(data, f"deal {number}")


def game_from_dict(data: object) -> Game:
    """The game a decoded JSON log describes, fully validated. Raises :class:`LogError`."""
    obj = _object(data, "", "the game log")
    if "game" not in obj:
        raise LogError(f'the game log is missing "game" (one of: {", ".join(_GAME_KINDS)})')
    kind = obj["game"]
    if kind == "jhyap":
        return _jhyap_from_dict(obj)
    if kind == "seep":
        return _seep_from_dict(obj)
    raise LogError(f'"game" must be "jhyap" or "seep", got {_describe(kind)}')


def _codes(cards: tuple[Card, ...]) -> list[str]:
    return [card.code for card in cards]


def game_to_dict(game: Game) -> JSONDict:
    """The JSON log of ``game`` (all rules written out; absent optional values left out)."""
    if isinstance(game, JhyapGame):
        out: JSONDict = {"game": "jhyap", "players": list(game.players)}
        if game.first_dealer is not None:
            out["first_dealer"] = game.first_dealer
        if game.decks is not None:
            out["decks"] = game.decks
        out["rules"] = {key: getattr(game.rules, key) for key in _JHYAP_RULE_KEYS}
        out["rounds"] = [
            {"caller": r.caller, "hands": {player: _codes(cards) for player, cards in r.hands.items()}}
            for r in game.rounds
        ]
        return out
    if isinstance(game, SeepGame):
        deals: list[JSONDict] = []
        for deal in game.deals:
            entry: JSONDict = {"captured": {team: _codes(cards) for team, cards in deal.captured.items()}}
            if deal.sweeps:
                entry["sweeps"] = [
                    {"team": s.team} if s.when is SweepWhen.NORMAL else {"team": s.team, "when": s.when.value}
                    for s in deal.sweeps
                ]
            deals.append(entry)
        return {
            "game": "seep",
            "teams": {team: list(members) for team, members in game.teams.items()},
            "rules": {key: getattr(game.rules, key) for key in _SEEP_RULE_KEYS},
            "deals": deals,
        }
    raise LogError(f"expected a JhyapGame or SeepGame, got {game!r}")


def _lead_dict(lead: Lead) -> JSONDict:
    return {"team": lead.team, "points": lead.points}


def state_to_dict(state: State) -> JSONDict:
    """The ``tabletally replay`` output for a scored game (see ``docs/game-log.md``)."""
    if isinstance(state, JhyapState):
        return {
            "game": "jhyap",
            "rounds": [
                {
                    "number": r.number,
                    "dealer": r.dealer,
                    "caller": r.caller,
                    "hand_totals": dict(r.hand_totals),
                    "caller_won": r.caller_won,
                    "points": dict(r.points),
                    "totals": dict(r.totals),
                    "halved": list(r.halved),
                    "eliminated": list(r.eliminated),
                    "next_starter": r.next_starter,
                }
                for r in state.rounds
            ],
            "totals": dict(state.totals),
            "active": list(state.active),
            "eliminated": list(state.eliminated),
            "finished": state.finished,
            "winner": state.winner,
            "next_dealer": state.next_dealer,
            "next_starter": state.next_starter,
        }
    if isinstance(state, SeepState):
        return {
            "game": "seep",
            "deals": [
                {
                    "number": d.number,
                    "card_points": dict(d.card_points),
                    "sweep_points": dict(d.sweep_points),
                    "points": dict(d.points),
                    "lead": _lead_dict(d.lead),
                    "baazi": None
                    if d.baazi is None
                    else {"winner": d.baazi.winner, "reason": d.baazi.reason.value},
                }
                for d in state.deals
            ],
            "lead": _lead_dict(state.lead),
            "baazis": dict(state.baazis),
        }
    raise LogError(f"expected a JhyapState or SeepState, got {state!r}")


def score(game: Game) -> State:
    """Score either kind of game."""
    if isinstance(game, JhyapGame):
        return score_jhyap(game)
    if isinstance(game, SeepGame):
        return score_seep(game)
    raise LogError(f"expected a JhyapGame or SeepGame, got {game!r}")


def loads(text: str) -> Game:
    """Parse a JSON game log. Raises :class:`LogError` for bad JSON or an invalid log."""
    if not isinstance(text, str):
        raise LogError(f"a game log must be text, got {type(text).__name__}")
    try:
        data = json.loads(text, object_pairs_hook=_object_hook)
    except json.JSONDecodeError as exc:
        raise LogError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    except RecursionError as exc:
        raise LogError("invalid JSON: nested too deeply") from exc
    except ValueError as exc:
        # json turns digits into an int before any check of ours: Python refuses more than 4,300 of them.
        raise LogError(
            "invalid JSON: a number too long to read (over 4,300 digits; no number in a game log needs more "
            f"than {len(str(RULE_VALUE_MAX))})"
        ) from exc
    return game_from_dict(data)


def dumps(game: Game, *, indent: int | None = 2) -> str:
    """``game`` as JSON log text."""
    return json.dumps(game_to_dict(game), indent=indent, ensure_ascii=False)


def replay(data: object) -> JSONDict:
    """Validate, score and report a decoded JSON log: the ``tabletally replay`` output."""
    return state_to_dict(score(game_from_dict(data)))


def replay_text(text: str) -> JSONDict:
    """:func:`replay` for JSON text (duplicate keys are caught here, which decoded dicts cannot show)."""
    return state_to_dict(score(loads(text)))
