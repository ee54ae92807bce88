"""Splitting a reading of the held-out photos by how readable their cards are."""

from __future__ import annotations

from typing import Any

import pytest

from models.training.readability import CLEAR_HEIGHT, breakdown, camera_class, card_views, has_records, render

SHARP = {"lowres": 1.0, "blur": 0.0, "motion": 0, "noise": 2.0, "jpeg": 90}


def _row(cards: dict[str, list[tuple[float, float]]], cam: dict[str, Any] | None = None) -> dict[str, Any]:
    """A truth row: each card's labelled corners as (height px, share in view)."""
    corners = [{"code": c, "h": h, "w": h / 2, "visible": v} for c, cs in cards.items() for h, v in cs]
    return {
        "image": "x.jpg",
        "cards": sorted(cards),
        "kind": "hand",
        "corners": corners,
        "camera": cam or SHARP,
    }


def test_a_card_is_as_readable_as_its_largest_corner() -> None:
    views = card_views(_row({"KH": [(12.0, 1.0), (30.0, 0.75)], "2S": [(20.0, 0.9)]}))
    assert views["KH"].height == 30.0 and views["KH"].visible == 0.75 and views["KH"].corners == 2
    assert views["2S"].corners == 1


def test_card_recall_is_split_by_corner_height_and_count() -> None:
    rows = [_row({"KH": [(12.0, 1.0)], "2S": [(30.0, 1.0), (30.0, 1.0)]})]
    b = breakdown(rows, [{"2S"}])
    assert (b.cards_by_height["< 14 px"].hit, b.cards_by_height["< 14 px"].total) == (0, 1)
    assert (b.cards_by_height["28-40 px"].hit, b.cards_by_height["28-40 px"].total) == (1, 1)
    assert b.cards_by_corners["1"].rate == 0.0 and b.cards_by_corners["2"].rate == 1.0
    assert b.photos_by_smallest["< 14 px"].total == 1 and b.photos_by_smallest["< 14 px"].hit == 0


def test_only_sharp_photos_of_large_whole_corners_count_as_clear() -> None:
    big = {"AS": [(CLEAR_HEIGHT + 5, 1.0)]}
    rows = [
        _row(big),
        _row({"AS": [(CLEAR_HEIGHT - 1, 1.0)]}),
        _row({"AS": [(CLEAR_HEIGHT + 5, 0.8)]}),
        _row(big, {**SHARP, "motion": 4}),
        _row(big, {**SHARP, "lowres": 0.6}),
        _row(big, {**SHARP, "blur": 0.5}),
    ]
    b = breakdown(rows, [{"AS"}] * 6)
    assert (b.clear.hit, b.clear.total) == (2, 2) and (b.rest.hit, b.rest.total) == (4, 4)


def test_an_extra_card_spoils_the_photo_but_not_the_card_recall() -> None:
    b = breakdown([_row({"AS": [(30.0, 1.0)]})], [{"AS", "KD"}])
    assert b.cards_by_height["28-40 px"].rate == 1.0
    assert b.clear.rate == 0.0 and b.photos_by_camera["sharp"].rate == 0.0


@pytest.mark.parametrize(
    ("cam", "want"),
    [
        (SHARP, "sharp"),
        ({**SHARP, "blur": 0.5}, "Gaussian blur < 0.9 px"),
        ({**SHARP, "blur": 1.2}, "Gaussian blur >= 0.9 px"),
        ({**SHARP, "motion": 5}, "motion blur"),
        ({**SHARP, "lowres": 0.5, "blur": 1.2}, "low resolution"),
    ],
)
def test_the_camera_class_names_the_worst_that_was_done(cam: dict[str, Any], want: str) -> None:
    assert camera_class(cam) == want


def test_truth_drawn_before_the_records_is_refused_by_name() -> None:
    old = [{"image": "a.jpg", "cards": ["AS"], "kind": "hand"}]
    assert not has_records(old)
    with pytest.raises(ValueError, match="readability records"):
        breakdown(old, [{"AS"}])
    with pytest.raises(ValueError, match="1 truth rows but 2 readings"):
        breakdown([_row({"AS": [(30.0, 1.0)]})], [set(), set()])


def test_the_report_has_a_column_per_reading_and_skips_empty_bins() -> None:
    rows = [_row({"AS": [(30.0, 1.0)]}), _row({"KD": [(10.0, 0.9)]})]
    lines = render({"one pass": breakdown(rows, [{"AS"}, set()]), "kiosk": breakdown(rows, [{"AS"}, {"KD"}])})
    text = "\n".join(lines)
    assert "| card recall by its largest corner's height | one pass | kiosk |" in text
    assert "| < 14 px | 0.000 (0/1) | 1.000 (1/1) |" in text
    assert "18-22 px" not in text
    assert "one pass 1.000 (1/1), the other photos 0.000 (0/1)" in text
