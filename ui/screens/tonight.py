"""Tonight: every game of the night, the standings, and the export."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp

from ui.design import (
    MUTED,
    TOUCH,
    WARN,
    font,
    landscape,
)
from ui.i18n import _, ngettext, num
from ui.logic import boards, games
from ui.screens.base import Base, short
from ui.screens.nights import good_night
from ui.widgets.basic import AutoLbl, Btn, hbox, scroller, table, vbox


class TonightScreen(Base):
    message = ""

    def build(self, root: Any) -> None:
        records = self.kiosk.store.tonight()
        bar = self.top_bar(_("Tonight"), back=(_("Home"), self.app.go_home))
        export = Btn(_("Export"), self.export, role="primary", name="export", size_hint_x=None, width=dp(130))
        export.disabled = not records
        bar.add_widget(export)
        if records:  # the night's story, and the night ended
            bar.add_widget(
                Btn(
                    _("Good night"),
                    lambda: good_night(self.app),
                    name="good-night",
                    size_hint_x=None,
                    width=dp(150),
                )
            )
        root.add_widget(bar)
        body = hbox(spacing=dp(8)) if landscape() else vbox(spacing=dp(8))
        games_box = vbox(size_hint_y=None)
        games_box.add_widget(AutoLbl(_("Games"), "m", bold=True, color=MUTED))
        if not records:
            games_box.add_widget(AutoLbl(_("No games yet tonight."), "m"))
        for r in reversed(records):
            line = boards.game_line(r)
            result = _("won by {winner}").format(winner=line.winner) if line.winner else _(line.status)
            n = line.entries
            if line.kind == games.JHYAP:
                entries = ngettext("{n} round", "{n} rounds", n).format(n=num(n))
            else:
                entries = ngettext("{n} deal", "{n} deals", n).format(n=num(n))
            kind = _("Jhyap") if line.kind == games.JHYAP else _("Seep")
            games_box.add_widget(
                Btn(
                    short(f"{num(line.started)} {kind}: {line.players}  ({entries}, {result})", 110),
                    lambda g=r.id: self.app.open_game(g),
                    role="quiet",
                    name=f"game-{r.id}",
                    height=TOUCH + dp(20),
                    font_size=font("s"),
                    halign="left",
                )
            )
        standings = boards.standings(records)
        rows = [[_("Player"), _("Played"), _("Won"), _("Baazis")]]
        for s in standings:
            rows.append([s.name, num(s.played), num(s.won), num(s.baazis)])
        right = vbox()
        right.add_widget(AutoLbl(_("Standings"), "m", bold=True, color=MUTED))
        size = "m" if landscape() else "l"
        right.add_widget(scroller(table(rows, [3, 1.2, 1, 1.2], bold_col=2, size=size)))
        if landscape():
            body.add_widget(scroller(games_box))
            body.add_widget(right)
        else:  # portrait: the standings first, big, then the games
            body.add_widget(right)
            body.add_widget(scroller(games_box))
        root.add_widget(body)
        if self.message:
            root.add_widget(AutoLbl(self.message, "s", color=WARN))

    def export(self) -> None:
        records = self.kiosk.store.tonight()
        folder = self.kiosk.store.data_dir / "exports" / records[0].created.strftime("%Y-%m-%d")
        written = 0
        for record in records:
            if record.entries:
                boards.export_game(record, folder)
                written += 1
        self.message = ngettext(
            "Saved {n} game for a spreadsheet and for safe keeping. Where: Settings, For the technician.",
            "Saved {n} games for a spreadsheet and for safe keeping. Where: Settings, For the technician.",
            written,
        ).format(n=num(written))
        self.refresh()
