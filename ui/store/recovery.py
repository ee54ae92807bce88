"""Setting a damaged record aside, after exporting every game that can still be read from it."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ui.store.faults import StoreError, as_fault
from ui.store.files import DB_NAME, now, private_dir
from ui.store.schema import EVENTS_OF
from ui.store.values import fold_events


def export_readable(db_path: Path, out_dir: Path) -> list[Path]:
    """Write the JSON game log of every game that can still be read from a damaged record into ``out_dir``
    (``game-0001-jhyap.json``...), reading the file without changing it. Games that cannot be read are
    skipped; returns the files written."""
    written: list[Path] = []
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    except sqlite3.Error:
        return written
    try:
        ids: list[int] = []
        for query in (
            "SELECT id FROM games ORDER BY id",
            "SELECT DISTINCT game_id FROM events ORDER BY game_id",
        ):
            try:  # the games table's own pages may be the damaged ones: then find the games by their events
                ids = [int(r[0]) for r in db.execute(query)]
                break
            except sqlite3.Error:
                continue
        for game_id in ids:
            try:
                kind, definition = db.execute(
                    "SELECT kind, definition FROM games WHERE id = ?", (game_id,)
                ).fetchone()
                events = db.execute(EVENTS_OF, (game_id,)).fetchall()
                entries = fold_events([(a, p, json.loads(x) if x else None) for a, p, x in events])
                log = dict(json.loads(definition))
            except (sqlite3.Error, ValueError, TypeError, StoreError):
                continue
            log["rounds" if kind == "jhyap" else "deals"] = entries
            private_dir(out_dir)
            path = out_dir / f"game-{game_id:04d}-{kind}.json"
            path.write_text(json.dumps(log, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
            written.append(path)
    finally:
        db.close()
    return written


def set_aside(data_dir: Path | str, clock: Callable[[], dt.datetime] = now) -> tuple[Path, list[Path]]:
    """Set a damaged record aside so that a fresh one can start: export the games it can still read
    (to ``exports/recovered-STAMP/``), then rename the file and its WAL files to
    ``tabletally.sqlite3.damaged-STAMP`` (never deleted). Returns (the renamed file, the exported logs)."""
    data_dir = Path(data_dir).expanduser()
    db_path = data_dir / DB_NAME
    stamp = clock().strftime("%Y%m%d-%H%M%S")
    exported = export_readable(db_path, data_dir / "exports" / f"recovered-{stamp}")
    aside = data_dir / f"{DB_NAME}.damaged-{stamp}"
    try:
        for suffix in ("-wal", "-shm", ""):
            source = Path(f"{db_path}{suffix}")
            if source.exists():
                os.replace(source, Path(f"{aside}{suffix}"))
    except OSError as exc:
        raise as_fault(exc, db_path, "cannot set the damaged record aside") from exc
    return aside, exported
