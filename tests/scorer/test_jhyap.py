"""Jhyap rules: values, calling, halving, elimination, dealing order, the end of the game, and errors."""

from __future__ import annotations

import dataclasses

import pytest

from scorer.cards import ALL_CARDS, JOKER, Card
from scorer.jhyap import (
    JhyapError,
    JhyapGame,
    JhyapRound,
    JhyapRules,
    card_value,
    check_round,
    hand_value,
    score_jhyap,
)
from tests.scorer.helpers import hand, play, rnd, totals_round

ABC = ("A", "B", "C")
ABCD = ("A", "B", "C", "D")
SMALL = JhyapRules(max_score=40)  # halves 40 -> 20 and 20 -> 10
SMALL_NO_HALVING = JhyapRules(max_score=40, halve_exact=False)


# ---- card values ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "value"),
    [
        ("JK", 0),
        ("AS", 1),
        ("AH", 1),
        ("2D", 2),
        ("5C", 5),
        ("9S", 9),
        ("10H", 10),
        ("JS", 10),
        ("QD", 10),
        ("KC", 10),
    ],
)
def test_card_values(code: str, value: int) -> None:
    assert card_value(Card.parse(code)) == value


def test_a_deck_with_two_jokers_is_worth_340() -> None:
    assert hand_value(ALL_CARDS) + card_value(JOKER) == 340


def test_hand_value_sums_the_cards() -> None:
    assert hand_value(hand("KS 3H")) == 13
    assert hand_value(hand("AS 2D JK")) == 3
    assert hand_value(()) == 0


def test_card_value_rejects_non_cards() -> None:
    with pytest.raises(JhyapError, match="expected a Card"):
        card_value("AS")  # type: ignore[arg-type]


# ---- the game's setup -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "decks"), [(2, 1), (3, 1), (4, 1), (5, 2)])
def test_default_deck_count_is_one_up_to_four_players_and_two_for_five(players: int, decks: int) -> None:
    game = JhyapGame(tuple("ABCDE"[:players]))
    assert game.deck_count == decks


def test_the_log_may_set_the_deck_count() -> None:
    assert JhyapGame(tuple("ABCDE"), decks=1).deck_count == 1
    assert JhyapGame(ABC, decks=3).deck_count == 3


@pytest.mark.parametrize("count", [0, 1, 6, 7])
def test_wrong_player_counts_are_rejected(count: int) -> None:
    with pytest.raises(JhyapError, match=f"2-5 players, got {count}"):
        JhyapGame(tuple(f"P{i}" for i in range(count)))


def test_duplicate_player_names_are_rejected() -> None:
    with pytest.raises(JhyapError, match="duplicate player name 'A'"):
        JhyapGame(("A", "B", "A"))


@pytest.mark.parametrize("name", ["", "   ", 3, None])
def test_player_names_must_be_non_empty_strings(name: object) -> None:
    with pytest.raises(JhyapError, match="non-empty strings"):
        JhyapGame(("A", name))  # type: ignore[arg-type]


def test_players_must_be_a_list_not_a_string() -> None:
    with pytest.raises(JhyapError, match="list of names"):
        JhyapGame("ABC")  # type: ignore[arg-type]


def test_first_dealer_must_be_a_player() -> None:
    with pytest.raises(JhyapError, match="first_dealer 'Z' is not one of the players"):
        JhyapGame(ABC, first_dealer="Z")


@pytest.mark.parametrize("decks", [0, -1, True, 1.5, "2"])
def test_deck_count_must_be_a_positive_whole_number(decks: object) -> None:
    with pytest.raises(JhyapError, match="decks must be a whole number"):
        JhyapGame(ABC, decks=decks)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_score": -4}, "max_score must be a whole number from 0 to 1,000,000, got -4"),
        ({"max_score": 0}, "max_score must be at least 1"),
        ({"max_score": 200.0}, "max_score must be a whole number"),
        ({"call_limit": -1}, "call_limit must be a whole number from 0 to 1,000,000, got -1"),
        ({"call_limit": True}, "call_limit must be a whole number"),
        ({"caller_penalty": "30"}, "caller_penalty must be a whole number"),
        ({"tie_penalizes_caller": 1}, "tie_penalizes_caller must be true or false, got 1"),
        ({"halve_exact": "yes"}, "halve_exact must be true or false"),
        ({"max_score": 150}, "max_score must be a multiple of 4 when halve_exact is on"),
    ],
)
def test_invalid_rules_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(JhyapError, match=message):
        JhyapRules(**kwargs)  # type: ignore[arg-type]


