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
dealing, after the cards are collected). A new card is paper: pixels that changed, are brighter than the
table there mostly is, as bright as paper in this frame (and at least ``paper_floor``), and fill an area
(a card back's thin white border does not). A dark card back, a hand's shadow or cards taken away make a
seat darker or no brighter; a lamp switched on changes most of the table at once, and the table is then
learnt again. A seat shows cards when at least ``min_cards`` of the frame's area there looks so. On a
table as light as the cards nothing stands out: the watcher then reads nothing and the players tap Scan.
Cards with a light back, dealt face down and left still at every seat for a second, look like cards.

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
    brighter than the empty table a pixel must be to count as a new card; ``paper``: how bright against the
    frame's brightest (its ``bright_percentile``), and at least ``paper_floor``; ``min_cards``: share of
    the frame's area that must look so at a seat (about a quarter of a card far from the camera);
    ``bright_share``: share of a seat's changed pixels that must be such brighter ones (a card back, an
    arm's shadow: not cards); ``relit``: share of the table's pixels that changing at once means the light
    changed, not the cards."""

    still_s: float = 1.0
    work_width: int = 192
    motion_level: int = 14
    moving: float = 0.004
    change_level: int = 22
    paper: float = 0.72
    paper_floor: int = 130
    bright_percentile: float = 99.5
    min_cards: float = 0.001
    bright_share: float = 0.35
    relit: float = 0.5

    def __post_init__(self) -> None:
        if not (self.still_s >= 0 and math.isfinite(self.still_s)):
            raise InvalidValueError(f"still_s must be a number of seconds >= 0, got {self.still_s}")
        if self.work_width < 16:
            raise InvalidValueError(f"work_width must be at least 16 pixels, got {self.work_width}")
        for name in ("moving", "paper", "min_cards", "bright_share", "relit"):
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
    (between a twentieth and a sixth of the frame)."""
    if len(seats) < 1:
        raise InvalidValueError("no seats given")
    cx, cy = float(centre[0]), float(centre[1])
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
        if box[2] - box[0] <= 0 or box[3] - box[1] <= 0:
            raise InvalidValueError(f"seat {i + 1} at ({sx}, {sy}) leaves no room in the frame")
        out.append(box)
    return tuple(out)


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
        """Per seat, the share of the frame's area there that is new, paper-bright cards against ``empty``."""
        rules = self.rules
        ys, xs = self._table
        table, before = frame[ys, xs], empty[ys, xs]
        if np.count_nonzero(cv2.absdiff(table, before) > rules.change_level) > rules.relit * table.size:
            return [0.0] * len(self._slices)  # the light changed over the whole table: learn it again
        paper = max(rules.paper_floor, rules.paper * float(np.percentile(table, rules.bright_percentile)))
        area = frame.shape[0] * frame.shape[1]
        shares = []
        for sy, sx in self._slices:
            now = frame[sy, sx].astype(np.int16)
            was = empty[sy, sx].astype(np.int16)
            diff = now - was
            changed = np.count_nonzero(np.abs(diff) > rules.change_level)
            # New paper: changed, brighter than the table there mostly is (not the table seen again
            # where a dark card back lay), as bright as paper, and filling a card: bright pixels that stay
            # after an erosion (a back's thin white border, a glint or an edge does not).
            floor = max(paper, float(np.percentile(was, 90)) + rules.change_level)
            mask = ((diff > rules.change_level) & (now >= floor)).astype(np.uint8)
            bright = cv2.countNonZero(cv2.erode(mask, _KERNEL))
            if changed and cv2.countNonZero(mask) < rules.bright_share * changed:
                bright = 0  # mostly darker or dull: a card back, an arm, a shadow, cards taken away
            shares.append(bright / area)
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
