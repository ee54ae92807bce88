"""Where everyone sits, as the camera sees the table: a layout, or a tap per player on the photo."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.metrics import dp
from kivy.uix.widget import Widget

from ui.design import MUTED, PANEL, TEXT, TOUCH, WARN, font, holder_colour
from ui.i18n import _
from ui.logic.kiosk import KioskError
from ui.screens.base import Base
from ui.widgets.basic import AutoLbl, Btn, Lbl, hbox, split_body, vbox
from ui.widgets.photo import PhotoView
from vision.table.seats import SIDES, from_taps, layout


class SeatView(Widget):
    """The table as the camera sees it (the last photo, or a plain table), with a numbered, coloured dot
    per seat. In tap mode each tap places the next seat."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.photo = PhotoView()
        self.add_widget(self.photo)
        self.seats: list[tuple[float, float]] = []
        self.names: list[str] = []
        self.on_tap: Callable[[float, float], None] | None = None
        self.shape = "round"
        self._tags: list[Widget] = []
        self.bind(pos=self.redraw, size=self.redraw)

    def show(
        self,
        texture: Any,
        width: int,
        height: int,
        seats: Sequence[tuple[float, float]],
        names: Sequence[str],
    ) -> None:
        self.photo.set_image(texture, width, height)
        if texture is None:
            self.photo.message = ""
        self.seats, self.names = list(seats), list(names)
        self.redraw()

    def redraw(self, *_: Any) -> None:
        self.photo.pos, self.photo.size = self.pos, self.size
        for t in self._tags:
            self.remove_widget(t)
        self._tags = []
        self.canvas.after.clear()
        scale, ox, oy = self.photo._fit()
        w, h = self.photo.photo_size
        r = dp(14)
        with self.canvas.after:
            if self.photo._texture is None:
                Color(*PANEL)
                table = Ellipse if self.shape == "round" else Rectangle
                table(
                    pos=(ox + w * scale * 0.2, oy + h * scale * 0.2), size=(w * scale * 0.6, h * scale * 0.6)
                )
            for i, (sx, sy) in enumerate(self.seats):
                x, y = ox + sx * w * scale, oy + (1 - sy) * h * scale
                Color(*holder_colour(i))
                Ellipse(pos=(x - r, y - r), size=(2 * r, 2 * r))
                Color(0, 0, 0, 1)
                Line(circle=(x, y, r), width=dp(1.5))
        for i, (sx, sy) in enumerate(self.seats):
            name = self.names[i] if i < len(self.names) else str(i + 1)
            x, y = ox + sx * w * scale, oy + (1 - sy) * h * scale
            tag = Lbl(name, "s", bold=True, color=holder_colour(i), halign="center", size_hint=(None, None))
            tag.texture_update()
            tag.size = (tag.texture_size[0] + dp(10), font("s") * 1.5)
            tag.pos = (
                min(max(self.x, x - tag.width / 2), self.right - tag.width),
                y + r if y + r + tag.height < self.top else y - r - tag.height,
            )
            with tag.canvas.before:
                Color(0, 0, 0, 0.7)
                Rectangle(pos=tag.pos, size=tag.size)
            self.add_widget(tag)
            self._tags.append(tag)

    def on_touch_down(self, touch: Any) -> bool:
        if self.on_tap is None or not self.collide_point(*touch.pos):
            return bool(super().on_touch_down(touch))
        scale, ox, oy = self.photo._fit()
        w, h = self.photo.photo_size
        if not w or not h:
            return True
        fx, fy = (touch.x - ox) / (w * scale), 1 - (touch.y - oy) / (h * scale)
        if 0 <= fx <= 1 and 0 <= fy <= 1:
            self.on_tap(fx, fy)
        return True