def test_any_max_score_is_allowed_without_halving() -> None:
    assert JhyapRules(max_score=150, halve_exact=False).max_score == 150


def test_a_new_game_has_everyone_at_zero_and_the_first_dealer_to_deal() -> None:
    state = score_jhyap(JhyapGame(ABCD, first_dealer="C"))
    assert state.rounds == ()
    assert state.totals == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert state.active == ABCD
    assert state.eliminated == ()
    assert not state.finished
    assert state.winner is None
    assert state.next_dealer == "C"
    assert state.next_starter == "D"


def test_the_first_player_deals_first_by_default() -> None:
    assert score_jhyap(JhyapGame(ABC)).next_dealer == "A"


# ---- calling and scoring ------------------------------------------------------------------------


def test_the_issue_example_round() -> None:
    game = JhyapGame(("Asha", "Bikash", "Chandra"), first_dealer="Asha", decks=1)
    game = game.with_round(rnd("Bikash", Asha="KS 3H", Bikash="AS 2D JK", Chandra="5C 7D"))
    (result,) = score_jhyap(game).rounds
    assert result.number == 1
    assert result.dealer == "Asha"
    assert result.hand_totals == {"Asha": 13, "Bikash": 3, "Chandra": 12}
    assert result.caller_won
    assert result.points == {"Asha": 13, "Bikash": 0, "Chandra": 12}
    assert result.totals == {"Asha": 13, "Bikash": 0, "Chandra": 12}
    assert result.halved == ()
    assert result.eliminated == ()
    assert result.next_starter == "Bikash"


@pytest.mark.parametrize("caller_total", [0, 1, 4, 5])
def test_the_caller_may_call_at_or_under_the_call_limit(caller_total: int) -> None:
    game = play(JhyapGame(ABC), ("A", {"A": caller_total, "B": 20, "C": 30}))
    assert score_jhyap(game).rounds[0].hand_totals["A"] == caller_total


def test_a_caller_over_the_call_limit_is_an_error_naming_round_caller_and_total() -> None:
    game = play(JhyapGame(ABC), ("A", {"A": 1, "B": 20, "C": 30}))
    with pytest.raises(JhyapError, match=r"^round 2: caller B's hand totals 6, over the call limit of 5$"):
        game.with_round(totals_round("B", {"A": 10, "B": 6, "C": 30}))


def test_the_call_limit_is_a_switch() -> None:
    game = JhyapGame(ABC, JhyapRules(call_limit=7))
    game = play(game, ("B", {"A": 10, "B": 7, "C": 30}))
    assert score_jhyap(game).rounds[0].caller_won


@pytest.mark.parametrize(
    ("rules", "totals", "caller_won", "points"),
    [
        # Nobody lower: the caller scores 0, everyone else their own hand.
        (JhyapRules(), {"A": 12, "B": 4, "C": 9}, True, {"A": 12, "B": 0, "C": 9}),
        # Someone strictly lower: penalty 30 plus the caller's own hand.
        (JhyapRules(), {"A": 12, "B": 4, "C": 3}, False, {"A": 12, "B": 34, "C": 3}),
        (JhyapRules(), {"A": 0, "B": 5, "C": 30}, False, {"A": 0, "B": 35, "C": 30}),
        # A tie does not beat the caller by default...
        (JhyapRules(), {"A": 4, "B": 4, "C": 9}, True, {"A": 4, "B": 0, "C": 9}),
        # ...but does with tie_penalizes_caller.
        (JhyapRules(tie_penalizes_caller=True), {"A": 4, "B": 4, "C": 9}, False, {"A": 4, "B": 34, "C": 9}),
        (JhyapRules(tie_penalizes_caller=True), {"A": 12, "B": 4, "C": 9}, True, {"A": 12, "B": 0, "C": 9}),
        # The penalty is a switch.
        (JhyapRules(caller_penalty=20), {"A": 12, "B": 4, "C": 3}, False, {"A": 12, "B": 24, "C": 3}),
        (JhyapRules(caller_penalty=0), {"A": 12, "B": 4, "C": 3}, False, {"A": 12, "B": 4, "C": 3}),
    ],
)
def test_caller_scoring(
    rules: JhyapRules, totals: dict[str, int], caller_won: bool, points: dict[str, int]
) -> None:
    game = play(JhyapGame(ABC, rules), ("B", totals))
    (result,) = score_jhyap(game).rounds
    assert result.caller_won is caller_won
    assert result.points == points
    assert result.totals == points


