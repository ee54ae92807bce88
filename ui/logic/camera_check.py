"""The camera check, as plain Python: is the camera hanging right over the table? No Kivy here; the screen
(:mod:`ui.screens.camera_check`) only draws this state.

The players see the live view with the table's outline and one dot per seat, lay one card face up at each
seat and tap Check. The photo is read as a scan reads it, each card is given to the seat it lies in front of
(:mod:`vision.table.seats`), and :func:`vision.table.placement.check_placement` says from what the reading
did (the cards read at each seat, their doubt, a card cut at the photo's border) what to do: nothing ("All
good") when every seat was read surely, else lower or raise the camera, use the Wide module, or see to the
light. The players read seats and cards; the sizes in pixels are the technician's (:func:`numbers`).
The kiosk opens the check once on its first start (the record remembers that it was done or skipped,
:func:`needs_check`); Settings opens it again at any time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ui.i18n import _, ngettext, num
from vision.table.placement import (
    GOOD_MODEL_PX,
    MODULE3_WIDE,
    Lens,
    Placement,
    Verdict,
    check_placement,
    lens_for,
)
from vision.table.seats import SeatMap, layout

CHECK_SETTING = "camera_check"
"""The record's setting: the last check's outcome as JSON (``{"verdict": ..., "corner_px": ...}``), or
``{"verdict": "skipped"}``; absent until the check has been done or skipped once."""
MIN_PLAYERS, MAX_PLAYERS = 2, 6
OUTLINE = 1.3
"""The table's edge drawn round the seats: this many times the seats' distance from the centre."""


def needs_check(store: Any) -> bool:
    """Whether the kiosk has never had its camera checked (nor the check skipped): first start."""
    return store.setting(CHECK_SETTING) is None


def opens_at_start(store: Any, language: str | None) -> bool:
    """Whether the kiosk opens the camera check as it starts: on first start, once the players have
    chosen their language (until then the home screen offers the languages), and never again once the
    check was done or skipped."""
    return language is not None and needs_check(store)


def last_check(store: Any) -> dict[str, Any] | None:
    """The last check's record, or None (never done, or unreadable)."""
    raw = store.setting(CHECK_SETTING)
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def last_check_line(store: Any) -> str:
    """The last check, for the technician's page (as the system gives it, untranslated, like the page's
    other values): when, the verdict, the corners' size in the photo and the camera; "" when never done."""
    data = last_check(store)
    if data is None:
        return ""
    line = f"camera check {data.get('when', '?')}: {data.get('verdict', '?')}"
    size = data.get("size")
    if isinstance(data.get("corner_px"), int | float) and isinstance(size, list) and len(size) == 2:
        line += f", corners {data['corner_px']:g} px in the {size[0]}x{size[1]} photo"
    if data.get("camera"):
        line += f" ({data['camera']})"
    return line


def remember(store: Any, placement: Placement | None, camera: str = "") -> None:
    """Keep the check's outcome in the record (None: the players skipped it)."""
    if placement is None:
        data: dict[str, Any] = {"verdict": "skipped"}
    else:
        data = {
            "verdict": str(placement.verdict),
            "corner_px": None if placement.corner_px is None else round(placement.corner_px, 1),
            "size": [placement.width, placement.height],
            "camera": camera,
        }
    data["when"] = time.strftime("%Y-%m-%d %H:%M")
    store.set_setting(CHECK_SETTING, json.dumps(data))


def lens_of(camera: Any) -> Lens | None:
    """The camera module behind a camera, when it says (a Pi camera's sensor model), else None."""
    return lens_for(getattr(camera, "model", None))


@dataclass(frozen=True)
class SeatLine:
    """One seat's line in the result: its number, colour index, the words, and whether it is fine."""

    seat: int
    text: str
    ok: bool


@dataclass(frozen=True)
class CheckView:
    """What the screen shows now: the headline (what to do), a detail line (the numbers), the seats' lines,
    and the state (``live``: the camera's view, waiting for Check; ``reading``; ``done``; ``failed``)."""

    state: str
    headline: str
    detail: str
    seats: tuple[SeatLine, ...]
    good: bool


