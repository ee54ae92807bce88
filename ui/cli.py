"""The `tabletally` command line.

Each subcommand lives in its own module under ``ui.commands`` with two functions:
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status). Modules must import
only light things at top level so that ``tabletally --help`` stays fast; heavy imports
(OpenCV, ONNX Runtime, Kivy) happen inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> (module, one-line help). Keep in the order shown by --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "kiosk": ("ui.commands.kiosk", "start the touchscreen kiosk (the game-night app)"),
    "replay": ("ui.commands.replay", "recompute a whole game from its JSON game log"),
    "detect": ("ui.commands.detect", "read the cards in photos with the card model"),
    "deck": ("ui.commands.deck", "teach the reader your own deck; list or remove taught decks"),
    "cameras": ("ui.commands.cameras", "list the cameras and whether each is available"),
    "doctor": ("ui.commands.doctor", "check camera, model, display, database and disk; say what to fix"),
    "import": ("ui.commands.importing", "bring exported game logs into the record (never doubled)"),
    "stats": ("ui.commands.stats", "print the all-time standings from the record (--json)"),
    "export": ("ui.commands.export", "write every game of the record as files, even from a damaged record"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabletally",
        description="TableTally: camera scoring for Jhyap and Seep.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip())
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
