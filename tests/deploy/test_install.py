"""deploy/install.sh against a fake Raspberry Pi (see conftest.py): the dry-run plan, the refusals,
and a real run into the fake root, twice."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

REPO = Path(__file__).resolve().parents[2]


def test_dry_run_prints_the_whole_plan_and_changes_nothing(fake_pi, user) -> None:
    before = fake_pi.snapshot()
    result = fake_pi.run(
        "install.sh",
        "--dry-run",
        "--user",
        user,
        env=fake_pi.env(FAKE_PI_MISSING="python3-picamera2 fonts-noto-core"),
    )
    out = result.stdout
    assert result.returncode == 0, result.stderr
    root = fake_pi.root
    copy = next(line for line in out.splitlines() if line.startswith("would copy: "))
    work = copy.split(" -> ")[1].split("/src (")[0]
    assert copy.startswith(f"would copy: {REPO} -> {work}/src (pyproject.toml README.md ")
    assert copy.endswith(" scorer vision ui models deploy)")
    assert Path(work).parent == fake_pi.base and Path(work).name.startswith("tabletally-install.")
    for line in [
        "install.sh: board: Raspberry Pi 5 Model B Rev 1.0",
        "install.sh: session: kms (no desktop: the kiosk draws straight to the screen through KMS/DRM)",
        "install.sh: display: td2-landscape (card1-DSI-1, 720x1280)",
        "install.sh: rotation: 90 degrees; touch reader: mtdev",
        "would run: apt-get update",
        "would run: env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
        "python3-picamera2 fonts-noto-core",
        f"would run: {fake_pi.bin}/python3 -m venv --system-site-packages {root}/opt/tabletally/venv",
        f"    | numpy=={numpy.__version__}",
        f"would run: {root}/opt/tabletally/venv/bin/python -m pip install --require-hashes "
        f"--only-binary :all: --no-deps --constraint {root}/opt/tabletally/constraints.txt "
        f"-r {work}/src/deploy/requirements-pi-bookworm.txt",
        f"would run: {root}/opt/tabletally/venv/bin/python -m pip install --upgrade --no-deps --no-index "
        f"--no-build-isolation --constraint {root}/opt/tabletally/constraints.txt {work}/src",
        f"would link: {root}/usr/local/bin/tabletally -> /opt/tabletally/venv/bin/tabletally",
        f"would write: {root}/etc/tabletally/kiosk.env (mode 0644, owner root:root)",
        "    | TABLETALLY_DATA_DIR=/var/lib/tabletally/data",
        f"would write: {root}/etc/systemd/system/tabletally-kiosk.service (mode 0644, owner root:root)",
        "    | ExecStart=/opt/tabletally/venv/bin/tabletally kiosk --fullscreen",
        "    | KillSignal=SIGINT",
        "would run: systemctl daemon-reload",
        "would run: systemctl enable tabletally-kiosk.service",
        f"would write: {root}/boot/firmware/cmdline.txt (mode 0644, owner root:root)",
        "would run: systemctl restart tabletally-kiosk.service",
        "install.sh: dry run finished: nothing was changed",
    ]:
        assert line in out.splitlines(), f"missing from the plan: {line}\n---\n{out}"
    assert "consoleblank=0" in out
    assert fake_pi.snapshot() == before
    changing = {"apt-get", "systemctl", "usermod", "raspi-config", "runuser", "venv-python"}
    assert [c for c in fake_pi.calls() if c[0] in changing] == []
    assert [c for c in fake_pi.calls("python3") if "venv" in c] == []
    assert not list(fake_pi.base.glob("tabletally-install.*")), "the work folder was left behind"


def test_pip_never_runs_without_the_numpy_constraint(fake_pi, user) -> None:
    result = fake_pi.run("install.sh", "--dry-run", "--user", user)
    pip_lines = [line for line in result.stdout.splitlines() if " -m pip install" in line]
    assert len(pip_lines) == 2
    assert all("--constraint" in line for line in pip_lines)


def test_not_a_pi_is_refused_in_plain_words(fake_pi, user) -> None:
    (fake_pi.root / "proc/device-tree/model").unlink()
    result = fake_pi.run("install.sh", "--dry-run", "--user", user)
    assert result.returncode == 3
    assert "this is not a Raspberry Pi" in result.stderr
    assert "make run" in result.stderr and "--force" in result.stderr
    assert "would run" not in result.stdout


def test_force_goes_on_where_it_is_not_a_pi(fake_pi, user) -> None:
    (fake_pi.root / "proc/device-tree/model").unlink()
    result = fake_pi.run("install.sh", "--dry-run", "--force", "--user", user)
    assert result.returncode == 0, result.stderr
    assert "not a Raspberry Pi; going on because of --force" in result.stderr


def test_32_bit_raspberry_pi_os_is_refused(fake_pi, user) -> None:
    result = fake_pi.run("install.sh", "--dry-run", "--user", user, env=fake_pi.env(FAKE_PI_ARCH="armhf"))
    assert result.returncode == 3
    assert "armhf, not 64-bit ARM" in result.stderr


def test_older_pi_is_warned_about(fake_pi, user) -> None:
    (fake_pi.root / "proc/device-tree/model").write_text("Raspberry Pi 3 Model B Plus Rev 1.3\0")
    result = fake_pi.run("install.sh", "--dry-run", "--user", user)
    assert result.returncode == 0
    assert "made for the Raspberry Pi 5 and 4" in result.stderr


def test_bad_options_are_named(fake_pi, user) -> None:
    for args, named in [
        (["--display", "hologram"], "'hologram'"),
        (["--rotation", "45"], "'45'"),
        (["--session", "wayland"], "'wayland'"),
        (["--touch", "pen"], "'pen'"),
        (["--colour", "blue"], "'--colour'"),
        (["--user"], "--user needs a value"),
    ]:
        result = fake_pi.run("install.sh", "--dry-run", "--user", user, *args)
        assert result.returncode == 2, args
        assert named in result.stderr, (args, result.stderr)


def test_the_kiosk_never_runs_as_root_or_as_a_missing_account(fake_pi) -> None:
    root_run = fake_pi.run("install.sh", "--dry-run", "--user", "root")
    assert root_run.returncode == 2 and "must not run as root" in root_run.stderr
    ghost = fake_pi.run("install.sh", "--dry-run", "--user", "no-such-player")
    assert ghost.returncode == 2 and "no account called 'no-such-player'" in ghost.stderr


def test_desktop_session_turns_blanking_off_with_raspi_config(fake_pi, user) -> None:
    dm = fake_pi.root / "etc/systemd/system/display-manager.service"
    dm.parent.mkdir(parents=True, exist_ok=True)
    dm.write_text("")
    result = fake_pi.run("install.sh", "--dry-run", "--user", user, "--display", "dsi7")
    out = result.stdout.splitlines()
    assert "install.sh: session: desktop (a desktop login manager is enabled; " in result.stdout
    assert "would run: raspi-config nonint do_blanking 1" in out
    assert "would run: raspi-config nonint do_boot_behaviour B4" in out
    assert "    | DISPLAY=:0" in out
    assert not any("cmdline.txt" in line for line in out)


def _install(fake_pi, user) -> subprocess.CompletedProcess[str]:
    return fake_pi.run("install.sh", "--user", user, env=fake_pi.env(FAKE_PI_MISSING="python3-picamera2"))


def test_install_sets_up_everything_in_the_fake_root(fake_pi, user) -> None:
    result = _install(fake_pi, user)
    assert result.returncode == 0, result.stdout + result.stderr
    p = fake_pi.path
    unit = p("/etc/systemd/system/tabletally-kiosk.service").read_text()
    assert "ExecStart=/opt/tabletally/venv/bin/tabletally kiosk --fullscreen" in unit
    assert f"User={user}" in unit
    env = p("/etc/tabletally/kiosk.env").read_text()
    assert "TABLETALLY_DISPLAY=td2-landscape" in env and "TABLETALLY_ROTATION=90" in env
    assert f"numpy=={numpy.__version__}" in p("/opt/tabletally/constraints.txt").read_text().splitlines()
    assert "rotation = 90" in p("/var/lib/tabletally/kivy/config.ini").read_text()
    assert os.readlink(p("/usr/local/bin/tabletally")) == "/opt/tabletally/venv/bin/tabletally"
    for folder in ("/var/lib/tabletally", "/var/lib/tabletally/data", "/var/lib/tabletally/kivy"):
        assert p(folder).is_dir()
    cmdline = p("/boot/firmware/cmdline.txt").read_text()
    assert cmdline.endswith(" rootwait consoleblank=0\n") and cmdline.count("consoleblank") == 1
    assert "consoleblank" not in p("/boot/firmware/cmdline.txt.tabletally-orig").read_text()

    calls = fake_pi.calls()
    assert ["apt-get", "install", "-y", "--no-install-recommends", "python3-picamera2"] in calls
    pip = [c for c in calls if c[:3] == ["venv-python", "-m", "pip"]][-1]
    assert pip[-2] == str(p("/opt/tabletally/constraints.txt"))
    assert Path(pip[-1]).name == "src" and Path(pip[-1]).parent.name.startswith("tabletally-install.")
    assert ["systemctl", "enable", "tabletally-kiosk.service"] in calls
    assert ["systemctl", "restart", "tabletally-kiosk.service"] in calls
    assert "reboot once" in result.stdout


def test_second_install_changes_nothing(fake_pi, user) -> None:
    first_run = _install(fake_pi, user)
    assert first_run.returncode == 0, first_run.stdout[-2000:] + first_run.stderr
    first = fake_pi.snapshot()
    again = fake_pi.run("install.sh", "--user", user)
    assert again.returncode == 0, again.stderr
    assert fake_pi.snapshot() == first
    for name in ("kiosk.env", "tabletally-kiosk.service", "constraints.txt", "config.ini"):
        assert any(
            line.startswith("unchanged: ") and line.endswith(name) for line in again.stdout.splitlines()
        ), name
    assert "console blanking is already off" in again.stdout
    assert fake_pi.calls("apt-get") == []
    assert [c for c in fake_pi.calls("python3") if "venv" in c] == [], "the venv was created again"


def test_installed_kivy_config_is_what_kivy_reads(fake_pi, user) -> None:
    installed = _install(fake_pi, user)
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCFG_")}
    env.update(
        KIVY_HOME=str(fake_pi.path("/var/lib/tabletally/kivy")), KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1"
    )
    code = "import json; from kivy.config import Config; print(json.dumps(dict(Config.items('graphics'))))"
    graphics = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.splitlines()[-1]
    )
    assert (graphics["fullscreen"], graphics["rotation"], graphics["show_cursor"]) == ("auto", "90", "0")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_installed_unit_passes_systemd_analyze_verify(fake_pi, user, tmp_path) -> None:
    result = _install(fake_pi, user)
    assert result.returncode == 0, result.stderr
    unit = fake_pi.path("/etc/systemd/system/tabletally-kiosk.service").read_text()
    # The service's ExecStart must exist for verify: point it at the fake root's venv.
    venv = fake_pi.path("/opt/tabletally/venv")
    assert (venv / "bin" / "tabletally").exists()
    copy = tmp_path / "tabletally-kiosk.service"
    # And an ordinary account: systemd rightly warns about "nobody", these tests' stand-in as root.
    copy.write_text(unit.replace("/opt/tabletally/venv", str(venv)).replace(f"User={user}\n", "User=pi\n"))
    check = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, check=False
    )
    assert (check.returncode, (check.stdout + check.stderr).strip()) == (0, "")


def _kiosk_env(fake_pi) -> list[str]:
    return fake_pi.path("/etc/tabletally/kiosk.env").read_text().splitlines()


def test_the_installer_times_both_runtimes_on_the_pi_and_the_kiosk_reads_with_the_faster(
    fake_pi, user
) -> None:
    result = _install(fake_pi, user)  # the fake Pi's times: ONNX Runtime 168 ms, NCNN 88 ms
    assert result.returncode == 0, result.stderr
    choose = [c for c in fake_pi.calls("venv-python") if "--choose" in c]
    assert choose == [["venv-python", "-m", "vision.runtimes.choice", "--choose"]]
    assert (
        "install.sh: card model runtime: ncnn (NCNN 88 ms, ONNX Runtime 168 ms: NCNN is 1.9x faster here)"
        in result.stdout.splitlines()
    )
    env = _kiosk_env(fake_pi)
    assert env[-1] == "TABLETALLY_RUNTIME=ncnn" and env.count("TABLETALLY_RUNTIME=ncnn") == 1
    # the service reads kiosk.env, then local.env, where a setting of one's own wins
    unit = fake_pi.path("/etc/systemd/system/tabletally-kiosk.service").read_text()
    assert unit.index("EnvironmentFile=/etc/tabletally/kiosk.env") < unit.index(
        "EnvironmentFile=-/etc/tabletally/local.env"
    )


def test_onnx_runtime_stays_where_ncnn_is_not_faster_by_more_than_a_tenth(fake_pi, user) -> None:
    env = fake_pi.env(FAKE_PI_MISSING="python3-picamera2", FAKE_PI_TIMES='{"onnx": 100.0, "ncnn": 95.0}')
    result = fake_pi.run("install.sh", "--user", user, env=env)
    assert result.returncode == 0, result.stderr
    assert _kiosk_env(fake_pi)[-1] == "TABLETALLY_RUNTIME=onnx"
    assert "ONNX Runtime, the default, is as fast here (within a tenth)" in result.stdout


def test_runtimes_that_cannot_be_timed_leave_the_default_with_a_warning(fake_pi, user) -> None:
    env = fake_pi.env(FAKE_PI_MISSING="python3-picamera2", FAKE_PI_TIMES="not json")
    result = fake_pi.run("install.sh", "--user", user, env=env)
    assert result.returncode == 0, result.stderr
    assert (
        "the runtimes could not be timed (vision.runtimes.choice: --times must be a JSON object"
        in result.stderr
    )
    assert _kiosk_env(fake_pi)[-1] == "TABLETALLY_RUNTIME=onnx"


def test_a_runtime_given_to_the_installer_is_used_without_timing(fake_pi, user) -> None:
    env = fake_pi.env(FAKE_PI_MISSING="python3-picamera2")
    result = fake_pi.run("install.sh", "--user", user, "--runtime", "onnx", env=env)
    assert result.returncode == 0, result.stderr
    assert [c for c in fake_pi.calls("venv-python") if "--choose" in c] == []
    assert "install.sh: card model runtime: onnx (--runtime)" in result.stdout.splitlines()
    assert _kiosk_env(fake_pi)[-1] == "TABLETALLY_RUNTIME=onnx"
    bad = fake_pi.run("install.sh", "--dry-run", "--user", user, "--runtime", "tflite")
    assert (
        bad.returncode == 2 and "--runtime must be auto, onnx, ncnn or openvino, not 'tflite'" in bad.stderr
    )


def test_openvino_where_it_is_the_fastest_by_more_than_a_tenth_is_the_kiosks_runtime(fake_pi, user) -> None:
    times = '{"onnx": 168.0, "ncnn": 88.0, "openvino": 70.0}'
    env = fake_pi.env(FAKE_PI_MISSING="python3-picamera2", FAKE_PI_TIMES=times)
    result = fake_pi.run("install.sh", "--user", user, env=env)
    assert result.returncode == 0, result.stderr
    assert _kiosk_env(fake_pi)[-1] == "TABLETALLY_RUNTIME=openvino"
    assert "OpenVINO is 2.4x faster here" in result.stdout


def test_the_dry_run_says_it_would_time_the_runtimes(fake_pi, user) -> None:
    result = fake_pi.run("install.sh", "--dry-run", "--user", user)
    assert result.returncode == 0, result.stderr
    venv = fake_pi.path("/opt/tabletally/venv")
    assert f"would run: {venv}/bin/python -m vision.runtimes.choice --choose" in result.stdout.splitlines()
    assert "    | TABLETALLY_RUNTIME=onnx" in result.stdout.splitlines()


# --- the release: its own lock, or a refusal before anything changes ---------------------------------------

SUPPORTED = "TableTally installs on Raspberry Pi OS (64-bit) Bookworm (Python 3.11) or Trixie (Python 3.13)."


def as_release(fake_pi, codename: str | None, python: str, pretty: str = "") -> None:
    """Make the fake Pi report another release in /etc/os-release (None: no file) and another python3."""
    os_release = fake_pi.root / "etc/os-release"
    if codename is None:
        os_release.unlink(missing_ok=True)
    else:
        os_release.write_text(f'PRETTY_NAME="{pretty or codename}"\nVERSION_CODENAME={codename}\n')
    real = fake_pi.bin / "python3-stub"
    if not real.exists():
        (fake_pi.bin / "python3").rename(real)
    (fake_pi.bin / "python3").write_text(
        f'#!/bin/sh\ncase "$*" in *version_info*) echo {python}; exit 0 ;; esac\nexec "{real}" "$@"\n'
    )
    (fake_pi.bin / "python3").chmod(0o755)


def test_trixie_installs_its_own_lock_and_its_own_package_names(fake_pi, user) -> None:
    as_release(fake_pi, "trixie", "3.13", "Debian GNU/Linux 13 (trixie)")
    result = fake_pi.run(
        "install.sh",
        "--dry-run",
        "--user",
        user,
        env=fake_pi.env(FAKE_PI_MISSING="libmtdev1t64 libglib2.0-0t64 libmtdev1 libglib2.0-0"),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert (
        "install.sh: system: Debian GNU/Linux 13 (trixie) (arm64, Python 3.13): the trixie lock, "
        "deploy/requirements-pi-trixie.txt" in lines
    )
    # Trixie's 64-bit time_t names: the old names are virtual there and never show as installed.
    assert "install.sh: missing: libmtdev1t64 libglib2.0-0t64" in lines
    pip = [line for line in lines if "pip install --require-hashes" in line]
    assert len(pip) == 1 and pip[0].endswith("/src/deploy/requirements-pi-trixie.txt")


def test_bookworm_keeps_its_package_names(fake_pi, user) -> None:
    result = fake_pi.run(
        "install.sh", "--dry-run", "--user", user, env=fake_pi.env(FAKE_PI_MISSING="libmtdev1 libglib2.0-0")
    )
    assert result.returncode == 0, result.stderr
    assert "install.sh: missing: libmtdev1 libglib2.0-0" in result.stdout.splitlines()


@pytest.mark.parametrize(
    ("codename", "python", "arch", "why"),
    [
        ("bullseye", "3.9", "arm64", "TableTally has no lock for the release 'bullseye'"),
        ("sid", "3.13", "arm64", "TableTally has no lock for the release 'sid'"),
        (None, "3.11", "arm64", "TableTally has no lock for the release 'unknown'"),
        ("bookworm", "3.11", "armhf", "it is armhf, not 64-bit ARM"),
        ("trixie", "3.13", "armhf", "it is armhf, not 64-bit ARM"),
        ("bookworm", "3.13", "arm64", "its python3 is 3.13, and the bookworm lock is for Python 3.11"),
        ("trixie", "3.12", "arm64", "its python3 is 3.12, and the trixie lock is for Python 3.13"),
    ],
)
@pytest.mark.parametrize("dry_run", [True, False])
def test_an_unsupported_system_is_refused_in_one_message_before_anything_changes(
    fake_pi, user, codename, python, arch, why, dry_run
) -> None:
    as_release(fake_pi, codename, python)
    before = fake_pi.snapshot()
    args = ["--dry-run"] if dry_run else []
    result = fake_pi.run("install.sh", *args, "--user", user, env=fake_pi.env(FAKE_PI_ARCH=arch))
    assert result.returncode == 3, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("install.sh: ")]
    assert len(errors) == 1 and errors[0].startswith("install.sh: error: this system ("), result.stderr
    assert f"is not supported: {why}" in result.stderr
    assert SUPPORTED in result.stderr and "Raspberry Pi Imager" in result.stderr
    assert "Nothing was changed." in result.stderr
    assert fake_pi.snapshot() == before
    changing = {"apt-get", "systemctl", "usermod", "raspi-config", "runuser", "venv-python"}
    assert [c for c in fake_pi.calls() if c[0] in changing] == []
    assert "would " not in result.stdout


def test_the_install_records_its_release_and_makes_the_venv_again_for_another_python(fake_pi, user) -> None:
    first = _install(fake_pi, user)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr
    assert fake_pi.path("/opt/tabletally/release").read_text() == "bookworm 3.11\n"
    cfg = fake_pi.path("/opt/tabletally/venv/pyvenv.cfg")
    cfg.write_text(cfg.read_text() + "version = 3.11.2\n")  # as python3.11 -m venv writes it

    as_release(fake_pi, "trixie", "3.13")
    upgraded = fake_pi.run("install.sh", "--user", user)
    assert upgraded.returncode == 0, upgraded.stdout[-2000:] + upgraded.stderr
    assert "venv was made for Python 3.11; this system's is 3.13: making it again" in upgraded.stderr
    assert [c for c in fake_pi.calls("python3") if "venv" in c], "the venv was not made again"
    pip = [c for c in fake_pi.calls("venv-python") if c[1:4] == ["-m", "pip", "install"] and "-r" in c]
    assert Path(pip[0][-1]).name == "requirements-pi-trixie.txt"
    assert fake_pi.path("/opt/tabletally/release").read_text() == "trixie 3.13\n"
