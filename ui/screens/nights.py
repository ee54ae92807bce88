"""Nights (every past night: date, games, winners), one night as Tonight shows tonight, and the night's
story (after "Good night" on Tonight, or before the first game of the next night). The words come from
:mod:`ui.logic.record_views`; :func:`record_screens` gives the app these screens and the Players ones."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from kivy.metrics import dp
from kivy.uix.widget import Widget

from ui.design import GAP, GAP_L, GAP_S, MUTED, TOUCH, font, landscape
from ui.i18n import _, ngettext, num
from ui.logic import games
from ui.logic.alltime import Records, warm_up
from ui.logic.record_views import all_time_rows, date_text, night_rows, night_view, story_lines
from ui.screens.base import Base
from ui.screens.players import PlayerScreen, PlayersScreen
from ui.store import night_of
from ui.widgets.basic import AutoLbl, Btn, hbox, scroller, table, vbox

if TYPE_CHECKING:
    from ui.app import TableTallyApp


class NightsScreen(Base):
    def build(self, root: Any) -> None:
        root.add_widget(self.top_bar(_("Nights"), back=(_("Home"), self.app.go_home)))
        records = Records(self.kiosk.store)
        rows = night_rows(records)
        body = hbox(spacing=dp(GAP_L)) if landscape() else vbox(spacing=dp(GAP_L))
        box = vbox(size_hint_y=None, spacing=dp(GAP_S))
        if not rows:
            box.add_widget(AutoLbl(_("No nights yet."), "m", color=MUTED))
        for i, row in enumerate(rows):
            button = Btn(
                row.text,
                partial(open_night, self.app, row.date),
                role="quiet",
                name=f"night-{i}",
                halign="left",
            )
            fit_height(button)  # the winners may wrap to a second or third line: the button grows with them
            box.add_widget(button)
        nights = scroller(box)
        standings = vbox()
        if landscape():
            nights.size_hint_x, standings.size_hint_x = 0.45, 0.55
        body.add_widget(nights)
        standings.add_widget(AutoLbl(_("All-time standings"), "m", bold=True, color=MUTED))
        standings.add_widget(scroller(table(all_time_rows(records), [2.6, 1.2, 1, 1.6], bold_col=2)))
        body.add_widget(standings)
        root.add_widget(body)


class NightScreen(Base):
    """One night: its games and standings as Tonight shows them, and its story."""

    date: dt.date | None = None

    def build(self, root: Any) -> None:
        date = self.date or dt.date.today()
        view = night_view(Records(self.kiosk.store), date)
        root.add_widget(self.top_bar(date_text(date), back=(_("Nights"), lambda: self.app.go("nights"))))
        body = hbox(spacing=dp(GAP_L)) if landscape() else vbox(spacing=dp(GAP_L))
        left = vbox(size_hint_y=None, spacing=dp(GAP_S))
        left.add_widget(AutoLbl(_("Games"), "m", bold=True, color=MUTED))
        for line in view.games:
            n = line.entries
            if line.kind == games.JHYAP:
                entries = ngettext("{n} round", "{n} rounds", n).format(n=num(n))
            else:
                entries = ngettext("{n} deal", "{n} deals", n).format(n=num(n))
            result = _("won by {winner}").format(winner=line.winner) if line.winner else _(line.status)
            kind = _("Jhyap") if line.kind == games.JHYAP else _("Seep")
            text = f"{num(line.started)} {kind}: {line.players}  ({entries}, {result})"
            left.add_widget(AutoLbl(text, "s"))  # wraps: many players or long names take two lines
        left.add_widget(AutoLbl(_("The night's story"), "m", bold=True, color=MUTED))
        for story in view.story:
            left.add_widget(AutoLbl(story, "s"))
        body.add_widget(scroller(left))
        right = vbox()
        right.add_widget(AutoLbl(_("Standings"), "m", bold=True, color=MUTED))
        rows = [[_("Player"), _("Played"), _("Won"), _("Baazis")]]
        rows += [[s.name, num(s.played), num(s.won), num(s.baazis)] for s in view.standings]
        right.add_widget(scroller(table(rows, [3, 1.2, 1, 1.2], bold_col=2)))
        body.add_widget(right)
        root.add_widget(body)


class StoryScreen(Base):
    """The night's story, big, and one button to go on."""

    date: dt.date | None = None
    then: Callable[[], None] | None = None

    def build(self, root: Any) -> None:
        date = self.date or dt.date.today()
        root.add_widget(self.top_bar(_("The night's story")))
        box = vbox(size_hint_y=None, spacing=dp(GAP))
        box.add_widget(AutoLbl(date_text(date), "m", color=MUTED))
        for i, line in enumerate(story_lines(Records(self.kiosk.store).story(date))):
            box.add_widget(AutoLbl(line, "l" if i == 0 else "m", bold=i == 0))
        root.add_widget(scroller(box))
        root.add_widget(Btn(_("Done"), self.done, role="primary", name="story-done", font_size=font("l")))

    def done(self) -> None:
        then, self.then = self.then, None
        (then or self.app.go_home)()


def fit_height(button: Btn) -> None:
    """Make ``button``'s height follow its wrapped text (at least a touch target's), so that no line of it
    is cut off however many lines the words take in the language in use."""

    def follow(*_: Any) -> None:
        button.height = max(TOUCH, button.texture_size[1] + dp(2 * GAP_L))

    button.bind(texture_size=follow)


def record_screens(app: TableTallyApp) -> dict[str, Base]:
    """The screens of the record across nights, by name (the record's games replayed meanwhile)."""
    warm_up(app.kiosk.store)
    return {
        "players": PlayersScreen(app, name="players"),
        "player": PlayerScreen(app, name="player"),
        "nights": NightsScreen(app, name="nights"),
        "night": NightScreen(app, name="night"),
        "story": StoryScreen(app, name="story"),
    }


def open_night(app: TableTallyApp, date: dt.date) -> None:
    screen = app.screens["night"]
    assert isinstance(screen, NightScreen)
    screen.date = date
    app.go("night")


def open_players(app: TableTallyApp) -> None:
    screen = app.screens["players"]
    assert isinstance(screen, PlayersScreen)
    screen.start()
    app.go("players")


def tell_story(app: TableTallyApp, date: dt.date, then: Callable[[], None] | None = None) -> None:
    """Show the story of the night ``date`` and note that night as ended; ``then`` runs at Done."""
    app.kiosk.store.end_night(date)
    screen = app.screens["story"]
    assert isinstance(screen, StoryScreen)
    screen.date, screen.then = date, then
    app.go("story")


def good_night(app: TableTallyApp) -> None:
    """The "Good night" tap on Tonight: tonight's story, then Home."""
    tell_story(app, night_of(app.kiosk.store.clock()))


def story_first(app: TableTallyApp, then: Callable[[], None]) -> bool:
    """Before the first game of a night: the story of the last night, if it was never told (True: shown,
    and ``then`` runs at Done)."""
    due = app.kiosk.store.story_due()
    if due is None:
        return False
    tell_story(app, due.date, then)
    return True


def night_buttons(app: TableTallyApp) -> Widget:
    """Home's row of two buttons: Players and Nights."""
    row = hbox(size_hint_y=None, height=TOUCH)
    row.add_widget(Btn(_("Players"), lambda: open_players(app), role="quiet", name="players"))
    row.add_widget(Btn(_("Nights"), lambda: app.go("nights"), role="quiet", name="nights"))
    return row
