"""Check that this machine can run the TableTally kiosk, and say in plain words what to fix.

Five checks: the camera (is one connected and found by libcamera?), the card model (is the file there,
does ONNX Runtime load it, does it read the three known cards of the bundled test photo, and how long does
a photo take?), the display (a desktop session, or a screen on the KMS/DRM driver, and a touch panel), the
database (does it open, pass SQLite's integrity check, accept writes?) and the free disk space. Then, when
they apply: the phones' scoreboard, the faster runtime on this device, and the camera's placement (from one
photo, ``--photo PATH`` or one taken with the kiosk's camera: the corners' size and whether to lower or
raise the camera, vision.placement).

On an installed Pi the settings come from /etc/tabletally/kiosk.env (written by deploy/install.sh), so the
doctor looks at the same data directory and display the kiosk uses. Stop the kiosk first (sudo systemctl
stop tabletally-kiosk) if you want the camera check to open the camera: only one program can use it.

Exit status: 0 when nothing is wrong (warnings allowed), 1 when some check found a problem.
With --json one object is printed: {"ok": bool, "checks": [{"name", "status", "summary", "fix", "details"}]}.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

ENV_FILE = Path("/etc/tabletally/kiosk.env")
SERVICE = "tabletally-kiosk.service"
DB_NAME = "tabletally.sqlite3"  # ui.store.DB_NAME; repeated so that --help needs no imports
ENV_DATA_DIR = "TABLETALLY_DATA_DIR"
MB = 1024 * 1024
DISK_FAIL_MB = 200
DISK_WARN_MB = 1024
SLOW_PHOTO_MS = 2000.0
ABS_MT_POSITION_X = 0x35
"""Linux input event code of a multitouch X position: a touch panel reports it, a mouse does not."""


class Status(Enum):
    OK = "ok"
    WARN = "warning"
    FAIL = "problem"


class CheckName(Enum):
    CAMERA = "camera"
    MODEL = "model"
    DISPLAY = "display"
    DATABASE = "database"
    DISK = "disk"
    SHARING = "sharing"  # only reported when "Scores on phones" is switched on
    RUNTIME = "runtime"  # which runtime installed reads the model fastest on this device
    PLACEMENT = "placement"  # the camera's height, from one photo (--photo, or the kiosk's camera)


@dataclass(frozen=True)
class Check:
    """The outcome of one check: a status, one sentence, how to fix it, and measured facts."""

    name: CheckName
    status: Status
    summary: str
    fix: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.summary.strip():
            raise ValueError(f"check {self.name.value} needs a summary")
        if self.status is not Status.OK and not self.fix.strip():
            raise ValueError(f"check {self.name.value} is {self.status.value} but says nothing about a fix")

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name.value,
            "status": self.status.value,
            "summary": self.summary,
            "fix": self.fix,
            "details": dict(self.details),
        }


# --- the kiosk's settings ------------------------------------------------------------------------------


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a systemd EnvironmentFile ({} when the file is missing or unreadable)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def kiosk_environment(environ: Mapping[str, str], env_file: Path) -> dict[str, str]:
    """The installed kiosk's settings (env file, then local.env beside it) under this process's own."""
    merged = read_env_file(env_file)
    merged.update(read_env_file(env_file.with_name("local.env")))
    merged.update(environ)
    return merged


def resolve_data_dir(explicit: Path | None, env: Mapping[str, str]) -> Path:
    if explicit is not None:
        return explicit.expanduser()
    if env.get(ENV_DATA_DIR):
        return Path(env[ENV_DATA_DIR]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("tabletally", appauthor=False))


# --- camera --------------------------------------------------------------------------------------------

CAMERA_FIX = (
    "Power the Pi off, then check the camera's ribbon cable at both ends: contacts towards the board's "
    "contacts, latch pushed in (a Pi 5 needs the narrow 22-pin cable). Camera Module 3, v2 and HQ are found "
    "automatically (camera_auto_detect=1 in /boot/firmware/config.txt). Then `rpicam-hello --list-cameras` "
    "must list it. A USB webcam works too."
)


def check_camera(list_cameras: Callable[[], Sequence[Any]], kiosk_running: bool = False) -> Check:
    """Is a real camera (Pi camera or webcam, not the bundled demo photos) available?"""
    try:
        infos = list(list_cameras())
    except Exception as exc:  # a probe that blows up is itself the finding
        return Check(CheckName.CAMERA, Status.FAIL, f"listing the cameras failed: {exc}", CAMERA_FIX)
    real = [info for info in infos if str(info.kind) in ("pi", "webcam")]
    found = [info for info in real if info.available]
    details = {"cameras": [{"name": i.name, "available": i.available, "reason": i.reason} for i in infos]}
    pi = [info for info in found if str(info.kind) == "pi"]
    if pi:
        return Check(CheckName.CAMERA, Status.OK, f"{pi[0].name}: {pi[0].reason}", details=details)
    if found:
        return Check(
            CheckName.CAMERA,
            Status.OK,
            f"{found[0].name}: {found[0].reason} (no Pi camera; the kiosk uses this webcam)",
            details=details,
        )
    reasons = "; ".join(f"{i.name}: {i.reason}" for i in real) or "no camera sources at all"
    if any("picamera2" in i.reason for i in real if str(i.kind) == "pi"):
        fix = (
            "Install the camera library from Raspberry Pi OS: sudo apt install python3-picamera2 "
            "(deploy/install.sh does this, and makes the venv with --system-site-packages so it sees it). "
            "On a PC without a Pi camera, plug in a USB webcam."
        )
    else:
        fix = CAMERA_FIX
    if kiosk_running:
        return Check(
            CheckName.CAMERA,
            Status.WARN,
            f"no camera is free ({reasons}); the kiosk is running and may be using it",
            "Only one program can use the camera. Stop the kiosk (sudo systemctl stop tabletally-kiosk), "
            "run tabletally doctor again, then start it (sudo systemctl start tabletally-kiosk).",
            details,
        )
    return Check(CheckName.CAMERA, Status.FAIL, f"no camera found ({reasons})", fix, details)


# --- model ---------------------------------------------------------------------------------------------

MODEL_MISSING_FIX = (
    "The kiosk reads cards with this file. Reinstall TableTally (deploy/update.sh) from a checkout that "
    "contains models/cards.onnx, or train and export one on a PC (make train) and copy it there. "
    "To check another file: tabletally doctor --model PATH."
)


@dataclass(frozen=True)
class ReferencePhoto:
    """A photo to read, and the cards on it when they are known (``None``: unknown, e.g. a demo photo)."""

    path: Path
    cards: tuple[str, ...] | None = None


TEST_PHOTO = Path(__file__).resolve().parents[2] / "deploy" / "doctor-photo.jpg"
"""Three cards rendered from a card design the model never trains on; the cards are in doctor-photo.json."""


def bundled_test_photos(photo: Path = TEST_PHOTO) -> list[ReferencePhoto]:
    """The doctor's own test photo with its cards ([] when it is not installed or its list is unreadable)."""
    try:
        cards = json.loads(photo.with_suffix(".json").read_text(encoding="utf-8"))["cards"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if not photo.is_file() or not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        return []
    return [ReferencePhoto(photo, tuple(cards))]


def check_model(
    model_path: Path,
    load: Callable[[Path], Any],
    photos: Sequence[ReferencePhoto],
    read_image: Callable[[Path], Any],
    blank_image: Callable[[], Any],
    clock: Callable[[], float] = time.perf_counter,
    runs: int = 3,
) -> Check:
    """Is the model file there, does it load, does it read the test photo's cards, and how fast?

    ``load(path)`` returns a reader with ``read(image) -> card codes`` (detection and corner pairing, as
    in a scan) and ``imgsz``, raising on a bad file; after a read, its optional ``doubted`` lists the
    codes it marked uncertain (shown in orange for the players to check, so those misreads are not the
    model failing). The first readable photo in ``photos`` is read;
    without any, a blank picture is timed instead.
    """
    details: dict[str, Any] = {"path": str(model_path)}
    if not model_path.exists():
        return Check(
            CheckName.MODEL, Status.FAIL, f"model file {model_path} is missing", MODEL_MISSING_FIX, details
        )
    if not model_path.is_file() or model_path.stat().st_size == 0:
        return Check(
            CheckName.MODEL,
            Status.FAIL,
            f"model file {model_path} is empty or not a file",
            MODEL_MISSING_FIX,
            details,
        )
    details["size_mb"] = round(model_path.stat().st_size / MB, 1)
    try:
        reader = load(model_path)
    except Exception as exc:
        return Check(
            CheckName.MODEL,
            Status.FAIL,
            f"the model does not load: {exc}",
            "The file is damaged or is not a TableTally card model. " + MODEL_MISSING_FIX,
            details,
        )
    details["input_size"] = getattr(reader, "imgsz", None)
    details["rotations"] = getattr(reader, "rotations", None)
    details["corner_reader"] = getattr(reader, "reader", None)
    photo: ReferencePhoto | None = None
    image = None
    for candidate in photos:
        try:
            image = read_image(candidate.path)
        except Exception:
            continue
        photo = candidate
        break
    if image is None:
        image = blank_image()
    try:
        codes = list(reader.read(image))  # the first run also warms the runtime up
        times = []
        for _ in range(max(1, runs)):
            start = clock()
            codes = list(reader.read(image))
            times.append((clock() - start) * 1000.0)
    except Exception as exc:
        return Check(
            CheckName.MODEL,
            Status.FAIL,
            f"the model loads but fails on a picture: {exc}",
            "The model does not fit this version of TableTally. " + MODEL_MISSING_FIX,
            details,
        )
    ms = statistics.median(times)
    details.update(ms_per_photo=round(ms, 1), test_photo=str(photo.path) if photo else None, read=codes)
    speed = f"{ms:.0f} ms per photo at {details['input_size']} px"
    if details["rotations"]:
        speed += f", {details['rotations']} turn{'s' if details['rotations'] > 1 else ''} a view"
    if details["corner_reader"]:
        speed += ", corners re-read"
    wrong_model = "It may be an untrained or a wrong model. " + MODEL_MISSING_FIX
    checked = ""
    if photo is not None and photo.cards is not None:
        expected = sorted(photo.cards)
        details["expected"] = list(photo.cards)
        missing = _minus(expected, codes)
        extra = _minus(codes, expected)
        if not set(codes) & set(expected):
            return Check(
                CheckName.MODEL,
                Status.FAIL,
                f"the model loads ({speed}) but reads none of the cards in the test photo "
                f"{photo.path.name} ({', '.join(photo.cards)}); it read: {', '.join(codes) or 'nothing'}",
                wrong_model,
                details,
            )
        doubted = list(getattr(reader, "doubted", None) or [])
        asked = sorted((Counter(extra) & Counter(doubted)).elements())  # the misreads shown in orange
        details["marked_for_checking"] = asked
        if extra and asked == extra and len(missing) <= len(extra):
            # Every misread card is marked uncertain: the kiosk shows it in orange and the players fix it
            # before the round is scored, offering the model's other readings, so the reading works.
            checked = (
                f" but {'one' if len(extra) == 1 else len(extra)} it marks for the players to check "
                f"(read {', '.join(extra)}; missed {', '.join(missing) or 'nothing'})"
            )
        elif missing or extra:
            said = []
            if missing:
                said.append(f"missed {', '.join(missing)}")
            if extra:
                said.append(f"also read {', '.join(extra)}")
            return Check(
                CheckName.MODEL,
                Status.WARN,
                f"the model reads the test photo {photo.path.name} only in part: {'; '.join(said)} ({speed})",
                "A good model reads all of these clear cards. " + wrong_model,
                details,
            )
    elif photo is not None and not codes:
        return Check(
            CheckName.MODEL,
            Status.WARN,
            f"the model loads ({speed}) but found no cards in the test photo {photo.path.name}",
            wrong_model,
            details,
        )
    if ms > SLOW_PHOTO_MS:
        return Check(
            CheckName.MODEL,
            Status.WARN,
            f"the model works but is slow: {speed}",
            "Expected is well under a second on a Pi 5 or 4 (deploy/README.md). Check for overheating "
            "(vcgencmd get_throttled) and other busy programs (top); a fan or heatsink helps.",
            details,
        )
    if photo is None:
        what = "ran on a blank picture (no test photo installed)"
    elif photo.cards is not None:
        what = f"read the test photo's cards ({', '.join(photo.cards)}){checked}"
    else:
        what = f"read {len(codes)} cards in {photo.path.name}"
    return Check(CheckName.MODEL, Status.OK, f"loads and {what}: {speed}", details=details)


def _minus(items: Sequence[str], remove: Sequence[str]) -> list[str]:
    """``items`` without ``remove``, counting repeats (two 7H minus one 7H leaves one)."""
    left = list(items)
    for item in remove:
        if item in left:
            left.remove(item)
    return sorted(left)


# --- display -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Connector:
    name: str
    connected: bool
    mode: str


def drm_connectors(drm_root: Path) -> list[Connector]:
    """The display connectors the kernel's DRM driver knows (card1-DSI-1, card1-HDMI-A-1, ...)."""
    found = []
    for status_file in sorted(drm_root.glob("card*-*/status")):
        folder = status_file.parent
        try:
            connected = status_file.read_text().strip() == "connected"
        except OSError:
            continue
        try:
            modes = (folder / "modes").read_text().split()
        except OSError:
            modes = []
        found.append(Connector(folder.name.split("-", 1)[1], connected, modes[0] if modes else ""))
    return found


def _abs_bits(text: str) -> int:
    """The kernel's capability bitmap (hex words, most significant first) as one integer."""
    value = 0
    for word in text.split():
        value = (value << 64) | int(word, 16)
    return value


def touch_panels(input_root: Path) -> list[tuple[str, str]]:
    """(event device, name) of every input device that reports multitouch positions."""
    panels = []
    for caps in sorted(input_root.glob("event*/device/capabilities/abs")):
        try:
            bits = _abs_bits(caps.read_text())
            name = (caps.parent.parent / "name").read_text().strip()
        except (OSError, ValueError):
            continue
        if bits >> ABS_MT_POSITION_X & 1:
            panels.append((caps.parent.parent.parent.name, name))
    return panels


NO_SCREEN_FIX = (
    "Power off and check the display cable: the official touchscreens use the ribbon on the DSI/DISP port "
    "(a Pi 5 needs the narrow 22-pin cable) and their power lead on the 5 V and GND pins. "
    "Raspberry Pi OS finds them automatically (display_auto_detect=1 in /boot/firmware/config.txt); "
    "`grep . /sys/class/drm/card*-*/status` lists what the kernel sees."
)


def check_display(
    env: Mapping[str, str],
    drm_root: Path = Path("/sys/class/drm"),
    input_root: Path = Path("/sys/class/input"),
    dev_root: Path = Path("/dev"),
    x11_dir: Path = Path("/tmp/.X11-unix"),
    can_open: Callable[[Path], bool] = lambda p: os.access(p, os.R_OK | os.W_OK),
) -> Check:
    """A desktop to open a window on, or a connected screen on the DRM driver; and a touch panel."""
    connectors = drm_connectors(drm_root)
    connected = [c for c in connectors if c.connected]
    details: dict[str, Any] = {
        "connected": [f"{c.name} {c.mode}".strip() for c in connected],
        "session": env.get("TABLETALLY_SESSION", ""),
        "rotation": env.get("TABLETALLY_ROTATION", ""),
    }
    panels = touch_panels(input_root)
    details["touch"] = [name for _, name in panels]
    screen = ", ".join(f"{c.name} {c.mode}".strip() for c in connected)
    session = env.get("TABLETALLY_SESSION", "")

    if env.get("WAYLAND_DISPLAY") or (env.get("DISPLAY") and session != "desktop"):
        where = (
            f"WAYLAND_DISPLAY={env['WAYLAND_DISPLAY']}"
            if env.get("WAYLAND_DISPLAY")
            else f"DISPLAY={env['DISPLAY']}"
        )
        return Check(
            CheckName.DISPLAY,
            Status.OK,
            f"desktop session ({where}); screens: {screen or 'n/a'}",
            details=details,
        )
    if session == "desktop":
        display = env.get("DISPLAY", ":0")
        socket = x11_dir / f"X{display.lstrip(':').split('.')[0]}"
        if not socket.exists():
            return Check(
                CheckName.DISPLAY,
                Status.FAIL,
                f"the kiosk is set up for the desktop, but no desktop is running (no {socket})",
                "Boot into the desktop with automatic login: sudo raspi-config nonint do_boot_behaviour B4, "
                "then reboot. Or reinstall for Raspberry Pi OS Lite: sudo deploy/install.sh --session kms.",
                details,
            )
        return Check(
            CheckName.DISPLAY,
            Status.OK,
            f"desktop running (X display {display}); screens: {screen or 'n/a'}",
            details=details,
        )

    cards = sorted(p for p in dev_root.glob("dri/card*"))
    if not connectors and not cards:
        return Check(
            CheckName.DISPLAY,
            Status.FAIL,
            "no graphics driver: /dev/dri has no card and /sys/class/drm no connectors",
            "Raspberry Pi OS Bookworm uses the KMS driver: /boot/firmware/config.txt must contain "
            "dtoverlay=vc4-kms-v3d (not commented out). Reboot after changing it.",
            details,
        )
    if not connected:
        return Check(CheckName.DISPLAY, Status.FAIL, "no screen is connected", NO_SCREEN_FIX, details)
    blocked = [p for p in cards if not can_open(p)]
    if cards and len(blocked) == len(cards):
        return Check(
            CheckName.DISPLAY,
            Status.FAIL,
            f"screen {screen} is connected but this account may not draw on it ({blocked[0]})",
            "Add the account to the video and render groups (sudo usermod -aG video,render,input $USER), "
            "then log out and in, or reboot. The kiosk service gets these groups by itself.",
            details,
        )
    summary = f"screen {screen} on the KMS/DRM driver"
    if session == "kms":
        rotation = env.get("TABLETALLY_ROTATION", "0")
        summary += f", rotated {rotation} degrees" if rotation not in ("", "0") else ""
    if not panels:
        return Check(
            CheckName.DISPLAY,
            Status.WARN,
            summary + "; no touch panel found",
            "The kiosk also works with a mouse. For touch, check the display's ribbon and power "
            "(touch travels on the same ribbon for the official screens) or plug in the touch panel's "
            "USB cable.",
            details,
        )
    unreadable = [dev for dev, _ in panels if not can_open(dev_root / "input" / dev)]
    if session == "kms" and unreadable:
        return Check(
            CheckName.DISPLAY,
            Status.WARN,
            summary + f"; touch panel {panels[0][1]} found, but this account cannot read it",
            "The kiosk service reads it as a member of the input group. To test from your own login: "
            "sudo usermod -aG input $USER, then log out and in.",
            details,
        )
    return Check(
        CheckName.DISPLAY, Status.OK, summary + f"; touch: {', '.join(details['touch'])}", details=details
    )


# --- database ------------------------------------------------------------------------------------------


def _writable_dir(path: Path) -> tuple[bool, Path]:
    """Whether the nearest existing folder at or above ``path`` can be written; and that folder."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK | os.X_OK), probe


def check_database(data_dir: Path) -> Check:
    """Is the game-night record TableTally's, of this version, intact and writable by this account?

    It reads the file the way the kiosk checks it before opening (:func:`ui.store.check_record`), and never
    writes to it: another program's database, or a newer TableTally's record, is reported, not changed.
    """
    from ui.store import Fault, RecordFault, check_record, fault_of

    db = data_dir / DB_NAME
    details: dict[str, Any] = {"path": str(db)}
    chown_fix = (
        f"Give the kiosk's account its data back: sudo chown -R <kiosk user> {data_dir} "
        "(deploy/install.sh sets this up; the account is User= in /etc/systemd/system/"
        "tabletally-kiosk.service)."
    )
    if not db.exists():
        ok, folder = _writable_dir(data_dir)
        if ok:
            return Check(
                CheckName.DATABASE,
                Status.OK,
                f"no games recorded yet: the kiosk creates {db} when it first starts",
                details=details,
            )
        return Check(
            CheckName.DATABASE,
            Status.FAIL,
            f"cannot create the database: {folder} is not writable",
            chown_fix,
            details,
        )
    details["size_mb"] = round(db.stat().st_size / MB, 2)
    # Permissions first: a record this account may not read or write is not damaged, and chown fixes it.
    # SQLite also needs to create its -wal and -shm files beside the record.
    unwritable = [str(p) for p in (db, data_dir) if not os.access(p, os.R_OK | os.W_OK)]
    from ui.logic.faults import read_only_filesystem

    if unwritable and read_only_filesystem(data_dir):
        return Check(
            CheckName.DATABASE,
            Status.FAIL,
            f"the file system holding {data_dir} is mounted read-only",
            "A failing SD card often turns read-only: copy the data folder off now (the record is intact "
            "and readable), then replace the card. Check with: mount | grep ' ro,'",
            details,
        )
    if unwritable:
        return Check(
            CheckName.DATABASE,
            Status.FAIL,
            f"this account may not read and write {' and '.join(unwritable)}",
            chown_fix,
            details,
        )
    damaged_fix = (
        "The kiosk offers to set the damaged record aside (renamed, never deleted) and start a fresh one, "
        "exporting every game it can still read. To rescue more by hand: stop the kiosk (sudo systemctl "
        f"stop tabletally-kiosk), keep a copy of the file, then sqlite3 {db} .recover | sqlite3 "
        f"{db}.recovered and move the recovered file in its place."
    )
    fixes = {
        Fault.CORRUPT: damaged_fix,
        Fault.FOREIGN: (
            f"{db} belongs to another program; TableTally has not changed it. Move it elsewhere "
            f"(mv {db} {db}.other), or give the kiosk another data folder (TABLETALLY_DATA_DIR in "
            f"{ENV_FILE.with_name('local.env')})."
        ),
        Fault.NEWER: "A newer TableTally wrote this record: update this one (sudo deploy/update.sh).",
        Fault.READ_ONLY: chown_fix,
        Fault.FULL: "The disk is full: see the disk check below.",
        Fault.BUSY: "If the kiosk is running this is normal; otherwise look for a stuck program: fuser -v "
        + str(db),
        Fault.IO: "The SD card fails to read: copy the data folder off now, then replace the card.",
    }

    def sqlite_failed(exc: sqlite3.Error, what: str, fix: str) -> Check:
        """SQLite refused: what failed and why, with the fix for its kind of fault (else ``fix``)."""
        fault = fault_of(exc)
        return Check(
            CheckName.DATABASE,
            Status.FAIL,
            f"{what}: {exc}",
            fixes.get(fault, fix) if fault else fix,
            details,
        )

    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2, isolation_level=None)
    except sqlite3.Error as exc:
        return sqlite_failed(exc, f"the database {db} does not open", chown_fix)
    try:
        try:
            check_record(con, db)
            rows = [r[0] for r in con.execute("PRAGMA integrity_check").fetchall()]
            if rows != ["ok"]:  # what quick_check does not look at: indexes against their tables
                return Check(
                    CheckName.DATABASE,
                    Status.FAIL,
                    f"the database is damaged ({len(rows)} errors, first: {rows[0]})",
                    damaged_fix,
                    details | {"errors": rows[:10], "fault": Fault.CORRUPT.value},
                )
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "games" in tables:
                details["games"] = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except RecordFault as exc:
            what = {
                Fault.CORRUPT: "the database is damaged",
                Fault.FOREIGN: "this is not a TableTally record",
                Fault.NEWER: "the record is from a newer TableTally",
            }.get(exc.fault, "the database cannot be read")
            status = Status.WARN if exc.fault is Fault.BUSY else Status.FAIL
            return Check(
                CheckName.DATABASE,
                status,
                f"{what}: {exc.detail}",
                fixes.get(exc.fault, damaged_fix),
                details | {"fault": exc.fault.value},
            )
        except sqlite3.Error as exc:
            return sqlite_failed(exc, f"{db} cannot be read", damaged_fix)
    finally:
        con.close()
    busy = _busy(db)
    if busy:
        return Check(
            CheckName.DATABASE,
            Status.WARN,
            f"the database is intact but busy: another program is writing it ({busy})",
            fixes[Fault.BUSY],
            details,
        )
    games = f", {details['games']} games" if "games" in details else ""
    return Check(
        CheckName.DATABASE,
        Status.OK,
        f"{db} opens, is TableTally's, intact and writable ({details['size_mb']} MB{games})",
        details=details,
    )


def _busy(db: Path) -> str:
    """Why a write transaction on ``db`` cannot start now ('' when it can); it writes nothing."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=rw", uri=True, timeout=2, isolation_level=None)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        return str(exc)
    finally:
        con.close()
    return ""


