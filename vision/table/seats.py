"""Seats around the table as the camera sees them, and which seat each card lies in front of.

The camera looks down on the table from the kiosk. Where each player sits is learned once for the night:
from a layout ("4 round a table", the kiosk on one side) or from a tap per player on a photo. A seat is a
point of the photo in fractions of its width and height (players are not named here: vision knows no
games), and the table's centre is the point the seats sit round.

A card belongs to the seat whose direction from the centre is nearest its own, and the way it is turned
helps: a player lays cards facing themselves, so a card in front of a seat at the top or bottom of the photo
lies upright (its box is tall) and one in front of a seat at the left or right lies sideways (its box is
wide). Cards that touch or overlap (a fan, a row) go together to the seat most of them point to. Cards near
the centre (the draw and discard piles) belong to no seat: they are the table's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vision.base.errors import InvalidValueError
from vision.base.types import Box

Point = tuple[float, float]
SHAPES = ("round", "square")
SIDES = ("bottom", "left", "top", "right")
# The way a side of the photo lies from its centre, in image coordinates (y grows downwards).
_SIDE_ANGLE = {"bottom": 90.0, "left": 180.0, "top": 270.0, "right": 0.0}
CARD_ASPECT = math.log(88 / 63)
"""``log(height / width)`` of a standard playing card (63 x 88 mm): the box of an upright card."""


class SeatError(InvalidValueError):
    """Seats that cannot be used (too few, outside the photo, two on one spot); the message says which."""


@dataclass(frozen=True)
class SeatMap:
    """Where the players sit round the table, in fractions of the photo (x right, y down, 0 to 1).

    ``seats`` in seating order (clockwise as the players go round); ``centre`` the middle of the table;
    ``middle`` how far out, as a share of the way from the centre to the seats, a card still lies in the
    middle of the table (the draw and discard piles) rather than in front of a player.
    """

    seats: tuple[Point, ...]
    centre: Point = (0.5, 0.5)
    middle: float = 0.3

    def __post_init__(self) -> None:
        seats = tuple((float(x), float(y)) for x, y in self.seats)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "centre", (float(self.centre[0]), float(self.centre[1])))
        if len(seats) < 2:
            raise SeatError(f"a table needs at least 2 seats, got {len(seats)}")
        for x, y in (*seats, self.centre):
            if not (0 <= x <= 1 and 0 <= y <= 1) or not (math.isfinite(x) and math.isfinite(y)):
                raise SeatError(f"seat point ({x}, {y}) lies outside the photo (fractions 0 to 1)")
        cx, cy = self.centre
        for i, (x, y) in enumerate(seats):
            if math.hypot(x - cx, y - cy) < 0.02:
                raise SeatError(f"seat {i + 1} lies on the table's centre: tap where the player sits")
        if not 0 <= self.middle < 1:
            raise SeatError(f"middle must lie in [0, 1), got {self.middle}")

    def __len__(self) -> int:
        return len(self.seats)

    def only(self, keep: Sequence[int]) -> SeatMap:
        """The same table with only the seats ``keep`` (by index, in that order): players still in."""
        return SeatMap(tuple(self.seats[i] for i in keep), self.centre, self.middle)

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": [[round(x, 4), round(y, 4)] for x, y in self.seats],
            "centre": [round(self.centre[0], 4), round(self.centre[1], 4)],
            "middle": self.middle,
        }

    @classmethod
    def from_json(cls, data: Any) -> SeatMap:
        """A seat map as :meth:`to_json` wrote it; SeatError naming what is wrong."""
        try:
            seats = tuple((float(p[0]), float(p[1])) for p in data["seats"])
            centre = data.get("centre", (0.5, 0.5))
            return cls(seats, (float(centre[0]), float(centre[1])), float(data.get("middle", 0.3)))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            if isinstance(exc, SeatError):
                raise
            raise SeatError(f"not a seat map: {data!r} ({exc})") from exc


def layout(n: int, shape: str = "round", kiosk: str = "bottom") -> SeatMap:
    """``n`` players round a ``shape`` table ("round" or "square") with the kiosk (and its camera) on the
    ``kiosk`` side of the photo. The players sit evenly round the table, clockwise as the camera sees it,
    starting just left of the kiosk (the kiosk takes no seat). At a square table the seats lie on its
    edge, so seats at the corners sit further out than at a round one."""
    if not 2 <= n <= 8:
        raise SeatError(f"a layout seats 2 to 8 players, got {n}")
    if shape not in SHAPES:
        raise SeatError(f"unknown table shape {shape!r} (expected {' or '.join(SHAPES)})")
    if kiosk not in SIDES:
        raise SeatError(f"unknown kiosk side {kiosk!r} (expected {', '.join(SIDES)})")
    start = _SIDE_ANGLE[kiosk]
    radius = 0.36
    seats = []
    for i in range(n):
        a = math.radians(start + (i + 0.5) * 360 / n)
        dx, dy = math.cos(a), math.sin(a)
        if shape == "square":
            scale = 1 / max(abs(dx), abs(dy))  # out to the square's edge
            dx, dy = dx * scale, dy * scale
        seats.append((0.5 + radius * dx, 0.5 + radius * dy))
    return SeatMap(tuple(seats))


def from_taps(points: Sequence[Point], centre: Point | None = None) -> SeatMap:
    """Seats from one tap per player (fractions of the photo), in seating order; the table's centre is
    the middle of the taps unless given."""
    pts = tuple((float(x), float(y)) for x, y in points)
    if len(pts) < 2:
        raise SeatError(f"tap at least 2 seats, got {len(pts)}")
    if centre is None:
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        centre = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    for i, p in enumerate(pts):
        for j in range(i):
            if math.dist(p, pts[j]) < 0.04:
                raise SeatError(f"seats {j + 1} and {i + 1} were tapped on the same spot")
    return SeatMap(pts, centre)


def _angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % (2 * math.pi)
    return min(d, 2 * math.pi - d)


@dataclass(frozen=True)
class SeatRules:
    """How cards are given to seats. ``by``: "angle" (the card's direction from the table's centre against
    the seat's) or "distance" (to the seat's point, in seat spacings); ``turn``: weight of the card's turn
    (0: where it lies alone); ``touch``: cards whose boxes lie closer than this share of a box size form one
    group (a fan, a row) that goes to one seat (0: none). The defaults were measured with
    ``python -m vision.devtools.seat_eval`` (docs/vision.md, Seats)."""

    turn: float = 0.0
    touch: float = 0.0
    by: str = "angle"


DEFAULT_SEAT_RULES = SeatRules()


def seat_costs(box: Box, seat_map: SeatMap, width: int, height: int, rules: SeatRules) -> list[float]:
    """How badly a card with this box fits each seat: the angle between the card's and the seat's
    direction from the centre, in half the angle between two seats, plus ``rules.turn`` times how far
    its box's shape is from the shape a card facing that seat has (0 to 1)."""
    cx, cy = seat_map.centre[0] * width, seat_map.centre[1] * height
    x, y = (box[0] + box[2]) / 2 - cx, (box[1] + box[3]) / 2 - cy
    here = math.atan2(y, x)
    half = math.pi / len(seat_map)
    aspect = math.log(max(box[3] - box[1], 1e-6) / max(box[2] - box[0], 1e-6))
    costs = []
    for sx, sy in seat_map.seats:
        there = math.atan2(sy * height - cy, sx * width - cx)
        # Facing a seat above or below the centre a card stands upright (tall box); left or right, sideways.
        expected = CARD_ASPECT * -math.cos(2 * there)
        turn = min(1.0, abs(aspect - expected) / (2 * CARD_ASPECT))
        if rules.by == "angle":
            where = _angle_gap(here, there) / half
        else:
            spacing = 2 * math.hypot(sx * width - cx, sy * height - cy) * math.sin(half)
            where = math.hypot(sx * width - cx - x, sy * height - cy - y) / spacing
        costs.append(where + rules.turn * turn)
    return costs


