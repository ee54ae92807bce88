"""Scores: the running totals, who is out, the Seep lead and baazis, and the chart."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp

from ui.design import (
    MUTED,
    SERIES,
    TOUCH,
    font,
    landscape,
)
from ui.i18n import _, ngettext, num
from ui.logic import boards, games
from ui.screens.base import Base
from ui.store import GameStatus
from ui.widgets.basic import AutoLbl, Btn, Lbl, flow_layout, hbox, scroller, table, vbox
from ui.widgets.chart import Chart


class ScoreboardScreen(Base):
    def build(self, root: Any) -> None:
        log = self.kiosk.log
        board = boards.board(log)
        root.add_widget(
            self.top_bar(
                _("Scores: {title}").format(title=board.title), back=(_("Back"), self.app.back_from_scores)
            )
        )
        body = hbox(spacing=dp(8)) if landscape() else vbox(spacing=dp(8))
        left = vbox()
        legend_colours = {}
        if board.kind == games.JHYAP:
            rows = [[_("Player"), _("Total"), _("To go"), ""]]
            greyed = set()
            for i, r in enumerate(board.rows, 1):
                tag = (
                    _("OUT")
                    if r.eliminated
                    else (_("deals") if r.is_dealer else (_("starts") if r.is_starter else ""))
                )
                rows.append([r.name, num(r.total), "" if r.eliminated else num(r.to_go), tag])
                if r.eliminated:
                    greyed.add(i)
            left.add_widget(
                AutoLbl(_("Out above {score}.").format(score=num(board.max_score)), "s", color=MUTED)
            )
            left.add_widget(scroller(table(rows, [2.6, 1.2, 1.2, 1.6], greyed, bold_col=1)))
            for i, name in enumerate(log["players"]):
                legend_colours[name] = SERIES[i % len(SERIES)]
        else:
            left.add_widget(AutoLbl(board.lead_text, "l", bold=True))
            # One block per team (names wrap, nothing is cut): its baazis and its last deal.
            facts = vbox(size_hint_y=None)
            for i, t in enumerate(board.teams):
                facts.add_widget(
                    AutoLbl(" & ".join(t.players), "m", bold=True, color=SERIES[i % len(SERIES)])
                )
                line = ngettext("{n} baazi", "{n} baazis", t.baazis).format(n=num(t.baazis))
                if t.last_points is not None:
                    line += ", " + _("last deal {points}").format(points=num(t.last_points))
                facts.add_widget(AutoLbl(line, "m"))
            left.add_widget(scroller(facts))
            for i, t in enumerate(board.teams):
                legend_colours[" & ".join(t.players)] = SERIES[i % len(SERIES)]
        body.add_widget(left)
        right = vbox()
        chart = Chart()
        chart.limit = board.max_score if board.kind == games.JHYAP else 0
        chart.x_unit = "round" if board.kind == games.JHYAP else "deal"
        chart.series = board.series
        right.add_widget(chart)
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
        right.add_widget(legend)
        body.add_widget(right)
        root.add_widget(body)
        row = hbox(size_hint_y=None, height=TOUCH)
        jhyap = board.kind == games.JHYAP
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
