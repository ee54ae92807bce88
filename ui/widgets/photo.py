"""The scan photo on screen: textures from BGR photos, a saved photo loaded for display, and the photo view
with every card boxed and labelled."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from ui.design import DANGER, DOUBT_MARK, GOOD, PRIMARY_TEXT, SELECTED, TEXT, TOUCH, WARN, font
from ui.logic.scan import fit_for_display
from ui.logic.tags import spread_tags
from ui.widgets.cards import dashed_rectangle


def texture_from_bgr(image: Any) -> Texture:
    """A BGR photo as a texture: uploaded as it is (the GPU swaps the channels, or Kivy where it cannot)
    and flipped by the texture's coordinates (GL's origin is bottom-left), so no copy is made of it."""

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
            doubts = []
            for entry in self.boxes:
                _key, box, _label, state = entry[:4]
                colour = self._box_colour(entry)
                x, y, bw, bh = self.to_screen(box)
                Color(*colour)
                if state == "uncertain":  # in doubt: dashed, and a "?" disc (below)
                    for seg in dashed_rectangle(x, y, bw, bh, dp(5)):
                        Line(points=seg, width=dp(2.5))
                    doubts.append((x + bw, y + bh))
                else:
                    Line(rectangle=(x, y, bw, bh), width=dp(2.5 if state != "ok" else 2))
                if state == "flagged":  # one the packs cannot hold: a red line outside the holder's colour
                    Color(*DANGER)
                    Line(rectangle=(x - dp(3), y - dp(3), bw + dp(6), bh + dp(6)), width=dp(1.5))
        for cx, cy in doubts:
            r = DOUBT_MARK / 2
            mark = Label(
                text="?",
                bold=True,
                font_size=DOUBT_MARK * 0.8,
                color=PRIMARY_TEXT,
                size_hint=(None, None),
                size=(2 * r, 2 * r),
                pos=(min(cx - r, self.right - 2 * r), min(cy - r, self.top - 2 * r)),
            )
            mark.text_size = mark.size
            mark.bg_colour = WARN
            mark.halign = mark.valign = "center"
            with mark.canvas.before:
                Color(*WARN)
                Ellipse(pos=mark.pos, size=mark.size)
            self.add_widget(mark)
            self._labels.append(mark)
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
            tag.bg_colour = colour  # what the words are drawn on (the demo's contrast check)
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
            tag.bg_colour = (0.1, 0.1, 0.1, 1)
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
            tag.bg_colour = (0, 0, 0, 1)
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
            tag.bg_colour = (0, 0, 0, 1)
            with tag.canvas.before:
                Color(0, 0, 0, 0.75)
                Rectangle(pos=tag.pos, size=tag.size)
            self.add_widget(tag)
            self._labels.append(tag)

    @staticmethod
    def _box_colour(entry: Sequence[Any]) -> Sequence[float]:
        """A box's colour: its holder's (read, typed or moved alike; doubt is shown by shape), else green."""
        if len(entry) > 4 and entry[4] is not None:
            return tuple(entry[4])
        state = entry[3]
        if state in ("uncertain", "flagged"):
            return WARN if state == "uncertain" else DANGER
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
