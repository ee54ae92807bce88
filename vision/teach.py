"""Teaching a deck: a family shows the kiosk their cards in a known order (photos of one card each, named by
its code, or rows of cards: one suit, ace to king, left to right), and the corners of every card are kept
as the deck's memory (:mod:`vision.deck.memory`).

Teaching checks what it is shown before anything is saved (:func:`teach`): a photo whose cards do not
number what it should show, a row photo most of whose cards the standard reading sees as other cards (the
wrong suit, a row laid right to left), a single card the reader is sure is of another suit, too few
different cards, and two taught cards that look alike to the reader (one of them is the wrong card) are
refused with a :class:`~vision.deck.memory.DeckError` naming the photo and the cards.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.base.errors import VisionError
from vision.base.geometry import box_iou_one
from vision.base.types import (
    CARD_CODES,
    Box,
    CardReading,
    DetectedCard,
    Detection,
    box_center,
    box_size,
    union_box,
)
from vision.deck.memory import DeckError, DeckMemory, kept_patch, reader_of
from vision.deck.shelf import check_deck_name
from vision.pipeline import read_cards
from vision.reader.corners import CornerReader
from vision.runtimes.protocols import Detector
from vision.table.cards import cards_from_detections

ONE_CARD_SPAN = 10.0  # corner sizes: one card's corners lie at most this far apart (vision.table.cards: 9)
WRONG_SHARE = 0.5  # a row photo with more than this share of its cards read as other cards is refused
SURE = 0.9  # a single card the reader reads as another suit this surely is refused


def code_from_filename(path: str | Path) -> str:
    """The card code a single-card photo is named by: ``QH.jpg``, ``10s.png``, ``JK-2.jpg`` (a suffix after
    ``-`` tells two photos of one card apart). A DeckError naming the file when it names no card."""
    stem = Path(path).stem
    code = stem.split("-")[0].strip().upper()
    if code not in CARD_CODES:
        raise DeckError(
            f"{Path(path).name}: the file name is not a card code (name single-card photos like QH.jpg, "
            "10S.png, JK-2.jpg)"
        )
    return code


def parse_order(text: str | Sequence[str]) -> tuple[str, ...]:
    """Card codes left to right, given as ``"AH 2H 3H"`` or ``"AH,2H"`` (or a list of such); a DeckError
    naming every unknown code."""
    words = [text] if isinstance(text, str) else list(text)
    codes = [w.strip().upper() for part in words for w in re.split(r"[\s,]+", part) if w.strip()]
    unknown = [c for c in codes if c not in CARD_CODES]
    if unknown:
        raise DeckError(
            f"unknown card code{'s' * (len(unknown) > 1)} {', '.join(unknown)} (codes: AS, 10H, QD, JK)"
        )
    if not codes:
        raise DeckError("the order names no cards")
    return tuple(codes)


@dataclass(frozen=True)
class TeachPhoto:
    """A photo shown to teach a deck and the cards it shows, in reading order (left to right; a second
    row below the first continues it)."""

    name: str
    image: np.ndarray
    codes: tuple[str, ...]


@dataclass(frozen=True)
class CardMatch:
    """One card of a teaching photo: the code it is taught as and what the standard reading saw there."""

    photo: str
    code: str
    read: str
    confidence: float
    boxes: tuple[Box, ...]

    @property
    def agrees(self) -> bool:
        return self.read == self.code


def reading_order(cards: Sequence[DetectedCard]) -> list[int]:
    """Indices of ``cards`` in reading order: rows from top to bottom (a new row where a card's centre lies
    more than a card's height below the row's), each left to right."""
    if not cards:
        return []
    centres = [_centre(c) for c in cards]
    heights = [max(box_size(b) for b in c.boxes) * 4.0 for c in cards]  # a corner is about 1/4 of a card
    by_y = sorted(range(len(cards)), key=lambda i: centres[i][1])
    rows: list[list[int]] = [[by_y[0]]]
    for i in by_y[1:]:
        row = rows[-1]
        row_y = sum(centres[j][1] for j in row) / len(row)
        if centres[i][1] - row_y > max(heights[j] for j in row) * 0.75:
            rows.append([i])
        else:
            row.append(i)
    return [i for row in rows for i in sorted(row, key=lambda j: centres[j][0])]


def _centre(card: DetectedCard) -> tuple[float, float]:
    xs, ys = zip(*(box_center(b) for b in card.boxes), strict=True)
    return sum(xs) / len(xs), sum(ys) / len(ys)


def by_geometry(cards: Sequence[DetectedCard]) -> list[DetectedCard]:
    """The corners of ``cards`` grouped into cards by where they lie alone, whatever they were read as (a
    card whose two corners were read as two different cards becomes one again): every corner paired as if
    all had one code (:func:`vision.table.cards.cards_from_detections`), each card then taking the code and
    confidence of its surest corner."""
    corners = [(box, card) for card in cards for box in card.boxes]
    placeholder = CARD_CODES[0]
    grouped = cards_from_detections([Detection(placeholder, card.confidence, box) for box, card in corners])
    out = []
    for group in grouped:
        owners = [card for box, card in corners if box in group.boxes]
        best = max(owners, key=lambda c: c.confidence)
        out.append(DetectedCard(best.code, best.confidence, True, group.boxes))
    return out


def outside_cards(cards: Sequence[DetectedCard]) -> list[DetectedCard]:
    """``cards`` without the one-corner cards that lie inside another card (between the two corners it
    was read by: a court card's big letter or a pip read as an index)."""
    spans = [union_box(c.boxes) for c in cards if len(c.boxes) >= 2]

    def inside(card: DetectedCard) -> bool:
        x, y = box_center(card.boxes[0])
        return any(x0 < x < x1 and y0 < y < y1 for x0, y0, x1, y1 in spans)

    return [c for c in cards if len(c.boxes) >= 2 or not inside(c)]


def usual_size(cards: Sequence[DetectedCard], ratio: float = 2.0) -> list[DetectedCard]:
    """``cards`` without those whose corners are more than ``ratio`` times larger or smaller than the
    photo's median corner (a court card's big letter read as an index, a pip read as a small one)."""
    if not cards:
        return []
    sizes = [float(np.median([box_size(b) for b in c.boxes])) for c in cards]
    median = float(np.median(sizes))
    return [c for c, s in zip(cards, sizes, strict=True) if median / ratio <= s <= median * ratio]


def split_merged(cards: Sequence[DetectedCard], want: int) -> list[DetectedCard]:
    """``cards`` with the cards of three or four corners split in two, left corners and right corners,
    while there are fewer than ``want``: two cards read alike (the deck's 3 read as its 5, two cards from
    the real 5) whose corners the pairing joined into one."""
    out = list(cards)
    while len(out) < want:
        merged = [c for c in out if len(c.boxes) >= 3]
        if not merged:
            break
        card = max(merged, key=lambda c: len(c.boxes))
        boxes = sorted(card.boxes, key=lambda b: box_center(b)[0])
        half = len(boxes) // 2
        k = out.index(card)
        out[k : k + 1] = [
            DetectedCard(card.code, card.confidence, True, tuple(boxes[:half])),
            DetectedCard(card.code, card.confidence, True, tuple(boxes[half:])),
        ]
    return out


def one_card(cards: Sequence[DetectedCard]) -> bool:
    """Whether the corners of ``cards`` can all be one card's: at most four, and all read as one code (a
    joker whose small mark lies further apart than the pairing allows) or no two further apart than a
    card is long (``ONE_CARD_SPAN`` corner sizes)."""
    boxes = [b for c in cards for b in c.boxes]
    if not boxes or len(boxes) > 4:
        return False
    if len({c.code for c in cards}) == 1:
        return True
    size = float(np.median([box_size(b) for b in boxes]))
    centres = np.array([box_center(b) for b in boxes])
    span = float(np.max(np.linalg.norm(centres[:, None] - centres[None], axis=-1)))
    return span <= ONE_CARD_SPAN * size


def match_photo(photo: TeachPhoto, reading: CardReading) -> list[CardMatch]:
    """The cards of ``reading`` (the standard reading of ``photo``) matched, in reading order, to the codes
    the photo should show. A DeckError naming the photo when the count differs or most cards read as
    other cards (a row of the wrong suit, laid the other way); see the module doc."""
    cards = list(reading.cards)
    want = len(photo.codes)
    if len(cards) != want:
        regrouped = by_geometry(cards)
        usual = usual_size(outside_cards(cards))
        split = split_merged(cards, want)
        if len(regrouped) == want:
            cards = regrouped
        elif len(usual) == want:
            cards = usual
        elif len(split) == want:
            cards = split
        elif want == 1 and one_card(cards):
            best = max(cards, key=lambda c: c.confidence)
            cards = [DetectedCard(best.code, best.confidence, True, tuple(b for c in cards for b in c.boxes))]
    n = len(cards)
    if n != want:
        if want == 1:
            what = "no card" if n == 0 else f"{n} cards ({' '.join(c.code for c in cards)})"
            raise DeckError(
                f"{photo.name}: found {what}; a single-card photo must show exactly one card: take it again "
                "with the card alone, face up, in view"
            )
        seen = " ".join(cards[i].code for i in reading_order(cards)) or "none"
        raise DeckError(
            f"{photo.name}: found {n} card{'s' * (n != 1)}, expected {want} (read: {seen}); lay the cards "
            "apart, all face up, and take the photo again"
        )
    order = reading_order(cards)
    matches = [
        CardMatch(photo.name, code, cards[i].code, cards[i].confidence, cards[i].boxes)
        for code, i in zip(photo.codes, order, strict=True)
    ]
    wrong = [m for m in matches if not m.agrees]
    if want > 1 and len(wrong) > WRONG_SHARE * want:
        pairs = ", ".join(f"{m.code} read {m.read}" for m in wrong[:4])
        raise DeckError(
            f"{photo.name}: {len(wrong)} of {want} cards read as other cards ({pairs}"
            f"{', ...' if len(wrong) > 4 else ''}): is it the right suit, laid left to right?"
        )
    if want == 1:
        m = matches[0]
        if m.read[-1] != m.code[-1] and m.read != "JK" and m.code != "JK" and m.confidence >= SURE:
            raise DeckError(
                f"{photo.name}: the reader is sure this card is {m.read}, not {m.code} (another suit); "
                "is it the right photo?"
            )
    return matches


def standard_reading(image: np.ndarray, detector: Detector, name: str) -> CardReading:
    """``detector``'s reading of ``image`` without any taught deck (teaching reads as the standard reader
    does, so that what it keeps does not depend on a deck in use)."""
    reader = reader_of(detector)
    in_use, reader.deck = reader.deck, None
    try:
        return read_cards(image, detector, name=name)
    finally:
        reader.deck = in_use


def read_photo(photo: TeachPhoto, detector: Detector) -> list[CardMatch]:
    """One teaching photo read (the standard reading) and matched to the cards it should show; a
    DeckError naming the photo when it cannot be (see :func:`match_photo`)."""
    try:
        return match_photo(photo, standard_reading(photo.image, detector, photo.name))
    except DeckError:
        raise
    except VisionError as exc:
        raise DeckError(f"{photo.name}: {exc}") from exc


def memory_from(
    name: str,
    taught: Sequence[tuple[np.ndarray, Sequence[CardMatch]]],
    reader: CornerReader,
    into: DeckMemory | None = None,
) -> DeckMemory:
    """The memory of the corners of matched cards (each photo with its matches, codes as confirmed),
    added to ``into`` when given, checked (:meth:`DeckMemory.check`) so that it may be saved."""
    name = check_deck_name(name)
    patches, codes, sources = [], [], []
    for image, matches in taught:
        for m in matches:
            for box in m.boxes:
                patches.append(kept_patch(image, box))
                codes.append(m.code)
                sources.append(m.photo)
    if not patches:
        raise DeckError("no cards to teach")
    memory = DeckMemory.build(name, codes, np.stack(patches), sources, reader)
    if into is not None:
        memory = into.merged(memory)
    memory.check()
    return memory


def teach(
    name: str,
    photos: Sequence[TeachPhoto],
    detector: Detector,
    into: DeckMemory | None = None,
    skipped: list[str] | None = None,
) -> tuple[DeckMemory, list[CardMatch]]:
    """Read each photo with ``detector``'s standard reading, match its cards to the codes it should show,
    and build the memory of their corners (added to ``into`` when given). Every problem of every photo,
    then of the whole deck, is raised as one :class:`DeckError` before anything could be saved.

    With ``skipped`` (a list), a photo that cannot be used (no card in it, more or fewer cards than it
    should show, a row read as other cards) is left out instead: its problem, which says what to retake,
    is appended to ``skipped`` and the other photos are taught. The deck's own problems (too few cards,
    two cards alike) are still raised, and so is a set of photos none of which can be used.
    """
    reader = reader_of(detector)
    name = check_deck_name(name)
    if not photos:
        raise DeckError("no photos to teach from")
    problems: list[str] = []
    taught: list[tuple[np.ndarray, list[CardMatch]]] = []
    for photo in photos:
        try:
            taught.append((photo.image, read_photo(photo, detector)))
        except DeckError as exc:
            (problems if skipped is None else skipped).extend(exc.problems)
    if problems:
        raise DeckError(problems)
    if not taught:
        raise DeckError(["no photo could be used", *(skipped or [])])
    memory = memory_from(name, taught, reader, into)
    return memory, [m for _, matches in taught for m in matches]


def confirmed_matches(
    image: np.ndarray,
    detected: Sequence[tuple[str, Box]],
    confirmed: Sequence[str],
    detector: Detector,
    photo: str,
    iou: float = 0.5,
) -> list[CardMatch]:
    """The cards of a kept game photo whose code the players confirmed, ready to teach: ``detected`` is
    what the scan read (code and card box), ``confirmed`` the codes the players kept for it. A card read
    as a code they kept is taught as that; where they corrected exactly one card (one code read that they
    did not keep, one kept that was not read) the correction is taught; other disagreements are left out.
    The corner boxes come from reading the photo again (standard reading), matched by card box."""
    kept = Counter(confirmed)
    codes: list[str | None] = []
    for code, _ in detected:
        if kept[code] > 0:
            kept[code] -= 1
            codes.append(code)
        else:
            codes.append(None)
    unread = list(kept.elements())
    if codes.count(None) == 1 and len(unread) == 1:
        codes[codes.index(None)] = unread[0]
    reading = standard_reading(image, detector, photo)
    boxes = np.array([c.box for c in reading.cards], np.float32).reshape(-1, 4)
    out = []
    for (read, box), taught in zip(detected, codes, strict=True):
        if taught is None or not len(boxes):
            continue
        overlap = box_iou_one(np.asarray(box, np.float32), boxes)
        k = int(overlap.argmax())
        if overlap[k] >= iou:
            card = reading.cards[k]
            out.append(CardMatch(photo, taught, read, card.confidence, card.boxes))
    return out
