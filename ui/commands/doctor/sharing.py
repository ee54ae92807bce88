"""The sharing check, when "Scores on phones" is on: the address phones open, and whether the kiosk's
service lets them in."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ui.commands.doctor.base import Check, CheckName, Status
from ui.commands.doctor.settings import record_settings

SHARE_DROP_IN = Path("/etc/systemd/system/tabletally-kiosk.service.d/tabletally-share.conf")
SHARE_DEFAULT_PORT = 8088  # ui.share.DEFAULT_PORT; repeated so that --help needs no imports


def lan_addresses() -> list[str]:
    """This machine's addresses on a home network (ui.share.net)."""
    from ui.share.net import lan_addresses as found

    return found()


def check_sharing(
    data_dir: Path,
    env: Mapping[str, str],
    addresses: Callable[[], Sequence[str]],
    drop_in: Path = SHARE_DROP_IN,
    installed: bool = False,
) -> Check | None:
    """When "Scores on phones" is on: the address phones open, and whether the service lets them in.
    None when sharing is off (the doctor then says nothing about it)."""
    settings = record_settings(data_dir)
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
