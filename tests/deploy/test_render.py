"""deploy/render.py: pip constraints, the environment file, settings validation and Kivy's config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

from deploy.render import (
    Display,
    KioskSettings,
    RenderError,
    Session,
    TouchProvider,
    constraint_pins,
    kivy_default_config,
    kivy_overrides,
    main,
    merge_kivy_config,
    render_constraints,
    render_env,
)

INSTALLED = {
    "numpy": "1.24.2",
    "Pillow": "9.4.0",
    "simplejpeg": "1.6.6",
    "piexif": "1.1.3",
    "picamera2": "0.3.25",
}
PICAMERA2_REQUIRES = [
    "numpy",
    "PiDNG",
    "piexif",
    "pillow",
    "simplejpeg",
    "v4l2-python3",
    "python-prctl",
    'PyQt5; extra == "gui"',
]


def _version(name: str) -> str | None:
    return {k.lower(): v for k, v in INSTALLED.items()}.get(name.lower())


def _requires(name: str) -> list[str] | None:
    return PICAMERA2_REQUIRES if name == "picamera2" else None


def test_constraints_pin_apt_numpy_and_picamera2s_installed_dependencies() -> None:
    pins = constraint_pins(_version, _requires)
    assert pins == [("numpy", "1.24.2"), ("piexif", "1.1.3"), ("pillow", "9.4.0"), ("simplejpeg", "1.6.6")]


def test_constraints_skip_picamera2_extras_and_missing_packages() -> None:
    names = [name for name, _ in constraint_pins(_version, _requires)]
    assert "pyqt5" not in names and "pidng" not in names


def test_constraints_pin_numpy_even_without_picamera2() -> None:
    assert constraint_pins(lambda n: "1.26.4" if n == "numpy" else None, lambda n: None) == [
        ("numpy", "1.26.4")
    ]


def test_constraints_file_is_pip_syntax() -> None:
    text = render_constraints([("numpy", "1.24.2")], "/usr/bin/python3")
    code = [line for line in text.splitlines() if not line.startswith("#")]
    assert code == ["numpy==1.24.2"]


def test_constraints_command_pins_this_interpreters_numpy(capsys: pytest.CaptureFixture[str]) -> None:
    import numpy

    assert main(["constraints"]) == 0
    assert f"numpy=={numpy.__version__}" in capsys.readouterr().out.splitlines()


def _settings(**changes: object) -> KioskSettings:
    values: dict[str, object] = dict(
        user="family",
        uid=1000,
        venv=PurePosixPath("/opt/tabletally/venv"),
        state_dir=PurePosixPath("/var/lib/tabletally"),
        env_file=PurePosixPath("/etc/tabletally/kiosk.env"),
        session=Session.KMS,
        display=Display.TD2_LANDSCAPE,
        rotation=90,
    )
    values.update(changes)
    return KioskSettings(**values)  # type: ignore[arg-type]


def test_kms_environment_drives_sdl_through_kmsdrm_and_names_the_data_dir() -> None:
    env = dict(
        line.split("=", 1) for line in render_env(_settings()).splitlines() if not line.startswith("#")
    )
    assert env["TABLETALLY_DATA_DIR"] == "/var/lib/tabletally/data"
    assert env["KIVY_HOME"] == "/var/lib/tabletally/kivy"
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert env["TABLETALLY_ROTATION"] == "90"
    assert "DISPLAY" not in env


def test_desktop_environment_opens_a_window_on_the_desktop_of_that_user() -> None:
    text = render_env(_settings(session=Session.DESKTOP, uid=1001))
    env = dict(line.split("=", 1) for line in text.splitlines() if not line.startswith("#"))
    assert env["DISPLAY"] == ":0"
    assert env["XDG_RUNTIME_DIR"] == "/run/user/1001"
    assert "KIVY_GL_BACKEND" not in env


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"user": "root"}, "'root'"),
        ({"user": "Bad Name"}, "'Bad Name'"),
        ({"uid": 0}, "0"),
        ({"venv": PurePosixPath("opt/venv")}, "'opt/venv'"),
        ({"state_dir": PurePosixPath("/var/lib/my data")}, "'/var/lib/my data'"),
        ({"rotation": 45}, "45"),
    ],
)
def test_bad_settings_are_refused_naming_the_value(change: dict[str, object], named: str) -> None:
    with pytest.raises(RenderError, match=named.replace("(", r"\(")):
        _settings(**change)


def test_render_command_rejects_bad_input_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "unit",
        "--user",
        "root",
        "--uid",
        "0",
        "--venv",
        "/v",
        "--state-dir",
        "/s",
        "--env-file",
        "/e",
        "--session",
        "kms",
        "--display",
        "dsi7",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("render.py: error:") and "'root'" in err and "\n" not in err
    with pytest.raises(SystemExit) as exit_info:
        main([*argv[:-1], "hologram"])
    assert exit_info.value.code == 2
    assert "'hologram' is not one of: dsi7, td2-landscape, td2-portrait, hdmi" in capsys.readouterr().err


def test_display_profiles_choose_rotation() -> None:
    assert Display.TD2_LANDSCAPE.default_rotation == 90
    assert {d.default_rotation for d in Display if d is not Display.TD2_LANDSCAPE} == {0}


def test_kms_input_uses_the_touch_provider_and_mutes_sdls_copy_of_the_mouse() -> None:
    inputs = kivy_overrides(Session.KMS, 90, TouchProvider.HIDINPUT)["input"]
    assert inputs == {
        "mouse": "mouse,disable_on_activity,disable_multitouch",
        "touch_%(name)s": "probesysfs,provider=hidinput",
    }


def test_desktop_input_leaves_touch_to_the_compositor() -> None:
    assert kivy_overrides(Session.DESKTOP, 0, TouchProvider.MTDEV)["input"] == {
        "mouse": "mouse,disable_multitouch"
    }


def test_merge_rejects_something_that_is_not_a_kivy_config() -> None:
    with pytest.raises(RenderError, match="config_version"):
        merge_kivy_config("[graphics]\nfullscreen = 0\n", kivy_overrides(Session.KMS, 0, TouchProvider.MTDEV))


READ_BACK = """
import json
from kivy.config import Config
print(json.dumps({
    "graphics": {
        k: Config.get("graphics", k) for k in ("fullscreen", "rotation", "show_cursor", "borderless")
    },
    "input": dict(Config.items("input")),
    "exit_on_escape": Config.get("kivy", "exit_on_escape"),
}))
"""


@pytest.mark.parametrize(("session", "rotation"), [(Session.KMS, 90), (Session.DESKTOP, 0)])
def test_kivy_reads_the_generated_config_exactly_as_written(
    session: Session, rotation: int, tmp_path: Path
) -> None:
    """Kivy upgrades old configs by overwriting values: ours must carry the current config_version."""
    text = merge_kivy_config(
        kivy_default_config(sys.executable), kivy_overrides(session, rotation, TouchProvider.MTDEV)
    )
    (tmp_path / "config.ini").write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KCFG_")}
    env.update(KIVY_HOME=str(tmp_path), KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1", KIVY_NO_FILELOG="1")
    result = subprocess.run(
        [sys.executable, "-c", READ_BACK], env=env, capture_output=True, text=True, check=True
    )
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["graphics"] == {
        "fullscreen": "auto",
        "rotation": str(rotation),
        "show_cursor": "0",
        "borderless": "1",
    }
    assert seen["input"] == kivy_overrides(session, rotation, TouchProvider.MTDEV)["input"]
    assert seen["exit_on_escape"] == "0"
    assert (tmp_path / "config.ini").read_text() == text, (
        "Kivy rewrote the config (it thought it was outdated)"
    )
