"""Jhyap scoring: a game is a list of rounds, and its state is a fold over them.

Rules (each house-rule variant is a field of :class:`JhyapRules`):

* 2-5 players in clockwise seating order. One deck (52 cards + 2 jokers) for up to 4 players,
  two decks for 5, unless the game says otherwise; a round's hands may not hold more copies of a
  card than the decks do.
* Each player is dealt ``hand_limit`` cards (5) and draws one for each card discarded, so a hand
  shown at the call holds 1 to ``hand_limit`` cards.
* Card values: joker 0, ace 1, 2-10 face value, J/Q/K 10.
* The caller's hand must total at most ``call_limit``. If another player's total is strictly lower
  (or equal, with ``tie_penalizes_caller``) the caller scores ``caller_penalty`` plus their own
  total, otherwise 0. Everyone else scores their own total.
* With ``halve_exact``, a player whose points this round bring their total to exactly
  ``max_score`` drops to ``max_score/2``, and exactly ``max_score/2`` drops to ``max_score/4``;
  at most one halving per player per round. A player who added no points this round did not
  land on the total, so is not halved again.
* Then every total strictly above ``max_score`` is eliminated.
* Round 1 is dealt by ``first_dealer`` (default the first player); the deal then passes clockwise
  to the next active player. The next round's starter is the active player with the lowest hand
  total this round, ties going to the tied player nearest the dealer's left (dealer last).
* The game is finished when at most one player is active; that player wins. When the last players
  all go out in the same round, the lowest of their totals wins, and an exact tie has no winner.

Undo and corrections are new games: :meth:`JhyapGame.without_last_round`,
:meth:`JhyapGame.with_round_replaced`. Round numbers in messages count from 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from scorer._checks import RULE_VALUE_MAX, check_index, check_name, check_rule_numbers, is_int, is_list, shown
from scorer._frozen import FrozenDict, freeze
from scorer.cards import Card, Rank, cards_over_decks, copies_in_decks
from scorer.errors import JhyapError

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "JhyapError",
    "JhyapGame",
    "JhyapRound",
    "JhyapRoundResult",
    "JhyapRules",
    "JhyapState",
    "card_value",
    "check_round",
    "hand_value",
    "score_jhyap",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 5

_FACE_VALUES: dict[Rank, int] = {rank: min(rank.number, 10) for rank in Rank}


def card_value(card: Card) -> int:
    """A card's Jhyap value: joker 0, ace 1, 2-10 face value, J/Q/K 10."""
    if not isinstance(card, Card):
        raise JhyapError(f"expected a Card, got {card!r}")
    return 0 if card.rank is None else _FACE_VALUES[card.rank]


def hand_value(cards: Iterable[Card]) -> int:
    """The total value of a hand."""
    return sum(card_value(card) for card in cards)


