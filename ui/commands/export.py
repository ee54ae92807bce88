"""Write every game of the record as files: its JSON game log (what tabletally replay reads) and its CSV of
rounds or deals, into --out DIR.

The record is only read, never changed, and may be damaged: the games are read past broken indexes, then
table by table, then page by page, and every game that can still be read whole is written. A game read
only in part (a confirmed action that could not be read may be its own) is written under DIR/incomplete/
and is not counted as saved.

Exit status: 0 when every game was saved whole; 1 when the record cannot be read at all, is not
TableTally's or is a newer TableTally's, the files cannot be written, or some game could not be saved
whole (the games that could are written all the same). Errors are one line on standard error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ui.logic.rescue import Saved

EXIT_FAILED = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="the data directory of the record (default $TABLETALLY_DATA_DIR, else the user data dir)",
    )
    parser.add_argument("--out", type=Path, required=True, help="the folder to write the games into")


def _fail(message: str) -> int:
    print("tabletally export: " + " ".join(message.split()), file=sys.stderr)
    return EXIT_FAILED


def _refusal(db: Path) -> str:
    """Why the file at ``db`` is not a record to export ('' when it is one, damaged or not)."""
    import sqlite3

    from ui.store import Fault, RecordFault, check_record

    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2)
    except sqlite3.Error:
        return ""  # the salvage reads it page by page
    try:
        check_record(con, db)
    except RecordFault as exc:
        if exc.fault in (Fault.FOREIGN, Fault.NEWER):
            return f"{db} is {exc.detail}; it was not changed"
    finally:
        con.close()
    return ""


def _entries(saved: Saved) -> str:
    """ "22 rounds, 3 deals": the rounds (Jhyap) and deals (Seep) of the games saved."""
    rounds = sum(len(g.entries) for g in saved.games if g.kind == "jhyap")
    deals = sum(len(g.entries) for g in saved.games if g.kind != "jhyap")
    said = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((rounds, "round"), (deals, "deal")) if n]
    return ", ".join(said) or "no rounds"


def run(args: argparse.Namespace) -> int:
    from ui.logic.rescue import INCOMPLETE, save_games
    from ui.store import DB_NAME, default_data_dir
    from ui.store.salvage import Depth

    data_dir = (args.data_dir or default_data_dir()).expanduser()
    db = data_dir / DB_NAME
    if not db.is_file():
        return _fail(f"no record in {data_dir} (no {DB_NAME}); give the kiosk's with --data-dir")
    refused = _refusal(db)
    if refused:
        return _fail(refused)
    out = args.out.expanduser()
    try:
        out.mkdir(parents=True, exist_ok=True)
        saved = save_games(db, out)
    except OSError as exc:
        return _fail(f"cannot write into {out}: {exc.strerror or exc}")
    if saved.total == 0 and saved.depth is not Depth.TABLES:
        return _fail(f"{db} is damaged and no game could be read from it ({'; '.join(saved.problems[:3])})")
    if saved.problems:
        why = "; ".join(saved.problems[:3])
        print(f"the record is damaged; its games were read {saved.depth.value}: {why}")
    print(f"saved {len(saved.games)} of {saved.total} games ({_entries(saved)}) into {out}")
    if saved.not_saved:
        print(
            f"{saved.not_saved} game(s) could not be saved whole ({saved.lost_rounds} rounds or deals "
            f"known in them; those read in part are in {out / INCOMPLETE})"
        )
    if saved.unread_actions:
        print(f"{saved.unread_actions} confirmed action(s) could not be read")
    return 0 if saved.complete else EXIT_FAILED
