"""The JSON game log: parsing, every invalid-log error, writing back, and the replay output shape."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from scorer.cards import Card
from scorer.jhyap import JhyapGame, JhyapRules
from scorer.log import (
    LogError,
    dumps,
    game_from_dict,
    game_to_dict,
    loads,
    replay,
    replay_text,
    score,
    state_to_dict,
)
from scorer.seep import SeepGame, SeepRules, SweepWhen

# The issue's example Jhyap log, and a valid Seep log in the issue's shape.
JHYAP: dict[str, Any] = {
    "game": "jhyap",
    "players": ["Asha", "Bikash", "Chandra"],
    "first_dealer": "Asha",
    "decks": 1,
    "rules": {
        "max_score": 200,
        "call_limit": 5,
        "caller_penalty": 30,
        "tie_penalizes_caller": False,
        "halve_exact": True,
    },
    "rounds": [
        {
            "caller": "Bikash",
            "hands": {"Asha": ["KS", "3H"], "Bikash": ["AS", "2D", "JK"], "Chandra": ["5C", "7D"]},
        }
    ],
}
SEEP: dict[str, Any] = {
    "game": "seep",
    "teams": {"A": ["Priya", "Sunil"], "B": ["Raj", "Meera"]},
    "rules": {
        "baazi_lead": 100,
        "min_points": 9,
        "sweep_points": 50,
        "first_sweep_points": 25,
        "last_sweep_points": 0,
    },
    "deals": [
        {
            "captured": {"A": ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "AD", "10D"]},
            "sweeps": [{"team": "A"}, {"team": "B", "when": "first"}],
        }
    ],
}


def with_changes(base: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A deep copy of ``base`` with the item at ``path`` set to ``value`` (or deleted if value is DELETE)."""
    data = copy.deepcopy(base)
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


DELETE = object()


# ---- valid logs -----------------------------------------------------------------------------------


def test_the_issue_example_jhyap_log_replays_to_the_documented_shape() -> None:
    out = replay(JHYAP)
    assert out == {
        "game": "jhyap",
        "rounds": [
            {
                "number": 1,
                "dealer": "Asha",
                "caller": "Bikash",
                "hand_totals": {"Asha": 13, "Bikash": 3, "Chandra": 12},
                "caller_won": True,
                "points": {"Asha": 13, "Bikash": 0, "Chandra": 12},
                "totals": {"Asha": 13, "Bikash": 0, "Chandra": 12},
                "halved": [],
                "eliminated": [],
                "next_starter": "Bikash",
            }
        ],
        "totals": {"Asha": 13, "Bikash": 0, "Chandra": 12},
        "active": ["Asha", "Bikash", "Chandra"],
        "eliminated": [],
        "finished": False,
        "winner": None,
        "next_dealer": "Bikash",
        "next_starter": "Bikash",
    }


def test_a_seep_log_replays_to_the_documented_shape() -> None:
    assert replay(SEEP) == {
        "game": "seep",
        "deals": [
            {
                "number": 1,
                "card_points": {"A": 43, "B": 57},
                "sweep_points": {"A": 50, "B": 25},
                "points": {"A": 93, "B": 82},
                "lead": {"team": "A", "points": 11},
                "baazi": None,
            }
        ],
        "lead": {"team": "A", "points": 11},
        "baazis": {"A": 0, "B": 0},
    }


def test_a_baazi_is_reported_with_winner_and_reason() -> None:
    data = with_changes(SEEP, ("deals", 0), {"captured": {"A": ["AS", "2S"]}})
    deal = replay(data)["deals"][0]
    assert deal["baazi"] == {"winner": "B", "reason": "under_minimum"}
    assert deal["lead"] == {"team": None, "points": 0}


def test_optional_keys_may_be_left_out() -> None:
    jhyap = {"game": "jhyap", "players": ["A", "B"], "rounds": []}
    game = game_from_dict(jhyap)
    assert game == JhyapGame(("A", "B"))
    seep = {"game": "seep", "teams": {"X": ["a", "b"], "Y": ["c", "d"]}, "deals": [{"captured": {"X": []}}]}
    game = game_from_dict(seep)
    assert isinstance(game, SeepGame)
    assert game.rules == SeepRules()
    assert game.deals[0].sweeps == ()


def test_rules_may_be_given_in_part() -> None:
    game = game_from_dict(with_changes(JHYAP, ("rules",), {"tie_penalizes_caller": True}))
    assert game.rules == JhyapRules(tie_penalizes_caller=True)