def _touching(boxes: Sequence[Box], share: float) -> list[list[int]]:
    """Groups of boxes that overlap or lie within ``share`` of the smaller box's size of each other."""
    root = list(range(len(boxes)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, a in enumerate(boxes):
        for j in range(i):
            b = boxes[j]
            size = min(math.sqrt((a[2] - a[0]) * (a[3] - a[1])), math.sqrt((b[2] - b[0]) * (b[3] - b[1])))
            gap_x = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
            gap_y = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
            if math.hypot(gap_x, gap_y) <= share * size:
                root[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def assign_to_seats(
    boxes: Sequence[Box],
    seat_map: SeatMap,
    width: int,
    height: int,
    rules: SeatRules = DEFAULT_SEAT_RULES,
    groups: Sequence[Sequence[int]] | None = None,
) -> list[int | None]:
    """The seat (index into ``seat_map.seats``) each card's box lies in front of, or None for a card in
    the middle of the table. ``boxes`` in photo pixels of a ``width`` x ``height`` photo. ``groups``
    (indices into ``boxes``, e.g. the hands :func:`vision.table.cards.group_into_hands` found by where the
    cards
    lie and which way they are turned) each go to one seat, the one most of its cards lie in front of."""
    if width <= 0 or height <= 0:
        raise SeatError(f"photo size must be positive, got {width}x{height}")
    if rules.by not in ("angle", "distance"):
        raise SeatError(f"unknown seat rule {rules.by!r} (expected angle or distance)")
    costs = [seat_costs(b, seat_map, width, height, rules) for b in boxes]
    cx, cy = seat_map.centre[0] * width, seat_map.centre[1] * height
    out: list[int | None] = [None] * len(boxes)
    if groups is None:
        groups = _touching(boxes, rules.touch) if rules.touch > 0 else [[i] for i in range(len(boxes))]
    for group in groups:
        total = [sum(costs[i][s] for i in group) for s in range(len(seat_map))]
        seat = min(range(len(seat_map)), key=total.__getitem__)
        sx, sy = seat_map.seats[seat][0] * width - cx, seat_map.seats[seat][1] * height - cy
        reach = math.hypot(sx, sy)
        for i in group:
            b = boxes[i]
            x, y = (b[0] + b[2]) / 2 - cx, (b[1] + b[3]) / 2 - cy
            # How far out towards the seat the card lies (its distance along the seat's direction).
            out_there = (x * sx + y * sy) / reach
            out[i] = seat if out_there >= seat_map.middle * reach else None
    return out
