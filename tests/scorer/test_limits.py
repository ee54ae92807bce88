"""What a table can hold: five-card Jhyap hands, Seep sweeps on at most every other play and only by a team
that captured cards, max_score as the docs say, ASCII card codes, and
inputs of any size that end in a clear error (never a traceback), replayed in time linear in the log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import scorer.jhyap as jhyap_module
from scorer.cards import Card, CardError
from scorer.errors import JhyapError, LogError, SeepError
from scorer.jhyap import JhyapGame, JhyapRules, score_jhyap
from scorer.log import game_from_dict, game_to_dict, loads, replay
from scorer.seep import (
    DECK,
    MAX_SWEEPS,
    PLAYS_PER_DEAL,
    PLAYS_PER_TEAM,
    SeepDeal,
    SeepGame,
    SeepRules,
    Sweep,
    SweepWhen,
    score_seep,
)
from tests.scorer.helpers import hand, rnd, seep_deal

TABLETALLY = Path(sys.executable).parent / "tabletally"
SIX = {"Asha": ["AS", "2S", "3S", "4S", "5S", "6S"], "Bikash": ["AH"], "Chandra": ["KD", "QD"]}


def jhyap_log(hands: dict[str, list[str]], rules: dict[str, Any] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "game": "jhyap",
        "players": ["Asha", "Bikash", "Chandra"],
        "rounds": [{"caller": "Bikash", "hands": hands}],
    }
    if rules is not None:
        data["rules"] = rules
    return data


# -- Jhyap: a hand holds at most hand_limit cards --------------------------------------------------------
def test_a_sixth_card_in_a_jhyap_hand_is_an_error_naming_the_player_and_the_limit() -> None:
    with pytest.raises(LogError, match=r"round 1: Asha's hand holds 6 cards, over the hand limit of 5"):
        game_from_dict(jhyap_log(SIX))


def test_five_cards_are_a_legal_hand() -> None:
    five = dict(SIX, Asha=SIX["Asha"][:5])
    assert replay(jhyap_log(five))["totals"]["Asha"] == 15


def test_the_hand_limit_is_a_house_rule_written_in_the_log() -> None:
    game = game_from_dict(jhyap_log(SIX, {"hand_limit": 6}))
    assert isinstance(game, JhyapGame)
    assert game.rules.hand_limit == 6
    assert game_to_dict(game)["rules"]["hand_limit"] == 6
    assert JhyapRules().hand_limit == 5


@pytest.mark.parametrize("value", [0, -1, True, 2.5, "5"])
def test_a_bad_hand_limit_is_refused(value: object) -> None:
    with pytest.raises(JhyapError, match="hand_limit"):
        JhyapRules(hand_limit=value)  # type: ignore[arg-type]


def test_a_six_card_round_added_from_python_is_refused_too() -> None:
    game = JhyapGame(("A", "B"))
    with pytest.raises(JhyapError, match="A's hand holds 6 cards"):
        game.with_round(rnd("B", A="AS 2S 3S 4S 5S 6S", B="AH"))


# -- Seep: what a deal's plays allow ----------------------------------------------------------------------
def test_one_team_can_sweep_on_every_other_play() -> None:
    game = SeepGame({"A": ("P", "Q"), "B": ("R", "S")})
    deal = seep_deal(60, *[("A", "normal")] * MAX_SWEEPS)
    state = score_seep(game.with_deal(deal))
    assert (PLAYS_PER_TEAM, PLAYS_PER_DEAL, MAX_SWEEPS) == (24, 48, 24)
    assert state.deals[0].sweep_points["A"] == 24 * 50


def test_more_sweeps_than_half_the_plays_is_an_error_naming_the_deal() -> None:
    """After a sweep the table is empty, so the next play cannot sweep: 24 + 24 sweeps in a deal is
    impossible, and so is 13 + 12."""
    game = SeepGame({"A": ("P", "Q"), "B": ("R", "S")})
    with pytest.raises(
        SeepError, match=r"^deal 1: 48 sweeps \(team A 24, team B 24\), but a deal has at most 24"
    ):
        game.with_deal(seep_deal(60, *[("A", "normal")] * 24, *[("B", "normal")] * 24))
    played = game.with_deal(seep_deal(60))
    with pytest.raises(SeepError, match=r"^deal 2: 25 sweeps \(team A 13, team B 12\)"):
        played.with_deal(seep_deal(60, *[("A", "normal")] * 13, *[("B", "normal")] * 12))
    with pytest.raises(SeepError, match="team A 60, team B 0"):
        game.with_deal(seep_deal(60, *[("A", "normal")] * 60))


def test_first_and_last_sweeps_count_as_plays() -> None:
    game = SeepGame({"A": ("P", "Q"), "B": ("R", "S")})
    sweeps = [Sweep("B", SweepWhen.FIRST), *[Sweep("B")] * 23, Sweep("B", SweepWhen.LAST)]
    deal = seep_deal(60)
    with pytest.raises(SeepError, match="deal 1: 25 sweeps"):
        game.with_deal(type(deal)(deal.captured, tuple(sweeps)))


@pytest.mark.parametrize(
    "captured",
    [
        {"A": (), "B": tuple(DECK)},  # both given, A's list empty
        {"A": ()},  # A's given and empty: B captured everything
        {"B": tuple(DECK)},  # B captured the whole deck: A captured nothing
    ],
)
def test_a_sweep_needs_captured_cards(captured: dict[str, tuple[Card, ...]]) -> None:
    game = SeepGame({"A": ("P", "Q"), "B": ("R", "S")})
    with pytest.raises(SeepError, match=r"^deal 1: team A has 3 sweeps but captured no card"):
        game.with_deal(SeepDeal(captured, (Sweep("A"),) * 3))
    game.with_deal(SeepDeal(captured, (Sweep("B"),) * 3))  # the team that took the cards may sweep


DOC = Path(__file__).resolve().parents[2] / "docs" / "game-log.md"


def documented_error(start: str) -> str:
    """The line of docs/game-log.md's error examples that starts with ``start`` (after the file name)."""
    prefix = "tabletally replay: game.json: "
    lines = [line[len(prefix) :] for line in DOC.read_text(encoding="utf-8").splitlines()]
    (line,) = [line for line in lines if line.startswith(start)]
    return line


