"""The demo's driver: finds the kiosk's buttons by name and taps them with simulated touches, shoots and
measures every screen (text that fits, fingertip targets, the face), and the small helpers the scripts tap
with (a name typed, a hand or a team's pile made to hold the scripted cards, a widget scrolled into view)."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from ui.devtools.demo_data import NAME_KEYS

SIZES = {"landscape": (800, 480), "portrait": (720, 1280)}
Script = Generator[Any, None, None]


class DemoError(RuntimeError):
    pass


def step(name: str) -> None:
    print(f"STEP {name}", flush=True)


class Driver:
    """Finds buttons by name and taps them with simulated touches through the window."""

    def __init__(self, app: Any, out: Path | None, prefix: str) -> None:
        self.app = app
        self.out = out
        self.prefix = prefix
        self.count = 0
        self.taps = 0
        self.timings: dict[str, list[float]] = {}
        self.small_targets: list[str] = []
        self.cut_text: list[str] = []
        self.settle = 0.0  # seconds the next step must wait for this tap to take effect
        self.texts: list[dict[str, Any]] = []  # every visible label of every screenshot (texts.json)
        self.glyphs: list[int] = []  # the drawn height of each running total between rounds
        self.photo_px: list[float] = []  # the check screen's photo, drawn width
        self.player_words: list[str] = []  # technician's words found on a player's screen

    def timed(self, what: str, seconds: float) -> None:
        self.timings.setdefault(what, []).append(round(seconds * 1000, 1))

    def widgets(self) -> Iterator[Any]:
        from kivy.core.window import Window

        # Topmost first: Window.children[0] is the last one added (an open sheet covers the screen).
        stack = list(reversed(Window.children))
        while stack:
            w = stack.pop()
            yield w
            stack.extend(reversed(w.children))

    def find(self, name: str) -> Any:
        from ui.widgets.basic import Btn
        from ui.widgets.cards import CardChip

        for w in self.widgets():
            if isinstance(w, Btn | CardChip) and w.name == name:
                return w
        return None

    def tap(self, name: str) -> None:
        from kivy.tests.common import UnitTestTouch

        w = self.find(name)
        if w is None:
            raise DemoError(f"no button named {name!r} on screen {self.app.current!r}")
        if w.disabled:
            raise DemoError(f"button {name!r} is disabled on screen {self.app.current!r}")
        # Scroll it into view if it sits in a scroll view.
        from kivy.uix.scrollview import ScrollView
        from kivy.uix.widget import Widget

        parent = w.parent
        while isinstance(parent, Widget) and parent is not parent.parent:
            if isinstance(parent, ScrollView):
                parent.scroll_to(w, padding=10, animate=False)
                parent.update_from_scroll()
                # A scroll view holds a quick tap back to tell it from a drag, and delivers the release
                # 0.2 s later: wait for it like a finger would.
                self.settle = 0.3
                break
            parent = parent.parent
        x, y = w.to_window(w.center_x, w.center_y)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.taps += 1

    def tap_photo(self) -> None:
        """Tap the round's photo beside its cards (a corner of it): it opens full screen."""
        from kivy.tests.common import UnitTestTouch

        from ui.widgets.photo import PhotoView

        photo = next((w for w in self.widgets() if isinstance(w, PhotoView) and w.on_photo), None)
        if photo is None:
            raise DemoError(f"no photo to tap on screen {self.app.current!r}")
        x, y = photo.to_window(photo.x + 3, photo.y + 3)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.taps += 1

    def tap_seat(self, fx: float, fy: float) -> None:
        """Tap the seats screen's photo at (fx, fy), fractions of the photo (0-1, y down)."""
        from kivy.tests.common import UnitTestTouch

        from ui.screens.seats import SeatView

        view = next((w for w in self.widgets() if isinstance(w, SeatView)), None)
        if view is None:
            raise DemoError(f"no seats photo on screen {self.app.current!r}")
        scale, ox, oy = view.photo._fit()
        w, h = view.photo.photo_size
        x, y = view.to_window(ox + fx * w * scale, oy + (1 - fy) * h * scale)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.taps += 1

    def check_targets(self, label: str) -> None:
        """Every button on screen must be at least 48 x 48 px (a fingertip) and lie inside the window
        (inside its scroll view's width, for lists that scroll up and down)."""
        from kivy.core.window import Window
        from kivy.uix.scrollview import ScrollView

        from ui.widgets.basic import Btn
        from ui.widgets.cards import CardChip

        for w in self.widgets():
            if not isinstance(w, Btn | CardChip) or w.get_root_window() is not Window:
                continue
            name = w.name or w.text
            if w.width < 48 or w.height < 48:
                self.small_targets.append(f"{label}: {name!r} {w.width:.0f}x{w.height:.0f}")
            x1, y1 = w.to_window(w.x, w.y)
            x2, y2 = w.to_window(w.right, w.top)
            box = (0.0, 0.0, float(Window.width), float(Window.height))
            parent = w.parent
            while parent is not None and parent is not parent.parent:
                if isinstance(parent, ScrollView):
                    px1, _ = parent.to_window(parent.x, parent.y)
                    px2, _ = parent.to_window(parent.right, parent.top)
                    # It scrolls vertically: only the width must fit, in the scroll view and in the window.
                    box = (max(px1, 0.0), -1e9, min(px2, float(Window.width)), 1e9)
                    break
                parent = parent.parent
            if x1 < box[0] - 1 or x2 > box[2] + 1 or y1 < box[1] - 1 or y2 > box[3] + 1:
                self.small_targets.append(
                    f"{label}: {name!r} off screen at {x1:.0f},{y1:.0f}-{x2:.0f},{y2:.0f}"
                )

    def check_text(self, label: str) -> None:
        """Every label and button on screen must show its whole text inside its box: not shortened with
        an ellipsis, not wrapped past its height, no word wider than its width (``text_fit_problem``)."""
        from kivy.core.window import Window
        from kivy.uix.label import Label

        for w in self.widgets():
            if not isinstance(w, Label) or w.get_root_window() is not Window:
                continue
            problem = text_fit_problem(w)
            if problem:
                self.cut_text.append(f"{label}: {w.text!r} {problem}")

    def press(self, *names: str) -> Generator[Any, None, None]:
        """Tap these buttons in turn, letting the app draw a frame after each."""
        for name in names:
            self.tap(name)
            yield

    def shot(self, label: str) -> Generator[Any, None, None]:
        """Wait for the screen to settle (the screen switch and layout take a frame or two), then save it."""
        if self.out is None:
            return
        yield 0.12
        self.check_targets(label)
        self.check_text(label)
        self.capture(label)

    def capture(self, label: str) -> None:
        """Save the screen as it is right now."""
        from kivy.core.window import Window

        if self.out is None:
            return
        self.count += 1
        self.out.mkdir(parents=True, exist_ok=True)
        target = self.out / f"{self.prefix}{self.count:02d}-{label}.png"
        written = Window.screenshot(name=str(self.out / "shot.png"))
        if written:
            os.replace(written, target)
        self.measure(target.name)
        step(f"screenshot {target.name}")

    def screen_name(self) -> str:
        """The screen a screenshot shows: the app's, or the technician's page when that sheet is open."""
        name: Any = getattr(self.app.sheet, "screen_name", None) if self.app.sheet is not None else None
        return str(name) if name else str(self.app.current)

    def measure(self, shot: str) -> None:
        """What the face shows on this screenshot: every visible label (words, size, box, contrast), the
        running totals' drawn digits between rounds, the check screen's photo width, and technician's
        words on a player's screen."""
        from ui.devtools.face import (
            TECHNICIAN_SCREENS,
            glyph_height,
            label_entry,
            photo_width,
            technician_words,
            visible_labels,
        )
        from ui.widgets.photo import PhotoView

        screen = self.screen_name()
        labels = list(visible_labels(self.widgets()))
        for w in labels:
            entry = label_entry(w, shot, screen)
            self.texts.append(entry)
            if screen not in TECHNICIAN_SCREENS:
                for word in technician_words(entry["text"]):
                    self.player_words.append(f"{shot}: {word!r} in {entry['text']!r}")
            if getattr(w, "hero_total", False) and self.app.sheet is None:
                height = glyph_height(w)
                if height:
                    self.glyphs.append(height)
        if screen in ("jhyap_round", "seep_deal") and self.app.sheet is None:
            for w in self.widgets():
                if isinstance(w, PhotoView) and w.on_photo is not None and w.photo_size[0]:
                    self.photo_px.append(round(photo_width(w), 1))

    def face(self) -> dict[str, Any]:
        """The summary of the face's measures (the RESULT line carries it)."""
        checked = [t for t in self.texts if not t["disabled"]]
        low = sorted(
            {f"{t['shot']}: {t['text'][:40]!r} {t['contrast']}" for t in checked if t["contrast"] < 4.5}
        )
        return {
            "texts": len(self.texts),
            "totals_glyph_px": min(self.glyphs) if self.glyphs else None,
            "photo_px": min(self.photo_px) if self.photo_px else None,
            "contrast_min": min((t["contrast"] for t in checked), default=None),
            "low_contrast": low,
            "player_words": self.player_words,
        }


