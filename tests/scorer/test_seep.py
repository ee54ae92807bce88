"""Seep rules: card points, captures, sweeps, the minimum, the running lead and baazis, and errors."""

from __future__ import annotations

import dataclasses

import pytest

from scorer.cards import ALL_CARDS, JOKER, Card
from scorer.seep import (
    DECK,
    POINT_CARDS,
    Baazi,
    BaaziReason,
    Lead,
    SeepDeal,
    SeepError,
    SeepGame,
    SeepRules,
    Sweep,
    SweepWhen,
    check_deal,
    doubled_cards,
    missing_point_cards,
    score_seep,
    seep_card_points,
)
from tests.scorer.helpers import hand, point_cards_worth, seep_deal

TEAMS = {"A": ("Priya", "Sunil"), "B": ("Raj", "Meera")}


def game(*deals: SeepDeal, rules: SeepRules | None = None) -> SeepGame:
    return SeepGame(TEAMS, rules or SeepRules(), deals)


# ---- card points --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "points"),
    [
        ("AS", 1), ("2S", 2), ("9S", 9), ("10S", 10), ("JS", 11), ("QS", 12), ("KS", 13),
        ("AH", 1), ("AD", 1), ("AC", 1), ("10D", 6),
        ("10H", 0), ("10C", 0), ("2D", 0), ("KH", 0), ("QD", 0), ("JC", 0), ("5H", 0),
    ],
)  # fmt: skip
def test_card_points(code: str, points: int) -> None:
    assert seep_card_points(Card.parse(code)) == points


def test_there_are_17_point_cards_worth_100() -> None:
    assert len(POINT_CARDS) == 17
    assert sum(seep_card_points(card) for card in POINT_CARDS) == 100
    assert sum(seep_card_points(card) for card in DECK) == 100
    assert len(DECK) == 52 and JOKER not in DECK


def test_a_joker_has_no_seep_points_it_is_an_error() -> None:
    with pytest.raises(SeepError, match="without jokers"):
        seep_card_points(JOKER)


# ---- captures -----------------------------------------------------------------------------------


def test_when_one_team_is_given_the_other_captured_every_other_card() -> None:
    deal = SeepDeal({"A": hand("2S AH 10D")})
    (result,) = score_seep(game(deal)).deals
    assert result.card_points == {"A": 9, "B": 91}
    deal = SeepDeal({"B": hand("KS QS 3C 4H")})
    assert score_seep(game(deal)).deals[0].card_points == {"A": 75, "B": 25}


def test_a_team_given_with_no_cards_captured_nothing() -> None:
    assert score_seep(game(SeepDeal({"B": ()}))).deals[0].card_points == {"A": 100, "B": 0}


def test_both_teams_given_with_every_point_card_between_them() -> None:
    a = hand("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S 2H 3H")  # 55, with two cards that score nothing
    b = hand("JS QS KS AH AD AC 10D")  # 45
    result = score_seep(game(SeepDeal({"A": a, "B": b}))).deals[0]
    assert result.card_points == {"A": 55, "B": 45}


def test_both_teams_given_with_point_cards_missing_names_them() -> None:
    deal = SeepDeal({"A": hand("2S AH 10D"), "B": hand("AS KS")})
    with pytest.raises(SeepError) as info:
        score_seep(game(deal))
    assert str(info.value) == (
        "deal 1: point cards missing from both teams' captures: 3S 4S 5S 6S 7S 8S 9S 10S JS QS AD AC"
    )


def test_a_card_captured_by_both_teams_is_named() -> None:
    a = point_cards_worth(55)
    b = tuple(card for card in POINT_CARDS if card not in a) + hand("AS 5H")
    with pytest.raises(SeepError, match=r"^deal 1: cards listed twice: AS 5H$"):
        score_seep(game(SeepDeal({"A": hand("5H") + a, "B": b})))


def test_a_card_listed_twice_by_one_team_is_named() -> None:
    with pytest.raises(SeepError, match=r"^deal 1: cards listed twice: 7S 10D$"):
        score_seep(game(SeepDeal({"A": hand("10D 7S 7s AH 10d")})))


def test_a_joker_in_a_capture_is_an_error() -> None:
    with pytest.raises(
        SeepError, match=r"^deal 1: team B captured a joker, but Seep is played without jokers$"
    ):
        score_seep(game(SeepDeal({"B": hand("AS JK")})))


