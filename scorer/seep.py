"""Seep scoring: a game is a list of deals between two teams of two, and its state is a fold over them.

Rules (each house-rule variant is a field of :class:`SeepRules`):

* One 52-card deck, no jokers. Point cards: every spade at its capture value (A=1, 2-10, J=11,
  Q=12, K=13), the other three aces 1 each, and the ten of diamonds 6: 17 cards, 100 points.
* A deal lists the cards each team captured. With one team's cards given, the other team captured
  every other card. With both given, no card may be in both and their point cards together must be
  exactly the 17 point cards (cards that score nothing may be left out).
* Each of the four players is dealt 12 cards and plays them one at a time, so a deal has 48 plays and
  each team makes 24 of them (:data:`PLAYS_PER_TEAM`). A sweep is made by a play and empties the table,
  so the next play cannot sweep: both teams together sweep at most 24 times a deal (:data:`MAX_SWEEPS`).
  At most one of all sweeps is on the first play and at most one on the last. A sweep captures cards, so
  a team that swept captured some: its list of captured cards is not empty (and when only the other
  team's are given, they are not the whole deck).
* A sweep scores ``sweep_points`` (50), ``first_sweep_points`` (25) on the first play of the deal,
  ``last_sweep_points`` (0) on the last play. A team's deal points are card points plus sweep points.
* A team whose deal points are under ``min_points`` loses the baazi at once (reason
  ``under_minimum``) and the running lead resets to 0. Otherwise the difference is added to the
  running lead; a lead of ``baazi_lead`` or more wins the leading team a baazi (reason ``lead``) and
  the lead resets to 0.

Deal numbers in messages count from 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum

from scorer._checks import check_index, check_name, check_rule_numbers, is_int, is_list
from scorer._frozen import FrozenDict, freeze
from scorer.cards import ALL_CARDS, Card, Rank, Suit
from scorer.errors import SeepError

__all__ = [
    "DECK",
    "MAX_SWEEPS",
    "PLAYS_PER_DEAL",
    "PLAYS_PER_TEAM",
    "POINT_CARDS",
    "TOTAL_POINTS",
    "Baazi",
    "BaaziReason",
    "Lead",
    "SeepDeal",
    "SeepDealResult",
    "SeepError",
    "SeepGame",
    "SeepRules",
    "SeepState",
    "Sweep",
    "SweepWhen",
    "check_deal",
    "check_sweeps",
    "doubled_cards",
    "missing_point_cards",
    "score_seep",
    "seep_card_points",
]

DECK: tuple[Card, ...] = tuple(card for card in ALL_CARDS if not card.is_joker)
"""The 52 cards of a Seep deck, in the ``ALL_CARDS`` order."""


def seep_card_points(card: Card) -> int:
    """A card's Seep points: spades their capture value, other aces 1, the ten of diamonds 6, else 0."""
    if not isinstance(card, Card):
        raise SeepError(f"expected a Card, got {card!r}")
    if card.is_joker:
        raise SeepError("Seep is played without jokers, got JK")
    assert card.rank is not None
    if card.suit is Suit.SPADES:
        return card.rank.number
    if card.rank is Rank.ACE:
        return 1
    if card.rank is Rank.TEN and card.suit is Suit.DIAMONDS:
        return 6
    return 0


POINT_CARDS: frozenset[Card] = frozenset(card for card in DECK if seep_card_points(card))
"""The 17 cards that score in Seep."""

TOTAL_POINTS = sum(seep_card_points(card) for card in POINT_CARDS)
"""Points in a deck: 100."""

_SORTED_POINT_CARDS: tuple[Card, ...] = tuple(sorted(POINT_CARDS))

CARDS_PER_PLAYER = 12
"""Each player's cards in a deal (4 on the floor + 4 x 12 in hand = the 52-card deck)."""

PLAYS_PER_TEAM = 2 * CARDS_PER_PLAYER
"""The plays a team makes in a deal, one per card its two players hold."""

PLAYS_PER_DEAL = 2 * PLAYS_PER_TEAM
"""The plays of a deal: 48."""

MAX_SWEEPS = PLAYS_PER_DEAL // 2
"""The most sweeps of both teams together in a deal: a sweep empties the table, so the play after it cannot
sweep (it only lays a card down), and at most every other play of the 48 sweeps."""


def _codes(cards: Iterable[Card]) -> str:
    return " ".join(card.code for card in sorted(cards))


class SweepWhen(Enum):
    """When in the deal a sweep happened; it decides what the sweep is worth."""

    FIRST = "first"
    NORMAL = "normal"
    LAST = "last"


