"""Seats round the table (vision.table.seats): layouts, taps, and which seat each card lies in front of."""

from __future__ import annotations

import pytest

from vision.devtools.seat_eval import measure, tables_from_corners
from vision.table.seats import SeatError, SeatMap, SeatRules, assign_to_seats, from_taps, layout


def box(x: float, y: float, w: float = 40, h: float = 56) -> tuple[float, float, float, float]:
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def test_a_layout_seats_players_clockwise_from_the_kiosks_left() -> None:
    seats = layout(4, "round", kiosk="bottom").seats
    # The kiosk at the bottom: the first seat is bottom-left, then top-left, top-right, bottom-right.
    assert seats[0][0] < 0.5 < seats[0][1]
    assert seats[1][0] < 0.5 and seats[1][1] < 0.5
    assert seats[2][0] > 0.5 and seats[2][1] < 0.5
    assert seats[3][0] > 0.5 and seats[3][1] > 0.5
    square = layout(4, "square", kiosk="bottom").seats
    assert abs(square[0][0] - 0.5) > abs(seats[0][0] - 0.5)  # corners of a square lie further out


def test_cards_go_to_the_seat_they_lie_in_front_of_and_the_middle_to_the_table() -> None:
    seats = from_taps([(0.5, 0.9), (0.1, 0.5), (0.5, 0.1), (0.9, 0.5)])
    boxes = [box(400, 400), box(420, 410), box(80, 240), box(400, 60), box(720, 250), box(400, 240)]
    assert assign_to_seats(boxes, seats, 800, 480) == [0, 0, 1, 2, 3, None]


def test_seats_are_checked_and_survive_json() -> None:
    with pytest.raises(SeatError, match="same spot"):
        from_taps([(0.2, 0.2), (0.21, 0.2), (0.8, 0.8)])
    with pytest.raises(SeatError, match="outside"):
        SeatMap(((1.5, 0.2), (0.1, 0.1)))
    with pytest.raises(SeatError, match="2 to 8"):
        layout(1)
    seats = layout(5, "square", "left")
    back = SeatMap.from_json(seats.to_json())
    assert [c for p in back.seats for c in p] == pytest.approx([c for p in seats.seats for c in p], abs=1e-4)
    assert seats.only([0, 2]).seats == (seats.seats[0], seats.seats[2])
    with pytest.raises(SeatError, match="not a seat map"):
        SeatMap.from_json({"seats": "nope"})


def test_seats_give_more_cards_to_the_right_player_than_clusters_on_the_synthetic_tables() -> None:
    figures = measure(tables_from_corners())
    right = {name: r / n for name, (r, n, _whole) in figures.items()}
    assert right["seats from taps"] > right["clusters (before)"]
    assert right["seats from a layout"] > right["clusters (before)"]


def test_groups_go_to_one_seat_and_the_rules_are_checked() -> None:
    seats = from_taps([(0.5, 0.9), (0.1, 0.5), (0.5, 0.1), (0.9, 0.5)])
    # A fan lying across two seats' directions: alone, its end card goes to the next seat; as one group
    # (e.g. the hand group_into_hands found), all of it goes to the seat most of it faces.
    fan = [box(380, 400), box(330, 395), box(280, 380), box(235, 360)]
    alone = assign_to_seats(fan, seats, 800, 480)
    assert alone[:3] == [0, 0, 0] and alone[3] == 1
    assert assign_to_seats(fan, seats, 800, 480, groups=[[0, 1, 2, 3]]) == [0, 0, 0, 0]
    assert assign_to_seats(fan, seats, 800, 480, SeatRules(by="distance"))[0] == 0
    with pytest.raises(SeatError, match="unknown seat rule"):
        assign_to_seats(fan, seats, 800, 480, SeatRules(by="nearest"))
    with pytest.raises(SeatError, match="photo size"):
        assign_to_seats(fan, seats, 0, 480)