def text_fit_problem(label: Any) -> str | None:
    """Why a Kivy label's text does not fit its box as drawn, or None when it fits.

    The text is laid out again, unshortened, at the width it wraps to (``text_size``), in the label's own
    font: it must not have been shortened (or carry an ellipsis), its lines must fit the box's height (a
    word longer than a line is broken onto the next), and a line that does not wrap, or wraps wider than
    the box, must not be wider than the box."""
    from kivy.core.text import Label as CoreLabel

    text = str(label.text)
    core = getattr(label, "_label", None)
    if not text.strip() or core is None or label.opacity == 0 or label.width < 2 or label.height < 2:
        return None
    if "\u2026" in text:
        return "carries an ellipsis"
    if getattr(core, "is_shortened", False):
        return f"shortened to fit {label.width:.0f} px"
    left, top, right, bottom = (float(v) for v in core.options.get("padding", (0, 0, 0, 0)))
    box_w, box_h = label.width - left - right, label.height - top - bottom
    wrap_w = label.text_size[0]
    limit = min(box_w, wrap_w) if wrap_w else box_w
    options = {
        k: v for k, v in core.options.items() if k not in ("text_size", "shorten", "padding_x", "padding_y")
    }
    options.update(text=text, padding=[0, 0, 0, 0], shorten=False)
    probe = CoreLabel(text_size=(wrap_w if wrap_w else None, None), **options)
    probe.refresh()
    need_h = probe.texture.size[1] if probe.texture else 0
    lines = max(1, len(getattr(probe, "_cached_lines", ())) or 1)
    # A line's box holds room above and below the letters (Devanagari's marks): a box up to a fifth of a
    # line shorter than the text still shows every letter whole.
    if need_h > box_h + max(1.0, 0.2 * need_h / lines):
        return f"needs {need_h:.0f} px of height, has {box_h:.0f}"
    if wrap_w and wrap_w <= box_w + 1:
        return None  # wrapped to the box: a word longer than a line is broken onto the next (counted above)
    widest = max((probe.get_extents(p)[0] for p in text.split("\n")), default=0)
    if widest > limit + 1:
        return f"needs {widest:.0f} px of width, has {limit:.0f}"
    return None


