"""New game's rule steppers stop where the rules engine does: "Out above" (max_score) never reaches 0, the
hand limit never 0, as docs/game-log.md says a player may choose."""

from __future__ import annotations

from ui.logic import games
from ui.logic.new_game import NewGameForm


def test_out_above_stops_at_its_lowest_step_and_builds() -> None:
    form = NewGameForm("jhyap")
    for name in ("Asha", "Bikash"):
        form.add(name)
    for _ in range(20):
        form.step("max_score", -form.rule_step("max_score"))
    assert form.rules["max_score"] == 20  # 0 would put out every player who scores
    assert form.build().log["rules"]["max_score"] == 20


def test_every_stepper_stays_within_what_the_engine_takes() -> None:
    for kind in (games.JHYAP, games.SEEP):
        form = NewGameForm(kind)
        for field in form.fields:
            if field.is_bool:
                continue
            for delta in (-1, 1):
                for _ in range(120):
                    form.step(field.name, delta * form.rule_step(field.name))
                    assert games.rules_allowed(kind, form.rules), (kind, field.name, form.rules[field.name])
    assert not games.rules_allowed(games.JHYAP, {"max_score": 0, "halve_exact": False})
    assert games.rules_allowed(games.JHYAP, {"max_score": 1, "halve_exact": False})
