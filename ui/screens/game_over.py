"""Game over: the winner and the game's facts."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp

from ui.design import (
    TOUCH,
    WARN,
)
from ui.i18n import _
from ui.logic import boards, games
from ui.screens.base import Base
from ui.store import GameStatus
from ui.widgets.basic import AutoLbl, Btn, hbox, scroller, vbox


class GameOverScreen(Base):
    def build(self, root: Any) -> None:
        game = self.kiosk.game
        assert game is not None
        log = game.log()
        stats = boards.game_stats(log)
        root.add_widget(
            self.top_bar(_("Game over"), back=(_("Home"), self.app.go_home), scores=bool(game.entries))
        )
        if game.status is GameStatus.ABANDONED:
            root.add_widget(AutoLbl(_("Game stopped before the end."), "xl", bold=True))
        else:
            root.add_widget(AutoLbl(stats.headline, "xxl", bold=True, color=WARN, halign="center"))
        facts = vbox(size_hint_y=None)
        for fact in stats.facts:
            facts.add_widget(AutoLbl(fact, "m"))
        root.add_widget(scroller(facts))
        row = hbox(size_hint_y=None, height=TOUCH + dp(6))
        row.add_widget(Btn(_("Tonight"), lambda: self.app.go("tonight"), name="tonight"))
        row.add_widget(Btn(_("Play again"), self.again, role="primary", name="again"))
        root.add_widget(row)

    def again(self) -> None:
        game = self.kiosk.game
        assert game is not None
        form = self.kiosk.new_form(game.kind)
        for name in (
            game.names
            if game.kind == games.JHYAP
            else (
                game.definition["teams"]["A"][0],
                game.definition["teams"]["B"][0],
                game.definition["teams"]["A"][1],
                game.definition["teams"]["B"][1],
            )
        ):
            form.add(name)
        form.rules.update({k: v for k, v in game.definition.get("rules", {}).items() if k in form.rules})
        self.app.edit_form(form)
