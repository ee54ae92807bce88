"""The scripted headless demo: plays a whole Jhyap game and Seep deals on the real Kivy kiosk with simulated
touches, and saves a screenshot of every screen at 800x480 and 720x1280.

    python -m ui.devtools.demo --out screenshots            # both sizes (one process each), headless
    python -m ui.devtools.demo --out DIR --size portrait    # one size

The camera is the folder camera over the bundled demo photos (vision/demo/) when they exist: each scripted
round and deal is photographed from its own photo (``round1.jpg`` ... ``seep1.jpg`` ..., drawn from ROUNDS
and DEALS by ``ui.devtools.demo_photos``), and read by the real detector when models/cards.onnx exists, so
the camera reads the scripted hands. Whatever the camera read, the script then makes each hand match the
scripted one the way a player would: keeping what was read right and typing what was not (tap the player's
name, "Type the cards", rank then suit for each card). So the flow and every score are the same with or
without a model, and the scores on screen are the scorer's.

It prints one line per step (``STEP name``) so that tests can follow it, and ends with a JSON summary line
(``RESULT {...}``). ``--script crash`` plays two rounds and half of a third, then waits to be killed;
``--script resume`` reopens the record and checks that nothing was lost.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

SIZES = {"landscape": (800, 480), "portrait": (720, 1280)}
PLAYERS = ["Asha", "बिकास", "Chandra", "Dipa"]
# Keys to press for each name on the on-screen keyboard (Devanagari via the script switch).
NAME_KEYS = {
    "Asha": ["A", "s", "h", "a"],
    "बिकास": ["\u0926\u0947\u0935", "ब", "ि", "क", "ा", "स"],
    "Chandra": ["C", "h", "a", "n", "d", "r", "a"],
    "Dipa": ["D", "i", "p", "a"],
    "Eka": ["E", "k", "a"],
}
MAX_SCORE = 100  # a short game for the demo: "Out above" lowered from 200 in the rules sheet
# (caller, hands by seat) for each round; the scorer decides what they make.
ROUNDS: list[tuple[str, dict[str, list[str]]]] = [
    (
        "Asha",
        {
            "Asha": ["AS", "2H"],
            "बिकास": ["KS", "QH", "9C"],
            "Chandra": ["10D", "JC", "8S"],
            "Dipa": ["5C", "6D"],
        },
    ),
    (
        "Dipa",
        {
            "Asha": ["2S", "2D"],
            "बिकास": ["KH", "KD", "QS"],
            "Chandra": ["JH", "QD", "9S"],
            "Dipa": ["AC", "3S"],
        },
    ),
    (
        "Chandra",
        {"Asha": ["AH", "2C"], "बिकास": ["KC", "JD", "10S", "5H"], "Chandra": ["4H"], "Dipa": ["7C", "8D"]},
    ),
    ("Asha", {"Asha": ["AD"], "बिकास": ["9H", "8C"], "Chandra": ["6S", "3C"], "Dipa": ["10C", "4D"]}),
    (
        "Asha",
        {
            "Asha": ["JK"],
            "Chandra": ["KS", "KH", "KD", "KC", "9S"],
            "Dipa": ["QD", "QC", "JS", "JH", "JD"],
        },
    ),
    ("Asha", {"Asha": ["JK"], "Chandra": ["KS", "KH"], "Dipa": ["QD", "QC"]}),
]
# Seep: point cards each team scanned (None: not scanned, the scorer gives it the rest), and sweeps.
DEALS: list[tuple[dict[str, list[str] | None], list[tuple[str, str]]]] = [
    (
        {
            "A": ["AS", "2S", "3S", "4S", "5S", "AH", "10D", "KS"],
            "B": ["6S", "7S", "8S", "9S", "10S", "JS", "QS", "AD", "AC"],
        },
        [("A", "normal"), ("B", "first")],
    ),
    (
        {
            "A": ["6S", "7S", "8S", "9S", "AD"],
            "B": ["AS", "2S", "3S", "4S", "5S", "10S", "JS", "QS", "KS", "AH", "10D", "AC"],
        },
        [("B", "normal"), ("B", "last")],
    ),
]


Script = Generator[Any, None, None]
_ONE_PHOTO: dict[str, Path] = {}  # a demo photo's name -> a folder holding that photo alone (show_photo)


def show_photo(app: Any, name: str) -> None:
    """Let the next scan read the bundled demo photo ``name`` (vision/demo: the photo of this scripted round
    or deal, ui.devtools.demo_photos), when the demo's camera is the bundled photos: the folder camera over
    a folder holding that photo alone. Whatever the script photographed before (the seats, a failed
    camera), the round is read from its own photo."""
    from vision.cameras import DEMO_DIR

    camera = str(app.camera_override or "")
    if camera != f"folder:{DEMO_DIR}" and not any(camera == f"folder:{d}" for d in _ONE_PHOTO.values()):
        return
    if not (DEMO_DIR / name).is_file():
        return
    if name not in _ONE_PHOTO:
        folder = Path(tempfile.mkdtemp(prefix="tabletally-demo-photo-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        shutil.copy(DEMO_DIR / name, folder / name)
        _ONE_PHOTO[name] = folder
    app.camera_override = f"folder:{_ONE_PHOTO[name]}"


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


def new_jhyap(d: Driver, app: Any, typed: bool = True, players: list[str] = PLAYERS) -> Script:
    yield from d.press("new-jhyap")
    yield from d.shot("new-jhyap-empty")
    for i, name in enumerate(players):
        recent = [n for n in app.screens["new_game"].form.recent_choices()]
        if not typed and name in recent:
            d.tap(f"recent-{recent.index(name)}")
            yield
            continue
        yield from type_name(
            d, name, shot="keyboard-devanagari" if i == 1 else ("keyboard" if i == 0 else None)
        )
    yield from d.press("rules")
    for _ in range((200 - MAX_SCORE) // 20):  # the "Out above" buttons step by 20
        yield from d.press("rule-max_score-down")
    yield from d.shot("rules")
    yield from d.press("rules-done")
    yield from d.shot("new-jhyap-ready")
    yield from d.press("start")
    # Where everyone sits: asked once a night for this many players (a layout, or a tap per seat).
    yield from d.press("seats-square")
    yield from d.shot("seats")
    # Or a tap per player on a photo taken now (shown, then the layout is kept for the demo's rounds).
    yield from d.press("seats-tap", "seats-photo")
    yield from wait_idle(app)
    for fx, fy in ((0.3, 0.85), (0.1, 0.3), (0.7, 0.1), (0.9, 0.7))[: len(players)]:
        d.tap_seat(fx, fy)
        yield
    yield from d.shot("seats-tapped")
    yield from d.press("seats-layout", "seats-round", "seats-done")
    step("jhyap started")


def play_round(
    d: Driver, app: Any, number: int, caller: str, hands: dict[str, list[str]], shots: bool
) -> Script:
    flow = app.kiosk.jhyap
    show_photo(app, f"round{number}.jpg")
    if shots:
        yield from d.shot(f"round{number}-start")
    d.tap(f"caller-{flow.active.index(caller)}")
    yield
    if number == 2:
        # The camera is unplugged: the scan says so and offers a retry; plugged back in, the retry works.
        real_camera = app.camera_override
        app.camera_override = "webcam:9"  # no such camera: what a family sees when it is unplugged
        yield from d.press("scan-table")
        yield from wait_idle(app)
        yield from d.shot("camera-failed")
        app.camera_override = real_camera
    started = time.perf_counter()
    yield from d.press("scan-table")
    if shots and number == 1 and app.scanner.busy:
        d.capture("scanning")  # the progress state, while the worker thread takes and reads the photo
    yield from wait_idle(app)
    d.timed("scan_ms", time.perf_counter() - started)
    step(f"round {number} scanned")
    if shots:
        yield from d.shot(f"round{number}-scanned")
    flow = app.kiosk.jhyap
    if (
        number == 1
        and len(flow.active) > 1
        and flow.hands.get(flow.active[0])
        and flow.hands.get(flow.active[1])
    ):
        # Whose hand is whose: swap two hands from the hand menu, then back (the round stays as scanned).
        before = flow.codes()
        first, second = flow.active[0], flow.active[1]
        for again in (False, True):
            yield from d.press("total-0")
            if shots and not again:
                yield from d.shot("swap-hands")
            yield from d.press("swap-0")
            if not again and flow.codes()[second] != before[first]:
                raise DemoError(f"swapping hands did not give {second} the cards of {first}")
        if flow.codes() != before:
            raise DemoError("swapping two hands twice did not restore them")
    for seat, player in enumerate(flow.active):
        shot = "type-hand" if (shots and number == 1 and seat == 1) else None
        yield from set_hand(d, app, seat, player, hands[player], shot)
    if shots and number == 1:
        # Tap a card as a player would to check it: what it may be, whose it is, each one tap.
        yield from d.press("card-1-0")
        yield from d.shot("card-menu")
        yield from d.press("other-card")
        yield from d.shot("card-picker")
        yield from d.press("cancel")
        # The photo full screen, zoomed in: every card outlined in its player's colour.
        d.tap_photo()
        yield
        yield from d.shot("photo")
        yield from d.press("zoom-in", "zoom-in")
        yield from d.shot("photo-zoom")
        yield from d.press("photo-back")
    if shots:
        yield from d.shot(f"round{number}-ready")
    started = time.perf_counter()
    d.tap("confirm")  # scores the round, commits it and draws the next round's screen with its result
    d.timed("confirm_to_result_ms", time.perf_counter() - started)
    yield
    step(f"round {number} scored")
    if shots:
        yield from d.shot(f"round{number}-result")


def jhyap_game(d: Driver, app: Any) -> Script:
    yield from new_jhyap(d, app)
    for number, (caller, hands) in enumerate(ROUNDS, 1):
        yield from play_round(d, app, number, caller, hands, shots=number in (1, 3, 4, 6))
        if number == 2:
            yield from d.press("scores")
            yield from d.shot("scores-round2")
            yield from d.press("back-to-game")
        if number == 3:
            # Edit round 1 (a disputed hand): open it, change nothing, save; every later round is recomputed.
            yield from d.press("details", "edit")
            yield from d.shot("edit-menu")
            yield from d.press("edit-0")
            yield from d.shot("edit-round1")
            yield from d.press("confirm", "next")
    yield from d.press("scores")
    yield from d.shot("scores-final")
    yield from d.press("back-to-game", "next")
    yield from d.shot("game-over")
    step("jhyap finished")


def seep_game(d: Driver, app: Any) -> Script:
    yield from d.press("back")  # game over -> home
    yield from d.press("new-seep")
    for name in PLAYERS:
        recent = app.screens["new_game"].form.recent_choices()
        d.tap(f"recent-{recent.index(name)}")
        yield
    yield from d.shot("new-seep")
    yield from d.press("start")
    for number, (captured, sweeps) in enumerate(DEALS, 1):
        for team, when in sweeps:
            yield from d.press(f"sweep-{team}" if when == "normal" else f"sweep-{when}-{team}")
        yield from d.shot(f"deal{number}-sweeps")
        # One photo of both piles, one on each half of the table.
        show_photo(app, f"seep{number}.jpg")
        yield from d.press("scan-both")
        yield from wait_idle(app)
        if number == 1:
            yield from d.shot(f"deal{number}-scanned")
        for team, cards in captured.items():
            yield from set_team(
                d,
                app,
                team,
                cards[:-1] if number == 2 and team == "B" and cards else cards,
                shot="type-points" if number == 1 and team == "A" else None,
            )
        if number == 2:
            # B's ace of clubs is not typed yet: the 100-point check names it.
            yield from d.shot("deal2-missing-card")
            yield from d.press("team-B", "menu-add", "rank-A", "suit-C")
        yield from d.shot(f"deal{number}-ready")
        yield from d.press("confirm")  # scores the deal; the next deal's screen shows its result
        yield from d.shot(f"deal{number}-result")
        step(f"deal {number} scored")
    yield from d.press("scores")
    yield from d.shot("seep-scores")
    yield from d.press("back-to-game", "scores", "end", "sheet-yes")
    yield from d.shot("seep-game-over")
    step("seep finished")


def full_demo(d: Driver, app: Any) -> Script:
    yield 0.2
    yield from d.shot("home-empty")
    yield from jhyap_game(d, app)
    yield from seep_game(d, app)
    yield from d.press("tonight", "export")
    yield from d.shot("tonight")
    yield from nights_walk(d, app)
    yield from d.press("back", "settings")
    yield from d.shot("settings")
    yield from share_settings(d, app)
    yield from d.press("technician")
    yield from d.shot("technician")
    yield from d.press("technician-back", "back")
    yield from d.shot("home")


def nights_walk(d: Driver, app: Any) -> Script:
    """From Tonight: Good night and the night's story, the Players screen and a player's record, the Nights
    screen and tonight as a past night; back on Tonight."""
    yield from d.press("good-night")
    yield from d.shot("night-story")
    yield from d.press("story-done", "players", "player-0")
    yield from d.shot("players")
    yield from d.press("player-record")
    yield from d.shot("player-record")
    yield from d.press("back", "back", "nights")
    yield from d.shot("nights")
    yield from d.press("night-0")
    yield from d.shot("night")
    yield from d.press("back", "back", "tonight")


def share_settings(d: Driver, app: Any) -> Script:
    """Scores on phones: switched on in Settings (the address, its QR code, the port), then off again."""
    app.sharing.port_override = 0  # any free port: the demo must not take a running kiosk's 8088
    if not os.environ.get("TABLETALLY_SHARE_ADDRESS"):
        from ui.share.net import lan_addresses

        if not lan_addresses():  # a build machine on no home network: show the name phones would use
            os.environ["TABLETALLY_SHARE_ADDRESS"] = "tabletally.local"
    yield from d.press("share-on")
    yield 0.1
    reveal(d, "share-qr")
    yield from d.shot("settings-sharing")
    yield from d.press("share-off")
    if app.sharing.running:
        raise DemoError("sharing still runs after switching it off")


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


def crash_script(d: Driver, app: Any) -> Script:
    """Two rounds, then half of round 3 (caller picked, one hand typed), then wait to be killed."""
    yield 0.2
    yield from new_jhyap(d, app)
    for number, (caller, hands) in enumerate(ROUNDS[:2], 1):
        yield from play_round(d, app, number, caller, hands, shots=False)
    caller, hands = ROUNDS[2]
    flow = app.kiosk.jhyap
    d.tap(f"caller-{flow.active.index(caller)}")
    yield
    yield from set_hand(d, app, 0, flow.active[0], hands[flow.active[0]])
    step("crash-ready")
    while True:
        yield 1.0


def resume_script(d: Driver, app: Any) -> Script:
    yield 0.2
    yield from d.shot("resume-home")
    yield from d.press("resume-0")
    yield from d.shot("resumed")
    flow = app.kiosk.jhyap
    summary = {
        "screen": app.current,
        "rounds": len(app.kiosk.game.entries),
        "round_number": flow.number,
        "caller": flow.caller,
        "hands": {p: [c.code for c in h] if h is not None else None for p, h in flow.hands.items()},
    }
    print("RESUMED " + json.dumps(summary, ensure_ascii=False), flush=True)


class ScriptedTable:
    """What the tap-count script's detector "reads": the scripted hands laid in front of each seat (or the
    Seep piles on their halves), corner boxes in photo pixels, with a misread or misplaced card on demand.
    It goes in a :class:`vision.runtimes.fake.FakeDetector`, so the count is the kiosk's own, photo to
    score."""

    def __init__(self) -> None:
        self.hands: list[list[str]] = []  # by seat
        self.seats: list[tuple[float, float]] = []
        self.centre = (0.5, 0.5)
        self.misread: tuple[str, str] | None = None  # (true code, code read)
        self.misplaced: tuple[str, int] | None = None  # (code, seat it lies in front of)

    def scanner(self, app: Any) -> Any:
        """The kiosk's own scanner (camera, worker thread) reading with this table's detections."""
        from ui.logic.scan import Scanner
        from vision.runtimes.fake import FakeDetector

        # The kiosk's own scanner goes, and with it its reading process: left running, that process would
        # find the kiosk's end of its pipe gone when it has loaded the model (a BrokenPipeError).
        app.scanner.release_camera()
        app.scanner.settle()
        return Scanner(
            app.camera_spec(), None, dispatch=app._dispatch, detector=FakeDetector(self.detections)
        )

    def detections(self, image: Any) -> list[Any]:
        from vision.base.types import Detection

        h, w = image.shape[:2]
        size = 0.05 * min(w, h)
        out = []
        lay: list[tuple[str, int]] = [(c, s) for s, hand in enumerate(self.hands) for c in hand]
        counts = [0] * len(self.seats)
        for code, seat in lay:
            if self.misplaced and code == self.misplaced[0]:
                seat = self.misplaced[1]
            sx, sy = self.seats[seat]
            cx, cy = self.centre
            # In front of the seat, a quarter of the way in; cards side by side across the seat's direction.
            x, y = (sx + (cx - sx) * 0.25) * w, (sy + (cy - sy) * 0.25) * h
            dx, dy = -(sy - cy) * h, (sx - cx) * w
            norm = (dx * dx + dy * dy) ** 0.5
            middle = norm < 1  # the table's centre: the draw and discard piles, side by side
            if middle:
                dx, dy, norm = 1.0, 0.0, 1.0
            k = counts[seat] - (0.5 if middle else 2)
            counts[seat] += 1
            x, y = x + dx / norm * k * size * 1.6, y + dy / norm * k * size * 1.6
            box = (x - size / 3, y - size / 2, x + size / 3, y + size / 2)
            if self.misread and code == self.misread[0]:
                out.append(Detection(self.misread[1], 0.4, box, ((code, 0.35),)))
            else:
                out.append(Detection(code, 0.95, box))
        return out


def tap_count_script(d: Driver, app: Any) -> Script:
    """Counts the taps of a Jhyap round and a Seep deal on the real screens, the camera's reading scripted
    (vision.runtimes.fake.FakeDetector): read right, one card misread, one card misplaced; a Seep deal read
    right."""
    from ui.logic.check import card_choices, jhyap_view

    table = ScriptedTable()
    app.scanner = table.scanner(app)
    counts: dict[str, int] = {}
    yield 0.2
    yield from new_jhyap(d, app)
    caller, hands = ROUNDS[0]
    seats = app.kiosk.seat_map()
    table.seats, table.centre = list(seats.seats), seats.centre
    table.hands = [hands[p] for p in PLAYERS]
    for case in ("read right", "one card misread", "one card misplaced"):
        table.misread = ("9C", "6C") if case == "one card misread" else None
        table.misplaced = ("8S", 3) if case == "one card misplaced" else None  # Chandra's 8S by Dipa's hand
        before = d.taps
        yield from d.press("scan-table")
        yield from wait_idle(app)
        flow = app.kiosk.jhyap
        if flow.caller != caller:
            yield from d.press(f"caller-{flow.active.index(caller)}")
        if case == "one card misread":
            seat = PLAYERS.index("बिकास")
            index = [c.code for c in flow.hands["बिकास"]].index("6C")
            yield from d.press(f"card-{seat}-{index}")
            yield from d.shot("taps-misread")
            yield from d.press("alt-9C")
        if case == "one card misplaced":
            seat = PLAYERS.index("Dipa")
            index = [c.code for c in flow.hands["Dipa"]].index("8S")
            yield from d.press(f"card-{seat}-{index}")
            choices = card_choices(flow, jhyap_view(flow), "Dipa", index)
            yield from d.shot("taps-misplaced")
            yield from d.press(f"move-{[o for o, _ in choices.move_to].index('Chandra')}")
        held = {p: sorted(c) for p, c in flow.codes().items()}
        if held != {p: sorted(c) for p, c in hands.items()}:
            raise DemoError(f"{case}: the round holds {flow.codes()}, not {hands}")
        yield from d.press("confirm")
        counts[f"jhyap, {case}"] = d.taps - before
    # Seep: one photo of both piles; the first team's pile on the near half.
    yield from d.press("back")  # the round screen -> home
    yield from d.press("new-seep")
    for name in PLAYERS:
        recent = app.screens["new_game"].form.recent_choices()
        d.tap(f"recent-{recent.index(name)}")
        yield
    yield from d.press("start")
    captured, sweeps = DEALS[1]
    halves = app.kiosk.seep.halves
    table.seats, table.centre = list(halves.seats), halves.centre
    table.hands = [list(captured["A"] or []), list(captured["B"] or [])]
    table.misread = table.misplaced = None
    before = d.taps
    for team, when in sweeps:
        yield from d.press(f"sweep-{team}" if when == "normal" else f"sweep-{when}-{team}")
    yield from d.press("scan-both")
    yield from wait_idle(app)
    read = {t: sorted(c or []) for t, c in app.kiosk.seep.codes().items()}
    if read != {t: sorted(c or []) for t, c in captured.items()} or app.kiosk.seep.missing():
        raise DemoError(f"seep: the deal holds {app.kiosk.seep.codes()}, not {captured}")
    yield from d.shot("taps-seep")
    yield from d.press("confirm")
    counts[f"seep, read right, {len(sweeps)} sweeps"] = d.taps - before
    print("TAPS " + json.dumps(counts, ensure_ascii=False), flush=True)


class FrameClock:
    """The UI thread's frames while a script runs: each Clock tick (the UI thread free to run) and each
    window flip (a frame drawn), as ``time.perf_counter`` moments."""

    def __init__(self) -> None:
        from kivy.clock import Clock
        from kivy.core.window import Window

        self.ticks: list[float] = []
        self.cpu: list[float] = []  # the UI thread's CPU seconds at each tick
        self.flips: list[float] = []
        self._event = Clock.schedule_interval(self._tick, 0)
        Window.bind(on_flip=self._flip)

    def _tick(self, _dt: float) -> None:
        self.ticks.append(time.perf_counter())
        self.cpu.append(time.thread_time())

    def _flip(self, *_: Any) -> None:
        self.flips.append(time.perf_counter())

    def drawn_after(self, moment: float) -> float | None:
        """The first frame drawn after ``moment``, if one was."""
        return next((t for t in self.flips if t >= moment), None)

    def longest_stall(self, begin: float, end: float) -> float:
        """The longest time between two ticks of the UI thread from ``begin`` to ``end`` (seconds)."""
        inside = [begin, *(t for t in self.ticks if begin < t < end), end]
        return max(b - a for a, b in zip(inside, inside[1:], strict=False))

    def work(self, begin: float, end: float) -> float:
        """The UI thread's own CPU seconds from ``begin`` to ``end`` (tick to tick: what it did, whatever
        the machine's load), unlike a stall, which also counts the time it waited for a core."""
        inside = [k for k, t in enumerate(self.ticks) if begin <= t <= end]
        if not inside:
            return 0.0
        return self.cpu[min(inside[-1] + 1, len(self.ticks) - 1)] - self.cpu[inside[0]]

    def stop(self) -> None:
        from kivy.core.window import Window

        self._event.cancel()
        Window.unbind(on_flip=self._flip)


