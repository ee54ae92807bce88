"""The New game screen, as plain Python: names, seating, first dealer, rule switches, decks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ui.i18n import _, num
from ui.logic import games

MAX_NAME = 16
JHYAP_PLAYERS = (2, 5)
SEEP_PLAYERS = 4


class FormError(ValueError):
    """What the players must change before the game can start (the message says what)."""


@dataclass(frozen=True)
class NewGame:
    kind: str
    log: dict[str, Any]


class NewGameForm:
    """Players in seating order (clockwise). For Seep, seats 1 and 3 are team A, seats 2 and 4 team B
    (partners sit opposite)."""

    def __init__(self, kind: str, recent: list[str] | None = None) -> None:
        if kind not in (games.JHYAP, games.SEEP):
            raise FormError(f"unknown game {kind!r} (expected jhyap or seep)")
        self.kind = kind
        self.names: list[str] = []
        self.recent = list(recent or [])
        self.first_dealer: str | None = None
        self.decks: int | None = None
        self.fields = games.rule_fields(kind)
        self.rules: dict[str, int | bool] = {f.name: f.default for f in self.fields}

    @property
    def max_players(self) -> int:
        return JHYAP_PLAYERS[1] if self.kind == games.JHYAP else SEEP_PLAYERS

    @property
    def min_players(self) -> int:
        return JHYAP_PLAYERS[0] if self.kind == games.JHYAP else SEEP_PLAYERS

    def add(self, name: str) -> None:
        name = " ".join(name.split())
        if not name:
            raise FormError(_("Type a name first."))
        if len(name) > MAX_NAME:
            raise FormError(_("{name} is too long (at most {n} letters).").format(name=name, n=num(MAX_NAME)))
        known = [n for n in self.recent if n.casefold() == name.casefold()]
        if known:
            name = known[0]  # a past player typed again: the same player, spelt as before
        same = [n for n in self.names if n.casefold() == name.casefold()]
        if same:
            raise FormError(_("{name} is already playing.").format(name=same[0]))
        if len(self.names) >= self.max_players:
            raise FormError(_("{n} players at most.").format(n=num(self.max_players)))
        self.names.append(name)

    def remove(self, name: str) -> None:
        if name not in self.names:
            raise FormError(_("{name} is not in this game.").format(name=name))
        self.names.remove(name)
        if self.first_dealer == name:
            self.first_dealer = None

    def move(self, name: str, step: int) -> None:
        """Move a player ``step`` seats (negative: earlier) in the seating order."""
        i = self.names.index(name)
        j = max(0, min(len(self.names) - 1, i + step))
        self.names.insert(j, self.names.pop(i))

    def recent_choices(self) -> list[str]:
        taken = {n.casefold() for n in self.names}
        return [n for n in self.recent if n.casefold() not in taken]

    def set_dealer(self, name: str) -> None:
        if name not in self.names:
            raise FormError(_("{name} is not in this game.").format(name=name))
        self.first_dealer = name

    @property
    def dealer(self) -> str | None:
        if self.first_dealer in self.names:
            return self.first_dealer
        return self.names[0] if self.names else None

    def teams(self) -> dict[str, tuple[str, ...]]:
        return {"A": tuple(self.names[0::2]), "B": tuple(self.names[1::2])}

    def toggle(self, rule: str) -> None:
        if not isinstance(self.rules.get(rule), bool):
            raise FormError(f"{rule} is not an on/off rule")
        self.rules[rule] = not self.rules[rule]

    def step(self, rule: str, delta: int) -> None:
        value = self.rules.get(rule)
        if not isinstance(value, int) or isinstance(value, bool):
            raise FormError(f"{rule} is not a number rule")
        stepped = {**self.rules, rule: max(0, value + delta)}
        if games.rules_allowed(self.kind, stepped):  # else the number stays: no game to 0, say
            self.rules[rule] = stepped[rule]

    def rule_step(self, rule: str) -> int:
        if rule == "max_score":
            return 20  # stays a multiple of 4, which halving to max/2 and max/4 needs
        value = next(f.default for f in self.fields if f.name == rule)
        return 10 if isinstance(value, int) and value >= 50 else 1

    def set_decks(self, decks: int | None) -> None:
        if decks is not None and not 1 <= decks <= 3:
            raise FormError(_("{n} decks: choose 1, 2 or 3.").format(n=num(decks)))
        self.decks = decks

    def default_decks(self) -> int:
        return 1 if len(self.names) <= 4 else 2

    def changed_rules(self) -> dict[str, int | bool]:
        return {f.name: self.rules[f.name] for f in self.fields if self.rules[f.name] != f.default}

    def problems(self) -> list[str]:
        n = len(self.names)
        if self.kind == games.SEEP and n != SEEP_PLAYERS:
            return [_("Seep needs 4 players ({n} so far).").format(n=num(n))]
        if self.kind == games.JHYAP and n < self.min_players:
            return [
                _("Jhyap needs at least {min} players ({n} so far).").format(
                    min=num(self.min_players), n=num(n)
                )
            ]
        return []

    def build(self) -> NewGame:
        problems = self.problems()
        if problems:
            raise FormError(problems[0])
        try:
            if self.kind == games.JHYAP:
                log = games.new_jhyap_log(self.names, self.dealer, self.decks, self.changed_rules())
            else:
                log = games.new_seep_log(self.teams(), self.changed_rules())
        except games.GameSetupError as exc:
            raise FormError(str(exc)) from exc
        return NewGame(self.kind, log)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "names": self.names,
            "first_dealer": self.first_dealer,
            "decks": self.decks,
            "rules": self.rules,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], recent: list[str] | None = None) -> NewGameForm:
        form = cls(data["kind"], recent)
        form.names = list(data.get("names", []))
        form.first_dealer = data.get("first_dealer")
        form.decks = data.get("decks")
        form.rules.update({k: v for k, v in data.get("rules", {}).items() if k in form.rules})
        return form
