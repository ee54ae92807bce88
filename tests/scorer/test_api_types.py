"""The Python API rejects values of the wrong type with a message naming them, never a bare TypeError."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scorer import (
    JhyapGame,
    JhyapRound,
    SeepDeal,
    SeepGame,
    Sweep,
    check_round,
    game_from_dict,
    game_to_dict,
    score,
    score_jhyap,
    score_seep,
    seep_card_points,
    state_to_dict,
)
from scorer.errors import JhyapError, LogError, ScorerError, SeepError

TEAMS = {"A": ("a", "b"), "B": ("c", "d")}


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: JhyapRound("A", ["AS"]), JhyapError, "hands must map player names to cards"),  # type: ignore[arg-type]
        (lambda: JhyapRound("A", {1: ()}), JhyapError, "player names must be strings, got 1"),  # type: ignore[dict-item]
        (lambda: JhyapGame(("A", "B"), rules={}), JhyapError, "rules must be JhyapRules"),  # type: ignore[arg-type]
        (lambda: JhyapGame(("A", "B"), rounds=None), JhyapError, "rounds must be a list of rounds"),  # type: ignore[arg-type]
        (lambda: check_round(JhyapGame(("A", "B")), "AS"), JhyapError, "round 1: expected a JhyapRound"),  # type: ignore[arg-type]
        (lambda: score_jhyap("game"), JhyapError, "expected a JhyapGame, got 'game'"),  # type: ignore[arg-type]
        (lambda: seep_card_points("AS"), SeepError, "expected a Card, got 'AS'"),  # type: ignore[arg-type]
        (lambda: Sweep(None), SeepError, "sweep team must be a team name, got None"),  # type: ignore[arg-type]
        (lambda: SeepDeal({"A": None}), SeepError, "team A's captured cards must be a list of cards"),  # type: ignore[dict-item]
        (lambda: SeepDeal(["AS"]), SeepError, "captured must map team names to cards"),  # type: ignore[arg-type]
        (lambda: SeepDeal({3: ()}), SeepError, "team names must be strings, got 3"),  # type: ignore[dict-item]
        (lambda: SeepDeal({"A": ()}, None), SeepError, "sweeps must be a list of sweeps"),  # type: ignore[arg-type]
        (lambda: SeepGame([("a", "b"), ("c", "d")]), SeepError, "teams must map two team names"),  # type: ignore[arg-type]
        (lambda: SeepGame(TEAMS, rules=None), SeepError, "rules must be SeepRules"),  # type: ignore[arg-type]
        (lambda: SeepGame(TEAMS, deals=None), SeepError, "deals must be a list of deals"),  # type: ignore[arg-type]
        (lambda: SeepGame(TEAMS).with_deal("deal"), SeepError, "deal 1: expected a SeepDeal"),  # type: ignore[arg-type]
        (lambda: score_seep(None), SeepError, "expected a SeepGame, got None"),  # type: ignore[arg-type]
        (lambda: score(None), LogError, "expected a JhyapGame or SeepGame"),  # type: ignore[arg-type]
        (lambda: game_to_dict(None), LogError, "expected a JhyapGame or SeepGame"),  # type: ignore[arg-type]
        (lambda: state_to_dict(None), LogError, "expected a JhyapState or SeepState"),  # type: ignore[arg-type]
        (
            lambda: game_from_dict({"game": "jhyap", "players": ("A", "B"), "rounds": []}),
            LogError,
            "got tuple",
        ),
    ],
)
def test_wrong_types_raise_scorer_errors(
    call: Callable[[], object], error: type[ScorerError], message: str
) -> None:
    with pytest.raises(error, match=message):
        call()