def _median_p90(values: list[float]) -> tuple[float, float]:
    import statistics

    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def timed_scan(d: Driver, app: Any, frames: FrameClock) -> Generator[Any, None, dict[str, float]]:
    """Tap Scan on the round, wait for the result drawn, its photo kept and the garbage collector's pass
    after it; where the time went (ms). The collector must be held while the scan reads and on again
    after it (DemoError otherwise)."""
    import gc

    yield  # a frame of the UI thread's own before the tap
    tapped = time.perf_counter()
    d.tap("scan-table")
    yield
    if app.scanner.busy and gc.isenabled():
        raise DemoError("the garbage collector runs while the scan reads")
    yield from wait_idle(app)
    marks: dict[str, float] = dict(getattr(app, "scan_marks", {}))
    shown = marks.get("shown", app.scan_started + app.scan_seconds)
    while frames.drawn_after(shown) is None:
        yield 0
    drawn = frames.drawn_after(shown) or shown
    while getattr(app.kiosk, "keeping", False):  # the photo and reading still being written
        yield 0.01
    waited = time.perf_counter()
    while "collected_ms" not in app.scan_marks and time.perf_counter() - waited < 5:
        yield 0  # the collector's pass, on the UI thread once the scan is kept
    if not gc.isenabled():
        raise DemoError("the garbage collector was not turned on again after the scan")
    worker = dict(app.scanner.last_marks) if hasattr(app.scanner, "last_marks") else {}
    times = app.scanner.last_times
    split = {
        "tap to result": (drawn - tapped) * 1000,
        "photo": times.get("capture", 0.0),
        "reading": times.get("read", 0.0),
        "UI stall": frames.longest_stall(tapped, drawn) * 1000,
    }
    # While the worker reads: from the photo taken to the reading done (the worker starts at the tap).
    reading = (tapped + times.get("capture", 0.0) / 1000, tapped + times.get("worker", 0.0) / 1000)
    split["UI stall while reading"] = frames.longest_stall(*reading) * 1000
    split["UI thread's work while reading"] = frames.work(*reading) * 1000
    if worker and "result" in marks:
        split["to the worker"] = (worker["begun"] - tapped) * 1000
        split["after reading, to the UI"] = (marks["result"] - worker["read"]) * 1000
        screen = (worker["handed"] - worker["captured"]) * 1000 if "handed" in worker else 0.0
        split["photo to reading (the screen drawn)"] = screen  # the photo waits for the reading's words
        besides = times.get("worker", 0.0) - split["photo"] - split["reading"] - screen
        split["in the worker, besides"] = besides
        split["check screen"] = (shown - marks["result"]) * 1000
        split["drawing"] = (drawn - shown) * 1000
    kept = getattr(app, "scan_marks", {}).get("kept")
    if kept is not None:
        split["photo and record, after"] = (kept - shown) * 1000
    if "collected_ms" in app.scan_marks:  # the UI thread held by it while the players look at the result
        split["garbage collector's pass, after"] = app.scan_marks["collected_ms"]
    return split