@dataclass(frozen=True)
class JhyapRules:
    """The scoring switches. Defaults follow the common rules text."""

    max_score: int = 200
    call_limit: int = 5
    caller_penalty: int = 30
    tie_penalizes_caller: bool = False
    halve_exact: bool = True
    hand_limit: int = 5

    def __post_init__(self) -> None:
        check_rule_numbers(self, ("max_score", "call_limit", "caller_penalty", "hand_limit"), JhyapError)
        if self.max_score < 1:
            raise JhyapError(
                f"rules: max_score must be at least 1 (a game to 0 puts out every player who scores), "
                f"got {self.max_score}"
            )
        if self.hand_limit < 1:
            raise JhyapError(f"rules: hand_limit must be at least 1, got {self.hand_limit}")
        for name in ("tie_penalizes_caller", "halve_exact"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise JhyapError(f"rules: {name} must be true or false, got {value!r}")
        if self.halve_exact and self.max_score % 4:
            raise JhyapError(
                f"rules: max_score must be a multiple of 4 when halve_exact is on "
                f"(it halves to max_score/2 and max_score/4), got {self.max_score}"
            )


@dataclass(frozen=True)
class JhyapRound:
    """One round as played: who called, and the hand each active player showed."""

    caller: str
    hands: Mapping[str, tuple[Card, ...]]

    def __post_init__(self) -> None:
        if not isinstance(self.caller, str):
            raise JhyapError(f"round caller must be a player name, got {self.caller!r}")
        if not isinstance(self.hands, Mapping):
            raise JhyapError(f"round hands must map player names to cards, got {self.hands!r}")
        hands: dict[str, tuple[Card, ...]] = {}
        for player, cards in self.hands.items():
            if not isinstance(player, str):
                raise JhyapError(f"round hands: player names must be strings, got {player!r}")
            if not is_list(cards):
                raise JhyapError(f"round hands: {player}'s hand must be a list of cards, got {cards!r}")
            hand = tuple(cards)
            for card in hand:
                if not isinstance(card, Card):
                    raise JhyapError(f"round hands: {player}'s hand holds {card!r}, which is not a Card")
            hands[player] = hand
        object.__setattr__(self, "hands", FrozenDict(hands))


@dataclass(frozen=True)
class JhyapGame:
    """A Jhyap game: players in clockwise seating order, rules, and the rounds played so far."""

    players: tuple[str, ...]
    rules: JhyapRules = field(default_factory=JhyapRules)
    first_dealer: str | None = None
    decks: int | None = None
    rounds: tuple[JhyapRound, ...] = ()

    def __post_init__(self) -> None:
        if not is_list(self.players):
            raise JhyapError(f"players must be a list of names, got {self.players!r}")
        players = tuple(self.players)
        object.__setattr__(self, "players", players)
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise JhyapError(f"Jhyap needs {MIN_PLAYERS}-{MAX_PLAYERS} players, got {len(players)}")
        for name in players:
            check_name(name, "player", JhyapError)
        duplicates = sorted({name for name in players if players.count(name) > 1})
        if duplicates:
            raise JhyapError(f"duplicate player name {duplicates[0]!r}")
        if not isinstance(self.rules, JhyapRules):
            raise JhyapError(f"rules must be JhyapRules, got {self.rules!r}")
        if self.first_dealer is not None and self.first_dealer not in players:
            raise JhyapError(f"first_dealer {self.first_dealer!r} is not one of the players")
        if self.decks is not None and (not is_int(self.decks) or not 1 <= self.decks <= RULE_VALUE_MAX):
            raise JhyapError(
                f"decks must be a whole number from 1 to {RULE_VALUE_MAX:,}, got {shown(self.decks)}"
            )
        if not is_list(self.rounds):
            raise JhyapError(f"rounds must be a list of rounds, got {self.rounds!r}")
        rounds = tuple(self.rounds)
        for number, round_ in enumerate(rounds, 1):
            if not isinstance(round_, JhyapRound):
                raise JhyapError(f"round {number}: expected a JhyapRound, got {round_!r}")
        object.__setattr__(self, "rounds", rounds)

    @property
    def deck_count(self) -> int:
        """Decks in play: ``decks`` when given, else 1 for up to 4 players and 2 for 5."""
        if self.decks is not None:
            return self.decks
        return 1 if len(self.players) <= 4 else 2

    @property
    def opening_dealer(self) -> str:
        """The dealer of round 1: ``first_dealer``, or the first player."""
        return self.first_dealer if self.first_dealer is not None else self.players[0]

    def with_round(self, round_: JhyapRound) -> JhyapGame:
        """This game with ``round_`` played next. Raises :class:`JhyapError` if the round is invalid."""
        game = replace(self, rounds=(*self.rounds, round_))
        score_jhyap(game)
        return game

    def without_last_round(self) -> JhyapGame:
        """This game with its last round undone."""
        if not self.rounds:
            raise JhyapError("there is no round to undo")
        return replace(self, rounds=self.rounds[:-1])

    def with_round_replaced(self, index: int, round_: JhyapRound) -> JhyapGame:
        """This game with the round at 0-based ``index`` replaced; every later round is re-checked."""
        check_index(index, len(self.rounds), "round", JhyapError)
        rounds = list(self.rounds)
        rounds[index] = round_
        game = replace(self, rounds=tuple(rounds))
        score_jhyap(game)
        return game


@dataclass(frozen=True)
class JhyapRoundResult:
    """What one round did. ``points`` holds what each active player added before halving;
    ``totals`` holds every player's total after halving and elimination checks."""

    number: int
    dealer: str
    caller: str
    hand_totals: Mapping[str, int]
    caller_won: bool
    points: Mapping[str, int]
    totals: Mapping[str, int]
    halved: tuple[str, ...]
    eliminated: tuple[str, ...]
    next_starter: str | None

    def __post_init__(self) -> None:
        for name in ("hand_totals", "points", "totals"):
            object.__setattr__(self, name, freeze(getattr(self, name)))
        object.__setattr__(self, "halved", tuple(self.halved))
        object.__setattr__(self, "eliminated", tuple(self.eliminated))


@dataclass(frozen=True)
class JhyapState:
    """The state after all rounds. ``active`` is in seating order, ``eliminated`` in the order the
    players went out. ``next_dealer``/``next_starter`` are None once the game is finished; before
    round 1 ``next_starter`` is the player after the dealer."""

    rounds: tuple[JhyapRoundResult, ...]
    totals: Mapping[str, int]
    active: tuple[str, ...]
    eliminated: tuple[str, ...]
    finished: bool
    winner: str | None
    next_dealer: str | None
    next_starter: str | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "totals", freeze(self.totals))
        object.__setattr__(self, "rounds", tuple(self.rounds))
        object.__setattr__(self, "active", tuple(self.active))
        object.__setattr__(self, "eliminated", tuple(self.eliminated))


