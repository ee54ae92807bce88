"""Find the printed corner index (rank + suit pip) of a rendered card face.

The index is found on each number card (2-10, whose corner region holds nothing else) as the group of ink
connected components nearest the top-left corner: the rank glyph(s) and the pip under them. The deck's index
box is the robust union of those per-card boxes (index printing is the same on every card of a deck), so court
cards, aces and jokers, whose picture can touch the index, get the deck box too. Boxes are stored as fractions
of the face's width and height; the bottom-right index is the same box turned by 180 degrees.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.training.classes import JOKER
from scorer.cards import CARD_CODES

REGION_W = 0.30  # the corner region searched, as a fraction of the face width ...
REGION_H = 0.36  # ... and height
MAX_INDEX_W = 0.24  # an index is never wider than this fraction of the face width ...
MAX_INDEX_H = 0.32  # ... nor taller than this fraction of the face height
NUMBER_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10")


class CornerError(ValueError):
    """No plausible corner index was found on a face."""


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in fractions of the face size (x0, y0 top-left; x1, y1 bottom-right)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def rotated180(self) -> Box:
        return Box(1 - self.x1, 1 - self.y1, 1 - self.x0, 1 - self.y0)

    def as_list(self) -> list[float]:
        return [round(self.x0, 4), round(self.y0, 4), round(self.x1, 4), round(self.y1, 4)]


def _ink_components(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stats and mask of the ink components in the top-left region of an RGBA face."""
    h, w = face.shape[:2]
    rh, rw = int(h * REGION_H), int(w * REGION_W)
    region = face[:rh, :rw]
    alpha = face[:, :, 3] > 200
    inner = cv2.erode(alpha.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=max(2, w // 80))[:rh, :rw]
    rgb = region[:, :, :3].astype(np.int16)
    paper = np.median(rgb[inner > 0], axis=0)
    diff = np.abs(rgb - paper).max(axis=2)
    ink = ((diff > 70) & (inner > 0)).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    return stats[1:], labels


def _is_line(cw: int, ch: int, w: int, h: int) -> bool:
    """Frame and border strokes: long and thin."""
    return (cw > 6 * ch and cw > 0.1 * w) or (ch > 6 * cw and ch > 0.1 * h)


def find_index_box(face: np.ndarray, max_w: float = MAX_INDEX_W, max_h: float = MAX_INDEX_H) -> Box:
    """The corner-index box of one face (RGBA array), from its ink components."""
    if face.ndim != 3 or face.shape[2] != 4:
        raise CornerError(f"expected an RGBA face image, got shape {face.shape}")
    h, w = face.shape[:2]
    stats, _ = _ink_components(face)
    rw, rh = w * REGION_W, h * REGION_H
    comps = [
        (int(x), int(y), int(x + cw), int(y + ch))
        for x, y, cw, ch, area in stats
        if area >= max(6, (w * h) // 20000) and cw < 0.8 * rw and ch < 0.8 * rh and not _is_line(cw, ch, w, h)
    ]
    if not comps:
        raise CornerError("no ink in the corner region")
    seed = min(comps, key=lambda c: c[0] + c[1])
    box = list(seed)
    gap = 0.035 * h
    changed = True
    used = {seed}
    while changed:
        changed = False
        for c in comps:
            if c in used:
                continue
            near = (
                c[0] <= box[2] + gap
                and c[2] >= box[0] - gap
                and c[1] <= box[3] + gap
                and c[3] >= box[1] - gap
            )
            if not near:
                continue
            cand = [min(box[0], c[0]), min(box[1], c[1]), max(box[2], c[2]), max(box[3], c[3])]
            if cand[2] - cand[0] > max_w * w or cand[3] - cand[1] > max_h * h:
                continue
            box, changed = cand, True
            used.add(c)
    return Box(box[0] / w, box[1] / h, box[2] / w, box[3] / h)


def deck_index_box(boxes: list[Box]) -> Box:
    """Robust union of the per-card boxes of a deck's number cards."""
    if len(boxes) < 4:
        raise CornerError(f"only {len(boxes)} number cards gave an index box; need at least 4")
    arr = np.array([[b.x0, b.y0, b.x1, b.y1] for b in boxes])
    # the rank glyph of "10" is the widest, "1" glyphs are narrow: take generous percentiles
    x0, y0 = np.percentile(arr[:, 0], 20), np.percentile(arr[:, 1], 20)
    x1, y1 = np.percentile(arr[:, 2], 85), np.percentile(arr[:, 3], 80)
    pad_x, pad_y = 0.012, 0.008
    return Box(max(0.0, x0 - pad_x), max(0.0, y0 - pad_y), min(1.0, x1 + pad_x), min(1.0, y1 + pad_y))


def measure_deck_corners(deck_dir: Path) -> dict[str, object]:
    """Measure a rendered deck: the deck index box and every number card's own box (for inspection)."""
    per_card: dict[str, list[float]] = {}
    boxes: list[Box] = []
    for code in CARD_CODES:
        if code[:-1] not in NUMBER_RANKS:
            continue
        face = cv2.imread(str(deck_dir / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        if face is None:
            continue
        try:
            b = find_index_box(face)
        except CornerError:
            continue
        boxes.append(b)
        per_card[code] = b.as_list()
    box = deck_index_box(boxes)
    result: dict[str, object] = {"index_box": box.as_list(), "cards": per_card}
    joker = cv2.imread(str(deck_dir / f"{JOKER}.png"), cv2.IMREAD_UNCHANGED)
    if joker is not None:
        try:
            jb = find_index_box(joker, max_w=0.2, max_h=0.42)
        except CornerError:
            jb = box
        # a joker corner is a star, a hat or the word JOKER: never smaller than the deck's index
        jb = Box(min(jb.x0, box.x0), min(jb.y0, box.y0), max(jb.x1, box.x1), max(jb.y1, box.y1))
        result["joker_box"] = jb.as_list()
    return result


MARK_REPEAT_SCORE = 0.6  # correlation above which a corner mark counts as printed again in the other corners


def mirrored(box: Box) -> Box:
    """The same box at the top-right corner (left and right swapped)."""
    return Box(1 - box.x1, box.y0, 1 - box.x0, box.y1)


def _paper_gray(face: np.ndarray) -> np.ndarray:
    """The face as grey levels with transparent pixels turned white."""
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    return np.asarray(
        (face[:, :, :3].astype(np.float32) * alpha + 255 * (1 - alpha)).mean(axis=2), np.float32
    )


def mark_repeat_score(face: np.ndarray, box: Box) -> float:
    """How surely the mark in ``box`` (top-left) is printed again at the top-right corner, in [-1, 1].

    The best normalised correlation of the mark, as printed or mirrored, within a small margin around the
    mirrored box. Some jokers print their star in all four corners while the deck's other cards print the
    index in two (ais-plastic, ais-anglo_modern): their score is near 1, any other joker's far lower.
    """
    if face.ndim != 3 or face.shape[2] != 4:
        raise CornerError(f"expected an RGBA face image, got shape {face.shape}")
    h, w = face.shape[:2]
    g = _paper_gray(face)
    x0, y0 = int(box.x0 * w), int(box.y0 * h)
    x1, y1 = int(np.ceil(box.x1 * w)), int(np.ceil(box.y1 * h))
    mark = g[y0:y1, x0:x1]
    if mark.size == 0 or float(mark.std()) < 1.0:
        return 0.0
    pad = max(4, w // 40)
    m = mirrored(box)
    mx0, mx1 = int(m.x0 * w), int(np.ceil(m.x1 * w))
    region = g[max(0, y0 - pad) : min(h, y1 + pad), max(0, mx0 - pad) : min(w, mx1 + pad)]
    if region.shape[0] < mark.shape[0] or region.shape[1] < mark.shape[1]:
        return 0.0
    scores = [
        float(cv2.matchTemplate(region, np.ascontiguousarray(t), cv2.TM_CCOEFF_NORMED).max())
        for t in (mark, mark[:, ::-1])
    ]
    return max(scores)


def mark_in_four_corners(face: np.ndarray, box: Box) -> bool:
    """Whether the face prints the mark of ``box`` in all four corners (see :func:`mark_repeat_score`)."""
    return mark_repeat_score(face, box) >= MARK_REPEAT_SCORE


def load_index_boxes(deck_dir: Path) -> tuple[Box, Box | None]:
    """The deck's index box and its joker's corner box (None when the deck has no joker)."""
    import json

    path = deck_dir / "corners.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CornerError(
            f"no corners.json in {deck_dir}: run python -m models.training.data.faces first"
        ) from exc
    joker = data.get("joker_box")
    return Box(*data["index_box"]), (Box(*joker) if joker else None)