def test_points_add_up_over_rounds() -> None:
    game = play(
        JhyapGame(ABC),
        ("B", {"A": 12, "B": 4, "C": 9}),
        ("C", {"A": 7, "B": 2, "C": 3}),
        ("A", {"A": 1, "B": 20, "C": 15}),
    )
    state = score_jhyap(game)
    assert [r.totals for r in state.rounds] == [
        {"A": 12, "B": 0, "C": 9},
        {"A": 19, "B": 2, "C": 42},
        {"A": 19, "B": 22, "C": 57},
    ]
    assert state.totals == {"A": 19, "B": 22, "C": 57}


# ---- halving --------------------------------------------------------------------------------------


def test_landing_exactly_on_max_score_halves_to_half() -> None:
    # Default rules: 45 + 45 = 90, +40 = 130, +40 = 170, +30 = 200 -> 100 (not again to 50).
    game = play(JhyapGame(ABC), *[("B", {"A": total, "B": 1, "C": 2}) for total in (45, 45, 40, 40, 30)])
    last = score_jhyap(game).rounds[-1]
    assert last.points["A"] == 30
    assert last.totals["A"] == 100
    assert last.halved == ("A",)
    assert last.eliminated == ()


def test_landing_exactly_on_half_max_score_halves_to_a_quarter() -> None:
    game = play(JhyapGame(ABC), *[("B", {"A": total, "B": 1, "C": 2}) for total in (45, 45, 10)])
    state = score_jhyap(game)
    assert [r.totals["A"] for r in state.rounds] == [45, 90, 50]
    assert [r.halved for r in state.rounds] == [(), (), ("A",)]


def test_halving_uses_max_score_from_the_rules() -> None:
    game = play(JhyapGame(ABC, SMALL), ("B", {"A": 20, "B": 1, "C": 40}))
    (result,) = score_jhyap(game).rounds
    assert result.totals == {"A": 10, "B": 0, "C": 20}
    assert result.halved == ("A", "C")


def test_halving_happens_at_most_once_per_round() -> None:
    game = play(JhyapGame(ABC, SMALL), ("B", {"A": 30, "B": 1, "C": 2}), ("B", {"A": 10, "B": 1, "C": 2}))
    last = score_jhyap(game).rounds[-1]
    assert last.totals["A"] == 20  # 40 -> 20, not on to 10
    assert last.halved == ("A",)


def test_a_player_who_adds_nothing_is_not_halved_again() -> None:
    # A lands on 40 and drops to 20 (half of max_score); calling and winning next round adds 0 points,
    # so A did not land on 20 and is not halved again.
    game = play(
        JhyapGame(ABC, SMALL),
        ("B", {"A": 30, "B": 1, "C": 2}),  # A 30
        ("B", {"A": 10, "B": 1, "C": 2}),  # A 40 -> 20
        ("A", {"A": 0, "B": 5, "C": 3}),  # A calls with 0 and wins: adds 0, stays 20
    )
    last = score_jhyap(game).rounds[-1]
    assert last.points["A"] == 0
    assert last.totals["A"] == 20
    assert last.halved == ()


def test_halve_exact_off_keeps_exact_totals() -> None:
    game = play(JhyapGame(ABC, SMALL_NO_HALVING), ("B", {"A": 20, "B": 1, "C": 40}))
    (result,) = score_jhyap(game).rounds
    assert result.totals == {"A": 20, "B": 0, "C": 40}
    assert result.halved == ()
    assert result.eliminated == ()  # exactly max_score is not over it


def test_halving_comes_before_elimination() -> None:
    # C lands exactly on 40: halved to 20, so not eliminated; A goes to 41 and is out.
    game = play(JhyapGame(ABC, SMALL), ("B", {"A": 41, "B": 1, "C": 40}))
    (result,) = score_jhyap(game).rounds
    assert result.totals == {"A": 41, "B": 0, "C": 20}
    assert result.eliminated == ("A",)


# ---- elimination and the end of the game ----------------------------------------------------------


