"""The kiosk's misses put down to the step that lost them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.classes import CLASS_INDEX
from models.evaluate import EvalError
from models.misses import Candidates, Cause, Miss, TracingDetector, cause_of, find_misses, main, render

C = len(CLASS_INDEX)
KH, QH = CLASS_INDEX["KH"], CLASS_INDEX["QH"]
CORNER = (10.0, 10.0, 20.0, 30.0)


def _cand(det: dict[int, float], reader: dict[int, float], box: tuple[float, ...] = CORNER) -> Candidates:
    scores, probs = np.zeros((1, C), np.float32), np.zeros((1, C), np.float32)
    for c, v in det.items():
        scores[0, c] = v
    for c, v in reader.items():
        probs[0, c] = v
    return Candidates(np.array([box], np.float32), scores, probs)


def test_no_candidate_on_the_corner_is_not_found() -> None:
    assert cause_of([CORNER], KH, Candidates.empty(C), 0.1, 0.2) == (Cause.NOT_FOUND, None)
    far = _cand({KH: 0.9}, {KH: 0.9}, (100.0, 100.0, 110.0, 120.0))
    assert cause_of([CORNER], KH, far, 0.1, 0.2) == (Cause.NOT_FOUND, None)
    assert cause_of([], KH, _cand({KH: 0.9}, {KH: 0.9}), 0.1, 0.2) == (Cause.NOT_FOUND, None)


def test_a_spot_scored_as_another_card_is_named_with_what_it_was_read_as() -> None:
    assert cause_of([CORNER], KH, _cand({QH: 0.8, KH: 0.05}, {QH: 0.9}), 0.1, 0.2) == (Cause.ANOTHER_CARD, QH)


def test_a_candidate_the_reader_sinks_under_the_threshold_is_the_readers() -> None:
    # KH: 0.4 from the detector, 0.04 from the reader, sqrt(0.016) = 0.126 < 0.2; QH: sqrt(0.09) = 0.3
    assert cause_of([CORNER], KH, _cand({KH: 0.4, QH: 0.1}, {KH: 0.04, QH: 0.9}), 0.1, 0.2) == (
        Cause.READER,
        QH,
    )


def test_a_candidate_that_passes_the_merge_was_lost_in_suppression() -> None:
    assert cause_of([CORNER], KH, _cand({KH: 0.5}, {KH: 0.5}), 0.1, 0.2) == (Cause.SUPPRESSED, KH)


def test_the_report_counts_causes_by_kind_and_corner_height() -> None:
    misses = [
        Miss("a.jpg", "table", "KH", Cause.READER, "QH", 16.0),
        Miss("a.jpg", "table", "2S", Cause.NOT_FOUND, None, 30.0),
        Miss("b.jpg", "seep", "AC", Cause.ANOTHER_CARD, "AS", None),
    ]
    text = render(misses, 2, 0, 20, Path("m.onnx"), Path("d"))
    assert "cards in the truth 20, missed 3" in text
    assert "| reader disagreed | 1 | 0.33 |" in text
    assert "| table | 1 | 0 | 1 | 0 |" in text and "| seep | 0 | 1 | 0 | 0 |" in text
    assert "| 14-18 px | 0 | 0 | 1 | 0 |" in text and "| no record | 0 | 1 | 0 | 0 |" in text
    assert "KH->QH 1, AC->AS 1" in text


def test_the_shipped_kiosk_misses_a_card_on_an_empty_table(tmp_path: Path) -> None:
    for sub in ("images/val", "labels/val", "truth"):
        (tmp_path / sub).mkdir(parents=True)
    rows = [
        {"image": "a.jpg", "cards": ["AS"], "kind": "hand"},
        {"image": "b.jpg", "cards": [], "kind": "negative"},
    ]
    (tmp_path / "truth" / "val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for r in rows:
        cv2.imwrite(str(tmp_path / "images" / "val" / str(r["image"])), np.full((480, 640, 3), 120, np.uint8))
    (tmp_path / "labels" / "val" / "a.txt").write_text(f"{CLASS_INDEX['AS']} 0.5 0.5 0.02 0.05\n")
    misses, exact = find_misses(TracingDetector(conf=0.2), tmp_path, rows)
    assert exact == 1
    assert [(m.code, m.cause, m.read_as, m.height) for m in misses] == [("AS", Cause.NOT_FOUND, None, None)]
    out = tmp_path / "misses.md"
    assert main(["--data", str(tmp_path), "--out", str(out)]) == 0
    assert "| not found | 1 | 1.00 |" in out.read_text()
    assert json.loads(out.with_suffix(".json").read_text())[0]["cause"] == "not found"


def test_a_missing_truth_or_no_reader_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--data", str(tmp_path)]) == 2
    assert "no held-out truth" in capsys.readouterr().err
    with pytest.raises(EvalError, match="need the corner reader"):
        find_misses(TracingDetector(reader="off"), tmp_path, [])
