"""Compose synthetic table photos from the cached card faces, with YOLO labels of the visible corner indices.

A scene is a list of :class:`Placement` (a face, where its centre goes, its height in pixels, its angle),
drawn in order (later cards lie on top). Every face is warped once by (global camera tilt) x (its own
placement). A card-id map records which card is on top at each pixel, so each corner-index quadrilateral
is labelled only when enough of it is visible (:data:`MIN_VISIBLE`); covered corners are dropped.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from models.training.classes import CLASS_INDEX, JOKER
from models.training.data.corners import Box, load_index_boxes, mark_in_four_corners, mirrored
from models.training.data.decks import Deck, Family
from models.training.data.faces import BACK
from models.training.data.textures import Rng, camera, draw_clutter, draw_hand, random_perspective, surface
from scorer.cards import CARD_CODES

MIN_VISIBLE = 0.7  # fraction of a corner-index quadrilateral that must be visible (in frame, uncovered)
MIN_CARD_H = 0.19  # smallest card height in a multi-card scene, as a fraction of the image height
# Share of the scenes (deck draws) that use a procedural deck when the library has both kinds: the SVG
# designs keep the other half of the draws, the many procedural designs add index fonts and layouts.
PROCEDURAL_SHARE = 0.5
# Share of the training scenes with cards (hands, tables, Seep rows, scatters, negatives) in which a player's
# hand reaches in over the cards (models.training.data.textures.draw_hand). The held-out split has none
# unless asked
# (models.training.data.synth --hand-share), so it stays the same photos as before hands existed.
HAND_SHARE = 0.15
# Share of the training scenes whose cards carry a maker's mark: small print (letters, digits) near the two
# corners without an index, as the held-out tigullio-international prints "KDE" beside its court cards. It
# teaches the models that small print in a corner is not an index. Drawn from a generator of its own; the
# held-out split has none unless asked (models.training.data.synth --mark-share).
MARK_SHARE = 0.2
# Share of the training scenes whose jokers print their corner mark in all four corners, as the held-out
# anglo-modern jokers do (of the training designs only ais-plastic's joker does, and the joker is the
# lowest class, its extra corners mostly missed): the index is copied into the two
# corners that lack it and labelled there. In FOUR_DECK_SHARE of those scenes' decks every card prints its
# index in four corners, as four-index decks (and Dondorf) do. Drawn from a generator of its own; the
# held-out split has none unless asked (models.training.data.synth --four-share).
FOUR_SHARE = 0.25
FOUR_DECK_SHARE = 0.3
# Share of the training scenes whose hand, Seep row or close-up is laid a quarter turn from the angle drawn
# for it: half of those groups are drawn within 25 degrees of upright, so indices lying sideways were rarer
# than upright ones and read less surely (Known weaknesses in models/README.md). Whole tables, scatters and
# the upright kind keep their angles. Drawn from a generator of its own; the held-out split has none unless
# asked (models.training.data.synth --turn-share).
TURN_SHARE = 0.4
# Share of the training scenes whose cards are not flat and matte: in those scenes each card is bent
# (BENT_CARD_SHARE: curled into a shallow cylinder across its width or its length, as a well-used card lies,
# shaded by its slope and, when glossy, with a bright streak along the curl) or, flat, reflects a lamp or
# window as a soft white patch (GLOSS_CARD_SHARE); neither covers an index fully, so the labels stay (moved
# with the bend). The real tables' worn and glossy cards that the earlier data lacked (Known weaknesses in
# models/README.md). Drawn from a generator of its own; the held-out split has none unless asked
# (models.training.data.synth --bend-share).
BEND_SHARE = 0.3
BENT_CARD_SHARE = 0.6
GLOSS_CARD_SHARE = 0.35
MAX_GLOSS = 0.6  # the strongest highlight leaves 40 % of the ink's contrast
SEEP_POINT_CARDS = tuple(c for c in CARD_CODES if c.endswith("S")) + ("AH", "AD", "AC", "10D")


class SceneKind(enum.Enum):
    HAND = "hand"
    TABLE = "table"
    SEEP = "seep"
    SCATTER = "scatter"
    CLOSEUP = "closeup"
    SQUASHED = "squashed"
    UPRIGHT = "upright"
    NEGATIVE = "negative"
    DEAL = "deal"  # a whole pack fanned out in an arc (measuring only: not in the training mix)


# The kinds of scene a player's hand may reach into (never the single-card close-ups, crops and uprights).
HAND_KINDS = frozenset(
    {SceneKind.HAND, SceneKind.TABLE, SceneKind.SEEP, SceneKind.SCATTER, SceneKind.NEGATIVE}
)

SCENE_WEIGHTS: dict[SceneKind, float] = {
    SceneKind.HAND: 0.22,
    SceneKind.TABLE: 0.22,
    SceneKind.SEEP: 0.13,
    SceneKind.SCATTER: 0.12,
    SceneKind.CLOSEUP: 0.11,
    SceneKind.SQUASHED: 0.04,
    SceneKind.UPRIGHT: 0.12,
    SceneKind.NEGATIVE: 0.04,
}


@dataclass(frozen=True)
class Face:
    """One rendered face (or back) and its corner-index boxes in face fractions (none for a back)."""

    deck: str
    code: str
    image: np.ndarray
    boxes: tuple[Box, ...]


class FaceLibrary:
    """The cached faces of a set of decks, loaded lazily (one deck at a time)."""

    def __init__(self, faces_dir: Path, decks: tuple[Deck, ...]) -> None:
        if not decks:
            raise ValueError("no decks given to the face library")
        missing = [d.name for d in decks if not (faces_dir / d.name / "corners.json").is_file()]
        if missing:
            raise FileNotFoundError(
                f"faces not rendered for {', '.join(missing)} in {faces_dir}: "
                f"run python -m models.training.data.faces --out {faces_dir}"
            )
        self.faces_dir = faces_dir
        self.decks = decks
        self._cache: dict[str, dict[str, Face]] = {}

    def deck_faces(self, deck: Deck) -> dict[str, Face]:
        if deck.name not in self._cache:
            box, joker_box = load_index_boxes(self.faces_dir / deck.name)
            faces: dict[str, Face] = {}
            for code in (*CARD_CODES, BACK):
                if code == JOKER and not deck.joker_ids:
                    continue
                img = cv2.imread(str(self.faces_dir / deck.name / f"{code}.png"), cv2.IMREAD_UNCHANGED)
                if img is None:
                    continue
                if code == BACK:
                    boxes: tuple[Box, ...] = ()
                else:
                    b = joker_box if code == JOKER and joker_box is not None else box
                    boxes = (b, b.rotated180())
                    # a joker may print its mark in all four corners where the deck's index is in two
                    if deck.four_corners or (code == JOKER and mark_in_four_corners(img, b)):
                        boxes += (mirrored(b), mirrored(b).rotated180())
                faces[code] = Face(deck.name, code, img, boxes)
            self._cache[deck.name] = faces
        return self._cache[deck.name]


@dataclass(frozen=True)
class Placement:
    face: Face
    cx: float
    cy: float
    height: float
    angle: float  # degrees, counter-clockwise as cv2.getRotationMatrix2D
    hand: int = -1  # which hand (group) the card belongs to; -1 for none


@dataclass
class SceneResult:
    image: np.ndarray
    labels: list[tuple[int, float, float, float, float]]  # class, x0, y0, x1, y1 in pixels
    cards: list[str]  # cards with at least one labelled corner, sorted by class index
    hands: list[list[str]] = field(default_factory=list)
    kind: str = ""
    decks: list[str] = field(default_factory=list)
    meta: dict[str, object] = field(default_factory=dict)  # render_scene's readability record


_MARK_WORDS = ("KDE", "USPCC", "No. 808", "POKER", "BRIDGE", "ACE", "2004", "PIATNIK", "MADE IN", "100%")
_MARK_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@dataclass(frozen=True)
class MakersMark:
    """Small print a deck repeats near the two corners that carry no index (see MARK_SHARE)."""

    text: str
    color: tuple[float, float, float]  # BGR
    height: float  # glyph height as a fraction of the face height
    vertical: bool  # reads top to bottom along the card's edge
    courts_only: bool  # printed on the court cards only
    font: int
    thickness: int

    @classmethod
    def draw(cls, rng: Rng) -> MakersMark:
        if rng.random() < 0.5:
            text = str(rng.choice(_MARK_WORDS))
        else:
            text = "".join(rng.choice(list(_MARK_LETTERS), size=int(rng.integers(2, 6))))
        ink = (rng.uniform(0, 90), rng.uniform(0, 90), rng.uniform(0, 90))
        color = ink if rng.random() < 0.6 else ((30.0, 30.0, 190.0) if rng.random() < 0.5 else (120.0,) * 3)
        return cls(
            text=text,
            color=tuple(float(c) for c in color),  # type: ignore[arg-type]
            height=float(rng.uniform(0.018, 0.05)),
            vertical=bool(rng.random() < 0.5),
            courts_only=bool(rng.random() < 0.3),
            font=int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_PLAIN])),
            thickness=int(rng.integers(1, 3)),
        )

    def stamp(self, face: Face) -> Face:
        """A copy of ``face`` with the mark printed near its top-right corner and, turned, its bottom-left.

        Only faces with their index in two corners (two label boxes) are marked; backs, four-corner decks
        and jokers printing their mark in four corners come back as they are, as do number cards when
        the mark is for court cards only. The labels are unchanged: the mark is not an index.
        """
        if len(face.boxes) != 2 or (self.courts_only and face.code[:-1] not in ("J", "Q", "K")):
            return face
        img = face.image.copy()
        fh, fw = img.shape[:2]
        scale = cv2.getFontScaleFromHeight(self.font, max(4, int(self.height * fh)), self.thickness)
        (tw, th), base = cv2.getTextSize(self.text, self.font, scale, self.thickness)
        strip = np.zeros((th + base + 4, tw + 4, 4), np.uint8)
        cv2.putText(
            strip, self.text, (2, th + 2), self.font, scale, (*self.color, 255), self.thickness, cv2.LINE_AA
        )
        if self.vertical:
            strip = cv2.rotate(strip, cv2.ROTATE_90_CLOCKWISE)
        b = mirrored(face.boxes[0])
        sh, sw = strip.shape[:2]
        x = int(min(b.x1 * fw, fw * 0.97) - sw)
        y = int(max(b.y0 * fh, fh * 0.03))
        if x < fw // 2 or y + sh > fh // 2:
            return face  # too long to fit beside the corner
        for patch, (px, py) in ((strip, (x, y)), (strip[::-1, ::-1], (fw - x - sw, fh - y - sh))):
            alpha = patch[:, :, 3:4].astype(np.float32) / 255
            roi = img[py : py + sh, px : px + sw]
            paper = roi[:, :, 3:4] > 0
            mixed = roi[:, :, :3] * (1 - alpha) + patch[:, :, :3] * alpha
            roi[:, :, :3] = np.where(paper, mixed, roi[:, :, :3]).astype(np.uint8)
        return Face(face.deck, face.code, img, face.boxes)


def four_cornered(face: Face) -> Face:
    """A copy of ``face`` that prints its index in all four corners, labelled in all four (FOUR_SHARE).

    The top-left index is copied, as printed, to the top-right corner and its half turn to the bottom-left,
    over whatever the face shows there (within the face's paper). Faces without two index boxes (backs,
    decks and jokers already printing four) and indices reaching past the middle come back as they are.
    """
    if len(face.boxes) != 2:
        return face
    fh, fw = face.image.shape[:2]
    b = face.boxes[0]
    x0, y0 = max(0, int(b.x0 * fw)), max(0, int(b.y0 * fh))
    x1, y1 = min(fw, int(np.ceil(b.x1 * fw))), min(fh, int(np.ceil(b.y1 * fh)))
    if x1 <= x0 or y1 <= y0 or 2 * x1 > fw or 2 * y1 > fh:
        return face
    img = face.image.copy()
    patch = face.image[y0:y1, x0:x1]
    for src, (px, py) in ((patch, (fw - x1, y0)), (patch[::-1, ::-1], (x0, fh - y1))):
        roi = img[py : py + (y1 - y0), px : px + (x1 - x0)]
        keep = (roi[:, :, 3:4] > 0) & (src[:, :, 3:4] > 0)
        roi[:, :, :3] = np.where(keep, src[:, :, :3], roi[:, :, :3])
    m = mirrored(b)
    return Face(face.deck, face.code, img, (*face.boxes, m, m.rotated180()))


def _with_four_corners(rng: Rng, placements: list[Placement]) -> list[Placement]:
    """The placements with their jokers, and in FOUR_DECK_SHARE of the decks every card, in four corners."""
    every: dict[str, bool] = {}
    out = []
    for p in placements:
        if p.face.code == BACK:
            out.append(p)
            continue
        if p.face.deck not in every:
            every[p.face.deck] = bool(rng.random() < FOUR_DECK_SHARE)
        if p.face.code == JOKER or every[p.face.deck]:
            p = replace(p, face=four_cornered(p.face))
        out.append(p)
    return out


def _bend_map(n: int, arc: float) -> np.ndarray:
    """Where each of ``n`` output pixels along a card bent by ``arc`` radians samples the flat face (in
    pixels): seen from above, a length ``n`` curled into a cylinder shortens to ``2 R sin(arc / 2)``
    (R = n / arc), most at the ends. Output pixels past the ends get -1."""
    r = n / arc
    half = r * np.sin(arc / 2)
    x = np.arange(n, dtype=np.float64) + 0.5 - n / 2
    inside = np.abs(x) <= half
    src = np.full(n, -1.0)
    src[inside] = n / 2 + r * np.arcsin(np.clip(x[inside] / r, -1, 1)) - 0.5
    return src.astype(np.float32)


def _bent_coord(v: float, n: int, arc: float) -> float:
    """A face fraction ``v`` along the bent axis, where it lands after :func:`_bend_map` (a fraction)."""
    r = n / arc
    return float(0.5 + r * np.sin((v - 0.5) * n / r) / n)


def bent(
    face: Face, arc: float, across_width: bool, light: float, shade: float, gloss: float, width: float = 0.08
) -> Face:
    """A copy of ``face`` curled by ``arc`` radians into a shallow cylinder, as seen from straight above.

    ``across_width``: the curl runs across the card's width (its long edges stay straight), else across
    its length. The face keeps its size (the projection is narrower, transparent at the ends); the index
    boxes move with it. The surface is shaded by its slope towards ``light`` (radians from overhead, along
    the curl; ``shade`` the strength, 0-1) and, with ``gloss`` > 0, carries a specular streak where the
    slope mirrors the light into the camera, at most ``gloss`` (<= MAX_GLOSS) of the way to white, ``width``
    radians of slope wide.
    """
    img = face.image
    fh, fw = img.shape[:2]
    n = fw if across_width else fh
    src = _bend_map(n, arc)
    if across_width:
        map_x = np.broadcast_to(src[None, :], (fh, fw)).astype(np.float32)
        map_y = np.broadcast_to(np.arange(fh, dtype=np.float32)[:, None], (fh, fw)).astype(np.float32)
    else:
        map_x = np.broadcast_to(np.arange(fw, dtype=np.float32)[None, :], (fh, fw)).astype(np.float32)
        map_y = np.broadcast_to(src[:, None], (fh, fw)).astype(np.float32)
    out = cv2.remap(img, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # the surface's slope at each output pixel: theta = u / R, u the arc length from the middle
    slope = np.where(src >= 0, (src + 0.5 - n / 2) * arc / n, 0.0)
    light_gain = 1 - shade * (1 - np.cos(slope - light))
    spec = min(gloss, MAX_GLOSS) * np.exp(-(((slope - light / 2) / width) ** 2)) if gloss > 0 else 0 * slope
    gain = light_gain[None, :] if across_width else light_gain[:, None]
    white = spec[None, :] if across_width else spec[:, None]
    rgb = out[:, :, :3].astype(np.float32) * gain[..., None]
    rgb = rgb * (1 - white[..., None]) + 255 * white[..., None]
    out[:, :, :3] = np.rint(rgb).clip(0, 255).astype(np.uint8)
    boxes = []
    for b in face.boxes:
        if across_width:
            b = Box(_bent_coord(b.x0, n, arc), b.y0, _bent_coord(b.x1, n, arc), b.y1)
        else:
            b = Box(b.x0, _bent_coord(b.y0, n, arc), b.x1, _bent_coord(b.y1, n, arc))
        boxes.append(b)
    return Face(face.deck, face.code, out, tuple(boxes))


def glossy(face: Face, cx: float, cy: float, rx: float, ry: float, strength: float) -> Face:
    """A copy of a flat ``face`` reflecting a lamp or window: a soft white ellipse centred at (``cx``,
    ``cy``) with radii ``rx``, ``ry`` (face fractions), at most ``strength`` (<= MAX_GLOSS) of the way to
    white, on the card's paper only. The boxes are unchanged."""
    img = face.image.copy()
    fh, fw = img.shape[:2]
    xx = (np.arange(fw, dtype=np.float32) / fw - cx)[None, :] / rx
    yy = (np.arange(fh, dtype=np.float32) / fh - cy)[:, None] / ry
    g = min(strength, MAX_GLOSS) * np.exp(-((xx**2 + yy**2) ** 2))  # flat-topped, soft-edged
    g = g * (img[:, :, 3] > 0)  # the paper only
    rgb = img[:, :, :3].astype(np.float32)
    img[:, :, :3] = np.rint(rgb * (1 - g[..., None]) + 255 * g[..., None]).clip(0, 255).astype(np.uint8)
    return Face(face.deck, face.code, img, face.boxes)


