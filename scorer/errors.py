"""The exceptions of the rules core. Every message names the round or deal and the bad input."""

from __future__ import annotations


class ScorerError(ValueError):
    """Base class: any invalid card, game, round, deal or log."""


class CardError(ScorerError):
    """An unknown card code or a malformed card."""


class JhyapError(ScorerError):
    """A Jhyap game or round that breaks the rules."""


class SeepError(ScorerError):
    """A Seep game or deal that breaks the rules."""


class LogError(ScorerError):
    """An invalid game log: bad JSON, unknown keys, wrong types, or any rule error found while replaying."""
