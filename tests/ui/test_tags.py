"""Name tags over a scan photo never hide one another."""

from __future__ import annotations

import itertools

from ui.logic.tags import spread_tags

BOUNDS = (0.0, 0.0, 250.0, 180.0)


def overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_free_tags_stay_where_they_were_wanted() -> None:
    tags = [(10.0, 10.0, 60.0, 20.0), (150.0, 120.0, 60.0, 20.0)]
    assert spread_tags(tags, BOUNDS) == tags


def test_four_tags_on_one_spot_are_spread_apart_inside_the_photo() -> None:
    # The kiosk's round-1 demo: four seat tags wanted within a few pixels of each other.
    tags = [(70.0 + 5 * i, 100.0 + 3 * i, 64.0, 24.0) for i in range(4)]
    out = spread_tags(tags, BOUNDS)
    assert len(out) == 4
    for a, b in itertools.combinations(out, 2):
        assert not overlaps(a, b)
    for x, y, w, h in out:
        assert x >= 0 and x + w <= 250 and y >= 0 and y + h <= 180
        assert (w, h) == (64.0, 24.0)
    assert out[0] == tags[0]


def test_tags_wanted_outside_the_photo_are_pulled_in() -> None:
    ((x, y, w, h),) = spread_tags([(240.0, -30.0, 60.0, 20.0)], BOUNDS)
    assert (x, y) == (190.0, 0.0)


def test_more_tags_than_room_keep_their_place_rather_than_vanish() -> None:
    tags = [(0.0, 0.0, 250.0, 180.0)] * 2
    assert spread_tags(tags, BOUNDS) == tags
