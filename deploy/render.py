"""Render the files TableTally's Raspberry Pi installer writes.

``deploy/install.sh`` runs this module with the system ``python3`` (standard library only: the venv does
not exist yet) to produce:

* ``unit``: the systemd service that starts the kiosk at boot (from ``tabletally-kiosk.service.in``);
* ``env``: ``/etc/tabletally/kiosk.env``, the environment the service runs with and that ``tabletally
  doctor`` reads, so both look at the same data directory and display settings;
* ``constraints``: a pip constraints file pinning numpy (and the other Python packages the Debian
  ``python3-picamera2`` build depends on) at the versions apt installed, so pip never upgrades them
  in the venv and breaks picamera2's compiled extensions;
* ``kivy-config``: Kivy's ``config.ini`` for the official touchscreens (run with the venv's python, since it
  starts from Kivy's own defaults).

Every subcommand prints to stdout, or writes ``--out`` when given. Bad input exits with status 2 and one
line that names it.
"""

from __future__ import annotations

import argparse
import configparser
import importlib.metadata
import io
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
UNIT_TEMPLATE = HERE / "tabletally-kiosk.service.in"
SERVICE_NAME = "tabletally-kiosk.service"


class RenderError(ValueError):
    """A setting passed to the renderer is unusable; the message names it."""


class Session(Enum):
    """How the kiosk reaches the screen."""

    KMS = "kms"
    """Raspberry Pi OS Lite: no desktop; SDL draws straight to the display through KMS/DRM."""
    DESKTOP = "desktop"
    """Raspberry Pi OS with desktop: the kiosk is a full-screen window in the auto-logged-in session."""


class Display(Enum):
    """The screen attached to the Pi. Sets Kivy's rotation; touch follows the rotation."""

    DSI7 = "dsi7"
    """Official 7" touchscreen (the original, 800x480 landscape)."""
    TD2_LANDSCAPE = "td2-landscape"
    """Touch Display 2 (720x1280 portrait panel) turned on its side: the UI is rotated by 90 degrees."""
    TD2_PORTRAIT = "td2-portrait"
    """Touch Display 2 upright: 720x1280 portrait, no rotation."""
    HDMI = "hdmi"
    """Any HDMI monitor, with or without a USB touch panel."""

    @property
    def default_rotation(self) -> int:
        return 90 if self is Display.TD2_LANDSCAPE else 0


class TouchProvider(Enum):
    """Kivy's reader for the touch panel's /dev/input/event device (found by probesysfs)."""

    MTDEV = "mtdev"
    HIDINPUT = "hidinput"


ROTATIONS = (0, 90, 180, 270)
_USER_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


def _absolute(value: str | PurePosixPath, what: str) -> PurePosixPath:
    path = PurePosixPath(value)
    text = str(path)
    if not path.is_absolute() or any(c.isspace() or c in "\"'\\$%`" for c in text):
        raise RenderError(f"{what} must be an absolute path without spaces, quotes, '$' or '%', got {text!r}")
    return path


@dataclass(frozen=True)
class KioskSettings:
    """Everything the unit and the environment file depend on. Validates itself."""

    user: str
    uid: int
    venv: PurePosixPath
    state_dir: PurePosixPath
    env_file: PurePosixPath
    session: Session
    display: Display
    rotation: int
    touch: TouchProvider = TouchProvider.MTDEV

    def __post_init__(self) -> None:
        if not _USER_RE.match(self.user) or self.user == "root":
            raise RenderError(f"user must be an ordinary login name (not root), got {self.user!r}")
        if isinstance(self.uid, bool) or not isinstance(self.uid, int) or self.uid < 1:
            raise RenderError(f"uid must be a positive number (not root's 0), got {self.uid!r}")
        for name in ("venv", "state_dir", "env_file"):
            object.__setattr__(self, name, _absolute(getattr(self, name), name.replace("_", " ")))
        if self.rotation not in ROTATIONS:
            raise RenderError(f"rotation must be one of 0, 90, 180, 270, got {self.rotation!r}")

    @property
    def data_dir(self) -> PurePosixPath:
        return self.state_dir / "data"

    @property
    def kivy_home(self) -> PurePosixPath:
        return self.state_dir / "kivy"

    @property
    def local_env_file(self) -> PurePosixPath:
        return self.env_file.with_name("local.env")


