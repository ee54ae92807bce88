"""Home: new Jhyap or Seep game, carry on an unfinished one, tonight's standings, Tonight, Settings."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp
from kivy.uix.widget import Widget

from ui.design import (
    MUTED,
    TOUCH,
    font,
    landscape,
)
from ui.i18n import LANGUAGES, _, language, ngettext, num
from ui.logic import boards, games
from ui.screens.base import Base, short
from ui.screens.nights import night_buttons
from ui.widgets.basic import AutoLbl, Btn, Lbl, hbox, scroller, table, vbox


class HomeScreen(Base):
    def build(self, root: Any) -> None:
        tonight = self.kiosk.store.tonight()
        head = hbox(size_hint_y=None, height=TOUCH + dp(8))
        head.add_widget(Lbl("TableTally", "xl", bold=True))
        tonight_text = ngettext("Tonight: {n} game", "Tonight: {n} games", len(tonight)).format(
            n=num(len(tonight))
        )
        head.add_widget(Lbl(tonight_text, "m", halign="right", color=MUTED))
        root.add_widget(head)
        if self.kiosk.language() is None:
            # First start: the languages, each in its own script, until the players choose one (Settings
            # changes it later).
            choose = hbox(size_hint_y=None, height=TOUCH + dp(8))
            for code, name in LANGUAGES.items():
                choose.add_widget(
                    Btn(
                        name,
                        lambda c=code: self.app.set_language(c),
                        name=f"first-language-{code}",
                        role="selected" if language() == code else "normal",
                        height=TOUCH + dp(8),
                        font_size=font("l"),
                    )
                )
            root.add_widget(choose)
        body = hbox(spacing=dp(10)) if landscape() else vbox(spacing=dp(10))
        actions = vbox(size_hint_y=None)
        actions.bind(minimum_height=actions.setter("height"))
        actions.add_widget(
            Btn(
                _("New Jhyap game"),
                lambda: self.app.new_game(games.JHYAP),
                name="new-jhyap",
                height=TOUCH + dp(14),
                font_size=font("l"),
            )
        )
        actions.add_widget(
            Btn(
                _("New Seep game"),
                lambda: self.app.new_game(games.SEEP),
                name="new-seep",
                height=TOUCH + dp(14),
                font_size=font("l"),
            )
        )
        actions.add_widget(Btn(_("Tonight's games"), lambda: self.app.go("tonight"), name="tonight"))
        actions.add_widget(night_buttons(self.app))  # Players, Nights
        actions.add_widget(Btn(_("Settings"), lambda: self.app.go("settings"), role="quiet", name="settings"))
        left = vbox()
        left.add_widget(actions)
        if landscape():
            left.add_widget(Widget())
        else:  # portrait: the buttons take their height, the games and tonight's standings the rest
            left.size_hint_y = None
            actions.bind(height=left.setter("height"))
        body.add_widget(left)
        resume = vbox(size_hint_y=None)
        resumable = self.kiosk.resumable()
        if resumable:
            resume.add_widget(AutoLbl(_("Carry on where you left off:"), "m", color=MUTED))
            for i, r in enumerate(resumable):
                resume.add_widget(
                    Btn(
                        short(r.text, 90),
                        lambda g=r.game_id: self.app.open_game(g),
                        role="primary" if i == 0 else "normal",
                        name=f"resume-{i}",
                        height=TOUCH + dp(24),
                    )
                )
        else:
            resume.add_widget(
                AutoLbl(
                    _("No game in progress. Start one on the left.")
                    if landscape()
                    else _("No game in progress."),
                    "m",
                    color=MUTED,
                )
            )
        standings = boards.standings(tonight)
        if standings:  # tonight's standings, under the games to carry on (portrait: the lower half)
            resume.add_widget(AutoLbl(_("Tonight's standings"), "m", bold=True, color=MUTED))
            rows = [[_("Player"), _("Played"), _("Won")]]
            rows += [[s.name, num(s.played), num(s.won)] for s in standings]
            resume.add_widget(table(rows, [3, 1.3, 1.1], bold_col=2, size="m" if landscape() else "l"))
        body.add_widget(scroller(resume))
        root.add_widget(body)
