"""The disk check: free space where the record and the scan photos are kept."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ui.commands.doctor.base import MB, Check, CheckName, Status

DISK_FAIL_MB = 200
DISK_WARN_MB = 1024


def writable_dir(path: Path) -> tuple[bool, Path]:
    """Whether the nearest existing folder at or above ``path`` can be written; and that folder."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK | os.X_OK), probe


def check_disk(path: Path, usage: Callable[[Path], Any] = shutil.disk_usage) -> Check:
    """Free space where the database and scan photos are kept."""
    _, folder = writable_dir(path)
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
