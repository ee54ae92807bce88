"""Property-based tests (hypothesis) for the invariants of the rules engine and the game log."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import ALL_CARDS, JOKER, Card
from scorer.jhyap import JhyapGame, JhyapRound, JhyapRules, JhyapState, card_value, hand_value, score_jhyap
from scorer.log import dumps, game_from_dict, game_to_dict, loads, replay, state_to_dict
from scorer.seep import DECK, POINT_CARDS, SeepDeal, SeepGame, SeepRules, Sweep, SweepWhen, score_seep

PLAYERS = ("Asha", "Bikash", "Chandra", "Dipesh", "Esha")
SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def jhyap_rules(draw: st.DrawFn) -> JhyapRules:
    return JhyapRules(
        max_score=draw(st.sampled_from([20, 40, 100, 200])),
        call_limit=draw(st.integers(1, 7)),
        caller_penalty=draw(st.sampled_from([0, 10, 30])),
        tie_penalizes_caller=draw(st.booleans()),
        halve_exact=draw(st.booleans()),
    )


def _hand_worth(pile: list[Card], target: int) -> tuple[Card, ...] | None:
    """Cards from ``pile`` (taken out of it) worth exactly ``target``, or None."""
    cards: list[Card] = []
    for card in sorted(pile, key=card_value, reverse=True):
        if 0 < card_value(card) <= target - hand_value(cards) and len(cards) < 5:
            cards.append(card)
    if not cards or hand_value(cards) != target:
        return None
    for card in cards:
        pile.remove(card)
    return tuple(cards)


def _deal_round(rng: random.Random, game: JhyapGame, state: JhyapState) -> JhyapRound | None:
    """A legal round: random hands from the decks in play, and a caller within the call limit.

    Now and then a player's hand is chosen to land exactly on max_score or half of it, so that
    halving is exercised as often as elimination.
    """
    active = state.active
    decks = game.deck_count
    pile = [card for card in ALL_CARDS if not card.is_joker] * decks + [JOKER] * (2 * decks)
    rng.shuffle(pile)
    hands: dict[str, tuple[Card, ...]] = {}
    caller = rng.choice(active)
    for player in active:
        if player == caller:
            continue
        if rng.random() < 0.3:
            target = rng.choice([game.rules.max_score, game.rules.max_score // 2]) - state.totals[player]
            landing = _hand_worth(pile, target) if 0 < target <= 50 else None
            if landing is not None:
                hands[player] = landing
                continue
        hands[player] = tuple(pile.pop() for _ in range(rng.randint(1, 5)))
    caller_hand: list[Card] = []
    for card in list(pile):
        if len(caller_hand) >= rng.randint(1, 3):
            break
        if hand_value(caller_hand) + card_value(card) <= game.rules.call_limit:
            caller_hand.append(card)
            pile.remove(card)
    if not caller_hand:
        return None
    hands[caller] = tuple(caller_hand)
    return JhyapRound(caller, hands)


@st.composite
def jhyap_games(draw: st.DrawFn) -> JhyapGame:
    players = PLAYERS[: draw(st.integers(2, 5))]
    game = JhyapGame(
        players,
        draw(jhyap_rules()),
        first_dealer=draw(st.none() | st.sampled_from(players)),
        decks=draw(st.none() | st.integers(1, 3)),
    )
    rng = draw(st.randoms(use_true_random=False))
    for _ in range(draw(st.integers(0, 30))):
        state = score_jhyap(game)  # also checks every round added so far
        if state.finished:
            break
        round_ = _deal_round(rng, game, state)
        if round_ is None:
            break
        game = dataclasses.replace(game, rounds=(*game.rounds, round_))
    score_jhyap(game)
    return game


@SETTINGS
@given(jhyap_games())
def test_a_successful_caller_never_gains(game: JhyapGame) -> None:
    state = score_jhyap(game)
    previous = {player: 0 for player in game.players}
    for result in state.rounds:
        if result.caller_won:
            assert result.points[result.caller] == 0
            assert result.totals[result.caller] == previous[result.caller]
        else:
            assert (
                result.points[result.caller] == game.rules.caller_penalty + result.hand_totals[result.caller]
            )
        previous = dict(result.totals)


@SETTINGS
@given(jhyap_games())
def test_totals_only_fall_through_halving(game: JhyapGame) -> None:
    state = score_jhyap(game)
    previous = {player: 0 for player in game.players}
    for result in state.rounds:
        for player, total in result.totals.items():
            if player in result.halved:
                assert total < previous[player] + result.points[player]
                assert total in (game.rules.max_score // 2, game.rules.max_score // 4)
            else:
                assert total == previous[player] + result.points.get(player, 0)
            if total < previous[player]:
                assert player in result.halved
        previous = dict(result.totals)


@SETTINGS
@given(jhyap_games())
def test_an_eliminated_player_never_returns(game: JhyapGame) -> None:
    state = score_jhyap(game)
    out: set[str] = set()
    for result in state.rounds:
        assert not out & set(result.hand_totals)
        assert not out & set(result.points)
        assert result.dealer not in out
        assert result.next_starter not in out
        for player in result.eliminated:
            assert result.totals[player] > game.rules.max_score
        out |= set(result.eliminated)
    assert set(state.eliminated) == out
    assert not out & set(state.active)
    assert set(state.active) | out == set(game.players)
    assert all(0 <= state.totals[player] <= game.rules.max_score for player in state.active)


@SETTINGS
@given(jhyap_games())
def test_the_game_ends_exactly_when_at_most_one_player_is_left(game: JhyapGame) -> None:
    state = score_jhyap(game)
    assert state.finished == (len(state.active) <= 1)
    if state.finished:
        assert state.next_dealer is None and state.next_starter is None
        if state.active:
            assert state.winner == state.active[0]
        else:
            last_out = state.rounds[-1].eliminated
            assert state.winner is None or state.winner in last_out
    else:
        assert state.winner is None
        assert state.next_dealer in state.active and state.next_starter in state.active


@SETTINGS
@given(jhyap_games())
def test_replaying_a_jhyap_log_twice_gives_the_same_result(game: JhyapGame) -> None:
    log = game_to_dict(game)
    assert replay(log) == replay(log)
    assert replay(log) == state_to_dict(score_jhyap(game))
    assert game_from_dict(log) == game
    assert loads(dumps(game)) == game
    assert score_jhyap(game) == score_jhyap(loads(dumps(game)))


@st.composite
def seep_deals(draw: st.DrawFn) -> SeepDeal:
    rng = draw(st.randoms(use_true_random=False))
    share = rng.random()
    a = [card for card in DECK if rng.random() < share]
    taken = set(a)
    b = [card for card in DECK if card not in taken]
    rng.shuffle(a)
    rng.shuffle(b)
    mode = draw(st.sampled_from(["both", "A", "B"]))
    if mode == "both":
        # Cards that score nothing may be left out when both teams are given.
        captured = {
            "A": tuple(card for card in a if card in POINT_CARDS or rng.random() < 0.5),
            "B": tuple(card for card in b if card in POINT_CARDS or rng.random() < 0.5),
        }
    else:
        captured = {mode: tuple(a if mode == "A" else b)}
    # A sweep captures cards: only a team that captured some can have swept.
    took = [team for team, cards in (("A", a), ("B", b)) if cards and captured.get(team, True)]
    if not took:
        return SeepDeal(captured)
    sweeps = [Sweep(draw(st.sampled_from(took))) for _ in range(draw(st.integers(0, 3)))]
    for when in (SweepWhen.FIRST, SweepWhen.LAST):
        if draw(st.booleans()):
            sweeps.append(Sweep(draw(st.sampled_from(took)), when))
    return SeepDeal(captured, tuple(sweeps))


@st.composite
def seep_games(draw: st.DrawFn) -> SeepGame:
    rules = SeepRules(
        baazi_lead=draw(st.sampled_from([50, 100, 150])),
        min_points=draw(st.sampled_from([0, 9, 20])),
        sweep_points=draw(st.sampled_from([50, 30])),
        first_sweep_points=draw(st.sampled_from([25, 0])),
        last_sweep_points=draw(st.sampled_from([0, 50])),
    )
    return SeepGame(
        {"A": ("Priya", "Sunil"), "B": ("Raj", "Meera")},
        rules,
        tuple(draw(st.lists(seep_deals(), max_size=12))),
    )


@SETTINGS
@given(seep_games())
def test_seep_card_points_always_total_100(game: SeepGame) -> None:
    for result in score_seep(game).deals:
        assert sum(result.card_points.values()) == 100
        assert all(points >= 0 for points in result.card_points.values())


@SETTINGS
@given(seep_games())
def test_the_seep_lead_stays_under_the_baazi_lead_and_baazis_add_up(game: SeepGame) -> None:
    state = score_seep(game)
    signed = 0
    for result in state.deals:
        assert result.points == {t: result.card_points[t] + result.sweep_points[t] for t in ("A", "B")}
        assert result.lead.points < game.rules.baazi_lead
        short = [t for t in ("A", "B") if result.points[t] < game.rules.min_points]
        if short:
            assert result.baazi is not None and result.baazi.winner != short[0]
            signed = 0
        else:
            signed += result.points["A"] - result.points["B"]
            if abs(signed) >= game.rules.baazi_lead:
                assert result.baazi is not None and result.baazi.winner == ("A" if signed > 0 else "B")
                signed = 0
            else:
                assert result.baazi is None
        assert result.lead.points == abs(signed)
        assert result.lead.team == (None if signed == 0 else "A" if signed > 0 else "B")
    wins = [result.baazi.winner for result in state.deals if result.baazi is not None]
    assert state.baazis == {"A": wins.count("A"), "B": wins.count("B")}


@SETTINGS
@given(seep_games())
def test_replaying_a_seep_log_twice_gives_the_same_result(game: SeepGame) -> None:
    log = game_to_dict(game)
    assert replay(log) == replay(log) == state_to_dict(score_seep(game))
    assert game_from_dict(log) == game
    assert loads(dumps(game)) == game


@given(st.sampled_from(ALL_CARDS), st.randoms(use_true_random=False), st.booleans())
def test_any_casing_of_a_code_parses_to_the_same_card(card: Card, rng: random.Random, use_t: bool) -> None:
    code = card.code.replace("10", "T") if use_t else card.code
    mixed = "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in code)
    assert Card.parse(mixed) == card


def _reference_jhyap(game: JhyapGame) -> list[dict[str, object]]:
    """An independent, deliberately plain re-statement of the Jhyap rules, one dict per round."""
    rules, seats = game.rules, list(game.players)
    totals = dict.fromkeys(seats, 0)
    out: list[str] = []
    dealer = game.first_dealer or seats[0]
    rows: list[dict[str, object]] = []
    for round_ in game.rounds:
        playing = [p for p in seats if p not in out]
        value = {
            p: sum(0 if c.is_joker else min(c.rank.number, 10) for c in round_.hands[p]) for p in playing
        }  # type: ignore[union-attr]
        caller = round_.caller
        if rules.tie_penalizes_caller:
            beaten = any(value[p] <= value[caller] for p in playing if p != caller)
        else:
            beaten = any(value[p] < value[caller] for p in playing if p != caller)
        added = {p: value[p] for p in playing}
        added[caller] = rules.caller_penalty + value[caller] if beaten else 0
        halved = []
        for p in playing:
            totals[p] += added[p]
            if rules.halve_exact and added[p] and totals[p] in (rules.max_score, rules.max_score // 2):
                totals[p] //= 2
                halved.append(p)
        gone = [p for p in playing if totals[p] > rules.max_score]
        out += gone
        left = [p for p in playing if p not in gone]
        order = [seats[(seats.index(dealer) + k) % len(seats)] for k in range(1, len(seats) + 1)]
        starter = min((p for p in order if p in left), key=lambda p: value[p], default=None)
        if len(left) <= 1:
            starter = None
        rows.append(
            {
                "dealer": dealer,
                "beaten": beaten,
                "totals": dict(totals),
                "halved": halved,
                "gone": gone,
                "starter": starter,
            }
        )
        if left:
            dealer = next(p for p in order if p in left)
    return rows


@SETTINGS
@given(jhyap_games())
def test_the_engine_agrees_with_a_plain_restatement_of_the_rules(game: JhyapGame) -> None:
    state = score_jhyap(game)
    expected = _reference_jhyap(game)
    assert len(state.rounds) == len(expected)
    for result, row in zip(state.rounds, expected, strict=True):
        assert result.dealer == row["dealer"]
        assert result.caller_won is not row["beaten"]
        assert result.totals == row["totals"]
        assert list(result.halved) == row["halved"]
        assert list(result.eliminated) == row["gone"]
        assert result.next_starter == row["starter"]
