"""The one place where the kiosk talks to the rules engine.

Games are kept as the scorer's JSON game log (a dict); every number shown on screen comes from the scorer
replaying that log. Nothing here computes a score: it builds log entries from what the players confirmed and
asks the scorer whether they are possible and what they make.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import scorer
from scorer import (
    Card,
    JhyapGame,
    JhyapRules,
    JhyapState,
    ScorerError,
    SeepDeal,
    SeepGame,
    SeepRules,
    SeepState,
    Sweep,
    SweepWhen,
    cards_over_decks,
    check_sweeps,
    game_from_dict,
    game_to_dict,
    hand_value,
    state_to_dict,
)
from ui.i18n import N_
from ui.logic.rule_messages import explain

JHYAP = "jhyap"
SEEP = "seep"
SEEP_TEAMS = ("A", "B")
SWEEP_KINDS = ("first", "normal", "last")


class GameSetupError(ValueError):
    """A new game's players, rules or decks are not possible (the message says which)."""


@dataclass(frozen=True)
class RuleField:
    """One switch of the rules engine, with the engine's default."""

    name: str
    default: int | bool
    label: str

    @property
    def is_bool(self) -> bool:
        return isinstance(self.default, bool)


_LABELS = {
    "max_score": N_("Out above"),
    "call_limit": N_("Call limit"),
    "caller_penalty": N_("Caller penalty"),
    "tie_penalizes_caller": N_("A tie beats the caller"),
    "halve_exact": N_("Exactly 200 halves"),
    "hand_limit": N_("Cards in a hand"),
    "baazi_lead": N_("Baazi at lead"),
    "min_points": N_("Lose below"),
    "sweep_points": N_("Sweep"),
    "first_sweep_points": N_("First-play sweep"),
    "last_sweep_points": N_("Last-play sweep"),
}


def rule_fields(kind: str) -> tuple[RuleField, ...]:
    """The rule switches of a game kind with the rules engine's defaults, in the engine's order."""
    rules_cls: type[JhyapRules | SeepRules] = JhyapRules if kind == JHYAP else SeepRules
    out = []
    for f in dataclasses.fields(rules_cls):
        default = f.default
        if isinstance(default, bool | int):
            out.append(RuleField(f.name, default, _LABELS.get(f.name, f.name.replace("_", " ").capitalize())))
    return tuple(out)


def rules_allowed(kind: str, rules: Mapping[str, Any]) -> bool:
    """Whether the rules engine takes these rules for a game of ``kind`` (max_score at least 1 and, with
    halve_exact, a multiple of 4; hand_limit and baazi_lead at least 1; min_points at most 50...)."""
    rules_cls: type[JhyapRules | SeepRules] = JhyapRules if kind == JHYAP else SeepRules
    try:
        rules_cls(**rules)
    except (ScorerError, TypeError):
        return False
    return True


def new_jhyap_log(
    players: Sequence[str], first_dealer: str | None, decks: int | None, rules: Mapping[str, Any]
) -> dict[str, Any]:
    """The game log of a new Jhyap game, checked by the scorer. Raises GameSetupError naming the problem."""
    data: dict[str, Any] = {"game": JHYAP, "players": list(players), "rules": dict(rules), "rounds": []}
    if first_dealer is not None:
        data["first_dealer"] = first_dealer
    if decks is not None:
        data["decks"] = decks
    return _checked(data)


