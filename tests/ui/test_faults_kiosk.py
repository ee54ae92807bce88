"""The real Kivy kiosk (headless, SDL offscreen) with a broken record: it stays up on a screen that says
what happened instead of exiting (which systemd would turn into a restart loop behind a black screen), and
a full disk in the middle of a night shows the full-disk screen instead of ending the app."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ui.headless import ROOT, headless_env
from ui.store import DB_NAME, Store

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.mark.parametrize("broken", ["corrupt", "foreign", "newer"])
def test_the_kiosk_stays_up_on_a_broken_record(tmp_path: Path, broken: str) -> None:
    data = tmp_path / "data"
    Store(data).close()
    db = data / DB_NAME
    if broken == "corrupt":
        db.write_bytes(os.urandom(16384))
    elif broken == "foreign":
        db.unlink()
        import sqlite3

        con = sqlite3.connect(db)
        con.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
        con.commit()
        con.close()
    else:
        import sqlite3

        con = sqlite3.connect(db)
        con.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
        con.commit()
        con.close()
    before = db.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ui.cli", "kiosk", "--data-dir", str(data), "--camera", "demo"],
        cwd=ROOT,
        env=headless_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(12)
        assert proc.poll() is None, f"the kiosk exited ({proc.returncode}): {proc.communicate()[1][-2000:]}"
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert "tabletally kiosk:" in err  # the journal still gets the details
    if broken != "corrupt":
        assert db.read_bytes() == before  # refused, never changed


SCRIPT = """
import os, sys
from pathlib import Path
from ui.commands.kiosk import configure_kivy
configure_kivy((800, 480))
from kivy.clock import Clock
from ui.app import TableTallyApp
from ui.store import Store
store = Store(Path(sys.argv[1]))
app = TableTallyApp(store, camera="demo")

def fill(_dt):
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # the card is full from now on
    store.set_setting(os.urandom(8).hex(), "x" * 8000)  # a tap that writes

def report(_dt):
    print("SCREEN", app.sm.current, flush=True)
    app.stop()

Clock.schedule_once(fill, 2)
Clock.schedule_once(report, 4)
app.run()
print("STOPPED", flush=True)
"""


def test_a_full_disk_mid_night_shows_the_full_disk_screen(tmp_path: Path) -> None:
    data = tmp_path / "data"
    Store(data).close()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(data)],
        cwd=ROOT,
        env=headless_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert "SCREEN fault" in done.stdout, done.stdout + done.stderr[-3000:]
    assert "STOPPED" in done.stdout