def test_captures_for_an_unknown_team_are_an_error() -> None:
    with pytest.raises(SeepError, match=r"^deal 1: captured cards given for unknown team 'C'$"):
        score_seep(game(SeepDeal({"C": hand("AS")})))


def test_a_deal_with_no_captures_is_an_error() -> None:
    with pytest.raises(SeepError, match=r"^deal 1: no captured cards given"):
        score_seep(game(SeepDeal({})))


def test_missing_point_cards_and_doubled_cards_helpers() -> None:
    assert missing_point_cards({"A": POINT_CARDS}) == ()
    assert missing_point_cards({}) == tuple(sorted(POINT_CARDS))
    assert missing_point_cards(
        {"A": hand("AS 2S"), "B": [c for c in POINT_CARDS if c.code not in ("AS", "2S", "10D")]}
    ) == (Card.parse("10D"),)
    assert doubled_cards({"A": hand("AS 2H"), "B": hand("2H 3H 3H")}) == hand("2H 3H")
    assert doubled_cards({"A": hand("AS"), "B": hand("2S")}) == ()


# ---- sweeps -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sweeps", "sweep_points"),
    [
        ((), {"A": 0, "B": 0}),
        ((("A", "normal"),), {"A": 50, "B": 0}),
        ((("A", "first"),), {"A": 25, "B": 0}),
        ((("A", "last"),), {"A": 0, "B": 0}),
        ((("A", "normal"), ("B", "first"), ("A", "normal"), ("B", "last")), {"A": 100, "B": 25}),
    ],
)
def test_sweep_points(sweeps: tuple[tuple[str, str], ...], sweep_points: dict[str, int]) -> None:
    (result,) = score_seep(game(seep_deal(40, *sweeps))).deals
    assert result.sweep_points == sweep_points
    assert result.points == {"A": 40 + sweep_points["A"], "B": 60 + sweep_points["B"]}


def test_sweep_values_are_switches() -> None:
    rules = SeepRules(sweep_points=30, first_sweep_points=10, last_sweep_points=5)
    deal = seep_deal(40, ("A", "normal"), ("A", "first"), ("B", "last"))
    assert score_seep(game(deal, rules=rules)).deals[0].sweep_points == {"A": 40, "B": 5}


def test_a_sweep_by_an_unknown_team_is_an_error() -> None:
    with pytest.raises(SeepError, match=r"^deal 2: sweep by unknown team 'C'$"):
        score_seep(game(seep_deal(40), seep_deal(40, ("C", "normal"))))


@pytest.mark.parametrize("when", ["first", "last"])
def test_two_sweeps_on_the_first_or_last_play_are_an_error(when: str) -> None:
    with pytest.raises(
        SeepError, match=rf"^deal 1: 2 sweeps on the {when} play; a deal has only one {when} play$"
    ):
        score_seep(game(seep_deal(40, ("A", when), ("B", when))))


# ---- the minimum, the lead and baazis -----------------------------------------------------------


def test_the_difference_is_added_to_the_running_lead() -> None:
    state = score_seep(game(seep_deal(43), seep_deal(60), seep_deal(40), seep_deal(50)))
    assert [d.lead for d in state.deals] == [Lead("B", 14), Lead("A", 6), Lead("B", 14), Lead("B", 14)]
    assert state.lead == Lead("B", 14)
    assert state.baazis == {"A": 0, "B": 0}
    assert all(d.baazi is None for d in state.deals)


def test_a_level_lead_has_no_team() -> None:
    state = score_seep(game(seep_deal(40), seep_deal(60)))
    assert state.lead == Lead(None, 0)


@pytest.mark.parametrize(
    ("a_points", "baazi"),
    [
        (8, Baazi("B", BaaziReason.UNDER_MINIMUM)),
        (0, Baazi("B", BaaziReason.UNDER_MINIMUM)),
        (9, None),
        (91, None),
        (92, Baazi("A", BaaziReason.UNDER_MINIMUM)),
        (100, Baazi("A", BaaziReason.UNDER_MINIMUM)),
    ],
)
def test_a_team_under_the_minimum_loses_the_baazi_at_once(a_points: int, baazi: Baazi | None) -> None:
    state = score_seep(game(seep_deal(a_points)))
    assert state.deals[0].baazi == baazi
    if baazi is not None:
        assert state.lead == Lead(None, 0)
        assert state.baazis[baazi.winner] == 1


