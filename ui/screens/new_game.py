"""New game: the players' names and seats, the first dealer, and the rules sheet."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.metrics import dp

from ui.design import (
    DANGER_TEXT,
    MUTED,
    TOUCH,
    font,
    landscape,
)
from ui.i18n import _, ngettext, num
from ui.logic import games
from ui.logic.new_game import FormError, NewGameForm
from ui.screens.base import Base
from ui.widgets.basic import AutoLbl, Btn, Lbl, Sheet, flow_layout, hbox, scroller, vbox
from ui.widgets.keyboard import NameKeyboardSheet


class NewGameScreen(Base):
    form: NewGameForm | None = None
    error = ""

    def build(self, root: Any) -> None:
        form = self.form
        assert form is not None
        title = _("New Jhyap game") if form.kind == games.JHYAP else _("New Seep game")
        bar = self.top_bar(title, back=(_("Cancel"), lambda: self.app.go("home")))
        start = Btn(_("Start"), self.start, role="primary", name="start", size_hint_x=None, width=dp(130))
        start.disabled = bool(form.problems())
        bar.add_widget(start)
        root.add_widget(bar)
        body = hbox(spacing=dp(10)) if landscape() else vbox(spacing=dp(10))
        seats = vbox(size_hint_y=None)
        how = (
            _("Seats, clockwise: partners sit opposite (A and B)")
            if form.kind == games.SEEP
            else _("Seats, clockwise")
        )
        seats.add_widget(AutoLbl(how, "s", color=MUTED))
        teams = form.teams() if form.kind == games.SEEP else {}
        for i, name in enumerate(form.names):
            row = hbox(size_hint_y=None, height=TOUCH)
            team = next((t for t, members in teams.items() if name in members), "")
            prefix = f"{num(i + 1)}." + (f" {team}" if team else "")
            row.add_widget(Lbl(f"{prefix}  {name}", "m", bold=True, shorten=True))
            if form.kind == games.JHYAP:
                row.add_widget(
                    Btn(
                        _("deals") if form.dealer == name else _("deal?"),
                        lambda n=name: self._dealer(n),
                        role="selected" if form.dealer == name else "quiet",
                        name=f"dealer-{i}",
                        size_hint_x=None,
                        width=dp(76),
                        font_size=font("s"),
                    )
                )
            row.add_widget(
                Btn("\u25b2", lambda n=name: self._move(n, -1), name=f"up-{i}", size_hint_x=None, width=TOUCH)
            )
            row.add_widget(
                Btn(
                    "\u25bc", lambda n=name: self._move(n, 1), name=f"down-{i}", size_hint_x=None, width=TOUCH
                )
            )
            row.add_widget(
                Btn(
                    "\u2715",
                    lambda n=name: self._remove(n),
                    role="danger",
                    name=f"remove-{i}",
                    size_hint_x=None,
                    width=TOUCH,
                )
            )
            seats.add_widget(row)
        if len(form.names) < form.max_players:
            seats.add_widget(Btn(_("+ Type a name"), self.type_name, name="type-name"))
        seats_view = scroller(seats)
        if landscape():
            seats_view.size_hint_x = 1.5
        body.add_widget(seats_view)
        side = vbox(size_hint_y=None)
        recent = form.recent_choices()
        if recent and len(form.names) < form.max_players:
            side.add_widget(AutoLbl(_("Tap to add:"), "s", color=MUTED))
            chips = flow_layout()
            for i, name in enumerate(recent[:10]):
                chips.add_widget(
                    Btn(
                        name,
                        lambda n=name: self._add(n),
                        name=f"recent-{i}",
                        size_hint_x=None,
                        width=max(dp(90), font("m") * (len(name) * 0.6 + 1.4)),
                    )
                )
            side.add_widget(chips)
        side.add_widget(
            Btn(
                self._rules_text(),
                self.rules,
                role="quiet",
                name="rules",
                height=TOUCH + dp(20),
                font_size=font("s"),
            )
        )
        message = self.error or (form.problems()[0] if form.problems() else _("Ready: tap Start."))
        side.add_widget(AutoLbl(message, "m", color=DANGER_TEXT if self.error else MUTED))
        body.add_widget(scroller(side))
        root.add_widget(body)

    def _rules_text(self) -> str:
        form = self.form
        assert form is not None
        changed = form.changed_rules()
        decks = ""
        if form.kind == games.JHYAP:
            n = form.decks or form.default_decks()
            decks = ", " + ngettext("{n} deck", "{n} decks", n).format(n=num(n))
        if not changed:
            return _("Rules: standard{decks} (tap to change)").format(decks=decks)
        labels = {f.name: _(f.label) for f in form.fields}
        parts = [
            f"{labels[k]} {_('on') if v is True else _('off') if v is False else num(v)}"
            for k, v in changed.items()
        ]
        return _("Rules: {rules}").format(rules=", ".join(parts) + decks)

    def _dealer(self, name: str) -> None:
        assert self.form is not None
        self.form.set_dealer(name)
        self.refresh()

    def _move(self, name: str, step: int) -> None:
        assert self.form is not None
        self.form.move(name, step)
        self.refresh()

    def _remove(self, name: str) -> None:
        assert self.form is not None
        self.form.remove(name)
        self.refresh()

    def _add(self, name: str) -> None:
        assert self.form is not None
        try:
            self.form.add(name)
            self.error = ""
        except FormError as exc:
            self.error = str(exc)
        self.refresh()

    def type_name(self) -> None:
        self.app.open_sheet(NameKeyboardSheet(_("Player name"), self._add))

    def rules(self) -> None:
        assert self.form is not None
        self.app.open_sheet(RulesSheet(self.form, self.refresh))

    def start(self) -> None:
        assert self.form is not None
        try:
            self.kiosk.start(self.form)
        except FormError as exc:
            self.error = str(exc)
            self.refresh()
            return
        self.error = ""
        self.app.show_game()


class RulesSheet(Sheet):
    def __init__(self, form: NewGameForm, on_close: Callable[[], None]) -> None:
        super().__init__(_("Rules"))
        self.form = form
        self.on_close = on_close
        self.rows = vbox(size_hint_y=None, spacing=0 if landscape() else dp(6))
        done = Btn(_("Done"), self.close, role="primary", name="rules-done")
        if landscape():
            # Done beside the title: every rule and the decks fit 800x480 without scrolling.
            self.body.remove_widget(self.title_label)
            top = hbox(size_hint_y=None, height=TOUCH)
            top.add_widget(Lbl(self.title_label.text, "l", bold=True))
            done.size_hint_x, done.width = None, dp(140)
            top.add_widget(done)
            self.body.add_widget(top)
            self.body.add_widget(scroller(self.rows))
        else:
            self.body.add_widget(scroller(self.rows))
            bottom = hbox(size_hint_y=None, height=TOUCH)
            bottom.add_widget(done)
            self.body.add_widget(bottom)
        self.fill()

    def fill(self) -> None:
        self.rows.clear_widgets()
        for f in self.form.fields:
            row = hbox(size_hint_y=None, height=TOUCH)
            value = self.form.rules[f.name]
            label = (
                _("Exactly {score} halves").format(score=num(self.form.rules["max_score"]))
                if f.name == "halve_exact"
                else _(f.label)
            )
            row.add_widget(Lbl(label, "m"))
            if f.is_bool:
                row.add_widget(
                    Btn(
                        _("On") if value else _("Off"),
                        lambda n=f.name: self._toggle(n),
                        role="selected" if value else "quiet",
                        name=f"rule-{f.name}",
                        size_hint_x=None,
                        width=dp(110),
                    )
                )
            else:
                step = self.form.rule_step(f.name)
                row.add_widget(
                    Btn(
                        f"\u2212{num(step)}",
                        lambda n=f.name, s=step: self._step(n, -s),
                        name=f"rule-{f.name}-down",
                        size_hint_x=None,
                        width=dp(70),
                    )
                )
                row.add_widget(
                    Lbl(num(value), "l", halign="center", size_hint_x=None, width=dp(70), bold=True)
                )
                row.add_widget(
                    Btn(
                        f"+{num(step)}",
                        lambda n=f.name, s=step: self._step(n, s),
                        name=f"rule-{f.name}-up",
                        size_hint_x=None,
                        width=dp(70),
                    )
                )
            self.rows.add_widget(row)
        if self.form.kind == games.JHYAP:
            row = hbox(size_hint_y=None, height=TOUCH)
            row.add_widget(Lbl(_("Decks"), "m"))
            auto = self.form.default_decks()
            choices: list[tuple[int | None, str]] = [
                (None, _("Auto ({n})").format(n=num(auto))),
                (1, num(1)),
                (2, num(2)),
                (3, num(3)),
            ]
            for decks, text in choices:
                row.add_widget(
                    Btn(
                        text,
                        lambda v=decks: self._decks(v),
                        role="selected" if self.form.decks == decks else "quiet",
                        name=f"decks-{decks}",
                        size_hint_x=None,
                        width=max(dp(96), font("m") * 5.2) if decks is None else dp(60),
                    )
                )
            self.rows.add_widget(row)

    def _toggle(self, name: str) -> None:
        self.form.toggle(name)
        self.fill()

    def _step(self, name: str, delta: int) -> None:
        self.form.step(name, delta)
        self.fill()

    def _decks(self, value: int | None) -> None:
        self.form.set_decks(value)
        self.fill()

    def close(self) -> None:
        self.dismiss()
        self.on_close()
