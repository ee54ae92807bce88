"""The rendered systemd unit passes `systemd-analyze verify` (Debian's systemd 252, as on Bookworm)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path, PurePosixPath

import pytest

from deploy.render import Display, KioskSettings, Session, render_unit


def _verify_works() -> str | None:
    """None when systemd-analyze verify can run here, else the measured reason it cannot."""
    if shutil.which("systemd-analyze") is None:
        return "systemd-analyze is not installed (Debian package systemd)"
    with tempfile.TemporaryDirectory() as folder:
        unit = Path(folder) / "probe.service"
        unit.write_text("[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n")
        try:
            result = subprocess.run(
                ["systemd-analyze", "verify", str(unit)],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"systemd-analyze verify does not run here: {exc}"
    if result.returncode != 0 or result.stdout.strip() or result.stderr.strip():
        output = (result.stdout + result.stderr).strip()
        return f"systemd-analyze verify fails on a trivial unit here (status {result.returncode}): {output}"
    return None


SKIP_REASON = _verify_works()
needs_verify = pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or "")


def _settings(venv: Path, session: Session, display: Display = Display.DSI7) -> KioskSettings:
    return KioskSettings(
        user="pi",
        uid=1000,
        venv=PurePosixPath(venv),
        state_dir=PurePosixPath("/var/lib/tabletally"),
        env_file=PurePosixPath("/etc/tabletally/kiosk.env"),
        session=session,
        display=display,
        rotation=display.default_rotation,
    )


def _verify(unit_text: str, folder: Path) -> tuple[int, str]:
    unit = folder / "tabletally-kiosk.service"
    unit.write_text(unit_text)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    return result.returncode, (result.stdout + result.stderr).strip()


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A venv stand-in whose bin/tabletally exists (verify checks that ExecStart is executable)."""
    exe = tmp_path / "venv" / "bin" / "tabletally"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    return tmp_path / "venv"


@needs_verify
@pytest.mark.parametrize("session", list(Session), ids=lambda s: s.value)
def test_rendered_unit_passes_systemd_analyze_verify_without_complaints(
    session: Session, venv: Path, tmp_path: Path
) -> None:
    status, output = _verify(render_unit(_settings(venv, session)), tmp_path)
    assert (status, output) == (0, "")


@needs_verify
@pytest.mark.parametrize(
    ("good", "bad", "complaint"),
    [
        ("KillSignal=SIGINT", "KillSignal=SIGFOO", "signal"),
        ("Restart=always", "Restart=sometimes", "restart"),
        ("ExecStart=", "ExecStart=/nonexistent", "not executable"),
    ],
)
def test_verify_catches_a_broken_unit(
    good: str, bad: str, complaint: str, venv: Path, tmp_path: Path
) -> None:
    text = render_unit(_settings(venv, Session.KMS))
    assert good in text
    status, output = _verify(text.replace(good, bad, 1), tmp_path)
    assert status != 0 or output, (
        "systemd-analyze accepted a broken unit: the check above would prove nothing"
    )
    assert complaint in output.lower()


def test_kms_unit_takes_the_console_and_the_devices_it_needs(venv: Path) -> None:
    text = render_unit(_settings(venv, Session.KMS))
    assert "Conflicts=getty@tty1.service" in text
    assert "SupplementaryGroups=video render input" in text
    assert "WantedBy=multi-user.target" in text
    assert "ExecStartPre" not in text


def test_desktop_unit_waits_for_the_desktop_display(venv: Path) -> None:
    text = render_unit(_settings(venv, Session.DESKTOP))
    assert "WantedBy=graphical.target" in text
    assert "/tmp/.X11-unix/X0" in text
    assert "$$(seq 60)" in text  # '$' escaped for systemd, so the shell sees $(seq 60)
    assert "getty" not in text


