"""Print the all-time standings: each player's games played and won (Jhyap and Seep), their Jhyap calls
made and won, penalties paid, eliminations, average hand at the end of a round and best comeback, their
Seep baazis and sweeps, and the nights played. Everything is computed from the record's game logs by the
rules engine.

--json prints {"players": [{"name", "jhyap": {"played", "won", ...}, "seep": {"played", "baazis", ...}}],
"nights": [{"date", "games", "winners", ...}]}; a game whose log no longer replays is left out of the
figures and listed under "unreadable".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EXIT_FAILED = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the standings as JSON")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the game-night record lives (default: $TABLETALLY_DATA_DIR or the user data dir)",
    )


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.0f}%"


def _num(value: float | int | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if digits else str(value)


def table(data: dict[str, Any]) -> str:
    """The standings as plain text columns."""
    rows = [["Player", "Jhyap", "won", "rate", "calls", "held", "pen.", "out", "avg hand", "comeback",
             "Seep", "won", "baazis", "sweeps", "nights"]]  # fmt: skip
    for p in data["players"]:
        j, s = p["jhyap"], p["seep"]
        rows.append(
            [
                p["name"],
                str(j["played"]),
                str(j["won"]),
                _pct(j["win_rate"]),
                str(j["calls"]),
                str(j["calls_won"]),
                str(j["penalties"]),
                str(j["eliminations"]),
                _num(j["average_hand"], 1),
                _num(j["best_comeback"]),
                str(s["played"]),
                str(s["won"]),
                str(s["baazis"]),
                str(s["sweeps"]),
                str(p["nights"]),
            ]  # fmt: skip
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = zip(r, widths, strict=True)
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells)))
    lines.append("")
    lines.append(f"Nights: {len(data['nights'])}")
    for n in data["nights"][:10]:
        winners = ", ".join(n["winners"]) or "no winner"
        lines.append(f"  {n['date']}  {n['games']} game(s)  won by: {winners}")
    for bad in data.get("unreadable", []):
        lines.append(f"not counted: game {bad['game']}: {bad['problem']}")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ui.logic.alltime import Records, stats_json
    from ui.store import Store, StoreError, default_data_dir

    data_dir = args.data_dir or default_data_dir()
    try:
        store = Store(data_dir)
    except StoreError as exc:
        print(f"tabletally stats: cannot open the record: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_FAILED
    try:
        data = stats_json(Records(store).all_time)
    except StoreError as exc:
        print(f"tabletally stats: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        store.close()
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(table(data))
    return 0