def scan_speed_script(d: Driver, app: Any, rounds: int = 3) -> Script:
    """Tap to result in the kiosk against ``tabletally detect`` on the same photo, in this process and on
    this machine; then tap to totals with a camera as slow as the Pi's.

    First the folder camera over the demo photos: each photo scanned ``rounds`` times from a Jhyap round,
    from the tap to the result drawn (the first frame after the round was rebuilt), each scan followed, once
    its photo is kept, by the same photo read as ``detect`` reads it (a detector of its own: decoding,
    ``read_cards``, the colour check), so both meet the same load. Printed: median and 90th percentile of
    both, their ratio (against all of ``detect``'s work on the photo, and against its reading alone, the
    ``ms`` it prints), where the kiosk's time went, and the longest stall of the UI thread while it
    scanned (a first scan, not timed, shows the screen while it reads). Then the real
    :class:`vision.cameras.PiCamera` over :mod:`vision.devtools.bench_reading`'s simulated picamera2 (the
    Pi's capture delay, kept ready as in a game), the same photos: tap to totals."""
    from vision.base.photo import has_colour, load_image
    from vision.devtools.bench_reading import simulated_pi_camera
    from vision.pipeline import read_cards
    from vision.reading.detector import CardDetector

    yield 0.2
    yield from new_jhyap(d, app)
    detector = CardDetector(app.model_path).load()
    waited = time.monotonic()
    while not app.scanner.ready or not app.scanner.reader_ready:  # loading in the background since start-up
        if app.scanner.ready and time.monotonic() - waited > 60:
            break  # no reading process: the kiosk reads in its own
        yield 0.05
    step(f"scan-speed reading in {'a process of its own' if app.scanner.reader_ready else 'a worker thread'}")
    flow = app.kiosk.jhyap
    frames = FrameClock()
    camera = app.scanner.camera
    photos = list(getattr(camera, "paths", ()))
    if not photos:
        raise DemoError("scan-speed needs a folder camera (the demo photos)")
    # A first scan, not timed: the screen as the reading begins (a screenshot with --out, its words
    # checked), taken when the frame showing the reading's words is drawn and before the photo is read.
    # The round's screen shows the scan in the widgets it had (no rebuild at the tap): it must show what a
    # rebuilt screen shows, widget for widget (their kinds, words and whether they can be tapped).
    handing = app.scanner.after_frame
    differs: list[str] = []

    def on_screen() -> list[tuple[str, str, bool]]:
        return [(type(w).__name__, str(getattr(w, "text", "")), bool(w.disabled)) for w in d.widgets()]

    def shot_then(fn: Any) -> None:
        def shoot() -> None:
            app.scanner.after_frame = handing
            if d.out is not None:
                d.check_targets("scan-reading")
                d.check_text("scan-reading")
                d.capture("scan-reading")
            shown = on_screen()
            app.refresh()
            rebuilt = on_screen()
            if shown != rebuilt:
                differs.append(f"shown {shown} against rebuilt {rebuilt}")
            fn()

        handing(shoot)

    app.scanner.after_frame = shot_then
    d.tap("scan-table")
    yield
    yield from wait_idle(app)
    app.scanner.after_frame = handing
    if differs:
        raise DemoError(f"the scan's screen differs from the rebuilt one: {differs[0]}")
    while getattr(app.kiosk, "keeping", False):
        yield 0.01
    splits: list[dict[str, float]] = []
    detect_wall: list[float] = []
    detect_ms: list[float] = []
    for _ in range(rounds * len(photos)):
        split = yield from timed_scan(d, app, frames)
        path = getattr(app.scanner.camera, "last_path", None)
        if path is None:
            raise DemoError("scan-speed needs a folder camera (the demo photos)")
        begun = time.perf_counter()
        image = load_image(path)  # as tabletally detect reads a photo: decode, read, check the colour
        reading = read_cards(image, detector, n_hands=len(flow.active), decks=flow.decks)
        has_colour(image)
        detect_wall.append((time.perf_counter() - begun) * 1000)
        detect_ms.append(reading.ms)
        splits.append(split)
        step(
            f"scan-speed {Path(path).name}: tap to result {split['tap to result']:.0f} ms, detect "
            f"{detect_wall[-1]:.0f} ms ({reading.ms:.0f} reading), UI stall {split['UI stall']:.0f} ms"
        )
    tap = [s["tap to result"] for s in splits]
    ratio = [t / w for t, w in zip(tap, detect_wall, strict=True)]
    ratio_reading = [t / r for t, r in zip(tap, detect_ms, strict=True)]
    for what, values in (
        ("tap to result", tap),
        ("detect (decoding and reading)", detect_wall),
        ("detect's reading (its ms)", detect_ms),
    ):
        d.timed(what.split(" (")[0].replace(" ", "_") + "_ms", _median_p90(values)[0] / 1000)
        step("scan-speed {}: median {:.0f} ms, p90 {:.0f} ms".format(what, *_median_p90(values)))
    step(
        "scan-speed ratio: median {:.2f}x, p90 {:.2f}x against detect; {:.2f}x, {:.2f}x against its reading "
        "alone (target: at most 1.20x)".format(*_median_p90(ratio), *_median_p90(ratio_reading))
    )
    for part in splits[0]:
        values = [s[part] for s in splits if part in s]
        step("scan-speed split, {}: median {:.0f} ms, p90 {:.0f} ms".format(part, *_median_p90(values)))
    # The Pi's camera, kept ready: each photo costs the simulated capture delay.
    with simulated_pi_camera([load_image(p) for p in photos]):
        app.camera_override = "pi"
        app.scanner.release_camera()
        app.scanner.camera_spec = app.camera_spec()
        warming = app.scanner.warm_up(camera=True)
        while warming.is_alive():
            yield 0.05
        totals = []
        for _ in range(rounds * len(photos)):
            split = yield from timed_scan(d, app, frames)
            totals.append(split)
        app.scanner.release_camera()
    frames.stop()
    values = [s["tap to result"] for s in totals]
    d.timed("tap_to_totals_ms", _median_p90(values)[0] / 1000)
    step(
        "scan-speed tap to totals, Pi camera's capture delay: median {:.0f} ms, p90 {:.0f} ms "
        "(target: at most 500 ms)".format(*_median_p90(values))
    )
    for part in ("photo", "reading", "UI stall"):
        step(
            "scan-speed tap to totals split, {}: median {:.0f} ms, p90 {:.0f} ms".format(
                part, *_median_p90([s[part] for s in totals])
            )
        )