def render_env(settings: KioskSettings) -> str:
    """The service's environment file (systemd EnvironmentFile syntax, also readable by ``doctor``)."""
    lines = [
        "# TableTally kiosk environment. Written by deploy/install.sh; re-running it rewrites this file.",
        f"# Put your own settings in {settings.local_env_file}: the service reads it after this one.",
        f"TABLETALLY_DATA_DIR={settings.data_dir}",
        f"TABLETALLY_SESSION={settings.session.value}",
        f"TABLETALLY_DISPLAY={settings.display.value}",
        f"TABLETALLY_ROTATION={settings.rotation}",
        f"TABLETALLY_TOUCH={settings.touch.value}",
        f"KIVY_HOME={settings.kivy_home}",
        "KIVY_NO_ARGS=1",
        "KIVY_NO_FILELOG=1",
        "KIVY_WINDOW=sdl2",
        "PYTHONUNBUFFERED=1",
    ]
    if settings.session is Session.KMS:
        lines += [
            "# No desktop: SDL drives the screen through KMS/DRM and reads keys/touch from /dev/input.",
            "SDL_VIDEODRIVER=kmsdrm",
            "KIVY_GL_BACKEND=sdl2",
            "# Touch reaches Kivy through its mtdev/hidinput reader: SDL must not also make clicks of it.",
            "SDL_TOUCH_MOUSE_EVENTS=0",
        ]
    else:
        lines += [
            "# Desktop session: Kivy's SDL has no Wayland backend, so it opens an X11 window on Xwayland.",
            "DISPLAY=:0",
            f"XDG_RUNTIME_DIR=/run/user/{settings.uid}",
            "SDL_VIDEODRIVER=x11",
        ]
    return "\n".join(lines) + "\n"


def _session_paths(settings: KioskSettings) -> str:
    """The paths a session needs through PrivateTmp and ProtectSystem=strict: the desktop's X11 socket
    folder (read-only: connecting to a socket needs no write access to its mount) and its runtime folder."""
    if settings.session is Session.KMS:
        return "# No desktop: home folders are out of sight.\nProtectHome=yes"
    return (
        "# The desktop's X server socket lives in the real /tmp, its runtime folder in /run/user, and the X\n"
        "# session's cookie (~/.Xauthority) in the home folder, which the kiosk may read but not change.\n"
        "ProtectHome=read-only\n"
        "BindReadOnlyPaths=/tmp/.X11-unix\n"
        f"ReadWritePaths=-/run/user/{settings.uid}"
    )


def _session_blocks(settings: KioskSettings) -> tuple[str, str, str]:
    """(extra [Unit] lines, extra [Service] lines, WantedBy target) for the session kind."""
    if settings.session is Session.KMS:
        unit = (
            "# The kiosk owns the screen and the keyboard: no login prompt on the first console.\n"
            "Conflicts=getty@tty1.service\n"
            "After=systemd-user-sessions.service getty@tty1.service plymouth-quit-wait.service"
        )
        service = (
            "# DRM (screen), render node (GPU), input events (touch) and the camera devices.\n"
            "SupplementaryGroups=video render input"
        )
        return unit, service, "multi-user.target"
    unit = "After=graphical.target systemd-user-sessions.service"
    service = (
        "SupplementaryGroups=video render\n"
        "# Wait (up to 60 s) for the desktop's X server (Xwayland) to accept windows.\n"
        "ExecStartPre=/bin/sh -c 'for i in $$(seq 60); do [ -S /tmp/.X11-unix/X0 ] && exit 0; sleep 1; done; "
        'echo "no desktop X display after 60 s: is desktop autologin on?" >&2; exit 1\''
    )
    return unit, service, "graphical.target"


def render_unit(settings: KioskSettings, template: str | None = None) -> str:
    """The systemd service text, from ``tabletally-kiosk.service.in``."""
    text = UNIT_TEMPLATE.read_text(encoding="utf-8") if template is None else template
    unit_extra, service_extra, wanted_by = _session_blocks(settings)
    values = {
        "USER": settings.user,
        "VENV": str(settings.venv),
        "STATE_DIR": str(settings.state_dir),
        "STATE_NAME": settings.state_dir.name,
        "ENV_FILE": str(settings.env_file),
        "LOCAL_ENV_FILE": str(settings.local_env_file),
        "SESSION": settings.session.value,
        "KIOSK_ARGS": " --size portrait" if settings.display is Display.TD2_PORTRAIT else "",
        "DOC": f"file://{HERE / 'README.md'}",
        "SESSION_UNIT": unit_extra,
        "SESSION_SERVICE": service_extra,
        "SESSION_PATHS": _session_paths(settings),
        "WANTED_BY": wanted_by,
    }
    rendered = re.sub(r"@([A-Z_]+)@", lambda m: _placeholder(values, m.group(1)), text)
    return rendered


