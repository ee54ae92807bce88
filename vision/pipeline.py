"""Photo in, cards out: :func:`read_cards` (detect, pair corners, group hands) and :func:`annotate`."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.base.photo import check_image_array, check_not_blank, load_image
from vision.base.types import CardReading, box_center
from vision.runtimes.protocols import Detector
from vision.table.cards import (
    DEFAULT_RULES,
    PairingRules,
    cards_from_detections,
    check_decks,
    group_into_hands,
    limit_copies,
)


def read_cards(
    image: np.ndarray | str | Path,
    detector: Detector,
    n_hands: int | None = None,
    rules: PairingRules = DEFAULT_RULES,
    name: str | None = None,
    decks: int | None = None,
) -> CardReading:
    """Read every card in a photo (a BGR array or an image file) and group them into hands.

    ``decks``, when given, is how many packs the cards come from: a code read more often than they hold
    is read again from its alternatives (:func:`vision.table.cards.limit_copies`).

    ``ms`` in the result is the time from the decoded image to the card list (detection, pairing and
    grouping). Raises :class:`ImageError` for a missing, unreadable or blank photo and
    :class:`ModelError` when the model cannot be loaded.
    """
    if decks is not None:
        check_decks(decks)  # before the photo is read: a bad argument fails at once
    if isinstance(image, str | Path):
        label = name or str(image)
        array = load_image(image)
    else:
        label = name or "photo"
        array = image
    check_not_blank(array, label)
    start = time.perf_counter()
    detections = detector.detect(array)
    cards = cards_from_detections(detections, rules)
    if decks is not None:
        cards = limit_copies(cards, decks)
    hands = group_into_hands(cards, n_hands)
    ms = (time.perf_counter() - start) * 1000.0
    h, w = array.shape[:2]
    return CardReading(label, ms, tuple(cards), tuple(tuple(g) for g in hands), w, h)


# BGR colours for hands (Okabe-Ito palette, readable for colour-blind players), and for doubtful cards.
HAND_COLOURS = [(178, 114, 0), (0, 159, 230), (115, 158, 0), (167, 121, 204), (66, 228, 240), (0, 94, 213)]
UNCERTAIN_COLOUR = (0, 0, 255)


def annotate(image: np.ndarray, reading: CardReading) -> np.ndarray:
    """A copy of ``image`` with each card's corner boxes drawn and labelled ``code confidence``.

    Cards are coloured by hand; uncertain cards are drawn in red with a ``?`` and their best alternative.
    """
    import cv2

    check_image_array(image)
    out = image.copy()
    h, w = out.shape[:2]
    thickness = max(1, round(max(h, w) / 500))
    font_scale = max(0.4, max(h, w) / 1600)
    hand_of = {i: k for k, hand in enumerate(reading.hands) for i in hand}
    for i, card in enumerate(reading.cards):
        colour = UNCERTAIN_COLOUR if card.uncertain else HAND_COLOURS[hand_of.get(i, 0) % len(HAND_COLOURS)]
        for x1, y1, x2, y2 in card.boxes:
            cv2.rectangle(out, (round(x1), round(y1)), (round(x2), round(y2)), colour, thickness)
        if len(card.boxes) == 2:
            (ax, ay), (bx, by) = (box_center(b) for b in card.boxes)
            cv2.line(out, (round(ax), round(ay)), (round(bx), round(by)), colour, max(1, thickness // 2))
        label = f"{card.code} {card.confidence:.2f}"
        if card.uncertain:
            label += "?" + (f" {card.alternatives[0][0]}" if card.alternatives else "")
        x1, y1 = card.boxes[0][0], card.boxes[0][1]
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        tx, ty = round(max(0, min(x1, w - tw))), round(max(th + base, y1 - 3))
        cv2.rectangle(out, (tx, ty - th - base), (tx + tw, ty + base // 2), colour, cv2.FILLED)
        cv2.putText(
            out,
            label,
            (tx, ty - base // 2),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            (255, 255, 255),
            thickness,
            cv2.LINE_AA,
        )
    return out