def five_players_script(d: Driver, app: Any) -> Script:
    """Five players, five cards each and the draw and discard piles in the middle: every hand, its total
    and the table's cards on one screen (checked like every screenshot: text that fits, fingertip targets)."""

    table = ScriptedTable()
    app.scanner = table.scanner(app)
    players = [*PLAYERS, "Eka"]
    yield 0.2
    yield from new_jhyap(d, app, players=players)
    seats = app.kiosk.seat_map()
    table.seats, table.centre = [*seats.seats, seats.centre], seats.centre
    hands = [
        ["AS", "2H"],
        ["KS", "QH", "9C", "4D", "4S"],
        ["10D", "JC", "8S", "7H", "6H"],
        ["5C", "6D", "9H", "JD", "2S"],
        ["AC", "3H", "8D", "9S", "10H"],
    ]
    table.hands = [*hands, ["7S", "5H"]]  # the last "seat" is the table's centre: the draw and discard piles
    table.misread = ("9C", "6C")  # one card in doubt: dashed, with a "?" badge
    yield from d.press("scan-table")
    yield from wait_idle(app)
    flow = app.kiosk.jhyap
    read = [sorted(c.replace("6C", "9C") for c in flow.codes()[p]) for p in players]
    if read != [sorted(h) for h in hands]:
        raise DemoError(f"five players: the round holds {flow.codes()}")
    if sorted(c.code for c in flow.table_cards) != ["5H", "7S"]:
        raise DemoError(f"five players: the table holds {[c.code for c in flow.table_cards]}")
    yield from d.shot("five-players")
    yield from d.press("confirm")
    yield from d.shot("five-players-next")