class CameraCheck:
    """The camera check screen's state.

    ``capture()`` takes a photo with the kiosk's camera (raises on a camera that fails); ``detector()``
    gives the loaded card detector, or None without a model; ``camera()`` the open camera (its lens, when it
    says). ``players`` seats are laid round a round table with the kiosk on the near side, as the seats
    screen's default layout, unless ``seats`` (the kiosk's own for the night) are given.
    """

    def __init__(
        self,
        capture: Callable[[], Any],
        detector: Callable[[], Any],
        camera: Callable[[], Any] = lambda: None,
        players: int = 4,
        seats: SeatMap | None = None,
    ) -> None:
        self.capture = capture
        self.detector = detector
        self.camera = camera
        self.players = max(MIN_PLAYERS, min(MAX_PLAYERS, players))
        self.given_seats = seats
        self.state = "live"
        self.error = ""
        self.placement: Placement | None = None
        self.image: Any = None  # the photo checked (BGR), shown with its cards
        self.cards: tuple[Any, ...] = ()  # the cards read in it (vision.base.types.DetectedCard)

    # -- the seats ---------------------------------------------------------------------------------------
    @property
    def seat_map(self) -> SeatMap:
        if self.given_seats is not None and len(self.given_seats) == self.players:
            return self.given_seats
        return layout(self.players, "round", "bottom")

    def more(self) -> None:
        self.players = min(MAX_PLAYERS, self.players + 1)
        self.again()

    def fewer(self) -> None:
        self.players = max(MIN_PLAYERS, self.players - 1)
        self.again()

    def outline(self) -> tuple[float, float, float, float]:
        """The table's edge drawn on the live view: an ellipse's bounding box (fractions of the photo,
        x0, y0, x1, y1) ``OUTLINE`` times the seats' reach from the centre, kept inside the photo."""
        seats = self.seat_map
        cx, cy = seats.centre
        rx = max(abs(x - cx) for x, _ in seats.seats) * OUTLINE
        ry = max(abs(y - cy) for _, y in seats.seats) * OUTLINE
        rx, ry = max(rx, 0.1), max(ry, 0.1)
        return max(0.0, cx - rx), max(0.0, cy - ry), min(1.0, cx + rx), min(1.0, cy + ry)

    # -- the check ---------------------------------------------------------------------------------------
    def again(self) -> None:
        """Back to the live view (the players moved the camera or the cards)."""
        self.state, self.error, self.placement, self.image, self.cards = "live", "", None, None, ()

    def run(self) -> Placement | None:
        """Take a photo, read it and judge the camera's place (call off the UI thread). A camera that gives
        no photo, or no card model, leaves ``state`` "failed" and ``error`` saying what to do."""
        from vision.pipeline import read_cards

        self.state, self.error = "reading", ""
        try:
            image = self.capture()
        except Exception as exc:  # noqa: BLE001 - a camera can fail in any way; the players may skip
            self.state = "failed"
            self.error = _("No photo from the camera: {reason} Check its cable, or skip the check.").format(
                reason=_sentence(exc)
            )
            return None
        detector = self.detector()
        if detector is None:
            self.state, self.image = "failed", image
            self.error = _(
                "No card model, so the photo cannot be read. tabletally doctor says how to fix it."
            )
            return None
        try:
            reading = read_cards(image, detector)
        except Exception as exc:  # noqa: BLE001 - a blank or unreadable photo: say so, keep the view
            self.state, self.image = "failed", image
            self.error = _("Could not read the photo: {reason}").format(reason=_sentence(exc))
            return None
        h, w = image.shape[:2]
        imgsz = int(getattr(detector, "imgsz", 576) or 576)
        self.placement = check_placement(reading.cards, w, h, self.seat_map, imgsz, lens_of(self.camera()))
        self.image, self.cards, self.state = image, tuple(reading.cards), "done"
        return self.placement

    def seat_of_cards(self) -> list[int]:
        """The seat each card read was given to (for drawing it in the seat's colour)."""
        from vision.base.types import box_size
        from vision.table.seats import assign_to_seats

        if self.placement is None or not self.cards:
            return []
        seats = self.seat_map
        boxes = [max(c.boxes, key=box_size) for c in self.cards]
        near = assign_to_seats(
            boxes, SeatMap(seats.seats, seats.centre, 0.0), self.placement.width, self.placement.height
        )
        return [0 if s is None else s for s in near]

    # -- what the screen says ----------------------------------------------------------------------------
    def view(self) -> CheckView:
        if self.state == "live":
            return CheckView("live", _("Lay one card face up at each seat, then tap Check."), "", (), True)
        if self.state == "reading":
            return CheckView("reading", _("Reading the photo..."), "", (), True)
        if self.state == "failed" or self.placement is None:
            return CheckView("failed", self.error, "", (), False)
        p = self.placement
        return CheckView("done", advice(p), reading_line(p), seat_lines(p), p.verdict == Verdict.FINE)


def _sentence(exc: BaseException) -> str:
    from ui.logic.rule_messages import explain_photo

    text = explain_photo(str(exc).strip().removeprefix("photo: ")) or type(exc).__name__
    return text if text.endswith((".", "?", "!", "\u0964")) else text + "."  # \u0964: the danda (ne, hi)


def _m(value: float) -> str:
    return num(f"{value:.2f}")


