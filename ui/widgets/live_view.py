"""The round screen's live view: what the camera sees, a few frames a second, the seats drawn over it and
what the kiosk is doing in words; and :class:`LiveWatch`, which takes the frames off the UI thread, has the
table watched (:class:`ui.logic.watching.RoundWatch`) and starts the automatic scan.

The frames come from the camera's small stream (:meth:`ui.logic.scan.Scanner.frame`; on the Pi the lores
stream of the running camera). Nothing runs while watching is off in Settings, while no round waits for
its cards, or while a scan is on: the kiosk's idle work is then as it was.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.widget import Widget

from ui.design import BG, GAP, PANEL, TEXT, font, holder_colour, landscape
from ui.logic.watching import LIVE_SECONDS, RoundWatch, WatchTarget, set_watching, watch_target, watching_on
from ui.widgets.basic import Lbl
from ui.widgets.photo import texture_from_bgr

if TYPE_CHECKING:
    from ui.app import TableTallyApp
    from ui.logic.scan import ScanResult


class LiveView(FloatLayout):
    """The camera's small frames, fitted, with each seat's region outlined in its player's colour and the
    watcher's words on a band at the bottom."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._texture: Any = None
        self._frame_size = (0, 0)
        self.regions: Sequence[tuple[float, float, float, float]] = ()
        self.words = Lbl(
            "", "s", halign="center", size_hint=(1, None), height=dp(34), pos_hint={"x": 0, "y": 0}
        )
        # the band is as tall as its words (two lines in the narrow view beside the totals)
        self.words.bind(
            texture_size=lambda *_: setattr(self.words, "height", self.words.texture_size[1] + dp(6))
        )
        self.add_widget(self.words)
        self.bind(pos=self.redraw, size=self.redraw)

    def show(self, frame: Any, regions: Sequence[tuple[float, float, float, float]], words: str) -> None:
        """A new frame (BGR, small) and what to say under it. The same frame size, seats and words: only
        the texture is written again (no new drawing instructions, no new texture)."""
        same = self._texture is not None and tuple(regions) == tuple(self.regions)
        same = same and self.words.text == words
        if frame is not None:
            h, w = frame.shape[:2]
            if self._texture is None or self._frame_size != (w, h):
                self._texture = texture_from_bgr(frame)
                self._frame_size = (w, h)
                same = False
            else:
                self._texture.blit_buffer(frame.tobytes(), colorfmt="bgr", bufferfmt="ubyte")
        self.regions = regions
        if self.words.text != words:
            self.words.text = words
        if same:
            self.canvas.ask_update()
        else:
            self.redraw()

    def _fit(self) -> tuple[float, float, float, float]:
        w, h = self._frame_size
        if not w or not h:
            return self.x, self.y, self.width, self.height
        scale = min(self.width / w, self.height / h)
        return (
            self.x + (self.width - w * scale) / 2,
            self.y + (self.height - h * scale) / 2,
            w * scale,
            h * scale,
        )

    def redraw(self, *_: Any) -> None:
        self.canvas.before.clear()
        x, y, w, h = self._fit()
        with self.canvas.before:
            Color(*PANEL)
            Rectangle(pos=self.pos, size=self.size)
            if self._texture is not None:
                Color(1, 1, 1, 1)
                Rectangle(texture=self._texture, pos=(x, y), size=(w, h))
            for k, (x0, y0, x1, y1) in enumerate(self.regions):
                Color(*holder_colour(k))
                Line(rectangle=(x + x0 * w, y + (1 - y1) * h, (x1 - x0) * w, (y1 - y0) * h), width=dp(1.5))
            if self.words.text:
                Color(*BG[:3], 0.8)
                Rectangle(pos=self.words.pos, size=self.words.size)
        self.words.color = TEXT
        self.words.font_size = font("s" if self.width > dp(260) else "xs")


