"""End to end on the shipped demo photos (vision/demo) with the shipped models.

Two kinds of checks:

* what today's models do: ``models/cards.onnx`` with ``models/reader.onnx``, read as the kiosk reads, name
  every one of the 86 demo cards and find the hands of every whole-table photo (the kiosk's seats for them:
  tests/ui/test_demo_rounds.py). A model that reads differently fails these; shipping it means updating
  them and the model card in the same commit;
* what the runtime must do whatever the model: boxes inside the photo, the same reading every time, the
  ``detect`` command reading as the pipeline does, and ONNX Runtime reading as Ultralytics does.

The shipped files are committed, so nothing here skips: a missing model is a failure.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ui.cli import main
from vision.base.types import CardReading
from vision.cameras import DEMO_DIR, FolderCamera
from vision.pipeline import read_cards
from vision.reader.corners import DEFAULT_READER
from vision.reading.detector import CardDetector
from vision.runtimes.model_files import DEFAULT_ONNX, DEFAULT_ROTATIONS

TRUTH = DEMO_DIR / "truth.json"
MODEL = DEFAULT_ONNX  # the shipped model, whatever $TABLETALLY_MODEL says
MODEL_PT = MODEL.with_suffix(".pt")


def load_truth() -> list[dict[str, Any]]:
    """truth.json: {"round1.jpg": {"cards": [...], "hands": [[...], ...], ...}, ...} as a list."""
    data = json.loads(TRUTH.read_text(encoding="utf-8"))
    return [{"image": name, **entry} for name, entry in data.items()]


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    """The kiosk's reading of the shipped models, independent of the environment's settings."""
    return CardDetector(MODEL, rotations=DEFAULT_ROTATIONS, reader=DEFAULT_READER).load()


@pytest.fixture(scope="module")
def readings(detector: CardDetector) -> list[tuple[dict[str, Any], CardReading]]:
    return [(entry, read_cards(DEMO_DIR / entry["image"], detector)) for entry in load_truth()]


def test_the_shipped_models_and_the_demo_truth_are_there() -> None:
    for path in (MODEL, MODEL_PT, DEFAULT_READER, TRUTH):
        assert path.is_file(), f"{path} is missing from the checkout"


def test_every_demo_photo_has_truth_and_is_a_readable_photo() -> None:
    truth = load_truth()
    assert len(truth) == 8  # the demo's six Jhyap rounds and two Seep deals (ui.devtools.demo_photos)
    camera = FolderCamera([DEMO_DIR / entry["image"] for entry in truth], loop=False)
    with camera:
        for _ in truth:
            assert camera.capture().ndim == 3


# What today's models do.


def test_todays_models_name_every_demo_card_and_no_other(
    readings: list[tuple[dict[str, Any], CardReading]],
) -> None:
    # 86 cards in eight photos (six whole tables, two Seep tables of both teams' piles), each card once.
    assert sum(len(entry["cards"]) for entry, _ in readings) == 86
    for entry, reading in readings:
        assert Counter(reading.codes) == Counter(entry["cards"]), entry["image"]


def test_todays_models_find_the_hands_of_every_whole_table(detector: CardDetector) -> None:
    # Read as the kiosk reads a table: as many hands as players laid one (their seats then name whose is
    # whose). The Seep piles are laid in rows, split by the table's halves, not by hands.
    for entry in load_truth():
        if entry["kind"] != "table":
            continue
        want = sorted(sorted(hand) for hand in entry["hands"] if hand)
        reading = read_cards(DEMO_DIR / entry["image"], detector, n_hands=len(want))
        got = sorted(sorted(reading.cards[i].code for i in hand) for hand in reading.hands)
        assert got == want, entry["image"]
        assert not any(card.uncertain for card in reading.cards), entry["image"]


# What the runtime must do, whatever the model.


def test_every_card_read_lies_inside_its_photo(readings: list[tuple[dict[str, Any], CardReading]]) -> None:
    for _, reading in readings:
        for card in reading.cards:
            for x0, y0, x1, y1 in card.boxes:
                assert 0 <= x0 < x1 <= reading.width and 0 <= y0 < y1 <= reading.height, (reading.image, card)


def test_a_photo_read_again_reads_the_same(
    detector: CardDetector, readings: list[tuple[dict[str, Any], CardReading]]
) -> None:
    # The detector keeps no state between photos (threshold, tiles, turns, reader): the first photo read
    # again after all the others gives the same cards, boxes and hands.
    entry, first = readings[0]  # read first, before the other three
    again = read_cards(DEMO_DIR / entry["image"], detector)
    assert again.cards == first.cards and again.hands == first.hands


def test_detect_command_reads_the_demo_photos_as_the_pipeline_does(
    capsys: pytest.CaptureFixture[str], readings: list[tuple[dict[str, Any], CardReading]]
) -> None:
    images = [str(DEMO_DIR / entry["image"]) for entry, _ in readings]
    args = ["detect", "--json", "--model", str(MODEL), "--reader", str(DEFAULT_READER)]
    assert main([*args, "--rotations", str(DEFAULT_ROTATIONS), *images]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [entry["image"] for entry in out] == images
    assert all(entry["ms"] > 0 and isinstance(entry["hands"], list) for entry in out)
    for entry, (_, reading) in zip(out, readings, strict=True):
        assert [card["code"] for card in entry["cards"]] == list(reading.codes)


@pytest.mark.slow
def test_onnx_runtime_and_ultralytics_read_the_same_cards() -> None:
    from vision.runtimes.ultralytics import UltralyticsDetector

    ultra = UltralyticsDetector(MODEL_PT)  # Ultralytics does not tile: nor may we
    onnx = CardDetector(MODEL, tiles=1, rotations=1, reader="off")  # nor turn the photo, nor re-read
    both = either = 0
    for entry in load_truth():
        other = Counter(read_cards(DEMO_DIR / entry["image"], ultra).codes)
        mine = Counter(read_cards(DEMO_DIR / entry["image"], onnx).codes)
        both += sum((mine & other).values())
        either += sum((mine | other).values())
    # Both read most of the demo cards. The backends letterbox
    # differently (square vs "rect", area-averaged vs bilinear), so borderline corners may fall either
    # side of the threshold; the rest must agree.
    assert both >= 35, f"the backends agree on only {both} cards"
    assert either - both <= 0.2 * either, f"the backends agree on {both} of {either} cards"


def test_the_demo_folder_is_package_data() -> None:
    assert Path(DEMO_DIR).parent.name == "vision"