def _with_bends(rng: Rng, placements: list[Placement]) -> list[Placement]:
    """The placements with some cards bent and some flat ones glossy (BEND_SHARE, see there)."""
    light = rng.uniform(-0.5, 0.5)  # one lamp for the whole table
    out = []
    for p in placements:
        r = rng.random()
        if r < BENT_CARD_SHARE:
            arc = rng.uniform(0.25, 1.0)
            gloss = rng.uniform(0.2, MAX_GLOSS) if rng.random() < 0.5 else 0.0
            across, shade, width = bool(rng.random() < 0.6), rng.uniform(0.2, 0.7), rng.uniform(0.04, 0.15)
            face = bent(p.face, arc, across, light, shade, gloss, width)
            p = replace(p, face=face)
        elif r < BENT_CARD_SHARE + GLOSS_CARD_SHARE:
            cx, cy = rng.uniform(0.1, 0.9, 2)
            rx, ry = rng.uniform(0.08, 0.35, 2)
            p = replace(p, face=glossy(p.face, cx, cy, rx, ry, rng.uniform(0.25, MAX_GLOSS)))
        out.append(p)
    return out


def _turned(rng: Rng | None, angle: float) -> float:
    """``angle``, or a quarter turn either way from it when ``rng`` (the scene's turn) is given."""
    if rng is None:
        return angle
    return angle + (90.0 if rng.random() < 0.5 else -90.0)


