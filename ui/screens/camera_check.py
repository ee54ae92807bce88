"""The camera check screen: thin Kivy over :mod:`ui.logic.camera_check`.

The live view of the kiosk's camera (refreshed while the screen is shown) with the table's outline and a
numbered dot per seat; the players lay one card at each seat and tap Check; the photo read then shows each
card boxed in its seat's colour, a line per seat and what to do.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.graphics import Color, Ellipse, Line
from kivy.metrics import dp
from kivy.uix.label import Label

from ui.design import GOOD, MUTED, TEXT, TOUCH, WARN, font, holder_colour
from ui.i18n import _, ngettext, num
from ui.logic.camera_check import CameraCheck, needs_check, opens_at_start, remember
from ui.logic.scan import card_label
from ui.screens.base import Base
from ui.widgets.basic import AutoLbl, Btn, Lbl, hbox, scroller, split_body, vbox
from ui.widgets.photo import PhotoView

if TYPE_CHECKING:
    from ui.app import TableTallyApp

LIVE_SECONDS = 1.0  # how often the live view takes a new photo
PREVIEW_SIDE = 960  # the live view is shown at most this wide (a 12 MP still would be slow to upload)


class CheckPhoto(PhotoView):
    """A photo with the table's outline (an ellipse, fractions of the photo) and a dot per seat."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.outline: tuple[float, float, float, float] | None = None
        self.seats: list[tuple[float, float]] = []
        self._numbers: list[Label] = []
        self.bind(pos=self.draw_table, size=self.draw_table)

    def redraw(self, *args: Any) -> None:
        super().redraw(*args)
        self.draw_table()

    def draw_table(self, *_: Any) -> None:
        if not hasattr(self, "seats"):
            return
        self.canvas.after.clear()
        for label in self._numbers:
            self.remove_widget(label)
        self._numbers = []
        w, h = self.photo_size
        if not w or not h:
            return
        scale, ox, oy = self._fit()
        r = max(dp(13), font("xs") * 0.75)
        with self.canvas.after:
            if self.outline is not None:
                x0, y0, x1, y1 = self.outline
                Color(*TEXT[:3], 0.85)
                Line(
                    ellipse=(
                        ox + x0 * w * scale,
                        oy + (1 - y1) * h * scale,
                        (x1 - x0) * w * scale,
                        (y1 - y0) * h * scale,
                    ),
                    width=dp(1.5),
                )
        for i, (sx, sy) in enumerate(self.seats):  # a dot per seat with its number, as the lines name it
            x, y = ox + sx * w * scale, oy + (1 - sy) * h * scale
            number = Label(
                text=num(i + 1),
                font_size=font("xs"),
                bold=True,
                color=(0, 0, 0, 1),
                size_hint=(None, None),
                size=(2 * r, 2 * r),
                pos=(x - r, y - r),
            )
            number.bg_colour = holder_colour(i)
            with number.canvas.before:
                Color(*holder_colour(i))
                Ellipse(pos=number.pos, size=number.size)
                Color(0, 0, 0, 1)
                Line(circle=(x, y, r), width=dp(1.2))
            self.add_widget(number)
            self._numbers.append(number)
        for tag in list(self._labels):  # the cards' tags over the seat dots: a dot never hides a card's name
            self.remove_widget(tag)
            self.add_widget(tag)


