"""Card codes, parsing and the fixed card order."""

from __future__ import annotations

import dataclasses

import pytest

from scorer.cards import ALL_CARDS, CARD_CODES, JOKER, Card, CardError, Rank, ScorerError, Suit, parse_cards


@pytest.mark.parametrize(
    ("code", "rank", "suit"),
    [
        ("AS", Rank.ACE, Suit.SPADES),
        ("as", Rank.ACE, Suit.SPADES),
        ("2h", Rank.TWO, Suit.HEARTS),
        ("10S", Rank.TEN, Suit.SPADES),
        ("10s", Rank.TEN, Suit.SPADES),
        ("ts", Rank.TEN, Suit.SPADES),
        ("Td", Rank.TEN, Suit.DIAMONDS),
        ("jC", Rank.JACK, Suit.CLUBS),
        ("QD", Rank.QUEEN, Suit.DIAMONDS),
        ("kh", Rank.KING, Suit.HEARTS),
    ],
)
def test_parse_accepts_any_case_and_t_for_ten(code: str, rank: Rank, suit: Suit) -> None:
    assert Card.parse(code) == Card(rank, suit)


@pytest.mark.parametrize("code", ["JK", "jk", "Jk", "jK"])
def test_parse_reads_jk_as_the_joker(code: str) -> None:
    card = Card.parse(code)
    assert card.is_joker
    assert card == JOKER
    assert card.rank is None and card.suit is None


@pytest.mark.parametrize(
    "code", ["", "A", "S", "1S", "11H", "AX", "ZZ", "0S", "10", "JOKER", " AS", "AS ", "A S", "T"]
)
def test_parse_rejects_unknown_codes_naming_them(code: str) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(code)
    assert repr(code) in str(info.value)


@pytest.mark.parametrize("value", [12, None, b"AS", ["AS"]])
def test_parse_rejects_non_strings(value: object) -> None:
    with pytest.raises(CardError, match="must be a string"):
        Card.parse(value)  # type: ignore[arg-type]


def test_card_errors_are_scorer_errors_and_value_errors() -> None:
    with pytest.raises(ScorerError):
        Card.parse("??")
    with pytest.raises(ValueError):
        Card.parse("??")


@pytest.mark.parametrize(
    ("code", "canonical"), [("ts", "10S"), ("10h", "10H"), ("ah", "AH"), ("jk", "JK"), ("kc", "KC")]
)
def test_code_is_canonical_and_str_is_the_code(code: str, canonical: str) -> None:
    card = Card.parse(code)
    assert card.code == canonical
    assert str(card) == canonical
    assert Card.parse(card.code) == card


def test_repr_round_trips() -> None:
    card = Card.parse("10d")
    assert repr(card) == "Card.parse('10D')"
    assert eval(repr(card)) == card


def test_half_a_card_is_rejected() -> None:
    with pytest.raises(CardError, match="both a rank and a suit"):
        Card(Rank.ACE, None)
    with pytest.raises(CardError, match="both a rank and a suit"):
        Card(None, Suit.SPADES)


def test_wrong_field_types_are_rejected() -> None:
    with pytest.raises(CardError, match="rank"):
        Card("A", Suit.SPADES)  # type: ignore[arg-type]
    with pytest.raises(CardError, match="suit"):
        Card(Rank.ACE, "S")  # type: ignore[arg-type]


def test_cards_are_immutable_and_hashable() -> None:
    card = Card.parse("AS")
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = Rank.TWO  # type: ignore[misc]
    assert len({Card.parse("10S"), Card.parse("ts"), Card.parse("TS")}) == 1
    assert {Card.parse("AS"): 1}[Card(Rank.ACE, Suit.SPADES)] == 1


def test_all_cards_is_the_documented_model_class_order() -> None:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    expected = [rank + suit for suit in "SHDC" for rank in ranks] + ["JK"]
    assert list(CARD_CODES) == expected
    assert len(ALL_CARDS) == 53
    assert len(set(ALL_CARDS)) == 53
    assert [card.code for card in ALL_CARDS] == expected
    assert [card.index for card in ALL_CARDS] == list(range(53))


def test_cards_sort_in_the_all_cards_order() -> None:
    shuffled = list(reversed(ALL_CARDS))
    assert tuple(sorted(shuffled)) == ALL_CARDS
    assert Card.parse("KS") < Card.parse("AH") < Card.parse("JK")


def test_rank_numbers() -> None:
    assert [rank.number for rank in Rank] == list(range(1, 14))


def test_parse_cards_keeps_order_and_duplicates() -> None:
    assert parse_cards(["ks", "3H", "ks", "jk"]) == (
        Card.parse("KS"),
        Card.parse("3H"),
        Card.parse("KS"),
        JOKER,
    )
    assert parse_cards([]) == ()


def test_parse_cards_names_the_bad_code() -> None:
    with pytest.raises(CardError, match="'XS'"):
        parse_cards(["AS", "XS", "QQ"])


def test_parse_cards_rejects_a_single_string() -> None:
    with pytest.raises(CardError, match="list of card codes"):
        parse_cards("AS KS")
