"""The camera check screen on the real (headless) kiosk: opened from Settings, the live view of the folder
camera, Check reads the photo, and every word fits at 800x480 and 720x1280 in each language."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.catalogs import has_catalog
from tests.ui.headless import demo_result, run_demo
from ui.i18n import DEFAULT_LANGUAGE, LANGUAGES

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_camera_check_reads_a_photo_and_its_words_fit(tmp_path: Path, language: str, size: str) -> None:
    if language != DEFAULT_LANGUAGE and not has_catalog(language):
        pytest.skip(f"no compiled {language} catalog (make catalogs)")
    shots = tmp_path / "shots"
    proc = run_demo(
        tmp_path, "--script", "camera-check", "--out", str(shots), "--size", size, "--language", language
    )
    result = demo_result(proc)
    assert "STEP camera check done" in proc.stdout
    assert result["cut_text"] == [] and result["small_targets"] == []
    names = sorted(p.name for p in (shots / size).glob("*.png"))
    assert names == [
        "01-camera-check-settings.png",
        "02-camera-check-live.png",
        "03-camera-check-result.png",
    ]


FIRST_START = """
import json, sys
from pathlib import Path
from ui.commands.kiosk import configure_kivy
configure_kivy((800, 480))
from kivy.clock import Clock
from ui.app import TableTallyApp
from ui.logic.kiosk import Kiosk
from ui.store import Store
store = Store(Path(sys.argv[1]))
if sys.argv[2] == "first":
    Kiosk(store).set_language("en")  # chosen on the home screen at first start
app = TableTallyApp(store, camera="demo")
seen = {}
def look(_dt):
    seen["start"] = app.current
    if app.current == "camera_check":
        app.screens["camera_check"].leave()  # Skip
        seen["after_skip"] = app.current
    app.stop()
Clock.schedule_once(lambda _dt: Clock.schedule_once(look, 1.0), 0.5)
app.run()
app.scanner.settle()
print("SEEN " + json.dumps(seen))
"""


def test_first_start_opens_the_camera_check_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.ui.headless import ROOT, headless_env, result_line

    data = tmp_path / "data"
    seen = []
    for phase in ("first", "again"):
        proc = subprocess.run(
            [sys.executable, "-c", FIRST_START, str(data), phase],
            cwd=ROOT,
            env=headless_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=300,
        )
        seen.append(result_line(proc.stdout, "SEEN "))
    assert seen == [{"start": "camera_check", "after_skip": "home"}, {"start": "home"}]
