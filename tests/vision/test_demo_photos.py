"""End to end on the shipped demo photos and model: the cards each photo is known to show are read.

Skipped, with the reason, while models/cards.onnx (or $TABLETALLY_MODEL) or vision/demo/truth.json are not
in the checkout. The accuracy checks ask for 90% of the demo cards; a miss is an expected failure (xfail,
with both figures) only when the model's own report (models/eval/report.json) says that the model itself
reads fewer cards than that, so a runtime that loses cards a good model found still fails.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ui.cli import main
from vision.camera import DEMO_DIR, FolderCamera
from vision.detector import DEFAULT_ONNX, MODEL_ENV, CardDetector
from vision.pipeline import read_cards

TRUTH = DEMO_DIR / "truth.json"
MODEL = Path(os.environ.get(MODEL_ENV) or DEFAULT_ONNX)  # the model the kiosk would use
MODEL_PT = MODEL.with_suffix(".pt")

pytestmark = [
    pytest.mark.skipif(not MODEL.is_file(), reason=f"the shipped model {MODEL} is not there yet"),
    pytest.mark.skipif(not TRUTH.is_file(), reason=f"the demo photos' truth {TRUTH} is not there yet"),
]


def load_truth() -> list[dict[str, Any]]:
    """truth.json: a list of {"image", "cards", "hands"?}, or {"photos": [...]}, or JSON lines."""
    text = TRUTH.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(data, dict):
        data = data.get("photos") or data.get("images") or [{"image": k, **v} for k, v in data.items()]
    return list(data)


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    return CardDetector().load()


@pytest.fixture(scope="module")
def readings(detector: CardDetector) -> list[tuple[dict[str, Any], Any]]:
    return [(entry, read_cards(DEMO_DIR / entry["image"], detector)) for entry in load_truth()]


def card_score(readings: list[tuple[dict[str, Any], Any]]) -> tuple[int, int, int]:
    """(right, extra, missing) physical cards over all photos, compared as multisets of codes."""
    right = extra = missing = 0
    for entry, reading in readings:
        got, want = Counter(reading.codes), Counter(entry["cards"])
        right += sum((got & want).values())
        extra += sum((got - want).values())
        missing += sum((want - got).values())
    return right, extra, missing


def test_every_demo_photo_has_truth_and_is_a_readable_photo() -> None:
    truth = load_truth()
    assert truth, "truth.json lists no photos"
    camera = FolderCamera([DEMO_DIR / entry["image"] for entry in truth], loop=False)
    with camera:
        for _ in truth:
            assert camera.capture().ndim == 3


MODEL_REPORT = MODEL.parent / "eval" / "report.json"
TARGET = 0.9  # the share of demo cards the runtime must read right (and at most 1 - TARGET extra)


def model_shortfall() -> str | None:
    """Why the shipped model itself cannot reach TARGET, from its own measurements (models/eval), if so."""
    try:
        report = json.loads(MODEL_REPORT.read_text(encoding="utf-8"))
        recall = float(report["synthetic"]["card_recall"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if recall >= TARGET:
        return None
    return (
        f"the shipped model itself reads {recall:.0%} of the cards of its held-out photos "
        f"({MODEL_REPORT}), below the {TARGET:.0%} asked here"
    )


def check_or_known_shortfall(ok: bool, measured: str) -> None:
    """Assert ``ok``; a miss is an expected failure only when the model's own report explains it."""
    if ok:
        return
    reason = model_shortfall()
    if reason is not None:
        pytest.xfail(f"{measured}; {reason}")
    pytest.fail(measured)


def test_the_demo_photos_are_read_card_for_card(readings: list[tuple[dict[str, Any], Any]]) -> None:
    right, extra, missing = card_score(readings)
    total = right + missing
    assert total > 0
    # Each physical card counts once: a model that sees both corners must not double the count.
    measured = f"{right} of {total} demo cards read right, {extra} extra, {missing} missing"
    check_or_known_shortfall(right >= TARGET * total and extra <= (1 - TARGET) * total, measured)


def test_cards_read_wrongly_are_mostly_marked_uncertain(readings: list[tuple[dict[str, Any], Any]]) -> None:
    wrong = doubted = 0
    for entry, reading in readings:
        want = Counter(entry["cards"])
        for card in reading.cards:
            if want[card.code] > 0:
                want[card.code] -= 1
            else:
                wrong += 1
                doubted += card.uncertain
    measured = f"{doubted} of {wrong} wrongly read cards were marked uncertain"
    check_or_known_shortfall(wrong == 0 or doubted >= 0.5 * wrong, measured)


def test_the_hands_of_the_demo_photos_are_found(readings: list[tuple[dict[str, Any], Any]]) -> None:
    checked = right = 0
    for entry, reading in readings:
        hands = [sorted(h) for h in entry.get("hands") or [] if h]
        if len(hands) < 2 or sorted(reading.codes) != sorted(entry["cards"]):
            continue
        checked += 1
        got = sorted(sorted(reading.cards[i].code for i in hand) for hand in reading.hands)
        right += got == sorted(hands)
    if checked == 0:
        check_or_known_shortfall(False, "no demo photo with several hands was read card for card")
    assert right / checked >= 0.5, f"hands right in {right} of {checked} photos"


def test_detect_command_reads_the_demo_photos(capsys: pytest.CaptureFixture[str]) -> None:
    images = [str(DEMO_DIR / entry["image"]) for entry in load_truth()]
    assert main(["detect", "--json", *images]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [entry["image"] for entry in out] == images
    assert all(entry["ms"] > 0 and isinstance(entry["hands"], list) for entry in out)


@pytest.mark.slow
@pytest.mark.skipif(not MODEL_PT.is_file(), reason=f"{MODEL_PT} is not there yet")
def test_onnx_runtime_and_ultralytics_read_the_same_cards() -> None:
    pytest.importorskip("ultralytics")
    from vision.ultralytics_backend import UltralyticsDetector

    ultra = UltralyticsDetector(MODEL_PT)  # Ultralytics does not tile: nor may we
    onnx = CardDetector(MODEL, tiles=1, rotations=1, reader="off")  # nor turn the photo, nor re-read
    both = either = 0
    for entry in load_truth():
        other = Counter(read_cards(DEMO_DIR / entry["image"], ultra).codes)
        mine = Counter(read_cards(DEMO_DIR / entry["image"], onnx).codes)
        both += sum((mine & other).values())
        either += sum((mine | other).values())
    if either == 0:
        pytest.skip("neither backend read a card on the demo photos")
    # The backends letterbox differently (square vs "rect", area-averaged vs bilinear), so borderline
    # corners may fall either side of the threshold; the rest must agree.
    measured = f"the backends agree on {both} of {either} cards"
    check_or_known_shortfall(either - both <= max(1, 0.2 * either), measured)


def test_the_demo_folder_is_package_data() -> None:
    assert Path(DEMO_DIR).parent.name == "vision"