class BaaziReason(Enum):
    LEAD = "lead"
    UNDER_MINIMUM = "under_minimum"


@dataclass(frozen=True)
class Sweep:
    """A sweep (clearing the floor) by ``team``."""

    team: str
    when: SweepWhen = SweepWhen.NORMAL

    def __post_init__(self) -> None:
        if not isinstance(self.team, str):
            raise SeepError(f"sweep team must be a team name, got {self.team!r}")
        if not isinstance(self.when, SweepWhen):
            raise SeepError(f"sweep 'when' must be a SweepWhen, got {self.when!r}")


@dataclass(frozen=True)
class SeepRules:
    """The scoring switches. Defaults follow the common rules text."""

    baazi_lead: int = 100
    min_points: int = 9
    sweep_points: int = 50
    first_sweep_points: int = 25
    last_sweep_points: int = 0

    def __post_init__(self) -> None:
        numbers = ("baazi_lead", "min_points", "sweep_points", "first_sweep_points", "last_sweep_points")
        check_rule_numbers(self, numbers, SeepError)
        if self.baazi_lead < 1:
            raise SeepError(f"rules: baazi_lead must be at least 1, got {self.baazi_lead}")
        if self.min_points > TOTAL_POINTS // 2:
            # Above half the deck both teams could fall short in the same deal.
            raise SeepError(
                f"rules: min_points must be at most {TOTAL_POINTS // 2} (half the card points), "
                f"got {self.min_points}"
            )

    def sweep_value(self, when: SweepWhen) -> int:
        if when is SweepWhen.FIRST:
            return self.first_sweep_points
        if when is SweepWhen.LAST:
            return self.last_sweep_points
        return self.sweep_points


def _card_tuple(cards: object, what: str) -> tuple[Card, ...]:
    if not is_list(cards):
        raise SeepError(f"{what} must be a list of cards, got {cards!r}")
    hand: list[Card] = []
    for card in cards:
        if not isinstance(card, Card):
            raise SeepError(f"{what} holds {card!r}, which is not a Card")
        hand.append(card)
    return tuple(hand)


@dataclass(frozen=True)
class SeepDeal:
    """One deal: the cards each team captured (one team may be left out) and the sweeps made."""

    captured: Mapping[str, tuple[Card, ...]]
    sweeps: tuple[Sweep, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.captured, Mapping):
            raise SeepError(f"captured must map team names to cards, got {self.captured!r}")
        captured: dict[str, tuple[Card, ...]] = {}
        for team, cards in self.captured.items():
            if not isinstance(team, str):
                raise SeepError(f"captured: team names must be strings, got {team!r}")
            captured[team] = _card_tuple(cards, f"team {team}'s captured cards")
        object.__setattr__(self, "captured", FrozenDict(captured))
        if not is_list(self.sweeps):
            raise SeepError(f"sweeps must be a list of sweeps, got {self.sweeps!r}")
        sweeps = tuple(self.sweeps)
        for sweep in sweeps:
            if not isinstance(sweep, Sweep):
                raise SeepError(f"sweeps holds {sweep!r}, which is not a Sweep")
        object.__setattr__(self, "sweeps", sweeps)


@dataclass(frozen=True)
class SeepGame:
    """A Seep game: exactly two teams of two players, rules, and the deals played so far."""

    teams: Mapping[str, tuple[str, str]]
    rules: SeepRules = field(default_factory=SeepRules)
    deals: tuple[SeepDeal, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.teams, Mapping):
            raise SeepError(f"teams must map two team names to two players each, got {self.teams!r}")
        if len(self.teams) != 2:
            raise SeepError(f"Seep needs exactly 2 teams, got {len(self.teams)}")
        teams: dict[str, tuple[str, str]] = {}
        seen: set[str] = set()
        for team, members in self.teams.items():
            check_name(team, "team", SeepError)
            if not is_list(members):
                raise SeepError(f"team {team} must be a list of 2 players, got {members!r}")
            pair = tuple(members)
            if len(pair) != 2:
                raise SeepError(f"team {team} needs exactly 2 players, got {len(pair)}")
            for name in pair:
                check_name(name, "player", SeepError, where=f"team {team}: ")
                if name in seen:
                    raise SeepError(f"duplicate player name {name!r}")
                seen.add(name)
            teams[team] = (pair[0], pair[1])
        object.__setattr__(self, "teams", FrozenDict(teams))
        if not isinstance(self.rules, SeepRules):
            raise SeepError(f"rules must be SeepRules, got {self.rules!r}")
        if not is_list(self.deals):
            raise SeepError(f"deals must be a list of deals, got {self.deals!r}")
        deals = tuple(self.deals)
        for number, deal in enumerate(deals, 1):
            if not isinstance(deal, SeepDeal):
                raise SeepError(f"deal {number}: expected a SeepDeal, got {deal!r}")
        object.__setattr__(self, "deals", deals)

    @property
    def team_names(self) -> tuple[str, str]:
        first, second = self.teams
        return first, second

    def with_deal(self, deal: SeepDeal) -> SeepGame:
        """This game with ``deal`` played next. Raises :class:`SeepError` if the deal is invalid."""
        check_deal(self, deal)
        return replace(self, deals=(*self.deals, deal))

    def without_last_deal(self) -> SeepGame:
        """This game with its last deal undone."""
        if not self.deals:
            raise SeepError("there is no deal to undo")
        return replace(self, deals=self.deals[:-1])

    def with_deal_replaced(self, index: int, deal: SeepDeal) -> SeepGame:
        """This game with the deal at 0-based ``index`` replaced."""
        check_index(index, len(self.deals), "deal", SeepError)
        _check_deal(self, deal, index + 1)
        deals = list(self.deals)
        deals[index] = deal
        return replace(self, deals=tuple(deals))


