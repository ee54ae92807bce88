"""Watching the table between scans: once the cards are down and the table holds still, read it, once.

A :class:`TableWatcher` is fed the camera's small frames (a few a second, grey or BGR, any size: they are
shrunk to ``WatchRules.work_width`` first) and told the regions where cards are laid (one per seat, in
fractions of the frame; :func:`seat_regions` makes them from seat points). It knows no games. For each
frame it says what it sees (:class:`Look`):

- ``WAITING``: not every seat shows cards yet (an empty table, dealing, play, only the draw and discard
  piles in the middle, a hand half laid);
- ``HOLD``: every seat shows new cards, but hands still move or the table has not held still for
  ``still_s``;
- ``SCAN``: every seat shows new cards and the table has held still for ``still_s``: read it now. Said once;
- ``READ``: the table as it lies was read (by ``SCAN`` or :meth:`TableWatcher.read_now`, a tap on Scan).
  Nothing more until the table changes: once it has changed and holds still again, the watcher is armed.

"New cards" at a seat are measured against the table as it last lay still without any (the *empty*
reference, learnt by itself whenever the table holds still and no seat shows cards: at the start, after
dealing, after the cards are collected), and judged against the seat's own table, whatever its brightness,
so that a white tablecloth or a seat in shadow does as well as dark felt. A card face shows in one of two
ways, and a seat's count adds both:

- paper on a darker table (or in a shadow): changed pixels brighter than the table as it lies *now* round
  them (the mean of the unchanged pixels near each one) that fill an area. The table seen again where a dark
  card back lay is no brighter than the table beside it; a back's thin light border does not fill an area;
- print on paper as light as the table: thin marks (pips, indices, the card's outline) darker than the
  table was anywhere near them, beside paper at least as bright as the table was, and away from any
  darker patch that fills an area (a dark card back, a shadow, an arm).

A seat whose change is mostly neither (a dark back, a shadow, cards taken away) shows no cards; a lamp
switched on changes most of the frame at once, and the table is then learnt again. A seat shows cards when
at least ``min_cards`` of the frame's area there looks so. Cards with a light back, dealt face down and
left still at every seat for a second, look like cards.

Moving is measured between consecutive frames (and against the first frame of the still spell, so slow
movement counts too), only over the table: the box round all the seat regions, not the players beyond it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import cv2
import numpy as np

from vision.base.errors import InvalidValueError

Region = tuple[float, float, float, float]
"""A region of the frame: (x0, y0, x1, y1) in fractions of its width and height (0 to 1, y down)."""


_KERNEL = np.ones((3, 3), np.uint8)
_NEAR = np.ones((5, 5), np.uint8)
_AROUND = (15, 15)


class WatchState(StrEnum):
    WAITING = "waiting"
    HOLD = "hold"
    SCAN = "scan"
    READ = "read"


@dataclass(frozen=True)
class WatchRules:
    """How the watcher decides. Levels are grey levels (0-255) of the shrunk, smoothed frame; shares are of
    pixels. ``still_s``: how long the table must hold still; ``moving``: share of the table's pixels that
    change by more than ``motion_level`` between frames above which it is moving; ``change_level``: how much
    a pixel must differ from the empty table to count as changed (and paper be brighter than the table
    round it); ``mark_level``: how much darker than the table print must be; ``table_percentile``: the
    seat's table level where no table is left in view round a pixel; ``min_cards``: share of the frame's
    area that must look like cards at a seat (about a fifth of a card far from the camera);
    ``bright_share``: share of a seat's changed pixels that must be card-like (a card back, an arm's
    shadow: not cards); ``relit``: share of the frame's pixels that changing at once means the light
    changed, not the cards."""

    still_s: float = 1.0
    work_width: int = 192
    motion_level: int = 14
    moving: float = 0.004
    change_level: int = 22
    mark_level: int = 10
    table_percentile: float = 90.0
    min_cards: float = 0.0008
    bright_share: float = 0.35
    relit: float = 0.5

    def __post_init__(self) -> None:
        if not (self.still_s >= 0 and math.isfinite(self.still_s)):
            raise InvalidValueError(f"still_s must be a number of seconds >= 0, got {self.still_s}")
        if self.work_width < 16:
            raise InvalidValueError(f"work_width must be at least 16 pixels, got {self.work_width}")
        for name in ("moving", "min_cards", "bright_share", "relit"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise InvalidValueError(f"{name} must lie in (0, 1], got {value}")


@dataclass(frozen=True)
class Look:
    """What the watcher made of one frame. ``moving``: share of the table's pixels that changed since the
    last frame; ``still_for``: seconds the table has held still; ``cards``: per seat region, the share of
    the frame's area there that looks like new cards; ``seated``: per seat, whether that is enough."""

    state: WatchState
    moving: float
    still_for: float
    cards: tuple[float, ...]
    seated: tuple[bool, ...]

    @property
    def scan(self) -> bool:
        """Read the table now (said for one frame only)."""
        return self.state is WatchState.SCAN


