"""Thin Kivy widgets for the kiosk: theme, big buttons, card chips, the photo with boxes, the chart, and the
popups (card picker, hand typer, name keyboard). They hold no game logic; they call back into the screens."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kivy.core.text import DEFAULT_FONT, LabelBase
from kivy.core.window import Window
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from ui.i18n import _, num
from ui.logic.keyboard import BACKSPACE, DONE, SHIFT, SPACE, NameKeyboard
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
from ui.logic.tags import spread_tags

FONTS = Path(__file__).resolve().parent / "fonts"
REGULAR = FONTS / "TableTallySans-Regular.ttf"
BOLD = FONTS / "TableTallySans-Bold.ttf"

# Colours (RGBA 0-1). A dark card-table green with light text; high contrast for a room light.
BG = (0.06, 0.20, 0.14, 1)
PANEL = (0.10, 0.28, 0.20, 1)
TEXT = (0.97, 0.97, 0.95, 1)
MUTED = (0.72, 0.78, 0.74, 1)
PRIMARY = (0.95, 0.68, 0.12, 1)  # the one big action on a screen
PRIMARY_TEXT = (0.10, 0.08, 0.02, 1)
BUTTON = (0.20, 0.42, 0.32, 1)
SELECTED = (0.16, 0.55, 0.85, 1)
DANGER = (0.80, 0.25, 0.22, 1)
WARN = (1.00, 0.55, 0.10, 1)
GOOD = (0.35, 0.80, 0.45, 1)
CARD_BG = (0.98, 0.98, 0.96, 1)
GREY = (0.45, 0.48, 0.46, 1)
SERIES = [
    (0.95, 0.68, 0.12, 1),
    (0.35, 0.75, 0.95, 1),
    (0.95, 0.45, 0.55, 1),
    (0.55, 0.90, 0.45, 1),
    (0.80, 0.60, 0.95, 1),
]

TOUCH = 56  # px: every touch target is at least this tall (>= 48 asked)

_KV = """
<Label>:
    font_script_name: 'Deva'
"""


def setup_theme() -> None:
    """Make TableTally Sans (Latin + Devanagari + suits) the default font, shaped for Devanagari."""
    LabelBase.register(DEFAULT_FONT, str(REGULAR), fn_bold=str(BOLD))
    Builder.load_string(_KV)
    Window.clearcolor = BG


def landscape() -> bool:
    return bool(Window.width >= Window.height)


def font(size: str = "m") -> float:
    """Font sizes in px, scaled to the shorter side of the window (480 px on the 7-inch screen)."""
    base = min(Window.width, Window.height) / 480.0
    px = {"xs": 17, "s": 20, "m": 24, "l": 30, "xl": 40, "xxl": 56}[size]
    return max(14.0, px * min(float(base), 1.2))


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
        }.get(self.role, BUTTON)
        self.background_color = colour
        self.color = PRIMARY_TEXT if self.role in ("primary", "warn") else TEXT
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
    A card in doubt is marked by shape as well as colour: a dashed orange outline and a "?" badge; a card
    the packs cannot hold that often has a red outline."""

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
            color=(0.80, 0.10, 0.12, 1) if red else (0.05, 0.05, 0.05, 1),
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
            if self.flagged:
                Color(*DANGER)
                Line(rectangle=(x, y, w, h), width=dp(2.5))
            elif self.uncertain:
                Color(*WARN)
                for seg in dashed_rectangle(x, y, w, h, dp(6)):
                    Line(points=seg, width=dp(2.5))
            elif self._outline is not None:
                Color(*self._outline)
                Line(rectangle=(x, y, w, h), width=dp(2))
        if self.uncertain:  # the "?" badge in the top right corner, a dark "?" on an orange disc
            if self._badge is None:
                self._badge = Label(text="?", bold=True, color=PRIMARY_TEXT, size_hint=(None, None))
                self.add_widget(self._badge)
            r = min(dp(11), h / 4)
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


def flow_layout(**kw: Any) -> Any:
    from kivy.uix.stacklayout import StackLayout

    layout = StackLayout(orientation="lr-tb", spacing=dp(6), size_hint_y=None, **kw)
    layout.bind(minimum_height=layout.setter("height"))
    return layout