class LiveWatch:
    """Takes the camera's small frames while a round waits for its cards (every ``LIVE_SECONDS``, on a
    thread of its own), has the table watched, shows the frames in the round screen's :class:`LiveView`
    and starts the automatic scan."""

    def __init__(self, app: TableTallyApp) -> None:
        self.app = app
        self.watch = RoundWatch()
        self.view_widget: LiveView | None = None
        self._event: Any = None
        self._busy = False
        self._target: WatchTarget | None = None
        self.frames = 0  # frames taken (the demo and the benchmark count them)
        self.held = False  # the demo's walks that tap every scan hold the watching off, Settings unchanged

    def view(self, beside: bool = False) -> Widget:
        """The live view for the round screen being built (with ``beside``, in landscape, an empty space:
        the view goes :meth:`beside` what the screen puts there), or an empty space when there is nothing
        to watch (watching off, no round waiting for its cards)."""
        self._target = watch_target(self.app.kiosk) if self.on() else None
        if self._target is None:
            self.view_widget = None
            self.stop()  # nothing runs while there is nothing to watch: the idle kiosk as it was
            return Widget()
        self.start()
        widget = LiveView()
        widget.show(None, self._target.regions, self.watch.words())
        self.view_widget = widget
        return Widget() if beside and landscape() else widget

    def beside(self, column: Widget) -> Widget:
        """In landscape, the live view (made by :meth:`view`) to the right of ``column`` (the totals, of a
        height of their own), as tall as it; else ``column`` itself."""
        view = self.view_widget
        if view is None or not landscape() or view.parent is not None:
            return column
        row = BoxLayout(size_hint_y=None, height=column.height, spacing=dp(GAP))
        column.bind(height=row.setter("height"))
        view.size_hint_x = 0.3
        row.add_widget(column)
        row.add_widget(view)
        return row

    def on(self) -> bool:
        return watching_on(self.app.store) and not self.held

    def start(self) -> None:
        if self._event is None:
            self._event = Clock.schedule_interval(self._tick, LIVE_SECONDS)

    def stop(self) -> None:
        if self._event is not None:
            self._event.cancel()
            self._event = None

    def _wanted(self) -> bool:
        view = self.view_widget
        return (
            view is not None
            and view.get_root_window() is not None
            and self._target is not None
            and not self.app.scanner.busy
            and not self.app.scan_pending
        )

    def _tick(self, _dt: float) -> None:
        view = self.view_widget
        if view is None or view.get_root_window() is None:
            self.stop()  # the live view left the screen: started again when a screen shows one
            return
        if self._busy or not self._wanted():
            return
        self._busy = True
        target = self._target

        def work() -> None:
            frame, scan = None, False
            try:
                frame = self.app.scanner.frame()
                scan = self.watch.look(frame, time.monotonic(), target)
            except Exception:  # noqa: BLE001 - no frame now (the camera is busy or gone): try at the next tick
                frame = None
            self.frames += 1
            self.app._dispatch(lambda: self._show(frame, target, scan))

        threading.Thread(target=work, name="tabletally-live-view", daemon=True).start()

    def _show(self, frame: Any, target: WatchTarget | None, scan: bool) -> None:
        self._busy = False
        if target is None or target != self._target or not self._wanted():
            return
        if scan:
            self.watch.reading()
        if self.view_widget is not None:
            self.view_widget.show(frame, target.regions, self.watch.words())
        if scan:
            self.app.scan(target.target, target.n_hands, target.decks, auto=True)

    def began(self, auto: bool) -> None:
        """A scan began: a tapped one tells the watcher the table as it lies was read."""
        if not auto:
            self.watch.tapped()

    def keep(self, result: ScanResult) -> bool:
        """Whether a scan's result goes into the round (not an automatic one that found too few cards)."""
        return self.watch.keep(result, self._target)


def watch_rows(screen: Any, body: Any) -> None:
    """Settings: the switch for watching the table (on by default)."""
    from ui.design import MUTED, TOUCH
    from ui.i18n import _
    from ui.widgets.basic import AutoLbl, Btn, hbox

    store = screen.app.store
    on = watching_on(store)
    body.add_widget(AutoLbl(_("Watch the table"), "m", bold=True, color=MUTED))
    body.add_widget(AutoLbl(_("Once every hand is down and the table is still, the cards are read."), "s"))
    row = hbox(size_hint_y=None, height=TOUCH)

    def switch(value: bool) -> None:
        set_watching(store, value)
        screen.refresh()

    off, on_ = ("normal", "selected") if on else ("selected", "normal")
    row.add_widget(Btn(_("Off"), lambda: switch(False), name="watch-off", role=off))
    row.add_widget(Btn(_("On"), lambda: switch(True), name="watch-on", role=on_))
    body.add_widget(row)