def test_null_means_absent_for_first_dealer_decks_and_when() -> None:
    game = game_from_dict(with_changes(with_changes(JHYAP, ("first_dealer",), None), ("decks",), None))
    assert isinstance(game, JhyapGame)
    assert game.first_dealer is None and game.decks is None
    game = game_from_dict(with_changes(SEEP, ("deals", 0, "sweeps", 1, "when"), None))
    assert isinstance(game, SeepGame)
    assert game.deals[0].sweeps[1].when is SweepWhen.NORMAL


def test_card_codes_in_the_log_accept_any_case_and_t() -> None:
    data = with_changes(JHYAP, ("rounds", 0, "hands", "Asha"), ["ks", "3h", "ts"])
    game = game_from_dict(data)
    assert isinstance(game, JhyapGame)
    assert game.rounds[0].hands["Asha"] == (Card.parse("KS"), Card.parse("3H"), Card.parse("10S"))


@pytest.mark.parametrize("data", [JHYAP, SEEP], ids=["jhyap", "seep"])
def test_game_to_dict_round_trips(data: dict[str, Any]) -> None:
    game = game_from_dict(data)
    assert game_from_dict(game_to_dict(game)) == game
    assert loads(dumps(game)) == game
    assert json.loads(dumps(game)) == game_to_dict(game)


def test_game_to_dict_writes_every_rule_and_leaves_absent_values_out() -> None:
    out = game_to_dict(JhyapGame(("A", "B")))
    assert out == {
        "game": "jhyap",
        "players": ["A", "B"],
        "rules": {
            "max_score": 200,
            "call_limit": 5,
            "caller_penalty": 30,
            "tie_penalizes_caller": False,
            "halve_exact": True,
            "hand_limit": 5,
        },
        "rounds": [],
    }
    sweeps = game_to_dict(game_from_dict(SEEP))["deals"][0]["sweeps"]
    assert sweeps == [{"team": "A"}, {"team": "B", "when": "first"}]


def test_game_to_dict_writes_canonical_card_codes() -> None:
    data = with_changes(JHYAP, ("rounds", 0, "hands", "Asha"), ["ks", "th"])
    assert game_to_dict(game_from_dict(data))["rounds"][0]["hands"]["Asha"] == ["KS", "10H"]


def test_replay_text_and_replay_agree() -> None:
    assert replay_text(json.dumps(JHYAP)) == replay(JHYAP)
    assert state_to_dict(score(game_from_dict(SEEP))) == replay(SEEP)


def test_replay_output_is_plain_json() -> None:
    for data in (JHYAP, SEEP):
        out = replay(data)
        assert json.loads(json.dumps(out)) == out


def test_a_unicode_name_survives_the_round_trip() -> None:
    data = json.loads(json.dumps(JHYAP).replace("Asha", "आशा"))
    assert "आशा" in replay_text(dumps(game_from_dict(data)))["totals"]


# ---- invalid logs ---------------------------------------------------------------------------------

