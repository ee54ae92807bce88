"""The demo's scripts with the table watched (``python -m ui.devtools.demo --script taps|watch``).

The camera is a scripted table (:class:`vision.devtools.table_film.FilmCamera`: films made with the
synthetic renderer, the hands laid seat by seat where the night's seats are) and its reading is scripted
too (:class:`ui.devtools.demo_table.ScriptedTable`'s detections in a
:class:`vision.runtimes.fake.FakeDetector`), so what is counted is the kiosk's own flow: the live view, the
watcher, the automatic scan, the screens.

- ``taps``: the taps of a Jhyap round read right, one card misread, one card misplaced, and a Seep deal,
  with the watching on (Settings' default): the players lay the cards and tap only what is left.
- ``watch``: one round played with screenshots of the live view and each of its words ("Waiting for the
  cards", "Hold still...", "Reading...") at the size the demo runs at.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ui.devtools.demo_data import PLAYERS
from ui.devtools.demo_driver import DemoError, Driver, Script, step, wait_idle
from ui.devtools.demo_games import new_jhyap
from ui.devtools.demo_table import ScriptedTable, check_deal, check_round, start_seep_deal

SCAN_WAIT = 30.0  # seconds the film may take to be read by itself before the demo gives up


def film_scanner(app: Any, table: ScriptedTable, reading_s: float = 0.0) -> Any:
    """The kiosk's scanner reading ``table``'s detections from a scripted table's films (each reading
    taking at least ``reading_s``, as a real one does, so a screenshot can catch it)."""
    from ui.logic.scan import Scanner
    from vision.devtools.table_film import FilmCamera
    from vision.runtimes.fake import FakeDetector

    app.scanner.release_camera()
    app.scanner.settle()
    return Scanner(
        app.camera_spec(),
        None,
        dispatch=app._dispatch,
        detector=FakeDetector(lambda image: _slowly(reading_s, table.detections, image)),
        after_frame=app._after_frame,
        camera=FilmCamera(),
    )


def _slowly(seconds: float, read: Any, image: Any) -> Any:
    time.sleep(seconds)
    return read(image)


def lay(app: Any, hands: list[list[str]], seats: Any, seed: int) -> None:
    """The scripted table's next film: cleared, then these hands laid in front of the seats, then still."""
    from vision.devtools.table_film import laying_film

    film = laying_film(hands, list(seats.seats), seats.centre, surface="felt", seed=seed)
    app.scanner._given_camera.play(film)


def read_by_itself(app: Any) -> Script:
    """Wait until the watcher has read the table and the result is on screen."""
    begun, before = time.monotonic(), app.scan_started
    # a scan begun since (app.scan_started moves at every scan): a quick reading may have begun and ended
    # between two looks at app.scanner.busy and app.scan_pending
    while app.scan_started == before and not (app.scanner.busy or app.scan_pending):
        if time.monotonic() - begun > SCAN_WAIT:
            raise DemoError(f"the table was not read by itself within {SCAN_WAIT:.0f} s")
        yield 0.1
    yield from wait_idle(app)