def _placement_matrix(p: Placement) -> np.ndarray:
    """3x3 matrix from face pixels to layout pixels."""
    fh, fw = p.face.image.shape[:2]
    s = p.height / fh
    m = cv2.getRotationMatrix2D((fw / 2, fh / 2), p.angle, s)
    m[0, 2] += p.cx - fw / 2
    m[1, 2] += p.cy - fh / 2
    return np.vstack([m, [0, 0, 1]])


def _shrunk_face(face: np.ndarray, scale: float) -> tuple[np.ndarray, float]:
    """Pre-shrink a face with area filtering when it will be drawn much smaller (avoids aliasing)."""
    if scale >= 0.6:
        return face, 1.0
    f = min(1.0, scale * 1.3)
    h, w = face.shape[:2]
    small = cv2.resize(face, (max(4, int(w * f)), max(4, int(h * f))), interpolation=cv2.INTER_AREA)
    return small, small.shape[1] / w


def render_scene(
    rng: Rng,
    placements: list[Placement],
    w: int,
    h: int,
    tilt: float,
    clutter: int,
    surface_kind: str | None = None,
    hand_rng: Rng | None = None,
    meta: dict[str, object] | None = None,
) -> tuple[np.ndarray, list[tuple[int, float, float, float, float]], list[str]]:
    """Draw placements on a surface, add clutter and camera effects; return image, labels, visible cards.

    With ``hand_rng``, a player's hand reaches in over the cards, drawn from that generator alone (so the
    rest of the scene is the same with or without it). ``meta``, when given, receives how readable each
    label is (``corners``: per label, in label order, the share of its index in view and the index's height
    and width in pixels along the card) and what the camera did (``camera``, :func:`camera`'s record).
    """
    canvas = surface(rng, h, w, surface_kind).astype(np.float32)
    owner = np.full((h, w), -1, np.int32)
    persp = random_perspective(rng, w, h, tilt) if tilt > 0 else np.eye(3)
    mats: list[np.ndarray] = []
    light = rng.uniform(-1, 1, 2) * 6  # shadow direction and length (pixels)
    for k, p in enumerate(placements):
        full = persp @ _placement_matrix(p)
        mats.append(full)
        fh, fw = p.face.image.shape[:2]
        corners = cv2.perspectiveTransform(np.float32([[[0, 0], [fw, 0], [fw, fh], [0, fh]]]), full)[0]
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 8
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 8
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 <= x0 or y1 <= y0:
            continue
        img, f = _shrunk_face(p.face.image, p.height / fh)
        scale_back = np.diag([1 / f, 1 / f, 1.0])
        m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ full @ scale_back
        warped = cv2.warpPerspective(
            img, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0)
        )
        alpha = warped[:, :, 3:4].astype(np.float32) / 255
        roi = canvas[y0:y1, x0:x1]
        # soft drop shadow under the card
        sh = cv2.GaussianBlur(alpha[:, :, 0], (0, 0), 2.5)
        sh = np.roll(sh, (int(light[1]), int(light[0])), axis=(0, 1))
        roi *= 1 - 0.35 * sh[..., None]
        tint = rng.normal(1, 0.03, 3).astype(np.float32) * rng.uniform(0.88, 1.04)
        roi[:] = roi * (1 - alpha) + warped[:, :, :3].astype(np.float32) * tint * alpha
        owner[y0:y1, x0:x1][alpha[:, :, 0] > 0.5] = k
    hand = hand_rng if placements else None  # a hand reaches in only over cards
    if clutter or hand is not None:
        canvas8 = canvas.clip(0, 255).astype(np.uint8)
        for _ in range(clutter):
            draw_clutter(rng, canvas8, owner, -2)
        if hand is not None:
            draw_hand(hand, canvas8, owner, -2, float(np.median([p.height for p in placements])))
        canvas = canvas8.astype(np.float32)
    labels: list[tuple[int, float, float, float, float]] = []
    visible: set[str] = set()
    corner_meta: list[dict[str, object]] = []
    for k, p in enumerate(placements):
        if k >= len(mats) or not p.face.boxes:
            continue
        fh, fw = p.face.image.shape[:2]
        for b in p.face.boxes:
            quad = np.float32(
                [
                    [
                        [b.x0 * fw, b.y0 * fh],
                        [b.x1 * fw, b.y0 * fh],
                        [b.x1 * fw, b.y1 * fh],
                        [b.x0 * fw, b.y1 * fh],
                    ]
                ]
            )
            poly = cv2.perspectiveTransform(quad, mats[k])[0]
            area = abs(cv2.contourArea(poly))
            if area < 4:
                continue
            px0, py0 = np.floor(poly.min(axis=0)).astype(int)
            px1, py1 = np.ceil(poly.max(axis=0)).astype(int)
            cx0, cy0, cx1, cy1 = max(px0, 0), max(py0, 0), min(px1, w), min(py1, h)
            if cx1 <= cx0 or cy1 <= cy0:
                continue
            m = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
            cv2.fillConvexPoly(m, np.round(poly - [cx0, cy0]).astype(np.int32), 1)
            seen = int(((owner[cy0:cy1, cx0:cx1] == k) & (m > 0)).sum())
            if seen / area < MIN_VISIBLE:
                continue
            labels.append((CLASS_INDEX[p.face.code], float(cx0), float(cy0), float(cx1), float(cy1)))
            visible.add(p.face.code)
            if meta is not None:
                tall = (np.linalg.norm(poly[3] - poly[0]) + np.linalg.norm(poly[2] - poly[1])) / 2
                wide = (np.linalg.norm(poly[1] - poly[0]) + np.linalg.norm(poly[2] - poly[3])) / 2
                corner_meta.append(
                    {
                        "code": p.face.code,
                        "visible": round(min(1.0, seen / area), 3),
                        "h": round(float(tall), 1),
                        "w": round(float(wide), 1),
                    }
                )
    record: dict[str, float] = {}
    image = camera(rng, canvas.clip(0, 255).astype(np.uint8), record=record)
    if meta is not None:
        meta["corners"], meta["camera"] = corner_meta, record
    cards = sorted(visible, key=CLASS_INDEX.__getitem__)
    return image, labels, cards


