"""Game over: the winner, every player's final total by finish (who went out, in which round), the game's
facts, Play again and Tonight."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp
from kivy.uix.gridlayout import GridLayout
from kivy.uix.widget import Widget

from ui.design import GAP_L, GAP_S, MUTED, TEXT, TOUCH, WARN, font, holder_colour, landscape
from ui.i18n import _, ngettext, num
from ui.logic import boards, games
from ui.screens.base import Base
from ui.store import GameStatus
from ui.widgets.basic import AutoLbl, Btn, Lbl, hbox, scroller, vbox


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
            root.add_widget(AutoLbl(_("Game stopped before the end."), "xl", bold=True, halign="center"))
        else:
            size = "xxl" if len(stats.headline) <= 22 else "xl"  # a long Seep headline on two lines at most
            root.add_widget(AutoLbl(stats.headline, size, bold=True, color=WARN, halign="center"))
        body = hbox(spacing=dp(GAP_L)) if landscape() else vbox(spacing=dp(GAP_L))
        body.add_widget(self.final_table(log) if game.kind == games.JHYAP else self.teams_table(log))
        facts = vbox(size_hint_y=None, spacing=dp(GAP_S))
        facts.add_widget(AutoLbl(_("The game"), "s", bold=True, color=MUTED))
        for fact in stats.facts:
            facts.add_widget(AutoLbl(fact, "s" if landscape() else "l"))
        side = scroller(facts)
        if landscape():
            side.size_hint_x = 0.8
        body.add_widget(side)
        root.add_widget(body)
        row = hbox(size_hint_y=None, height=TOUCH + dp(14))
        row.add_widget(
            Btn(_("Tonight"), lambda: self.app.go("tonight"), name="tonight", height=TOUCH + dp(14))
        )
        row.add_widget(
            Btn(
                _("Play again"),
                self.again,
                role="primary",
                name="again",
                height=TOUCH + dp(14),
                font_size=font("l"),
            )
        )
        root.add_widget(row)

    def final_table(self, log: dict[str, Any]) -> Any:
        """Every player by finish: place, name in their colour, final total, the round they went out in."""
        lines = boards.final_table(log)
        size = "l" if landscape() or len(lines) > 4 else "xl"
        grid = GridLayout(cols=4, spacing=(dp(GAP_L), dp(GAP_S)), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        height = font(size) * 1.6
        for line in lines:
            colour = holder_colour(line.colour)
            note = (
                _("winner")
                if line.winner
                else (
                    _("out in round {n}").format(n=num(line.out_round)) if line.out_round is not None else ""
                )
            )
            cells = (
                (f"{num(line.place)}.", TEXT, 0.35, "right"),
                (line.name, colour, 1.6, "left"),
                (num(line.total), TEXT, 0.7, "right"),
                (note, WARN if line.winner else MUTED, 1.6, "left"),
            )
            for text, fg, width, align in cells:
                grid.add_widget(
                    Lbl(
                        text,
                        size if width != 1.6 or fg is colour else "s",
                        halign=align,
                        color=fg,
                        bold=fg is colour or line.winner,
                        size_hint_x=width,
                        size_hint_y=None,
                        height=height,
                    )
                )
        box = vbox(spacing=dp(GAP_S))
        box.add_widget(AutoLbl(_("Final totals"), "s", bold=True, color=MUTED))
        box.add_widget(grid)
        box.add_widget(Widget())
        return box

    def teams_table(self, log: dict[str, Any]) -> Any:
        """Seep: each team, in its colour, and its baazis, big."""
        grid = GridLayout(cols=2, spacing=(dp(GAP_L), dp(GAP_S)), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        for k, tile in enumerate(boards.team_tiles(log)):
            grid.add_widget(
                Lbl(
                    " & ".join(tile.players),
                    "m",
                    bold=True,
                    color=holder_colour(k),
                    size_hint_x=1.3,
                    size_hint_y=None,
                    height=font("m") * 3.2,  # two lines of names
                )
            )
            grid.add_widget(
                Lbl(
                    ngettext("{n} baazi", "{n} baazis", tile.baazis).format(n=num(tile.baazis)),
                    "l",
                    bold=True,
                    halign="right",
                    size_hint_y=None,
                    height=font("m") * 3.2,
                )
            )
        box = vbox(spacing=dp(GAP_S))
        box.add_widget(AutoLbl(_("Final totals"), "s", bold=True, color=MUTED))
        box.add_widget(grid)
        box.add_widget(Widget())
        return box

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