JHYAP_ERRORS = [
    ((), [1], "the game log must be a JSON object, got a list"),
    (("game",), DELETE, 'the game log is missing "game"'),
    (("game",), "poker", '"game" must be "jhyap" or "seep", got the string \'poker\''),
    (("game",), "Jhyap", '"game" must be "jhyap" or "seep", got the string \'Jhyap\''),
    (
        ("player",),
        ["A"],
        "unknown key 'player' in a Jhyap log (allowed: game, players, first_dealer, decks, rules, rounds)",
    ),
    (("players",), DELETE, "a Jhyap log is missing 'players'"),
    (("rounds",), DELETE, "a Jhyap log is missing 'rounds'"),
    (("players",), "Asha", "players must be a JSON list, got the string 'Asha'"),
    (("players",), ["Asha", 3], "each player must be a string, got the number 3"),
    (("players",), ["Asha"], "Jhyap needs 2-5 players, got 1"),
    (("players",), ["A", "B", "C", "D", "E", "F"], "Jhyap needs 2-5 players, got 6"),
    (("players",), ["Asha", "Bikash", "Asha"], "duplicate player name 'Asha'"),
    (("rules",), [], "rules must be a JSON object, got a list"),
    (("rules", "max"), 100, "unknown key 'max' in rules (allowed: max_score, call_limit"),
    (("rules", "max_score"), "200", "rules: max_score must be a whole number from 0 to 1,000,000, got '200'"),
    (("rules", "max_score"), 200.0, "rules: max_score must be a whole number from 0 to 1,000,000, got 200.0"),
    (("rules", "call_limit"), -1, "rules: call_limit must be a whole number from 0 to 1,000,000, got -1"),
    (("rules", "halve_exact"), "no", "rules: halve_exact must be true or false, got 'no'"),
    (("rules", "max_score"), 150, "rules: max_score must be a multiple of 4 when halve_exact is on"),
    (("first_dealer",), "Dev", "first_dealer 'Dev' is not one of the players"),
    (("first_dealer",), 1, "first_dealer must be a string, got the number 1"),
    (("decks",), 0, "decks must be a whole number from 1 to 1,000,000, got 0"),
    (("decks",), "two", "decks must be a whole number from 1 to 1,000,000, got 'two'"),
    (("rounds",), {}, "rounds must be a JSON list, got an object"),
    (("rounds", 0), [], "round 1: the round must be a JSON object, got a list"),
    (("rounds", 0, "dealer"), "Asha", "round 1: unknown key 'dealer' in the round (allowed: caller, hands)"),
    (("rounds", 0, "caller"), DELETE, "round 1: the round is missing 'caller'"),
    (("rounds", 0, "hands"), DELETE, "round 1: the round is missing 'hands'"),
    (("rounds", 0, "caller"), None, "round 1: caller must be a string, got null"),
    (("rounds", 0, "hands"), [], "round 1: hands must be a JSON object, got a list"),
    (
        ("rounds", 0, "hands", "Asha"),
        "KS 3H",
        "round 1: Asha's hand must be a JSON list, got the string 'KS 3H'",
    ),
    (
        ("rounds", 0, "hands", "Asha"),
        ["KS", 10],
        "round 1: Asha's hand: card codes must be strings, got the number 10",
    ),
    (("rounds", 0, "hands", "Asha"), ["KS", "ZZ"], "round 1: Asha's hand: unknown card code 'ZZ'"),
    (("rounds", 0, "hands", "Asha"), ["KS", "1H"], "round 1: Asha's hand: unknown card code '1H'"),
    (("rounds", 0, "hands", "Asha"), [], "round 1: Asha's hand is empty"),
    (
        ("rounds", 0, "hands", "Asha"),
        ["5S", "AS"],
        "round 1: AS appears 2 times across the hands, but 1 deck holds only 1",
    ),
    (
        ("rounds", 0, "hands", "Asha"),
        ["JK", "JK"],
        "round 1: JK appears 3 times across the hands, but 1 deck holds only 2",
    ),
    (("rounds", 0, "hands", "Chandra"), DELETE, "round 1: no hand given for Chandra"),
    (("rounds", 0, "hands", "Dev"), ["2S"], "round 1: hand given for unknown player 'Dev'"),
    (("rounds", 0, "caller"), "Dev", "round 1: unknown caller 'Dev'"),
    (("rounds", 0, "caller"), "Asha", "round 1: caller Asha's hand totals 13, over the call limit of 5"),
]


@pytest.mark.parametrize(("path", "value", "message"), JHYAP_ERRORS)
def test_invalid_jhyap_logs_name_the_problem(path: tuple[Any, ...], value: Any, message: str) -> None:
    data = value if path == () else with_changes(JHYAP, path, value)
    with pytest.raises(LogError) as info:
        game_from_dict(data)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def _later_round_log() -> dict[str, Any]:
    """Three rounds where Asha goes out in round 2 (max_score 40, no halving)."""
    data = copy.deepcopy(JHYAP)
    data["rules"] = {"max_score": 40, "halve_exact": False}
    data["rounds"] = [
        {"caller": "Bikash", "hands": {"Asha": ["KS", "3H"], "Bikash": ["AS"], "Chandra": ["5C"]}},
        {"caller": "Bikash", "hands": {"Asha": ["KS", "QS", "JS"], "Bikash": ["AS"], "Chandra": ["5C"]}},
        {"caller": "Chandra", "hands": {"Bikash": ["2S"], "Chandra": ["AC"]}},
    ]
    return data


def test_a_later_round_error_names_that_round() -> None:
    data = _later_round_log()
    assert replay(data)["eliminated"] == ["Asha"]
    bad = with_changes(data, ("rounds", 2, "hands", "Asha"), ["4D"])
    with pytest.raises(LogError, match=r"^round 3: hand given for Asha, who was eliminated in round 2$"):
        game_from_dict(bad)
    bad = with_changes(data, ("rounds", 2, "caller"), "Asha")
    with pytest.raises(LogError, match=r"^round 3: caller Asha was eliminated in round 2$"):
        game_from_dict(bad)
    bad = with_changes(data, ("rounds", 2, "hands", "Chandra"), ["XX"])
    with pytest.raises(LogError, match=r"^round 3: Chandra's hand: unknown card code 'XX'"):
        game_from_dict(bad)