def camera_check_script(d: Driver, app: Any) -> Script:
    """The camera check from Settings: the live view with the table's outline and the seats, then Check
    reads the camera's next photo and says per seat what it read and what to do with the camera."""
    yield 0.3
    yield from d.press("settings")
    yield from d.shot("camera-check-settings")
    yield from d.press("camera-check")
    screen = app.screens["camera_check"]
    while screen.live_image is None:  # the live view's first photo
        yield 0.1
    yield from d.shot("camera-check-live")
    yield from d.press("camera-check-run")
    while screen.check is not None and screen.check.state == "reading":
        yield 0.1
    yield from d.shot("camera-check-result")
    yield from d.press("camera-check-done")
    step("camera check done")


def story_script(d: Driver, app: Any) -> Script:
    """Players across nights: two earlier nights come in through tabletally import's code (the same player
    once typed "Dipu"); New game first tells the last night's story, then offers the past players; the
    Players screen merges Dipu into Dipesh; Nights shows both nights and the all-time standings."""
    import datetime as dt

    from ui.logic.record_import import import_log

    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "jhyap-four-players.json"
    log = json.loads(example.read_text(encoding="utf-8"))
    dipu = json.loads(json.dumps(log).replace("Dipesh", "Dipu"))
    today = dt.datetime.now().replace(microsecond=0)
    store = app.kiosk.store
    import_log(store, dipu, today - dt.timedelta(days=14), "two weeks ago")
    import_log(store, log, today - dt.timedelta(days=7), "a week ago")
    yield 0.2
    yield from d.press("new-jhyap")
    if app.current != "story":
        raise DemoError(f"New game did not tell last week's story first (on {app.current})")
    yield from d.shot("story-next-night")
    yield from d.press("story-done")
    if app.current != "new_game":
        raise DemoError(f"after the story, {app.current} instead of New game")
    yield from d.shot("new-game-past-players")
    yield from d.press("back", "players")
    names = [p.name for p in app.screens["players"].form.players]
    yield from d.press(f"player-{names.index('Dipesh')}", "player-merge", f"player-{names.index('Dipu')}")
    yield from d.shot("players-merge")
    yield from d.press("sheet-yes")
    yield from d.shot("players-merged")
    if [p.name for p in app.screens["players"].form.players].count("Dipu"):
        raise DemoError("Dipu is still a player of their own after the merge")
    yield from d.press("back", "nights")
    yield from d.shot("nights-all-time")
    step("story done")


