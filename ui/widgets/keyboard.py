"""The on-screen name keyboard (Latin or Devanagari) in a sheet."""

from __future__ import annotations

from collections.abc import Callable

from kivy.graphics import Color, Rectangle
from kivy.metrics import dp

from ui.design import (
    MUTED,
    PANEL,
    TEXT,
    TOUCH,
    font,
)
from ui.i18n import _
from ui.logic.keyboard import BACKSPACE, DONE, SHIFT, SPACE, NameKeyboard
from ui.widgets.basic import Btn, Lbl, Sheet, hbox, vbox


class NameKeyboardSheet(Sheet):
    """The on-screen keyboard for a player name (Latin or Devanagari)."""

    def __init__(self, title: str, on_done: Callable[[str], None]) -> None:
        super().__init__(title)
        self.body.remove_widget(self.title_label)  # the typed name is the title: every row for the keys
        self.kb = NameKeyboard()
        self.on_done = on_done
        self.display = Lbl(
            "", "xl", halign="center", size_hint_y=None, height=max(TOUCH, font("xl") * 1.5), bold=True
        )
        self._hint = title
        self._show()
        with self.display.canvas.before:
            Color(*PANEL)
            self._disp_rect = Rectangle(pos=self.display.pos, size=self.display.size)
        self.display.bind(
            pos=lambda *_: setattr(self._disp_rect, "pos", self.display.pos),
            size=lambda *_: setattr(self._disp_rect, "size", self.display.size),
        )
        self.body.add_widget(self.display)
        self.keys = vbox(spacing=dp(4))
        self.body.add_widget(self.keys)
        self._build()

    def _build(self) -> None:
        self.keys.clear_widgets()
        for row in self.kb.rows():
            line = hbox(spacing=dp(4))
            for key in row:
                label = {SPACE: _("space"), DONE: _("Add"), BACKSPACE: BACKSPACE, SHIFT: "Aa"}.get(key, key)
                role = "primary" if key == DONE else ("quiet" if len(key) > 1 and key != SPACE else "normal")
                b = Btn(
                    label,
                    lambda k=key: self._press(k),
                    role=role,
                    name=f"key-{key}",
                    size_hint_y=1,
                    font_size=font("l"),
                )
                if key == SPACE:
                    b.size_hint_x = 3
                elif key == DONE:
                    b.size_hint_x = 1.6
                line.add_widget(b)
            if key == DONE:  # the bottom row: script switch, space, cancel, add
                cancel = Btn(
                    _("Cancel"),
                    self.dismiss,
                    role="quiet",
                    name="key-cancel",
                    size_hint_y=1,
                    font_size=font("m"),
                )
                cancel.size_hint_x = 1.4
                line.add_widget(cancel, index=1)
            self.keys.add_widget(line)

    def _show(self) -> None:
        """The typed name, or the hint (greyed) while nothing is typed."""
        self.display.text = self.kb.text or self._hint
        self.display.color = TEXT if self.kb.text else MUTED

    def _press(self, key: str) -> None:
        before = (self.kb.script, self.kb.upper)
        self.kb.press(key)
        self._show()
        if self.kb.done:
            name = self.kb.text.strip()
            self.dismiss()
            if name:
                self.on_done(name)
            return
        if (self.kb.script, self.kb.upper) != before:
            self._build()
