"""Bring exported game logs back into the record: the JSON the Tonight export writes (exports/DATE/), the
examples in docs/examples, or the games a salvage saved.

Every file is read and checked by the rules engine first; one bad file prints one line naming it and the
problem on standard error, exits with status 1 and imports nothing. A game already in the record is not
doubled (the same players, rules and rounds); a game the record has fewer rounds of gets the rest. A
game's night is the date in its file's name (YYYY-MM-DD-...), else the file's time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_FAILED = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", metavar="LOG.json", nargs="+", type=Path, help="exported game logs")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the game-night record lives (default: $TABLETALLY_DATA_DIR or the user data dir)",
    )


def _fail(message: str) -> int:
    print("tabletally import: " + " ".join(message.split()), file=sys.stderr)
    return EXIT_FAILED


def run(args: argparse.Namespace) -> int:
    from ui.logic.record_import import LogImportError, import_files, read_logs
    from ui.store import Store, StoreError, default_data_dir

    try:
        read_logs(args.logs)  # every file checked before the record is even opened
    except LogImportError as exc:
        return _fail(f"{exc}; nothing was imported")
    data_dir = args.data_dir or default_data_dir()
    try:
        store = Store(data_dir)
    except StoreError as exc:
        return _fail(f"cannot open the record: {exc}")
    try:
        done = import_files(store, args.logs)
    except (LogImportError, StoreError) as exc:
        return _fail(str(exc))
    finally:
        store.close()
    for item in done:
        unit = "rounds" if item.kind == "jhyap" else "deals"
        if item.added:
            what = f"added as game {item.game_id} ({item.kind}, {item.entries} {unit})"
        elif item.extended:
            what = f"game {item.game_id} was there: {item.extended} more {unit} added"
        else:
            what = f"already there (game {item.game_id}), not added again"
        print(f"{item.source}: {what}")
    added = sum(i.added for i in done)
    print(f"{added} of {len(done)} game(s) added to {Path(data_dir).expanduser()}")
    return 0