def test_the_documented_seep_limit_errors_are_the_scorers() -> None:
    deal = {"captured": {"A": ["AS"]}, "sweeps": [{"team": "A"}] * 24 + [{"team": "B"}] * 24}
    log = {"game": "seep", "teams": {"A": ["P", "Q"], "B": ["R", "S"]}, "deals": [deal]}
    with pytest.raises(LogError) as info:
        replay(log)
    assert str(info.value) == documented_error("deal 1: 48 sweeps")
    played = {"captured": {"A": ["AS"]}}
    log["deals"] = [
        played,
        played,
        {"captured": {"A": [c.code for c in DECK]}, "sweeps": [{"team": "B"}] * 3},
    ]
    with pytest.raises(LogError) as info:
        replay(log)
    assert str(info.value) == documented_error("deal 3: team B has 3 sweeps")


def test_max_score_is_what_the_docs_say_a_player_may_choose() -> None:
    """At least 1 (a game to 0 would put out every player who scores), a multiple of 4 with halve_exact:
    the docs' row says so, and the scorer takes exactly those values."""
    (row,) = [
        line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `max_score`")
    ]
    assert "at least 1" in row and "multiple of 4 (so at least 4)" in row
    with pytest.raises(JhyapError, match="max_score must be at least 1"):
        JhyapRules(max_score=0, halve_exact=False)
    with pytest.raises(JhyapError, match="max_score must be at least 1"):
        JhyapRules(max_score=0)
    assert JhyapRules(max_score=1, halve_exact=False).max_score == 1
    assert JhyapRules(max_score=4).max_score == 4
    with pytest.raises(JhyapError, match="multiple of 4"):
        JhyapRules(max_score=2)
    assert JhyapRules(max_score=1_000_000).max_score == 1_000_000


