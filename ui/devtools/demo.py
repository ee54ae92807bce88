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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ui.devtools.demo_driver import SIZES, Driver, Script
from ui.devtools.demo_games import camera_check_script, crash_script, full_demo, resume_script, story_script
from ui.devtools.demo_table import five_players_script, scan_speed_script, tap_count_script

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
