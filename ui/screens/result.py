"""A round's or a deal's result."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp
from kivy.uix.widget import Widget

from ui.design import (
    TEXT,
    TOUCH,
    WARN,
    font,
)
from ui.i18n import _, num
from ui.logic import boards, games
from ui.screens.base import Base
from ui.widgets.basic import AutoLbl, Btn, hbox, table


class ResultScreen(Base):
    def build(self, root: Any) -> None:
        log = self.kiosk.log
        position = self.kiosk.result_position
        if self.kiosk.kind == games.JHYAP:
            self._jhyap(root, log, position)
        else:
            self._seep(root, log, position)

    def _buttons(self, root: Any, finished: bool, word: str) -> None:
        row = hbox(size_hint_y=None, height=TOUCH + dp(6))
        jhyap = word == "round"
        undo_text = _("Undo round") if jhyap else _("Undo deal")
        edit_text = _("Edit a round") if jhyap else _("Edit a deal")
        row.add_widget(Btn(undo_text, self.undo, role="quiet", name="undo", font_size=font("s")))
        row.add_widget(Btn(edit_text, self.app.edit_menu, role="quiet", name="edit", font_size=font("s")))
        if self.kiosk.kind == games.SEEP:
            row.add_widget(
                Btn(_("End game"), self.app.end_game, role="quiet", name="end", font_size=font("s"))
            )
        if finished:
            row.add_widget(
                Btn(
                    _("Game over"),
                    lambda: self.app.go("game_over"),
                    role="primary",
                    name="next",
                    size_hint_x=1.4,
                    font_size=font("l"),
                )
            )
        else:
            row.add_widget(
                Btn(
                    _("Next round") if jhyap else _("Next deal"),
                    self.next_round,
                    role="primary",
                    name="next",
                    size_hint_x=1.4,
                    font_size=font("l"),
                )
            )
        root.add_widget(row)

    def _jhyap(self, root: Any, log: dict[str, Any], position: int | None) -> None:
        result = boards.jhyap_round_result(log, position)
        root.add_widget(
            self.top_bar(
                _("Round {n}").format(n=num(result.number)), back=(_("Home"), self.app.go_home), scores=True
            )
        )
        root.add_widget(AutoLbl(result.headline, "l", bold=True))
        rows = [[_("Player"), _("Hand"), "+", _("Total"), ""]]
        greyed = set()
        for i, line in enumerate(result.lines, 1):
            rows.append(
                [
                    line.name,
                    "" if line.hand is None else num(line.hand),
                    "" if line.points is None else f"+{num(line.points)}",
                    num(line.total),
                    line.note,
                ]
            )
            if line.hand is None:
                greyed.add(i)
        root.add_widget(table(rows, [3, 1.1, 1.1, 1.3, 2], greyed, bold_col=3))
        root.add_widget(AutoLbl(result.next_text, "l", color=WARN if result.finished else TEXT))
        root.add_widget(Widget())
        self._buttons(root, result.finished, "round")

    def _seep(self, root: Any, log: dict[str, Any], position: int | None) -> None:
        result = boards.seep_deal_result(log, position)
        root.add_widget(
            self.top_bar(
                _("Deal {n}").format(n=num(result.number)), back=(_("Home"), self.app.go_home), scores=True
            )
        )
        rows = [[_("Team"), _("Cards"), _("Sweeps"), _("Deal")]]
        for name, cards, sweeps, points in result.lines:
            rows.append([name, num(cards), num(sweeps), num(points)])
        root.add_widget(table(rows, [3, 1.2, 1.2, 1.2], bold_col=3))
        root.add_widget(AutoLbl(result.lead_text, "l", bold=True))
        if result.baazi_text:
            root.add_widget(AutoLbl(result.baazi_text, "l", color=WARN))
        baazis = ",  ".join(f"{n} {num(b)}" for n, b in result.baazis)
        root.add_widget(AutoLbl(_("Baazis: {teams}").format(teams=baazis), "m"))
        root.add_widget(Widget())
        self._buttons(root, False, "deal")

    def next_round(self) -> None:
        self.kiosk.next_round()
        self.app.show_game()