def test_a_total_over_max_score_is_eliminated() -> None:
    game = play(JhyapGame(ABCD, SMALL_NO_HALVING), ("B", {"A": 41, "B": 1, "C": 40, "D": 30}))
    state = score_jhyap(game)
    assert state.rounds[0].eliminated == ("A",)
    assert state.active == ("B", "C", "D")
    assert state.eliminated == ("A",)
    assert state.totals["A"] == 41
    assert not state.finished


def test_eliminated_players_keep_their_total_and_take_no_further_part() -> None:
    game = play(
        JhyapGame(ABCD, SMALL_NO_HALVING),
        ("B", {"A": 41, "B": 1, "C": 10, "D": 10}),
        ("C", {"B": 9, "C": 2, "D": 7}),
    )
    state = score_jhyap(game)
    assert "A" not in state.rounds[1].hand_totals
    assert "A" not in state.rounds[1].points
    assert state.rounds[1].totals == {"A": 41, "B": 9, "C": 10, "D": 17}


def test_a_hand_for_an_eliminated_player_is_an_error() -> None:
    game = play(JhyapGame(ABCD, SMALL_NO_HALVING), ("B", {"A": 41, "B": 1, "C": 10, "D": 10}))
    with pytest.raises(JhyapError, match=r"^round 2: hand given for A, who was eliminated in round 1$"):
        game.with_round(totals_round("C", {"A": 3, "B": 9, "C": 2, "D": 7}))


def test_an_eliminated_caller_is_an_error() -> None:
    game = play(JhyapGame(ABCD, SMALL_NO_HALVING), ("B", {"A": 41, "B": 1, "C": 10, "D": 10}))
    with pytest.raises(JhyapError, match=r"^round 2: caller A was eliminated in round 1$"):
        game.with_round(totals_round("A", {"B": 9, "C": 2, "D": 7}))


def test_elimination_order_is_kept_across_rounds_and_seating_order_within_a_round() -> None:
    game = play(
        JhyapGame(("A", "B", "C", "D", "E"), SMALL_NO_HALVING),
        ("A", {"A": 1, "B": 10, "C": 41, "D": 10, "E": 10}),
        ("A", {"A": 1, "B": 10, "D": 35, "E": 31}),
    )
    state = score_jhyap(game)
    assert state.rounds[1].eliminated == ("D", "E")
    assert state.eliminated == ("C", "D", "E")
    assert state.active == ("A", "B")


def test_the_last_active_player_wins() -> None:
    game = play(JhyapGame(ABC, SMALL_NO_HALVING), ("B", {"A": 41, "B": 1, "C": 45}))
    state = score_jhyap(game)
    assert state.finished
    assert state.winner == "B"
    assert state.active == ("B",)
    assert state.eliminated == ("A", "C")
    assert state.next_dealer is None
    assert state.next_starter is None
    assert state.rounds[-1].next_starter is None


def test_when_the_last_players_all_go_out_together_the_lowest_total_wins() -> None:
    game = play(
        JhyapGame(ABC, SMALL_NO_HALVING),
        ("B", {"A": 38, "B": 0, "C": 36}),  # A 38, B 0, C 36
        ("A", {"A": 0, "B": 36, "C": 2}),  # A 38, B 36, C 38
        ("C", {"A": 4, "B": 9, "C": 5}),  # C beaten by A: 38 + 35 = 73; A 42; B 45
    )
    state = score_jhyap(game)
    assert state.rounds[-1].totals == {"A": 42, "B": 45, "C": 73}
    assert state.rounds[-1].eliminated == ("A", "B", "C")
    assert state.finished
    assert state.active == ()
    assert state.winner == "A"


def test_an_exact_tie_among_the_last_players_has_no_winner() -> None:
    game = play(
        JhyapGame(("A", "B"), SMALL_NO_HALVING),
        ("A", {"A": 0, "B": 6}),  # A 0, B 6
        ("B", {"A": 37, "B": 0}),  # A 37, B 6
        ("B", {"A": 4, "B": 5}),  # B beaten: 6 + 35 = 41; A 37 + 4 = 41
    )
    state = score_jhyap(game)
    assert state.rounds[-1].totals == {"A": 41, "B": 41}
    assert state.finished
    assert state.winner is None


def test_a_round_after_the_game_is_finished_is_an_error() -> None:
    game = play(JhyapGame(ABC, SMALL_NO_HALVING), ("B", {"A": 41, "B": 1, "C": 45}))
    with pytest.raises(JhyapError, match=r"^round 2: the game is already over \(B won in round 1\)$"):
        game.with_round(totals_round("B", {"B": 1}))


