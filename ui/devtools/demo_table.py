"""The demo's scripts that count and time: the scripted table a fake detector "reads" (ScriptedTable), the
taps a game takes, five players on one screen, and the scan's speed from tap to totals."""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

from ui.devtools.demo_data import DEALS, PLAYERS, ROUNDS
from ui.devtools.demo_driver import DemoError, Driver, Script, step, wait_idle
from ui.devtools.demo_games import new_jhyap


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

    def lay_round(self, app: Any) -> tuple[str, dict[str, list[str]], Any]:
        """The first scripted round's hands laid at the night's seats; returns its caller, its hands by
        player and the seat map."""
        caller, hands = ROUNDS[0]
        seats = app.kiosk.seat_map()
        self.seats, self.centre = list(seats.seats), seats.centre
        self.hands = [hands[p] for p in PLAYERS]
        return caller, hands, seats

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


def check_round(case: str, flow: Any, hands: dict[str, list[str]]) -> None:
    """Raises DemoError unless the Jhyap round holds the scripted ``hands``."""
    held = {p: sorted(c) for p, c in flow.codes().items()}
    if held != {p: sorted(c) for p, c in hands.items()}:
        raise DemoError(f"{case}: the round holds {flow.codes()}, not {hands}")


def start_seep_deal(
    d: Driver, app: Any, table: ScriptedTable
) -> Generator[Any, None, tuple[Any, Any, Any, int]]:
    """From the round screen: home, a new Seep game of the players, the second scripted deal's piles on
    the scripted table's halves and its sweeps tapped. Returns the deal's piles, its sweeps, the halves and
    the tap count before the sweeps."""
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
    return captured, sweeps, halves, before


def check_deal(app: Any, captured: dict[str, list[str] | None]) -> None:
    """Raises DemoError unless the Seep deal holds the scripted piles ``captured``."""
    read = {t: sorted(c or []) for t, c in app.kiosk.seep.codes().items()}
    if read != {t: sorted(c or []) for t, c in captured.items()} or app.kiosk.seep.missing():
        raise DemoError(f"seep: the deal holds {app.kiosk.seep.codes()}, not {captured}")


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
    caller, hands, seats = table.lay_round(app)
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
        check_round(case, flow, hands)
        yield from d.press("confirm")
        counts[f"jhyap, {case}"] = d.taps - before
    # Seep: one photo of both piles; the first team's pile on the near half.
    captured, sweeps, halves, before = yield from start_seep_deal(d, app, table)
    yield from d.press("scan-both")
    yield from wait_idle(app)
    check_deal(app, captured)
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
