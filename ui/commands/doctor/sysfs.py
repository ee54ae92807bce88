"""What the kernel says about the screens and touch panels (/sys/class/drm, /sys/class/input)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ABS_MT_POSITION_X = 0x35
"""Linux input event code of a multitouch X position: a touch panel reports it, a mouse does not."""


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