def test_a_round_after_a_drawn_game_is_an_error() -> None:
    game = play(
        JhyapGame(("A", "B"), SMALL_NO_HALVING),
        ("A", {"A": 0, "B": 6}),
        ("B", {"A": 37, "B": 0}),
        ("B", {"A": 4, "B": 5}),
    )
    with pytest.raises(JhyapError, match="round 4: the game is already over .it ended without a winner"):
        game.with_round(totals_round("A", {"A": 1}))


# ---- dealer and starter -----------------------------------------------------------------------------


def test_the_deal_passes_clockwise() -> None:
    rounds = [("A", {"A": 1, "B": 2, "C": 3, "D": 4})] * 5
    state = score_jhyap(play(JhyapGame(ABCD, first_dealer="C"), *rounds))
    assert [r.dealer for r in state.rounds] == ["C", "D", "A", "B", "C"]
    assert state.next_dealer == "D"


def test_the_deal_skips_eliminated_players() -> None:
    game = play(
        JhyapGame(ABCD, SMALL_NO_HALVING),
        ("A", {"A": 1, "B": 41, "C": 3, "D": 4}),  # dealt by A; B goes out
        ("A", {"A": 1, "C": 3, "D": 4}),
        ("A", {"A": 1, "C": 3, "D": 4}),
        ("A", {"A": 1, "C": 3, "D": 4}),
    )
    assert [r.dealer for r in score_jhyap(game).rounds] == ["A", "C", "D", "A"]


def test_when_the_dealer_goes_out_the_deal_passes_to_the_next_active_player() -> None:
    game = play(
        JhyapGame(ABCD, SMALL_NO_HALVING, first_dealer="B"),
        ("A", {"A": 1, "B": 41, "C": 45, "D": 4}),  # dealt by B; B and C go out
    )
    state = score_jhyap(game)
    assert state.next_dealer == "D"


@pytest.mark.parametrize(
    ("dealer", "totals", "starter"),
    [
        ("A", {"A": 3, "B": 7, "C": 9, "D": 8}, "A"),  # the single lowest
        ("A", {"A": 3, "B": 7, "C": 3, "D": 3}, "C"),  # tie: nearest the dealer's left
        ("A", {"A": 3, "B": 7, "C": 9, "D": 3}, "D"),  # tie with the dealer: dealer last
        ("C", {"A": 2, "B": 2, "C": 9, "D": 8}, "A"),  # clockwise from C: D, A, B, C
        ("D", {"A": 3, "B": 3, "C": 3, "D": 3}, "A"),
        ("B", {"A": 3, "B": 3, "C": 3, "D": 3}, "C"),
    ],
)
def test_the_next_starter_is_the_lowest_hand_ties_nearest_the_dealers_left(
    dealer: str, totals: dict[str, int], starter: str
) -> None:
    caller = min(totals, key=lambda player: totals[player])
    game = play(JhyapGame(ABCD, first_dealer=dealer), (caller, totals))
    state = score_jhyap(game)
    assert state.rounds[0].dealer == dealer
    assert state.rounds[0].next_starter == starter
    assert state.next_starter == starter


def test_a_player_eliminated_this_round_does_not_start_the_next() -> None:
    # The starter is the lowest hand among the players still in after this round's eliminations.
    game = play(
        JhyapGame(ABCD, SMALL_NO_HALVING),
        ("A", {"A": 0, "B": 36, "C": 3, "D": 4}),  # A calls with a joker; B 36
        ("B", {"A": 1, "B": 5, "C": 8, "D": 9}),  # B beaten by A: 36 + 35 = 71 -> out
    )
    state = score_jhyap(game)
    assert state.rounds[-1].eliminated == ("B",)
    assert state.rounds[-1].next_starter == "A"
    game = play(
        JhyapGame(ABCD, SMALL_NO_HALVING),
        ("A", {"A": 0, "B": 36, "C": 3, "D": 4}),
        ("C", {"A": 6, "B": 2, "C": 5, "D": 9}),  # C beaten by B: C 3 + 35 = 38; B 38; B lowest hand
    )
    assert score_jhyap(game).rounds[-1].next_starter == "B"
    game = play(
        JhyapGame(ABCD, SMALL_NO_HALVING),
        ("A", {"A": 0, "B": 36, "C": 3, "D": 4}),
        ("D", {"A": 6, "B": 5, "C": 7, "D": 5}),  # B adds 5: 41 -> out, so the lowest still in is D
    )
    state = score_jhyap(game)
    assert state.rounds[-1].eliminated == ("B",)
    assert state.rounds[-1].next_starter == "D"