SCRIPTS: dict[str, Callable[[Driver, Any], Script]] = {
    "full": full_demo,
    "crash": crash_script,
    "resume": resume_script,
    "taps": lambda d, app: _watching().tap_count_script(d, app),  # with the table watched
    "taps-tapped": tap_count_script,  # every scan tapped (the table not watched)
    "watch": lambda d, app: _watching().watch_script(d, app),
    "watch-cpu": lambda d, app: _watching().watch_cpu_script(d, app),
    "five": five_players_script,
    "scan-speed": scan_speed_script,
    "camera-check": camera_check_script,
    "story": story_script,
}


def _watching() -> Any:
    from ui.devtools import watch_demo

    return watch_demo


WATCHED = ("taps", "watch", "watch-cpu")  # the scripts that play with the table watched (Settings' default)


def run_in_process(args: argparse.Namespace) -> int:
    size = SIZES[args.size]
    os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    if "KIVY_HOME" not in os.environ:  # a throwaway Kivy home, removed when the demo ends
        os.environ["KIVY_HOME"] = tempfile.mkdtemp(prefix="tabletally-kivy-")
        atexit.register(shutil.rmtree, os.environ["KIVY_HOME"], ignore_errors=True)
    from ui.commands.kiosk import configure_kivy

    configure_kivy(size)
    from kivy.clock import Clock

    from ui.app import TableTallyApp
    from ui.i18n import set_language
    from ui.store import Store

    set_language(args.language)

    camera = args.camera or _demo_camera()
    data_dir = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="tabletally-demo-"))
    store = Store(data_dir)
    app = TableTallyApp(store, camera=camera, model_path=args.model)
    # The other walks tap every scan (the folder camera's photo changes at each, which the watcher would
    # see): the watching is held off for them, Settings showing its own default.
    app.live.held = args.script not in WATCHED
    out = Path(args.out) / args.size if args.out else None
    driver = Driver(app, out, "")
    script = SCRIPTS[args.script](driver, app)
    outcome: dict[str, Any] = {"ok": False}
    started = time.monotonic()

    def advance(_dt: float) -> None:
        try:
            delay = next(script)
        except StopIteration:
            outcome["ok"] = not app.screen_errors
            app.stop()
            return
        except Exception as exc:  # noqa: BLE001 - report any failure of the script, then stop
            traceback.print_exc()
            outcome["error"] = f"{type(exc).__name__}: {exc}"
            if out is not None:  # what the screen showed when the script failed
                from kivy.core.window import Window

                out.mkdir(parents=True, exist_ok=True)
                Window.screenshot(name=str(out / "failed.png"))
            app.stop()
            return
        delay = max(delay or 0, driver.settle)
        driver.settle = 0.0
        Clock.schedule_once(advance, delay)

    Clock.schedule_once(advance, 0.3)
    app.run()
    game_count = len(store.games())
    face = driver.face()
    if out is not None:
        (out / "texts.json").write_text(
            json.dumps(driver.texts, ensure_ascii=False, indent=0), encoding="utf-8"
        )
    outcome.update(
        face=face,
        totals_glyph_px={args.size: face["totals_glyph_px"]},
        player_words=face["player_words"],
        size=args.size,
        taps=driver.taps,
        timings=driver.timings,
        small_targets=driver.small_targets,
        cut_text=driver.cut_text,
        screen_errors=app.screen_errors,
        screenshots=driver.count,
        seconds=round(time.monotonic() - started, 1),
        games=game_count,
        data_dir=str(data_dir),
        camera=camera,
    )
    if game_count:
        from ui.logic import games

        outcome["replay"] = [games.replay_dict(r.log()) for r in store.games() if r.entries]
    store.close()
    print("RESULT " + json.dumps(outcome, ensure_ascii=False), flush=True)
    return 0 if outcome["ok"] else 1


