"""Cards on screen: the tappable card chip (outlined in its holder's colour, doubt marked by shape) and the
popups that choose cards (the card picker and the hand typer)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kivy.graphics import Color, Ellipse, Line
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from ui.design import (
    CARD_BG,
    CARD_RED,
    DANGER,
    DOUBT_MARK,
    MUTED,
    PRIMARY_TEXT,
    TOUCH,
    WARN,
    font,
    landscape,
)
from ui.i18n import _
from ui.logic.scan import (
    JOKER,
    PICKER_RANKS,
    PICKER_SUITS,
    RED_SUITS,
    SUIT_SIGNS,
    CardPicker,
    HandCard,
    card_label,
)
from ui.widgets.basic import AutoLbl, Btn, Lbl, Sheet, flow_layout, hbox


def dashed_rectangle(x: float, y: float, w: float, h: float, dash: float) -> list[list[float]]:
    """The segments of a dashed rectangle's outline (Kivy draws dashes only one pixel wide)."""
    out: list[list[float]] = []
    for x0, y0, x1, y1 in (
        (x, y, x + w, y),
        (x + w, y, x + w, y + h),
        (x + w, y + h, x, y + h),
        (x, y + h, x, y),
    ):
        length = max(abs(x1 - x0), abs(y1 - y0))
        steps = max(1, int(length // (2 * dash)))
        for k in range(steps):
            a, b = (2 * k) / (2 * steps), (2 * k + 1) / (2 * steps)
            out.append([x0 + (x1 - x0) * a, y0 + (y1 - y0) * a, x0 + (x1 - x0) * b, y0 + (y1 - y0) * b])
    return out


class CardChip(Button):
    """One card as a tappable chip: white like a card, red or black suit, outlined in its holder's colour.
    A card in doubt is marked by shape: a dashed outline and a "?" disc ``DOUBT_MARK`` px across; a card
    the packs cannot hold that often has a red inner outline."""

    name = StringProperty("")
    uncertain = BooleanProperty(False)
    flagged = BooleanProperty(False)

    def __init__(
        self,
        card: HandCard,
        on_tap: Callable[[], None] | None = None,
        outline: Sequence[float] | None = None,
        **kw: Any,
    ) -> None:
        self._outline = tuple(outline) if outline is not None else None
        code = card.code
        red = code != JOKER and code[-1] in RED_SUITS
        kw.setdefault("size_hint", (None, None))
        kw.setdefault("height", TOUCH)
        kw.setdefault("width", max(TOUCH + dp(6), font("m") * (len(card_label(code)) * 0.62 + 1.2)))
        super().__init__(
            text=card_label(code),
            font_size=font("m"),
            bold=True,
            background_normal="",
            background_down="",
            background_color=CARD_BG,
            color=CARD_RED if red else PRIMARY_TEXT,
            **kw,
        )
        self.uncertain = card.needs_look
        self._badge: Label | None = None
        self.bind(
            pos=self._ring_redraw,
            size=self._ring_redraw,
            flagged=self._ring_redraw,
            uncertain=self._ring_redraw,
        )
        self._ring_redraw()
        if on_tap is not None:
            self.bind(on_release=lambda *_: on_tap())

    def _ring_redraw(self, *_: Any) -> None:
        self.canvas.after.clear()
        x, y, w, h = self.x + 2, self.y + 2, self.width - 4, self.height - 4
        with self.canvas.after:
            # Always the holder's colour; doubt is a dashed line and a "?" disc, too many a red inner line.
            Color(*(self._outline or WARN))
            if self.uncertain:
                for seg in dashed_rectangle(x, y, w, h, dp(6)):
                    Line(points=seg, width=dp(2.5))
            else:
                Line(rectangle=(x, y, w, h), width=dp(2))
            if self.flagged:
                Color(*DANGER)
                Line(rectangle=(x + dp(4), y + dp(4), w - dp(8), h - dp(8)), width=dp(2))
        if self.uncertain:  # the "?" badge in the top right corner, a dark "?" on an orange disc
            if self._badge is None:
                self._badge = Label(text="?", bold=True, color=PRIMARY_TEXT, size_hint=(None, None))
                self._badge.bg_colour = WARN
                self.add_widget(self._badge)
            r = DOUBT_MARK / 2  # the doubt mark is DOUBT_MARK px across, whatever the chip's size
            badge = self._badge
            badge.font_size = 1.6 * r
            badge.size = (2 * r, 2 * r)
            badge.text_size = badge.size
            badge.halign = badge.valign = "center"
            badge.pos = (self.right - 2 * r - 1, self.top - 2 * r - 1)
            badge.canvas.before.clear()
            with badge.canvas.before:
                Color(*WARN)
                Ellipse(pos=badge.pos, size=badge.size)
        elif self._badge is not None:
            self.remove_widget(self._badge)
            self._badge = None


def suit_text(suit: str) -> str:
    return SUIT_SIGNS[suit]


class CardPad:
    """The rank grid (13 ranks and the joker) and the suit row of the card picker and the hand typer.

    ``on_rank(rank)``, ``on_joker()`` and ``on_suit(suit)`` are called on taps; ``mark`` shows the
    chosen rank and suit. Buttons are named ``rank-K``, ``rank-JK``, ``suit-H`` for tests and the demo."""

    def __init__(
        self, on_rank: Callable[[str], None], on_joker: Callable[[], None], on_suit: Callable[[str], None]
    ) -> None:
        self.ranks = GridLayout(cols=7 if landscape() else 5, spacing=dp(5), size_hint_y=None)
        self.ranks.bind(minimum_height=self.ranks.setter("height"))
        self.rank_buttons: dict[str, Btn] = {}
        for rank in PICKER_RANKS:
            b = Btn(rank, lambda r=rank: on_rank(r), name=f"rank-{rank}", font_size=font("l"))
            self.rank_buttons[rank] = b
            self.ranks.add_widget(b)
        self.ranks.add_widget(Btn(_("Joker"), on_joker, name="rank-JK"))
        self.suits = hbox(size_hint_y=None, height=TOUCH + dp(8))
        self.suit_buttons: dict[str, Btn] = {}
        for suit in PICKER_SUITS:
            b = Btn(
                suit_text(suit),
                lambda s=suit: on_suit(s),
                name=f"suit-{suit}",
                font_size=font("xl"),
                height=TOUCH + dp(8),
            )
            self.suit_buttons[suit] = b
            self.suits.add_widget(b)
        self.mark(None, None)

    def add_to(self, body: Any) -> None:
        body.add_widget(self.ranks)
        body.add_widget(self.suits)

    def mark(self, rank: str | None, suit: str | None) -> None:
        """Highlight the chosen rank and suit; the others are on a card's white face, red suits in red."""
        for r, b in self.rank_buttons.items():
            b.role = "selected" if r == rank else "normal"
        for st, b in self.suit_buttons.items():
            b.role = "selected" if st == suit else "card"
            if st in RED_SUITS and st != suit:
                b.color = CARD_RED


class CardPickerSheet(Sheet):
    """Tap-to-fix: 13 ranks x 4 suits + joker. Tapping a rank then a suit chooses the card at once (the sheet
    says so); OK takes the card marked, or keeps the card as it was.

    ``on_pick(code)`` gets the chosen code; ``on_remove()`` (if given) offers a Remove button."""

    def __init__(
        self,
        title: str,
        current: HandCard | None,
        on_pick: Callable[[str], None],
        on_remove: Callable[[], None] | None = None,
        on_keep: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(title)
        self.picker = CardPicker()
        self.picker.start(current.code if current else None)
        self.on_pick = on_pick
        if current and current.alternatives:
            row = hbox(size_hint_y=None, height=TOUCH)
            row.add_widget(Lbl(_("Maybe:"), "m", size_hint_x=0.3))
            for alt in current.alternatives[:3]:
                row.add_widget(Btn(card_label(alt), lambda a=alt: self._done(a), name=f"alt-{alt}"))
            self.body.add_widget(row)
        self.body.add_widget(
            AutoLbl(_("Tap the rank, then the suit: the card changes at once."), "s", color=MUTED)
        )
        self.pad = CardPad(self._rank, lambda: self._done(JOKER), self._suit)
        self.pad.add_to(self.body)
        self.body.add_widget(Widget())
        bottom = hbox(size_hint_y=None, height=TOUCH)
        self.on_keep = on_keep
        self.current = current.code if current else None
        if on_keep is not None and current is not None:
            bottom.add_widget(
                Btn(
                    _("{card} is right").format(card=card_label(current.code)),
                    lambda: self._keep(on_keep),
                    name="keep",
                )
            )
        if on_remove is not None:
            bottom.add_widget(
                Btn(_("Remove card"), lambda: self._remove(on_remove), role="danger", name="remove")
            )
        bottom.add_widget(Btn(_("Cancel"), self.dismiss, role="quiet", name="cancel"))
        bottom.add_widget(Btn(_("OK"), self.ok, role="primary", name="ok"))
        self.body.add_widget(bottom)
        self._mark()

    def ok(self) -> None:
        """The card marked on the pad (a rank and a suit); the card as it was when none is chosen."""
        code = self.picker.code
        if code is not None and code != self.current:
            self._done(code)
        elif self.on_keep is not None and self.current is not None:
            self._keep(self.on_keep)
        else:
            self.dismiss()

    def _mark(self) -> None:
        self.pad.mark(self.picker.rank, self.picker.suit)

    def _rank(self, rank: str) -> None:
        self.picker.tap_rank(rank)
        self.picker.suit = None
        self._mark()

    def _suit(self, suit: str) -> None:
        code = self.picker.tap_suit(suit)
        self._mark()
        if code:
            self._done(code)

    def _done(self, code: str) -> None:
        self.dismiss()
        self.on_pick(code)

    def _remove(self, on_remove: Callable[[], None]) -> None:
        self.dismiss()
        on_remove()

    def _keep(self, on_keep: Callable[[], None]) -> None:
        self.dismiss()
        on_keep()


class HandTyperSheet(Sheet):
    """Type a whole hand without the camera: tap a rank then a suit for each card; tap a chip to drop it."""

    def __init__(self, title: str, codes: Sequence[str], on_done: Callable[[list[str]], None]) -> None:
        super().__init__(title)
        self.codes = list(codes)
        self.on_done = on_done
        self.picker = CardPicker()
        self.chips = flow_layout()
        self.body.add_widget(self.chips)
        self.pad = CardPad(self._rank, lambda: self._add(JOKER), self._suit)
        self.pad.add_to(self.body)
        self.body.add_widget(Widget())
        bottom = hbox(size_hint_y=None, height=TOUCH)
        bottom.add_widget(Btn(_("Clear"), self._clear, role="quiet", name="clear"))
        bottom.add_widget(Btn(_("Cancel"), self.dismiss, role="quiet", name="cancel"))
        bottom.add_widget(Btn(_("Done"), self._finish, role="primary", name="done"))
        self.body.add_widget(bottom)
        self._refresh()

    def _refresh(self) -> None:
        self.chips.clear_widgets()
        if not self.codes:
            self.chips.add_widget(
                Lbl(_("Tap a rank, then a suit."), "m", size_hint=(1, None), height=TOUCH, color=MUTED)
            )
        for i, code in enumerate(self.codes):
            self.chips.add_widget(CardChip(HandCard(code), lambda i=i: self._drop(i), name=f"chip-{i}"))
        self.pad.mark(self.picker.rank, self.picker.suit)

    def _rank(self, rank: str) -> None:
        self.picker.tap_rank(rank)
        self._refresh()

    def _suit(self, suit: str) -> None:
        if self.picker.rank is None:
            return
        code = self.picker.tap_suit(suit)
        if code:
            self._add(code)

    def _add(self, code: str) -> None:
        self.codes.append(code)
        self.picker.rank = self.picker.suit = None
        self._refresh()

    def _drop(self, index: int) -> None:
        del self.codes[index]
        self._refresh()

    def _clear(self) -> None:
        self.codes = []
        self._refresh()

    def _finish(self) -> None:
        self.dismiss()
        self.on_done(list(self.codes))
