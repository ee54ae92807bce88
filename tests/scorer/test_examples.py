"""The complete example logs under docs/examples replay to hand-checked results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorer.log import dumps, game_from_dict, loads, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


def test_every_example_replays_and_round_trips() -> None:
    names = sorted(path.name for path in EXAMPLES.glob("*.json"))
    assert names == ["jhyap-five-players-house-rules.json", "jhyap-four-players.json", "seep-two-baazis.json"]
    for name in names:
        data = load(name)
        game = game_from_dict(data)
        assert loads(dumps(game)) == game
        assert replay(json.loads(dumps(game))) == replay(data)


def test_four_player_jhyap_game_with_default_rules() -> None:
    out = replay(load("jhyap-four-players.json"))
    rounds = out["rounds"]
    assert len(rounds) == 14
    # Chandra deals first, then the deal goes round the table; Asha's seat is skipped once she is out.
    assert [r["dealer"] for r in rounds] == ["Chandra", "Dipesh", "Asha", "Bikash"] * 3 + [
        "Chandra",
        "Dipesh",
    ]
    # Round 3: Asha 65 + 35 lands on exactly 100 and drops to 50.
    assert rounds[2]["totals"]["Asha"] == 50 and rounds[2]["halved"] == ["Asha"]
    # Round 9: Asha calls with 5 but Chandra holds 1: Asha scores 30 + 5.
    assert rounds[8]["caller"] == "Asha" and not rounds[8]["caller_won"]
    assert rounds[8]["hand_totals"]["Chandra"] == 1 and rounds[8]["points"]["Asha"] == 35
    assert rounds[8]["next_starter"] == "Chandra"
    # Round 12: Asha 195 + 24 = 219 is out.
    assert rounds[11]["eliminated"] == ["Asha"]
    # Round 13: Dipesh 184 + 16 lands on exactly 200 and drops to 100, once.
    assert rounds[12]["totals"]["Dipesh"] == 100 and rounds[12]["halved"] == ["Dipesh"]
    # Round 14: Bikash (194 + 23) and Chandra (185 + 18) go out together; Dipesh is left and wins.
    assert rounds[13]["eliminated"] == ["Bikash", "Chandra"]
    assert rounds[13]["next_starter"] is None
    assert out["totals"] == {"Asha": 219, "Bikash": 217, "Chandra": 203, "Dipesh": 100}
    assert out["active"] == ["Dipesh"]
    assert out["eliminated"] == ["Asha", "Bikash", "Chandra"]
    assert out["finished"] is True
    assert out["winner"] == "Dipesh"
    assert out["next_dealer"] is None


def test_five_player_jhyap_game_with_house_rules() -> None:
    data = load("jhyap-five-players-house-rules.json")
    assert "decks" not in data  # five players: two decks by default (round 3 holds two AC)
    out = replay(data)
    rounds = out["rounds"]
    # Round 1: Dipesh calls with 3 and Bikash ties at 3; tie_penalizes_caller makes that a loss: 25 + 3.
    assert rounds[0]["hand_totals"]["Bikash"] == rounds[0]["hand_totals"]["Dipesh"] == 3
    assert rounds[0]["caller_won"] is False and rounds[0]["points"]["Dipesh"] == 28
    # Bikash and Dipesh tie for lowest hand; Bikash sits nearer the dealer's (Asha's) left.
    assert rounds[0]["next_starter"] == "Bikash"
    # max_score 100 without halving: 101 is out, 95 is not.
    assert [r["eliminated"] for r in rounds] == [[], [], [], ["Chandra"], ["Dipesh"], ["Bikash"]]
    assert out["totals"] == {"Asha": 95, "Bikash": 118, "Chandra": 101, "Dipesh": 101, "Esha": 80}
    assert out["active"] == ["Asha", "Esha"]
    assert out["finished"] is False and out["winner"] is None
    # Asha dealt round 6; the deal skips the three players who are out.
    assert out["next_dealer"] == "Esha"
    assert out["next_starter"] == "Asha"


def test_seep_game_with_both_kinds_of_baazi() -> None:
    out = replay(load("seep-two-baazis.json"))
    deals = out["deals"]
    assert [d["card_points"]["A"] for d in deals] == [43, 52, 89, 5, 85, 65, 53]
    assert [d["sweep_points"] for d in deals][1:3] == [{"A": 25, "B": 0}, {"A": 0, "B": 75}]
    assert deals[6]["sweep_points"] == {"A": 50, "B": 0}  # B's sweep on the last play scores 0
    assert [d["lead"] for d in deals] == [
        {"team": "B", "points": 14},
        {"team": "A", "points": 15},
        {"team": "A", "points": 18},
        {"team": None, "points": 0},
        {"team": "A", "points": 70},
        {"team": None, "points": 0},
        {"team": "A", "points": 56},
    ]
    assert deals[3]["baazi"] == {"winner": "B", "reason": "under_minimum"}
    assert deals[5]["baazi"] == {"winner": "A", "reason": "lead"}
    assert out["baazis"] == {"A": 1, "B": 1}
    assert out["lead"] == {"team": "A", "points": 56}


@pytest.mark.parametrize("name", ["jhyap-four-players.json", "jhyap-five-players-house-rules.json"])
def test_every_jhyap_example_round_has_one_hand_per_active_player(name: str) -> None:
    out = replay(load(name))
    active = list(load(name)["players"])
    for result in out["rounds"]:
        assert sorted(result["hand_totals"]) == sorted(active)
        active = [p for p in active if p not in result["eliminated"]]
