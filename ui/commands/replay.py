"""Recompute a whole game from its JSON game log and print the result as JSON.

FILE is a game log (see docs/game-log.md), or - to read it from standard input. On success the
scored game is printed to standard output and the exit status is 0. An invalid log (bad JSON,
unknown keys or card codes, a broken rule) prints one line on standard error that names the
round or deal and the problem, prints nothing on standard output, and exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_INVALID = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the game log (JSON), or - for standard input")
    parser.add_argument(
        "--compact", action="store_true", help="print the result on one line instead of indented"
    )


def _fail(source: str, message: str) -> int:
    # One line, whatever the message holds (player names may contain newlines).
    line = " ".join(f"{source}: {message}".split())
    print(f"tabletally replay: {line}", file=sys.stderr)
    return EXIT_INVALID


def _read(path: str) -> str:
    if path == "-":
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    else:
        with open(path, "rb") as handle:
            data = handle.read()
    return data.decode("utf-8-sig")


def run(args: argparse.Namespace) -> int:
    from scorer import ScorerError, replay_text

    source = "<stdin>" if args.file == "-" else args.file
    try:
        text = _read(args.file)
    except OSError as exc:
        return _fail(source, f"cannot read the file: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return _fail(source, f"the file is not UTF-8 text (byte {exc.start}): {exc.reason}")
    try:
        result = replay_text(text)
    except ScorerError as exc:
        return _fail(source, str(exc))
    indent = None if args.compact else 2
    try:
        text = json.dumps(result, indent=indent, ensure_ascii=False) + "\n"
        data = text.encode("utf-8")
    except (ValueError, UnicodeEncodeError) as exc:
        # The scorer bounds rule numbers and refuses names that are not text, so this is a last guard:
        # never a traceback, and nothing half-printed.
        return _fail(source, f"the result cannot be written as UTF-8 JSON: {exc}")
    try:
        if hasattr(sys.stdout, "buffer"):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`tabletally replay game.json | head`): not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_INVALID
    return 0