class CameraCheckScreen(Base):
    """Is the camera placed right? Live view, Check, and what to do."""

    check: CameraCheck | None = None
    view_widget: CheckPhoto | None = None
    live_image: Any = None  # the last live photo (BGR, shrunk for the screen)
    live_size: tuple[int, int] = (0, 0)  # its camera's full size
    live_full: Any = None  # the last live photo at full size
    _live_event: Any = None
    _live_busy = False
    return_to = "settings"

    def _check(self) -> CameraCheck:
        if self.check is None:
            scanner = self.app.scanner
            seats = None
            try:
                seats = self.kiosk.seat_map() if self.kiosk.flow is not None else None
            except Exception:  # noqa: BLE001 - no game, or no seats yet: the default layout
                seats = None
            players = len(seats) if seats is not None else 4
            self.check = CameraCheck(
                self.photo_to_check, scanner.loaded_detector, lambda: scanner.camera, players, seats
            )
        return self.check

    # -- entering and leaving ----------------------------------------------------------------------------
    def open_from(self, screen: str) -> None:
        """Open the check (from Settings, or on first start from home); back goes to ``screen``."""
        self.return_to = screen
        self.check = None
        self.live_image, self.live_size, self.live_full = None, (0, 0), None
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.app.go("camera_check")

    def on_enter(self, *_: Any) -> None:
        self._live_event = Clock.schedule_interval(lambda _dt: self.take_live(), LIVE_SECONDS)
        self.take_live()

    def on_leave(self, *_: Any) -> None:
        if self._live_event is not None:
            self._live_event.cancel()
            self._live_event = None

    def leave(self) -> None:
        """Skip or Done: the record remembers the check (so first start opens it once)."""
        c = self._check()
        if c.placement is not None:
            remember(self.kiosk.store, c.placement, self.app.scanner.camera_name)
        elif needs_check(self.kiosk.store):
            remember(self.kiosk.store, None)
        self.check = None
        if self.kiosk.flow is None:
            self.app.scanner.release_camera()  # no game on: the camera is opened again by the next scan
        self.app.go(self.return_to)

    # -- the live view -----------------------------------------------------------------------------------
    def still_camera(self) -> bool:
        """Whether the camera is a folder of photos (the demo): its "live view" is one photo, kept."""
        from vision.cameras import FolderCamera

        return isinstance(self.app.scanner.camera, FolderCamera)

    def photo_to_check(self) -> Any:
        """The photo Check reads (off the UI thread): a new one from the camera, so a card laid just now is
        in it; with a folder of photos the one on screen."""
        if self.live_full is not None and self.still_camera():
            return self.live_full
        return self.app.scanner.photo()

    def take_live(self) -> None:
        c = self._check()
        if self._live_busy or c.state != "live" or self.app.current != "camera_check":
            return
        if self.live_image is not None and self.still_camera():
            return
        self._live_busy = True
        scanner = self.app.scanner

        def work() -> None:
            try:
                image = scanner.photo()
                error = ""
            except Exception as exc:  # noqa: BLE001 - shown on the screen; Check says it again
                image, error = None, str(exc)
            self.app._dispatch(lambda: self.show_live(image, error))

        threading.Thread(target=work, name="tabletally-live-view", daemon=True).start()

    def show_live(self, image: Any, error: str) -> None:
        self._live_busy = False
        if image is not None:
            import cv2

            h, w = image.shape[:2]
            k = min(1.0, PREVIEW_SIDE / max(w, h))
            self.live_image = cv2.resize(image, (round(w * k), round(h * k))) if k < 1 else image
            self.live_size, self.live_full = (w, h), image
        c = self._check()
        if c.state != "live" or self.view_widget is None:
            return
        if image is None:
            self.view_widget.message = _(
                "No photo from the camera: {reason} Check its cable, or skip the check."
            ).format(reason=error.rstrip(".") + ".")
            return
        self.view_widget.message = ""
        self.view_widget.set_image(self.live_image, *self.live_size)

    # -- the check ---------------------------------------------------------------------------------------
    def run_check(self) -> None:
        c = self._check()
        if c.state == "reading":
            return

        def work() -> None:
            c.run()
            self.app._dispatch(self.refresh)

        c.state = "reading"
        threading.Thread(target=work, name="tabletally-camera-check", daemon=True).start()
        self.refresh()

    def again(self) -> None:
        self._check().again()
        self.live_image, self.live_full = None, None  # a folder camera: its next photo
        self.refresh()
        self.take_live()

    def more(self) -> None:
        self._check().more()
        self.refresh()

    def fewer(self) -> None:
        self._check().fewer()
        self.refresh()

    # -- drawing -----------------------------------------------------------------------------------------
    def build(self, root: Any) -> None:
        c = self._check()
        first = self.return_to == "home"
        back = (_("Skip"), self.leave) if first and c.placement is None else (_("Back"), self.leave)
        root.add_widget(self.top_bar(_("Camera placement"), back=back))
        photo = CheckPhoto()
        self.view_widget = photo
        seats = c.seat_map
        photo.outline = c.outline()
        photo.seats = list(seats.seats)
        view = c.view()
        if c.image is not None:
            h, w = c.image.shape[:2]
            owners = c.seat_of_cards()
            photo.boxes = [
                (
                    i,
                    max(card.boxes, key=_area),
                    card_label(card.code),
                    "ok",
                    holder_colour(owners[i] if owners else 0),
                )
                for i, card in enumerate(c.cards)
            ]
            photo.set_image(c.image, w, h)
        elif self.live_image is not None:
            photo.set_image(self.live_image, *self.live_size)
        else:
            photo.photo_size = [16, 9]
            photo.message = _("Starting the camera...")
        side = vbox(spacing=dp(4))
        colour = TEXT if view.state in ("live", "reading") else (GOOD if view.good else WARN)
        size = "m" if len(view.headline) <= 60 else "s"
        side.add_widget(AutoLbl(view.headline, size, bold=True, color=colour))
        if view.state == "live":
            side.add_widget(self.players_row(c))
            hint = _("The dots are the seats. Hang the camera so that the cards at every seat are in view.")
            side.add_widget(AutoLbl(hint, "s", color=MUTED))
        lines = vbox(size_hint_y=None, spacing=dp(2))
        lines.bind(minimum_height=lines.setter("height"))
        for line in view.seats:
            lines.add_widget(AutoLbl(line.text, "s", color=holder_colour(line.seat)))
        if view.detail:
            lines.add_widget(AutoLbl(view.detail, "xs", color=MUTED))
        side.add_widget(scroller(lines))
        buttons = hbox(size_hint_y=None, height=TOUCH, spacing=dp(6))
        if view.state == "live":
            buttons.add_widget(Btn(_("Check"), self.run_check, role="primary", name="camera-check-run"))
        elif view.state == "reading":
            busy = Btn(_("Reading the photo..."), lambda: None, name="camera-check-run")
            busy.disabled = True
            buttons.add_widget(busy)
        else:
            again = Btn(_("Check again"), self.again, name="camera-check-again", font_size=font("s"))
            buttons.add_widget(again)
            if c.placement is not None:
                again.size_hint_x = 1.5
                buttons.add_widget(Btn(_("Done"), self.leave, role="primary", name="camera-check-done"))
        side.add_widget(buttons)
        root.add_widget(split_body(photo, side, sized=side, wide=0.44, tall=0.5))

    def players_row(self, c: CameraCheck) -> Any:
        row = hbox(size_hint_y=None, height=TOUCH, spacing=dp(6))
        row.add_widget(Btn("-", self.fewer, name="camera-check-fewer", size_hint_x=None, width=TOUCH))
        text = ngettext("{n} seat", "{n} seats", c.players).format(n=num(c.players))
        row.add_widget(Lbl(text, "m", halign="center"))
        row.add_widget(Btn("+", self.more, name="camera-check-more", size_hint_x=None, width=TOUCH))
        return row


def _area(box: Any) -> float:
    return float((box[2] - box[0]) * (box[3] - box[1]))


def open_first_check(app: TableTallyApp) -> bool:
    """On first start (a language chosen, no check done nor skipped in the record), open the camera check;
    True if it opened."""
    if not opens_at_start(app.kiosk.store, app.kiosk.language()):
        return False
    screen = app.screens.get("camera_check")
    if not isinstance(screen, CameraCheckScreen):
        return False
    screen.open_from("home")
    return True
