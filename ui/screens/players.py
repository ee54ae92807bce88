"""Players (every player of every night: their record, rename, merge) and a player's page (their record
and last nights). The logic is :class:`ui.logic.record_views.PlayersForm` and the record's figures
:mod:`ui.logic.alltime`; these screens only lay them out."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kivy.metrics import dp
from kivy.uix.widget import Widget

from ui.design import MUTED, TOUCH, WARN, font, landscape
from ui.i18n import _
from ui.logic.alltime import Records
from ui.logic.record_views import Mode, PlayersForm, player_lines, player_nights
from ui.screens.base import Base, short
from ui.widgets.basic import AutoLbl, Btn, Lbl, hbox, scroller, vbox
from ui.widgets.keyboard import NameKeyboardSheet


class PlayersScreen(Base):
    """Every player, most recent night first; tap one, then Record, Rename or Merge."""

    form: PlayersForm | None = None

    def start(self) -> None:
        self.form = PlayersForm(self.kiosk.store)

    def build(self, root: Any) -> None:
        if self.form is None:
            self.start()
        form = self.form
        assert form is not None
        root.add_widget(self.top_bar(_("Players"), back=(_("Home"), self.app.go_home)))
        body = hbox(spacing=dp(8)) if landscape() else vbox(spacing=dp(8))
        names = vbox(size_hint_y=None, spacing=dp(4))
        if not form.players:
            names.add_widget(AutoLbl(_("No players yet."), "m", color=MUTED))
        for i, player in enumerate(form.players):
            chosen = player.id in (form.selected, form.other)
            names.add_widget(
                Btn(
                    short(form.row_text(player), 60),
                    lambda p=player.id: self.choose(p),
                    role="selected" if chosen else "quiet",
                    name=f"player-{i}",
                    halign="left",
                )
            )
        body.add_widget(scroller(names))
        side = vbox(spacing=dp(6))
        if landscape():
            side.size_hint_x = 0.42
        else:
            side.size_hint_y = None
            side.height = TOUCH * 5 + dp(30)
        if form.selected is None:
            side.add_widget(
                AutoLbl(_("Tap a player to see their record, rename or merge them."), "m", color=MUTED)
            )
        else:
            side.add_widget(
                Lbl(form.name(form.selected), "l", bold=True, shorten=True, size_hint_y=None, height=TOUCH)
            )
            if form.mode is Mode.MERGE:
                side.add_widget(Btn(_("Cancel"), self.cancel, role="quiet", name="merge-cancel"))
            else:
                side.add_widget(Btn(_("Record"), self.show_record, role="primary", name="player-record"))
                side.add_widget(Btn(_("Rename"), self.rename, name="player-rename"))
                side.add_widget(Btn(_("Merge"), self.merge, name="player-merge"))
        if form.message:
            side.add_widget(AutoLbl(form.message, "m", color=WARN))
        side.add_widget(Widget())
        body.add_widget(side)
        root.add_widget(body)

    def choose(self, player_id: int) -> None:
        assert self.form is not None
        self.form.choose(player_id)
        if self.form.mode is Mode.CONFIRM_MERGE:
            self.app.confirm_sheet(self.form.merge_question(), _("Merge them"), self._merge)
            self.form.mode = Mode.MERGE  # a Cancel on the sheet leaves the choice open
        self.refresh()

    def _merge(self) -> None:
        assert self.form is not None
        self.form.mode = Mode.CONFIRM_MERGE
        self.form.merge()
        self.refresh()

    def cancel(self) -> None:
        assert self.form is not None
        self.form.cancel()
        self.refresh()

    def merge(self) -> None:
        assert self.form is not None
        self.form.start_merge()
        self.refresh()

    def rename(self) -> None:
        assert self.form is not None and self.form.selected is not None
        self.form.start_rename()
        title = _("New name for {name}").format(name=self.form.name(self.form.selected))
        self.app.open_sheet(NameKeyboardSheet(title, self._renamed))

    def _renamed(self, name: str) -> None:
        assert self.form is not None
        self.form.rename(name)
        self.refresh()

    def show_record(self) -> None:
        assert self.form is not None and self.form.selected is not None
        screen = self.app.screens["player"]
        assert isinstance(screen, PlayerScreen)
        screen.player_id = self.form.selected
        self.app.go("player")


class PlayerScreen(Base):
    """One player's record (Jhyap and Seep) and their last nights, each a tap to open."""

    player_id: int | None = None

    def build(self, root: Any) -> None:
        records = Records(self.kiosk.store)
        record = next((p for p in records.all_time.players if p.id == self.player_id), None)
        title = record.name if record is not None else _("Players")
        root.add_widget(self.top_bar(title, back=(_("Players"), lambda: self.app.go("players"))))
        if record is None:
            return
        body = hbox(spacing=dp(10)) if landscape() else vbox(spacing=dp(10))
        lines = vbox(size_hint_y=None, spacing=dp(4))
        for line in player_lines(record):
            lines.add_widget(AutoLbl(line, "m"))
        body.add_widget(scroller(lines))
        nights = vbox(size_hint_y=None, spacing=dp(4))
        nights.add_widget(AutoLbl(_("Last nights"), "m", bold=True, color=MUTED))
        for i, (text, night) in enumerate(zip(player_nights(record), record.nights, strict=False)):
            nights.add_widget(
                Btn(
                    text,
                    lambda d=night.date: self._open_night(d),
                    role="quiet",
                    name=f"player-night-{i}",
                    font_size=font("s"),
                    halign="left",
                )
            )
        body.add_widget(scroller(nights))
        root.add_widget(body)

    def _open_night(self, date: dt.date) -> None:
        from ui.screens.nights import open_night  # nights.py gathers these screens: imported at the tap

        open_night(self.app, date)
