"""The Kivy kiosk: thin screens over :class:`ui.logic.kiosk.Kiosk`.

Every screen rebuilds itself from the kiosk's state in ``refresh()``; every button calls one kiosk or flow
method and then refreshes. Scans run in the scanner's worker thread and come back through
``Clock.schedule_once``. Nothing here computes a score.
"""

from __future__ import annotations

import gc
import io
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.metrics import dp
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
from kivy.uix.widget import Widget

from ui import fault_screen
from ui.i18n import DEVANAGARI, LANGUAGES, N_, WESTERN, _, digits, language, ngettext, num
from ui.i18n import on_change as i18n_on_change
from ui.i18n import remove_listener as i18n_remove_listener
from ui.logic import boards, games
from ui.logic.kiosk import GAME_OVER, RESULT, ROUND, Kiosk, KioskError, ShownScan
from ui.logic.new_game import FormError, NewGameForm
from ui.logic.scan import Scanner, ScanPhase, ScanResult, fit_for_display
from ui.share.sharing import Sharing
from ui.store import Fault, GameStatus, RecordFault, Store, StoreError
from ui.widgets import (
    DANGER,
    GREY,
    MUTED,
    SERIES,
    TEXT,
    TOUCH,
    WARN,
    AutoLbl,
    Btn,
    Chart,
    Lbl,
    NameKeyboardSheet,
    Sheet,
    flow_layout,
    font,
    hbox,
    into_new_texture,
    landscape,
    load_photo,
    scroller,
    setup_theme,
    texture_from_bgr,
    vbox,
)

PROGRESS_GAP = 0.25  # seconds: a scan's step words change at most this often (each change is a frame drawn)

CAMERA_CHOICES = (
    ("auto", N_("Automatic")),
    ("pi", N_("Pi camera")),
    ("webcam", N_("USB webcam")),
    ("demo", N_("Demo photos")),
)


def qr_texture(png: bytes) -> Any:
    """A QR code's PNG as a texture that stays sharp when scaled up (the phones' address in Settings)."""
    from kivy.core.image import Image as CoreImage

    texture = CoreImage(io.BytesIO(png), ext="png").texture
    texture.mag_filter = "nearest"
    texture.min_filter = "nearest"
    return texture


def _short(text: str, n: int = 120) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


class Base(Screen):
    """A screen that rebuilds from the kiosk state."""

    def __init__(self, app: TableTallyApp, **kw: Any) -> None:
        super().__init__(**kw)
        self.app = app

    @property
    def kiosk(self) -> Kiosk:
        return self.app.kiosk

    def refresh(self) -> None:
        self.clear_widgets()
        root = vbox(padding=dp(6), spacing=dp(6))
        self.build(root)
        self.add_widget(root)

    def build(self, root: Any) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def show_scanning(self) -> bool:
        """Show the scan just begun in the screen as built, without a rebuild; False where this screen
        cannot (it is rebuilt instead)."""
        return False

    def undo(self) -> None:
        """Ask, then take back the last round (the result and scores screens offer it)."""
        self.app.confirm_sheet(
            _("Undo the last round? Its cards stay in the record's history."), _("Undo"), self._undo
        )

    def _undo(self) -> None:
        self.kiosk.undo_last()
        self.app.show_game()

    def top_bar(
        self, title: str, back: tuple[str, Callable[[], None]] | None = None, scores: bool = False
    ) -> Any:
        bar = hbox(size_hint_y=None, height=TOUCH)
        if back is not None:
            bar.add_widget(Btn(back[0], back[1], role="quiet", name="back", size_hint_x=None, width=dp(110)))
        bar.add_widget(Lbl(title, "l", bold=True, shorten=True, shorten_from="right"))
        if scores:
            bar.add_widget(
                Btn(_("Scores"), self.app.show_scores, name="scores", size_hint_x=None, width=dp(120))
            )
        return bar