# --- disk ----------------------------------------------------------------------------------------------


def check_disk(path: Path, usage: Callable[[Path], Any] = shutil.disk_usage) -> Check:
    """Free space where the database and scan photos are kept."""
    _, folder = _writable_dir(path)
    try:
        total, _used, free = usage(folder)
    except OSError as exc:
        return Check(
            CheckName.DISK,
            Status.FAIL,
            f"cannot read the free space of {folder}: {exc}",
            "Check that the SD card is mounted: df -h.",
        )
    free_mb, total_mb = free / MB, total / MB
    details = {"path": str(folder), "free_mb": round(free_mb), "total_mb": round(total_mb)}
    text = f"{free_mb / 1024:.1f} GB free of {total_mb / 1024:.1f} GB on {folder}"
    cleanup = (
        "Free some space: the kiosk's full-disk screen offers to delete the photos of earlier nights (the "
        "scores stay in the record); or delete old scan photos in the data directory's photos/ folder, "
        "sudo apt-get clean, sudo journalctl --vacuum-size=100M."
    )
    if free_mb < DISK_FAIL_MB:
        return Check(
            CheckName.DISK,
            Status.FAIL,
            f"the disk is full: {text}",
            cleanup + " The kiosk cannot save games now.",
            details,
        )
    if free_mb < DISK_WARN_MB:
        return Check(CheckName.DISK, Status.WARN, f"the disk is nearly full: {text}", cleanup, details)
    return Check(CheckName.DISK, Status.OK, text, details=details)