def wait_idle(app: Any) -> Script:
    """Wait until the scan's result is on screen (the screen is rebuilt then: a tap before it is lost)."""
    while app.scanner.busy or app.scan_pending:
        yield 0.05
    yield 0.05


def type_name(d: Driver, name: str, shot: str | None = None) -> Script:
    yield from d.press("type-name")
    for key in NAME_KEYS[name]:
        yield from d.press(f"key-{key}")
    if shot:
        yield from d.shot(shot)
    yield from d.press("key-OK")


def set_hand(
    d: Driver, app: Any, seat: int, player: str, cards: list[str], shot: str | None = None
) -> Script:
    """Make a player's hand hold exactly ``cards``: keep it if the camera read it right, else type it."""
    flow = app.kiosk.jhyap
    if sorted(c.code for c in flow.hands.get(player) or []) == sorted(cards):
        return
    yield from d.press(f"total-{seat}", "menu-type", "clear")
    for code in cards:
        yield from d.press("rank-JK") if code == "JK" else d.press(f"rank-{code[:-1]}", f"suit-{code[-1]}")
    if shot:
        yield from d.shot(shot)
    yield from d.press("done")


def set_team(d: Driver, app: Any, team: str, cards: list[str] | None, shot: str | None = None) -> Script:
    """Make a team's pile hold exactly ``cards`` (None: not counted, the other team's cards decide)."""
    flow = app.kiosk.seep
    if cards is None:
        if flow.captured.get(team) is not None:
            yield from d.press(f"team-{team}", "menu-clear")
        return
    if sorted(c.code for c in flow.captured.get(team) or []) == sorted(cards):
        return
    yield from d.press(f"team-{team}", "menu-type", "clear")
    for code in cards:
        yield from d.press(f"rank-{code[:-1]}", f"suit-{code[-1]}")
    if shot:
        yield from d.shot(shot)
    yield from d.press("done")


def reveal(d: Driver, name: str) -> None:
    """Scroll the list holding a widget (found by its name) until the widget is in view."""
    from kivy.uix.scrollview import ScrollView

    w = next((w for w in d.widgets() if getattr(w, "name", None) == name), None)
    parent = w.parent if w is not None else None
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            parent.scroll_to(w, padding=10, animate=False)
            parent.update_from_scroll()
            return
        parent = parent.parent