def _next_active(players: tuple[str, ...], active: Iterable[str], after: str) -> str:
    """The first active player clockwise after the seat of ``after`` (which may be inactive)."""
    active_set = set(active)
    start = players.index(after)
    for step in range(1, len(players) + 1):
        candidate = players[(start + step) % len(players)]
        if candidate in active_set:
            return candidate
    raise JhyapError("no active player left")  # callers only ask while someone is active


def _clockwise_from_left(players: tuple[str, ...], dealer: str) -> list[str]:
    """Every seat, starting at the dealer's left and ending with the dealer."""
    start = players.index(dealer)
    return [players[(start + step) % len(players)] for step in range(1, len(players) + 1)]


def _out_in(results: Iterable[JhyapRoundResult]) -> dict[str, int]:
    """The round each eliminated player went out in."""
    return {name: result.number for result in results for name in result.eliminated}


def _check_round(
    game: JhyapGame, state: JhyapState, round_: JhyapRound, number: int, out_in: Mapping[str, int]
) -> None:
    """Check ``round_`` as round ``number``, played on ``state`` (``out_in``: who went out in which round)."""
    where = f"round {number}"
    if not isinstance(round_, JhyapRound):
        raise JhyapError(f"{where}: expected a JhyapRound, got {round_!r}")
    if state.finished:
        winner = f"{state.winner} won" if state.winner is not None else "it ended without a winner"
        raise JhyapError(f"{where}: the game is already over ({winner} in round {number - 1})")
    for player in round_.hands:
        if player in out_in:
            raise JhyapError(
                f"{where}: hand given for {player}, who was eliminated in round {out_in[player]}"
            )
        if player not in game.players:
            raise JhyapError(f"{where}: hand given for unknown player {player!r}")
    missing = [player for player in state.active if player not in round_.hands]
    if missing:
        raise JhyapError(f"{where}: no hand given for {', '.join(missing)}")
    if round_.caller in out_in:
        raise JhyapError(f"{where}: caller {round_.caller} was eliminated in round {out_in[round_.caller]}")
    if round_.caller not in game.players:
        raise JhyapError(f"{where}: unknown caller {round_.caller!r}")
    limit = game.rules.hand_limit
    for player in state.active:
        if not round_.hands[player]:
            raise JhyapError(f"{where}: {player}'s hand is empty")
        held = len(round_.hands[player])
        if held > limit:
            cards = "1 card" if limit == 1 else f"{limit} cards"
            raise JhyapError(
                f"{where}: {player}'s hand holds {held} cards, over the hand limit of {limit} "
                f"(each player is dealt {cards} and draws one for each card discarded)"
            )
    decks = game.deck_count
    counts = Counter(card for hand in round_.hands.values() for card in hand)
    over = sorted(cards_over_decks(counts.elements(), decks))
    if over:
        card = over[0]
        deck_words = "1 deck holds" if decks == 1 else f"{decks} decks hold"
        raise JhyapError(
            f"{where}: {card} appears {counts[card]} times across the hands, "
            f"but {deck_words} only {copies_in_decks(card, decks)}"
        )
    caller_total = hand_value(round_.hands[round_.caller])
    if caller_total > game.rules.call_limit:
        raise JhyapError(
            f"{where}: caller {round_.caller}'s hand totals {caller_total}, "
            f"over the call limit of {game.rules.call_limit}"
        )


