"""Synthetic scenes of one taught deck, composed from the photos it was taught with.

Each taught card is cut out of its teaching photo (:func:`cut_face`): the card's outline is found around
the corners the teaching matched to it (a light card on a darker table, or the edges round it), squared to
a face, and the corner boxes found there become the face's labelled corners (with their half-turned twins:
an index printed in two corners is labelled in both even where only one was found). A card whose outline is
not found (touching its neighbour, cut off by the frame, a table as light as the card) is not used for the
scenes, and :class:`CutFaces` names it.

The faces then go through the synthetic-photo renderer (:mod:`models.training.data.scenes`: its surfaces,
light, shadows, perspective, camera effects) in the layouts of the two games (:data:`KINDS`): a hand of 1-8
cards fanned loosely or tightly, in a row or cascade; a Jhyap table of 2-5 hands of 1-5 cards; Seep rows and
overlapping piles; scattered cards; a whole pack fanned in one arc, tight or wide (:func:`fanned_pack`);
a single card close up. A corner is labelled where :data:`SLIVER` of its index is in view.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from models.training.data import scenes as renderer
from models.training.data.corners import Box
from models.training.data.decks import Deck, Family, Split
from models.training.data.scenes import (
    Face,
    FaceLibrary,
    SceneKind,
    SceneMaker,
    SceneResult,
    _fit,
    _place_group,
    render_scene,
)
from scorer.cards import CARD_CODES

Quad = tuple[float, float, float, float]  # x0, y0, x1, y1 in photo pixels

FACE_HEIGHT = 560  # a cut face's height in pixels (its width follows the card's shape)
ASPECT = (1.25, 1.7)  # a card's height over its width: poker 1.40, bridge 1.56
MIN_CARD_SHARE = 0.01  # a card outline covers at least this share of the photo
TWIN_IOU = 0.3  # a corner's half-turned twin overlapping a found corner this much is that corner
# A corner is labelled when this share of its index is in view (the renderer's general data: 0.7): the
# slivers of an index in a tight fan are what the shipped detector misses, so a taught deck's data asks
# for them.
SLIVER = 0.4
# The scene kinds of a taught deck's data and their shares (a whole pack fanned: the tightest fans).
KINDS: dict[SceneKind, float] = {
    SceneKind.HAND: 0.24,
    SceneKind.TABLE: 0.18,
    SceneKind.SEEP: 0.14,
    SceneKind.SCATTER: 0.08,
    SceneKind.DEAL: 0.3,
    SceneKind.CLOSEUP: 0.03,
    SceneKind.UPRIGHT: 0.03,
}


@dataclass(frozen=True)
class TaughtCard:
    """One taught card as teaching matched it: the photo's name and image, the card's code and the corner
    boxes found for it (photo pixels)."""

    photo: str
    image: np.ndarray
    code: str
    boxes: tuple[Quad, ...]


@dataclass
class CutFaces:
    """The faces cut from a deck's teaching photos (one per card code; the first that could be cut) and the
    cards that could not be, each with the reason."""

    faces: dict[str, Face] = field(default_factory=dict)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # photo, code, why

    def problems(self) -> list[str]:
        return [f"{photo}: {code}: {why}" for photo, code, why in self.skipped]


def _order_quad(points: np.ndarray) -> np.ndarray:
    """The four corners of a rectangle ordered top-left, top-right, bottom-right, bottom-left along its
    long side being the height (the face's top is the short side nearest the photo's top-left)."""
    pts = np.asarray(points, np.float32)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise in image coordinates, starting anywhere
    sides = [np.linalg.norm(pts[(i + 1) % 4] - pts[i]) for i in range(4)]
    if sides[0] > sides[1]:  # make pts[0] -> pts[1] a short side (the face's top)
        pts = np.roll(pts, -1, axis=0)
    # of the two short sides, the top is the one nearer the photo's top (then left)
    top, bottom = pts[[0, 1]].mean(axis=0), pts[[2, 3]].mean(axis=0)
    if (bottom[1], bottom[0]) < (top[1], top[0]):
        pts = np.roll(pts, 2, axis=0)
    return pts


def _masks(image: np.ndarray) -> Iterator[np.ndarray]:
    """Candidate card masks of a photo: the edges (a card's outline, closed), then light regions (Otsu on
    grey, on whiteness)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    kernel = np.ones((3, 3), np.uint8)
    yield cv2.dilate(cv2.Canny(grey, 30, 90), kernel, iterations=2)
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    whiteness = cv2.subtract(hsv[:, :, 2], (hsv[:, :, 1].astype(np.float32) * 0.7).astype(np.uint8))
    for channel in (grey, cv2.GaussianBlur(whiteness, (5, 5), 0)):
        _, mask = cv2.threshold(channel, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        yield cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8), iterations=2)