@dataclass(frozen=True)
class Lead:
    """The running lead: ``team`` is None when the teams are level (``points`` is then 0)."""

    team: str | None
    points: int

    def __post_init__(self) -> None:
        if not is_int(self.points) or self.points < 0:
            raise SeepError(f"lead points must be a whole number >= 0, got {self.points!r}")
        if (self.team is None) != (self.points == 0):
            raise SeepError(
                f"a lead of {self.points} needs a team exactly when it is not 0, got {self.team!r}"
            )


LEVEL = Lead(None, 0)


@dataclass(frozen=True)
class Baazi:
    """A baazi (game) won by ``winner``."""

    winner: str
    reason: BaaziReason


@dataclass(frozen=True)
class SeepDealResult:
    """What one deal did. ``lead`` is the running lead after the deal (level after a baazi)."""

    number: int
    card_points: Mapping[str, int]
    sweep_points: Mapping[str, int]
    points: Mapping[str, int]
    lead: Lead
    baazi: Baazi | None

    def __post_init__(self) -> None:
        for name in ("card_points", "sweep_points", "points"):
            object.__setattr__(self, name, freeze(getattr(self, name)))


@dataclass(frozen=True)
class SeepState:
    """The state after all deals: the running lead and the baazis each team has won."""

    deals: tuple[SeepDealResult, ...]
    lead: Lead
    baazis: Mapping[str, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "deals", tuple(self.deals))
        object.__setattr__(self, "baazis", freeze(self.baazis))


def missing_point_cards(captured: Mapping[str, Iterable[Card]]) -> tuple[Card, ...]:
    """The point cards that no team's captured cards hold, in card order."""
    held = {card for cards in captured.values() for card in cards}
    return tuple(card for card in _SORTED_POINT_CARDS if card not in held)


def doubled_cards(captured: Mapping[str, Iterable[Card]]) -> tuple[Card, ...]:
    """Cards listed more than once across (or within) the teams' captured cards, in card order."""
    counts = Counter(card for cards in captured.values() for card in cards)
    return tuple(sorted(card for card, count in counts.items() if count > 1))


def _check_deal(game: SeepGame, deal: SeepDeal, number: int) -> None:
    where = f"deal {number}"
    if not isinstance(deal, SeepDeal):
        raise SeepError(f"{where}: expected a SeepDeal, got {deal!r}")
    for team in deal.captured:
        if team not in game.teams:
            raise SeepError(f"{where}: captured cards given for unknown team {team!r}")
    if not deal.captured:
        raise SeepError(f"{where}: no captured cards given (give at least one team's)")
    for team, cards in deal.captured.items():
        if any(card.is_joker for card in cards):
            raise SeepError(f"{where}: team {team} captured a joker, but Seep is played without jokers")
    doubled = doubled_cards(deal.captured)
    if doubled:
        raise SeepError(f"{where}: cards listed twice: {_codes(doubled)}")
    if len(deal.captured) == 2:
        missing = missing_point_cards(deal.captured)
        if missing:
            raise SeepError(f"{where}: point cards missing from both teams' captures: {_codes(missing)}")
    check_sweeps(game, deal, number)