# ---------------------------------------------------------------------------------------------- layouts


def hand_offsets(rng: Rng, n: int, style: str, aspect: float) -> list[tuple[float, float, float]]:
    """Card positions of one hand in card-height units, relative to the hand centre, hand upright.

    Returns (dx, dy, angle) per card, drawn in order (each card on top of the previous one).
    """
    cw = 1 / aspect  # card width in card-height units
    out: list[tuple[float, float, float]] = []
    if style == "fan":
        step = rng.uniform(4, 16)
        radius = rng.uniform(0.5, 1.2)
        for i in range(n):
            a = (i - (n - 1) / 2) * step
            r = np.radians(a)
            out.append((radius * np.sin(r), radius * (1 - np.cos(r)) - 0.0, -a))
    elif style == "row":
        step = rng.uniform(0.16, 0.7) * cw
        for i in range(n):
            out.append(((i - (n - 1) / 2) * step, rng.normal(0, 0.015), rng.normal(0, 2)))
    elif style == "cascade":
        step = rng.uniform(0.24, 0.4)
        for i in range(n):
            out.append((rng.normal(0, 0.01), (i - (n - 1) / 2) * step, rng.normal(0, 2)))
    else:  # spread: side by side, small gaps
        step = rng.uniform(1.02, 1.25) * cw
        for i in range(n):
            out.append(((i - (n - 1) / 2) * step, rng.normal(0, 0.03), rng.normal(0, 4)))
    return out