# --- scores on phones ------------------------------------------------------------------------------------

SHARE_DROP_IN = Path("/etc/systemd/system/tabletally-kiosk.service.d/tabletally-share.conf")
SHARE_DEFAULT_PORT = 8088  # ui.share.DEFAULT_PORT; repeated so that --help needs no imports


def _lan_addresses() -> list[str]:
    from ui.share.net import lan_addresses

    return lan_addresses()


def _record_settings(data_dir: Path) -> dict[str, str]:
    try:
        con = sqlite3.connect(f"file:{data_dir / DB_NAME}?mode=ro", uri=True, timeout=2)
        try:
            rows = con.execute(
                "SELECT key, value FROM settings WHERE key IN ('share', 'share_port', 'camera')"
            ).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return {}
    return {str(k): str(v) for k, v in rows}


def check_sharing(
    data_dir: Path,
    env: Mapping[str, str],
    addresses: Callable[[], Sequence[str]],
    drop_in: Path = SHARE_DROP_IN,
    installed: bool = False,
) -> Check | None:
    """When "Scores on phones" is on: the address phones open, and whether the service lets them in.
    None when sharing is off (the doctor then says nothing about it)."""
    settings = _record_settings(data_dir)
    if settings.get("share") != "on":
        return None
    port = SHARE_DEFAULT_PORT
    for text in (env.get("TABLETALLY_SHARE_PORT"), settings.get("share_port")):
        if text and text.isdigit() and 0 < int(text) < 65536:
            port = int(text)
            break
    found = list(addresses())
    chosen = env.get("TABLETALLY_SHARE_ADDRESS", "").strip()
    hosts = ([chosen] if chosen else []) + found
    urls = [f"http://[{h}]:{port}/" if ":" in h else f"http://{h}:{port}/" for h in hosts]
    details: dict[str, Any] = {
        "port": port,
        "urls": urls,
        "drop_in": str(drop_in),
        "drop_in_installed": drop_in.exists(),
    }
    if installed and not drop_in.exists():
        return Check(
            CheckName.SHARING,
            Status.WARN,
            "scores on phones is switched on, but the kiosk's service lets no network traffic in",
            "Let phones on the home network in: sudo deploy/share.sh on (in the TableTally folder).",
            details,
        )
    if not urls:
        return Check(
            CheckName.SHARING,
            Status.WARN,
            f"scores on phones is switched on (port {port}), but this Pi is on no home network",
            "Connect the Pi to the Wi-Fi or cable the phones use "
            "(sudo raspi-config, System Options, Wireless LAN).",
            details,
        )
    also = f" (or {', '.join(urls[1:])})" if len(urls) > 1 else ""
    return Check(CheckName.SHARING, Status.OK, f"phones open {urls[0]}{also}", details=details)


