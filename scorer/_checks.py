"""What a game may hold beyond its rules: bounds on rule numbers and on names.

A rule number is at most :data:`RULE_VALUE_MAX`, so every total a game can reach stays a number that
prints (Python refuses to turn integers of more than 4,300 digits into text). A name is text that can be
written as UTF-8: a lone surrogate such as ``"\\ud800"`` (which JSON's ``\\u`` escapes can produce) is not.
"""

from __future__ import annotations

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