def deal_offsets(rng: Rng, n: int) -> list[tuple[float, float, float]]:
    """A whole pack fanned out in one arc round a point, each card turned a little further than the one
    under it, so that every card shows the index of its top-left corner (a deck printing its indices
    elsewhere shows few): (dx, dy, angle) per card in card-height units, as :func:`hand_offsets`."""
    span = rng.uniform(220, 330)  # degrees the pack is spread over
    radius = rng.uniform(0.6, 1.1)  # card centres' distance from the arc's centre
    step = span / max(1, n - 1)
    out = []
    for i in range(n):
        a = (i - (n - 1) / 2) * step
        r = np.radians(a)
        out.append((radius * np.sin(r), -radius * np.cos(r), -a))
    return out


def _place_group(
    faces: list[Face],
    offsets: list[tuple[float, float, float]],
    cx: float,
    cy: float,
    height: float,
    angle: float,
    hand: int,
) -> list[Placement]:
    r = np.radians(angle)
    c, s = np.cos(r), np.sin(r)
    out = []
    for face, (dx, dy, da) in zip(faces, offsets, strict=True):
        x, y = dx * height, dy * height
        # rotate (x, y) by -angle in image coordinates (y down) to match cv2's counter-clockwise angle
        out.append(Placement(face, cx + c * x + s * y, cy - s * x + c * y, height, angle + da, hand))
    return out