# -- card codes are ASCII --------------------------------------------------------------------------------
@pytest.mark.parametrize("code", ["Aſ", "Aſ".upper() + "\u0301", "ＡS", "１0S", "Kꜱ"])
def test_card_codes_are_ascii_only(code: str) -> None:
    with pytest.raises(CardError, match="ASCII"):
        Card.parse(code)


def test_the_long_s_is_not_read_as_a_spade_in_a_log() -> None:
    with pytest.raises(LogError, match="Asha's hand: unknown card code 'Aſ'"):
        game_from_dict(jhyap_log({"Asha": ["Aſ"], "Bikash": ["AH"], "Chandra": ["KD"]}))
    assert hand("as") == (Card.parse("AS"),)


# -- any size, never a traceback -------------------------------------------------------------------------
def test_rule_numbers_are_bounded_so_every_total_prints() -> None:
    with pytest.raises(JhyapError, match="caller_penalty must be a whole number from 0 to 1,000,000"):
        JhyapRules(caller_penalty=10**5000)
    with pytest.raises(
        SeepError, match="sweep_points must be a whole number from 0 to 1,000,000, got a number of"
    ):
        SeepRules(sweep_points=10**5000)


@pytest.mark.parametrize("name", ["\ud800", "Asha\udfff"])
def test_a_name_that_is_not_text_is_refused(name: str) -> None:
    with pytest.raises(JhyapError, match="lone surrogate"):
        JhyapGame((name, "B"))
    with pytest.raises(SeepError, match="lone surrogate"):
        SeepGame({"A": (name, "Q"), "B": ("R", "S")})
    with pytest.raises(SeepError, match="lone surrogate"):
        SeepGame({name: ("P", "Q"), "B": ("R", "S")})


def test_a_number_over_4300_digits_is_a_log_error() -> None:
    with pytest.raises(LogError, match="a number too long to read"):
        loads('{"game": "jhyap", "players": ["A", "B"], "decks": ' + "9" * 5000 + ', "rounds": []}')


BAD_INPUTS = {
    "huge-number": '{"game": "jhyap", "players": ["A", "B"], "decks": ' + "7" * 4400 + ', "rounds": []}',
    "huge-rules": json.dumps(
        {
            "game": "jhyap",
            "players": ["A", "B"],
            "rules": {"max_score": int("4" * 4299), "caller_penalty": int("9" * 4299)},
            "rounds": [{"caller": "A", "hands": {"A": ["AS", "2S"], "B": ["AH"]}}],
        }
    ),
    "surrogate-name": '{"game": "jhyap", "players": ["\\ud800", "B"], "rounds": []}',
    "surrogate-team": '{"game": "seep", "teams": {"\\udc80": ["P", "Q"], "B": ["R", "S"]}, "deals": []}',
    "sixty-sweeps": json.dumps(
        {
            "game": "seep",
            "teams": {"A": ["P", "Q"], "B": ["R", "S"]},
            "deals": [{"captured": {"A": ["AS"]}, "sweeps": [{"team": "A"}] * 60}],
        }
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_replay_gives_one_clear_line_for_any_input(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(BAD_INPUTS[name], encoding="utf-8")
    done = subprocess.run(
        [str(TABLETALLY), "replay", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("tabletally replay: "), done.stderr
    assert len(done.stderr) < 400, done.stderr


# -- replay is linear in the log ------------------------------------------------------------------------
def test_the_jhyap_fold_keeps_one_history_not_one_per_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each state the fold builds used to copy every earlier round's result: n rounds, n^2/2 copies."""
    copied = [0]
    original = jhyap_module.JhyapState.__post_init__

    def counting(self: jhyap_module.JhyapState) -> None:
        original(self)
        copied[0] += len(self.rounds)

    monkeypatch.setattr(jhyap_module.JhyapState, "__post_init__", counting)
    rounds = 2000
    log = {
        "game": "jhyap",
        "players": ["A", "B"],
        "rounds": [{"caller": "A", "hands": {"A": ["JK"], "B": ["JK"]}}] * rounds,
    }
    game = game_from_dict(log)
    assert isinstance(game, JhyapGame)
    copied[0] = 0
    state = score_jhyap(game)
    assert len(state.rounds) == rounds
    assert copied[0] <= 2 * rounds