def seat_regions(
    seats: Sequence[tuple[float, float]], centre: tuple[float, float] = (0.5, 0.5), middle: float = 0.3
) -> tuple[Region, ...]:
    """Where each seat's cards lie, as boxes in fractions of the frame: from a little beyond ``middle`` of
    the way out from the table's ``centre`` (nearer lie the draw and discard piles) to a little past the
    seat's point, and as wide across as a quarter of the way to the nearest other seat on either side
    (between a twentieth and a sixth of the frame); each box is cut back on one side to leave out the
    square of half-side ``middle / 4`` round the centre (the piles: a turned seat's box would reach it)."""
    if len(seats) < 1:
        raise InvalidValueError("no seats given")
    cx, cy = float(centre[0]), float(centre[1])
    piles = max(middle, 0.0) / 4  # the piles' square round the centre, no seat's
    out: list[Region] = []
    for i, (sx, sy) in enumerate(seats):
        vx, vy = float(sx) - cx, float(sy) - cy
        reach = math.hypot(vx, vy)
        if reach < 1e-6:
            raise InvalidValueError(f"seat {i + 1} lies on the table's centre")
        gaps = [math.dist((sx, sy), seats[j]) for j in range(len(seats)) if j != i]
        half = min(1 / 6, max(0.05, min(gaps, default=0.6) / 4))
        ux, uy = vx / reach, vy / reach  # out towards the seat
        px, py = -uy, ux  # across
        start = max(middle, 0.0) + 0.15
        near = (cx + vx * start, cy + vy * start)
        far = (cx + vx * 1.1, cy + vy * 1.1)
        xs = [p[0] + px * s * half for p in (near, far) for s in (-1, 1)]
        ys = [p[1] + py * s * half for p in (near, far) for s in (-1, 1)]
        box = (max(0.0, min(xs)), max(0.0, min(ys)), min(1.0, max(xs)), min(1.0, max(ys)))
        box = _outside(box, (cx - piles, cy - piles, cx + piles, cy + piles))
        if box[2] - box[0] <= 0 or box[3] - box[1] <= 0:
            raise InvalidValueError(f"seat {i + 1} at ({sx}, {sy}) leaves no room in the frame")
        out.append(box)
    return tuple(out)


def _outside(box: Region, middle: Region) -> Region:
    """``box`` cut back on the one side that frees it of ``middle`` at the least cost (kept if apart)."""
    x0, y0, x1, y1 = box
    m0, n0, m1, n1 = middle
    if x1 <= m0 or m1 <= x0 or y1 <= n0 or n1 <= y0 or m1 <= m0:
        return box
    cuts = [
        (x1 - m0, (x0, y0, m0, y1)),
        (m1 - x0, (m1, y0, x1, y1)),
        (y1 - n0, (x0, y0, x1, n0)),
        (n1 - y0, (x0, n1, x1, y1)),
    ]
    cuts = [(cost, b) for cost, b in cuts if b[2] > b[0] and b[3] > b[1]]
    return min(cuts)[1] if cuts else box


def grey_small(frame: Any, width: int) -> np.ndarray:
    """A frame (grey HxW, or HxWx3 BGR, uint8) shrunk to ``width`` wide (kept when no wider) and grey."""
    image = np.asarray(frame)
    if image.ndim == 3:
        image = cv2.cvtColor(np.ascontiguousarray(image[:, :, :3]), cv2.COLOR_BGR2GRAY)
    if image.ndim != 2 or image.size == 0 or image.dtype != np.uint8:
        raise InvalidValueError(
            f"a frame must be an HxW or HxWx3 uint8 array, got {image.dtype} {image.shape}"
        )
    h, w = image.shape
    if w > width:
        image = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    return image