def test_the_minimum_resets_a_lead_held_by_the_other_team() -> None:
    # A leads by 60, then B's points fall under the minimum: A takes the baazi, lead back to 0.
    state = score_seep(game(seep_deal(80), seep_deal(95), seep_deal(55)))
    assert state.deals[0].lead == Lead("A", 60)
    assert state.deals[1].baazi == Baazi("A", BaaziReason.UNDER_MINIMUM)
    assert state.deals[1].lead == Lead(None, 0)
    assert state.deals[2].lead == Lead("A", 10)
    assert state.baazis == {"A": 1, "B": 0}


def test_the_minimum_takes_the_baazi_even_from_the_leading_team() -> None:
    state = score_seep(game(seep_deal(90), seep_deal(5)))
    assert state.deals[0].lead == Lead("A", 80)
    assert state.deals[1].baazi == Baazi("B", BaaziReason.UNDER_MINIMUM)
    assert state.baazis == {"A": 0, "B": 1}


def test_sweep_points_count_towards_the_minimum() -> None:
    (result,) = score_seep(game(seep_deal(5, ("A", "first")))).deals
    assert result.points == {"A": 30, "B": 95}
    assert result.baazi is None
    assert result.lead == Lead("B", 65)


def test_the_minimum_is_a_switch() -> None:
    assert score_seep(game(seep_deal(8), rules=SeepRules(min_points=0))).deals[0].baazi is None
    assert score_seep(game(seep_deal(20), rules=SeepRules(min_points=25))).deals[0].baazi == Baazi(
        "B", BaaziReason.UNDER_MINIMUM
    )


@pytest.mark.parametrize(
    ("a_points", "lead", "baazi"),
    [
        ((75, 74), Lead("A", 98), None),  # 50 + 48
        ((75, 75), Lead(None, 0), Baazi("A", BaaziReason.LEAD)),  # exactly 100
        ((90, 90), Lead(None, 0), Baazi("A", BaaziReason.LEAD)),  # 80 + 80 > 100
        ((25, 25), Lead(None, 0), Baazi("B", BaaziReason.LEAD)),
        ((25, 26), Lead("B", 98), None),
    ],
)
def test_a_lead_of_baazi_lead_or_more_wins_a_baazi_and_resets(
    a_points: tuple[int, int], lead: Lead, baazi: Baazi | None
) -> None:
    state = score_seep(game(*(seep_deal(points) for points in a_points)))
    assert state.deals[-1].baazi == baazi
    assert state.deals[-1].lead == lead
    assert state.lead == lead


def test_sweeps_can_win_a_baazi_in_one_deal() -> None:
    (result,) = score_seep(game(seep_deal(50, ("A", "normal"), ("A", "normal")))).deals
    assert result.points == {"A": 150, "B": 50}
    assert result.baazi == Baazi("A", BaaziReason.LEAD)


def test_the_baazi_lead_is_a_switch() -> None:
    state = score_seep(game(seep_deal(60), seep_deal(60), rules=SeepRules(baazi_lead=40)))
    assert [d.baazi for d in state.deals] == [None, Baazi("A", BaaziReason.LEAD)]


def test_baazis_are_counted_per_team() -> None:
    deals = [seep_deal(90), seep_deal(90), seep_deal(5), seep_deal(10), seep_deal(10), seep_deal(40)]
    state = score_seep(game(*deals))
    assert [d.baazi.winner if d.baazi else None for d in state.deals] == [None, "A", "B", None, "B", None]
    assert state.baazis == {"A": 1, "B": 2}
    assert state.lead == Lead("B", 20)


