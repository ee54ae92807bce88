"""The camera check: is a real camera (Pi camera or webcam) connected and found? And one photo from it,
for the placement check."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ui.commands.doctor.base import Check, CheckName, Status

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


def camera_photo(spec: str) -> tuple[Any, str, str | None] | None:
    """One photo from the kiosk's camera (``spec`` as in Settings), or None when there is no camera (only
    the bundled demo photos, which say nothing about this table)."""
    from vision.cameras import FolderCamera, open_camera

    camera, _why = open_camera(spec)
    try:
        if isinstance(camera, FolderCamera) and spec in ("auto", "demo"):
            return None
        return camera.capture(), camera.name, getattr(camera, "model", None)
    finally:
        camera.close()