def _placeholder(values: Mapping[str, str], name: str) -> str:
    if name not in values:
        raise RenderError(f"unit template uses unknown placeholder @{name}@")
    return values[name]


# --- pip constraints ---------------------------------------------------------------------------------

PINNED_ALWAYS = ("numpy",)
"""Pinned even if picamera2 were not installed: OpenCV, ONNX Runtime and Kivy all load it."""
PICAMERA2_DIST = "picamera2"


def _dist_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else ""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def constraint_pins(
    version_of: Callable[[str], str | None], requires_of: Callable[[str], Sequence[str] | None]
) -> list[tuple[str, str]]:
    """``(name, version)`` pins: numpy plus picamera2's installed dependencies (one level down).

    ``version_of(name)`` returns the installed version or None; ``requires_of(name)`` the requirement
    strings of an installed distribution or None. Sorted by canonical name, duplicates removed.
    """
    names: list[str] = list(PINNED_ALWAYS)
    for requirement in requires_of(PICAMERA2_DIST) or ():
        if "extra ==" in requirement.replace('"', "").replace("'", ""):
            continue  # optional extras (e.g. picamera2[gui]) are not installed by apt
        name = _dist_name(requirement)
        if name:
            names.append(name)
    pins: dict[str, tuple[str, str]] = {}
    for name in names:
        version = version_of(name)
        if version:
            pins.setdefault(_canonical(name), (_canonical(name), version))
    return [pins[key] for key in sorted(pins)]


def _installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _installed_requires(name: str) -> Sequence[str] | None:
    try:
        return importlib.metadata.requires(name) or []
    except importlib.metadata.PackageNotFoundError:
        return None


def render_constraints(pins: Iterable[tuple[str, str]], python: str) -> str:
    lines = [
        "# pip constraints for TableTally's venv, generated by deploy/install.sh from the Python packages",
        f"# apt installed for {python}. picamera2 (python3-picamera2) is compiled against these versions:",
        "# pip must reuse them from the system site-packages instead of installing newer ones.",
    ]
    lines += [f"{name}=={version}" for name, version in pins]
    return "\n".join(lines) + "\n"


# --- Kivy config --------------------------------------------------------------------------------------


def kivy_overrides(session: Session, rotation: int, touch: TouchProvider) -> dict[str, dict[str, str]]:
    """The Kivy config values TableTally sets, by section. ``[input]`` is replaced as a whole."""
    if rotation not in ROTATIONS:
        raise RenderError(f"rotation must be one of 0, 90, 180, 270, got {rotation!r}")
    graphics = {
        "fullscreen": "auto",
        "borderless": "1",
        "show_cursor": "0",
        "rotation": str(rotation),
        "allow_screensaver": "0",
        "maxfps": "30",
    }
    if session is Session.KMS:
        # SDL's mouse events come from the same panel: disable them while the touch provider is active,
        # or every tap arrives twice. Rotation is applied by Kivy's window to touch events too.
        inputs = {
            "mouse": "mouse,disable_on_activity,disable_multitouch",
            "touch_%(name)s": f"probesysfs,provider={touch.value}",
        }
    else:
        # The compositor owns the touch panel (and rotates it with the screen): take its pointer events.
        inputs = {"mouse": "mouse,disable_multitouch"}
    return {
        "kivy": {"exit_on_escape": "0", "log_level": "info", "log_enable": "0"},
        "graphics": graphics,
        "input": inputs,
    }


