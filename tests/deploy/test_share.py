"""Scores on phones in the deploy scripts: nothing is opened by default; deploy/share.sh on|off (and
install.sh --share) add or remove the drop-in that lets the kiosk's service reach the home network only."""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
from pathlib import Path

import pytest

from ui.share.net import LAN_RANGES, is_local_address

REPO = Path(__file__).resolve().parents[2]
DROP_IN = "/etc/systemd/system/tabletally-kiosk.service.d/tabletally-share.conf"


def allowed_ranges(text: str) -> list[str]:
    return [
        r
        for line in text.splitlines()
        if line.startswith("IPAddressAllow=")
        for r in line.split("=")[1].split()
    ]


def test_the_drop_in_allows_the_home_network_ranges_and_nothing_else() -> None:
    text = (REPO / "deploy/tabletally-share.conf").read_text()
    ranges = allowed_ranges(text)
    assert ranges == list(LAN_RANGES)  # the same ranges the kiosk itself serves
    for r in ranges:
        net = ipaddress.ip_network(r)
        assert is_local_address(str(net.network_address + 1))
    assert "IPAddressDeny" not in text and "any" not in ranges  # it only adds to the unit's allow list
    assert "Environment=TABLETALLY_SHARE_ALLOWED=1" in text


def test_share_on_installs_the_drop_in_and_restarts_a_running_kiosk(fake_pi) -> None:
    result = fake_pi.run("share.sh", "on")
    assert result.returncode == 0, result.stderr
    assert fake_pi.path(DROP_IN).read_text() == (REPO / "deploy/tabletally-share.conf").read_text()
    assert fake_pi.calls("systemctl") == [
        ["systemctl", "daemon-reload"],
        ["systemctl", "try-restart", "tabletally-kiosk.service"],
    ]
    again = fake_pi.run("share.sh", "on")
    assert f"unchanged: {fake_pi.path(DROP_IN)}" in again.stdout
    status = fake_pi.run("share.sh", "status")
    assert "on: phones on the home network can reach the kiosk" in status.stdout


def test_share_off_removes_it_and_its_folder(fake_pi) -> None:
    fake_pi.run("share.sh", "on", "--no-restart")
    result = fake_pi.run("share.sh", "off")
    assert result.returncode == 0, result.stderr
    assert not fake_pi.path(DROP_IN).exists()
    assert not fake_pi.path(DROP_IN).parent.exists()
    assert ["systemctl", "try-restart", "tabletally-kiosk.service"] in fake_pi.calls("systemctl")
    assert "off: the kiosk's service allows no network traffic" in fake_pi.run("share.sh", "status").stdout


def test_share_dry_run_changes_nothing_and_needs_an_action(fake_pi) -> None:
    before = fake_pi.snapshot()
    result = fake_pi.run("share.sh", "on", "--dry-run")
    assert result.returncode == 0
    assert f"would write: {fake_pi.path(DROP_IN)} (mode 0644, owner root:root)" in result.stdout
    assert "would run: systemctl daemon-reload" in result.stdout
    assert fake_pi.snapshot() == before and fake_pi.calls() == []
    assert fake_pi.run("share.sh").returncode == 2
    assert fake_pi.run("share.sh", "open").returncode == 2


def test_install_opens_nothing_by_default_and_the_drop_in_with_share(fake_pi, user) -> None:
    plain = fake_pi.run("install.sh", "--dry-run", "--user", user)
    assert plain.returncode == 0, plain.stderr
    assert "tabletally-share.conf" not in plain.stdout
    shared = fake_pi.run("install.sh", "--dry-run", "--share", "--user", user)
    assert shared.returncode == 0, shared.stderr
    assert f"would write: {fake_pi.path(DROP_IN)} (mode 0644, owner root:root)" in shared.stdout
    assert (
        "    | IPAddressAllow=10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 169.254.0.0/16 fc00::/7 fe80::/10"
        in (shared.stdout.splitlines())
    )


