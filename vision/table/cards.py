"""From corner detections to physical cards, and from cards to hands.

The model finds card *corner indices* (the rank and suit printed in two opposite corners of a card, or
in all four on some decks). A card lying open usually shows more than one, so corners are grouped: corners
with the same code whose centres lie about a card's width, height or diagonal apart, in a rectangle-like
layout, and whose boxes have about the same size are one card. A corner without a partner is still a card
(the others are covered). Corners with the same code that are too close or too far apart to be one card
are two cards: games played with two packs have duplicates. Cards are then grouped into hands by where
they lie and which way they are turned (:func:`group_into_hands`).

All geometry is in units of the corner box *size* ``sqrt(w * h)``, which changes little when a card is
rotated, so the thresholds hold at any distance between camera and table.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scorer.cards import Card, copies_in_decks
from vision.base.errors import InvalidValueError
from vision.base.types import Box, DetectedCard, Detection, box_center, box_size


@dataclass(frozen=True)
class PairingRules:
    """Geometry and confidence thresholds for turning corners into cards.

    The defaults come from synthetic scenes of many deck designs with their true corner boxes as
    detections (the distances and size ratios found there, and how jittered boxes pair, are in
    docs/vision.md, "From corners to physical cards"); ``max_size_ratio`` leaves room for the detector's
    noise.

    ``min_ratio``..``max_ratio`` bound the distance between the two corner centres of one card, in corner
    sizes (``expected_ratio`` is the typical value, used to pick the best partner); ``max_size_ratio``
    bounds how much the two corner boxes of one card may differ in size; ``max_corners`` is how many
    index corners one card may show (4 for decks printed in every corner). A card is uncertain when its
    confidence is under ``uncertain_below``, or when on every corner of it another code scores at least
    ``compete_ratio`` times the corner's own confidence. Two corners of one code whose centres lie under
    ``same_corner_ratio`` corner sizes apart are one index seen twice (nested boxes of two sizes, which
    non-maximum suppression keeps when they overlap less than its threshold, as in photos at camera
    resolution): the weaker one is dropped, its other readings kept as alternatives.
    """

    min_ratio: float = 1.8
    max_ratio: float = 9.0
    expected_ratio: float = 4.5
    max_size_ratio: float = 2.0
    uncertain_below: float = 0.5
    compete_ratio: float = 0.5
    max_corners: int = 4
    same_corner_ratio: float = 0.8

    def __post_init__(self) -> None:
        if not 0 < self.min_ratio <= self.expected_ratio <= self.max_ratio:
            raise InvalidValueError(
                f"need 0 < min_ratio <= expected_ratio <= max_ratio, got {self.min_ratio}, "
                f"{self.expected_ratio}, {self.max_ratio}"
            )
        if not 1 <= self.max_corners <= 4:
            raise InvalidValueError(f"max_corners must be 1 to 4, got {self.max_corners}")
        if not 0 <= self.same_corner_ratio < self.min_ratio:
            raise InvalidValueError(
                f"same_corner_ratio must lie in [0, min_ratio), got {self.same_corner_ratio} "
                f"(min_ratio {self.min_ratio})"
            )
        if self.max_size_ratio < 1:
            raise InvalidValueError(f"max_size_ratio must be >= 1, got {self.max_size_ratio}")
        if not 0 <= self.uncertain_below <= 1 or not 0 < self.compete_ratio <= 1:
            raise InvalidValueError(
                f"uncertain_below must lie in [0, 1] and compete_ratio in (0, 1], "
                f"got {self.uncertain_below} and {self.compete_ratio}"
            )


DEFAULT_RULES = PairingRules()


def _center_distance(a: Box, b: Box) -> float:
    (ax, ay), (bx, by) = box_center(a), box_center(b)
    return math.hypot(ax - bx, ay - by)


def pair_cost(a: Detection, b: Detection, rules: PairingRules = DEFAULT_RULES) -> float | None:
    """How well two corners fit as the two corners of one card (lower is better), or None if they cannot."""
    size_a, size_b = box_size(a.box), box_size(b.box)
    size_ratio = max(size_a, size_b) / min(size_a, size_b)
    if size_ratio > rules.max_size_ratio:
        return None
    ratio = _center_distance(a.box, b.box) / math.sqrt(size_a * size_b)
    if not rules.min_ratio <= ratio <= rules.max_ratio:
        return None
    return abs(math.log(ratio / rules.expected_ratio)) + math.log(size_ratio)


def _competes(det: Detection, rules: PairingRules) -> bool:
    return any(score >= rules.compete_ratio * det.confidence for _, score in det.alternatives)


def _best_alternatives(readings: Sequence[tuple[str, float]], code: str) -> tuple[tuple[str, float], ...]:
    """The best score of each code among ``readings`` other than ``code``, best first (ties by code)."""
    best: dict[str, float] = {}
    for other, score in readings:
        if other != code and (other not in best or score > best[other]):
            best[other] = score
    return tuple(sorted(best.items(), key=lambda kv: (-kv[1], kv[0])))


def one_per_corner(detections: Sequence[Detection], rules: PairingRules = DEFAULT_RULES) -> list[Detection]:
    """``detections`` without the corners seen twice: of two of one code whose centres lie under
    ``rules.same_corner_ratio`` corner sizes apart, the more confident stays, with the other's other
    readings added to its alternatives. Order is kept."""
    order = sorted(range(len(detections)), key=lambda i: -detections[i].confidence)
    kept: dict[int, Detection] = {}
    for i in order:
        det = detections[i]
        twin = next(
            (
                k
                for k, other in kept.items()
                if other.code == det.code
                and _center_distance(other.box, det.box)
                < rules.same_corner_ratio * math.sqrt(box_size(other.box) * box_size(det.box))
            ),
            None,
        )
        if twin is None:
            kept[i] = det
            continue
        other = kept[twin]
        alternatives = _best_alternatives([*other.alternatives, *det.alternatives], other.code)
        kept[twin] = Detection(other.code, other.confidence, other.box, alternatives)
    return [kept[i] for i in sorted(kept)]


def _make_card(corners: Sequence[Detection], rules: PairingRules, code: str | None = None) -> DetectedCard:
    code = code or max(corners, key=lambda d: d.confidence).code
    confidence = max(d.confidence for d in corners if d.code == code)
    readings = [reading for d in corners for reading in (*d.alternatives, (d.code, d.confidence))]
    ordered = _best_alternatives(readings, code)
    torn = any(d.code != code for d in corners) or all(_competes(d, rules) for d in corners)
    uncertain = confidence < rules.uncertain_below or torn
    boxes = tuple(d.box for d in sorted(corners, key=lambda d: (d.box[1], d.box[0])))
    return DetectedCard(code, confidence, uncertain, boxes, ordered)


def card_shaped(points: Sequence[tuple[float, float]], tolerance: float = 0.3) -> bool:
    """Whether corner centres can be the index corners of one rectangle seen from above.

    Two points always can. Three must make a right angle (the longest side is the diagonal:
    ``a^2 + b^2 ~ c^2``) with sides no more than about 2:1. Four must make a parallelogram whose
    diagonals are about as long as each other and cross at their middles. ``tolerance`` allows for
    perspective and for the index boxes not sitting exactly in the corners.
    """
    n = len(points)
    if n <= 2:
        return True
    if n == 3:
        a, b, c = sorted(math.dist(p, q) for p, q in _pairs(points))
        return a >= 0.45 * b and abs(a * a + b * b - c * c) <= tolerance * c * c
    if n == 4:
        dists = sorted((math.dist(points[i], points[j]), i, j) for i, j in _index_pairs(4))
        (d1, i1, j1), (d2, i2, j2) = dists[-1], dists[-2]
        if {i1, j1} & {i2, j2} or d2 < (1 - tolerance) * d1:
            return False
        mid1 = ((points[i1][0] + points[j1][0]) / 2, (points[i1][1] + points[j1][1]) / 2)
        mid2 = ((points[i2][0] + points[j2][0]) / 2, (points[i2][1] + points[j2][1]) / 2)
        return math.dist(mid1, mid2) <= tolerance * d1
    return False


def _index_pairs(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def _pairs(points: Sequence[tuple[float, float]]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    return [(points[i], points[j]) for i, j in _index_pairs(len(points))]


def _code_weight(corners: Sequence[Detection], code: str) -> float:
    """How much the model believes ``code`` over these corners: its own confidence or alternative score."""
    return sum(d.confidence if d.code == code else dict(d.alternatives).get(code, 0.0) for d in corners)


def _torn(a: Sequence[Detection], b: Sequence[Detection]) -> bool:
    """Whether the model gave each group's code real weight in the other group's corners (6 vs 9)."""
    code_a, code_b = a[0].code, b[0].code
    return any(code_b in dict(d.alternatives) for d in a) and any(code_a in dict(d.alternatives) for d in b)


def _merge_groups(
    dets: Sequence[Detection],
    groups: list[list[int]],
    rules: PairingRules,
    allowed: Callable[[list[int], list[int]], bool],
) -> list[list[int]]:
    """Agglomerate groups of corners, best-fitting pair first (complete linkage, at most max_corners)."""
    owner = {i: k for k, group in enumerate(groups) for i in group}
    edges = []
    for i in range(len(dets)):
        for j in range(i + 1, len(dets)):
            if owner[i] != owner[j] and allowed(groups[owner[i]], groups[owner[j]]):
                cost = pair_cost(dets[i], dets[j], rules)
                if cost is not None:
                    edges.append((cost, i, j))
    for _cost, i, j in sorted(edges):
        gi, gj = owner[i], owner[j]
        if gi == gj or len(groups[gi]) + len(groups[gj]) > rules.max_corners:
            continue
        if not allowed(groups[gi], groups[gj]):
            continue
        if any(pair_cost(dets[a], dets[b], rules) is None for a in groups[gi] for b in groups[gj]):
            continue
        if not card_shaped([box_center(dets[k].box) for k in groups[gi] + groups[gj]]):
            continue
        groups[gi].extend(groups[gj])
        for k in groups[gj]:
            owner[k] = gi
        groups[gj] = []
    return [g for g in groups if g]


def cards_from_detections(
    detections: Sequence[Detection], rules: PairingRules = DEFAULT_RULES
) -> list[DetectedCard]:
    """The physical cards in a photo, from its corner detections, in reading order (top to bottom).

    Same-code corners that fit together as the index corners of one card (two, or up to four for decks
    printed in all four corners) become one card; every other corner is a card of its own (its partner
    is covered, or it is a duplicate from a second deck); one index found twice counts once
    (:func:`one_per_corner`). Corners with *different* codes also make one
    (uncertain) card when they fit geometrically and the model gave each group's code real weight for
    the other (a 6 read as 9 in one corner), so one card is not counted twice.
    """
    dets = one_per_corner(detections, rules)
    singles = [[i] for i in range(len(dets))]

    def same_code(a: list[int], b: list[int]) -> bool:
        return dets[a[0]].code == dets[b[0]].code

    def torn(a: list[int], b: list[int]) -> bool:
        return not same_code(a, b) and _torn([dets[i] for i in a], [dets[i] for i in b])

    groups = _merge_groups(dets, singles, rules, same_code)
    # Same-code groups are uniform; a torn merge below may mix codes, so remember each group's code first.
    groups = _merge_groups(dets, groups, rules, torn)
    cards = []
    for group in groups:
        corners = [dets[i] for i in group]
        codes = {d.code for d in corners}
        code = max(sorted(codes), key=lambda c: _code_weight(corners, c)) if len(codes) > 1 else None
        cards.append(_make_card(corners, rules, code))
    # Reading order of each card's top corner (for a pair, the union box centre would sit mid-card).
    cards.sort(key=lambda c: (box_center(c.boxes[0])[1], box_center(c.boxes[0])[0], c.code))
    return cards


def check_decks(decks: object) -> int:
    """``decks`` as a number of packs, or InvalidValueError naming it (a whole number >= 1)."""
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise InvalidValueError(f"decks must be a whole number >= 1, got {decks!r}")
    return decks


def limit_copies(cards: Sequence[DetectedCard], decks: int) -> list[DetectedCard]:
    """``cards`` (one photo's) with no code read more often than ``decks`` packs hold, where the readings
    allow it: while a code is over, the least confident of its surplus cards takes its best alternative
    code that still has room, and is marked uncertain (the code it lost heads its alternatives, so the
    players see both). A surplus card with no such alternative keeps its code (nothing is dropped: the
    players are shown the card the packs cannot hold). Order is kept.

    What a pack holds is :func:`scorer.cards.copies_in_decks` (vision knows the deck, not the games).
    """
    check_decks(decks)
    out = list(cards)
    settled: set[int] = set()  # surplus cards that found no room: left as read
    while True:
        counts = Counter(card.code for card in out)
        surplus: list[int] = []
        for code, n in counts.items():
            allowed = copies_in_decks(Card.parse(code), decks)
            if n > allowed:
                holders = sorted(
                    (i for i, c in enumerate(out) if c.code == code), key=lambda i: -out[i].confidence
                )
                surplus += holders[allowed:]
        surplus = [i for i in surplus if i not in settled]
        if not surplus:
            return out
        weakest = min(surplus, key=lambda i: (out[i].confidence, i))
        card = out[weakest]
        room = [
            (code, score)
            for code, score in card.alternatives
            if counts[code] < copies_in_decks(Card.parse(code), decks)
        ]
        if not room:
            settled.add(weakest)
            continue
        code, score = room[0]
        alternatives = _best_alternatives([*card.alternatives, (card.code, card.confidence)], code)
        out[weakest] = DetectedCard(code, score, True, card.boxes, alternatives)


def corner_scale(cards: Sequence[DetectedCard]) -> float:
    """The median corner-box size of the cards (pixels); 0 for no cards."""
    sizes = sorted(box_size(b) for card in cards for b in card.boxes)
    if not sizes:
        return 0.0
    mid = len(sizes) // 2
    return sizes[mid] if len(sizes) % 2 else (sizes[mid - 1] + sizes[mid]) / 2


def _card_distance(a: DetectedCard, b: DetectedCard) -> float:
    return min(_center_distance(p, q) for p in a.boxes for q in b.boxes)


def card_direction(card: DetectedCard) -> float | None:
    """The direction of the card's diagonal, in degrees from 0 to 180, or None with one corner showing.

    It is the line through the two corner centres that lie furthest apart. The index corners of a card
    are opposite each other, so the diagonal turns with the card: two cards laid the same way have the
    same direction, and a card turned by an angle has its direction turned by that angle (modulo 180).
    """
    centres = [box_center(b) for b in card.boxes]
    if len(centres) < 2:
        return None
    _, (x0, y0), (x1, y1) = max((math.dist(p, q), p, q) for p, q in _pairs(centres))
    return math.degrees(math.atan2(y1 - y0, x1 - x0)) % 180


def _index_aspect(card: DetectedCard) -> float:
    """The mean ``log(width / height)`` of the corner boxes: an upright index is tall, a turned one wide."""
    return sum(math.log((x1 - x0) / (y1 - y0)) for x0, y0, x1, y1 in card.boxes) / len(card.boxes)


def _turn_gap(a: DetectedCard, b: DetectedCard, dir_a: float | None, dir_b: float | None) -> float:
    """How differently two cards are turned, from 0 (the same way) to 1 (a right angle or more apart).

    With two corners showing on both cards (``dir_a``, ``dir_b``: :func:`card_direction`), the angle
    between their directions over 90 degrees. Otherwise the difference of their corner boxes' shape
    (:func:`_index_aspect`, capped at 1): a box tells a turned index from an upright one, though not which
    way it is turned.
    """
    if dir_a is not None and dir_b is not None:
        diff = abs(dir_a - dir_b) % 180
        return min(diff, 180 - diff) / 90
    return min(1.0, abs(_index_aspect(a) - _index_aspect(b)))


def group_into_hands(
    cards: Sequence[DetectedCard], n_groups: int | None = None, link: float = 5.0, turn: float = 8.0
) -> list[list[int]]:
    """Cluster cards by where they lie and which way they are turned: each cluster is one player's hand.

    The distance between two cards is the distance between their nearest corners plus ``turn`` corner
    sizes times how differently they are turned (:func:`turn_gap`, 0 to 1): every player lays a hand
    facing themselves, so two hands that touch still differ in direction, while the cards of one hand
    (a row, a cascade, a fan of a few degrees a card) differ little. With ``n_groups`` (the kiosk knows how
    many players laid their hands) the cards are cut into exactly that many clusters by average linkage:
    the two clusters whose cards are nearest *on average* merge first, so one misread card whose corners
    lie in two hands, or two hands whose nearest cards touch, do not glue whole hands together as a chain
    of near neighbours would (single linkage). Fewer cards than ``n_groups`` give one cluster per card.

    Without ``n_groups`` two cards are in the same hand when a chain of cards joins them with no gap over
    ``link`` corner sizes (single linkage): in a fanned or overlapping hand the nearest corner of the next
    card lies well within that, so hands laid about a card's width apart separate, and with the turn
    added touching hands turned apart do too. ``turn=0`` groups by position alone.

    Both ways are scored by the pair measure of ``python -m vision.devtools.evaluate`` (pairs of rightly read
    cards
    put together or apart as laid), which prints the figures; docs/vision.md ("Hands") says how the turn's
    weight and the rule were chosen. Groups come in order of their first card; indices within a group
    ascend.
    """
    if n_groups is not None and n_groups < 1:
        raise InvalidValueError(f"n_groups must be at least 1, got {n_groups}")
    if link <= 0:
        raise InvalidValueError(f"link must be positive, got {link}")
    if turn < 0:
        raise InvalidValueError(f"turn must be zero or positive, got {turn}")
    n = len(cards)
    if n == 0:
        return []
    scale = corner_scale(cards)
    dirs = [card_direction(c) for c in cards]
    dist = [
        [_card_distance(a, b) + turn * scale * _turn_gap(a, b, dirs[i], dirs[j]) for j, b in enumerate(cards)]
        for i, a in enumerate(cards)
    ]
    if n_groups is not None:
        clusters = _average_linkage(dist, min(n_groups, n))
    else:
        clusters = _single_linkage(dist, link * scale)
    return sorted((sorted(c) for c in clusters), key=lambda g: g[0])


def _average_linkage(dist: list[list[float]], k: int) -> list[list[int]]:
    """Merge the pair of clusters with the least mean card-to-card distance until ``k`` are left."""
    members = {i: [i] for i in range(len(dist))}
    d = {(i, j): dist[i][j] for i in range(len(dist)) for j in range(i + 1, len(dist))}
    while len(members) > k:
        _, a, b = min((v, i, j) for (i, j), v in d.items())
        na, nb = len(members[a]), len(members[b])
        for c in members:
            if c not in (a, b):
                ac, bc = (min(a, c), max(a, c)), (min(b, c), max(b, c))
                d[ac] = (na * d[ac] + nb * d.pop(bc)) / (na + nb)  # Lance-Williams update
        del d[(a, b)]
        members[a] += members.pop(b)
    return list(members.values())


def _single_linkage(dist: list[list[float]], limit: float) -> list[list[int]]:
    """Clusters joined by chains of card distances up to ``limit`` (union-find over the close pairs)."""
    root = list(range(len(dist)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i in range(len(dist)):
        for j in range(i + 1, len(dist)):
            if dist[i][j] <= limit:
                root[find(i)] = find(j)
    clusters: dict[int, list[int]] = {}
    for i in range(len(dist)):
        clusters.setdefault(find(i), []).append(i)
    return list(clusters.values())
