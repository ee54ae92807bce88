"""From corner detections to physical cards, and from cards to hands.

The model finds card *corner indices* (the rank and suit printed in two opposite corners of every card).
A card lying open usually shows both, so the corners must be paired: two corners with the same code
whose centres lie about a card's diagonal apart (measured in corner-box sizes, so it works at any
camera height) and whose boxes have about the same size are one card. A corner without a partner is
still a card (its other corner is covered). Two corners with the same code that are too close or too far
apart to be one card are two cards: the two-deck games (Seep, Jhyap with two packs) have duplicates.

All geometry is in units of the corner box *size* ``sqrt(w * h)``, which changes little when a card is
rotated, so the thresholds hold at any distance between camera and table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from vision.types import Box, DetectedCard, Detection, box_center, box_size


@dataclass(frozen=True)
class PairingRules:
    """Geometry and confidence thresholds for turning corners into cards.

    ``min_ratio``..``max_ratio`` bound the distance between the two corner centres of one card, in corner
    sizes (``expected_ratio`` is the typical value, used to pick the best partner); ``max_size_ratio``
    bounds how much the two corner boxes of one card may differ in size. A card is uncertain when its
    confidence is under ``uncertain_below``, or when on every corner of it another code scores at least
    ``compete_ratio`` times the corner's own confidence.
    """

    min_ratio: float = 2.5
    max_ratio: float = 9.0
    expected_ratio: float = 5.0
    max_size_ratio: float = 1.6
    uncertain_below: float = 0.5
    compete_ratio: float = 0.5

    def __post_init__(self) -> None:
        if not 0 < self.min_ratio <= self.expected_ratio <= self.max_ratio:
            raise ValueError(
                f"need 0 < min_ratio <= expected_ratio <= max_ratio, got {self.min_ratio}, "
                f"{self.expected_ratio}, {self.max_ratio}"
            )
        if self.max_size_ratio < 1:
            raise ValueError(f"max_size_ratio must be >= 1, got {self.max_size_ratio}")
        if not 0 <= self.uncertain_below <= 1 or not 0 < self.compete_ratio <= 1:
            raise ValueError(
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


def _make_card(corners: Sequence[Detection], rules: PairingRules, code: str | None = None) -> DetectedCard:
    code = code or max(corners, key=lambda d: d.confidence).code
    confidence = max(d.confidence for d in corners if d.code == code)
    alternatives: dict[str, float] = {}
    for det in corners:
        others = [*det.alternatives, (det.code, det.confidence)]
        for alt_code, score in others:
            if alt_code != code:
                alternatives[alt_code] = max(alternatives.get(alt_code, 0.0), score)
    torn = any(d.code != code for d in corners) or all(_competes(d, rules) for d in corners)
    uncertain = confidence < rules.uncertain_below or torn
    ordered = tuple(sorted(alternatives.items(), key=lambda kv: (-kv[1], kv[0])))
    boxes = tuple(d.box for d in sorted(corners, key=lambda d: (d.box[1], d.box[0])))
    return DetectedCard(code, confidence, uncertain, boxes, ordered)


def _match(
    dets: Sequence[Detection], candidates: list[tuple[float, int, int]], used: set[int]
) -> list[tuple[int, int]]:
    """Greedy matching: best-fitting pairs first, each corner in at most one pair."""
    pairs = []
    for _cost, i, j in sorted(candidates):
        if i in used or j in used:
            continue
        used.update((i, j))
        pairs.append((i, j))
    return pairs


def cards_from_detections(
    detections: Sequence[Detection], rules: PairingRules = DEFAULT_RULES
) -> list[DetectedCard]:
    """The physical cards in a photo, from its corner detections, in reading order (top to bottom).

    Same-code corners that fit as one card's two corners become one card; every other corner is a card
    of its own (a covered partner, or a duplicate from a second deck). Two corners with *different*
    codes also make one (uncertain) card when they fit geometrically and the model gave each one's code
    real weight for the other (a 6 read as 9 in one corner), so one card is not counted twice.
    """
    dets = list(detections)
    used: set[int] = set()
    same_code: list[tuple[float, int, int]] = []
    for i in range(len(dets)):
        for j in range(i + 1, len(dets)):
            if dets[i].code == dets[j].code:
                cost = pair_cost(dets[i], dets[j], rules)
                if cost is not None:
                    same_code.append((cost, i, j))
    groups: list[tuple[list[Detection], str | None]] = [
        ([dets[i], dets[j]], None) for i, j in _match(dets, same_code, used)
    ]

    torn_pairs: list[tuple[float, int, int]] = []
    left = [i for i in range(len(dets)) if i not in used]
    for a_pos, i in enumerate(left):
        for j in left[a_pos + 1 :]:
            a, b = dets[i], dets[j]
            if a.code == b.code:
                continue
            if b.code in dict(a.alternatives) and a.code in dict(b.alternatives):
                cost = pair_cost(a, b, rules)
                if cost is not None:
                    torn_pairs.append((cost, i, j))
    for i, j in _match(dets, torn_pairs, used):
        a, b = dets[i], dets[j]
        # The code with the most total weight over both corners wins.
        weight_a = a.confidence + dict(b.alternatives)[a.code]
        weight_b = b.confidence + dict(a.alternatives)[b.code]
        groups.append(([a, b], a.code if weight_a >= weight_b else b.code))
    groups.extend(([dets[i]], None) for i in range(len(dets)) if i not in used)

    cards = [_make_card(corners, rules, code) for corners, code in groups]
    # Reading order of each card's top corner (for a pair, the union box centre would sit mid-card).
    cards.sort(key=lambda c: (box_center(c.boxes[0])[1], box_center(c.boxes[0])[0], c.code))
    return cards


def corner_scale(cards: Sequence[DetectedCard]) -> float:
    """The median corner-box size of the cards (pixels); 0 for no cards."""
    sizes = sorted(box_size(b) for card in cards for b in card.boxes)
    if not sizes:
        return 0.0
    mid = len(sizes) // 2
    return sizes[mid] if len(sizes) % 2 else (sizes[mid - 1] + sizes[mid]) / 2


def _card_distance(a: DetectedCard, b: DetectedCard) -> float:
    return min(_center_distance(p, q) for p in a.boxes for q in b.boxes)


def group_into_hands(
    cards: Sequence[DetectedCard], n_groups: int | None = None, link: float = 7.0
) -> list[list[int]]:
    """Cluster cards by where they lie: each cluster is one player's hand (lists of card indices).

    Single linkage on the distance between the cards' nearest corners. Without ``n_groups`` two cards
    are in the same hand when a chain of cards joins them with no gap over ``link`` corner sizes (a hand
    spread on the table has neighbouring corners a card's width apart, about 4-5 corner sizes; separate
    hands lie further apart). With ``n_groups`` the cards are cut into exactly that many clusters (the
    widest gaps are cut), or one per card if there are fewer cards. Groups come in order of their first
    card; indices within a group ascend.
    """
    if n_groups is not None and n_groups < 1:
        raise ValueError(f"n_groups must be at least 1, got {n_groups}")
    if link <= 0:
        raise ValueError(f"link must be positive, got {link}")
    n = len(cards)
    if n == 0:
        return []
    # Prim's minimum spanning tree; single-linkage clusters are the MST minus its longest edges.
    in_tree = [False] * n
    best = [math.inf] * n
    parent = [-1] * n
    best[0] = 0.0
    edges: list[tuple[float, int, int]] = []
    for _ in range(n):
        u = min((i for i in range(n) if not in_tree[i]), key=lambda i: best[i])
        in_tree[u] = True
        if parent[u] >= 0:
            edges.append((best[u], parent[u], u))
        for v in range(n):
            if not in_tree[v]:
                d = _card_distance(cards[u], cards[v])
                if d < best[v]:
                    best[v], parent[v] = d, u
    edges.sort()
    if n_groups is not None:
        kept = edges[: max(0, n - min(n_groups, n))]
    else:
        limit = link * corner_scale(cards)
        kept = [e for e in edges if e[0] <= limit]
    root = list(range(n))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for _d, a, b in kept:
        root[find(a)] = find(b)
    clusters: dict[int, list[int]] = {}
    for i in range(n):
        clusters.setdefault(find(i), []).append(i)
    return sorted(clusters.values(), key=lambda g: g[0])