def _extent(placements: list[Placement]) -> tuple[float, float, float, float]:
    pts = []
    for p in placements:
        fh, fw = p.face.image.shape[:2]
        m = _placement_matrix(p)
        pts.append(cv2.perspectiveTransform(np.float32([[[0, 0], [fw, 0], [fw, fh], [0, fh]]]), m)[0])
    a = np.concatenate(pts)
    return float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 0].max()), float(a[:, 1].max())


def _fit(
    placements: list[Placement], w: int, h: int, rng: Rng, min_h: float, margin: float = 0.03
) -> list[Placement]:
    """Shrink (not below min_h) and move a layout so that it lies inside the image, at a random spot."""
    x0, y0, x1, y1 = _extent(placements)
    bw, bh = x1 - x0, y1 - y0
    cur_h = placements[0].height
    k = min(1.0, (1 - 2 * margin) * w / bw, (1 - 2 * margin) * h / bh)
    k = max(k, min_h / cur_h)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    bw, bh = bw * k, bh * k
    free_x, free_y = max(0.0, w - bw) / 2 - margin * w, max(0.0, h - bh) / 2 - margin * h
    tx = w / 2 + (rng.uniform(-free_x, free_x) if free_x > 0 else 0)
    ty = h / 2 + (rng.uniform(-free_y, free_y) if free_y > 0 else 0)
    return [
        Placement(p.face, tx + (p.cx - cx) * k, ty + (p.cy - cy) * k, p.height * k, p.angle, p.hand)
        for p in placements
    ]


def _backs(
    rng: Rng, lib_faces: list[dict[str, Face]], n: int, w: int, h: int, height: float
) -> list[Placement]:
    out = []
    pile = rng.random() < 0.4
    cx, cy, a = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h, rng.uniform(0, 360)
    for _ in range(n):
        faces = lib_faces[int(rng.integers(len(lib_faces)))]
        if BACK not in faces:
            continue
        if pile:
            out.append(
                Placement(
                    faces[BACK], cx + rng.normal(0, 2), cy + rng.normal(0, 2), height, a + rng.normal(0, 4)
                )
            )
        else:
            out.append(
                Placement(faces[BACK], rng.uniform(0, w), rng.uniform(0, h), height, rng.uniform(0, 360))
            )
    return out


def _with_marks(rng: Rng, placements: list[Placement]) -> list[Placement]:
    """The placements with each deck's cards carrying that deck's maker's mark (one mark per deck)."""
    marks: dict[str, MakersMark] = {}
    out = []
    for p in placements:
        if p.face.code == BACK:
            out.append(p)
            continue
        if p.face.deck not in marks:
            marks[p.face.deck] = MakersMark.draw(rng)
        out.append(replace(p, face=marks[p.face.deck].stamp(p.face)))
    return out


