"""Teach the card reader your own deck, list the taught decks, remove one.

  tabletally deck learn NAME PHOTO... [--order "AH 2H ... KH"]...  teach deck NAME from photos
  tabletally deck train NAME [--minutes N]                         teach the card detector itself deck NAME
  tabletally deck list                                              the taught decks
  tabletally deck remove NAME                                       forget deck NAME

A photo named by a card code (QH.jpg, 10S.png, JK-2.jpg: a suffix after "-" tells two photos of one card
apart) shows that one card, face up. Any other photo is a row of cards, listed left to right by one
--order each (the options after the photos), in the order the row photos are given (a second row below
the first continues it). Every
photo is read and matched before anything is saved. A photo that cannot be used (no card in it, more cards
than it should show, a row read as another suit) is named on standard error with what to retake, and the
rest are taught; an unknown code, too few cards, or two cards that look alike refuse the whole deck and
nothing is saved. The photos are kept with the deck.

`deck train` then fine-tunes the card detector on synthetic scenes composed from the kept photos, starting
from the shipped model, for about --minutes (default 40; it needs the train extra: torch). It shows its
progress, can be stopped with Ctrl-C and goes on from its last finished epoch when run again, and keeps
the new model with the deck only if, on held-back scenes of the deck, it reads at least as well as the deck
taught without it. `tabletally detect --deck NAME` and the kiosk's Settings read with a taught deck (and its
detector, when it has one); removing it restores the standard reading exactly.

Decks live in the data directory (--data-dir, else $TABLETALLY_DATA_DIR, else the user data directory),
in decks/NAME/. Exit status: 0 done; 1 the deck was refused (nothing saved), or its detector was not
kept; 2 a bad option; 3 the model files are missing or broken; 4 training is not installed (the train
extra); 130 training stopped (run it again to go on).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_BAD_MODEL = 3
EXIT_NO_TRAINING = 4
EXIT_STOPPED = 130


DEFAULT_MINUTES = 40.0
MIN_MINUTES = 10.0


def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not MIN_MINUTES <= value <= 24 * 60:
        raise argparse.ArgumentTypeError(f"give {MIN_MINUTES:g} to 1440 minutes, got {text}")
    return value


def _data_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="where the decks live (default: $TABLETALLY_DATA_DIR or the user data dir)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    learn = sub.add_parser("learn", help="teach a deck from photos of its cards")
    learn.add_argument("name", metavar="NAME", help="the deck's name, e.g. 'Grandma's red deck'")
    learn.add_argument("photos", metavar="PHOTO", nargs="+", type=Path, help="photos (see above)")
    learn.add_argument(
        "--order",
        action="append",
        default=[],
        metavar="CODES",
        help="the cards of the next row photo, left to right, e.g. 'AH 2H 3H ... KH'",
    )
    how = learn.add_mutually_exclusive_group()
    how.add_argument("--add", action="store_true", help="add these cards to the deck NAME already taught")
    how.add_argument("--replace", action="store_true", help="replace the deck NAME already taught")
    train = sub.add_parser("train", help="teach the card detector itself a taught deck (needs torch)")
    train.add_argument("name", metavar="NAME")
    train.add_argument(
        "--minutes",
        type=_minutes,
        default=DEFAULT_MINUTES,
        metavar="N",
        help=f"about how long it may take, all in (default {DEFAULT_MINUTES:g})",
    )
    listing = sub.add_parser("list", help="list the taught decks")
    remove = sub.add_parser("remove", help="remove a taught deck")
    remove.add_argument("name", metavar="NAME")
    for p in (learn, train, listing, remove):
        _data_dir_option(p)


def _say(message: str) -> None:
    print("tabletally deck: " + " ".join(message.split()), file=sys.stderr)


def _data_dir(args: argparse.Namespace) -> Path:
    from ui.store import default_data_dir

    return Path(args.data_dir) if getattr(args, "data_dir", None) else default_data_dir()


def run(args: argparse.Namespace) -> int:
    if args.action is None:
        _say("say what to do: learn, train, list or remove (tabletally deck --help)")
        return EXIT_USAGE
    from vision.deck.memory import DeckError
    from vision.deck.shelf import DeckShelf

    shelf = DeckShelf(_data_dir(args))
    try:
        if args.action == "list":
            return _list(shelf)
        if args.action == "remove":
            shelf.remove(args.name)
            print(f"removed deck {args.name.strip()!r}; the standard reading is back")
            return EXIT_OK
        if args.action == "train":
            return _train(shelf, args)
        return _learn(shelf, args)
    except DeckError as exc:
        for line in exc.problems:
            _say(line)
        return EXIT_REFUSED


def _list(shelf: object) -> int:
    from vision.deck.shelf import DeckShelf

    assert isinstance(shelf, DeckShelf)
    names = shelf.names()
    if not names:
        print(f"no taught decks in {shelf.root} (teach one: tabletally deck learn NAME PHOTO...)")
        return EXIT_OK
    for name in names:
        info = shelf.info(name)
        cards, photos = len(info.get("cards", [])), len(info.get("photos", []))
        plural = "s" * (photos != 1)
        own = ", with its own detector" if shelf.has_detector(name) else ""
        print(f"{name}: {cards} cards from {photos} photo{plural}, taught {info.get('created', '?')}{own}")
    return EXIT_OK


def _learn(shelf: object, args: argparse.Namespace) -> int:
    from vision.base.photo import load_image
    from vision.base.types import ImageError, ModelError
    from vision.deck.memory import DeckError
    from vision.deck.shelf import DeckShelf, check_deck_name
    from vision.reading.detector import CardDetector
    from vision.teach import TeachPhoto, parse_order, teach

    assert isinstance(shelf, DeckShelf)
    name = check_deck_name(args.name)
    exists = name in shelf.names()
    if exists and not (args.add or args.replace):
        raise DeckError(
            f"a deck named {name!r} is already taught: --add to add to it, --replace to start over"
        )
    if args.add and not exists:
        raise DeckError(f"no taught deck {name!r} to add to")

    problems: list[str] = []
    singles: list[tuple[Path, str]] = []
    rows: list[Path] = []
    from vision.teach import code_from_filename

    for path in args.photos:
        try:
            singles.append((path, code_from_filename(path)))
        except DeckError:
            rows.append(path)
    if len(rows) != len(args.order):
        named = ", ".join(p.name for p in rows) or "none"
        raise DeckError(
            f"{len(rows)} row photo{'s' * (len(rows) != 1)} ({named}) but {len(args.order)} --order: give "
            "each photo that is not named by a card code (QH.jpg) its cards left to right with --order"
        )
    orders: list[tuple[str, ...]] = []
    for path, text in zip(rows, args.order, strict=True):
        try:
            orders.append(parse_order(text))
        except DeckError as exc:
            problems.append(f"--order for {path.name}: {exc}")
    photos: list[TeachPhoto] = []
    for path, codes in [*((p, (c,)) for p, c in singles), *zip(rows, orders, strict=False)]:
        try:
            photos.append(TeachPhoto(path.name, load_image(path), codes))
        except ImageError as exc:
            problems.append(str(exc))
    if problems:
        raise DeckError(problems)

    try:
        detector = CardDetector()
        detector.load()
        reader = detector.reader
        if reader is None:
            raise DeckError("teaching a deck needs the corner reader, which is off (unset TABLETALLY_READER)")
        into = shelf.load(name, reader) if args.add else None
    except ModelError as exc:
        _say(str(exc))
        return EXIT_BAD_MODEL
    start = time.perf_counter()
    skipped: list[str] = []
    try:
        memory, matches = teach(name, photos, detector, into=into, skipped=skipped)
    except ModelError as exc:
        _say(str(exc))
        return EXIT_BAD_MODEL
    seconds = time.perf_counter() - start
    by_photo: dict[str, list[str]] = {}
    for m in matches:
        by_photo.setdefault(m.photo, []).append(m.code if m.agrees else f"{m.code} (read {m.read})")
    for photo, words in by_photo.items():
        print(f"{photo}: {' '.join(words)}")
    kept = [
        (p.name, p.image, [m for m in matches if m.photo == p.name]) for p in photos if p.name in by_photo
    ]
    folder = shelf.save(memory, replace=exists, photos=kept, carry=args.add)
    for line in skipped:
        _say(f"left out {line}")
    left_out = len(photos) - len(kept)
    print(
        f"deck {name!r} {'updated' if exists else 'saved'}: {len(memory.cards)} cards from "
        f"{len(set(memory.sources))} photos in {seconds:.1f} s ({folder})"
        + (
            f"; {left_out} photo{'s' * (left_out != 1)} left out (above): retake and --add them"
            if left_out
            else ""
        )
    )
    return EXIT_OK


def _train(shelf: object, args: argparse.Namespace) -> int:
    from vision.base.types import ModelError
    from vision.deck.shelf import DeckShelf
    from vision.reading.detector import CardDetector

    assert isinstance(shelf, DeckShelf)
    try:
        from models.training.deck_scenes import TaughtCard
        from models.training.deck_tune import TuneConfig, TuneError, tune
    except ImportError as exc:
        _say(
            f"training needs the train extra ({exc.name or exc}): pip install 'tabletally[train]' "
            "(torch; on a Raspberry Pi, 64-bit Bookworm or Trixie)"
        )
        return EXIT_NO_TRAINING
    name = check_name(args.name)
    try:
        detector = CardDetector()
        detector.load()
        if detector.reader is None:
            _say("training a deck needs the corner reader, which is off (unset TABLETALLY_READER)")
            return EXIT_BAD_MODEL
        memory = shelf.load(name, detector.reader)
    except ModelError as exc:
        _say(str(exc))
        return EXIT_BAD_MODEL
    cards = [TaughtCard(photo, image, code, boxes) for photo, image, code, boxes in shelf.taught_cards(name)]
    print(
        f"teaching the card detector deck {name!r}: {len(cards)} cards from the kept photos, about "
        f"{args.minutes:g} minutes (Ctrl-C stops; the same command goes on later)",
        flush=True,
    )
    try:
        result = tune(shelf.path(name), memory, cards, TuneConfig(minutes=args.minutes), _progress)
    except KeyboardInterrupt:
        print(
            f"stopped: deck {name!r} reads as before; `tabletally deck train {name}` goes on from the last "
            "finished epoch",
            file=sys.stderr,
        )
        return EXIT_STOPPED
    except TuneError as exc:
        _say(str(exc))
        return EXIT_REFUSED
    except ImportError as exc:
        _say(f"training needs the train extra ({exc.name or exc}): pip install 'tabletally[train]'")
        return EXIT_NO_TRAINING
    print(f"held-back scenes, the deck's memory alone: {result.memory.words()}")
    print(f"held-back scenes, with the taught detector: {result.tuned.words()}")
    if not result.kept:
        print(
            f"the taught detector read worse than the memory alone: not kept; deck {name!r} reads as before "
            f"({result.minutes:.1f} minutes, {result.epochs} epochs)"
        )
        return EXIT_REFUSED
    print(
        f"deck {name!r} now reads with its own detector ({result.minutes:.1f} minutes, {result.epochs} "
        f"epochs{', NCNN too' if result.ncnn else ''})"
    )
    return EXIT_OK


def _progress(line: str) -> None:
    print(f"  {line}", flush=True)


def check_name(name: str) -> str:
    from vision.deck.shelf import check_deck_name

    return check_deck_name(name)
