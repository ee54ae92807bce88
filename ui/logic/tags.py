"""Where to put the name tags over a scan photo so that none hides another (no Kivy: plain rectangles)."""

from __future__ import annotations

from collections.abc import Sequence

Rect = tuple[float, float, float, float]  # x, y, width, height (screen units, y up)


def _overlap(a: Rect, b: Rect, gap: float) -> bool:
    return (
        a[0] < b[0] + b[2] + gap
        and b[0] < a[0] + a[2] + gap
        and a[1] < b[1] + b[3] + gap
        and b[1] < a[1] + a[3] + gap
    )


def _clamp(rect: Rect, bounds: Rect) -> Rect:
    x, y, w, h = rect
    bx, by, bw, bh = bounds
    x = min(max(x, bx), max(bx, bx + bw - w))
    y = min(max(y, by), max(by, by + bh - h))
    return (x, y, w, h)


def spread_tags(tags: Sequence[Rect], bounds: Rect, gap: float = 2.0) -> list[Rect]:
    """Move tags (wanted positions, in order) inside ``bounds`` so that they do not overlap.

    Each tag keeps its wanted place when it is free; otherwise it takes the nearest free place straight
    above or below (then, when the photo is too short for a column of tags, beside) the tags already
    placed. Returns the rectangles in the order given.
    """
    placed: list[Rect] = []
    for wanted in tags:
        start = _clamp(wanted, bounds)
        x, y, w, h = start
        candidates = [start]
        for other in placed:
            ox, oy, ow, oh = other
            candidates += [
                _clamp((x, oy + oh + gap, w, h), bounds),
                _clamp((x, oy - h - gap, w, h), bounds),
                _clamp((ox + ow + gap, y, w, h), bounds),
                _clamp((ox - w - gap, y, w, h), bounds),
            ]
        free = [c for c in candidates if not any(_overlap(c, p, gap) for p in placed)]
        # nowhere free (more tags than room): keep the wanted place
        placed.append(min(free, key=lambda c: (c[0] - x) ** 2 + (c[1] - y) ** 2) if free else start)
    return placed