def test_a_round_after_the_end_is_an_error_in_the_log() -> None:
    data = _later_round_log()
    data["rounds"][2] = {
        "caller": "Bikash",
        "hands": {"Bikash": ["AS"], "Chandra": ["KC", "QC", "JC", "10C"]},
    }
    data["rounds"].append({"caller": "Bikash", "hands": {"Bikash": ["AS"]}})
    with pytest.raises(LogError, match=r"^round 4: the game is already over \(Bikash won in round 3\)$"):
        game_from_dict(data)


SEEP_ERRORS = [
    (("player",), 1, "unknown key 'player' in a Seep log (allowed: game, teams, rules, deals)"),
    (("teams",), DELETE, "a Seep log is missing 'teams'"),
    (("deals",), DELETE, "a Seep log is missing 'deals'"),
    (("teams",), [["a", "b"], ["c", "d"]], "teams must be a JSON object, got a list"),
    (("teams", "C"), ["x", "y"], "Seep needs exactly 2 teams, got 3"),
    (("teams", "B"), DELETE, "Seep needs exactly 2 teams, got 1"),
    (("teams", "A"), ["Priya"], "team A needs exactly 2 players, got 1"),
    (("teams", "A"), ["Priya", "Sunil", "Dev"], "team A needs exactly 2 players, got 3"),
    (("teams", "A"), "Priya", "team A must be a JSON list, got the string 'Priya'"),
    (("teams", "A"), ["Priya", 7], "each player of team A must be a string, got the number 7"),
    (("teams", "B"), ["Raj", "Priya"], "duplicate player name 'Priya'"),
    (("rules", "sweep"), 50, "unknown key 'sweep' in rules (allowed: baazi_lead, min_points"),
    (("rules", "min_points"), 60, "rules: min_points must be at most 50"),
    (("rules", "baazi_lead"), 0, "rules: baazi_lead must be at least 1"),
    (("deals",), None, "deals must be a JSON list, got null"),
    (("deals", 0), "AS", "deal 1: the deal must be a JSON object, got the string 'AS'"),
    (("deals", 0, "captured"), DELETE, "deal 1: the deal is missing 'captured'"),
    (("deals", 0, "sweep"), [], "deal 1: unknown key 'sweep' in the deal (allowed: captured, sweeps)"),
    (("deals", 0, "captured"), {}, "deal 1: no captured cards given"),
    (("deals", 0, "captured", "C"), ["KD"], "deal 1: captured cards given for unknown team 'C'"),
    (("deals", 0, "captured", "A"), ["AS", "QX"], "deal 1: team A's cards: unknown card code 'QX'"),
    (
        ("deals", 0, "captured", "A"),
        ["AS", "JK"],
        "deal 1: team A captured a joker, but Seep is played without jokers",
    ),
    (("deals", 0, "captured", "A"), ["AS", "as"], "deal 1: cards listed twice: AS"),
    (("deals", 0, "captured", "B"), ["AS", "KS"], "deal 1: cards listed twice: AS"),
    (
        ("deals", 0, "captured", "B"),
        ["KS"],
        "deal 1: point cards missing from both teams' captures: 9S 10S JS QS AH AC",
    ),
    (("deals", 0, "sweeps"), {"team": "A"}, "deal 1: sweeps must be a JSON list, got an object"),
    (("deals", 0, "sweeps", 0), "A", "deal 1: sweep 1: the sweep must be a JSON object, got the string 'A'"),
    (("deals", 0, "sweeps", 0, "team"), DELETE, "deal 1: sweep 1: the sweep is missing 'team'"),
    (
        ("deals", 0, "sweeps", 1, "when"),
        "middle",
        'deal 1: sweep 2: "when" must be "first", "last" or absent, got the string \'middle\'',
    ),
    (
        ("deals", 0, "sweeps", 1, "when"),
        "normal",
        'deal 1: sweep 2: "when" must be "first", "last" or absent',
    ),
    (
        ("deals", 0, "sweeps", 1, "at"),
        3,
        "deal 1: sweep 2: unknown key 'at' in the sweep (allowed: team, when)",
    ),
    (("deals", 0, "sweeps", 1, "team"), "C", "deal 1: sweep by unknown team 'C'"),
    (("deals", 0, "sweeps", 0, "when"), "first", "deal 1: 2 sweeps on the first play"),
]