# ---- round errors -------------------------------------------------------------------------------


def test_a_missing_hand_is_an_error() -> None:
    with pytest.raises(JhyapError, match=r"^round 1: no hand given for B, C$"):
        JhyapGame(ABC).with_round(rnd("A", A="AS"))


def test_a_hand_for_an_unknown_player_is_an_error() -> None:
    with pytest.raises(JhyapError, match=r"^round 1: hand given for unknown player 'Z'$"):
        JhyapGame(ABC).with_round(rnd("A", A="AS", B="2S", C="3S", Z="4S"))


def test_an_unknown_caller_is_an_error() -> None:
    with pytest.raises(JhyapError, match=r"^round 1: unknown caller 'Z'$"):
        JhyapGame(ABC).with_round(rnd("Z", A="AS", B="2S", C="3S"))


def test_an_empty_hand_is_an_error() -> None:
    with pytest.raises(JhyapError, match=r"^round 1: B's hand is empty$"):
        JhyapGame(ABC).with_round(rnd("A", A="AS", B="", C="3S"))


@pytest.mark.parametrize(
    ("players", "decks", "hands", "message"),
    [
        (
            ABC,
            None,
            {"A": "7S", "B": "7S 2H", "C": "3C"},
            "7S appears 2 times across the hands, but 1 deck holds only 1",
        ),
        (ABC, None, {"A": "7S 7S", "B": "2H", "C": "3C"}, "7S appears 2 times"),
        (
            ABC,
            None,
            {"A": "JK", "B": "JK 2H", "C": "JK"},
            "JK appears 3 times across the hands, but 1 deck holds only 2",
        ),
        (
            tuple("ABCDE"),
            None,
            {"A": "JK", "B": "JK JK", "C": "JK JK", "D": "2S", "E": "3S"},
            "JK appears 5 times",
        ),
        (
            tuple("ABCDE"),
            None,
            {"A": "7S", "B": "7S", "C": "7S", "D": "2S", "E": "3S"},
            "7S appears 3 times across the hands, but 2 decks hold only 2",
        ),
        (
            tuple("ABCDE"),
            1,
            {"A": "7S", "B": "7S", "C": "4S", "D": "2S", "E": "3S"},
            "7S appears 2 times across the hands, but 1 deck holds only 1",
        ),
        (ABC, 2, {"A": "7S", "B": "7S 7S", "C": "3C"}, "7S appears 3 times"),
    ],
)
def test_more_copies_of_a_card_than_the_decks_hold_is_an_error(
    players: tuple[str, ...], decks: int | None, hands: dict[str, str], message: str
) -> None:
    game = JhyapGame(players, decks=decks)
    with pytest.raises(JhyapError, match=rf"^round 1: {message}"):
        game.with_round(rnd("A", **hands))


@pytest.mark.parametrize(
    ("players", "decks", "hands"),
    [
        (tuple("ABCDE"), None, {"A": "7S", "B": "7S", "C": "JK", "D": "JK JK", "E": "JK"}),
        (ABC, 2, {"A": "7S", "B": "7S", "C": "JK JK JK"}),
        (ABC, None, {"A": "7S", "B": "JK", "C": "JK"}),
    ],
)
def test_copies_within_what_the_decks_hold_are_fine(
    players: tuple[str, ...], decks: int | None, hands: dict[str, str]
) -> None:
    game = JhyapGame(players, decks=decks).with_round(rnd("C", **hands))
    assert len(score_jhyap(game).rounds) == 1


def test_round_values_are_type_checked() -> None:
    with pytest.raises(JhyapError, match="caller must be a player name"):
        JhyapRound(3, {})  # type: ignore[arg-type]
    with pytest.raises(JhyapError, match="A's hand holds 'AS', which is not a Card"):
        JhyapRound("A", {"A": ("AS",)})  # type: ignore[dict-item]
    with pytest.raises(JhyapError, match="A's hand must be a list of cards"):
        JhyapRound("A", {"A": "AS"})  # type: ignore[dict-item]
    with pytest.raises(JhyapError, match="round 1: expected a JhyapRound"):
        JhyapGame(ABC, rounds=("x",))  # type: ignore[arg-type]


