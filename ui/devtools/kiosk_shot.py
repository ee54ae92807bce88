"""Start the kiosk as ``tabletally kiosk`` starts it, headless, wait for its first screen, save a screenshot
of it and the words it shows, and stop: ``make pi-check``'s proof that the installed kiosk starts
(deploy/pi-check.sh runs it in the Debian arm64 root, and on this machine to compare).

Run it by path with the Python whose TableTally is to be checked (the Pi's venv), so that ``ui`` is the
installed package and not this checkout::

    /opt/tabletally/venv/bin/python ui/devtools/kiosk_shot.py OUT.png [tabletally kiosk options]

It prints one line, ``KIOSK {"screen": ..., "words": [...], "png": ..., "seconds": ...}``, and exits 0;
1 when the kiosk ended or failed before a screen was shown, or showed none within ``--wait`` seconds.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

FRAMES_AFTER = 3  # frames drawn after the first screen appears, before it is photographed
POLL = 0.25


def _words(root: Any) -> list[str]:
    """Every non-empty text a widget under ``root`` shows, once each, in order."""
    seen: list[str] = []
    for widget in root.walk(restrict=True):
        text = getattr(widget, "text", None)
        if isinstance(text, str) and text.strip() and text.strip() not in seen:
            seen.append(text.strip())
    return seen


def main(argv: list[str]) -> int:
    wait = 1800.0
    if argv[:1] == ["--wait"]:
        wait, argv = float(argv[1]), argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out, kiosk_args = Path(argv[0]).resolve(), argv[1:]
    os.environ["SDL_VIDEODRIVER"] = "offscreen"
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    started = time.monotonic()
    result: dict[str, Any] = {}
    frames = [0]

    from kivy.clock import Clock

    def look(_dt: float) -> None:
        from kivy.app import App

        app = App.get_running_app()
        if time.monotonic() - started > wait:
            result["error"] = f"no screen within {wait:.0f} s"
            if app is not None:
                app.stop()
            return
        if app is None or app.root is None:
            return
        frames[0] += 1
        if frames[0] < FRAMES_AFTER or "png" in result:
            return
        from kivy.core.window import Window

        out.parent.mkdir(parents=True, exist_ok=True)
        written = Window.screenshot(name=str(out.with_name("kiosk-shot.png")))
        if written:
            os.replace(written, out)
        result.update(
            screen=str(getattr(app.root, "current", type(app.root).__name__)),
            words=_words(app.root),
            png=str(out),
            size=list(Window.size),
            seconds=round(time.monotonic() - started, 1),
        )
        app.stop()

    Clock.schedule_interval(look, POLL)
    from ui.cli import main as tabletally

    status = tabletally(["kiosk", *kiosk_args])
    if "png" not in result:
        result.setdefault("error", f"the kiosk ended (status {status}) before showing a screen")
    print("KIOSK " + json.dumps(result, ensure_ascii=False), flush=True)
    return 0 if "png" in result and Path(result["png"]).is_file() else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