@pytest.mark.parametrize(("path", "value", "message"), SEEP_ERRORS)
def test_invalid_seep_logs_name_the_problem(path: tuple[Any, ...], value: Any, message: str) -> None:
    with pytest.raises(LogError) as info:
        game_from_dict(with_changes(SEEP, path, value))
    assert str(info.value).startswith(message)


def test_a_later_deal_error_names_that_deal() -> None:
    data = copy.deepcopy(SEEP)
    data["deals"] += [{"captured": {"B": ["AS"]}}, {"captured": {"B": ["AS", "JK"]}}]
    with pytest.raises(LogError, match="^deal 3: team B captured a joker"):
        game_from_dict(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "invalid JSON at line 1 column 1: Expecting value"),
        ('{"game": "jhyap",', "invalid JSON at line 1 column 18"),
        ('{"game": "jhyap"}\n}', "invalid JSON at line 2 column 1: Extra data"),
        ("[" * 100_000, "invalid JSON"),
    ],
)
def test_bad_json_is_a_log_error(text: str, message: str) -> None:
    with pytest.raises(LogError, match=f"^{message}"):
        loads(text)


def test_a_key_given_twice_is_an_error_naming_it() -> None:
    text = json.dumps(JHYAP).replace('"Bikash": ["AS"', '"Asha": ["QD"], "Bikash": ["AS"', 1)
    with pytest.raises(LogError, match=r"^round 1: hands gives 'Asha' more than once$"):
        loads(text)
    text = json.dumps(JHYAP).replace('"decks": 1', '"decks": 1, "decks": 2')
    with pytest.raises(LogError, match=r"^the game log gives 'decks' more than once$"):
        loads(text)


def test_loads_rejects_bytes() -> None:
    with pytest.raises(LogError, match="must be text"):
        loads(b"{}")  # type: ignore[arg-type]


def test_log_errors_are_scorer_errors_chained_to_the_rule_error() -> None:
    from scorer.errors import JhyapError, ScorerError

    with pytest.raises(LogError) as info:
        game_from_dict(with_changes(JHYAP, ("rounds", 0, "caller"), "Asha"))
    assert isinstance(info.value, ScorerError)
    assert isinstance(info.value.__cause__, JhyapError)


def test_errors_are_reported_in_round_order_whatever_their_kind() -> None:
    data = _later_round_log()
    data["rounds"][0]["caller"] = "Asha"  # round 1 breaks the call limit...
    data["rounds"][2]["hands"]["Chandra"] = ["XX"]  # ...and round 3 has a bad code
    with pytest.raises(LogError, match=r"^round 1: caller Asha's hand totals 13"):
        game_from_dict(data)
    data = copy.deepcopy(SEEP)
    data["deals"] = [{"captured": {"A": ["JK"]}}, {"captured": {"A": ["??"]}}]
    with pytest.raises(LogError, match="^deal 1: team A captured a joker"):
        game_from_dict(data)
    data["deals"][0] = {"captured": {"A": ["AS"]}}
    with pytest.raises(LogError, match=r"^deal 2: team A's cards: unknown card code '\?\?'"):
        game_from_dict(data)


def test_a_single_round_entry_is_parsed_for_checking_against_a_game() -> None:
    from scorer.jhyap import check_round
    from scorer.log import round_from_dict

    game = game_from_dict(_later_round_log()).without_last_round()  # Asha is out after round 2
    assert isinstance(game, JhyapGame)
    entry = {"caller": "Chandra", "hands": {"Bikash": ["2S"], "Chandra": ["AC"]}}
    check_round(game, round_from_dict(entry, 3))
    with pytest.raises(LogError, match=r"^round 3: Chandra's hand: unknown card code 'QQ'"):
        round_from_dict({"caller": "Chandra", "hands": {"Chandra": ["QQ"]}}, 3)
    with pytest.raises(LogError, match=r"^round 1: unknown key 'x' in the round"):
        round_from_dict({"caller": "A", "hands": {}, "x": 1})


def test_a_single_deal_entry_is_parsed_for_checking_against_a_game() -> None:
    from scorer.log import deal_from_dict
    from scorer.seep import check_deal

    game = game_from_dict(SEEP)
    assert isinstance(game, SeepGame)
    deal = deal_from_dict({"captured": {"B": ["KS"]}, "sweeps": [{"team": "B", "when": "last"}]}, 2)
    check_deal(game, deal)
    assert deal.sweeps[0].when is SweepWhen.LAST
    with pytest.raises(LogError, match=r'^deal 2: sweep 1: "when" must be'):
        deal_from_dict({"captured": {"B": []}, "sweeps": [{"team": "B", "when": 1}]}, 2)
