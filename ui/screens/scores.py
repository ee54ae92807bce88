"""Scores: every running total big (the distance to going out, who is out and when, who deals and starts),
the Seep lead and baazis as big, and the chart of totals by round under them."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp

from ui.design import GAP, SERIES, TOUCH, font, holder_colour, landscape
from ui.i18n import _, num
from ui.logic import boards, games
from ui.screens.base import Base
from ui.store import GameStatus
from ui.widgets.basic import AutoLbl, Btn, Lbl, flow_layout, hbox, vbox
from ui.widgets.chart import Chart
from ui.widgets.totals import teams_board, totals_board


class ScoreboardScreen(Base):
    def build(self, root: Any) -> None:
        log = self.kiosk.log
        board = boards.board(log)
        jhyap = board.kind == games.JHYAP
        bar = self.top_bar(
            _("Scores: {title}").format(title=board.title), back=(_("Back"), self.app.back_from_scores)
        )
        if jhyap:
            bar.add_widget(
                Lbl(
                    _("Out above {score}").format(score=num(board.max_score)),
                    "s",
                    halign="right",
                    size_hint_x=0.6,
                )
            )
        root.add_widget(bar)
        legend_colours: dict[str, Any] = {}
        if jhyap:
            hero = totals_board(boards.total_tiles(log), ())
            for i, name in enumerate(log["players"]):
                legend_colours[name] = holder_colour(i)
        else:
            hero = teams_board(boards.team_tiles(log), board.lead_text)
            for i, t in enumerate(board.teams):
                legend_colours[" & ".join(t.players)] = SERIES[i % len(SERIES)]
        chart_box = vbox(spacing=dp(2))
        chart = Chart()
        chart.limit = board.max_score if jhyap else 0
        chart.x_unit = "round" if jhyap else "deal"
        chart.series = board.series
        chart_box.add_widget(chart)
        legend = flow_layout()
        for name, colour in legend_colours.items():
            legend.add_widget(
                Lbl(
                    name,
                    "s",
                    color=colour,
                    size_hint=(None, None),
                    height=font("s") * 1.5,
                    width=font("s") * (len(name) * 0.6 + 1.2),
                    bold=True,
                )
            )
        if not jhyap:  # Jhyap's tiles above already name each line's colour
            chart_box.add_widget(legend)
        if landscape() and not jhyap:
            body = hbox(spacing=dp(GAP))
            hero.size_hint_x = 0.9
            body.add_widget(hero)
            body.add_widget(chart_box)
            root.add_widget(body)
        else:  # the tiles take their height, the chart the rest
            root.add_widget(hero)
            root.add_widget(chart_box)
        if not board.entries:
            root.add_widget(AutoLbl(_("No rounds yet") if jhyap else _("No deals yet"), "s"))
        row = hbox(size_hint_y=None, height=TOUCH)
        if self.kiosk.game is not None and self.kiosk.game.status is GameStatus.PLAYING:
            undo = Btn(_("Undo last"), self.undo, role="quiet", name="undo", font_size=font("s"))
            undo.disabled = not board.entries
            row.add_widget(undo)
            edit_text = _("Edit a round") if jhyap else _("Edit a deal")
            edit = Btn(edit_text, self.app.edit_menu, role="quiet", name="edit", font_size=font("s"))
            edit.disabled = not board.entries
            row.add_widget(edit)
            row.add_widget(
                Btn(
                    _("End game") if board.kind == games.SEEP else _("Stop game"),
                    self.app.end_game,
                    role="quiet",
                    name="end",
                    font_size=font("s"),
                )
            )
        row.add_widget(
            Btn(
                _("Back to game") if landscape() else _("Back"),
                self.app.back_from_scores,
                role="primary",
                name="back-to-game",
            )
        )
        root.add_widget(row)