def kivy_default_config(python: str) -> str:
    """Kivy's own default config.ini, produced by importing kivy.config with an empty KIVY_HOME."""
    with tempfile.TemporaryDirectory(prefix="tabletally-kivy-") as home:
        env = dict(os.environ)
        env.update(KIVY_HOME=home, KIVY_NO_ARGS="1", KIVY_NO_FILELOG="1", KIVY_NO_CONSOLELOG="1")
        for key in [k for k in env if k.startswith("KCFG_")]:
            del env[key]
        result = subprocess.run(
            [python, "-c", "import kivy.config"], env=env, capture_output=True, text=True, check=False
        )
        config = Path(home) / "config.ini"
        if result.returncode != 0 or not config.is_file():
            why = result.stderr.strip()[-400:] or "no output"
            raise RenderError(f"could not get Kivy's default config from {python}: {why}")
        return config.read_text(encoding="utf-8")


def merge_kivy_config(default_ini: str, overrides: Mapping[str, Mapping[str, str]]) -> str:
    """Kivy's defaults with TableTally's values on top; ``[input]`` replaced by ours."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # Kivy keys are case-sensitive
    parser.read_string(default_ini)
    if not parser.has_option("kivy", "config_version"):
        raise RenderError("Kivy's default config has no [kivy] config_version: not a Kivy config.ini")
    for section, values in overrides.items():
        if section == "input" and parser.has_section("input"):
            parser.remove_section("input")
        if not parser.has_section(section):
            parser.add_section(section)
        for key, value in values.items():
            parser.set(section, key, value)
    out = io.StringIO()
    out.write("; TableTally kiosk: Kivy's defaults plus the settings deploy/install.sh chose.\n")
    parser.write(out)
    return out.getvalue()


# --- command line ---------------------------------------------------------------------------------------


def _enum(kind: type[Enum]) -> Callable[[str], Enum]:
    def parse(text: str) -> Enum:
        try:
            return kind(text)
        except ValueError:
            choices = ", ".join(str(m.value) for m in kind)
            raise argparse.ArgumentTypeError(f"{text!r} is not one of: {choices}") from None

    parse.__name__ = kind.__name__.lower()
    return parse


def _rotation(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value not in ROTATIONS:
        raise argparse.ArgumentTypeError(f"rotation must be 0, 90, 180 or 270, got {text!r}")
    return value


def _add_settings_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="the account the kiosk runs as")
    p.add_argument("--uid", required=True, type=int, help="that account's numeric user id")
    p.add_argument("--venv", required=True, help="the venv holding TableTally")
    p.add_argument("--state-dir", required=True, help="where the database and Kivy's config live")
    p.add_argument("--env-file", required=True, help="the environment file the service reads")
    p.add_argument("--session", required=True, type=_enum(Session), help="kms or desktop")
    p.add_argument("--display", required=True, type=_enum(Display), help="dsi7, td2-landscape, ...")
    p.add_argument("--rotation", type=_rotation, default=None, help="override the display's rotation")
    p.add_argument("--touch", type=_enum(TouchProvider), default=TouchProvider.MTDEV, help="mtdev, hidinput")


def _settings(args: argparse.Namespace) -> KioskSettings:
    rotation = args.rotation if args.rotation is not None else args.display.default_rotation
    return KioskSettings(
        user=args.user,
        uid=args.uid,
        venv=PurePosixPath(args.venv),
        state_dir=PurePosixPath(args.state_dir),
        env_file=PurePosixPath(args.env_file),
        session=args.session,
        display=args.display,
        rotation=rotation,
        touch=args.touch,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="render.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write here instead of stdout")
    sub = parser.add_subparsers(dest="what", required=True)
    _add_settings_arguments(sub.add_parser("unit", help="the systemd service"))
    _add_settings_arguments(sub.add_parser("env", help="the service's environment file"))
    sub.add_parser("constraints", help="pip constraints pinning apt's numpy and picamera2's dependencies")
    kivy = sub.add_parser("kivy-config", help="Kivy's config.ini (run with the venv's python)")
    kivy.add_argument("--session", required=True, type=_enum(Session))
    kivy.add_argument("--rotation", required=True, type=_rotation)
    kivy.add_argument("--touch", type=_enum(TouchProvider), default=TouchProvider.MTDEV)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.what == "unit":
            text = render_unit(_settings(args))
        elif args.what == "env":
            text = render_env(_settings(args))
        elif args.what == "constraints":
            pins = constraint_pins(_installed_version, _installed_requires)
            text = render_constraints(pins, sys.executable)
        else:
            overrides = kivy_overrides(args.session, args.rotation, args.touch)
            text = merge_kivy_config(kivy_default_config(sys.executable), overrides)
    except (RenderError, OSError) as exc:
        print(f"render.py: error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
