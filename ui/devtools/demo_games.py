"""The demo's game scripts on the real kiosk: a Jhyap game and Seep deals, the full walk of every screen,
the nights, sharing, a crash and the resume after it, the camera check, and players across nights."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from ui.devtools.demo_data import DEALS, MAX_SCORE, PLAYERS, ROUNDS, show_photo
from ui.devtools.demo_driver import (
    DemoError,
    Driver,
    Script,
    reveal,
    set_hand,
    set_team,
    step,
    type_name,
    wait_idle,
)


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