@pytest.mark.parametrize("session", list(Session), ids=lambda s: s.value)
def test_unit_restarts_the_kiosk_stops_it_gently_and_keeps_data_and_logs(
    session: Session, venv: Path
) -> None:
    lines = set(render_unit(_settings(venv, session)).splitlines())
    assert {
        "User=pi",
        f"ExecStart={venv}/bin/tabletally kiosk --fullscreen",
        "Restart=always",
        "KillSignal=SIGINT",
        "KillMode=mixed",
        "TimeoutStopSec=15",
        "SuccessExitStatus=130",
        "StateDirectory=tabletally tabletally/data tabletally/kivy",
        "EnvironmentFile=/etc/tabletally/kiosk.env",
        "EnvironmentFile=-/etc/tabletally/local.env",
        "StandardOutput=journal",
        "StandardError=journal",
    } <= lines
    assert not any("@" in line and line.count("@") >= 2 for line in lines if not line.startswith("#")), (
        "an unreplaced @PLACEHOLDER@ is left"
    )


def test_portrait_touch_display_2_asks_the_kiosk_for_its_portrait_layout(venv: Path) -> None:
    portrait = render_unit(_settings(venv, Session.KMS, Display.TD2_PORTRAIT))
    assert f"ExecStart={venv}/bin/tabletally kiosk --fullscreen --size portrait" in portrait.splitlines()
    landscape = render_unit(_settings(venv, Session.KMS, Display.TD2_LANDSCAPE))
    assert f"ExecStart={venv}/bin/tabletally kiosk --fullscreen" in landscape.splitlines()


def test_unit_starts_the_kiosk_command_that_exists() -> None:
    """The unit's ExecStart options are options `tabletally kiosk` really has."""
    from ui.cli import build_parser

    args = build_parser().parse_args(["kiosk", "--fullscreen", "--size", "portrait"])
    assert args.fullscreen is True and args.size == "portrait"


# --- the fence ---

SECURITY_TARGET = 4.0


def _exposure(unit_text: str, folder: Path) -> tuple[float, str]:
    unit = folder / "tabletally-kiosk.service"
    unit.write_text(unit_text)
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    output = result.stdout + result.stderr
    line = next(line for line in output.splitlines() if "Overall exposure level" in line)
    return float(line.split(":")[1].split()[0]), output


@needs_verify
@pytest.mark.parametrize("session", list(Session), ids=lambda s: s.value)
def test_systemd_analyze_security_rates_the_unit_at_most_4(
    session: Session, venv: Path, tmp_path: Path
) -> None:
    exposure, output = _exposure(render_unit(_settings(venv, session)), tmp_path)
    assert exposure <= SECURITY_TARGET, output


@needs_verify
def test_the_security_check_would_catch_a_loose_unit(venv: Path, tmp_path: Path) -> None:
    """The unit before the fence (ProtectSystem=full and five other lines) rated 8.0: the check can fail."""
    text = render_unit(_settings(venv, Session.KMS))
    start, end = text.index("UMask=0077"), text.index("TasksMax=256")
    loose = text[:start] + "NoNewPrivileges=yes\nProtectSystem=full\n" + text[end + len("TasksMax=256") :]
    exposure, _ = _exposure(loose, tmp_path)
    assert exposure > SECURITY_TARGET


@pytest.mark.parametrize("session", list(Session), ids=lambda s: s.value)
def test_the_unit_fences_files_network_system_calls_and_memory(session: Session, venv: Path) -> None:
    lines = set(render_unit(_settings(venv, session)).splitlines())
    assert {
        "UMask=0077",
        "ProtectSystem=strict",
        "ReadWritePaths=/var/lib/tabletally",
        "PrivateTmp=yes",
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=",
        "IPAddressDeny=any",
        "IPAddressAllow=localhost",
        "SystemCallFilter=@system-service",
        "SystemCallArchitectures=native",
        "MemoryMax=75%",
    } <= lines
    home = "ProtectHome=yes" if session is Session.KMS else "ProtectHome=read-only"
    assert home in lines
    if session is Session.DESKTOP:  # the X socket of the desktop, through the private /tmp
        assert {"BindReadOnlyPaths=/tmp/.X11-unix", "ReadWritePaths=-/run/user/1000"} <= lines


def test_phone_sharing_drop_in_widens_only_the_address_allow_list() -> None:
    drop_in = (Path(__file__).resolve().parents[2] / "deploy" / "tabletally-share.conf").read_text()
    settings = [line for line in drop_in.splitlines() if line and not line.startswith(("#", "["))]
    assert [s.split("=")[0] for s in settings] == ["IPAddressAllow", "Environment"]