class SceneMaker:
    """Draws random scenes of one split's decks. Deterministic given the generator passed to :meth:`make`."""

    def __init__(self, library: FaceLibrary) -> None:
        self.library = library
        self._procedural = tuple(d for d in library.decks if d.family is Family.PROCEDURAL)
        self._svg = tuple(d for d in library.decks if d.family is not Family.PROCEDURAL)

    def pick_deck(self, rng: Rng) -> Deck:
        """A deck of the library: procedural with probability PROCEDURAL_SHARE when there are both kinds."""
        pool = self.library.decks
        if self._procedural and self._svg:
            pool = self._procedural if rng.random() < PROCEDURAL_SHARE else self._svg
        return pool[int(rng.integers(len(pool)))]

    def _deck_faces(self, rng: Rng) -> dict[str, Face]:
        return self.library.deck_faces(self.pick_deck(rng))

    def _draw_cards(
        self, rng: Rng, n: int, pool: tuple[str, ...] | None = None, jokers: bool = True
    ) -> list[Face]:
        """``n`` distinct cards; one deck per scene (most of the time), jokers now and then."""
        one_deck = rng.random() < 0.85
        faces = self._deck_faces(rng)
        codes = [c for c in (pool or CARD_CODES) if c != JOKER]
        chosen = list(rng.choice(codes, size=min(n, len(codes)), replace=False))
        if jokers and JOKER in faces and rng.random() < 0.25 and chosen:
            chosen[int(rng.integers(len(chosen)))] = JOKER
        out = []
        for code in chosen:
            src = faces if one_deck else self._deck_faces(rng)
            if code not in src:
                src = faces
            if code in src:
                out.append(src[code])
        return out

    def make(
        self,
        rng: Rng,
        w: int,
        h: int,
        kind: SceneKind | None = None,
        hand_rng: Rng | None = None,
        mark_rng: Rng | None = None,
        four_rng: Rng | None = None,
        turn_rng: Rng | None = None,
        bend_rng: Rng | None = None,
    ) -> SceneResult:
        """One scene; ``hand_rng`` (its own generator) adds a player's hand to scenes of HAND_KINDS,
        ``mark_rng`` (another) a maker's mark to each deck's cards (:class:`MakersMark`), ``four_rng``
        indices in four corners (FOUR_SHARE), ``turn_rng`` a quarter turn of the hand, row or close-up,
        ``bend_rng`` bent and glossy cards (BEND_SHARE)."""
        if kind is None:
            kinds = list(SCENE_WEIGHTS)
            probs = np.array([SCENE_WEIGHTS[k] for k in kinds])
            kind = kinds[int(rng.choice(len(kinds), p=probs / probs.sum()))]
        placements: list[Placement] = []
        hands: list[list[str]] = []
        tilt = rng.uniform(0, 0.07)
        clutter = int(rng.integers(0, 4)) if rng.random() < 0.35 else 0
        surface_kind: str | None = None
        min_h = MIN_CARD_H * h
        if kind in (SceneKind.HAND, SceneKind.TABLE, SceneKind.SEEP):
            n_hands = 1 if kind is not SceneKind.TABLE else int(rng.integers(2, 6))
            height = (
                rng.uniform(0.24, 0.5) * h if kind is SceneKind.HAND else rng.uniform(MIN_CARD_H, 0.3) * h
            )
            pool = SEEP_POINT_CARDS if kind is SceneKind.SEEP and rng.random() < 0.6 else None
            if kind is SceneKind.HAND:
                sizes = [int(rng.integers(1, 9))]
            elif kind is SceneKind.TABLE:
                sizes = [int(rng.integers(1, 6)) for _ in range(n_hands)]
            else:
                sizes = [int(rng.integers(3, 18))]
            faces = self._draw_cards(rng, sum(sizes), pool, jokers=kind is not SceneKind.SEEP)
            start = 0
            ring_a = rng.uniform(0, 360)
            for hi, size in enumerate(sizes):
                group = faces[start : start + size]
                start += size
                if not group:
                    continue
                aspect = group[0].image.shape[0] / group[0].image.shape[1]
                if kind is SceneKind.SEEP and len(group) > 8 and rng.random() < 0.6:
                    # two or three overlapping rows
                    rows = int(rng.integers(2, 4))
                    per = int(np.ceil(len(group) / rows))
                    offs = []
                    dy = rng.uniform(0.3, 1.05)
                    for r in range(rows):
                        chunk = hand_offsets(rng, len(group[r * per : (r + 1) * per]), "row", aspect)
                        offs += [(x, y + (r - (rows - 1) / 2) * dy, a) for x, y, a in chunk]
                else:
                    style = str(rng.choice(["fan", "row", "cascade", "spread"], p=[0.38, 0.38, 0.1, 0.14]))
                    offs = hand_offsets(rng, len(group), style, aspect)
                if kind is SceneKind.TABLE:
                    a = np.radians(ring_a + hi * 360 / n_hands + rng.normal(0, 10))
                    cx = w / 2 + np.cos(a) * w * rng.uniform(0.22, 0.34)
                    cy = h / 2 + np.sin(a) * h * rng.uniform(0.22, 0.32)
                    angle = (
                        90 - np.degrees(a) + rng.normal(0, 15) if rng.random() < 0.7 else rng.uniform(0, 360)
                    )
                else:
                    cx, cy = w / 2, h / 2
                    angle = rng.uniform(-25, 25) if rng.random() < 0.5 else rng.uniform(0, 360)
                    angle = _turned(turn_rng, angle)
                placements += _place_group(group, offs, cx, cy, height, angle, hi)
                hands.append(sorted((f.code for f in group), key=CLASS_INDEX.__getitem__))
            if kind is not SceneKind.TABLE:
                placements = _fit(placements, w, h, rng, min_h)
            else:
                placements = _fit(placements, w, h, rng, min_h, margin=0.0)
        elif kind is SceneKind.DEAL:
            pack = self._deck_faces(rng)  # one pack, shuffled, without its jokers
            order = rng.permutation([c for c in CARD_CODES if c != JOKER])
            faces = [pack[str(c)] for c in order if c in pack]
            angle = rng.uniform(0, 360)
            placements = _place_group(faces, deal_offsets(rng, len(faces)), w / 2, h / 2, 0.3 * h, angle, 0)
            placements = _fit(placements, w, h, rng, min_h)
            hands = [sorted((f.code for f in faces), key=CLASS_INDEX.__getitem__)]
        elif kind is SceneKind.SCATTER:
            faces = self._draw_cards(rng, int(rng.integers(1, 11)))
            height = rng.uniform(MIN_CARD_H, 0.42) * h
            placements = [
                Placement(
                    f, rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h, height, rng.uniform(0, 360), i
                )
                for i, f in enumerate(faces)
            ]
            hands = [[f.code] for f in faces]
        elif kind in (SceneKind.CLOSEUP, SceneKind.SQUASHED, SceneKind.UPRIGHT):
            faces = self._draw_cards(rng, 1)
            f = faces[0]
            if kind is SceneKind.CLOSEUP:
                height = rng.uniform(0.7, 1.25) * h
                angle = rng.normal(0, 8) if rng.random() < 0.7 else rng.uniform(0, 360)
                angle = _turned(turn_rng, angle)
                cx, cy = w / 2 + rng.normal(0, 0.08) * w, h / 2 + rng.normal(0, 0.08) * h
            elif kind is SceneKind.UPRIGHT:
                height = rng.uniform(0.3, 0.6) * h
                angle = rng.normal(0, 4) if rng.random() < 0.8 else rng.normal(180, 4)
                cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.35, 0.65) * h
                surface_kind = "plain" if rng.random() < 0.7 else None
            else:  # a tight crop of one card, squashed to the frame like a classifier dataset
                fh, fw = f.image.shape[:2]
                height, angle, cx, cy = h * rng.uniform(0.94, 1.02), 0.0, w / 2, h / 2
                face_img = cv2.resize(f.image, (int(fh * w / h), fh), interpolation=cv2.INTER_LINEAR)
                f = Face(f.deck, f.code, face_img, f.boxes)
                tilt = 0.0
            placements = [Placement(f, cx, cy, height, angle, 0)]
            hands = [[f.code]]
            clutter = 0 if kind is not SceneKind.UPRIGHT else clutter
        if kind is SceneKind.NEGATIVE or rng.random() < 0.2:
            n_backs = int(rng.integers(1, 6))
            deck_faces = [
                self.library.deck_faces(d)
                for d in self.library.decks[:: max(1, len(self.library.decks) // 6)]
            ]
            backs = _backs(rng, deck_faces, n_backs, w, h, rng.uniform(MIN_CARD_H, 0.35) * h)
            placements = backs + placements if rng.random() < 0.7 else placements + backs
            if kind is SceneKind.NEGATIVE:
                clutter = int(rng.integers(1, 6))
        if kind not in HAND_KINDS:
            hand_rng = None
        if four_rng is not None:
            placements = _with_four_corners(four_rng, placements)
        if mark_rng is not None:
            placements = _with_marks(mark_rng, placements)
        if bend_rng is not None:
            placements = _with_bends(bend_rng, placements)
        meta: dict[str, object] = {}
        image, labels, cards = render_scene(
            rng, placements, w, h, tilt, clutter, surface_kind, hand_rng, meta=meta
        )
        decks = sorted({p.face.deck for p in placements if p.face.code != BACK})
        return SceneResult(image, labels, cards, hands, kind.value, decks, meta)


def scene_truth(name: str, result: SceneResult, jpeg: int | None = None) -> str:
    """One JSON line of per-image truth (cards with a labelled corner, the hands as dealt), with how
    readable each labelled corner is and what the camera did (``corners``, ``camera``: see
    :func:`render_scene`; ``camera.jpeg``: the JPEG quality the photo was saved at)."""
    row: dict[str, object] = {
        "image": name,
        "cards": result.cards,
        "hands": result.hands,
        "kind": result.kind,
        "decks": result.decks,
    }
    if result.meta:
        row["corners"] = result.meta.get("corners", [])
        cam = dict(result.meta.get("camera", {}))  # type: ignore[call-overload]
        if jpeg is not None:
            cam["jpeg"] = jpeg
        row["camera"] = cam
    return json.dumps(row)