def _demo_camera() -> str:
    try:
        from vision.base.photo import IMAGE_SUFFIXES
        from vision.cameras import DEMO_DIR
    except ImportError:
        return "demo"
    if DEMO_DIR.is_dir() and any(p.suffix.lower() in IMAGE_SUFFIXES for p in DEMO_DIR.iterdir()):
        return f"folder:{DEMO_DIR}"
    return "demo"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.devtools.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=None, help="folder for the screenshots (one subfolder per size)")
    parser.add_argument("--size", choices=[*SIZES, "both"], default="both")
    parser.add_argument("--script", choices=list(SCRIPTS), default="full")
    parser.add_argument("--data-dir", default=None, help="record to use (default: a new temporary one)")
    parser.add_argument("--camera", default=None, help="camera spec (default: the bundled demo photos)")
    parser.add_argument("--language", default="en", help="language of the kiosk's words (en, ne, hi)")
    parser.add_argument("--model", type=Path, default=None, help="card model (default: models/cards.onnx)")
    args = parser.parse_args(argv)
    if args.size != "both":
        return run_in_process(args)
    status = 0
    faces: dict[str, dict[str, Any]] = {}
    for size in SIZES:
        cmd = [sys.executable, "-m", "ui.devtools.demo", "--size", size, "--script", args.script]
        for flag in ("out", "camera", "model", "language"):
            value = getattr(args, flag)
            if value:
                cmd += [f"--{flag.replace('_', '-')}", str(value)]
        if args.data_dir:
            cmd += ["--data-dir", str(Path(args.data_dir) / size)]
        print(f"== {size}: {' '.join(cmd)}", flush=True)
        run = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        sys.stdout.write(run.stdout)
        status |= run.returncode
        results = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
        if results:
            faces[size] = json.loads(results[-1][len("RESULT ") :]).get("face", {})
    if args.out and args.script == "full":  # the phones' page in a real browser, 360x740 and 740x360
        cmd = [sys.executable, "-m", "ui.devtools.shots", "--out", str(Path(args.out) / "phone")]
        cmd += ["--language", args.language]
        print(f"== phone: {' '.join(cmd)}", flush=True)
        status |= subprocess.call(cmd)
    if faces:  # both sizes in one line: the totals' drawn digits, the photo, contrast, technician's words
        summary = {
            "totals_glyph_px": {s: f.get("totals_glyph_px") for s, f in faces.items()},
            "photo_px": {s: f.get("photo_px") for s, f in faces.items()},
            "contrast_min": {s: f.get("contrast_min") for s, f in faces.items()},
            "low_contrast": [x for f in faces.values() for x in f.get("low_contrast", [])],
            "player_words": [x for f in faces.values() for x in f.get("player_words", [])],
        }
        print("SUMMARY " + json.dumps(summary, ensure_ascii=False), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
