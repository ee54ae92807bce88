"""Is the camera placed right? From one photo's reading: how large the corner indices are, whether every
seat is in view, and what to change (lower the camera, raise it, use the Wide module), with the numbers.

The reading's accuracy depends on how large a card's corner index appears in the photo, and that depends
on the camera's height and lens. Straight down over the middle of a table ``T`` metres across, a camera
whose picture spans ``fov`` degrees across sees the whole table from

    height = T / 2 / tan(fov / 2)

and the corner index (``INDEX_MM`` tall on a standard card) is then ``width_px * INDEX_MM / (T * 1000)``
pixels tall: the size grows as the camera comes down (inversely with the height), and at a given coverage
it depends on the photo's width in pixels alone, not on the lens. A Wide module therefore does not make
the corners larger; it lets the camera hang lower (under a low shelf or lamp) for the same table.

:func:`check_placement` turns a reading (the cards read, with their corner boxes and their doubt) into a
:class:`Placement`: each seat's cards, how many of them the reading was unsure of and whether one is cut by
the photo's border, the median corner box in photo pixels and in model-input pixels (the photo fitted into
the model's ``imgsz``), and one :class:`Verdict` with the factor behind it. The advice follows what the
reading did: a photo whose every seat was read and no card was in doubt is fine, however small its corners;
only cards lost or in doubt are explained, by a card cut at the border, by corners too small, or by neither.
:func:`heights_table` gives deploy/README.md's table of heights. The size rule (``MIN_MODEL_PX``,
``GOOD_MODEL_PX``) was measured on real photographs laid side by side as a bigger table with
``python -m vision.devtools.placement_real`` (models/eval/placement-real.md), and the kiosk's capture size
(``CAPTURE_WIDTH``) with ``python -m vision.devtools.placement_eval`` (models/eval/placement.md): the
reading finds a corner by its size in the model's view of the whole photo, whatever the photo's own size, so
the thresholds are in model-input pixels and a larger still does not help a camera that hangs too high.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from vision.base.errors import InvalidValueError
from vision.base.types import Box, DetectedCard, box_size
from vision.table.seats import SeatMap, assign_to_seats

INDEX_MM = 8.0
"""How tall a corner index (rank over suit) is on a standard card, in millimetres."""
BOX_PER_INDEX = 1.05
"""A detected corner box's size (``sqrt(w * h)``) over the index's printed height, median over the
cards read in the measurement (cards at every angle; an upright index's box is narrower than tall)."""
MIN_MODEL_PX = 8.5
"""Detected corner box, in pixels of the model's view of the whole photo (the photo fitted into ``imgsz``),
under which the reading loses real cards, more the smaller they get (models/eval/placement-real.md)."""
GOOD_MODEL_PX = 10.0
"""The same size from which the reading reads real cards as well as it does large ones: lost or doubtful
cards smaller than this are put down to their size, and the advice to lower the camera aims here."""
CAPTURE_WIDTH = 2304
"""The still width the kiosk asks of a camera that can give more (the Camera Module 3's 2x2 binned mode)."""
EDGE = 0.002
"""A corner box reaching within this share of the photo's side (at least a pixel) of its edge is cut off by
the frame: the reading clips a box at the border, and a whole index lies clear of it."""
FILL = 0.9
"""How far out (share of the half-frame) the cards may lie once the camera is lowered: a margin kept."""
RAISE_STEP = 1.15
"""How much higher to hang a camera that cuts a card off (the card's hidden part is not measured): a step,
then check again."""
STAND_M = 1.0
"""Above this height (metres over the table) a camera stand or arm is hard to find: the Wide module then."""


@dataclass(frozen=True)
class Lens:
    """A camera module: its horizontal field of view and its full still size."""

    key: str
    name: str
    fov_deg: float
    width_px: int
    height_px: int

    def height_for(self, table_m: float) -> float:
        """Metres above a table ``table_m`` across at which the table just fills the picture's width."""
        return camera_height(table_m, self.fov_deg)


MODULE3 = Lens("module3", "Camera Module 3", 66.0, 4608, 2592)
MODULE3_WIDE = Lens("module3-wide", "Camera Module 3 Wide", 102.0, 4608, 2592)
MODULE2 = Lens("module2", "Camera Module 2", 62.2, 3280, 2464)
HQ6MM = Lens("hq-6mm", "HQ Camera with the 6 mm lens", 63.0, 4056, 3040)
WEBCAM = Lens("webcam", "1080p webcam, 78 degrees diagonal", 70.4, 1920, 1080)
LENSES = (MODULE3, MODULE3_WIDE, MODULE2, HQ6MM, WEBCAM)
TABLES_M = (0.8, 1.0, 1.2, 1.5)
"""Common table widths (metres) for the heights table."""

# libcamera's sensor names of the Pi camera modules (the "Model" of picamera2's global_camera_info).
_PI_MODELS = {
    "imx708": MODULE3,
    "imx708_noir": MODULE3,
    "imx708_wide": MODULE3_WIDE,
    "imx708_wide_noir": MODULE3_WIDE,
}


def lens_for(model: str | None) -> Lens | None:
    """The lens of a Pi camera by libcamera's sensor name (``imx708_wide``...), None when unknown."""
    return _PI_MODELS.get((model or "").strip().lower())


def camera_height(table_m: float, fov_deg: float) -> float:
    """Metres above the table at which a picture ``fov_deg`` degrees across spans ``table_m`` metres."""
    if not (table_m > 0 and 0 < fov_deg < 180):
        raise InvalidValueError(
            f"need a table width > 0 and a field of view in (0, 180), got {table_m}, {fov_deg}"
        )
    return table_m / 2 / math.tan(math.radians(fov_deg) / 2)


def index_px(view_m: float, width_px: int, index_mm: float = INDEX_MM) -> float:
    """How tall a corner index is, in pixels, in a photo ``width_px`` wide spanning ``view_m`` metres."""
    return width_px * index_mm / (view_m * 1000)


def still_size(sensor: tuple[int, int], width: int = CAPTURE_WIDTH) -> tuple[int, int]:
    """The still size to take from a sensor of ``sensor`` (width, height): the sensor's own size halved
    (its 2x2 binned mode, the same field of view) while the result stays at least ``width`` wide."""
    w, h = int(sensor[0]), int(sensor[1])
    if w <= 0 or h <= 0:
        raise InvalidValueError(f"sensor size must be positive, got {sensor!r}")
    while w // 2 >= width and w % 2 == 0 and h % 2 == 0:
        w, h = w // 2, h // 2
    return w, h


def heights_table(
    tables_m: Sequence[float] = TABLES_M,
    lenses: Sequence[Lens] = LENSES,
    capture_width: int = CAPTURE_WIDTH,
    imgsz: int = 576,
) -> str:
    """deploy/README.md's table: for each lens and table width, the height at which the table fills the
    picture's width, the corner index's height in the kiosk's photo (the still the kiosk takes:
    ``capture_width`` when the camera gives more, see :func:`still_size`) and in the model's view of it."""
    head = "| Camera (field of view across, the kiosk's photo) | " + " | ".join(
        f"table {t:g} m across" for t in tables_m
    )
    lines = [head + " |", "|---|" + "---|" * len(tables_m)]
    for lens in lenses:
        photo_w = still_size((lens.width_px, lens.height_px), capture_width)[0]
        cells = [f"{lens.height_for(t):.2f} m (index {index_px(t, photo_w):.0f} px)" for t in tables_m]
        lines.append(f"| {lens.name} ({lens.fov_deg:g} degrees, {photo_w} px) | " + " | ".join(cells) + " |")
    model = [f"{index_px(t, imgsz):.1f} px" for t in tables_m]
    lines.append(
        f"| The index in the model's {imgsz} px view of the whole photo, any camera | "
        + " | ".join(model)
        + " |"
    )
    return "\n".join(lines)


class Verdict(StrEnum):
    FINE = "fine"  # every seat read, corners large enough
    LOWER = "lower"  # corners small and there is room: bring the camera down
    RAISE = "raise"  # a card is cut by the frame's edge: a seat is (partly) out of view
    WIDE = "wide"  # a seat is out of view and the camera would have to hang higher than a stand reaches
    CROWDED = "crowded"  # corners small and the cards already fill the view: lay them nearer the middle
    MISSING = "missing"  # corners fine, but no card was read at some seat
    UNSURE = "unsure"  # cards in doubt, though large and whole: light, glare or a bent card, not the camera
    NO_CARDS = "no_cards"  # nothing read at all


@dataclass(frozen=True)
class SeatReading:
    """One seat in the check: how many cards were read in front of it, how many of them in doubt, their
    median corner size, and whether one of them is cut by the photo's border."""

    seat: int
    cards: int
    corner_px: float | None
    cut: bool  # one of its cards touches the photo's edge
    doubtful: int = 0  # cards the reading was unsure of (DetectedCard.uncertain)

    @property
    def read(self) -> bool:
        return self.cards > 0

    @property
    def sure(self) -> bool:
        """Read, and no card of it in doubt."""
        return self.read and not self.doubtful


@dataclass(frozen=True)
class Placement:
    """What one photo says about where the camera hangs (see :func:`check_placement`).

    ``corner_px``: the median detected corner box over the cards read (photo pixels; None when none);
    ``model_px``: the same in the model's input, the whole photo fitted into ``imgsz``. ``factor``: for
    LOWER/CROWDED how many times larger the corners should come out (the camera's height divided by it);
    for RAISE/WIDE how many times more the picture should span (the height multiplied by it); 1 otherwise.
    ``room``: how many times the camera can come down before the outermost card leaves the view (margin
    kept). ``view_m``/``height_m``: the metres of table the picture spans and the camera's height, estimated
    from the corners' size (an index ``INDEX_MM`` tall) and the lens, when the lens is known.
    """

    verdict: Verdict
    width: int
    height: int
    corner_px: float | None
    model_px: float | None
    seats: tuple[SeatReading, ...]
    factor: float = 1.0
    room: float = 1.0
    lens: Lens | None = None
    view_m: float | None = None
    height_m: float | None = None
    target_m: float | None = None
    wide_m: float | None = None

    @property
    def missing(self) -> tuple[int, ...]:
        """The seats (0-based) with no card read."""
        return tuple(s.seat for s in self.seats if not s.read)

    @property
    def cut(self) -> tuple[int, ...]:
        """The seats (0-based) with a card cut by the photo's edge."""
        return tuple(s.seat for s in self.seats if s.cut)

    @property
    def doubtful(self) -> tuple[int, ...]:
        """The seats (0-based) with a card the reading was unsure of."""
        return tuple(s.seat for s in self.seats if s.doubtful)

    @property
    def sure(self) -> bool:
        """Every seat read and no card in doubt: the camera is not to be moved, whatever the sizes."""
        return all(s.sure for s in self.seats)

    def read_count(self) -> str:
        """How the reading went, in English: seats read, cards in doubt, cards cut at the border."""
        cards = sum(s.cards for s in self.seats)
        doubt = sum(s.doubtful for s in self.seats)
        read = sum(1 for s in self.seats if s.read)
        return f"{cards} card(s) read, {doubt} in doubt, at {read} of {len(self.seats)} seat(s)" + (
            f", a card cut by the border at seat {', '.join(str(s + 1) for s in self.cut)}"
            if self.cut
            else ""
        )

    def summary(self) -> str:
        """One line in English for logs and the doctor: the numbers and what to do."""
        size = (
            f"corner {self.corner_px:.0f} px in the {self.width}x{self.height} photo "
            f"({self.model_px:.1f} px in the model input; real cards are lost under {MIN_MODEL_PX:g}, read "
            f"as well as large ones from {GOOD_MODEL_PX:g}); {self.read_count()}"
            if self.corner_px is not None and self.model_px is not None
            else f"no corner read in the {self.width}x{self.height} photo"
        )
        where = ""
        if self.height_m is not None and self.view_m is not None and self.lens is not None:
            where = (
                f"; the picture spans about {self.view_m:.2f} m, so the {self.lens.name} hangs about "
                f"{self.height_m:.2f} m up"
            )
        to = f" (about {self.target_m:.2f} m)" if self.target_m is not None else ""
        wide = (
            f"; a {MODULE3_WIDE.name} sees it from about {self.wide_m:.2f} m"
            if self.wide_m is not None
            else ""
        )
        advice = {
            Verdict.FINE: "the camera is placed right",
            Verdict.LOWER: f"lower the camera to {1 / self.factor:.0%} of its height{to}",
            Verdict.RAISE: f"raise the camera: a card at the edge is cut off{to}{wide}",
            Verdict.WIDE: f"a seat is out of view and the camera would hang over {STAND_M:g} m{to}{wide}",
            Verdict.CROWDED: "corners small and the cards already fill the view: lay them nearer the middle",
            Verdict.MISSING: "no card read at seat " + ", ".join(str(s + 1) for s in self.missing),
            Verdict.UNSURE: "cards in doubt at seat "
            + ", ".join(str(s + 1) for s in self.doubtful)
            + ", though whole and large enough: check the light and glare, and lay the cards flat",
            Verdict.NO_CARDS: "no card read: lay one card face up at each seat",
        }[self.verdict]
        return f"{advice}; {size}{where}"


def card_corner_px(card: DetectedCard) -> float:
    """A card's corner size: its largest corner box (the one seen best), ``sqrt(w * h)`` in photo pixels."""
    return max(box_size(b) for b in card.boxes)


def _at_edge(box: Box, width: int, height: int) -> bool:
    mx, my = max(1.0, EDGE * width), max(1.0, EDGE * height)
    return box[0] <= mx or box[1] <= my or box[2] >= width - mx or box[3] >= height - my


def _extent(boxes: Sequence[Box], width: int, height: int) -> float:
    """How far out the outermost box reaches, as a share of the half-frame (1: at the edge)."""
    far = 0.0
    for x1, y1, x2, y2 in boxes:
        far = max(far, abs(x1 / width - 0.5) * 2, abs(x2 / width - 0.5) * 2)
        far = max(far, abs(y1 / height - 0.5) * 2, abs(y2 / height - 0.5) * 2)
    return far


def check_placement(
    cards: Sequence[DetectedCard],
    width: int,
    height: int,
    seat_map: SeatMap | None = None,
    imgsz: int = 576,
    lens: Lens | None = None,
) -> Placement:
    """What the cards read in one ``width`` x ``height`` photo say about the camera's place.

    With a ``seat_map`` each card is given to the seat it lies in front of (:func:`vision.table.seats.
    assign_to_seats`; a card in the middle goes to its nearest seat by angle), so a seat with no card is
    named; without one the photo counts as one seat. ``imgsz`` is the model's input side; ``lens`` the
    camera module when known (the heights in metres are then estimated).

    The verdict follows what the reading did, first match: nothing read -> NO_CARDS; every seat read and
    no card in doubt -> FINE, whatever the corners' size (a camera whose photo reads surely is never to be
    moved). Otherwise the cards lost (a seat with none) or in doubt are explained: a card cut by the frame's
    edge -> RAISE (WIDE when the camera would then hang over ``STAND_M`` and the lens is not already the
    Wide one); the corners of the seats in trouble (all of them when a seat has none) under
    ``GOOD_MODEL_PX`` in the model's view -> LOWER when the cards leave room to come that much closer, else
    LOWER as far as the room allows when that reaches ``MIN_MODEL_PX``, else CROWDED; a seat with no card
    -> MISSING; cards in doubt though whole and large -> UNSURE (the light, glare or the cards, not the
    camera).
    """
    if width <= 0 or height <= 0:
        raise InvalidValueError(f"photo size must be positive, got {width}x{height}")
    if imgsz <= 0:
        raise InvalidValueError(f"imgsz must be positive, got {imgsz}")
    n_seats = len(seat_map) if seat_map is not None else 1
    owners: list[int] = [0] * len(cards)
    if seat_map is not None and cards:
        boxes = [max(c.boxes, key=box_size) for c in cards]
        near = assign_to_seats(boxes, SeatMap(seat_map.seats, seat_map.centre, 0.0), width, height)
        owners = [0 if s is None else s for s in near]
    seats = []
    for s in range(n_seats):
        mine = [c for c, o in zip(cards, owners, strict=True) if o == s]
        size = statistics.median(card_corner_px(c) for c in mine) if mine else None
        cut = any(_at_edge(b, width, height) for c in mine for b in c.boxes)
        seats.append(SeatReading(s, len(mine), size, cut, sum(1 for c in mine if c.uncertain)))
    readings = tuple(seats)
    if not cards:
        return Placement(Verdict.NO_CARDS, width, height, None, None, readings, lens=lens)
    corner = statistics.median(card_corner_px(c) for c in cards)
    model = corner * imgsz / max(width, height)
    extent = _extent([b for c in cards for b in c.boxes], width, height)
    room = FILL / extent if extent > 0 else 1.0
    view_m = height_m = None
    if lens is not None:
        view_m = width * INDEX_MM * BOX_PER_INDEX / (corner * 1000)
        height_m = camera_height(view_m, lens.fov_deg)

    def out(
        verdict: Verdict, factor: float = 1.0, move: float | None = None, wide_m: float | None = None
    ) -> Placement:
        """The placement with this verdict; ``move`` multiplies the camera's height (for the target)."""
        target = None if height_m is None or move is None else height_m * move
        return Placement(
            verdict,
            width,
            height,
            corner,
            model,
            readings,
            factor,
            room,
            lens,
            view_m,
            height_m,
            target,
            wide_m,
        )

    if all(s.sure for s in seats):
        return out(Verdict.FINE)
    doubtful = [c for c in cards if c.uncertain]
    missing = any(not s.read for s in seats)
    # A card cut by the border explains a seat with no card (it may lie further out) or a card in doubt.
    if any(_at_edge(b, width, height) for c in (cards if missing else doubtful) for b in c.boxes):
        factor = RAISE_STEP
        wide_m = None
        if lens is not None and lens != MODULE3_WIDE and view_m is not None:
            wide_m = camera_height(view_m * factor, MODULE3_WIDE.fov_deg)
        too_high = height_m is not None and height_m * factor > STAND_M and wide_m is not None
        return out(Verdict.WIDE if too_high else Verdict.RAISE, factor, factor, wide_m)
    # The corners of the seats in trouble (all of them when a seat has none: its cards may have been lost).
    troubled = [c for c, o in zip(cards, owners, strict=True) if missing or seats[o].doubtful]
    small = statistics.median(card_corner_px(c) for c in troubled) * imgsz / max(width, height)
    if small < GOOD_MODEL_PX:
        need = GOOD_MODEL_PX / small
        if need <= room:
            return out(Verdict.LOWER, need, 1 / need)
        if room > 1 and small * room >= MIN_MODEL_PX:
            return out(Verdict.LOWER, room, 1 / room)
        return out(Verdict.CROWDED, need)
    if missing:
        return out(Verdict.MISSING)
    return out(Verdict.UNSURE)
