"""The model card's results table, written from the evaluation report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.training.card import END, START, main, results_table

REPORT = {
    "conf": 0.2,
    "imgsz": 576,
    "targets": {
        "synthetic_map50": 0.98,
        "synthetic_exact_hand_rate": 0.95,
        "ivr_edinburgh_card_accuracy": 0.9,
    },
    "timing": {"median_ms": 30.0},
    "synthetic": {
        "images": 400,
        "map50": 0.9036,
        "map50_95": 0.7188,
        "exact_hand_rate": 0.59,
        "card_precision": 0.894,
        "card_recall": 0.82,
        "tiled_exact_hand_rate": 0.825,
        "scores_right": {"jhyap": 0.65, "seep": 0.71, "seep_photos": 334},
        "tiled_scores_right": {"jhyap": 0.845, "seep": 0.883, "seep_photos": 334},
        "corners": {"corners": 3292, "right": 2725, "missed": 250, "confusions": {}},
    },
    "real": [
        {"name": "ivr_edinburgh", "images": 64, "value": 1.0, "details": {}, "reading": "one pass"},
        {"name": "ivr_edinburgh", "images": 64, "value": 0.984, "details": {}, "reading": "kiosk"},
    ],
    "camera": {
        "images": 400,
        "long_side": 1920,
        "exact_hand_rate": 0.92,
        "cards": 2000,
        "cards_right": 1980,
        "extra": 15,
    },
}


def test_the_table_shows_the_reports_figures() -> None:
    table = results_table(REPORT)
    assert (
        "| held-out designs, 400 synthetic photos of the training photos' size: mAP50 / mAP50-95 "
        "| 0.904 / 0.719 | >= 0.98 |" in table
    )
    assert "**0.590** | >= 0.95 |" in table and "**0.825**" in table
    assert "2725 / 3292" not in table and "0.828 / 0.076" in table
    assert "400 photos at 1920 px" in table and "**0.920**; 99.0%, 15" in table
    assert "1.000 / 0.984 | >= 0.9 |" in table
    assert "30.0 (~102)" in table  # the Pi 5 estimate, x3.4


def test_a_report_without_a_set_leaves_its_rows_out() -> None:
    table = results_table({"conf": 0.2, "imgsz": 576, "real": []})
    assert table.count("\n| ") == 1  # the header row only


def test_the_card_is_rewritten_between_its_markers_only(tmp_path: Path) -> None:
    card, report = tmp_path / "README.md", tmp_path / "report.json"
    card.write_text(f"# Card\n\nbefore\n\n{START}\nold table\n{END}\n\nafter\n")
    report.write_text(json.dumps(REPORT))
    args = ["--card", str(card), "--report", str(report)]
    assert main([*args, "--check"]) == 1  # the old table is not the report's
    assert main(args) == 0
    text = card.read_text()
    assert text.startswith("# Card\n\nbefore\n\n") and text.endswith(f"{END}\n\nafter\n")
    assert "old table" not in text and results_table(REPORT) in text
    assert main([*args, "--check"]) == 0
    assert main(args) == 0 and card.read_text() == text  # a second run changes nothing


def test_a_card_without_markers_or_a_broken_report_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card, report = tmp_path / "README.md", tmp_path / "report.json"
    card.write_text("# Card\n")
    report.write_text(json.dumps(REPORT))
    assert main(["--card", str(card), "--report", str(report)]) == 2
    assert "has no results markers" in capsys.readouterr().err
    card.write_text(f"{START}\n{END}\n")
    report.write_text("{not json")
    assert main(["--card", str(card), "--report", str(report)]) == 2
    assert "cannot read the evaluation report" in capsys.readouterr().err


def test_the_committed_card_shows_the_committed_report() -> None:
    # make evaluate rewrites both; a report changed by hand, or a card edited inside the markers, fails here
    assert main(["--check"]) == 0