class TableWatcher:
    """Decides from the camera's small frames when the laid cards are to be read (module docstring)."""

    def __init__(self, regions: Sequence[Region], rules: WatchRules | None = None) -> None:
        if not regions:
            raise InvalidValueError("the watcher needs at least one seat region")
        for r in regions:
            if not (0 <= r[0] < r[2] <= 1 and 0 <= r[1] < r[3] <= 1):
                raise InvalidValueError(f"region {r} is not a box inside the frame (fractions 0 to 1)")
        self.regions = tuple((float(a), float(b), float(c), float(d)) for a, b, c, d in regions)
        self.rules = rules or WatchRules()
        self._shape: tuple[int, int] | None = None
        self._slices: list[tuple[slice, slice]] = []
        self._table: tuple[slice, slice] = (slice(0), slice(0))
        self._prev: np.ndarray | None = None
        self._empty: np.ndarray | None = None  # the table as it last lay still with no cards at the seats
        self._read: np.ndarray | None = None  # the table as it lay when it was read
        self._anchor: np.ndarray | None = None  # the first frame of the current still spell
        self._still_since: float | None = None
        self._last: np.ndarray | None = None
        self._armed = True
        self._read_next = False  # the next still table is the one read (read_now)
        self._settled_seen = False  # the current still spell was already judged (after still_s)

    @property
    def armed(self) -> bool:
        """Whether the next still table with cards at every seat is to be read."""
        return self._armed

    def read_now(self) -> None:
        """The table as it lies now was read (the players tapped Scan): the table as it next holds still is
        taken as the one read (hands may still be over it now), and read again only after it changes."""
        self._armed = False
        if self._settled_seen and self._still_since is not None:  # still now: this is the table read
            self._read, self._read_next = self._last, False
        else:
            self._read, self._read_next = None, True

    def _layout(self, shape: tuple[int, int]) -> None:
        h, w = shape
        self._shape = shape

        def cut(r: Region) -> tuple[slice, slice]:
            x0, x1 = int(r[0] * w), max(int(r[0] * w) + 1, math.ceil(r[2] * w))
            y0, y1 = int(r[1] * h), max(int(r[1] * h) + 1, math.ceil(r[3] * h))
            return slice(y0, y1), slice(x0, x1)

        self._slices = [cut(r) for r in self.regions]
        box = (
            min(r[0] for r in self.regions),
            min(r[1] for r in self.regions),
            max(r[2] for r in self.regions),
            max(r[3] for r in self.regions),
        )
        self._table = cut(box)
        self._prev = self._empty = self._read = self._anchor = None
        self._still_since = None

    def _cards(self, frame: np.ndarray, empty: np.ndarray) -> list[float]:
        """Per seat, the share of the frame's area there that looks like new card faces against ``empty``:
        judged against the seat's own table, whatever its brightness (module docstring)."""
        rules = self.rules
        if np.count_nonzero(cv2.absdiff(frame, empty) > rules.change_level) > rules.relit * frame.size:
            return [0.0] * len(self._slices)  # the light changed over the whole table: learn it again
        level = rules.change_level
        area = frame.shape[0] * frame.shape[1]
        shares = []
        for sy, sx in self._slices:
            now, was = frame[sy, sx], empty[sy, sx]
            diff = now.astype(np.int16) - was.astype(np.int16)
            changed = np.count_nonzero(np.abs(diff) > level)
            if not changed:
                shares.append(0.0)
                continue
            # Paper on a darker table (or in a shadow): brighter than the table as it lies now round it (the
            # mean of the unchanged pixels near each pixel; the table seen again where a dark back lay is
            # not), filling an area (a back's thin light border, a glint or an edge does not survive the
            # erosion).
            same = (np.abs(diff) <= level).astype(np.float32)
            near = cv2.blur(same, _AROUND)
            table_now = cv2.blur(now.astype(np.float32) * same, _AROUND) / np.maximum(near, 1e-3)
            table_now[near < 0.05] = float(np.percentile(was, rules.table_percentile))
            lighter = ((diff > level) & (now >= table_now + level)).astype(np.uint8)
            paper = cv2.countNonZero(cv2.erode(lighter, _KERNEL))
            # Print on paper as light as the table (a white cloth): thin darker pips, indices and outlines,
            # darker than the table was anywhere near (not the table seen again where a back's light edge
            # lay), beside paper at least as bright as the table was, away from any darker patch that fills
            # an area (a card back, a shadow, an arm: not cards).
            dark = (diff < -level).astype(np.uint8)
            patch = cv2.dilate(cv2.morphologyEx(dark, cv2.MORPH_OPEN, _KERNEL), _NEAR)
            beside = cv2.dilate(now, _KERNEL).astype(np.int16) - was
            deep = cv2.erode(was, _NEAR).astype(np.int16) - rules.mark_level
            ink = ((diff < -rules.mark_level) & (now < deep) & (patch == 0) & (beside >= -level)).astype(
                np.uint8
            )
            # thin, as print is at this size: a darker patch that fills an area is a shade, not print
            marks = cv2.countNonZero(ink) - cv2.countNonZero(cv2.morphologyEx(ink, cv2.MORPH_OPEN, _KERNEL))
            cardlike = paper + marks
            if cv2.countNonZero(lighter) + marks < rules.bright_share * changed:
                cardlike = 0  # mostly a dull or dark change: a card back, an arm, a shadow, cards taken away
            shares.append(cardlike / area)
        return shares

    def _differs(self, a: np.ndarray, b: np.ndarray) -> bool:
        """Whether the seats differ between two still tables by about half a card or more."""
        level = self.rules.change_level
        total = sum(np.count_nonzero(cv2.absdiff(a[s], b[s]) > level) for s in self._slices)
        return bool(total >= self.rules.min_cards * a.shape[0] * a.shape[1])

    def feed(self, frame: Any, t: float) -> Look:
        """Judge one frame taken at ``t`` seconds (any clock that does not go back)."""
        rules = self.rules
        small = cv2.GaussianBlur(grey_small(frame, rules.work_width), (3, 3), 0)
        if self._shape != small.shape:
            self._layout((small.shape[0], small.shape[1]))
        ys, xs = self._table
        area = max(1, (ys.stop - ys.start) * (xs.stop - xs.start))
        moving = 0.0
        if self._prev is not None:
            changed = np.count_nonzero(cv2.absdiff(small[ys, xs], self._prev[ys, xs]) > rules.motion_level)
            moving = int(changed) / area
        if self._anchor is not None and moving <= rules.moving:  # slow movement: against the spell's start
            drift = np.count_nonzero(cv2.absdiff(small[ys, xs], self._anchor[ys, xs]) > rules.motion_level)
            if drift / area > 2 * rules.moving:
                moving = max(moving, drift / area)
        self._prev = small
        self._last = small
        if self._empty is None:
            self._empty = small
        if moving > rules.moving:
            self._still_since, self._anchor, self._settled_seen = None, None, False
        elif self._still_since is None:
            self._still_since, self._anchor, self._settled_seen = t, small, False
        still_for = 0.0 if self._still_since is None else t - self._still_since
        cards = self._cards(small, self._empty)
        seated = tuple(share >= rules.min_cards for share in cards)
        settled = self._still_since is not None and still_for >= rules.still_s
        if settled and not self._settled_seen:
            self._settled_seen = True
            if not any(seated):  # an empty table (or only the piles in the middle): learn it
                self._empty = small
                self._armed = True
                cards = [0.0] * len(cards)
                seated = tuple(False for _ in seated)
            elif self._read_next:
                self._read = small
            elif not self._armed and self._read is not None and self._differs(small, self._read):
                self._armed = True  # the table changed since it was read
            self._read_next = False
        if not self._armed:
            state = WatchState.READ
        elif not all(seated):
            state = WatchState.WAITING
        elif settled:
            state = WatchState.SCAN
            self._armed = False
            self._read = small
        else:
            state = WatchState.HOLD
        return Look(state, float(moving), float(still_for), tuple(float(c) for c in cards), seated)
