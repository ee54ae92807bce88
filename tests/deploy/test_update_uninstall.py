"""deploy/update.sh and deploy/uninstall.sh on a fake Raspberry Pi that install.sh set up first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

DATA = "/var/lib/tabletally/data"


@pytest.fixture
def installed(fake_pi, user):
    """The fake Pi after a full install, with a game-night database holding one game."""
    result = fake_pi.run("install.sh", "--user", user)
    assert result.returncode == 0, result.stdout + result.stderr
    db = fake_pi.path(f"{DATA}/tabletally.sqlite3")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, kind TEXT)")
    con.execute("INSERT INTO games (kind) VALUES ('jhyap')")
    con.commit()
    con.close()
    return fake_pi


def _games(db: Path) -> list[tuple[int, str]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT id, kind FROM games").fetchall()
    finally:
        con.close()


def test_update_backs_up_the_games_reinstalls_with_the_same_settings_and_restarts(installed, user) -> None:
    env_before = installed.path("/etc/tabletally/kiosk.env").read_text()
    result = installed.run("update.sh", "--no-pull")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        f"update.sh: user {user}, session kms, display td2-landscape, rotation 90, touch mtdev"
        in result.stdout
    )
    backups = sorted(installed.path(f"{DATA}/backups").glob("tabletally-*.sqlite3"))
    assert len(backups) == 1 and _games(backups[0]) == [(1, "jhyap")]
    assert _games(installed.path(f"{DATA}/tabletally.sqlite3")) == [(1, "jhyap")]
    assert installed.path("/etc/tabletally/kiosk.env").read_text() == env_before
    calls = installed.calls()
    assert any(c[:3] == ["venv-python", "-m", "pip"] and "--constraint" in c for c in calls)
    assert calls[-1] == ["systemctl", "restart", "tabletally-kiosk.service"]
    assert ["systemctl", "restart", "tabletally-kiosk.service"] in calls
    assert calls.count(["systemctl", "restart", "tabletally-kiosk.service"]) == 1


def test_update_keeps_only_the_newest_backups(installed) -> None:
    folder = installed.path(f"{DATA}/backups")
    folder.mkdir()
    for day in range(1, 5):
        (folder / f"tabletally-2026010{day}-120000.sqlite3").write_text("old")
    assert installed.run("update.sh", "--no-pull", "--keep", "2").returncode == 0
    kept = sorted(p.name for p in folder.iterdir())
    assert len(kept) == 2 and kept[0] == "tabletally-20260104-120000.sqlite3"


def test_update_dry_run_changes_nothing(installed) -> None:
    before = installed.snapshot()
    result = installed.run("update.sh", "--no-pull", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "would run: sqlite3" in result.stdout
    assert "install.sh: dry run finished: nothing was changed" in result.stdout
    assert installed.snapshot() == before
    assert installed.calls("systemctl") == [] and installed.calls("sqlite3") == []


def test_update_without_an_install_says_to_install_first(fake_pi) -> None:
    result = fake_pi.run("update.sh", "--no-pull")
    assert result.returncode == 3
    assert "not installed here" in result.stderr and "deploy/install.sh" in result.stderr


def test_update_refuses_a_bad_keep_count(installed) -> None:
    result = installed.run("update.sh", "--keep", "none")
    assert result.returncode == 2 and "--keep needs a whole number" in result.stderr


def test_uninstall_removes_the_program_and_keeps_the_games(installed) -> None:
    result = installed.run("uninstall.sh")
    assert result.returncode == 0, result.stdout + result.stderr
    p = installed.path
    for gone in (
        "/etc/systemd/system/tabletally-kiosk.service",
        "/opt/tabletally",
        "/usr/local/bin/tabletally",
        "/etc/tabletally",
        "/boot/firmware/cmdline.txt.tabletally-orig",
    ):
        assert not p(gone).exists() and not p(gone).is_symlink(), gone
    assert _games(p(f"{DATA}/tabletally.sqlite3")) == [(1, "jhyap")]
    assert "consoleblank" not in p("/boot/firmware/cmdline.txt").read_text()
    assert p("/boot/firmware/cmdline.txt").read_text().endswith(" rootwait\n")
    assert ["systemctl", "disable", "--now", "tabletally-kiosk.service"] in installed.calls()
    assert "kept: /var/lib/tabletally" in result.stdout


def test_uninstall_keeps_the_owners_own_settings(installed) -> None:
    installed.path("/etc/tabletally/local.env").write_text("KCFG_GRAPHICS_ROTATION=270\n")
    assert installed.run("uninstall.sh").returncode == 0
    assert installed.path("/etc/tabletally/local.env").exists()
    assert not installed.path("/etc/tabletally/kiosk.env").exists()


def test_uninstall_purge_removes_the_games_too(installed) -> None:
    result = installed.run("uninstall.sh", "--purge")
    assert result.returncode == 0, result.stderr
    assert not installed.path("/var/lib/tabletally").exists()
    assert not installed.path("/etc/tabletally").exists()


def test_uninstall_dry_run_changes_nothing(installed) -> None:
    before = installed.snapshot()
    result = installed.run("uninstall.sh", "--purge", "--dry-run")
    assert result.returncode == 0
    assert f"would remove: {installed.path('/var/lib/tabletally')}" in result.stdout
    assert installed.snapshot() == before
    assert installed.calls("systemctl") == []


def test_update_after_an_upgrade_to_trixie_switches_the_lock(installed, user) -> None:
    from tests.deploy.test_install import as_release

    assert installed.path("/opt/tabletally/release").read_text() == "bookworm 3.11\n"
    as_release(installed, "trixie", "3.13", "Debian GNU/Linux 13 (trixie)")
    result = installed.run("update.sh", "--no-pull")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "update.sh: release: Raspberry Pi OS is now Trixie (installed on Bookworm, Python 3.11): "
        "switching to the trixie lock, deploy/requirements-pi-trixie.txt" in result.stdout.splitlines()
    )
    pip = [c for c in installed.calls("venv-python") if c[1:4] == ["-m", "pip", "install"] and "-r" in c]
    assert [Path(c[-1]).name for c in pip] == ["requirements-pi-trixie.txt"]
    assert installed.path("/opt/tabletally/release").read_text() == "trixie 3.13\n"


def test_update_on_the_same_release_says_so(installed) -> None:
    result = installed.run("update.sh", "--no-pull", "--dry-run")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "update.sh: release: Bookworm, as installed (deploy/requirements-pi-bookworm.txt)"
        in result.stdout.splitlines()
    )
