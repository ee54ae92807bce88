"""Setting a damaged record aside, after exporting every game that can still be read from it."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from pathlib import Path

from ui.store.faults import as_fault
from ui.store.files import DB_NAME, now, private_dir
from ui.store.salvage import salvage


def export_readable(db_path: Path, out_dir: Path) -> list[Path]:
    """Write the JSON game log of every game that can still be read whole from a damaged record into
    ``out_dir`` (``game-0001-jhyap.json``...), reading the file without changing it
    (:func:`ui.store.salvage.salvage`: past broken indexes, table by table, page by page). Games that cannot
    be read whole are skipped; returns the files written."""
    written: list[Path] = []
    for record in salvage(db_path).games:
        private_dir(out_dir)
        path = out_dir / f"game-{record.id:04d}-{record.kind}.json"
        path.write_text(json.dumps(record.log(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


def set_aside(
    data_dir: Path | str,
    clock: Callable[[], dt.datetime] = now,
    export: Callable[[Path, Path], list[Path]] = export_readable,
) -> tuple[Path, list[Path]]:
    """Set a damaged record aside so that a fresh one can start: export the games it can still read
    (``export(the record, exports/recovered-STAMP/)``), then rename the file and its WAL files to
    ``tabletally.sqlite3.damaged-STAMP`` (never deleted). Returns (the renamed file, the exported files)."""
    data_dir = Path(data_dir).expanduser()
    db_path = data_dir / DB_NAME
    stamp = clock().strftime("%Y%m%d-%H%M%S")
    exported = export(db_path, data_dir / "exports" / f"recovered-{stamp}")
    aside = data_dir / f"{DB_NAME}.damaged-{stamp}"
    try:
        for suffix in ("-wal", "-shm", ""):
            source = Path(f"{db_path}{suffix}")
            if source.exists():
                os.replace(source, Path(f"{aside}{suffix}"))
    except OSError as exc:
        raise as_fault(exc, db_path, "cannot set the damaged record aside") from exc
    return aside, exported
