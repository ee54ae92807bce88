"""The scan photos beside the record: written whole or not at all, and deleted to make room."""

from __future__ import annotations

import datetime as dt
import errno
import os
import shutil
from pathlib import Path

from ui.store.faults import Fault, fault_of
from ui.store.files import PHOTOS_DIR, PRIVATE_FILE

PHOTO_RESERVE = 16 * 1024 * 1024  # bytes a photo may never take: the room the record keeps for scores


def write_photo(photo: Path, jpeg: bytes, reserve: int) -> bool:
    """Write ``photo`` whole or not at all; False (and nothing on disk) when the disk is full, or
    would keep less than ``reserve`` bytes free for the record."""
    tmp = photo.with_suffix(".part")
    try:
        if shutil.disk_usage(photo.parent).free - len(jpeg) < reserve:
            raise OSError(errno.ENOSPC, "the photo would take the room kept for the scores")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        with open(fd, "wb") as fh:
            fh.write(jpeg)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, photo)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if fault_of(exc) is Fault.FULL:
            return False
        raise
    return True


def photo_usage(photos_dir: Path) -> tuple[int, int]:
    """(number, bytes) of the scan photos in ``photos_dir``."""
    count = size = 0
    for path in photos_dir.glob("*.jpg"):
        try:
            size += path.stat().st_size
        except OSError:
            continue
        count += 1
    return count, size


def delete_photos_before(data_dir: Path | str, moment: dt.datetime) -> tuple[int, int]:
    """Delete the scan photos (and leftover partial files) last written before ``moment``, without opening
    the record: what a full disk needs when the record itself cannot open. Returns (photos, bytes) freed;
    the record then shows those scans without a photo."""
    photos = Path(data_dir).expanduser() / PHOTOS_DIR
    cutoff = moment.timestamp()
    count = freed = 0
    for path in [*photos.glob("*.jpg"), *photos.glob("*.part")]:
        try:
            info = path.stat()
            if path.suffix == ".jpg" and info.st_mtime >= cutoff:
                continue
            path.unlink()
        except OSError:
            continue
        count += path.suffix == ".jpg"
        freed += info.st_size
    return count, freed
