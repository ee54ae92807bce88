"""Card-level accuracy of the runtime on photos with known cards, to choose settings by measurement.

    python -m vision.devtools.evaluate [--truth vision/demo/truth.json] [--photos DIR] [--model M.onnx ...]
                              [--tiles 1 2 auto] [--rotations 1 2 4] [--known-hands] [--kind K ...]
                              [--decks N] [--limit N] [--effort full focused]

For every model, tiling, number of quarter turns and effort (every view, or the kiosk's focused reading:
:mod:`vision.reading.focused`) given it reads each photo with the whole pipeline
(detector, corner pairing, hands) and compares the physical cards with the truth as multisets of codes:
cards right, extra and missing, photos read exactly, how many of the wrong cards were marked uncertain
(and how many right ones, "ok?": each asks the players for a look), photos whose hands came out right
(when the truth has hands and the cards were exact), the share of pairs of rightly read cards that the
hands put together or apart as the truth does (the grouping alone, on every photo with two or more
hands), and the median and mean ms per photo.

The truth is a JSON list of ``{"image", "cards", "hands"}`` (or ``{"photos": [...]}``), or JSON lines
as written by ``models.training.data.synth`` (``datasets/synth/truth/val.jsonl``, photos in ``images/val``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.base.types import InvalidValueError, VisionError, check_code
from vision.cameras import DEMO_DIR
from vision.pipeline import read_cards
from vision.reader.corners import DEFAULT_READER
from vision.reading.detector import CardDetector
from vision.reading.rules import EFFORTS, effort_from_env
from vision.runtimes.model_files import DEFAULT_ONNX, DEFAULT_ROTATIONS, rotations_from, tiling


def load_truth(path: Path) -> list[dict[str, Any]]:
    """The truth entries of a truth file (see the module doc); each has "image" and "cards".

    A file that is neither JSON nor JSON lines, or an entry without an image name or a list of card codes
    (:data:`scorer.cards.CARD_CODES`), raises :class:`InvalidValueError` naming the file and the entry.
    """
    text = path.read_text(encoding="utf-8")
    named: list[tuple[str, Any]] = []  # (where in the file, the entry)
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as whole:
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                named.append((f"line {n}", json.loads(line)))
            except json.JSONDecodeError as exc:
                if not named:  # the first line fails already: a JSON document with an error in it
                    raise InvalidValueError(
                        f"{path}: not JSON or JSON lines: {whole.msg} at line {whole.lineno}, "
                        f"column {whole.colno}"
                    ) from None
                raise InvalidValueError(
                    f"{path}: line {n} is not JSON ({exc.msg}): {line.strip()[:80]}"
                ) from None
    else:
        if isinstance(data, dict):
            data = next((data[key] for key in ("photos", "images") if isinstance(data.get(key), list)), data)
        if isinstance(data, dict):  # {image: {"cards": ...}}
            named = [
                (f"entry {k!r}", {"image": k, **v} if isinstance(v, dict) else v) for k, v in data.items()
            ]
        elif isinstance(data, list):
            named = [(f"entry {n}", e) for n, e in enumerate(data, 1)]
        else:
            raise InvalidValueError(f"{path}: expected a list of photos, got {type(data).__name__}")
    for name, entry in named:
        problem = _truth_problem(entry)
        if problem:
            raise InvalidValueError(f"{path}: {name} {problem}: {json.dumps(entry)[:120]}")
    if not named:
        raise InvalidValueError(f"{path}: no entries with 'image' and 'cards'")
    return [entry for _, entry in named]


def _truth_problem(entry: Any) -> str:
    """What is wrong with one truth entry, or "" when it has an image name and a list of card codes."""
    if not isinstance(entry, dict):
        return f"is not an object with 'image' and 'cards' but a {type(entry).__name__}"
    if not isinstance(entry.get("image"), str) or not entry["image"]:
        return "has no 'image' (the photo's file name)"
    if not isinstance(entry.get("cards"), list):
        return "has no 'cards' (a list of card codes)"
    try:
        for code in entry["cards"]:
            check_code(code)
    except InvalidValueError as exc:
        return f"has an {exc}"
    return ""


def default_photo_dir(truth: Path) -> Path:
    """Photos lie next to the truth file, or in ../images/<split> for a models.training.data.synth dataset."""
    synth = truth.parent.parent / "images" / truth.stem
    return synth if truth.parent.name == "truth" and synth.is_dir() else truth.parent


@dataclass
class Score:
    right: int = 0
    extra: int = 0
    missing: int = 0
    exact: int = 0
    photos: int = 0
    wrong_doubted: int = 0
    right_doubted: int = 0
    hands_right: int = 0
    hands_checked: int = 0
    pairs_agree: int = 0
    pairs_total: int = 0
    failed: int = 0

    def add(self, entry: dict[str, Any], reading: Any) -> None:
        got, want = Counter(reading.codes), Counter(entry["cards"])
        self.photos += 1
        self.right += sum((got & want).values())
        self.extra += sum((got - want).values())
        self.missing += sum((want - got).values())
        exact = got == want
        self.exact += exact
        left = Counter(want)
        for card in reading.cards:
            if left[card.code] > 0:
                left[card.code] -= 1
                self.right_doubted += card.uncertain
            else:
                self.wrong_doubted += card.uncertain
        hands = sorted(
            h for h in (sorted(c for c in hand if c in want) for hand in entry.get("hands") or []) if h
        )
        if exact and len(hands) > 1:
            self.hands_checked += 1
            found = sorted(sorted(reading.cards[i].code for i in hand) for hand in reading.hands)
            self.hands_right += found == hands
        agree, total = hand_pairs(entry, reading)
        self.pairs_agree += agree
        self.pairs_total += total


def hand_pairs(entry: dict[str, Any], reading: Any) -> tuple[int, int]:
    """How many pairs of rightly read cards the hands put together or apart as the truth does, of how many.

    Only cards whose code is read once and lies in exactly one true hand count (a duplicate from a second
    deck cannot be told apart), so a misread card costs the grouping nothing: this measures the grouping,
    not the reading. Photos with fewer than two true hands add nothing.
    """
    true_hands = [h for h in entry.get("hands") or [] if h]
    if len(true_hands) < 2:
        return 0, 0
    in_hands = Counter(c for hand in true_hands for c in hand)
    true_of = {c: k for k, hand in enumerate(true_hands) for c in hand if in_hands[c] == 1}
    read_count = Counter(card.code for card in reading.cards)
    read_of = {
        reading.cards[i].code: k
        for k, hand in enumerate(reading.hands)
        for i in hand
        if read_count[reading.cards[i].code] == 1 and reading.cards[i].code in true_of
    }
    codes = sorted(read_of)
    agree = total = 0
    for a in range(len(codes)):
        for b in range(a + 1, len(codes)):
            x, y = codes[a], codes[b]
            total += 1
            agree += (read_of[x] == read_of[y]) == (true_of[x] == true_of[y])
    return agree, total


def evaluate(
    entries: list[dict[str, Any]],
    photos: Path,
    detector: CardDetector,
    known_hands: bool,
    decks: int | None = None,
) -> tuple[Score, list[float]]:
    score, times = Score(), []
    for entry in entries:
        hands = [h for h in entry.get("hands") or [] if h]
        try:
            reading = read_cards(
                photos / entry["image"],
                detector,
                n_hands=len(hands) if known_hands and hands else None,
                decks=decks,
            )
        except VisionError as exc:
            print(f"  {entry['image']}: {exc}", file=sys.stderr)
            score.failed += 1
            continue
        score.add(entry, reading)
        times.append(reading.ms)
    return score, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.devtools.evaluate", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--truth", type=Path, default=DEMO_DIR / "truth.json", help="truth file")
    parser.add_argument("--photos", type=Path, help="photo folder (default: next to the truth)")
    parser.add_argument(
        "--model", type=Path, nargs="+", default=[DEFAULT_ONNX], help="ONNX models to compare"
    )
    parser.add_argument(
        "--tiles",
        type=tiling,
        nargs="+",
        default=[1, 2, None],
        help="tilings to compare: N for N x N crops (1: whole photo only), auto for the kiosk's default "
        "(default 1 2 auto)",
    )
    parser.add_argument(
        "--rotations",
        type=rotations_from,
        nargs="+",
        default=[DEFAULT_ROTATIONS],
        help=f"quarter turns per view to compare: 1, 2 or 4 (default {DEFAULT_ROTATIONS}, as the kiosk)",
    )
    parser.add_argument(
        "--reader",
        nargs="+",
        default=[str(DEFAULT_READER)],
        help="corner readers to compare: model files, or off to read without one (default: the shipped one)",
    )
    parser.add_argument(
        "--effort",
        nargs="+",
        choices=EFFORTS,
        default=[effort_from_env()],
        help="readings to compare: full (every view) or focused (extra views where in doubt; the kiosk's)",
    )
    parser.add_argument("--conf", type=float, help="confidence threshold (default: the model's, else 0.25)")
    parser.add_argument("--known-hands", action="store_true", help="give the true number of hands")
    parser.add_argument(
        "--decks",
        type=int,
        metavar="N",
        help="read no card more often than N packs hold, as the kiosk does (default: no limit)",
    )
    parser.add_argument(
        "--kind",
        nargs="+",
        help="only photos of these kinds (models.training.data.synth truth: table, seep, ...)",
    )
    parser.add_argument("--limit", type=int, help="only the first N photos")
    args = parser.parse_args(argv)
    if args.decks is not None and args.decks < 1:
        parser.error(f"--decks must be at least 1, got {args.decks}")
    try:
        entries = load_truth(args.truth)
        entries = [e for e in entries if not args.kind or e.get("kind") in args.kind][: args.limit]
    except (OSError, ValueError) as exc:
        print(f"vision.devtools.evaluate: {exc}", file=sys.stderr)
        return 1
    photos = args.photos or default_photo_dir(args.truth)
    print(f"{len(entries)} photos from {photos}; truth {args.truth}")
    header = (
        f"{'model':24} {'imgsz':>5} {'tiles':>5} {'turns':>5} {'reader':>6} {'effort':>7} {'right':>6} "
        f"{'extra':>6} {'miss':>5} {'exact':>9} {'doubted':>8} {'ok?':>5} {'hands':>7} {'pairs':>13} "
        f"{'ms':>7} {'mean':>7}"
    )
    print(header)
    for model in args.model:
        settings = itertools.product(args.tiles, args.rotations, args.reader, args.effort)
        for tiles, rotations, reader, effort in settings:
            detector = CardDetector(
                model, tiles=tiles, conf=args.conf, rotations=rotations, reader=reader, effort=effort
            )
            try:
                detector.load()
            except VisionError as exc:
                print(f"vision.devtools.evaluate: {exc}", file=sys.stderr)
                return 1
            s, times = evaluate(entries, photos, detector, args.known_hands, args.decks)
            total = s.right + s.missing
            pairs = f"{s.pairs_agree / max(s.pairs_total, 1):.1%} of {s.pairs_total}"
            wrong = s.extra
            print(
                f"{model.name[:24]:24} {detector.imgsz:>5} {tiles or 'auto':>5} {rotations:>5} "
                f"{'off' if detector.reader is None else 'on':>6} {effort:>7} "
                f"{s.right / max(total, 1):>6.1%} "
                f"{s.extra:>6} {s.missing:>5} {f'{s.exact}/{s.photos}':>9} {f'{s.wrong_doubted}/{wrong}':>8} "
                f"{s.right_doubted:>5} "
                f"{f'{s.hands_right}/{s.hands_checked}':>7} "
                f"{pairs:>13} {statistics.median(times) if times else 0:>7.1f} "
                f"{statistics.fmean(times) if times else 0:>7.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
