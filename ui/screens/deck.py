"""The teach-deck screen and the deck choice in Settings: thin Kivy over :mod:`ui.logic.deck_teach`."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.graphics import Color, RoundedRectangle
from kivy.metrics import dp
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.label import Label

from ui.design import GOOD, MUTED, TEXT, TOUCH, WARN, font, landscape
from ui.i18n import _, ngettext, num
from ui.logic.deck_teach import (
    STEPS,
    DeckTeacher,
    add_game_scans,
    choose_deck,
    chosen_deck,
    deck_label,
)
from ui.logic.scan import HandCard, card_label
from ui.screens.base import Base
from ui.widgets.basic import AutoLbl, Btn, Lbl, hbox, scroller, vbox
from ui.widgets.cards import CardPickerSheet
from ui.widgets.keyboard import NameKeyboardSheet
from ui.widgets.photo import texture_from_bgr

if TYPE_CHECKING:
    from ui.app import TableTallyApp

PAPER = (0.98, 0.97, 0.93, 1)
RED = (0.80, 0.10, 0.12, 1)
INK = (0.08, 0.08, 0.08, 1)


def shelf_of(app: TableTallyApp) -> Any:
    from vision.deck.shelf import DeckShelf

    return DeckShelf(app.kiosk.store.data_dir)


def apply_chosen_deck(app: TableTallyApp) -> None:
    """Have the scanner read with the deck chosen in Settings (when its detector loads)."""
    name = chosen_deck(app.kiosk.store)
    if not name:
        app.scanner.use_deck(None)
        return
    shelf = shelf_of(app)
    app.scanner.use_deck(lambda detector: shelf.load(name, detector.reader))


class CardTile(Label):
    """A small face-up card: its rank and suit in the deck's colour on paper (the layout picture)."""

    def __init__(self, text: str, red: bool, note: str = "", **kw: Any) -> None:
        kw.setdefault("size_hint", (None, None))
        kw.setdefault("size", (dp(44), dp(62)))
        super().__init__(
            text=text + (f"\n[size={int(font('xs'))}]{note}[/size]" if note else ""),
            markup=True,
            color=RED if red else INK,
            font_size=font("s"),
            bold=True,
            halign="center",
            valign="middle",
            **kw,
        )
        self.bg_colour = PAPER
        with self.canvas.before:
            self._edge = Color(*(WARN if note else PAPER))
            self._rim = RoundedRectangle(radius=[dp(5)])
            Color(*PAPER)
            self._face = RoundedRectangle(radius=[dp(4)])
        self.bind(pos=self._place, size=self._place)

    def _place(self, *_: Any) -> None:
        self.text_size = self.size
        self._rim.pos, self._rim.size = self.pos, self.size
        inset = dp(3)
        self._face.pos = (self.x + inset, self.y + inset)
        self._face.size = (self.width - 2 * inset, self.height - 2 * inset)


def tiles_row(labels: list[tuple[str, bool, str]], cols: int, tile_w: float, tile_h: float) -> Any:
    grid = GridLayout(cols=cols, spacing=dp(4), size_hint=(None, None))
    grid.width = cols * tile_w + (cols - 1) * dp(4)
    rows = (len(labels) + cols - 1) // cols
    grid.height = rows * tile_h + (rows - 1) * dp(4)
    for text, red, note in labels:
        grid.add_widget(CardTile(text, red, note, size=(tile_w, tile_h)))
    return grid


def deck_rows(screen: Base, body: Any) -> None:
    """Settings: the reading the kiosk uses, standard or a taught deck, and the way to teach one."""
    app = screen.app
    shelf = shelf_of(app)
    current = chosen_deck(app.kiosk.store)
    names = shelf.names()
    body.add_widget(AutoLbl(_("Card reading"), "m", bold=True, color=MUTED))
    row = hbox(size_hint_y=None, height=TOUCH)

    def pick(name: str) -> None:
        choose_deck(app.kiosk.store, name)
        apply_chosen_deck(app)
        screen.refresh()

    for name in ["", *names]:
        row.add_widget(
            Btn(
                deck_label(name),
                lambda n=name: pick(n),
                name=f"deck-{name or 'standard'}",
                role="selected" if name == current else "normal",
            )
        )
    body.add_widget(row)
    if current and current not in names:
        body.add_widget(
            AutoLbl(
                _("The deck {name} is gone; the standard reading is used.").format(name=current),
                "s",
                color=WARN,
            )
        )
    if app.scanner.deck_error:
        body.add_widget(AutoLbl(app.scanner.deck_error, "s", color=WARN))
    body.add_widget(
        AutoLbl(
            _("Teach the kiosk your own cards and it reads them better: five photos, a few minutes."),
            "s",
        )
    )
    body.add_widget(Btn(_("Teach our deck"), lambda: app.go("deck"), name="deck-teach"))