def check_sweeps(game: SeepGame, deal: SeepDeal, number: int) -> None:
    """Raise :class:`SeepError` (naming deal ``number``) if ``deal``'s sweeps cannot all have been made:
    by a team of the game, at most one on the first play and one on the last, at most :data:`MAX_SWEEPS`
    in all, and only by a team that captured cards (as far as ``deal.captured`` tells: a deal whose cards
    are not known yet is checked for its counts alone)."""
    where = f"deal {number}"
    firsts = lasts = 0
    per_team = Counter[str]()
    for sweep in deal.sweeps:
        if sweep.team not in game.teams:
            raise SeepError(f"{where}: sweep by unknown team {sweep.team!r}")
        firsts += sweep.when is SweepWhen.FIRST
        lasts += sweep.when is SweepWhen.LAST
        per_team[sweep.team] += 1
    for team in game.teams:
        if per_team[team] and team in _captured_nothing(game, deal):
            raise SeepError(
                f"{where}: team {team} has {per_team[team]} sweep{'s' if per_team[team] > 1 else ''} but "
                "captured no card; a sweep captures the cards on the table"
            )
    total = sum(per_team.values())
    if total > MAX_SWEEPS:
        counts = ", ".join(f"team {team} {per_team[team]}" for team in game.teams)
        raise SeepError(
            f"{where}: {total} sweeps ({counts}), but a deal has at most {MAX_SWEEPS}: a sweep empties the "
            f"table, so the next play cannot sweep, and a deal has {PLAYS_PER_DEAL} plays"
        )
    if firsts > 1:
        raise SeepError(f"{where}: {firsts} sweeps on the first play; a deal has only one first play")
    if lasts > 1:
        raise SeepError(f"{where}: {lasts} sweeps on the last play; a deal has only one last play")


def _captured_nothing(game: SeepGame, deal: SeepDeal) -> set[str]:
    """The teams the deal says captured no card: an empty list, or the other team given every card."""
    empty = {team for team, cards in deal.captured.items() if not cards}
    if len(deal.captured) == 1:
        ((given, cards),) = deal.captured.items()
        if len(set(cards)) == len(DECK):
            empty |= {team for team in game.teams if team != given}
    return empty


def _card_points(game: SeepGame, deal: SeepDeal) -> dict[str, int]:
    given = {team: sum(seep_card_points(card) for card in cards) for team, cards in deal.captured.items()}
    return {team: given[team] if team in given else TOTAL_POINTS - sum(given.values()) for team in game.teams}


def _score_deal(game: SeepGame, lead: Lead, deal: SeepDeal, number: int) -> SeepDealResult:
    rules = game.rules
    first, second = game.team_names
    card_points = _card_points(game, deal)
    sweep_points = {team: 0 for team in game.teams}
    for sweep in deal.sweeps:
        sweep_points[sweep.team] += rules.sweep_value(sweep.when)
    points = {team: card_points[team] + sweep_points[team] for team in game.teams}

    baazi: Baazi | None = None
    short = [team for team in game.teams if points[team] < rules.min_points]
    if short:
        (loser,) = short  # min_points <= 50 leaves at most one team short
        baazi = Baazi(second if loser == first else first, BaaziReason.UNDER_MINIMUM)
        new_lead = LEVEL
    else:
        signed = (lead.points if lead.team == first else -lead.points) + points[first] - points[second]
        if abs(signed) >= rules.baazi_lead:
            baazi = Baazi(first if signed > 0 else second, BaaziReason.LEAD)
            new_lead = LEVEL
        elif signed == 0:
            new_lead = LEVEL
        else:
            new_lead = Lead(first if signed > 0 else second, abs(signed))
    return SeepDealResult(
        number=number,
        card_points=card_points,
        sweep_points=sweep_points,
        points=points,
        lead=new_lead,
        baazi=baazi,
    )


def score_seep(game: SeepGame) -> SeepState:
    """Replay every deal of ``game``. Raises :class:`SeepError` naming the first bad deal."""
    if not isinstance(game, SeepGame):
        raise SeepError(f"expected a SeepGame, got {game!r}")
    lead = LEVEL
    baazis = {team: 0 for team in game.teams}
    results: list[SeepDealResult] = []
    for number, deal in enumerate(game.deals, 1):
        _check_deal(game, deal, number)
        result = _score_deal(game, lead, deal, number)
        if result.baazi is not None:
            baazis[result.baazi.winner] += 1
        lead = result.lead
        results.append(result)
    return SeepState(deals=tuple(results), lead=lead, baazis=baazis)


def check_deal(game: SeepGame, deal: SeepDeal) -> None:
    """Check that ``deal`` could be played next in ``game``, without adding it.

    Raises :class:`SeepError` (naming the deal number it would have) when it could not.
    """
    _check_deal(game, deal, len(game.deals) + 1)
