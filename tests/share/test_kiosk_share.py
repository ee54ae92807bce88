"""`tabletally kiosk --share`: the real kiosk (Kivy on an offscreen window) serves the phones from its own
process, and its port closes when the kiosk stops."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.share.helpers import request

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        return int(sock.getsockname()[1])


def test_kiosk_share_serves_the_page_from_the_kiosk_process_until_it_stops(tmp_path: Path) -> None:
    port = free_port()
    env = dict(
        os.environ,
        SDL_VIDEODRIVER="offscreen",
        KIVY_NO_ARGS="1",
        KIVY_NO_CONSOLELOG="1",
        KIVY_HOME=str(tmp_path / "kivy"),
        PYTHONUNBUFFERED="1",
    )
    cmd = [sys.executable, "-m", "ui.cli", "kiosk", "--share", "--share-port", str(port)]
    cmd += ["--data-dir", str(tmp_path / "data"), "--camera", "demo"]
    kiosk = subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as systemd starts it
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, headers, body = request(port, path="/api/snapshot")
                break
            except OSError:
                assert kiosk.poll() is None, kiosk.communicate()[0][-3000:]
                assert time.monotonic() < deadline, "the kiosk never opened its port for the phones"
                time.sleep(0.5)
        assert status == 200 and json.loads(body)["game"] is None
        assert request(port, path="/")[0] == 200
        assert request(port, "POST", "/api/snapshot")[0] == 405
        time.sleep(5.0)  # the card model finishes loading (a stop in the middle of that is another matter)
        assert request(port, path="/api/snapshot")[0] == 200
    finally:
        kiosk.send_signal(signal.SIGINT)  # what systemd sends to stop it
        out = kiosk.communicate(timeout=60)[0]
    assert kiosk.returncode in (0, 130), out[-3000:]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
