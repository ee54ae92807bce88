"""The input checks both games share, in one place: whole numbers, rule numbers, names and positions.

A rule number is at most :data:`RULE_VALUE_MAX`, so every total a game can reach stays a number that
prints (Python refuses to turn integers of more than 4,300 digits into text). A name is text that can be
written as UTF-8: a lone surrogate such as ``"\\ud800"`` (which JSON's ``\\u`` escapes can produce) is not.

Each check raises the error class its caller passes (:class:`~scorer.errors.JhyapError`,
:class:`~scorer.errors.SeepError`), with the message both games give.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeGuard

from scorer.errors import ScorerError

RULE_VALUE_MAX = 1_000_000
"""The largest number a rule switch may be set to (``max_score``, ``caller_penalty``, ``sweep_points``...)."""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's or team's name, or None when it can (callers check it is a str)."""
    if not name.strip():
        return "it is empty"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"it holds {name[exc.start]!r} at position {exc.start}, not a character (a lone surrogate)"
    return None


def shown(value: object) -> str:
    """``value`` for a message: its repr, but a huge number by its size (its digits may not even print)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    return repr(value)


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a whole number: an ``int`` that is not a ``bool`` (True is 1 to Python)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_list(value: object) -> TypeGuard[Iterable[object]]:
    """Whether ``value`` can be a list of things (an iterable that is not a string of characters)."""
    return not isinstance(value, str) and isinstance(value, Iterable)


def check_rule_numbers(rules: object, names: Iterable[str], error: type[ScorerError]) -> None:
    """Raise ``error`` naming the first of ``rules``' fields ``names`` that is not a whole number from 0
    to :data:`RULE_VALUE_MAX`."""
    for name in names:
        value = getattr(rules, name)
        if not is_int(value) or not 0 <= value <= RULE_VALUE_MAX:
            raise error(
                f"rules: {name} must be a whole number from 0 to {RULE_VALUE_MAX:,}, got {shown(value)}"
            )


def check_name(name: object, kind: str, error: type[ScorerError], where: str = "") -> str:
    """``name`` if it can be a ``kind``'s name ("player", "team"), else ``error``: it must be a string with
    something in it that can be written as UTF-8. ``where`` prefixes the message (e.g. "team A: ")."""
    if not isinstance(name, str) or not name.strip():
        raise error(f"{where}{kind} names must be non-empty strings, got {name!r}")
    problem = name_problem(name)
    if problem:
        raise error(f"{where}{kind} name {name!r} cannot be used: {problem}")
    return name


def check_index(index: object, count: int, noun: str, error: type[ScorerError]) -> int:
    """``index`` if it is a 0-based position among ``count`` ``noun``s ("round", "deal"), else ``error``."""
    if not is_int(index) or not 0 <= index < count:
        raise error(f"no {noun} at index {index!r} (the game has {count} {noun}s)")
    return index
