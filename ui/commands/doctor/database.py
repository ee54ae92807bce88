"""The database check: is the game-night record TableTally's, of this version, intact and writable?"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ui.commands.doctor.base import MB, Check, CheckName, Status
from ui.commands.doctor.disk import DISK_FAIL_MB, writable_dir
from ui.commands.doctor.settings import DB_NAME, ENV_FILE


def check_database(data_dir: Path, usage: Callable[[Path], Any] = shutil.disk_usage) -> Check:
    """Is the game-night record TableTally's, of this version, intact and writable by this account, with
    room on the disk to take the next round?

    It reads the file the way the kiosk checks it before opening (:func:`ui.store.check_record`), and never
    writes to it: another program's database, or a newer TableTally's record, is reported, not changed.
    ``usage``: the free space of a folder (:func:`shutil.disk_usage`), as the disk check reads it.
    """
    from ui.logic.faults import read_only_filesystem
    from ui.store import Fault, RecordFault, check_record, fault_of

    db = data_dir / DB_NAME
    details: dict[str, Any] = {"path": str(db)}
    chown_fix = (
        f"Give the kiosk's account its data back: sudo chown -R <kiosk user> {data_dir} "
        "(deploy/install.sh sets this up; the account is User= in /etc/systemd/system/"
        "tabletally-kiosk.service)."
    )
    full_fix = (
        "The disk is full: see the disk check below. The kiosk's full-disk screen offers to delete the "
        "photos of earlier nights."
    )
    if not db.exists():
        ok, folder = writable_dir(data_dir)
        if not ok and read_only_filesystem(folder):  # chown cannot help: the card (or its mount) is read-only
            return Check(
                CheckName.DATABASE,
                Status.FAIL,
                f"cannot create the database: the file system holding {folder} is mounted read-only",
                "A failing SD card often turns read-only: replace the card (no games are recorded on it "
                "yet), or give the kiosk a data folder on a writable disk (TABLETALLY_DATA_DIR in "
                f"{ENV_FILE.with_name('local.env')}). Check with: mount | grep ' ro,'",
                details,
            )
        full = _no_room(folder, usage)
        if ok and full:
            return Check(
                CheckName.DATABASE, Status.FAIL, f"cannot create the database {db}: {full}", full_fix, details
            )
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
        "exporting every game it can still read. To save the games by hand first: tabletally export "
        f"--data-dir {data_dir} --out <folder> (it reads past damaged pages and changes nothing)."
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
        Fault.FULL: full_fix,
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
    full = _no_room(data_dir, usage)
    if full:
        return Check(
            CheckName.DATABASE,
            Status.FAIL,
            f"{db} opens, is TableTally's and intact, but cannot take new rounds: {full}",
            full_fix,
            details,
        )
    return Check(
        CheckName.DATABASE,
        Status.OK,
        f"{db} opens, is TableTally's, intact and writable ({details['size_mb']} MB{games})",
        details=details,
    )


def _no_room(folder: Path, usage: Callable[[Path], Any]) -> str:
    """Why the disk holding ``folder`` has no room for the record ('' when it has, or cannot be read: the
    disk check says so)."""
    try:
        free = usage(folder)[2]
    except OSError:
        return ""
    if free / MB < DISK_FAIL_MB:
        return f"the disk is full ({free / MB:.0f} MB free)"
    return ""


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