# ---- the game's setup ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("teams", "message"),
    [
        ({"A": ("a", "b")}, "exactly 2 teams, got 1"),
        ({"A": ("a", "b"), "B": ("c", "d"), "C": ("e", "f")}, "exactly 2 teams, got 3"),
        ({"A": ("a",), "B": ("c", "d")}, "team A needs exactly 2 players, got 1"),
        ({"A": ("a", "b"), "B": ("c", "d", "e")}, "team B needs exactly 2 players, got 3"),
        ({"A": ("a", "b"), "B": ("c", "a")}, "duplicate player name 'a'"),
        ({"A": ("a", "a"), "B": ("c", "d")}, "duplicate player name 'a'"),
        ({"A": ("a", ""), "B": ("c", "d")}, "non-empty strings"),
        ({"": ("a", "b"), "B": ("c", "d")}, "team names must be non-empty strings"),
        ({"A": "ab", "B": ("c", "d")}, "team A must be a list of 2 players"),
    ],
)
def test_teams_must_be_two_teams_of_two(teams: dict[str, tuple[str, ...]], message: str) -> None:
    with pytest.raises(SeepError, match=message):
        SeepGame(teams)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"baazi_lead": 0}, "baazi_lead must be at least 1"),
        ({"baazi_lead": -5}, "baazi_lead must be a whole number from 0 to 1,000,000, got -5"),
        ({"min_points": 51}, "min_points must be at most 50"),
        ({"min_points": 9.5}, "min_points must be a whole number"),
        ({"sweep_points": True}, "sweep_points must be a whole number"),
        ({"first_sweep_points": -1}, "first_sweep_points must be a whole number"),
        ({"last_sweep_points": "0"}, "last_sweep_points must be a whole number"),
    ],
)
def test_invalid_rules_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SeepError, match=message):
        SeepRules(**kwargs)  # type: ignore[arg-type]


def test_values_are_type_checked() -> None:
    with pytest.raises(SeepError, match="not a Card"):
        SeepDeal({"A": ("AS",)})  # type: ignore[dict-item]
    with pytest.raises(SeepError, match="not a Sweep"):
        SeepDeal({"A": ()}, ("A",))  # type: ignore[arg-type]
    with pytest.raises(SeepError, match="must be a SweepWhen"):
        Sweep("A", "first")  # type: ignore[arg-type]
    with pytest.raises(SeepError, match="deal 1: expected a SeepDeal"):
        SeepGame(TEAMS, deals=("x",))  # type: ignore[arg-type]


def test_a_lead_has_a_team_exactly_when_it_is_not_zero() -> None:
    with pytest.raises(SeepError):
        Lead("A", 0)
    with pytest.raises(SeepError):
        Lead(None, 5)
    with pytest.raises(SeepError):
        Lead("A", -5)


# ---- event sourcing -----------------------------------------------------------------------------


def test_with_deal_checks_and_appends_without_changing_the_original() -> None:
    empty = game()
    one = empty.with_deal(seep_deal(40))
    assert empty.deals == () and len(one.deals) == 1
    with pytest.raises(SeepError, match=r"^deal 2: sweep by unknown team 'Z'$"):
        one.with_deal(seep_deal(40, ("Z", "normal")))


def test_check_deal_names_the_deal_it_would_be() -> None:
    check_deal(game(seep_deal(40)), seep_deal(60))
    with pytest.raises(SeepError, match="^deal 2: team A captured a joker"):
        check_deal(game(seep_deal(40)), SeepDeal({"A": (JOKER,)}))


def test_undo_and_edit() -> None:
    two = game(seep_deal(40), seep_deal(30))
    assert two.without_last_deal() == game(seep_deal(40))
    edited = two.with_deal_replaced(0, seep_deal(80))
    assert [d.lead for d in score_seep(edited).deals] == [Lead("A", 60), Lead("A", 20)]
    with pytest.raises(SeepError, match="no deal to undo"):
        game().without_last_deal()
    with pytest.raises(SeepError, match="no deal at index 2"):
        two.with_deal_replaced(2, seep_deal(50))
    with pytest.raises(SeepError, match=r"^deal 1: cards listed twice"):
        two.with_deal_replaced(0, SeepDeal({"A": hand("AS AS")}))


def test_games_and_states_are_immutable_hashable_values() -> None:
    g = game(seep_deal(40, ("A", "first")))
    assert g == game(seep_deal(40, ("A", "first")))
    assert hash(g) == hash(game(seep_deal(40, ("A", "first"))))
    state = score_seep(g)
    assert hash(state) == hash(score_seep(g))
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.rules = SeepRules()  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.baazis["A"] = 3  # type: ignore[index]


def test_sweep_when_values() -> None:
    assert [w.value for w in SweepWhen] == ["first", "normal", "last"]
    assert Sweep("A").when is SweepWhen.NORMAL


def test_every_card_of_the_deck_can_be_captured() -> None:
    deal = SeepDeal({"A": DECK[:26], "B": DECK[26:]})
    result = score_seep(game(deal)).deals[0]
    assert sum(result.card_points.values()) == 100
    assert ALL_CARDS[:52] == DECK