class SeatsScreen(Base):
    """Where everyone sits, as the camera sees it: choose a layout (round or square table, the kiosk's side)
    or tap each player's seat on the photo. Kept for the night; the round screen's "Seats" redoes it."""

    shape = "round"
    side = "bottom"
    taps: list[tuple[float, float]] | None = None  # the seats tapped so far, in tap mode
    live: tuple[Any, int, int] | None = None  # a photo taken on this screen (texture, width, height)
    note = ""

    def start(self) -> None:
        self.shape, self.side, self.taps, self.live, self.note = "round", "bottom", None, None, ""

    def build(self, root: Any) -> None:
        players = list(self.kiosk.log["players"])
        bar = self.top_bar(_("Where does everyone sit?"), back=(_("Back"), self.back))
        root.add_widget(bar)
        view = SeatView()
        texture, width, height = self._photo()
        if self.taps is not None:
            seats = list(self.taps)
            view.on_tap = self.tap
        else:
            seats = list(layout(len(players), self.shape, self.side).seats)
        view.shape = self.shape
        view.show(texture, width, height, seats, players)
        side = vbox(spacing=dp(6))
        if self.taps is not None:
            k = len(self.taps)
            hint = (
                _("Tap where {name} sits.").format(name=players[k])
                if k < len(players)
                else _("All seats tapped.")
            )
            side.add_widget(
                AutoLbl(hint, "m", bold=True, color=holder_colour(k) if k < len(players) else TEXT)
            )
            if self.note:
                side.add_widget(AutoLbl(self.note, "s", color=WARN))
            side.add_widget(Btn(_("Take a photo"), self.take_photo, name="seats-photo"))
            side.add_widget(Btn(_("Start over"), self.tap_mode, name="seats-again", role="quiet"))
            side.add_widget(Btn(_("Use a layout"), self.layout_mode, name="seats-layout", role="quiet"))
        else:
            side.add_widget(
                AutoLbl(
                    _("Seated clockwise as the camera sees the table, in the game's order."), "s", color=MUTED
                )
            )
            shapes = hbox(size_hint_y=None, height=TOUCH)
            for shape, text in (("round", _("Round table")), ("square", _("Square table"))):
                shapes.add_widget(
                    Btn(
                        text,
                        lambda s=shape: self.set_shape(s),
                        role="selected" if self.shape == shape else "normal",
                        name=f"seats-{shape}",
                        font_size=font("s"),
                    )
                )
            side.add_widget(shapes)
            words = {
                "bottom": _("Kiosk: near side"),
                "left": _("Kiosk: left side"),
                "top": _("Kiosk: far side"),
                "right": _("Kiosk: right side"),
            }
            side.add_widget(Btn(words[self.side], self.turn, name="seats-turn", font_size=font("s")))
            side.add_widget(
                Btn(_("Tap the seats on the photo"), self.tap_mode, name="seats-tap", font_size=font("s"))
            )
        side.add_widget(Widget())
        done = Btn(_("These are the seats"), self.done, role="primary", name="seats-done")
        done.disabled = self.taps is not None and len(self.taps) < len(players)
        side.add_widget(done)
        root.add_widget(split_body(view, side, sized=side, wide=0.42, tall=0.45))

    def take_photo(self) -> None:
        """A photo of the table now (players sitting round it) to tap the seats on."""
        from ui.widgets.photo import texture_from_bgr

        def done(result: Any) -> None:
            if result.camera_failed or result.image is None:
                self.note = result.error or _("The camera gave no photo.")
            else:
                self.live = (texture_from_bgr(result.image), int(result.width), int(result.height))
                self.note = ""
            self.refresh()

        self.note = _("Taking the photo...")
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.app.scanner.scan("seats", done, 1, None)
        self.refresh()

    def _photo(self) -> tuple[Any, int, int]:
        """A photo taken here, else the last scan photo of this game (the table as the camera sees it), else
        a plain table."""
        if self.live is not None:
            return self.live
        flow = self.kiosk.flow
        meta = getattr(flow, "table_scan", None) if flow is not None else None
        if meta and meta.get("photo"):
            return self.app.photo_cache(meta["photo"]), int(meta["width"]), int(meta["height"])
        return None, 4, 3

    def set_shape(self, shape: str) -> None:
        self.shape = shape
        self.refresh()

    def turn(self) -> None:
        self.side = SIDES[(SIDES.index(self.side) + 1) % len(SIDES)]
        self.refresh()

    def tap_mode(self) -> None:
        self.taps = []
        self.refresh()

    def layout_mode(self) -> None:
        self.taps = None
        self.refresh()

    def tap(self, x: float, y: float) -> None:
        assert self.taps is not None
        if len(self.taps) < len(self.kiosk.log["players"]):
            self.taps.append((x, y))
        self.refresh()

    def done(self) -> None:
        players = self.kiosk.log["players"]
        try:
            seats = (
                from_taps(self.taps) if self.taps is not None else layout(len(players), self.shape, self.side)
            )
            self.kiosk.set_seats(seats)
        except (ValueError, KioskError) as exc:
            self.app.confirm_sheet(str(exc), _("Start over"), self.tap_mode)
            return
        self.app.go("round")

    def back(self) -> None:
        if self.kiosk.seats_needed:
            self.app.go_home()
        else:
            self.app.go("round")