# -- home ------------------------------------------------------------------------------------------------


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
        actions.add_widget(Btn(_("Settings"), lambda: self.app.go("settings"), role="quiet", name="settings"))
        left = vbox()
        left.add_widget(actions)
        left.add_widget(Widget())
        body.add_widget(left)
        resume = vbox(size_hint_y=None)
        resumable = self.kiosk.resumable()
        if resumable:
            resume.add_widget(AutoLbl(_("Carry on where you left off:"), "m", color=MUTED))
            for i, r in enumerate(resumable):
                resume.add_widget(
                    Btn(
                        _short(r.text, 90),
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
        body.add_widget(scroller(resume))
        root.add_widget(body)


# -- new game ----------------------------------------------------------------------------------------


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
        side.add_widget(AutoLbl(message, "m", color=DANGER if self.error else MUTED))
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
        super().__init__(_("Rules (the rules engine's defaults)"))
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


# -- the round screens: ui/round_screens.py (the check screens and the seats) ------------------------------


# -- results, scores, game over --------------------------------------------------------------------


def table(
    rows: list[list[str]], widths: list[float], greyed: set[int] | None = None, bold_col: int = -1
) -> Any:
    grid = GridLayout(cols=len(widths), size_hint_y=None, spacing=(dp(10), dp(2)), padding=(0, 0, dp(12), 0))
    grid.bind(minimum_height=grid.setter("height"))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            colour = MUTED if r == 0 else (GREY if greyed and r in greyed else TEXT)
            lbl = Lbl(
                text,
                "s" if r == 0 else "m",
                halign="left" if c == 0 or (c == len(row) - 1 and not rows[0][c]) else "right",
                size_hint_x=widths[c],
                size_hint_y=None,
                height=font("s") * 1.5 if r == 0 else font("m") * 1.5,
                color=colour,
                bold=(c == bold_col and r > 0),
                shorten=True,
            )
            grid.add_widget(lbl)
    return grid


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


# -- tonight, settings ---------------------------------------------------------------------------------


class TonightScreen(Base):
    message = ""

    def build(self, root: Any) -> None:
        records = self.kiosk.store.tonight()
        bar = self.top_bar(_("Tonight"), back=(_("Home"), self.app.go_home))
        export = Btn(_("Export"), self.export, role="primary", name="export", size_hint_x=None, width=dp(130))
        export.disabled = not records
        bar.add_widget(export)
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
                    _short(f"{num(line.started)} {kind}: {line.players}  ({entries}, {result})", 110),
                    lambda g=r.id: self.app.open_game(g),
                    role="quiet",
                    name=f"game-{r.id}",
                    height=TOUCH + dp(20),
                    font_size=font("s"),
                    halign="left",
                )
            )
        body.add_widget(scroller(games_box))
        standings = boards.standings(records)
        rows = [[_("Player"), _("Played"), _("Won"), _("Baazis")]]
        for s in standings:
            rows.append([s.name, num(s.played), num(s.won), num(s.baazis)])
        right = vbox()
        right.add_widget(AutoLbl(_("Standings"), "m", bold=True, color=MUTED))
        right.add_widget(scroller(table(rows, [3, 1.2, 1, 1.2], bold_col=2)))
        body.add_widget(right)
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
            "Exported {n} game (JSON game log + CSV) to {folder}",
            "Exported {n} games (JSON game log + CSV) to {folder}",
            written,
        ).format(n=num(written), folder=folder)
        self.refresh()


