"""Read the cards in photos with the card model and print them, by hand.

Each IMAGE is read with the model (models/cards.onnx by default, run with ONNX Runtime): the two corner
indices of one card count once, duplicates from a second deck count twice, and the cards are grouped
into hands by where they lie and which way they are turned. Doubtful cards are marked with "?" and
their competing code.

With --json one list is printed on standard output, one entry per photo that could be read:
[{"image": ..., "ms": ..., "cards": [{"code", "confidence", "uncertain", "box"}], "hands": [[0, 2], [1]]}]
("ms" is the time from the decoded photo to the card list; "box" is x1, y1, x2, y2 in photo pixels).

Exit status: 0 when every photo was read; 1 when some photo is missing, unreadable or blank (the others
are still read; each problem is one line on standard error); 3 when the model file is missing or corrupt;
4 when an annotated photo could not be written; 5 when the --deck named is not taught or is damaged.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.base.types import CardReading

EXIT_OK = 0
EXIT_BAD_IMAGE = 1
EXIT_USAGE = 2  # as argparse exits for a bad option
EXIT_BAD_MODEL = 3
EXIT_WRITE_FAILED = 4
EXIT_BAD_DECK = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", metavar="IMAGE", nargs="+", help="photos to read (JPEG, PNG, ...)")
    parser.add_argument("--json", action="store_true", help="print one JSON list instead of text")
    parser.add_argument(
        "--annotate", metavar="DIR", type=Path, help="write each photo with its cards drawn into DIR"
    )
    parser.add_argument(
        "--model",
        metavar="PATH",
        type=Path,
        help="model file (default models/cards.onnx, or models/cards.pt with --backend ultralytics)",
    )
    parser.add_argument(
        "--backend",
        choices=("onnx", "ultralytics"),
        default="onnx",
        help="run the model with ONNX Runtime (default) or with Ultralytics (to compare; needs torch)",
    )
    parser.add_argument(
        "--hands",
        metavar="N",
        type=_positive_int,
        help="split the cards into exactly N hands (default: by the gaps between them)",
    )
    parser.add_argument(
        "--decks",
        metavar="N",
        type=_positive_int,
        help="the cards come from N packs: a card read more often than they hold is read as its next "
        "best reading where that has room (default: no limit)",
    )
    parser.add_argument(
        "--tiles",
        type=_tiling,
        default=None,
        help="1 to 4: also read an N x N grid of crops (1: the whole photo only); default auto: large "
        "photos, and photos whose corners come out small, are read 2 x 2 (onnx backend only)",
    )
    parser.add_argument(
        "--rotations",
        type=_rotations,
        default=None,
        help="read each photo in 1, 2 or 4 quarter turns, the turns voting on each corner (default "
        "$TABLETALLY_ROTATIONS, else 2; onnx backend only)",
    )
    parser.add_argument(
        "--reader",
        metavar="PATH",
        help="the corner reader that re-reads every corner found: a model file, or off (default "
        "$TABLETALLY_READER, else models/reader.onnx; onnx backend only)",
    )
    parser.add_argument(
        "--conf",
        metavar="P",
        type=_probability,
        help="minimum corner confidence, 0-1 (default: the model's, from classes.json, else 0.25)",
    )
    parser.add_argument(
        "--deck",
        metavar="NAME",
        help="read with the deck taught as NAME (tabletally deck learn; default: the standard reading)",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        type=Path,
        help="where --deck's decks live (default: $TABLETALLY_DATA_DIR or the user data dir)",
    )


def _tiling(text: str) -> int | None:
    from vision.runtimes.model_files import tiling

    try:
        return tiling(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _rotations(text: str) -> int:
    from vision.runtimes.model_files import rotations_from

    try:
        return rotations_from(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {value}")
    return value


def _use_deck(detector: Any, args: argparse.Namespace) -> int:
    """Read with the taught deck ``args.deck`` (EXIT_OK), or say why not."""
    from ui.store import default_data_dir
    from vision.base.types import ModelError
    from vision.deck.memory import DeckError, use_deck
    from vision.deck.shelf import DeckShelf

    reader = getattr(detector, "reader", None)
    if reader is None:
        _say("--deck needs the corner reader (the onnx backend, without --reader off)")
        return EXIT_USAGE
    try:
        use_deck(detector, DeckShelf(args.data_dir or default_data_dir()).load(args.deck, reader))
    except DeckError as exc:
        _say(str(exc))
        return EXIT_BAD_DECK
    except ModelError as exc:
        _say(str(exc))
        return EXIT_BAD_MODEL
    return EXIT_OK


def _say(message: str) -> None:
    print("tabletally detect: " + " ".join(message.split()), file=sys.stderr)


def _describe(reading: CardReading) -> str:
    n_cards, n_hands = len(reading.cards), len(reading.hands)
    head = (
        f"{reading.image}: {n_cards} card{'s' * (n_cards != 1)} in {n_hands} hand{'s' * (n_hands != 1)} "
        f"({reading.width}x{reading.height}, {reading.ms:.1f} ms)"
    )
    lines = [head]
    for k, hand in enumerate(reading.hands, 1):
        words = []
        for i in hand:
            card = reading.cards[i]
            word = f"{card.code} {card.confidence:.2f}"
            if card.uncertain:
                word = f"{card.code}? {card.confidence:.2f}"
                if card.alternatives:
                    word += f" or {card.alternatives[0][0]} {card.alternatives[0][1]:.2f}"
            words.append(word)
        lines.append(f"  hand {k}: " + ", ".join(words))
    doubtful = sum(card.uncertain for card in reading.cards)
    if doubtful:
        lines.append(f"  {doubtful} uncertain card{'s' * (doubtful != 1)} (marked ?): please check")
    return "\n".join(lines)


def _annotated_path(folder: Path, image: str, taken: set[Path]) -> Path:
    stem = Path(image).stem or "photo"
    path = folder / f"{stem}.annotated.jpg"
    n = 2
    while path in taken:
        path = folder / f"{stem}-{n}.annotated.jpg"
        n += 1
    taken.add(path)
    return path


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision.base.photo import has_colour, load_image
    from vision.base.types import ImageError, ModelError
    from vision.pipeline import annotate, read_cards
    from vision.reading.detector import CardDetector
    from vision.runtimes.protocols import Detector

    if args.tiles not in (None, 1) and args.backend != "onnx":
        _say(f"--tiles {args.tiles} needs the onnx backend: Ultralytics reads the whole photo only")
        return EXIT_USAGE
    if args.rotations not in (None, 1) and args.backend != "onnx":
        _say(f"--rotations {args.rotations} needs the onnx backend: Ultralytics reads the photo once")
        return EXIT_USAGE
    if args.reader not in (None, "off") and args.backend != "onnx":
        _say("--reader needs the onnx backend: Ultralytics reads without the corner reader")
        return EXIT_USAGE
    try:
        detector: Detector
        if args.backend == "ultralytics":
            from vision.runtimes.ultralytics import UltralyticsDetector

            detector = UltralyticsDetector(args.model, conf=args.conf)
        else:
            detector = CardDetector(
                args.model, conf=args.conf, tiles=args.tiles, rotations=args.rotations, reader=args.reader
            )
        detector.load()
    except ModelError as exc:
        _say(str(exc))
        return EXIT_BAD_MODEL
    except ValueError as exc:  # a bad $TABLETALLY_ROTATIONS
        _say(str(exc))
        return EXIT_USAGE
    if args.deck is not None:
        status = _use_deck(detector, args)
        if status != EXIT_OK:
            return status
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _say(f"cannot create the annotation folder {args.annotate}: {exc.strerror or exc}")
            return EXIT_WRITE_FAILED

    status = EXIT_OK
    results: list[dict[str, Any]] = []
    written: set[Path] = set()
    for image_path in args.images:
        try:
            image = load_image(image_path)
            reading = read_cards(image, detector, n_hands=args.hands, name=image_path, decks=args.decks)
            if not has_colour(image):
                _say(
                    f"{image_path}: warning: the photo has no colour, so red suits cannot be told from black "
                    "ones (hearts and diamonds read as spades and clubs)"
                )
        except ImageError as exc:
            _say(str(exc))
            status = max(status, EXIT_BAD_IMAGE)
            continue
        except ModelError as exc:
            _say(f"{image_path}: {exc}")
            return EXIT_BAD_MODEL
        if args.json:
            results.append(reading.to_json())
        else:
            print(_describe(reading), flush=True)
        if args.annotate is not None:
            out_path = _annotated_path(args.annotate, image_path, written)
            ok = False
            try:
                ok = bool(cv2.imwrite(str(out_path), annotate(image, reading)))
            except cv2.error as exc:
                _say(f"{out_path}: could not write the annotated photo: {exc}")
            if not ok:
                _say(f"{out_path}: could not write the annotated photo")
                status = max(status, EXIT_WRITE_FAILED)
            elif not args.json:
                print(f"  annotated: {out_path}")
    if args.json:
        sys.stdout.write(json.dumps(results) + "\n")
    return status
