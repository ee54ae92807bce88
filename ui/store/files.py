"""Where the record lives and who may read it: the data directory, private folders and files, the clock."""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path

DB_NAME = "tabletally.sqlite3"
PHOTOS_DIR = "photos"
ENV_DATA_DIR = "TABLETALLY_DATA_DIR"
PRIVATE_DIR = 0o700  # the record and photos are the kiosk user's alone, whatever the umask
PRIVATE_FILE = 0o600
# A game night runs past midnight: games belong to the night that started at this local hour.
NIGHT_STARTS_HOUR = 6


def default_data_dir() -> Path:
    """$TABLETALLY_DATA_DIR if set, else the per-user data directory (platformdirs)."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("tabletally", appauthor=False))


def night_of(moment: dt.datetime) -> dt.date:
    """The game night a local time belongs to (a night runs from 06:00 to 06:00 the next day)."""
    return (moment - dt.timedelta(hours=NIGHT_STARTS_HOUR)).date()


def now() -> dt.datetime:
    return dt.datetime.now().replace(microsecond=0)


def night_start(moment: dt.datetime) -> dt.datetime:
    """When the game night of ``moment`` began (see :func:`night_of`)."""
    return dt.datetime.combine(night_of(moment), dt.time(NIGHT_STARTS_HOUR))


def private_dir(path: Path) -> None:
    """Create ``path`` (and its parents) if needed; the folder itself is the user's alone (0700)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) != PRIVATE_DIR:
        path.chmod(PRIVATE_DIR)


def private_files(db_path: Path) -> None:
    """The record and its WAL files readable by their user only (0600), whatever the umask was."""
    if os.name != "posix":
        return
    for path in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
        try:
            if stat.S_IMODE(path.stat().st_mode) != PRIVATE_FILE:
                path.chmod(PRIVATE_FILE)
        except FileNotFoundError:
            continue