def card_outline(image: np.ndarray, boxes: Sequence[Quad], others: Sequence[Quad] = ()) -> np.ndarray | None:
    """The four corners of the card whose corners are ``boxes`` (ordered as :func:`_order_quad`), or None.
    A candidate is the convex hull of a shape of one of :func:`_masks`: it must be card-shaped
    (:data:`ASPECT`, filling its rectangle), hold the centre of every box and of none of ``others``
    (another card's corners), be a card's size for its corners, and lie inside the photo; the largest wins."""
    h, w = image.shape[:2]
    centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
    other_centres = [((o[0] + o[2]) / 2, (o[1] + o[3]) / 2) for o in others]
    corner = max(max(b[2] - b[0], b[3] - b[1]) for b in boxes)
    for mask in _masks(image):
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        best: np.ndarray | None = None
        best_area = 0.0
        for contour in contours:
            hull = cv2.convexHull(contour)
            area = cv2.contourArea(hull)
            if area < MIN_CARD_SHARE * w * h or area > 0.9 * w * h or area <= best_area:
                continue
            rect = cv2.minAreaRect(hull)
            rw, rh = rect[1]
            if min(rw, rh) < 1 or area < 0.9 * rw * rh:
                continue
            if not ASPECT[0] <= max(rw, rh) / min(rw, rh) <= ASPECT[1]:
                continue
            if not 0.04 <= corner / max(rw, rh) <= 0.4:
                continue
            if any(cv2.pointPolygonTest(hull, c, False) < 0 for c in centres):
                continue
            if any(cv2.pointPolygonTest(hull, c, False) >= 0 for c in other_centres):
                continue
            quad = cv2.boxPoints(rect)
            if (
                quad[:, 0].min() < -2
                or quad[:, 1].min() < -2
                or quad[:, 0].max() > w + 2
                or quad[:, 1].max() > h + 2
            ):
                continue
            best, best_area = quad, area
        if best is not None:
            return _order_quad(best)
    return None


def _iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0))
    iy = max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))
    inter = ix * iy
    union = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter
    return inter / union if union > 0 else 0.0