# --- running them ----------------------------------------------------------------------------------------


def _service_active(name: str = SERVICE) -> bool:
    try:
        result = subprocess.run(
            ["systemctl", "is-active", "--quiet", name],
            check=False,
            timeout=5,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


@dataclass(frozen=True)
class Probes:
    """How the checks reach the hardware. Tests replace them; the defaults use the real machine."""

    list_cameras: Callable[[], Sequence[Any]]
    load_detector: Callable[[Path], Any]
    test_photos: Callable[[], Sequence[ReferencePhoto]]
    read_image: Callable[[Path], Any]
    blank_image: Callable[[], Any]
    kiosk_running: Callable[[], bool] = _service_active
    disk_usage: Callable[[Path], Any] = shutil.disk_usage
    drm_root: Path = Path("/sys/class/drm")
    input_root: Path = Path("/sys/class/input")
    dev_root: Path = Path("/dev")
    x11_dir: Path = Path("/tmp/.X11-unix")
    lan_addresses: Callable[[], Sequence[str]] = _lan_addresses
    share_drop_in: Path = SHARE_DROP_IN
    time_runtimes: Callable[[], Mapping[str, float | str]] | None = None  # None: no runtime check
    # A photo to judge the camera's place by: (image, where it came from, libcamera's sensor name or None),
    # None when there is no camera; raises when the camera gives no photo. None: no placement check.
    placement_photo: Callable[[str], tuple[Any, str, str | None] | None] | None = None


def real_probes() -> Probes:
    """Probes on this machine, through TableTally's vision package (imports OpenCV and ONNX Runtime)."""
    import numpy as np

    from vision.camera import demo_photos, list_cameras, load_image
    from vision.detector import CardDetector

    return Probes(
        list_cameras=list_cameras,
        load_detector=lambda path: _CardReader(CardDetector(path).load()),
        test_photos=lambda: [*bundled_test_photos(), *(ReferencePhoto(p) for p in demo_photos())],
        read_image=load_image,
        blank_image=lambda: np.full((720, 960, 3), 128, dtype=np.uint8),
        time_runtimes=_time_runtimes,
        placement_photo=_camera_photo,
    )


def _camera_photo(spec: str) -> tuple[Any, str, str | None] | None:
    """One photo from the kiosk's camera (``spec`` as in Settings), or None when there is no camera (only
    the bundled demo photos, which say nothing about this table)."""
    from vision.camera import FolderCamera, open_camera

    camera, _why = open_camera(spec)
    try:
        if isinstance(camera, FolderCamera) and spec in ("auto", "demo"):
            return None
        return camera.capture(), camera.name, getattr(camera, "model", None)
    finally:
        camera.close()


def check_placement(
    take_photo: Callable[[], tuple[Any, str, str | None] | None],
    load: Callable[[Path], Any],
    model_path: Path,
) -> Check | None:
    """Is the camera hanging at the right height? One photo (of the table with a card at each seat) read as
    a scan reads it: the corner size in the photo and in the model's input, and what to change
    (vision.placement). None when there is no photo to judge (no camera: the camera check says so)."""
    from vision.placement import GOOD_MODEL_PX, Verdict, lens_for
    from vision.placement import check_placement as judge

    try:
        taken = take_photo()
    except Exception as exc:
        return Check(
            CheckName.PLACEMENT,
            Status.WARN,
            f"no photo to judge the camera's height by: {exc}",
            "Stop the kiosk first (sudo systemctl stop tabletally-kiosk), or give a photo of the table: "
            "tabletally doctor --photo PHOTO.",
        )
    if taken is None:
        return None
    image, source, model = taken
    try:
        reader = load(model_path)
        cards = reader.cards(image)
    except Exception as exc:
        return Check(
            CheckName.PLACEMENT,
            Status.WARN,
            f"{source}: the photo could not be read ({exc})",
            "See the model check above.",
        )
    h, w = image.shape[:2]
    placement = judge(cards, w, h, None, int(getattr(reader, "imgsz", 576) or 576), lens_for(model))
    details: dict[str, Any] = {
        "photo": source,
        "size": [w, h],
        "verdict": str(placement.verdict),
        "cards": len(cards),
        "corner_px": None if placement.corner_px is None else round(placement.corner_px, 1),
        "model_px": None if placement.model_px is None else round(placement.model_px, 1),
        "aim_model_px": GOOD_MODEL_PX,
    }
    if placement.height_m is not None:
        details.update(height_m=round(placement.height_m, 2), view_m=round(placement.view_m or 0.0, 2))
    if placement.target_m is not None:
        details["target_m"] = round(placement.target_m, 2)
    advice, _, numbers = placement.summary().partition("; ")
    if placement.verdict is Verdict.FINE:
        return Check(CheckName.PLACEMENT, Status.OK, f"{source}: {numbers}: {advice}", details=details)
    return Check(
        CheckName.PLACEMENT,
        Status.WARN,
        f"{source}: {numbers}",
        advice[0].upper() + advice[1:] + ". The kiosk's camera check (Settings) shows it seat by seat.",
        details,
    )


def _time_runtimes() -> Mapping[str, float | str]:
    """One model pass on the bundled photos with each runtime on this device, each in a child process of
    its own (vision.ncnn_backend.time_runtimes_apart: the installer's choice times the same way)."""
    from vision.ncnn_backend import time_runtimes_apart

    return time_runtimes_apart()


def check_runtime(time_runtimes: Callable[[], Mapping[str, float | str]], env: Mapping[str, str]) -> Check:
    """Time one pass of the card model with each runtime on this device, and say which the kiosk reads with
    (``$TABLETALLY_RUNTIME``, as the installer chose it, else ONNX Runtime) and why; a warning when the
    choice the installer would make now (vision.ncnn_backend.choose_runtime) is another."""
    from vision.ncnn_backend import AS_GOOD, NAMES, RUNTIME_ENV, choose_runtime

    chosen = (env.get(RUNTIME_ENV) or "onnx").strip().lower()
    times = time_runtimes()
    measured = {k: float(v) for k, v in times.items() if isinstance(v, float | int)}
    details: dict[str, Any] = {f"{k}_ms": round(v, 1) for k, v in measured.items()}
    details.update({f"{k}_error": v for k, v in times.items() if isinstance(v, str)})
    details["kiosk_uses"] = chosen
    if not measured:
        return Check(
            CheckName.RUNTIME, Status.WARN, "no runtime could run the card model", MODEL_MISSING_FIX, details
        )
    best, why = choose_runtime(times)
    details["best_here"] = best
    where = f"set in {RUNTIME_ENV}" if env.get(RUNTIME_ENV) else "the default"
    name = NAMES.get(chosen, chosen)
    if chosen == best or (chosen in measured and measured[chosen] <= AS_GOOD * min(measured.values())):
        return Check(
            CheckName.RUNTIME,
            Status.OK,
            f"the kiosk reads with {name} ({where}); one pass: {why}",
            details=details,
        )
    return Check(
        CheckName.RUNTIME,
        Status.WARN,
        f"the kiosk reads with {name} ({where}), but {NAMES.get(best, best)} is faster here; one pass: {why}",
        "Run the installer again (sudo deploy/install.sh: it times each and writes the fastest into "
        f"/etc/tabletally/kiosk.env), or put {RUNTIME_ENV}={best} in /etc/tabletally/local.env; then restart "
        "the kiosk (sudo systemctl restart tabletally-kiosk).",
        details,
    )


class _CardReader:
    """The kiosk's way of reading a photo: detect the corner indices, then pair them into cards."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        self.imgsz = detector.imgsz
        self.rotations = detector.rotations
        reader = getattr(detector, "reader", None)
        self.reader = None if reader is None else str(reader.model_path)
        self.doubted: list[str] = []

    def read(self, image: Any) -> list[str]:
        cards = self.cards(image)
        self.doubted = [card.code for card in cards if card.uncertain]
        return [card.code for card in cards]

    def cards(self, image: Any) -> list[Any]:
        """The cards read (vision.types.DetectedCard, with their corner boxes)."""
        from vision.cards import cards_from_detections

        return list(cards_from_detections(self.detector.detect(image)))


def default_model_path(env: Mapping[str, str] | None = None) -> Path:
    """The model the kiosk reads cards with when it is not given --model: ``$TABLETALLY_MODEL`` as the
    kiosk sees it (its env file, then this process's environment), else the shipped models/cards.onnx."""
    from vision.model_config import DEFAULT_ONNX, MODEL_ENV

    chosen = (env or {}).get(MODEL_ENV)
    return Path(chosen).expanduser() if chosen else DEFAULT_ONNX


def run_checks(
    probes: Probes,
    env: Mapping[str, str],
    data_dir: Path,
    model_path: Path,
    skip: frozenset[CheckName] = frozenset(),
    photo: Path | None = None,
) -> list[Check]:
    """Every check not in ``skip``, in the order camera, model, display, database, disk (then sharing,
    runtime, placement). ``photo``: judge the camera's place by this photo, not by one from the camera."""
    checks: list[Check] = []
    if CheckName.CAMERA not in skip:
        checks.append(check_camera(probes.list_cameras, probes.kiosk_running()))
    if CheckName.MODEL not in skip:
        checks.append(
            check_model(
                model_path, probes.load_detector, probes.test_photos(), probes.read_image, probes.blank_image
            )
        )
    if CheckName.DISPLAY not in skip:
        checks.append(check_display(env, probes.drm_root, probes.input_root, probes.dev_root, probes.x11_dir))
    if CheckName.DATABASE not in skip:
        checks.append(check_database(data_dir))
    if CheckName.DISK not in skip:
        checks.append(check_disk(data_dir, probes.disk_usage))
    if CheckName.SHARING not in skip:
        installed = (probes.share_drop_in.parent.parent / SERVICE).exists()  # the kiosk's unit, installed
        sharing = check_sharing(data_dir, env, probes.lan_addresses, probes.share_drop_in, installed)
        if sharing is not None:
            checks.append(sharing)
    if CheckName.RUNTIME not in skip and probes.time_runtimes is not None:
        checks.append(check_runtime(probes.time_runtimes, env))
    if CheckName.PLACEMENT not in skip and (photo is not None or probes.placement_photo is not None):
        take: Callable[[], tuple[Any, str, str | None] | None]
        if photo is not None:
            take = lambda: (probes.read_image(photo), photo.name, None)  # noqa: E731
        else:
            spec = _record_settings(data_dir).get("camera") or "auto"
            take = lambda: probes.placement_photo(spec)  # type: ignore[misc]  # noqa: E731
        placement = check_placement(take, probes.load_detector, model_path)
        if placement is not None:
            checks.append(placement)
    return checks


def format_report(checks: Sequence[Check], width: int = 100) -> str:
    labels = {Status.OK: "ok", Status.WARN: "warning", Status.FAIL: "PROBLEM"}
    lines = ["TableTally doctor"]
    indent = " " * 21
    for check in checks:
        head = f"  {labels[check.status]:<8} {check.name.value:<9} "
        lines.append(textwrap.fill(check.summary, width, initial_indent=head, subsequent_indent=indent))
        if check.fix:
            fix = "fix: " + check.fix
            lines.append(textwrap.fill(fix, width, initial_indent=indent, subsequent_indent=indent))
    problems = sum(c.status is Status.FAIL for c in checks)
    warnings = sum(c.status is Status.WARN for c in checks)
    if problems:
        lines.append(
            f"{problems} problem(s), {warnings} warning(s): "
            "fix the problems above, then run tabletally doctor again."
        )
    elif warnings:
        lines.append(f"No problems; {warnings} warning(s) above. The kiosk can run.")
    else:
        lines.append("Everything the kiosk needs is in place.")
    return "\n".join(lines) + "\n"


def _check_name(text: str) -> CheckName:
    try:
        return CheckName(text)
    except ValueError:
        names = ", ".join(n.value for n in CheckName)
        raise argparse.ArgumentTypeError(f"unknown check {text!r}; the checks are {names}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--data-dir", type=Path, help="data directory (default: the kiosk's, see above)")
    parser.add_argument(
        "--model",
        type=Path,
        help="model file (default: the kiosk's: $TABLETALLY_MODEL, else models/cards.onnx in the package)",
    )
    parser.add_argument(
        "--env-file", type=Path, default=ENV_FILE, help=f"the installed kiosk's settings (default {ENV_FILE})"
    )
    parser.add_argument(
        "--skip",
        type=_check_name,
        action="append",
        default=[],
        metavar="CHECK",
        help="leave out a check: camera, model, display, database or disk (repeatable)",
    )
    parser.add_argument(
        "--photo",
        type=Path,
        help="judge the camera's height by this photo (a card at each seat) instead of one from the camera",
    )


def run(
    args: argparse.Namespace, probes: Probes | None = None, environ: Mapping[str, str] | None = None
) -> int:
    env = kiosk_environment(os.environ if environ is None else environ, args.env_file)
    data_dir = resolve_data_dir(args.data_dir, env)
    try:
        probes = probes or real_probes()
        model_path = args.model.expanduser() if args.model else default_model_path(env)
    except ImportError as exc:
        print(f"tabletally doctor: TableTally's vision libraries do not load: {exc}", file=sys.stderr)
        print(
            "  fix: reinstall (sudo deploy/install.sh) so the venv has OpenCV, ONNX Runtime and numpy",
            file=sys.stderr,
        )
        return 1
    photo = getattr(args, "photo", None)
    checks = run_checks(probes, env, data_dir, model_path, frozenset(args.skip), photo and photo.expanduser())
    ok = all(c.status is not Status.FAIL for c in checks)
    if args.json:
        sys.stdout.write(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]}, indent=2) + "\n")
    else:
        sys.stdout.write(format_report(checks))
    return 0 if ok else 1