class SettingsScreen(Base):
    test_message = ""

    def build(self, root: Any) -> None:
        root.add_widget(self.top_bar(_("Settings"), back=(_("Home"), self.app.go_home)))
        body = vbox(size_hint_y=None)
        self.language_rows(body)
        current = self.app.camera_spec()
        body.add_widget(AutoLbl(_("Camera"), "m", bold=True, color=MUTED))
        row = (
            hbox(size_hint_y=None, height=TOUCH)
            if landscape()
            else GridLayout(cols=2, size_hint_y=None, height=TOUCH * 2 + dp(6), spacing=dp(6))
        )
        for spec, text in CAMERA_CHOICES:
            row.add_widget(
                Btn(
                    _(text),
                    lambda s=spec: self.set_camera(s),
                    name=f"camera-{spec}",
                    role="selected" if current == spec else "normal",
                )
            )
        body.add_widget(row)
        if self.app.camera_override:
            body.add_widget(
                AutoLbl(
                    _("This run uses --camera {camera}.").format(camera=self.app.camera_override),
                    "s",
                    color=WARN,
                )
            )
        test = hbox(size_hint_y=None, height=TOUCH)
        test.add_widget(Btn(_("Test camera"), self.test, name="camera-test", size_hint_x=None, width=dp(180)))
        test.add_widget(
            Btn(
                _("Camera placement"),
                lambda: self.app.screens["camera_check"].open_from("settings"),
                name="camera-check",
                size_hint_x=None,
                width=max(dp(180), font("m") * 9),  # "Camera placement" and its translations
            )
        )
        test.add_widget(Lbl(_short(self.test_message, 140), "s"))
        body.add_widget(test)
        self.sharing_rows(body)
        from ui.deck_screen import deck_rows

        deck_rows(self, body)
        store = self.kiosk.store
        size = store.path.stat().st_size if store.path.exists() else 0
        photos = len(list(store.photos_dir.glob("*.jpg")))
        n_games = len(store.games())
        info = "\n".join(
            (
                _("Record: {path}").format(path=store.path),
                ", ".join(
                    (
                        _("{size} KB").format(size=num(size // 1024)),
                        ngettext("{n} game", "{n} games", n_games).format(n=num(n_games)),
                        ngettext("{n} scan photo in {folder}", "{n} scan photos in {folder}", photos).format(
                            n=num(photos), folder=store.photos_dir
                        ),
                    )
                ),
                _("Set TABLETALLY_DATA_DIR or --data-dir to keep it elsewhere."),
            )
        )
        body.add_widget(AutoLbl(_("Data"), "m", bold=True, color=MUTED))
        body.add_widget(AutoLbl(info, "s"))
        root.add_widget(scroller(body))

    def sharing_rows(self, body: Any) -> None:
        """The phones' scoreboard: the switch, then the address, its QR code and port (or what is wrong)."""
        sharing = self.app.sharing
        view = sharing.view()
        body.add_widget(AutoLbl(_("Scores on phones"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(
            Btn(
                _("Off"),
                lambda: self.share(False),
                name="share-off",
                role="normal" if view.on else "selected",
            )
        )
        row.add_widget(
            Btn(_("On"), lambda: self.share(True), name="share-on", role="selected" if view.on else "normal")
        )
        body.add_widget(row)
        if view.error:
            body.add_widget(AutoLbl(view.error, "s", color=WARN))
        if not view.on:
            body.add_widget(
                AutoLbl(_("Players on the home network can follow tonight's scores on their phones."), "s")
            )
            return
        text = [
            _("Open on a phone on this network:"),
            view.url or "-",
            _("Port {port}").format(port=view.port),
        ]
        text += list(view.other_urls)
        if view.qr is not None:
            line = hbox(size_hint_y=None, height=dp(190), spacing=dp(12))
            image = Image(texture=qr_texture(view.qr), size_hint=(None, None), size=(dp(190), dp(190)))
            image.name = "share-qr"
            line.add_widget(image)
            line.add_widget(AutoLbl("\n".join(text), "m"))
            body.add_widget(line)
        else:
            body.add_widget(AutoLbl("\n".join(text), "m"))
        if view.warning:
            body.add_widget(AutoLbl(view.warning, "s", color=WARN))

    def share(self, on: bool) -> None:
        self.app.sharing.switch(on)
        self.refresh()

    def language_rows(self, body: Any) -> None:
        """The interface language (each in its own script) and the digits every number is shown in."""
        body.add_widget(AutoLbl(_("Language"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        for code, name in LANGUAGES.items():
            row.add_widget(
                Btn(
                    name,
                    lambda c=code: self.app.set_language(c),
                    name=f"language-{code}",
                    role="selected" if language() == code else "normal",
                )
            )
        body.add_widget(row)
        body.add_widget(AutoLbl(_("Digits"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        for style, sample in ((WESTERN, "0 1 2 3"), (DEVANAGARI, "\u0966 \u0967 \u0968 \u0969")):
            row.add_widget(
                Btn(
                    sample,
                    lambda s=style: self.app.set_digits(s),
                    name=f"digits-{style}",
                    role="selected" if digits() == style else "normal",
                )
            )
        body.add_widget(row)

    def set_camera(self, spec: str) -> None:
        self.kiosk.set_camera(spec)
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.refresh()

    def test(self) -> None:
        def done(result: ScanResult) -> None:
            if result.camera_failed:
                self.test_message = result.error or _("no photo")
            else:
                self.test_message = _("OK: {width}x{height} photo from {camera}").format(
                    width=num(result.width), height=num(result.height), camera=result.camera
                )
            self.refresh()

        self.test_message = _("Taking a photo...")
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.app.scanner.scan("test", done, 1, None)
        self.refresh()


# -- the app -------------------------------------------------------------------------------------------


class TableTallyApp(App):
    title = "TableTally"

    def __init__(
        self,
        store: Store,
        camera: str | None = None,
        model_path: Path | None = None,
        share: bool = False,
        share_port: int | None = None,
        **kw: Any,
    ):
        super().__init__(**kw)
        self.store = store
        self.camera_override = camera
        self.model_path = model_path
        self.kiosk = Kiosk(store)
        self.sheet: Sheet | None = None
        self._photos: dict[str, Any] = {}
        self._scores_from = "round"
        self.scan_pending = False  # a scan was started and its result is not on screen yet
        self.scan_started = 0.0
        self.scan_seconds = 0.0  # the last scan, from the tap to its result on screen (the demo prints it)
        self.scan_marks: dict[str, float] = {}  # the last scan's moments (time.perf_counter; the demo)
        self._status: tuple[Any, Any] | None = None  # the scan's phase and step labels on screen
        self._progress_shown = 0.0  # when the scan's words last changed (time.perf_counter)
        self._progress_due = False  # a change of its step words is waiting for PROGRESS_GAP to pass
        self._collector_held = False  # the collector is off from a scan's tap until it is shown and kept
        self._drawn_words: tuple[str, str] | None = None  # the scan's words in the last frame drawn
        self._watching_frames = 0  # the on_flip binding that keeps _drawn_words while a scan is on
        self._fresh: tuple[dict[str, Any], Any] | None = None  # the scan just shown and its photo texture
        self.screen_errors: list[str] = []  # screens that failed to build (the kiosk went home instead)
        self.scanner = Scanner(
            self.camera_spec(), model_path, dispatch=self._dispatch, after_frame=self._after_frame
        )
        self.share_forced = share  # tabletally kiosk --share
        self.sharing = Sharing(self.kiosk, port=share_port)

    @staticmethod
    def _dispatch(fn: Callable[[], None]) -> None:
        Clock.schedule_once(lambda _dt: fn(), 0)

    def _after_frame(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the UI thread once what was dispatched before it is on screen (from any thread):
        at once when the last frame drawn already showed the scan's words as they are now, else after the
        next frame (one is drawn even when nothing changed)."""
        bound: list[int] = []

        def done(*_: Any) -> None:
            if bound:
                Window.unbind_uid("on_flip", bound.pop())
                fn()

        def arm(_dt: float) -> None:
            if self._status is not None and self._scan_words() == self._drawn_words:
                fn()
                return
            bound.append(Window.fbind("on_flip", done))
            Window.canvas.ask_update()

        Clock.schedule_once(arm, 0)

    def _scan_words(self) -> tuple[str, str] | None:
        """The scan's phase and step words on screen now (None without them)."""
        return None if self._status is None else (self._status[0].text, self._status[1].text)

    def _words_drawn(self, *_: Any) -> None:
        """A frame was drawn while a scan is on: the words it showed."""
        self._drawn_words = self._scan_words()

    def camera_spec(self) -> str:
        return self.camera_override or self.kiosk.camera_spec()

    # language and digits: kept in the record; a change redraws the screen on show (every screen rebuilds
    # from the kiosk state when it is shown, in the language in use then)
    def set_language(self, code: str) -> None:
        first = self.kiosk.language() is None
        self.kiosk.set_language(code)
        if first and getattr(self, "sm", None) is not None and self.current == "home":
            from ui.camera_check_screen import open_first_check

            open_first_check(self)  # first start: the language chosen, then the camera placed right

    def set_digits(self, style: str) -> None:
        self.kiosk.set_digits(style)

    def _locale_changed(self) -> None:
        if getattr(self, "sm", None) is not None:
            self.refresh()

    def build(self) -> ScreenManager:
        setup_theme()
        self.kiosk.apply_locale()
        i18n_on_change(self._locale_changed)
        from ui.camera_check_screen import CameraCheckScreen, open_first_check  # it builds on Base
        from ui.deck_screen import DeckScreen, apply_chosen_deck  # it builds on Base, defined above
        from ui.round_screens import JhyapRoundScreen, SeatsScreen, SeepDealScreen  # they build on Base

        apply_chosen_deck(self)
        self.sm = ScreenManager(transition=NoTransition())
        self.screens: dict[str, Base] = {
            "home": HomeScreen(self, name="home"),
            "new_game": NewGameScreen(self, name="new_game"),
            "jhyap_round": JhyapRoundScreen(self, name="jhyap_round"),
            "seep_deal": SeepDealScreen(self, name="seep_deal"),
            "seats": SeatsScreen(self, name="seats"),
            "result": ResultScreen(self, name="result"),
            "scores": ScoreboardScreen(self, name="scores"),
            "game_over": GameOverScreen(self, name="game_over"),
            "tonight": TonightScreen(self, name="tonight"),
            "settings": SettingsScreen(self, name="settings"),
            "deck": DeckScreen(self, name="deck"),
            "camera_check": CameraCheckScreen(self, name="camera_check"),
        }
        for screen in self.screens.values():
            self.sm.add_widget(screen)
        Window.bind(size=lambda *_: Clock.schedule_once(lambda _dt: self.refresh(), 0))
        Clock.schedule_once(lambda _dt: self.start_screen(open_first_check), 0)
        warming = self.scanner.warm_up()  # the card model loads while the players choose a game
        Clock.schedule_once(lambda _dt: self._settle_memory(warming), 0.5)
        self.sharing.start_at_launch(forced=self.share_forced)  # the phones' scoreboard, when switched on
        fault_screen.install(self)  # a record fault in any tap or screen shows the fault screen, not a crash
        return self.sm

    def _settle_memory(self, warming: threading.Thread) -> None:
        """Once start-up has made its objects (the screens, the detector loaded in the background): one
        collection, then those objects are frozen out of the collector's full passes. Without it each full
        pass walks them all again, holding the interpreter, every few rebuilds and often in the middle of
        showing a scan's result; now it walks only what was made since."""
        if warming.is_alive():
            Clock.schedule_once(lambda _dt: self._settle_memory(warming), 0.5)
            return
        gc.collect()
        gc.freeze()

    def start_screen(self, open_first_check: Callable[[TableTallyApp], bool]) -> None:
        """Home; on first start (a language chosen, the camera never checked) the camera check, once."""
        if not open_first_check(self):
            self.go("home")

    # navigation
    @property
    def current(self) -> str:
        return str(self.sm.current)

    def go(self, name: str) -> None:
        if name == "round":
            name = "jhyap_round" if self.kiosk.kind == games.JHYAP else "seep_deal"
        self.sm.current = name
        self.refresh()

    def refresh(self) -> None:
        screen = self.screens.get(self.sm.current)
        if screen is None:
            return
        try:
            screen.refresh()
        except Exception as exc:  # noqa: BLE001 - never leave the players on a broken screen
            traceback.print_exc()
            store_error = fault_screen.as_store_error(exc)
            if store_error is not None:  # the record failed: say what happened and what to do
                fault_screen.show_fault(self, store_error)
                return
            self.screen_errors.append(f"{self.sm.current}: {traceback.format_exc(limit=3)}")
            self.sm.current = "home"
            self.screens["home"].refresh()

    def go_home(self) -> None:
        self.kiosk.close()
        self.scanner.release_camera()
        self.go("home")

    def new_game(self, kind: str) -> None:
        self.edit_form(self.kiosk.new_form(kind))

    def edit_form(self, form: NewGameForm) -> None:
        screen = self.screens["new_game"]
        assert isinstance(screen, NewGameScreen)
        screen.form = form
        screen.error = ""
        self.go("new_game")

    def open_game(self, game_id: int) -> None:
        self.kiosk.open(game_id)
        self.show_game()

    def show_seats(self) -> None:
        """Where everyone sits (asked when a Jhyap game starts without the night's seats; redone at will)."""
        from ui.round_screens import SeatsScreen

        screen = self.screens["seats"]
        assert isinstance(screen, SeatsScreen)
        screen.start()
        self.go("seats")

    def show_game(self) -> None:
        if self.kiosk.screen == GAME_OVER:
            self.scanner.release_camera()
        else:  # a game is on: the camera opens, settles and focuses now, and stays ready between rounds
            self.scanner.warm_up(camera=True)
        if self.kiosk.screen == ROUND and self.kiosk.seats_needed:
            self.show_seats()
        elif self.kiosk.screen == RESULT:
            self.go("result")
        elif self.kiosk.screen == GAME_OVER:
            self.go("game_over")
        elif self.kiosk.screen == ROUND:
            self.go("round")
        else:
            self.go("home")

    def show_scores(self) -> None:
        self._scores_from = self.current
        self.go("scores")

    def back_from_scores(self) -> None:
        self.go(self._scores_from if self._scores_from != "scores" else "round")

    def open_sheet(self, sheet: Sheet) -> None:
        self.sheet = sheet
        sheet.bind(on_dismiss=lambda *_: setattr(self, "sheet", None))
        sheet.open(animation=False)

    def confirm_sheet(self, question: str, yes: str, action: Callable[[], None]) -> None:
        sheet = Sheet(question)

        def do() -> None:
            sheet.dismiss()
            action()

        sheet.body.add_widget(Widget())
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(Btn(_("Cancel"), sheet.dismiss, role="quiet", name="sheet-no"))
        row.add_widget(Btn(yes, do, role="danger", name="sheet-yes"))
        sheet.body.add_widget(row)
        self.open_sheet(sheet)

    def edit_menu(self) -> None:
        game = self.kiosk.game
        assert game is not None
        log = game.log()
        jhyap = game.kind == games.JHYAP
        sheet = Sheet(
            _("Edit which round? Every later one is recomputed.")
            if jhyap
            else _("Edit which deal? Every later one is recomputed.")
        )
        items = vbox(size_hint_y=None)
        rounds = games.jhyap_state(log).rounds if jhyap else ()
        deals = () if jhyap else games.seep_state(log).deals
        for i in range(len(game.entries)):
            if game.kind == games.JHYAP:
                r = rounds[i]
                text = (
                    _("Round {n}: {caller} called (made it)")
                    if r.caller_won
                    else _("Round {n}: {caller} called (penalty)")
                ).format(n=num(i + 1), caller=r.caller)
            else:
                d = deals[i]
                points = ", ".join(f"{t} {num(p)}" for t, p in d.points.items())
                text = _("Deal {n}: {points}").format(n=num(i + 1), points=points)
            items.add_widget(Btn(text, lambda i=i: self._edit(sheet, i), name=f"edit-{i}", halign="left"))
        sheet.body.add_widget(scroller(items))
        sheet.body.add_widget(Btn(_("Cancel"), sheet.dismiss, role="quiet", name="edit-cancel"))
        self.open_sheet(sheet)

    def _edit(self, sheet: Sheet, position: int) -> None:
        sheet.dismiss()
        self.kiosk.edit(position)
        self.go("round")

    def end_game(self) -> None:
        kind = self.kiosk.kind
        question = (
            _("End this Seep game now? The team with more baazis wins.")
            if kind == games.SEEP
            else _("Stop this Jhyap game without a winner?")
        )
        self.confirm_sheet(question, _("End game") if kind == games.SEEP else _("Stop game"), self._end)

    def _end(self) -> None:
        self.kiosk.end_game()
        self.scanner.release_camera()
        self.go("game_over")

    # scanning
    def scan(self, target: str, n_hands: int | None, decks: int | None = None) -> None:
        """Start a scan: the screen shows it in progress, and the reading runs in the reading process (or
        a worker thread) while this thread does as little as it can: the photo is handed over once the
        screen is drawn (:meth:`Scanner.scan_now`), the words change in place at most every
        ``PROGRESS_GAP``, and the garbage collector is held until the result is shown and kept. A full
        pass of the collector over the screens rebuilt since the last one holds this thread for as long
        as a good part of the reading, and in the middle of it the reading waits for the core it takes;
        it runs after the scan instead (:meth:`_release_collector`)."""
        self.scanner.camera_spec = self.camera_spec()
        self.scan_started = time.perf_counter()
        self.scan_marks = {"tapped": self.scan_started}
        held = self._collector_held
        if not held:
            gc.disable()
            self._collector_held = True
        started = self.scanner.scan(target, self._scanned, n_hands, self._scan_progress, decks)
        if not started:
            if not held:
                self._collector_held = False
                gc.enable()
            return
        self.scan_pending = True
        self._progress_shown = time.perf_counter()
        self._drawn_words = None
        if not self._watching_frames:
            self._watching_frames = Window.fbind("on_flip", self._words_drawn)
        # The round's screen shows the scan in the widgets it has (a rebuild at the tap is work on this
        # thread, and a whole new screen for the renderer to draw, while the photo waits for that frame).
        screen = self.screens.get(self.sm.current)
        try:
            shown = screen is not None and screen.show_scanning()
        except Exception:  # noqa: BLE001 - the screen is rebuilt instead, as before
            traceback.print_exc()
            shown = False
        if not shown:
            self.refresh()

    def _release_collector(self) -> None:
        """A scan is over (shown and kept, or failed): the collector on again, and its full pass over what
        the scan's screens left run now, while the players look at the result (skipped when a new scan
        has begun: that one's end runs it)."""
        if not self._collector_held or self.scan_pending:
            return
        self._collector_held = False
        gc.enable()

        def collect(_dt: float) -> None:
            if not self._collector_held:
                begun = time.perf_counter()
                gc.collect()
                self.scan_marks["collected_ms"] = (time.perf_counter() - begun) * 1000

        Clock.schedule_once(collect, 0)

    def scan_status(self) -> Widget:
        """The words a screen shows while a scan is in progress: the phase, and below it how far the
        reading has come. They change in place as the scan goes on (a rebuilt screen would be work on
        the UI thread that the reading waits for)."""
        box = vbox(size_hint_y=None, spacing=dp(4))
        phase = AutoLbl(self.scanner.status_text(), "l", halign="center")
        step = AutoLbl(self.scanner.step_text(), "m", halign="center", color=MUTED)
        box.add_widget(phase)
        box.add_widget(step)
        box.bind(minimum_height=box.setter("height"))
        self._status = (phase, step)
        # Once more just before this screen is first drawn: a photo taken while the screen was being built
        # shows "Reading" in that frame, not in one more frame drawn as the reading begins.
        Clock.schedule_once(lambda _dt: self._scan_progress(self.scanner.phase), -1)
        return box

    def _scan_progress(self, phase: ScanPhase) -> None:
        """Show a scan's new phase in the labels on screen at once (no rebuild), and the reading's new step
        at most every ``PROGRESS_GAP`` (the latest then): each change is a frame drawn while it reads."""
        if self._status is None or not self.scanner.busy:
            return
        status, step = self._status
        now = time.perf_counter()
        # New words go into new textures: one the last frame drew would first wait for that frame.
        if status.text != self.scanner.status_text():
            into_new_texture(status)
            status.text = self.scanner.status_text()
        elif self._progress_shown + PROGRESS_GAP > now:
            if not self._progress_due:
                self._progress_due = True
                Clock.schedule_once(self._progress_later, self._progress_shown + PROGRESS_GAP - now)
            return
        if step.text != self.scanner.step_text():
            into_new_texture(step)
            step.text = self.scanner.step_text()
        self._progress_shown = now

    def _progress_later(self, _dt: float) -> None:
        self._progress_due = False
        self._scan_progress(ScanPhase.READING)

    def _scanned(self, result: ScanResult) -> None:
        """A scan's result: its cards go into the round and on screen first; its photo and reading are
        written to the record right after, off this thread (:meth:`Kiosk.keep_scan`), and tied to the
        round when written (confirming the round waits for that)."""
        self.scan_pending = False
        self._status = None
        if self._watching_frames:
            Window.unbind_uid("on_flip", self._watching_frames)
            self._watching_frames = 0
        self.scan_marks["result"] = time.perf_counter()
        if self.kiosk.flow is None:
            self._release_collector()
            return
        shown: ShownScan | None = None
        try:
            shown = self.kiosk.show_scan(result)
        except (ValueError, KioskError) as exc:
            self.kiosk.flow.message = str(exc)
        if shown is not None and result.image is not None:
            preview = result.preview if result.preview is not None else fit_for_display(result.image)
            self._fresh = (shown.meta, texture_from_bgr(preview))
        self.refresh()
        self.scan_marks["shown"] = time.perf_counter()
        self.scan_seconds = self.scan_marks["shown"] - self.scan_started  # tap to the result on screen
        if shown is None:
            try:
                self.kiosk.save()  # the camera's message, or a scan that could not be put in the round
            finally:
                self._release_collector()
            return
        threading.Thread(target=self._keep, args=(shown,), name="tabletally-keep", daemon=True).start()

    def _keep(self, shown: ShownScan) -> None:
        """On the keeping thread: the scan's photo and reading to the record, then back to the UI thread."""
        self.kiosk.keep_scan(shown)
        self.scan_marks["kept"] = time.perf_counter()
        self._dispatch(lambda: self._kept(shown))

    def _kept(self, shown: ShownScan) -> None:
        try:
            self.kiosk.scan_kept(shown)  # raises a fault of the record: the fault screen shows it
        finally:
            self._release_collector()
        if shown.photo_dropped:  # the disk is full: the cards were kept, the photo was not
            fault_screen.show_fault(
                self,
                RecordFault(Fault.FULL, self.store.photos_dir, "no room for the scan photo"),
                _("This scan's cards were kept; its photo was not."),
            )

    def photo_for(self, meta: dict[str, Any]) -> Any:
        """The photo texture of a scan the round holds (``meta``: its note in the round): the one just
        taken from memory, else from its file (:meth:`photo_cache`)."""
        if self._fresh is not None and self._fresh[0] is meta:
            return self._fresh[1]
        return self.photo_cache(meta.get("photo"))

    def photo_cache(self, path: str | None) -> Any:
        """The scan photo as a GPU texture, kept for the last photo only (the Pi has little memory), so that
        a tap that redraws the round does not decode and upload the photo again."""
        if not path:
            return None
        if path not in self._photos:
            image = load_photo(path)
            self._photos = {path: texture_from_bgr(image) if image is not None else None}
            self._fresh = None
        return self._photos[path]

    def on_stop(self) -> None:
        self.sharing.turn_off()
        i18n_remove_listener(self._locale_changed)
        self.scanner.settle()
        self.scanner.release_camera()
        if self._collector_held:
            self._collector_held = False
            gc.enable()
        try:
            self.kiosk.finish_keeping()  # a scan on screen is written before the record closes
            self.kiosk.save()
        except StoreError:  # stopping on a full or read-only disk: the last confirmed action is already safe
            traceback.print_exc()
