"""The faults of the record's disk or file: :class:`StoreError`, :class:`Fault` and :class:`RecordFault`."""

from __future__ import annotations

import errno
import sqlite3
from enum import Enum
from pathlib import Path


class StoreError(Exception):
    """The record cannot be opened or an action on it is not possible (the message says which)."""


class Fault(Enum):
    """What went wrong with the record's file or disk (see :class:`RecordFault`)."""

    CORRUPT = "corrupt"  # pages of the file are damaged, or it is not a database at all
    FOREIGN = "foreign"  # a database of another program
    NEWER = "newer"  # written by a newer TableTally (a higher schema_version)
    FULL = "full"  # no space left on the disk
    READ_ONLY = "read_only"  # the kiosk may not write the record or its folder
    BUSY = "busy"  # another program holds the record locked
    IO = "io"  # the disk failed to read or write


class RecordFault(StoreError):
    """The record's file or disk failed; ``fault`` says how and ``path`` is the file concerned."""

    def __init__(self, fault: Fault, path: Path, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.fault = fault
        self.path = path
        self.detail = detail


_SQLITE_FAULTS = {
    "SQLITE_CORRUPT": Fault.CORRUPT,
    "SQLITE_NOTADB": Fault.CORRUPT,
    "SQLITE_FULL": Fault.FULL,
    "SQLITE_READONLY": Fault.READ_ONLY,
    "SQLITE_CANTOPEN": Fault.READ_ONLY,
    "SQLITE_PERM": Fault.READ_ONLY,
    "SQLITE_AUTH": Fault.READ_ONLY,
    "SQLITE_BUSY": Fault.BUSY,
    "SQLITE_LOCKED": Fault.BUSY,
    "SQLITE_IOERR": Fault.IO,
}
_OS_FAULTS = {
    errno.ENOSPC: Fault.FULL,
    errno.EDQUOT: Fault.FULL,
    errno.EROFS: Fault.READ_ONLY,
    errno.EACCES: Fault.READ_ONLY,
    errno.EPERM: Fault.READ_ONLY,
    errno.EIO: Fault.IO,
}


def fault_of(exc: BaseException) -> Fault | None:
    """The :class:`Fault` an sqlite3 or OS error means, or None when it is no fault of the disk or file."""
    if isinstance(exc, RecordFault):
        return exc.fault
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        base = "_".join(name.split("_")[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
        if base in _SQLITE_FAULTS:
            return _SQLITE_FAULTS[base]
        text = str(exc).lower()
        for words, fault in (
            ("malformed", Fault.CORRUPT),
            ("not a database", Fault.CORRUPT),
            ("disk is full", Fault.FULL),
            ("readonly", Fault.READ_ONLY),
            ("unable to open", Fault.READ_ONLY),
            ("locked", Fault.BUSY),
            ("disk i/o", Fault.IO),
        ):
            if words in text:
                return fault
        return None
    if isinstance(exc, OSError) and exc.errno is not None:
        return _OS_FAULTS.get(exc.errno)
    return None


def as_fault(exc: BaseException, path: Path, doing: str) -> StoreError:
    """``exc`` (from sqlite3 or the OS) as a RecordFault when it is one, else a plain StoreError."""
    fault = fault_of(exc)
    detail = getattr(exc, "strerror", None) or str(exc)
    if fault is None:
        return StoreError(f"{doing} {path}: {detail}")
    return RecordFault(fault, path, f"{doing}: {detail}")