# -- the photo with boxes --------------------------------------------------------------------------------


def texture_from_bgr(image: Any) -> Texture:
    """A BGR photo as a texture: uploaded as it is (the GPU swaps the channels, or Kivy where it cannot)
    and flipped by the texture's coordinates (GL's origin is bottom-left), so no copy is made of it."""
    import numpy as np

    h, w = image.shape[:2]
    tex = Texture.create(size=(w, h), colorfmt="rgb")
    tex.blit_buffer(np.ascontiguousarray(image).data.cast("B"), colorfmt="bgr", bufferfmt="ubyte")
    tex.flip_vertical()
    return tex


def load_photo(path: str | None, max_side: int = 1280) -> Any:
    """A saved scan photo as a BGR array (downscaled for display), or None."""
    if not path or not Path(path).is_file():
        return None
    import cv2

    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        return None
    from ui.logic.scan import fit_for_display

    return fit_for_display(image, max_side)


class PhotoView(Widget):
    """A scan photo fitted into the widget, with every card boxed and labelled. Tapping a box calls
    ``on_box(key)``; ``boxes`` holds (key, box in photo pixels, label, state) with state one of
    "ok", "uncertain", "fixed", "flagged". ``groups`` holds (label, x, y) tags in photo pixels."""

    boxes = ListProperty([])
    groups = ListProperty([])
    photo_size = ListProperty([0, 0])
    on_box = ObjectProperty(None, allownone=True)
    message = StringProperty("")
    on_photo = ObjectProperty(None, allownone=True)  # a tap on the photo outside every box
    show_labels = BooleanProperty(True)
    banner = StringProperty("")  # a note over the bottom of the photo (what the players should do next)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._texture: Texture | None = None
        self._labels: list[Label] = []
        self.bind(
            pos=self.redraw,
            size=self.redraw,
            boxes=self.redraw,
            groups=self.redraw,
            message=self.redraw,
            banner=self.redraw,
        )

    def set_image(self, image: Any, width: int, height: int) -> None:
        """Show a photo (a BGR array, or a ready Texture) whose original size is ``width`` x ``height``
        (the boxes are in those pixels, the shown image may be smaller)."""
        if image is None or isinstance(image, Texture):
            self._texture = image
        else:
            self._texture = texture_from_bgr(image)
        self.photo_size = [width, height]
        self.redraw()

    def _fit(self) -> tuple[float, float, float]:
        w, h = self.photo_size
        if not w or not h:
            return 1.0, self.x, self.y
        scale = min(self.width / w, self.height / h)
        ox = self.x + (self.width - w * scale) / 2
        oy = self.y + (self.height - h * scale) / 2
        return scale, ox, oy

    def to_screen(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        scale, ox, oy = self._fit()
        h = self.photo_size[1]
        x1, y1, x2, y2 = box
        return ox + x1 * scale, oy + (h - y2) * scale, (x2 - x1) * scale, (y2 - y1) * scale

    def redraw(self, *_: Any) -> None:
        for lbl in self._labels:
            self.remove_widget(lbl)
        self._labels = []
        self.canvas.clear()
        with self.canvas:
            Color(0, 0, 0, 1)
            Rectangle(pos=self.pos, size=self.size)
            scale, ox, oy = self._fit()
            w, h = self.photo_size
            if self._texture is not None and w and h:
                Color(1, 1, 1, 1)
                Rectangle(texture=self._texture, pos=(ox, oy), size=(w * scale, h * scale))
            for entry in self.boxes:
                _key, box, _label, state = entry[:4]
                colour = self._box_colour(entry)
                x, y, bw, bh = self.to_screen(box)
                Color(*colour)
                if state == "uncertain":  # in doubt: dashed, as well as orange
                    for seg in dashed_rectangle(x, y, bw, bh, dp(5)):
                        Line(points=seg, width=dp(2.5))
                else:
                    Line(rectangle=(x, y, bw, bh), width=dp(2.5 if state != "ok" else 2))
        for entry in self.boxes if self.show_labels else ():
            _key, box, label, state = entry[:4]
            x, y, bw, bh = self.to_screen(box)
            colour = self._box_colour(entry)
            if state == "uncertain":
                label = "? " + label
            tag = Label(
                text=label,
                font_size=font("s"),
                bold=True,
                color=(0, 0, 0, 1),
                size_hint=(None, None),
                size=(max(dp(34), font("s") * (len(label) * 0.6 + 0.8)), font("s") * 1.3),
                pos=(x, y + bh),
            )
            with tag.canvas.before:
                Color(*colour)
                Rectangle(pos=tag.pos, size=tag.size)
            self.add_widget(tag)
            self._labels.append(tag)
        wanted = []
        for text, gx, gy in self.groups:
            x, y = self.to_screen((gx, gy, gx, gy))[:2]
            tw, th = font("m") * (len(text) * 0.62 + 1.2), font("m") * 1.6
            wanted.append((x - tw / 2, y, tw, th))
        spread = spread_tags(wanted, (self.x, self.y, self.width, self.height), gap=dp(2))
        for (text, _gx, _gy), (x, y, tw, th) in zip(self.groups, spread, strict=True):
            tag = Label(
                text=text,
                font_size=font("m"),
                bold=True,
                color=TEXT,
                size_hint=(None, None),
                size=(tw, th),
                pos=(x, y),
            )
            with tag.canvas.before:
                Color(0.1, 0.1, 0.1, 0.75)
                Rectangle(pos=tag.pos, size=tag.size)
            self.add_widget(tag)
            self._labels.append(tag)
        if self.message:
            tag = Label(
                text=self.message,
                font_size=font("s"),
                color=TEXT,
                halign="center",
                valign="middle",
                size_hint=(None, None),
                size=self.size,
                pos=self.pos,
            )
            tag.text_size = (self.width - dp(20), None)
            self.add_widget(tag)
            self._labels.append(tag)
        if self.banner:
            tag = Label(
                text=self.banner,
                font_size=font("xs"),
                color=WARN,
                halign="center",
                valign="middle",
                size_hint=(None, None),
                pos=self.pos,
            )
            tag.text_size = (self.width - dp(12), None)
            tag.texture_update()
            tag.size = (self.width, tag.texture_size[1] + dp(8))
            with tag.canvas.before:
                Color(0, 0, 0, 0.75)
                Rectangle(pos=tag.pos, size=tag.size)
            self.add_widget(tag)
            self._labels.append(tag)

    @staticmethod
    def _box_colour(entry: Sequence[Any]) -> Sequence[float]:
        """A box's colour: orange in doubt, red over the packs, else its holder's colour (or green)."""
        state = entry[3]
        if state in ("uncertain", "flagged"):
            return WARN if state == "uncertain" else DANGER
        if len(entry) > 4 and entry[4] is not None:
            return tuple(entry[4])
        return SELECTED if state == "fixed" else GOOD

    def on_touch_down(self, touch: Any) -> bool:
        if self.on_photo is not None and self.collide_point(*touch.pos) and self.boxes_hit(touch) is None:
            self.on_photo()
            return True
        if not self.collide_point(*touch.pos) or self.on_box is None:
            return bool(super().on_touch_down(touch))
        best = self.boxes_hit(touch)
        if best is not None:
            self.on_box(best)
            return True
        return bool(super().on_touch_down(touch))

    def boxes_hit(self, touch: Any) -> Any:
        """The key of the box under the touch (with a finger-sized margin round small boxes), or None."""
        if self.on_box is None:
            return None
        best = None
        for entry in self.boxes:
            key, box = entry[0], entry[1]
            x, y, bw, bh = self.to_screen(box)
            pad = max(0.0, (TOUCH - min(bw, bh)) / 2)  # small boxes still get a finger-sized target
            if x - pad <= touch.x <= x + bw + pad and y - pad <= touch.y <= y + bh + pad + font("s") * 1.3:
                best = key
                break
        return best


# -- the chart ----------------------------------------------------------------------------------------


class Chart(Widget):
    """Totals round by round: one line per player (or team), with an optional limit line."""

    series = ObjectProperty({})
    limit = NumericProperty(0)
    x_unit = StringProperty("round")  # what one step along the bottom is: "round" (Jhyap) or "deal" (Seep)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._labels: list[Label] = []
        self.bind(pos=self.redraw, size=self.redraw, series=self.redraw, limit=self.redraw)

    def redraw(self, *_args: Any) -> None:
        for lbl in self._labels:
            self.remove_widget(lbl)
        self._labels = []
        self.canvas.clear()
        series: dict[str, list[int]] = dict(self.series)
        if not series:
            return
        n = max(len(v) for v in series.values())
        top = max([self.limit] + [max(v) for v in series.values() if v] + [1])
        marks = [0, self.limit] if self.limit else [0, top]
        # Room on the left for the widest number, below for the axis word (both a line of small text high).
        line = font("xs") * 1.5
        pad_l = max(dp(30), max(len(num(v)) for v in marks) * font("xs") * 0.62 + dp(10))
        pad_b, pad_t = line + dp(4), line / 2
        x0, y0 = self.x + pad_l, self.y + pad_b
        w, h = max(1.0, self.width - pad_l - dp(8)), max(1.0, self.height - pad_b - pad_t)

        def pt(i: int, v: float) -> tuple[float, float]:
            return x0 + (i / max(1, n - 1)) * w, y0 + (v / top) * h

        with self.canvas:
            Color(*PANEL)
            Rectangle(pos=self.pos, size=self.size)
            Color(*MUTED)
            Line(points=[x0, y0, x0 + w, y0], width=1)
            Line(points=[x0, y0, x0, y0 + h], width=1)
            if self.limit:
                Color(*DANGER)
                Line(
                    points=[x0, pt(0, self.limit)[1], x0 + w, pt(0, self.limit)[1]],
                    width=1.2,
                    dash_length=6,
                    dash_offset=4,
                )
            for i, (_name, values) in enumerate(series.items()):
                Color(*SERIES[i % len(SERIES)])
                pts: list[float] = []
                for j, v in enumerate(values):
                    pts += pt(j, v)
                if len(pts) >= 4:
                    Line(points=pts, width=dp(2))
                else:
                    Line(circle=(pts[0], pts[1], dp(3)), width=dp(2))
        for value in marks:
            lbl = Label(
                text=num(value),
                font_size=font("xs"),
                color=MUTED,
                size_hint=(None, None),
                size=(pad_l - dp(4), line),
                pos=(self.x, pt(0, value)[1] - line / 2),
                halign="right",
            )
            lbl.text_size = lbl.size
            self.add_widget(lbl)
            self._labels.append(lbl)
        lbl = Label(
            text=(_("deal {n}") if self.x_unit == "deal" else _("round {n}")).format(n=num(n - 1))
            if n > 1
            else "",
            font_size=font("xs"),
            color=MUTED,
            size_hint=(None, None),
            size=(dp(120), line),
            pos=(x0 + w - dp(120), self.y + dp(2)),
            halign="right",
        )
        lbl.text_size = lbl.size
        self.add_widget(lbl)
        self._labels.append(lbl)


# -- popups -------------------------------------------------------------------------------------------


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
        """Highlight the chosen rank and suit; unchosen red suits are drawn red."""
        for r, b in self.rank_buttons.items():
            b.role = "selected" if r == rank else "normal"
        for st, b in self.suit_buttons.items():
            b.role = "selected" if st == suit else "normal"
            b.color = (1, 0.45, 0.45, 1) if st in RED_SUITS and st != suit else TEXT


class CardPickerSheet(Sheet):
    """Tap-to-fix: 13 ranks x 4 suits + joker. Tapping a rank then a suit chooses the card at once.

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
        self.pad = CardPad(self._rank, lambda: self._done(JOKER), self._suit)
        self.pad.add_to(self.body)
        self.body.add_widget(Widget())
        bottom = hbox(size_hint_y=None, height=TOUCH)
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
        self.body.add_widget(bottom)
        self._mark()

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