def new_seep_log(teams: Mapping[str, Sequence[str]], rules: Mapping[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "game": SEEP,
        "teams": {team: list(names) for team, names in teams.items()},
        "rules": dict(rules),
        "deals": [],
    }
    return _checked(data)


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    try:
        game_from_dict(data)
    except ScorerError as exc:
        raise GameSetupError(str(exc)) from exc
    return data


def load(log: Mapping[str, Any]) -> JhyapGame | SeepGame:
    """The scorer's game object for a game log."""
    return game_from_dict(dict(log))


def score(log: Mapping[str, Any]) -> JhyapState | SeepState:
    """The scorer's state after every round or deal of a game log (:func:`scorer.score` of the game)."""
    return scorer.score(load(log))


def jhyap_game(log: Mapping[str, Any]) -> JhyapGame:
    """:func:`load` of a Jhyap game log. Raises ScorerError for any other log."""
    game = load(log)
    if not isinstance(game, JhyapGame):
        raise ScorerError(f"expected a Jhyap game log, got a {log.get('game')!r} game")
    return game


def jhyap_state(log: Mapping[str, Any]) -> JhyapState:
    """:func:`score` of a Jhyap game log. Raises ScorerError for any other log."""
    state = score(log)
    if not isinstance(state, JhyapState):
        raise ScorerError(f"expected a Jhyap game log, got a {log.get('game')!r} game")
    return state


def seep_state(log: Mapping[str, Any]) -> SeepState:
    """:func:`score` of a Seep game log. Raises ScorerError for any other log."""
    state = score(log)
    if not isinstance(state, SeepState):
        raise ScorerError(f"expected a Seep game log, got a {log.get('game')!r} game")
    return state


def canonical_log(log: Mapping[str, Any]) -> dict[str, Any]:
    """The log as the scorer writes it (what the export saves and ``tabletally replay`` reads)."""
    return game_to_dict(load(log))


def facts(log: Mapping[str, Any]) -> scorer.JhyapFacts | scorer.SeepFacts:
    """What each player did in a game log (:mod:`scorer.facts`: calls, penalties, eliminations, hands,
    comeback; Seep baazis, sweeps and the team ahead). Raises ScorerError for a log that does not replay."""
    game = load(log)
    return scorer.jhyap_facts(game) if isinstance(game, JhyapGame) else scorer.seep_facts(game)


def parse_log(text: str) -> dict[str, Any]:
    """A game log's text checked whole by the scorer, as the scorer writes it (ScorerError names the problem:
    the JSON, the key, the round or deal)."""
    return game_to_dict(scorer.loads(text))


def replay_dict(log: Mapping[str, Any]) -> dict[str, Any]:
    """What ``tabletally replay`` prints for a game log."""
    return state_to_dict(score(log))


# -- Jhyap -------------------------------------------------------------------------------------------


def jhyap_entry(caller: str, hands: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """One Jhyap round in the game-log format."""
    return {"caller": caller, "hands": {name: list(cards) for name, cards in hands.items()}}


def hand_total(codes: Sequence[str]) -> int | None:
    """The scorer's value of a hand, or None if a code is not a card."""
    try:
        return hand_value(Card.parse(c) for c in codes)
    except ScorerError:
        return None


def check_jhyap_entry(
    log: Mapping[str, Any], entry: Mapping[str, Any], position: int | None = None
) -> str | None:
    """Why the round cannot be played next (or at ``position``, replacing that round), or None when it can."""
    try:
        if position is None:
            score({**log, "rounds": [*log["rounds"], dict(entry)]})
        else:
            rounds = list(log["rounds"])
            rounds[position] = dict(entry)
            score({**log, "rounds": rounds})
    except ScorerError as exc:
        return explain(str(exc))
    return None


def jhyap_preview(log: Mapping[str, Any], entry: Mapping[str, Any]) -> JhyapState | None:
    try:
        return jhyap_state({**log, "rounds": [*log["rounds"], dict(entry)]})
    except ScorerError:
        return None


def deck_count(log: Mapping[str, Any]) -> int:
    return jhyap_game({**log, "rounds": []}).deck_count


def over_decks(hands: Mapping[str, Sequence[str]], decks: int) -> set[str]:
    """Codes that appear more often across the hands than ``decks`` decks hold (to highlight them)."""
    cards = []
    for codes in hands.values():
        for code in codes:
            try:
                cards.append(Card.parse(code))
            except ScorerError:
                continue  # not a card: flagged elsewhere, cannot be over the decks
    over = {card.code for card in cards_over_decks(cards, decks)}
    return {code for codes in hands.values() for code in codes if code in over}


# -- Seep --------------------------------------------------------------------------------------------


def seep_entry(
    captured: Mapping[str, Sequence[str] | None], sweeps: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """One Seep deal in the game-log format; a team whose cards were not scanned is left out."""
    out_sweeps: list[dict[str, str]] = []
    for team, when in sweeps:
        item = {"team": team}
        if when != "normal":
            item["when"] = when
        out_sweeps.append(item)
    return {
        "captured": {team: list(cards) for team, cards in captured.items() if cards is not None},
        "sweeps": out_sweeps,
    }


def check_seep_entry(
    log: Mapping[str, Any], entry: Mapping[str, Any], position: int | None = None
) -> str | None:
    try:
        deals = list(log["deals"])
        if position is None:
            deals.append(dict(entry))
        else:
            deals[position] = dict(entry)
        score({**log, "deals": deals})
    except ScorerError as exc:
        return explain(str(exc))
    return None


def seep_sweeps_problem(
    log: Mapping[str, Any],
    captured: Mapping[str, Sequence[str] | None],
    sweeps: Sequence[tuple[str, str]],
    position: int | None = None,
) -> str | None:
    """Why a deal of ``log`` with these sweeps cannot have been played (the scorer's sweep limits,
    scorer.seep.check_sweeps, with the captured cards known so far), in the players' words; None when it
    can. ``position``: the deal edited, else the next one."""
    try:
        game = game_from_dict({**log, "deals": []})
        assert isinstance(game, SeepGame)
        known = {
            team: tuple(Card.parse(c) for c in codes) for team, codes in captured.items() if codes is not None
        }
        deal = SeepDeal(known, tuple(Sweep(team, SweepWhen(when)) for team, when in sweeps))
        check_sweeps(game, deal, (len(log["deals"]) if position is None else position) + 1)
    except ScorerError as exc:
        return explain(str(exc))
    return None


def seep_preview(log: Mapping[str, Any], entry: Mapping[str, Any]) -> SeepState | None:
    try:
        return seep_state({**log, "deals": [*log["deals"], dict(entry)]})
    except ScorerError:
        return None


def missing_point_cards(captured: Mapping[str, Sequence[str] | None]) -> tuple[str, ...]:
    """Point cards that no scanned team holds (meaningful when both teams were scanned), in card order."""
    cards = {team: [Card.parse(c) for c in codes] for team, codes in captured.items() if codes is not None}
    return tuple(c.code for c in scorer.missing_point_cards(cards))


def doubled_cards(captured: Mapping[str, Sequence[str] | None]) -> tuple[str, ...]:
    cards = {team: [Card.parse(c) for c in codes] for team, codes in captured.items() if codes is not None}
    return tuple(c.code for c in scorer.doubled_cards(cards))


def seep_card_points(codes: Sequence[str]) -> int:
    """The Seep card points of these cards (spades their value, other aces 1, the ten of diamonds 6)."""
    return sum(scorer.seep_card_points(Card.parse(c)) for c in codes)
