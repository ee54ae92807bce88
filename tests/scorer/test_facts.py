"""scorer.facts: what each player did in one game (calls, penalties, eliminations, hands, comeback;
Seep baazis and sweeps), from the game's replay."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from scorer import JhyapGame, JhyapRules, SeepGame, loads
from scorer.errors import JhyapError, SeepError
from scorer.facts import JhyapCall, jhyap_facts, seep_facts
from tests.scorer.helpers import play, rnd, seep_deal

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
RULES = JhyapRules(max_score=40, halve_exact=False)


def test_a_held_call_and_a_beaten_one() -> None:
    game = JhyapGame(("A", "B"), rounds=(rnd("A", A="3S", B="10H"), rnd("B", A="AH", B="2C")))
    facts = jhyap_facts(game)
    assert facts.calls == (JhyapCall(1, "A", 3, True, 7), JhyapCall(2, "B", 2, False, -1))
    a, b = facts.players["A"], facts.players["B"]
    assert (a.calls, a.calls_held, a.penalties, a.hands) == (1, 1, 0, (3, 1))
    assert (b.calls, b.calls_held, b.penalties, b.hands) == (1, 0, 1, (10, 2))
    assert not facts.finished and facts.winner is None and a.comeback is None and b.eliminated_in is None


def test_the_winner_came_back_from_twenty_behind() -> None:
    game = play(
        JhyapGame(("A", "B", "C"), rules=RULES),
        ("B", {"A": 20, "B": 0, "C": 5}),  # A 20 behind B
        ("C", {"A": 5, "B": 15, "C": 0}),  # A 25, B 15, C 5: 20 behind C
        ("A", {"A": 1, "B": 30, "C": 40}),  # B and C go out over 40
    )
    facts = jhyap_facts(game)
    assert facts.finished and facts.winner == "A" and facts.rounds == 3
    a, b, c = (facts.players[n] for n in "ABC")
    assert a.won and a.comeback == 20 and a.hands == (20, 5, 1)
    assert not b.won and b.comeback is None and b.eliminated_in == 3 and c.eliminated_in == 3
    assert list(facts.players) == ["A", "B", "C"]


def test_a_winner_never_behind_has_a_comeback_of_zero() -> None:
    game = play(JhyapGame(("A", "B"), rules=RULES), ("A", {"A": 0, "B": 41}))
    assert jhyap_facts(game).players["A"].comeback == 0


def test_the_four_player_example() -> None:
    game = loads((EXAMPLES / "jhyap-four-players.json").read_text(encoding="utf-8"))
    assert isinstance(game, JhyapGame)
    facts = jhyap_facts(game)
    assert facts.winner == "Dipesh" and len(facts.calls) == 14
    asha = facts.players["Asha"]
    assert (asha.calls, asha.calls_held, asha.penalties, asha.eliminated_in) == (3, 2, 1, 12)
    assert facts.calls[8] == JhyapCall(9, "Asha", 5, False, -4)


def test_seep_baazis_sweeps_and_the_team_ahead() -> None:
    game = loads((EXAMPLES / "seep-two-baazis.json").read_text(encoding="utf-8"))
    assert isinstance(game, SeepGame)
    facts = seep_facts(game)
    assert facts.deals == 7 and facts.winner is None  # one baazi each
    assert (facts.teams["A"].baazis, facts.teams["A"].sweeps) == (1, 2)
    assert (facts.teams["B"].players, facts.teams["B"].baazis, facts.teams["B"].sweeps) == (
        ("Raj", "Meera"),
        1,
        3,
    )
    won = SeepGame({"A": ("a", "b"), "B": ("c", "d")}, deals=(seep_deal(100, ("A", "normal")),))
    facts = seep_facts(won)
    assert facts.winner == "A" and facts.teams["A"].baazis == 1 and facts.teams["A"].sweeps == 1


def test_facts_are_frozen_and_hashable() -> None:
    facts = jhyap_facts(JhyapGame(("A", "B"), rounds=(rnd("A", A="3S", B="10H"),)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.players["A"].calls = 2  # type: ignore[misc]
    assert hash(facts) == hash(jhyap_facts(JhyapGame(("A", "B"), rounds=(rnd("A", A="3S", B="10H"),))))


def test_wrong_input_is_named() -> None:
    with pytest.raises(JhyapError, match="expected a JhyapGame, got 'game'"):
        jhyap_facts("game")  # type: ignore[arg-type]
    with pytest.raises(SeepError, match="expected a SeepGame, got None"):
        seep_facts(None)  # type: ignore[arg-type]
    with pytest.raises(JhyapError, match="round 1: caller A's hand totals 20, over the call limit of 5"):
        jhyap_facts(JhyapGame(("A", "B"), rounds=(rnd("A", A="10S 10H", B="AS"),)))
