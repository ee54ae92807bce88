"""The unit stops the kiosk with SIGINT and counts exit status 130 as success: check that the real
`tabletally kiosk` (on a virtual screen) does exit promptly with 130 on SIGINT, as systemd will send it.
Where the test may drop the network (unshare -n, as root), the kiosk and the doctor run without any: nothing
they need is downloaded at run time."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path, PurePosixPath

import pytest

from deploy.render import Display, KioskSettings, Session, render_unit

TABLETALLY = Path(sys.executable).with_name("tabletally")


def _offline_prefix() -> list[str]:
    """["unshare", "-n"] where this process may start programs without a network, else []."""
    if shutil.which("unshare") is None:
        return []
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False)
    return ["unshare", "-n"] if probe.returncode == 0 else []


OFFLINE = _offline_prefix()


def _unit_stop_settings() -> dict[str, str]:
    """KillSignal, TimeoutStopSec and SuccessExitStatus of the rendered unit."""
    settings = KioskSettings(
        user="pi",
        uid=1000,
        venv=PurePosixPath("/opt/tabletally/venv"),
        state_dir=PurePosixPath("/var/lib/tabletally"),
        env_file=PurePosixPath("/etc/tabletally/kiosk.env"),
        session=Session.KMS,
        display=Display.DSI7,
        rotation=0,
    )
    keys = ("KillSignal=", "TimeoutStopSec=", "SuccessExitStatus=")
    return dict(line.split("=", 1) for line in render_unit(settings).splitlines() if line.startswith(keys))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed (deploy/dev-setup.sh)")
@pytest.mark.skipif(not TABLETALLY.exists(), reason="the tabletally command is not installed in this venv")
def test_kiosk_exits_with_the_units_success_status_soon_after_sigint(tmp_path: Path) -> None:
    stop = _unit_stop_settings()
    assert stop["KillSignal"] == "SIGINT"
    display = f":{90 + os.getpid() % 100}"
    xvfb = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "800x480x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    data = tmp_path / "data"
    env = {
        **os.environ,
        "DISPLAY": display,
        "TABLETALLY_DATA_DIR": str(data),
        "KIVY_HOME": str(tmp_path / "kivy"),
        "KIVY_NO_ARGS": "1",
        "SDL_AUDIODRIVER": "dummy",
    }
    kiosk = None
    try:
        time.sleep(1.0)
        # systemd starts services with SIGINT at its default disposition; so does this.
        kiosk = subprocess.Popen(
            [*OFFLINE, str(TABLETALLY), "kiosk", "--camera", "demo"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 60
        while (
            not (data / "tabletally.sqlite3").exists()
            and kiosk.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.5)
        time.sleep(5.0)  # let the window come up and the event loop run
        assert kiosk.poll() is None, f"the kiosk stopped by itself: {kiosk.communicate()[0][-2000:]}"
        started = time.monotonic()
        kiosk.send_signal(signal.SIGINT)
        status = kiosk.wait(timeout=float(stop["TimeoutStopSec"]))
        took = time.monotonic() - started
    finally:
        if kiosk is not None and kiosk.poll() is None:
            kiosk.kill()
        xvfb.terminate()
        xvfb.wait(timeout=10)
    assert str(status) in stop["SuccessExitStatus"].split() or status == 0
    assert took < float(stop["TimeoutStopSec"])


@pytest.mark.skipif(not OFFLINE, reason="cannot drop the network here (unshare -n needs root)")
@pytest.mark.skipif(not TABLETALLY.exists(), reason="the tabletally command is not installed in this venv")
def test_doctor_runs_to_the_end_without_a_network(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            *OFFLINE,
            str(TABLETALLY),
            "doctor",
            "--json",
            "--data-dir",
            str(tmp_path),
            "--env-file",
            "/nonexistent",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    assert [c["name"] for c in json.loads(result.stdout)["checks"]] == [
        "camera",
        "model",
        "display",
        "database",
        "disk",
        "runtime",
    ]
