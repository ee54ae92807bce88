"""The display check: a desktop to open a window on, or a connected screen on the KMS/DRM driver; and a
touch panel."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ui.commands.doctor.base import Check, CheckName, Status
from ui.commands.doctor.sysfs import drm_connectors, touch_panels

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
