"""The kiosk's plain widgets: labels, big flat buttons, panels, boxes, scrolling, a flowing row, a table of
words and the full-window sheet. They hold no game logic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.metrics import dp
from kivy.properties import ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView
from kivy.uix.stacklayout import StackLayout
from kivy.uix.widget import Widget

from ui.design import (
    BG,
    BUTTON,
    CARD_BG,
    DANGER,
    MUTED,
    PANEL,
    PRIMARY,
    PRIMARY_TEXT,
    SELECTED,
    TEXT,
    TOUCH,
    WARN,
    font,
    landscape,
)


class Lbl(Label):
    """A label that wraps inside its width and is left-aligned unless told otherwise."""

    def __init__(self, text: str = "", size_key: str = "m", halign: str = "left", **kw: Any) -> None:
        kw.setdefault("color", TEXT)
        kw.setdefault("font_size", font(size_key))
        kw.setdefault("valign", "middle")
        super().__init__(text=text, halign=halign, **kw)
        self.bind(size=self._wrap)

    def _wrap(self, *_: Any) -> None:
        self.text_size = (self.width, None if self.size_hint_y is None else self.height)


def into_new_texture(label: Label) -> None:
    """The label's next words are drawn into a new texture instead of the one on screen: writing into a
    texture the last frame used waits until that frame is done (GL drivers, software ones included, may
    wait for the display's next refresh), a wait that at a scan's tap the photo's reading would share.
    (Kivy keeps the texture on the label's core, ``_label``; a label without one is left as it is.)"""
    core = getattr(label, "_label", None)
    if core is not None:
        core.texture = None


class AutoLbl(Lbl):
    """A label whose height follows its text (for use in vertical box layouts)."""

    def __init__(self, text: str = "", size_key: str = "m", **kw: Any) -> None:
        super().__init__(text, size_key, size_hint_y=None, **kw)
        self.bind(texture_size=lambda *_: setattr(self, "height", max(self.texture_size[1] + dp(6), dp(20))))

    def _wrap(self, *_: Any) -> None:
        self.text_size = (self.width, None)


class Btn(Button):
    """A big, flat touch button. ``name`` lets the scripted demo find it."""

    name = StringProperty("")
    role = StringProperty("normal")

    def __init__(
        self, text: str = "", on_tap: Callable[[], None] | None = None, role: str = "normal", **kw: Any
    ):
        kw.setdefault("font_size", font("m"))
        kw.setdefault("size_hint_y", None)
        kw.setdefault("height", TOUCH)
        kw.setdefault("halign", "center")
        kw.setdefault("valign", "middle")
        super().__init__(text=text, background_normal="", background_down="", **kw)
        self.role = role
        self._apply_role()
        self.bind(role=lambda *_: self._apply_role(), size=self._wrap, disabled=lambda *_: self._apply_role())
        if on_tap is not None:
            self.bind(on_release=lambda *_: on_tap())

    def _wrap(self, *_: Any) -> None:
        self.text_size = (self.width - dp(8), None)

    def _apply_role(self) -> None:
        colour = {
            "primary": PRIMARY,
            "selected": SELECTED,
            "danger": DANGER,
            "quiet": PANEL,
            "warn": WARN,
            "card": CARD_BG,  # a card's white face (the suits in the card picker, in their own colours)
        }.get(self.role, BUTTON)
        self.background_color = colour
        self.color = PRIMARY_TEXT if self.role in ("primary", "warn", "card") else TEXT
        self.disabled_color = (0.8, 0.8, 0.8, 1)
        if self.disabled:
            self.background_color = (colour[0] * 0.5, colour[1] * 0.5, colour[2] * 0.5, 1)


class Panel(BoxLayout):
    """A box with a coloured background."""

    bg = ListProperty(list(PANEL))

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        with self.canvas.before:
            self._colour = Color(*self.bg)
            self._rect = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=self._redraw, size=self._redraw, bg=self._redraw)

    def _redraw(self, *_: Any) -> None:
        self._colour.rgba = self.bg
        self._rect.pos, self._rect.size = self.pos, self.size


def vbox(**kw: Any) -> BoxLayout:
    kw.setdefault("spacing", dp(6))
    return BoxLayout(orientation="vertical", **kw)


def hbox(**kw: Any) -> BoxLayout:
    kw.setdefault("spacing", dp(6))
    return BoxLayout(orientation="horizontal", **kw)


def split_body(first: Widget, second: Widget, sized: Widget, wide: float, tall: float) -> BoxLayout:
    """``first`` and ``second`` side by side on a landscape screen, one above the other on a portrait one;
    ``sized`` (one of the two) takes ``wide`` of the width, or ``tall`` of the height."""
    body = hbox(spacing=dp(8)) if landscape() else vbox(spacing=dp(8))
    if landscape():
        sized.size_hint_x = wide
    else:
        sized.size_hint_y = tall
    body.add_widget(first)
    body.add_widget(second)
    return body


def scroller(content: Widget) -> ScrollView:
    """Wrap a vertical layout (size_hint_y=None) so it scrolls by dragging."""
    sv = ScrollView(do_scroll_x=False, bar_width=dp(8), scroll_type=["bars", "content"])
    content.size_hint_y = None
    content.bind(minimum_height=content.setter("height"))
    sv.add_widget(content)
    return sv


def flow_layout(**kw: Any) -> Any:

    layout = StackLayout(orientation="lr-tb", spacing=dp(6), size_hint_y=None, **kw)
    layout.bind(minimum_height=layout.setter("height"))
    return layout


def table(
    rows: list[list[str]],
    widths: list[float],
    greyed: set[int] | None = None,
    bold_col: int = -1,
    size: str = "m",
) -> Any:
    """A table of words: a small muted header row, then rows in type ``size``."""
    grid = GridLayout(cols=len(widths), size_hint_y=None, spacing=(dp(10), dp(2)), padding=(0, 0, dp(12), 0))
    grid.bind(minimum_height=grid.setter("height"))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            colour = MUTED if r == 0 or (greyed and r in greyed) else TEXT
            lbl = Lbl(
                text,
                "s" if r == 0 else size,
                halign="left" if c == 0 or (c == len(row) - 1 and not rows[0][c]) else "right",
                size_hint_x=widths[c],
                size_hint_y=None,
                height=font("s") * 1.5 if r == 0 else font(size) * 1.5,
                color=colour,
                bold=(c == bold_col and r > 0),
                shorten=True,
            )
            grid.add_widget(lbl)
    return grid


class Sheet(ModalView):
    """A full-window modal sheet (no small popups: everything stays big and touchable)."""

    def __init__(self, title: str, **kw: Any) -> None:
        super().__init__(
            size_hint=(0.98, 0.98), auto_dismiss=False, background="", background_color=(0, 0, 0, 0.7), **kw
        )
        self.body = Panel(orientation="vertical", padding=dp(8), spacing=dp(6), bg=list(BG))
        self.title_label = AutoLbl(title, "l", bold=True)
        self.body.add_widget(self.title_label)
        self.add_widget(self.body)

    def dismiss(self, *args: Any, **kw: Any) -> None:
        kw.setdefault("animation", False)  # gone at once: a second tap must not land on a fading sheet
        super().dismiss(*args, **kw)
