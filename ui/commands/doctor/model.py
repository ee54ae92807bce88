"""The model check: is the card model there, does it load, does it read the test photo's cards (through
the kiosk's own reading, :func:`vision.pipeline.read_cards`), and how fast?"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ui.commands.doctor.base import MB, Check, CheckName, Status

SLOW_PHOTO_MS = 2000.0
MODEL_MISSING_FIX = (
    "The kiosk reads cards with this file. Reinstall TableTally (deploy/update.sh) from a checkout that "
    "contains models/cards.onnx, or train and export one on a PC (make train) and copy it there. "
    "To check another file: tabletally doctor --model PATH."
)


@dataclass(frozen=True)
class ReferencePhoto:
    """A photo to read, and the cards on it when they are known (``None``: unknown, e.g. a demo photo)."""

    path: Path
    cards: tuple[str, ...] | None = None


TEST_PHOTO = Path(__file__).resolve().parents[3] / "deploy" / "doctor-photo.jpg"
"""Three cards rendered from a card design the model never trains on; the cards are in doctor-photo.json."""


def bundled_test_photos(photo: Path = TEST_PHOTO) -> list[ReferencePhoto]:
    """The doctor's own test photo with its cards ([] when it is not installed or its list is unreadable)."""
    try:
        cards = json.loads(photo.with_suffix(".json").read_text(encoding="utf-8"))["cards"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if not photo.is_file() or not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        return []
    return [ReferencePhoto(photo, tuple(cards))]


def check_model(
    model_path: Path,
    load: Callable[[Path], Any],
    photos: Sequence[ReferencePhoto],
    read_image: Callable[[Path], Any],
    blank_image: Callable[[], Any],
    clock: Callable[[], float] = time.perf_counter,
    runs: int = 3,
) -> Check:
    """Is the model file there, does it load, does it read the test photo's cards, and how fast?

    ``load(path)`` returns a reader with ``read(image) -> card codes`` (detection and corner pairing, as
    in a scan) and ``imgsz``, raising on a bad file; after a read, its optional ``doubted`` lists the
    codes it marked uncertain (shown in orange for the players to check, so those misreads are not the
    model failing). The first readable photo in ``photos`` is read;
    without any, a blank picture is timed instead.
    """
    details: dict[str, Any] = {"path": str(model_path)}
    if not model_path.exists():
        return Check(
            CheckName.MODEL, Status.FAIL, f"model file {model_path} is missing", MODEL_MISSING_FIX, details
        )
    if not model_path.is_file() or model_path.stat().st_size == 0:
        return Check(
            CheckName.MODEL,
            Status.FAIL,
            f"model file {model_path} is empty or not a file",
            MODEL_MISSING_FIX,
            details,
        )
    details["size_mb"] = round(model_path.stat().st_size / MB, 1)
    try:
        reader = load(model_path)
    except Exception as exc:
        return Check(
            CheckName.MODEL,
            Status.FAIL,
            f"the model does not load: {exc}",
            "The file is damaged or is not a TableTally card model. " + MODEL_MISSING_FIX,
            details,
        )
    details["input_size"] = getattr(reader, "imgsz", None)
    details["rotations"] = getattr(reader, "rotations", None)
    details["corner_reader"] = getattr(reader, "reader", None)
    photo: ReferencePhoto | None = None
    image = None
    for candidate in photos:
        try:
            image = read_image(candidate.path)
        except Exception:
            continue
        photo = candidate
        break
    if image is None:
        image = blank_image()
    try:
        codes = list(reader.read(image))  # the first run also warms the runtime up
        times = []
        for _ in range(max(1, runs)):
            start = clock()
            codes = list(reader.read(image))
            times.append((clock() - start) * 1000.0)
    except Exception as exc:
        return Check(
            CheckName.MODEL,
            Status.FAIL,
            f"the model loads but fails on a picture: {exc}",
            "The model does not fit this version of TableTally. " + MODEL_MISSING_FIX,
            details,
        )
    ms = statistics.median(times)
    details.update(ms_per_photo=round(ms, 1), test_photo=str(photo.path) if photo else None, read=codes)
    speed = f"{ms:.0f} ms per photo at {details['input_size']} px"
    if details["rotations"]:
        speed += f", {details['rotations']} turn{'s' if details['rotations'] > 1 else ''} a view"
    if details["corner_reader"]:
        speed += ", corners re-read"
    wrong_model = "It may be an untrained or a wrong model. " + MODEL_MISSING_FIX
    checked = ""
    if photo is not None and photo.cards is not None:
        expected = sorted(photo.cards)
        details["expected"] = list(photo.cards)
        missing = _minus(expected, codes)
        extra = _minus(codes, expected)
        if not set(codes) & set(expected):
            return Check(
                CheckName.MODEL,
                Status.FAIL,
                f"the model loads ({speed}) but reads none of the cards in the test photo "
                f"{photo.path.name} ({', '.join(photo.cards)}); it read: {', '.join(codes) or 'nothing'}",
                wrong_model,
                details,
            )
        doubted = list(getattr(reader, "doubted", None) or [])
        asked = sorted((Counter(extra) & Counter(doubted)).elements())  # the misreads shown in orange
        details["marked_for_checking"] = asked
        if extra and asked == extra and len(missing) <= len(extra):
            # Every misread card is marked uncertain: the kiosk shows it in orange and the players fix it
            # before the round is scored, offering the model's other readings, so the reading works.
            checked = (
                f" but {'one' if len(extra) == 1 else len(extra)} it marks for the players to check "
                f"(read {', '.join(extra)}; missed {', '.join(missing) or 'nothing'})"
            )
        elif missing or extra:
            said = []
            if missing:
                said.append(f"missed {', '.join(missing)}")
            if extra:
                said.append(f"also read {', '.join(extra)}")
            return Check(
                CheckName.MODEL,
                Status.WARN,
                f"the model reads the test photo {photo.path.name} only in part: {'; '.join(said)} ({speed})",
                "A good model reads all of these clear cards. " + wrong_model,
                details,
            )
    elif photo is not None and not codes:
        return Check(
            CheckName.MODEL,
            Status.WARN,
            f"the model loads ({speed}) but found no cards in the test photo {photo.path.name}",
            wrong_model,
            details,
        )
    if ms > SLOW_PHOTO_MS:
        return Check(
            CheckName.MODEL,
            Status.WARN,
            f"the model works but is slow: {speed}",
            "Expected is well under a second on a Pi 5 or 4 (deploy/README.md). Check for overheating "
            "(vcgencmd get_throttled) and other busy programs (top); a fan or heatsink helps.",
            details,
        )
    if photo is None:
        what = "ran on a blank picture (no test photo installed)"
    elif photo.cards is not None:
        what = f"read the test photo's cards ({', '.join(photo.cards)}){checked}"
    else:
        what = f"read {len(codes)} cards in {photo.path.name}"
    return Check(CheckName.MODEL, Status.OK, f"loads and {what}: {speed}", details=details)


def _minus(items: Sequence[str], remove: Sequence[str]) -> list[str]:
    """``items`` without ``remove``, counting repeats (two 7H minus one 7H leaves one)."""
    left = list(items)
    for item in remove:
        if item in left:
            left.remove(item)
    return sorted(left)


class PipelineReader:
    """The kiosk's way of reading a photo, :func:`vision.pipeline.read_cards` with this detector: the
    photo's checks, the detection, the corner pairing. ``doubted``: the codes the last read marked
    uncertain."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        self.imgsz = detector.imgsz
        self.rotations = detector.rotations
        reader = getattr(detector, "reader", None)
        self.reader = None if reader is None else str(reader.model_path)
        self.doubted: list[str] = []

    def read(self, image: Any) -> list[str]:
        cards = self.cards(image)
        self.doubted = [card.code for card in cards if card.uncertain]
        return [card.code for card in cards]

    def cards(self, image: Any) -> list[Any]:
        """The cards read (vision.base.types.DetectedCard, with their corner boxes)."""
        from vision.pipeline import read_cards

        return list(read_cards(image, self.detector).cards)


def load_reader(path: Path) -> PipelineReader:
    """The card model at ``path`` loaded as the kiosk reads with it (raises on a file that does not load)."""
    from vision.reading.detector import CardDetector

    return PipelineReader(CardDetector(path).load())


def blank_picture() -> Any:
    """A picture with no card for timing the model when no test photo is installed: a grey ramp, not one
    flat colour, which the pipeline refuses as a covered lens."""
    import numpy as np

    ramp = np.linspace(64, 192, 960, dtype=np.uint8)
    return np.repeat(np.broadcast_to(ramp, (720, 960))[:, :, None], 3, axis=2)


def default_model_path(env: Mapping[str, str] | None = None) -> Path:
    """The model the kiosk reads cards with when it is not given --model: ``$TABLETALLY_MODEL`` as the
    kiosk sees it (its env file, then this process's environment), else the shipped models/cards.onnx."""
    from vision.runtimes.model_files import DEFAULT_ONNX, MODEL_ENV

    chosen = (env or {}).get(MODEL_ENV)
    return Path(chosen).expanduser() if chosen else DEFAULT_ONNX
