"""make pi-check's judgements (ui/devtools/pi_check.py) and its refusals (deploy/pi-check.sh) without
building an arm64 root: the full check runs only by hand (`sudo make pi-check`, tens of minutes)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JUDGE = ROOT / "ui" / "devtools" / "pi_check.py"


def _judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(JUDGE), *args], capture_output=True, text=True, timeout=60, check=False
    )


def _card(code: str, confidence: float = 0.9, box: tuple[float, ...] = (0, 0, 1, 1)) -> dict[str, object]:
    return {"code": code, "confidence": confidence, "uncertain": False, "box": list(box)}


def _write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_the_same_cards_there_pass_and_another_card_fails(tmp_path: Path) -> None:
    here = [{"image": "/x/hand1.jpg", "ms": 900.0, "cards": [_card("AS"), _card("7H")], "hands": [[0, 1]]}]
    same = [
        {"image": "/y/hand1.jpg", "ms": 90000.0, "cards": [_card("7H", 0.91), _card("AS")], "hands": [[0, 1]]}
    ]
    result = _judge("detect", _write(tmp_path / "a.json", here), _write(tmp_path / "b.json", same))
    assert result.returncode == 0, result.stdout
    assert "hand1.jpg: 2 cards, the same there" in result.stdout

    other = [{"image": "/y/hand1.jpg", "ms": 1.0, "cards": [_card("AS"), _card("7D")], "hands": [[0, 1]]}]
    result = _judge("detect", _write(tmp_path / "a.json", here), _write(tmp_path / "c.json", other))
    assert result.returncode == 1
    assert "hand1.jpg: cards differ: here only ['7H'], there only ['7D']" in result.stdout

    missing: list[object] = []
    result = _judge("detect", _write(tmp_path / "a.json", here), _write(tmp_path / "d.json", missing))
    assert result.returncode == 1 and "hand1.jpg: read here, not there" in result.stdout


def test_the_doctor_must_say_plainly_that_there_is_no_camera(tmp_path: Path) -> None:
    def report(status: str, summary: str) -> str:
        checks = [
            {"name": "camera", "status": status, "summary": summary, "fix": "Connect it.", "details": []}
        ]
        return _write(tmp_path / "doctor.json", {"ok": status == "ok", "checks": checks})

    assert _judge("doctor", report("problem", "no camera found (no Pi camera)")).returncode == 0
    found = _judge("doctor", report("ok", "imx708: ready"))
    assert found.returncode == 1 and "found a camera where there is none" in found.stdout
    vague = _judge("doctor", report("problem", "listing the cameras failed: oops"))
    assert vague.returncode == 1 and "does not say plainly" in vague.stdout


def test_the_kiosk_there_must_show_home_with_the_words_shown_here(tmp_path: Path) -> None:
    home = {"screen": "home", "words": ["TableTally", "New Jhyap game"], "size": [800, 480], "seconds": 5}
    here = tmp_path / "here.json"
    here.write_text("KIOSK " + json.dumps(home))
    there = tmp_path / "there.json"
    there.write_text("KIOSK " + json.dumps({**home, "seconds": 300}))
    assert _judge("kiosk", str(here), str(there)).returncode == 0
    there.write_text("KIOSK " + json.dumps({**home, "screen": "fault", "words": ["The record is damaged"]}))
    result = _judge("kiosk", str(here), str(there))
    assert result.returncode == 1 and "'fault' screen, not home" in result.stdout
    there.write_text("KIOSK " + json.dumps({"error": "no screen within 1800 s"}))
    assert "no screen within 1800 s" in _judge("kiosk", str(here), str(there)).stdout


def test_the_unit_s_exposure_is_read_from_systemd_analyze_and_held_to_the_limit(tmp_path: Path) -> None:
    out = tmp_path / "security.txt"
    out.write_text(
        "  NAME  DESCRIPTION  EXPOSURE\n-> Overall exposure level for tabletally-kiosk.service: 1.6 OK\n"
    )
    assert _judge("security", str(out), "4.0").returncode == 0
    out.write_text("-> Overall exposure level for tabletally-kiosk.service: 8.0 EXPOSED\n")
    result = _judge("security", str(out), "4.0")
    assert result.returncode == 1 and "exposure 8.0 is over 4.0" in result.stdout


def _pi_check(*args: str, as_nobody: bool = False) -> subprocess.CompletedProcess[str]:
    command = ["bash", str(ROOT / "deploy" / "pi-check.sh"), *args]
    if as_nobody:
        command = ["runuser", "-u", "nobody", "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_pi_check_refuses_a_release_without_a_lock_before_doing_anything() -> None:
    result = _pi_check("bullseye")
    assert result.returncode == 2
    assert "pi-check: cannot run here: there is no lock for 'bullseye'" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("runuser") is None, reason="no runuser to drop root")
def test_pi_check_says_plainly_that_it_needs_root() -> None:
    result = _pi_check("trixie", as_nobody=os.geteuid() == 0)
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "pi-check: cannot run here: it needs root (mmdebstrap, chroot, mounts): run sudo make pi-check"
    )