def tap_count_script(d: Driver, app: Any) -> Script:
    """Counts the taps of a Jhyap round and a Seep deal with the table watched: the cards are read when
    they are down and still, so a round read right costs Score alone."""
    from ui.logic.check import card_choices, jhyap_view

    table = ScriptedTable()
    app.scanner = film_scanner(app, table)
    counts: dict[str, int] = {}
    yield 0.2
    yield from new_jhyap(d, app)
    caller, hands, seats = table.lay_round(app)
    for k, case in enumerate(("read right", "one card misread", "one card misplaced")):
        table.misread = ("9C", "6C") if case == "one card misread" else None
        table.misplaced = ("8S", 3) if case == "one card misplaced" else None  # Chandra's 8S by Dipa's hand
        lay(app, table.hands, seats, k)
        before = d.taps
        yield from read_by_itself(app)
        if case == "read right":
            yield from d.shot("taps-read-by-itself")  # the result waits for Score
        flow = app.kiosk.jhyap
        if flow.caller != caller:
            yield from d.press(f"caller-{flow.active.index(caller)}")
        if case == "one card misread":
            seat = PLAYERS.index("बिकास")
            index = [c.code for c in flow.hands["बिकास"]].index("6C")
            yield from d.press(f"card-{seat}-{index}", "alt-9C")
        if case == "one card misplaced":
            seat = PLAYERS.index("Dipa")
            index = [c.code for c in flow.hands["Dipa"]].index("8S")
            yield from d.press(f"card-{seat}-{index}")
            choices = card_choices(flow, jhyap_view(flow), "Dipa", index)
            yield from d.press(f"move-{[o for o, _ in choices.move_to].index('Chandra')}")
        check_round(case, flow, hands)
        yield from d.press("confirm")
        counts[f"jhyap, {case}"] = d.taps - before
    # Seep: the sweeps during play, then both piles laid out on their halves: read by themselves.
    captured, sweeps, halves, before = yield from start_seep_deal(d, app, table)
    lay(app, table.hands, halves, 3)
    yield 1.0
    yield from d.shot("taps-seep-watching")
    yield from read_by_itself(app)
    check_deal(app, captured)
    yield from d.press("confirm")
    counts[f"seep, read right, {len(sweeps)} sweeps"] = d.taps - before
    print("TAPS " + json.dumps(counts, ensure_ascii=False), flush=True)


def watch_script(d: Driver, app: Any) -> Script:
    """One round played on the scripted table with the table watched: a screenshot of the live view with
    each of its words, then of the cards read by themselves (the result waits for Score)."""
    from ui.logic.watching import HOLD, READING, WAITING

    table = ScriptedTable()
    app.scanner = film_scanner(app, table, reading_s=1.0)
    yield 0.2
    yield from new_jhyap(d, app)
    caller, hands, seats = table.lay_round(app)
    lay(app, table.hands, seats, 0)
    live = app.live
    shot_words = {WAITING: "watch-waiting", HOLD: "watch-hold", READING: "watch-reading"}
    begun = time.monotonic()
    while shot_words:
        words = live.watch._words
        if words in shot_words and live.view_widget is not None and live.view_widget.words.text:
            yield 0.05  # the words drawn
            d.capture(shot_words.pop(words))
        if time.monotonic() - begun > SCAN_WAIT:
            raise DemoError(f"the live view never said {sorted(shot_words)}")
        yield 0.05
    yield from wait_idle(app)
    step("round read by itself")
    yield from d.shot("watch-read")
    if app.kiosk.jhyap.caller != caller:
        raise DemoError(f"the caller {caller} was not preselected ({app.kiosk.jhyap.caller})")
    yield from d.press("confirm")
    yield from d.shot("watch-scored")
    # The next round's screen while the scored cards still lie there: the same still table is not read again.
    yield 3.0
    if app.scanner.busy or app.scan_pending or app.kiosk.jhyap.table_scan is not None:
        raise DemoError("the table read for round 1 was read again for round 2")


def watch_cpu_script(d: Driver, app: Any, seconds: float = 8.0, pairs: int = 2) -> Script:
    """The kiosk's CPU on a round screen waiting for its cards, the table watched against not (Settings'
    switch), alternated in one run: this whole process (the UI thread drawing the live view included) as a
    share of one core. The camera holds an empty table (nothing is read)."""
    from ui.logic.watching import set_watching
    from vision.devtools.table_film import Film, FilmCamera, Shot

    table = ScriptedTable()
    app.scanner = film_scanner(app, table)
    yield 0.2
    yield from new_jhyap(d, app)
    seats = app.kiosk.seat_map()
    camera: FilmCamera = app.scanner._given_camera
    camera.play(Film(seats.seats, seats.centre, [Shot("empty", 1, ())]))
    figures: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(pairs):
        for state in ("off", "on"):
            set_watching(app.store, state == "on")
            app.refresh()
            yield 1.0  # settled
            frames = app.live.frames
            wall, cpu = time.perf_counter(), time.process_time()
            yield seconds
            share = (time.process_time() - cpu) / (time.perf_counter() - wall)
            figures[state].append(round(100 * share, 2))
            if state == "on" and app.live.frames - frames < seconds * 3:
                raise DemoError(f"the live view took {app.live.frames - frames} frames in {seconds:.0f} s")
    print("WATCHCPU " + json.dumps(figures), flush=True)