def test_score_reports_the_first_bad_round_of_a_game() -> None:
    good = totals_round("A", {"A": 1, "B": 2, "C": 3})
    bad = totals_round("A", {"A": 9, "B": 2, "C": 3})
    game = JhyapGame(ABC, rounds=(good, good, bad, bad))
    with pytest.raises(JhyapError, match=r"^round 3: caller A's hand totals 9"):
        score_jhyap(game)


# ---- event sourcing: check, undo, edit ------------------------------------------------------------


def test_check_round_validates_without_adding() -> None:
    game = JhyapGame(ABC)
    check_round(game, totals_round("A", {"A": 1, "B": 2, "C": 3}))
    assert game.rounds == ()
    with pytest.raises(JhyapError, match="^round 1: caller A's hand totals 8"):
        check_round(game, totals_round("A", {"A": 8, "B": 2, "C": 3}))


def test_with_round_leaves_the_original_game_unchanged() -> None:
    game = JhyapGame(ABC)
    longer = game.with_round(totals_round("A", {"A": 1, "B": 2, "C": 3}))
    assert game.rounds == ()
    assert len(longer.rounds) == 1


def test_undo_is_the_game_without_its_last_round() -> None:
    one = play(JhyapGame(ABC), ("A", {"A": 1, "B": 2, "C": 3}))
    two = one.with_round(totals_round("B", {"A": 10, "B": 2, "C": 3}))
    assert two.without_last_round() == one
    assert score_jhyap(two.without_last_round()) == score_jhyap(one)


def test_undo_with_no_rounds_is_an_error() -> None:
    with pytest.raises(JhyapError, match="no round to undo"):
        JhyapGame(ABC).without_last_round()


def test_editing_a_round_recomputes_everything_after_it() -> None:
    game = play(JhyapGame(ABC), ("A", {"A": 1, "B": 2, "C": 3}), ("B", {"A": 10, "B": 2, "C": 3}))
    edited = game.with_round_replaced(0, totals_round("A", {"A": 1, "B": 20, "C": 3}))
    state = score_jhyap(edited)
    assert state.totals == {"A": 10, "B": 20, "C": 6}
    assert [r.dealer for r in state.rounds] == ["A", "B"]


def test_an_edit_that_invalidates_a_later_round_names_that_round() -> None:
    game = play(
        JhyapGame(ABC, SMALL_NO_HALVING), ("A", {"A": 1, "B": 2, "C": 3}), ("B", {"A": 10, "B": 2, "C": 3})
    )
    with pytest.raises(JhyapError, match=r"^round 2: hand given for A, who was eliminated in round 1$"):
        game.with_round_replaced(0, totals_round("B", {"A": 41, "B": 2, "C": 3}))


@pytest.mark.parametrize("index", [-1, 2, 1.0])
def test_editing_a_round_that_does_not_exist_is_an_error(index: object) -> None:
    game = play(JhyapGame(ABC), ("A", {"A": 1, "B": 2, "C": 3}), ("A", {"A": 1, "B": 2, "C": 3}))
    with pytest.raises(JhyapError, match="no round at index"):
        game.with_round_replaced(index, totals_round("A", {"A": 1, "B": 2, "C": 3}))  # type: ignore[arg-type]


def test_games_and_states_are_immutable_hashable_values() -> None:
    game = play(JhyapGame(ABC), ("A", {"A": 1, "B": 2, "C": 3}))
    same = play(JhyapGame(ABC), ("A", {"A": 1, "B": 2, "C": 3}))
    assert game == same and hash(game) == hash(same)
    state = score_jhyap(game)
    assert state == score_jhyap(same) and hash(state) == hash(score_jhyap(same))
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.players = ("X",)  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.totals["A"] = 5  # type: ignore[index]
    with pytest.raises(TypeError):
        game.rounds[0].hands["A"] = ()  # type: ignore[index]


def test_a_round_built_from_a_dict_is_not_changed_by_later_edits_of_that_dict() -> None:
    hands = {"A": (JOKER,), "B": hand("2S"), "C": hand("3S")}
    round_ = JhyapRound("A", hands)
    hands["A"] = hand("KS")
    assert round_.hands["A"] == (JOKER,)
