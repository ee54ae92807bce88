"""TableTally's rules core: cards, Jhyap and Seep engines, the JSON game log.

Pure Python: no I/O, no Kivy, no OpenCV, no numpy. Games are immutable values and event-sourced:
a game is its players, rules and the list of rounds (Jhyap) or deals (Seep) played, and its state
is a fold over that list (:func:`score_jhyap`, :func:`score_seep`). Undo or a correction is a new
game (``without_last_round``, ``with_round_replaced``). Every invalid input raises a
:class:`ScorerError` subclass whose message names the round or deal and the bad input.
"""

from scorer.cards import ALL_CARDS, CARD_CODES, JOKER, Card, Rank, Suit, parse_cards
from scorer.errors import CardError, JhyapError, LogError, ScorerError, SeepError
from scorer.jhyap import (
    JhyapGame,
    JhyapRound,
    JhyapRoundResult,
    JhyapRules,
    JhyapState,
    card_value,
    check_round,
    hand_value,
    score_jhyap,
)
from scorer.log import (
    deal_from_dict,
    dumps,
    game_from_dict,
    game_to_dict,
    loads,
    replay,
    replay_text,
    round_from_dict,
    score,
    state_to_dict,
)
from scorer.seep import (
    POINT_CARDS,
    Baazi,
    BaaziReason,
    Lead,
    SeepDeal,
    SeepDealResult,
    SeepGame,
    SeepRules,
    SeepState,
    Sweep,
    SweepWhen,
    check_deal,
    doubled_cards,
    missing_point_cards,
    score_seep,
    seep_card_points,
)

__all__ = [
    "ALL_CARDS",
    "CARD_CODES",
    "JOKER",
    "POINT_CARDS",
    "Baazi",
    "BaaziReason",
    "Card",
    "CardError",
    "JhyapError",
    "JhyapGame",
    "JhyapRound",
    "JhyapRoundResult",
    "JhyapRules",
    "JhyapState",
    "Lead",
    "LogError",
    "Rank",
    "ScorerError",
    "SeepDeal",
    "SeepDealResult",
    "SeepError",
    "SeepGame",
    "SeepRules",
    "SeepState",
    "Suit",
    "Sweep",
    "SweepWhen",
    "card_value",
    "check_deal",
    "check_round",
    "deal_from_dict",
    "doubled_cards",
    "dumps",
    "game_from_dict",
    "game_to_dict",
    "hand_value",
    "loads",
    "missing_point_cards",
    "parse_cards",
    "replay",
    "replay_text",
    "round_from_dict",
    "score",
    "score_jhyap",
    "score_seep",
    "seep_card_points",
    "state_to_dict",
]