def test_uninstall_removes_the_drop_in(fake_pi) -> None:
    fake_pi.run("share.sh", "on", "--no-restart")
    unit = fake_pi.path("/etc/systemd/system/tabletally-kiosk.service")
    unit.write_text("[Service]\n")
    result = fake_pi.run("uninstall.sh")
    assert result.returncode == 0, result.stderr
    assert not fake_pi.path(DROP_IN).exists() and not fake_pi.path(DROP_IN).parent.exists()


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze (Debian package systemd)"
)
def test_the_drop_in_is_valid_systemd_syntax(tmp_path: Path) -> None:
    unit = tmp_path / "probe.service"
    text = (REPO / "deploy/tabletally-share.conf").read_text()
    unit.write_text("[Unit]\nDescription=probe\n" + text + "ExecStart=/bin/true\nIPAddressDeny=any\n")
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0 and "IPAddress" not in result.stdout + result.stderr, result.stderr


# --- the doctor: which address phones use ---


def _record(data_dir: Path, **settings: str) -> None:
    from ui.store import Store

    store = Store(data_dir)
    for key, value in settings.items():
        store.set_setting(key, value)
    store.close()


def _sharing_only(
    tmp_path: Path, addresses: list[str], env: dict[str, str] | None = None, unit: bool = False
):
    from ui.commands import doctor

    drop_in = tmp_path / "systemd/tabletally-kiosk.service.d/tabletally-share.conf"
    if unit:
        (tmp_path / "systemd").mkdir(parents=True, exist_ok=True)
        (tmp_path / "systemd/tabletally-kiosk.service").write_text("[Service]\n")
    probes = doctor.Probes(
        list_cameras=list,
        load_detector=lambda path: None,
        test_photos=list,
        read_image=lambda path: None,
        blank_image=lambda: None,
        lan_addresses=lambda: addresses,
        share_drop_in=drop_in,
    )
    others = frozenset(c for c in doctor.CheckName if c is not doctor.CheckName.SHARING)
    return doctor.run_checks(probes, env or {}, tmp_path / "data", tmp_path / "m.onnx", others), drop_in


def test_doctor_says_nothing_about_sharing_while_it_is_off(tmp_path: Path) -> None:
    _record(tmp_path / "data")
    assert _sharing_only(tmp_path, ["192.168.1.23"])[0] == []
    _record(tmp_path / "data", share="off")
    assert _sharing_only(tmp_path, ["192.168.1.23"])[0] == []


def test_doctor_says_which_address_phones_use(tmp_path: Path) -> None:
    from ui.commands.doctor import Status, format_report

    _record(tmp_path / "data", share="on")
    checks, _ = _sharing_only(tmp_path, ["192.168.1.23", "10.0.0.5"])
    assert [(c.name.value, c.status) for c in checks] == [("sharing", Status.OK)]
    assert checks[0].summary == "phones open http://192.168.1.23:8088/ (or http://10.0.0.5:8088/)"
    assert "ok       sharing   phones open http://192.168.1.23:8088/" in format_report(checks)
    _record(tmp_path / "data", share_port="8100")
    checks, _ = _sharing_only(tmp_path, ["192.168.1.23"], {"TABLETALLY_SHARE_PORT": "8200"})
    assert checks[0].summary == "phones open http://192.168.1.23:8200/"  # local.env wins, as in the kiosk


def test_doctor_warns_when_the_installed_service_keeps_phones_out(tmp_path: Path) -> None:
    from ui.commands.doctor import Status

    _record(tmp_path / "data", share="on")
    checks, drop_in = _sharing_only(tmp_path, ["192.168.1.23"], unit=True)
    assert checks[0].status is Status.WARN and "sudo deploy/share.sh on" in checks[0].fix
    drop_in.parent.mkdir(parents=True)
    drop_in.write_text((REPO / "deploy/tabletally-share.conf").read_text())
    checks, _ = _sharing_only(tmp_path, ["192.168.1.23"], unit=True)
    assert checks[0].status is Status.OK


def test_doctor_warns_when_the_pi_is_on_no_network(tmp_path: Path) -> None:
    from ui.commands.doctor import Status

    _record(tmp_path / "data", share="on")
    checks, _ = _sharing_only(tmp_path, [])
    assert checks[0].status is Status.WARN and "no home network" in checks[0].summary