def cut_face(card: TaughtCard, others: Sequence[Quad] = ()) -> Face | str:
    """The face of ``card`` squared out of its photo (BGRA, :data:`FACE_HEIGHT` tall) with its corner
    boxes in face fractions, or why it could not be cut."""
    quad = card_outline(card.image, card.boxes, others)
    if quad is None:
        return "its outline was not found (cards touching, cut off by the photo's edge, or a light table)"
    side_w = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    side_h = float(np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    fh = FACE_HEIGHT
    fw = max(8, round(fh * side_w / side_h))
    target = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    face = cv2.warpPerspective(
        card.image, matrix, (fw, fh), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    alpha = np.zeros((fh, fw), np.uint8)
    radius = max(2, round(0.045 * fw))
    cv2.rectangle(alpha, (radius, 0), (fw - 1 - radius, fh - 1), 255, -1)
    cv2.rectangle(alpha, (0, radius), (fw - 1, fh - 1 - radius), 255, -1)
    for cx, cy in (
        (radius, radius),
        (fw - 1 - radius, radius),
        (radius, fh - 1 - radius),
        (fw - 1 - radius, fh - 1 - radius),
    ):
        cv2.circle(alpha, (cx, cy), radius, 255, -1)
    boxes: list[Box] = []
    for x0, y0, x1, y1 in card.boxes:
        corners = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32)
        pts = cv2.perspectiveTransform(corners, matrix)[0]
        lo, hi = pts.min(axis=0) / [fw, fh], pts.max(axis=0) / [fw, fh]
        box = Box(*(float(np.clip(v, 0, 1)) for v in (lo[0], lo[1], hi[0], hi[1])))
        if box.x1 - box.x0 > 0.01 and box.y1 - box.y0 > 0.01:
            boxes.append(box)
    if not boxes:
        return "its corners lie outside the card's outline"
    for box in list(boxes):  # the half-turned twin of each corner (an index printed in two corners)
        twin = box.rotated180()
        if all(_iou(twin, b) < TWIN_IOU for b in boxes):
            boxes.append(twin)
    return Face("taught", card.code, np.dstack([face, alpha]), tuple(boxes))


def cut_faces(cards: Sequence[TaughtCard]) -> CutFaces:
    """The faces of ``cards`` (the first cut of each code) and the cards that could not be cut."""
    out = CutFaces()
    by_photo: dict[str, list[TaughtCard]] = {}
    for card in cards:
        by_photo.setdefault(card.photo, []).append(card)
    for card in cards:
        if card.code in out.faces:
            continue
        others = [b for c in by_photo[card.photo] if c is not card for b in c.boxes]
        face = cut_face(card, others)
        if isinstance(face, str):
            out.skipped.append((card.photo, card.code, face))
        else:
            out.faces[card.code] = face
    return out


class TaughtLibrary(FaceLibrary):
    """The renderer's face library holding one taught deck's cut faces (no card back)."""

    def __init__(self, faces: dict[str, Face], name: str = "taught") -> None:
        deck = Deck(name, Family.PROCEDURAL, Path("."), name, Split.VAL, ("JK",) if "JK" in faces else ())
        self.faces_dir = Path(".")
        self.decks = (deck,)
        self._cache = {name: {code: face for code, face in faces.items() if code in CARD_CODES}}


def fanned_pack(
    rng: np.random.Generator,
    pack: dict[str, Face],
    w: int,
    h: int,
    spread: tuple[float, float] = (250, 350),
    radius: tuple[float, float] = (0.8, 1.5),
) -> SceneResult:
    """A whole pack (no jokers, shuffled) fanned in one arc as players spread a deck on the table: each card
    turned a little further than the one under it, the arc ``spread`` degrees and the cards' centres
    ``radius`` card heights from its centre (tight: slivers of most indices; wide: every index in part).
    The truth is the whole pack."""
    order = [str(c) for c in rng.permutation([c for c in CARD_CODES if c != "JK"]) if str(c) in pack]
    span, r = rng.uniform(*spread), rng.uniform(*radius)
    step = span / max(1, len(order) - 1)
    offsets = []
    for i in range(len(order)):
        a = np.radians((i - (len(order) - 1) / 2) * step)
        offsets.append((r * np.sin(a), -r * np.cos(a), -float(np.degrees(a))))
    faces = [pack[c] for c in order]
    placements = _place_group(faces, offsets, w / 2, h / 2, 0.3 * h, rng.uniform(0, 360), 0)
    placements = _fit(placements, w, h, rng, 0.12 * h)
    image, labels, cards = render_scene(rng, placements, w, h, rng.uniform(0, 0.05), 0, None)
    hands = [sorted(order, key=CARD_CODES.index)]
    return SceneResult(image, labels, cards, hands, SceneKind.DEAL.value, [faces[0].deck] if faces else [])


class TaughtSceneMaker(SceneMaker):
    """The renderer's scene maker drawing only the cards a taught deck has faces for; its whole packs are
    :func:`fanned_pack`."""

    def make(
        self,
        rng: np.random.Generator,
        w: int,
        h: int,
        kind: SceneKind | None = None,
        hand_rng: np.random.Generator | None = None,
        mark_rng: np.random.Generator | None = None,
        four_rng: np.random.Generator | None = None,
        turn_rng: np.random.Generator | None = None,
        bend_rng: np.random.Generator | None = None,
    ) -> SceneResult:
        if kind is SceneKind.DEAL:
            return fanned_pack(rng, self.library.deck_faces(self.library.decks[0]), w, h)
        return super().make(rng, w, h, kind, hand_rng, mark_rng, four_rng, turn_rng, bend_rng)

    def _draw_cards(
        self, rng: np.random.Generator, n: int, pool: tuple[str, ...] | None = None, jokers: bool = True
    ) -> list[Face]:
        faces = self.library.deck_faces(self.library.decks[0])
        codes = [c for c in (pool or CARD_CODES) if c != "JK" and c in faces]
        codes = codes or [c for c in faces if c != "JK"]
        chosen = [str(c) for c in rng.choice(codes, size=min(n, len(codes)), replace=False)]
        if jokers and "JK" in faces and rng.random() < 0.25 and chosen:
            chosen[int(rng.integers(len(chosen)))] = "JK"
        return [faces[c] for c in chosen]


def scenes(
    faces: dict[str, Face],
    count: int,
    seed: int,
    size: tuple[int, int],
    kinds: dict[SceneKind, float] = KINDS,
    start: int = 0,
) -> Iterator[SceneResult]:
    """Scenes ``start`` to ``count - 1`` of the taught deck ``faces`` (kinds drawn by their shares), each
    deterministic given ``seed`` and its number."""
    maker = TaughtSceneMaker(TaughtLibrary(faces))
    names = list(kinds)
    shares = np.array([kinds[k] for k in names], np.float64)
    for k in range(start, count):
        rng = np.random.default_rng([seed, 67, k])
        kind = names[int(rng.choice(len(names), p=shares / shares.sum()))]
        general, renderer.MIN_VISIBLE = renderer.MIN_VISIBLE, SLIVER  # read by render_scene as it labels
        try:
            result = maker.make(
                rng, size[0], size[1], kind=kind, bend_rng=np.random.default_rng([seed, 68, k])
            )
        finally:
            renderer.MIN_VISIBLE = general
        yield result