class DeckScreen(Base):
    """Teaching the deck: name it, five photos (each suit in a row, then the jokers), confirm, save."""

    teacher: DeckTeacher | None = None
    note = ""

    def _teacher(self) -> DeckTeacher:
        if self.teacher is None:
            scanner = self.app.scanner

            def detector() -> Any:
                loaded = scanner.loaded_detector()
                if loaded is None:
                    from vision.base.errors import ModelError

                    raise ModelError("the card model is missing")
                return loaded

            self.teacher = DeckTeacher(shelf_of(self.app), detector, scanner.photo)
        return self.teacher

    def leave(self) -> None:
        self.teacher = None
        self.note = ""
        self.app.go("settings")

    def build(self, root: Any) -> None:
        t = self._teacher()
        root.add_widget(self.top_bar(_("Teach our deck"), back=(_("Settings"), self.leave)))
        if not t.name:
            self.build_start(root, t)
        else:
            self.build_step(root, t)

    # -- naming, and a game's cards ------------------------------------------------------------------
    def build_start(self, root: Any, t: DeckTeacher) -> None:
        body = vbox(size_hint_y=None)
        body.add_widget(
            AutoLbl(
                _(
                    "The kiosk learns your own cards from five photos: each suit laid out ace to king, "
                    "then the jokers. Have the whole deck at hand and a clear stretch of table under the "
                    "camera."
                ),
                "m",
            )
        )
        body.add_widget(self.picture(STEPS[1].codes, _("For example, the hearts:")))
        body.add_widget(Btn(_("Name this deck and start"), self.type_name, role="primary", name="deck-name"))
        if t.message:
            body.add_widget(AutoLbl(t.message, "s", color=WARN))
        self.game_rows(body)
        root.add_widget(scroller(body))

    def type_name(self) -> None:
        def done(text: str) -> None:
            t = self._teacher()
            t.set_name(text)
            self.refresh()

        self.app.open_sheet(NameKeyboardSheet(_("Deck name"), done))

    def game_rows(self, body: Any) -> None:
        """Opt in, game by game: add the cards the players confirmed in a game of tonight to the deck."""
        deck = chosen_deck(self.app.kiosk.store)
        if not deck or deck not in shelf_of(self.app).names():
            return
        store = self.app.kiosk.store
        games = [g for g in store.tonight() if any(s.photo and s.confirmed for s in store.scans(g.id))]
        if not games:
            return
        body.add_widget(
            AutoLbl(_("Add a game's cards to {name}").format(name=deck), "m", bold=True, color=MUTED)
        )
        body.add_widget(
            AutoLbl(_("The photos of the game are read again, with the cards as you confirmed them."), "s")
        )
        for game in games[-3:]:
            when = game.created.strftime("%H:%M")
            label = _("{players}, {time}").format(players=", ".join(game.names), time=when)
            body.add_widget(Btn(label, lambda g=game: self.add_game(deck, g.id), name=f"deck-game-{game.id}"))
        if self.note:
            body.add_widget(AutoLbl(self.note, "s", color=GOOD))

    def add_game(self, deck: str, game_id: int) -> None:
        self.note = _("Reading the game's photos...")
        self.refresh()
        app = self.app

        def work() -> None:
            from vision.deck.memory import DeckError

            try:
                detector = app.scanner.loaded_detector()
                if detector is None:
                    raise DeckError("the card model is missing")
                added = add_game_scans(shelf_of(app), deck, app.kiosk.store.scans(game_id), detector)
                note = (
                    ngettext("{n} card added to {name}.", "{n} cards added to {name}.", added.cards).format(
                        n=num(added.cards), name=deck
                    )
                    if added.added
                    else _("No confirmed cards to add in that game.")
                )
                apply_chosen_deck(app)
            except DeckError as exc:
                note = _("Not added: {problem}").format(problem=exc.problems[0])
            Clock.schedule_once(lambda _dt: self._noted(note), 0)

        threading.Thread(target=work, name="tabletally-deck-game", daemon=True).start()

    def _noted(self, note: str) -> None:
        self.note = note
        self.refresh()

    # -- the photos ----------------------------------------------------------------------------------
    def picture(self, codes: tuple[str, ...], caption: str) -> Any:
        """What to lay out, drawn as small cards in one row (two in portrait)."""
        box = vbox(size_hint_y=None, spacing=dp(4))
        box.add_widget(AutoLbl(caption, "s", color=MUTED))
        cols = len(codes) if landscape() else 7
        labels = [(card_label(c), c[-1] in "HD", "") for c in codes]
        grid = tiles_row(labels, cols, dp(50) if landscape() else dp(80), dp(70) if landscape() else dp(108))
        box.add_widget(grid)
        box.height = grid.height + dp(34)
        return box

    def build_step(self, root: Any, t: DeckTeacher) -> None:
        step = t.current
        head = hbox(size_hint_y=None, height=dp(34))
        head.add_widget(Lbl(t.progress() + " \u2014 " + _(step.title), "m", bold=True))
        head.add_widget(Lbl(t.name, "s", color=MUTED, halign="right"))
        root.add_widget(head)
        body = vbox(size_hint_y=None)
        taken = t.taken.get(t.step)
        if taken is None:
            body.add_widget(AutoLbl(t.instructions(), "m"))
            body.add_widget(self.picture(step.codes[:1] if step.key == "JK" else step.codes, _("Lay out:")))
        else:
            self.build_taken(body, t, taken)
        if t.busy:
            body.add_widget(AutoLbl(_("Reading the photo..."), "m", color=MUTED))
        elif t.message:
            body.add_widget(AutoLbl(t.message, "m", color=WARN))
        root.add_widget(scroller(body))
        root.add_widget(self.actions(t, taken is not None))

    def build_taken(self, body: Any, t: DeckTeacher, taken: Any) -> None:
        image = taken.image
        h, w = image.shape[:2]
        height = dp(120) if landscape() else dp(260)
        photo = Image(texture=texture_from_bgr(image), size_hint=(1, None), height=height, fit_mode="contain")
        body.add_widget(photo)
        cards = t.cards()
        agree = sum(1 for _c, note in cards if not note)
        body.add_widget(
            AutoLbl(
                ngettext(
                    "{n} card found. Tap a card that was laid differently; then confirm.",
                    "{n} cards found. Tap a card that was laid differently; then confirm.",
                    len(cards),
                ).format(n=num(len(cards)))
                + " "
                + (
                    _("In orange, in brackets: what the reader saw there until now.")
                    if agree < len(cards)
                    else _("The reader already reads all of them.")
                ),
                "s",
            )
        )
        cols = len(cards) if landscape() else 7
        grid = GridLayout(cols=cols, spacing=dp(4), size_hint_y=None)
        tile_h = dp(70) if landscape() else dp(108)
        grid.height = ((len(cards) + cols - 1) // cols) * (tile_h + dp(4))
        for k, (label, note) in enumerate(cards):
            match = taken.matches[k]
            b = Btn(
                label + ("\n(" + card_label(match.read) + ")" if note else ""),
                lambda i=k: self.fix(i),
                name=f"deck-card-{k}",
                height=tile_h,
                font_size=font("s") if note else font("m"),
                role="normal",
            )
            b.color = WARN if note else ((1, 0.55, 0.55, 1) if match.code[-1] in "HD" else TEXT)
            grid.add_widget(b)
        body.add_widget(grid)

    def fix(self, index: int) -> None:
        t = self._teacher()
        match = t.taken[t.step].matches[index]

        def pick(code: str) -> None:
            t.fix(index, code)
            self.refresh()

        self.app.open_sheet(CardPickerSheet(_("Which card is this?"), HandCard(match.code), pick))

    def actions(self, t: DeckTeacher, taken: bool) -> Any:
        row = hbox(size_hint_y=None, height=TOUCH)
        if t.step > 0:
            row.add_widget(Btn(_("Back"), self.back, role="quiet", name="deck-back"))
        if t.can_skip and not taken:
            row.add_widget(Btn(_("Skip"), self.skip, name="deck-skip"))
        row.add_widget(
            Btn(_("Retake") if taken else _("Take photo"), self.take, name="deck-take", disabled=t.busy)
        )
        if taken:
            last = t.step == len(STEPS) - 1
            row.add_widget(
                Btn(
                    _("Confirm and save") if last else _("Confirm"),
                    self.confirm,
                    role="primary",
                    name="deck-confirm",
                )
            )
        return row

    def back(self) -> None:
        self._teacher().back()
        self.refresh()

    def skip(self) -> None:
        t = self._teacher()
        t.skip()
        if t.done:
            self.save()
        self.refresh()

    def confirm(self) -> None:
        t = self._teacher()
        t.confirm()
        if t.done:
            self.save()
        self.refresh()

    def save(self) -> None:
        t = self._teacher()
        if t.save():
            choose_deck(self.app.kiosk.store, t.name)
            apply_chosen_deck(self.app)
            self.teacher = None
            self.app.go("settings")

    def take(self) -> None:
        t = self._teacher()
        if t.busy:
            return
        t.retake()
        t.busy = True
        self.refresh()

        def work() -> None:
            t.take()
            Clock.schedule_once(lambda _dt: self.refresh(), 0)

        threading.Thread(target=work, name="tabletally-deck-photo", daemon=True).start()
