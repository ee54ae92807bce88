"""How readable the held-out truth is, and how a reading fares by readability.

:mod:`models.training.data.synth` records, for every labelled corner index, the share of it in view and its
height and
width in pixels along the card, and for every photo what the camera did to it (low resolution, Gaussian or
motion blur, noise, JPEG quality); see :func:`models.training.data.scenes.render_scene`. This module splits a
reading's
results by those records, so that a miss can be told from a card nobody could read:

* each card's recall (read or not) by the height of its largest labelled corner, by how many of its corners
  are labelled, and by the share in view of its best one;
* each photo's exact-hand result by what the camera did, and by its smallest card (the card whose largest
  corner is smallest);
* the exact-hand rate of the *clear* photos (no low resolution, no motion blur, Gaussian blur under
  :data:`CLEAR_BLUR` px, every card with a corner at least :data:`CLEAR_HEIGHT` px tall and
  :data:`CLEAR_VISIBLE` in view) against the rest.

Always report the breakdown beside the full measure, never instead of it: the target is the full measure.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

HEIGHT_BINS = (0.0, 14.0, 18.0, 22.0, 28.0, 40.0)  # a corner index's height in pixels: [0, 14), [14, 18) ...
VISIBLE_BINS = (0.0, 0.8, 0.95)  # the share of the best corner in view: [0.7, 0.8), [0.8, 0.95), [0.95, 1]
CLEAR_HEIGHT = 22.0
CLEAR_VISIBLE = 0.95
CLEAR_BLUR = 0.9


@dataclass
class Tally:
    """``hit`` of ``total`` (cards read, or photos read exactly)."""

    hit: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.hit += ok
        self.total += 1

    @property
    def rate(self) -> float | None:
        return self.hit / self.total if self.total else None


@dataclass(frozen=True)
class CardView:
    """What the photo shows of one card: its largest labelled corner's height (px) and share in view, and
    how many of its corners are labelled."""

    height: float
    visible: float
    corners: int


@dataclass
class Breakdown:
    """One reading of the held-out photos, split by readability (see the module's docstring)."""

    cards_by_height: dict[str, Tally] = field(default_factory=dict)
    cards_by_corners: dict[str, Tally] = field(default_factory=dict)
    cards_by_visible: dict[str, Tally] = field(default_factory=dict)
    photos_by_camera: dict[str, Tally] = field(default_factory=dict)
    photos_by_smallest: dict[str, Tally] = field(default_factory=dict)
    clear: Tally = field(default_factory=Tally)
    rest: Tally = field(default_factory=Tally)


def _bin(value: float, edges: Sequence[float], unit: str = "") -> str:
    """The label of ``value``'s bin among ``edges`` (each bin from one edge up to the next; below the first
    edge counts in the first bin)."""
    i = max(0, bisect_right(edges, value) - 1)
    if i == len(edges) - 1:
        return f">= {edges[i]:g}{unit}"
    return f"< {edges[1]:g}{unit}" if i == 0 else f"{edges[i]:g}-{edges[i + 1]:g}{unit}"


def height_bin(height: float) -> str:
    """The label of a corner height's bin (pixels), as the report's rows name it."""
    return _bin(height, HEIGHT_BINS, " px")


def height_bins() -> list[str]:
    """The height bins' labels, smallest first (the report's row order)."""
    return [height_bin(lo) for lo in HEIGHT_BINS]


def card_views(row: dict[str, Any]) -> dict[str, CardView]:
    """Each card of a truth row with a labelled corner, from its ``corners`` record."""
    best: dict[str, CardView] = {}
    for c in row["corners"]:
        code, h, vis = str(c["code"]), float(c["h"]), float(c["visible"])
        old = best.get(code)
        if old is None or h > old.height:
            best[code] = CardView(h, vis, old.corners + 1 if old else 1)
        else:
            best[code] = replace(old, corners=old.corners + 1)
    return best


def camera_class(cam: dict[str, Any]) -> str:
    """What the camera did to a photo, the worst first: low resolution, motion blur, Gaussian blur."""
    if float(cam.get("lowres", 1.0)) < 1.0:
        return "low resolution"
    if int(cam.get("motion", 0)) > 0:
        return "motion blur"
    blur = float(cam.get("blur", 0.0))
    if blur >= CLEAR_BLUR:
        return f"Gaussian blur >= {CLEAR_BLUR:g} px"
    if blur > 0:
        return f"Gaussian blur < {CLEAR_BLUR:g} px"
    return "sharp"


CAMERA_CLASSES = (
    "sharp",
    f"Gaussian blur < {CLEAR_BLUR:g} px",
    f"Gaussian blur >= {CLEAR_BLUR:g} px",
    "motion blur",
    "low resolution",
)


def is_clear(views: dict[str, CardView], cam: dict[str, Any]) -> bool:
    """A photo a person would read at a glance: see the module's docstring."""
    sharp = camera_class(cam) in CAMERA_CLASSES[:2]
    return sharp and all(v.height >= CLEAR_HEIGHT and v.visible >= CLEAR_VISIBLE for v in views.values())


def has_records(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the truth rows carry the readability records (data drawn before them do not)."""
    return bool(rows) and all("corners" in r and "camera" in r for r in rows)


def breakdown(rows: Sequence[dict[str, Any]], reads: Sequence[set[str]]) -> Breakdown:
    """Split a reading (the set of cards read per photo, in ``rows``' order) by readability."""
    if not has_records(rows):
        raise ValueError(
            "the truth rows carry no readability records (corners, camera): redraw the data with "
            "today's python -m models.training.data.synth"
        )
    if len(rows) != len(reads):
        raise ValueError(f"{len(rows)} truth rows but {len(reads)} readings")
    out = Breakdown()
    out.cards_by_height = {b: Tally() for b in height_bins()}
    out.cards_by_corners = {k: Tally() for k in ("1", "2", "3+")}
    out.cards_by_visible = {_bin(v, VISIBLE_BINS): Tally() for v in VISIBLE_BINS}
    out.photos_by_camera = {k: Tally() for k in CAMERA_CLASSES}
    out.photos_by_smallest = {b: Tally() for b in [*height_bins(), "no cards"]}
    for row, got in zip(rows, reads, strict=True):
        views = card_views(row)
        for code, v in views.items():
            hit = code in got
            out.cards_by_height[height_bin(v.height)].add(hit)
            out.cards_by_corners[str(v.corners) if v.corners < 3 else "3+"].add(hit)
            out.cards_by_visible[_bin(v.visible, VISIBLE_BINS)].add(hit)
        exact = got == set(row["cards"])
        out.photos_by_camera[camera_class(row["camera"])].add(exact)
        smallest = min((v.height for v in views.values()), default=None)
        out.photos_by_smallest["no cards" if smallest is None else height_bin(smallest)].add(exact)
        (out.clear if is_clear(views, row["camera"]) else out.rest).add(exact)
    return out


def _cell(t: Tally) -> str:
    return "" if not t.total else f"{t.rate:.3f} ({t.hit}/{t.total})"


def render(readings: dict[str, Breakdown]) -> list[str]:
    """Markdown lines: one table per split, a column per reading (e.g. one pass, kiosk)."""
    names = list(readings)
    first = readings[names[0]]
    head = "| " + " | ".join(names) + " |"
    rule = "|---" * (len(names) + 1) + "|"
    lines = [
        "### By readability (the generator's records; beside the full measure, not instead of it)",
        "",
        f"Clear photos (no low resolution or motion blur, Gaussian blur under {CLEAR_BLUR:g} px, every card "
        f"with a corner at least {CLEAR_HEIGHT:g} px tall and {CLEAR_VISIBLE:g} in view), exact-hand rate: "
        + "; ".join(f"{n} {_cell(r.clear)}, the other photos {_cell(r.rest)}" for n, r in readings.items())
        + ".",
        "",
    ]
    tables: list[tuple[str, str]] = [
        ("cards_by_height", "card recall by its largest corner's height"),
        ("cards_by_corners", "card recall by its labelled corners"),
        ("cards_by_visible", "card recall by its largest corner's share in view"),
        ("photos_by_smallest", "exact-hand rate by the photo's smallest card (its largest corner)"),
        ("photos_by_camera", "exact-hand rate by what the camera did"),
    ]
    for attr, title in tables:
        lines += [f"| {title} " + head, rule]
        for key, t in getattr(first, attr).items():
            if not t.total:
                continue
            cells = " | ".join(_cell(getattr(readings[n], attr)[key]) for n in names)
            lines.append(f"| {key} | {cells} |")
        lines.append("")
    return lines
