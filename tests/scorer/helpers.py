"""Small builders shared by the scorer tests."""

from __future__ import annotations

from scorer.cards import ALL_CARDS, Card, parse_cards
from scorer.jhyap import JhyapGame, JhyapRound, card_value
from scorer.seep import POINT_CARDS, SeepDeal, Sweep, SweepWhen, seep_card_points


def hand(codes: str) -> tuple[Card, ...]:
    """``hand("KS 3h jk")``: cards from space-separated codes."""
    return parse_cards(codes.split())


def rnd(caller: str, **hands: str) -> JhyapRound:
    """``rnd("B", A="KS 3H", B="AS 2D")``: a Jhyap round from space-separated codes."""
    return JhyapRound(caller, {player: hand(codes) for player, codes in hands.items()})


def totals_round(caller: str, totals: dict[str, int]) -> JhyapRound:
    """A round whose hands have exactly the given totals, dealt from one deck without repeats."""
    pool = sorted(ALL_CARDS, key=card_value, reverse=True) + [ALL_CARDS[-1]]  # 52 cards, 2 jokers
    hands: dict[str, tuple[Card, ...]] = {}
    for player, total in totals.items():
        cards: list[Card] = []
        remaining = total
        while remaining > 0:
            card = next(c for c in pool if 0 < card_value(c) <= remaining)
            pool.remove(card)
            cards.append(card)
            remaining -= card_value(card)
        if not cards:
            cards.append(next(c for c in pool if c.is_joker))
            pool.remove(cards[0])
        hands[player] = tuple(cards)
    return JhyapRound(caller, hands)


def play(game: JhyapGame, *rounds: tuple[str, dict[str, int]]) -> JhyapGame:
    """``game`` with rounds given as (caller, {player: hand total}) appended one by one."""
    for caller, totals in rounds:
        game = game.with_round(totals_round(caller, totals))
    return game


def point_cards_worth(points: int) -> tuple[Card, ...]:
    """Distinct Seep point cards worth exactly ``points`` (0-100)."""
    pool = sorted(POINT_CARDS, key=seep_card_points, reverse=True)
    cards: list[Card] = []
    remaining = points
    for card in pool:
        if 0 < seep_card_points(card) <= remaining:
            cards.append(card)
            remaining -= seep_card_points(card)
    assert remaining == 0, points
    return tuple(cards)


def seep_deal(a_points: int, *sweeps: tuple[str, str]) -> SeepDeal:
    """A deal in which team A captured point cards worth ``a_points`` (B the rest), with sweeps
    given as (team, when) pairs, when being "first", "normal" or "last"."""
    return SeepDeal(
        {"A": point_cards_worth(a_points)}, tuple(Sweep(team, SweepWhen(when)) for team, when in sweeps)
    )