def _play(
    game: JhyapGame, state: JhyapState, round_: JhyapRound, number: int
) -> tuple[JhyapRoundResult, JhyapState]:
    """Round ``number`` played on ``state``: its result, and the state after it (whose ``rounds`` the
    caller keeps: copying the history every round would make a replay grow with the square of its length)."""
    rules = game.rules
    dealer = state.next_dealer
    assert dealer is not None  # a finished game was rejected by _check_round
    active = state.active
    hand_totals = {player: hand_value(round_.hands[player]) for player in active}
    caller = round_.caller
    caller_total = hand_totals[caller]
    beaten = any(
        total < caller_total or (rules.tie_penalizes_caller and total == caller_total)
        for player, total in hand_totals.items()
        if player != caller
    )
    points = dict(hand_totals)
    points[caller] = rules.caller_penalty + caller_total if beaten else 0

    totals = dict(state.totals)
    halved: list[str] = []
    for player in active:
        total = totals[player] + points[player]
        if rules.halve_exact and points[player] > 0:
            if total == rules.max_score:
                total = rules.max_score // 2
                halved.append(player)
            elif total == rules.max_score // 2:
                total = rules.max_score // 4
                halved.append(player)
        totals[player] = total
    out = tuple(player for player in active if totals[player] > rules.max_score)
    still_active = tuple(player for player in active if player not in out)

    finished = len(still_active) <= 1
    winner: str | None = None
    next_dealer: str | None = None
    next_starter: str | None = None
    if finished:
        if still_active:
            winner = still_active[0]
        else:
            lowest = min(totals[player] for player in out)
            lowest_players = [player for player in out if totals[player] == lowest]
            winner = lowest_players[0] if len(lowest_players) == 1 else None
    else:
        next_dealer = _next_active(game.players, still_active, dealer)
        lowest = min(hand_totals[player] for player in still_active)
        next_starter = next(
            player
            for player in _clockwise_from_left(game.players, dealer)
            if player in still_active and hand_totals[player] == lowest
        )

    result = JhyapRoundResult(
        number=number,
        dealer=dealer,
        caller=caller,
        hand_totals=hand_totals,
        caller_won=not beaten,
        points=points,
        totals=totals,
        halved=tuple(halved),
        eliminated=out,
        next_starter=next_starter,
    )
    return result, JhyapState(
        rounds=(),
        totals=totals,
        active=still_active,
        eliminated=(*state.eliminated, *out),
        finished=finished,
        winner=winner,
        next_dealer=next_dealer,
        next_starter=next_starter,
    )


def _initial_state(game: JhyapGame) -> JhyapState:
    dealer = game.opening_dealer
    return JhyapState(
        rounds=(),
        totals={player: 0 for player in game.players},
        active=game.players,
        eliminated=(),
        finished=False,
        winner=None,
        next_dealer=dealer,
        next_starter=_next_active(game.players, game.players, dealer),
    )


def score_jhyap(game: JhyapGame) -> JhyapState:
    """Replay every round of ``game``. Raises :class:`JhyapError` naming the first bad round."""
    if not isinstance(game, JhyapGame):
        raise JhyapError(f"expected a JhyapGame, got {game!r}")
    state = _initial_state(game)
    results: list[JhyapRoundResult] = []
    out_in: dict[str, int] = {}
    for number, round_ in enumerate(game.rounds, 1):
        _check_round(game, state, round_, number, out_in)
        result, state = _play(game, state, round_, number)
        results.append(result)
        out_in.update(dict.fromkeys(result.eliminated, number))
    return replace(state, rounds=tuple(results))


def check_round(game: JhyapGame, round_: JhyapRound) -> None:
    """Check that ``round_`` could be played next in ``game``, without adding it.

    Raises :class:`JhyapError` (naming the round number it would have) when it could not.
    """
    state = score_jhyap(game)
    _check_round(game, state, round_, len(state.rounds) + 1, _out_in(state.rounds))