def seat_lines(p: Placement) -> tuple[SeatLine, ...]:
    """One line per seat in the players' words: what the reading made of the cards laid there."""
    lines = []
    for s in p.seats:
        n = num(s.seat + 1)
        if not s.read:
            lines.append(SeatLine(s.seat, _("Seat {n}: no card read").format(n=n), False))
        elif s.cut and not s.sure:
            lines.append(SeatLine(s.seat, _("Seat {n}: a card is cut off at the edge").format(n=n), False))
        elif s.doubtful:
            text = ngettext(
                "Seat {n}: {count} card read, not surely",
                "Seat {n}: {count} cards read, not all surely",
                s.cards,
            ).format(n=n, count=num(s.cards))
            lines.append(SeatLine(s.seat, text, False))
        else:
            text = ngettext("Seat {n}: {count} card read", "Seat {n}: {count} cards read", s.cards).format(
                n=n, count=num(s.cards)
            )
            lines.append(SeatLine(s.seat, text, True))
    return tuple(lines)


def reading_line(p: Placement) -> str:
    """How the reading went, in one line of the players' words: seats read and cards in doubt."""
    read = sum(1 for s in p.seats if s.read)
    doubt = sum(s.doubtful for s in p.seats)
    seats = _("Cards read at {read} of {seats} seats.").format(read=num(read), seats=num(len(p.seats)))
    if not doubt:
        return seats + " " + _("No card in doubt.")
    return (
        seats
        + " "
        + ngettext("{n} card read not surely.", "{n} cards read not surely.", doubt).format(n=num(doubt))
    )


def numbers(p: Placement) -> str:
    """The numbers behind the advice, in one line, for the technician (sizes in pixels)."""
    if p.corner_px is None or p.model_px is None:
        return _("Photo {width}x{height}: no card read.").format(width=num(p.width), height=num(p.height))
    text = _(
        "Corners {px} px in the {width}x{height} photo, {model} px in the model's view of it: every card "
        "is read from {good} px."
    ).format(
        px=num(round(p.corner_px)),
        width=num(p.width),
        height=num(p.height),
        model=num(f"{p.model_px:.1f}"),
        good=num(f"{GOOD_MODEL_PX:g}"),
    )
    if p.height_m is not None and p.lens is not None:
        text += " " + _("The camera hangs about {height} m above the table.").format(height=_m(p.height_m))
    return text


def advice(p: Placement) -> str:
    """What to do, in plain words."""
    v = p.verdict
    if v == Verdict.FINE:
        return _("All good: every seat is in view and the cards read well.")
    if v == Verdict.NO_CARDS:
        return _("No card was read. Lay one card face up at each seat and tap Check.")
    if v == Verdict.UNSURE:
        seats = ", ".join(num(s + 1) for s in p.doubtful)
        return ngettext(
            "The camera is placed right, but a card at seat {seats} was read unsure. Keep glare and shadow "
            "off the cards, lay them flat, and check again.",
            "The camera is placed right, but cards at seats {seats} were read unsure. Keep glare and shadow "
            "off the cards, lay them flat, and check again.",
            len(p.doubtful),
        ).format(seats=seats)
    if v == Verdict.MISSING:
        seats = ", ".join(num(s + 1) for s in p.missing)
        return ngettext(
            "No card was read at seat {seats}. Lay a card there face up, in view, and check again.",
            "No card was read at seats {seats}. Lay a card there face up, in view, and check again.",
            len(p.missing),
        ).format(seats=seats)
    if v == Verdict.LOWER:
        if p.target_m is not None:
            return _("The corners look small: lower the camera to about {height} m above the table.").format(
                height=_m(p.target_m)
            )
        share = round(100 * (1 - 1 / p.factor))
        return _("The corners look small: lower the camera by about {share} %.").format(share=num(share))
    if v == Verdict.CROWDED:
        return _(
            "The corners are too small, and the cards already reach the edge of the view. Lay the cards "
            "nearer the middle of the table."
        )
    if v == Verdict.WIDE:
        return _(
            "A card is cut off at the edge. This camera would have to hang about {height} m up: use the "
            "{module}, which sees the table from about {wide} m."
        ).format(
            height=_m(p.target_m or 0.0),
            module=MODULE3_WIDE.name,
            wide=_m(p.wide_m or 0.0),
        )
    text = _("A card is cut off at the edge: raise the camera a little, then check again.")
    if p.target_m is not None:
        text = _("A card is cut off at the edge: raise the camera to about {height} m.").format(
            height=_m(p.target_m)
        )
    if p.wide_m is not None:
        text += " " + _(
            "If it cannot hang that high, the {module} sees the table from about {wide} m."
        ).format(module=MODULE3_WIDE.name, wide=_m(p.wide_m))
    return text
