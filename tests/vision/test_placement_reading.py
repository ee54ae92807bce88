"""The camera check on photos the shipped model really reads: tables laid side by side as a bigger table
(the demo's synthetic photos here; the real ones of ../shared/realcards when that folder is there), judged
from what the reading did with them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vision.base.photo import load_image
from vision.cameras import DEMO_DIR
from vision.pipeline import read_cards
from vision.reader.corners import DEFAULT_READER
from vision.reading.detector import CardDetector
from vision.runtimes.model_files import DEFAULT_ONNX, DEFAULT_ROTATIONS
from vision.table.placement import GOOD_MODEL_PX, MODULE3, Verdict, check_placement

REAL = Path(__file__).resolve().parents[3] / "shared" / "realcards"
MOVES = {Verdict.LOWER, Verdict.RAISE, Verdict.WIDE, Verdict.CROWDED}


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    return CardDetector(DEFAULT_ONNX, rotations=DEFAULT_ROTATIONS, reader=DEFAULT_READER).load()


def test_demo_tables_laid_side_by_side_are_judged_by_their_reading(detector: CardDetector) -> None:
    truth = json.loads((DEMO_DIR / "truth.json").read_text(encoding="utf-8"))
    names = [n for n in truth if truth[n]["kind"] == "table"][:4]
    tiles = [load_image(DEMO_DIR / n) for n in names]
    table = np.vstack([np.hstack(tiles[:2]), np.hstack(tiles[2:])])  # 2 x 2 tables at their own pixels
    reading = read_cards(table, detector)
    want = Counter(c for n in names for c in truth[n]["cards"])
    assert Counter(reading.codes) == want  # every card read, as in each photo alone
    h, w = table.shape[:2]
    p = check_placement(reading.cards, w, h, None, detector.imgsz, MODULE3)
    assert p.cut == ()  # no card lies at the border of these tables
    assert p.verdict not in (Verdict.RAISE, Verdict.WIDE)
    if not any(c.uncertain for c in reading.cards):
        assert p.verdict == Verdict.FINE
    else:  # the cards in doubt are as small as the others: their size is the cause, said so
        assert p.model_px is not None and p.model_px < GOOD_MODEL_PX
        assert p.verdict in (Verdict.LOWER, Verdict.CROWDED)


@pytest.mark.skipif(not (REAL / "manifest.json").is_file(), reason="the real photos are not on this machine")
def test_real_cards_read_right_at_large_corners_are_never_told_to_move_the_camera(
    detector: CardDetector,
) -> None:
    from vision.devtools.placement_real import compose, load_photos, taken

    photos = load_photos(REAL)
    for columns, capture in ((6, 0), (6, 2304), (4, 2304)):
        table, codes = compose(photos, columns, round(columns * 0.75), start=columns * 7)
        still = taken(table, capture)
        reading = read_cards(still, detector)
        assert Counter(reading.codes) == Counter(codes)  # every card read right
        h, w = still.shape[:2]
        p = check_placement(reading.cards, w, h, None, detector.imgsz, MODULE3)
        assert p.model_px is not None and p.model_px >= GOOD_MODEL_PX
        assert p.verdict not in MOVES, p.summary()
