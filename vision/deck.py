"""A taught deck: the corner reader's memory of one family's own cards, blended into its reading.

The corner reader (:mod:`vision.reader`) was trained on synthetic decks only. A family teaches it the deck
they play with by showing it their cards in a known order: photos of one card each (named by its code) or
rows of cards (one suit, ace to king, left to right). Every corner of every taught card is cut from the
photo (:func:`vision.reader.corner_patch`, with more context kept so it can be turned and shifted later),
and the reader's penultimate features of those patches, each seen in ``len(VIEWS)`` turns and shifts (a
card on the table lies at any angle), are the deck's memory (:class:`DeckMemory`).

Reading with a taught deck, the reader computes the same features of every corner it reads; the memory's
**class prototypes** (the mean feature of each taught card, centred on the deck's own mean) give, by cosine
similarity, a second opinion over the taught cards, which is blended into the reader's card
probabilities (:meth:`DeckMemory.blend`) wherever the reader is less than ``GATE`` sure of its best card
and the memory's best prototype is at least ``MARGIN`` closer than its runner-up (where the memory cannot
tell two taught cards apart, the reader's reading stands): the share the reader gave the taught cards is
redistributed among them, ``(1 - weight) * reader + weight * memory``; cards never taught and the reader's
"no corner" share are left alone.

The deck also looks again at what the detector cut (:meth:`DeckMemory.rescue`): the faint candidates of one
upright pass (down to ``RESCUE_FLOOR``) that overlap no corner read are read by the reader, and one the
memory is sure of (``RESCUE_SIMILARITY`` to a prototype, ``RESCUE_MARGIN`` over the runner-up) is added as
that card, marked doubtful. All these thresholds were chosen by measurement on designs not reported
(``python -m models.training.deck_teaching``). Without a deck the reader reads exactly as before.

A deck lives in the data directory, ``<data>/decks/<name>/`` (:class:`DeckShelf`): ``memory.npz`` (the
patches, their codes and photos, the features) and ``deck.json`` (what a person reads: cards, photos,
when). It is written whole to a temporary folder and renamed into place, so nothing is ever half-saved, and
removing it removes the folder. A memory made with another reader model (its fingerprint differs) is
rebuilt from the kept patches when loaded.

Teaching checks what it is shown before anything is saved (:func:`teach`): a photo whose cards do not
number what it should show, a row photo most of whose cards the standard reading sees as other cards (the
wrong suit, a row laid right to left), a single card the reader is sure is of another suit, too few
different cards, and two taught cards that look alike to the reader (one of them is the wrong card) are
refused with a :class:`DeckError` naming the photo and the cards.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.errors import ModelError, VisionError
from vision.reader import CONTEXT, PATCH, CornerReader, corner_patch
from vision.types import (
    CARD_CODES,
    Box,
    CardReading,
    DetectedCard,
    Detection,
    box_center,
    box_size,
    union_box,
)

DECKS_DIR = "decks"  # in the data directory
MEMORY_FILE = "memory.npz"
INFO_FILE = "deck.json"
FORMAT = 1
STANDARD = "standard"  # the reading without a taught deck; not a deck name
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$")

STORE_CONTEXT = 2.0  # a kept patch's side over the corner box's longer side (the runtime cuts 1.5)
STORE = round(PATCH * STORE_CONTEXT / CONTEXT)  # 64 pixels
# Each kept corner is seen in these views: (turn in degrees, shift x, shift y in box sides, scale). Cards lie
# at any angle on the table and the detector's boxes are loose, as the reader's training augmentations say.
VIEWS: tuple[tuple[float, float, float, float], ...] = tuple(
    (angle, 0.06 * math.cos(k * 2.1), 0.06 * math.sin(k * 2.1), 1.0 + 0.08 * math.sin(k * 1.3))
    for k, angle in enumerate(range(0, 360, 30))
)

MIN_CARDS = 13  # different cards a deck must be taught: one suit, ace to king
# The memory's settings below were chosen with python -m models.training.deck_teaching --tune.
BLEND_WEIGHT = 1.0  # the memory's share of the taught cards' probability
TEMPERATURE = 0.02  # of the cosine similarities' softmax
TOP = 0  # the memory only chooses among the reader's this many best cards (0: all taught)
GATE = 0.9  # the memory only acts where the reader's best card is less sure than this (over 1: always)
RERANK = True  # the memory may only re-rank: no card's probability above the reader's best
MARGIN = 0.1  # the memory only acts where its best card's prototype is this much closer than the next's
VOUCH = 0.0  # the detector's say in which taught card a corner is (merge)
RESCUE_FLOOR = 0.01  # a taught deck looks again at the detector's candidates down to this score
RESCUE_NMS = 0.5  # one faint candidate per spot (IoU)
RESCUE_OVERLAP = 0.3  # a faint candidate overlapping a corner found more than this (IoU) is that corner's
RESCUE_SIMILARITY = 0.8  # the memory is sure of a corner this similar to a taught card's prototype ...
RESCUE_MARGIN = 0.15  # ... and this much more similar than to the runner-up's
ALIKE = 0.9  # two taught cards' prototypes this similar (cosine, centred) are one card taught twice
ONE_CARD_SPAN = 10.0  # corner sizes: one card's corners lie at most this far apart (vision.cards: 9)
WRONG_SHARE = 0.5  # a row photo with more than this share of its cards read as other cards is refused
SURE = 0.9  # a single card the reader reads as another suit this surely is refused


class DeckError(VisionError):
    """Teaching a deck, or finding a taught one, failed; ``problems`` has one line per problem."""

    def __init__(self, problems: str | Sequence[str]) -> None:
        self.problems = (problems,) if isinstance(problems, str) else tuple(problems)
        super().__init__("\n".join(self.problems))


def check_deck_name(name: str) -> str:
    """``name`` stripped if it can name a deck (letters, digits, space, ``_ . -``; 1-40 characters, not
    ``standard``), else a DeckError saying what is allowed."""
    stripped = name.strip()
    if stripped.lower() == STANDARD:
        raise DeckError(f"{STANDARD!r} is the reading without a taught deck; choose another name")
    if not NAME_RE.match(stripped):
        raise DeckError(
            f"deck name {name!r}: use 1-40 letters, digits, spaces, '_', '.' or '-', starting with a "
            "letter or digit"
        )
    return stripped


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


# ------------------------------------------------------------------------------------------- what is shown


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
    all had one code (:func:`vision.cards.cards_from_detections`), each card then taking the code and
    confidence of its surest corner."""
    from vision.cards import cards_from_detections

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
            raise DeckError(f"{photo.name}: found {what}; a single-card photo must show exactly one card")
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


# -------------------------------------------------------------------------------------------- the memory


def kept_patch(image: np.ndarray, box: Box) -> np.ndarray:
    """The patch kept of one taught corner: ``STORE`` pixels with ``STORE_CONTEXT`` context."""
    return corner_patch(image, box, STORE, STORE_CONTEXT)


def views(kept: np.ndarray, size: int = PATCH, context: float = CONTEXT) -> list[np.ndarray]:
    """The reader's patches of one kept corner patch, one per entry of :data:`VIEWS` (turned, shifted and
    scaled around its centre; edges repeated)."""
    import cv2

    side = kept.shape[0]
    box = side / STORE_CONTEXT  # the corner box's longer side in kept-patch pixels
    out = []
    for angle, dx, dy, scale in VIEWS:
        # the runtime's square (context x box) at the shifted centre, scaled, turned, mapped to size
        centre = (side / 2 + dx * box, side / 2 + dy * box)
        matrix = cv2.getRotationMatrix2D(centre, angle, size / (box * context * scale))
        matrix[:, 2] += np.array([size / 2, size / 2]) - np.array(centre)
        out.append(
            cv2.warpAffine(kept, matrix, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        )
    return out


def reader_fingerprint(reader: CornerReader) -> str:
    """A short hash of the reader model file: features are only comparable within one model."""
    digest = hashlib.sha256(reader.model_path.read_bytes()).hexdigest()
    return digest[:16]


def _unit(x: np.ndarray) -> np.ndarray:
    norms: np.ndarray = np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)
    return np.asarray(x / norms, np.float32)


@dataclass
class DeckMemory:
    """What a deck was taught: per kept corner its code, its patch and the photo it came from, and the
    reader's features of each view of each corner (``features[k]`` belongs to corner ``k // len(VIEWS)``).

    :meth:`blend` is what the reader does with it (see the module doc)."""

    name: str
    codes: tuple[str, ...]
    patches: np.ndarray  # K x STORE x STORE x 3 uint8 BGR
    sources: tuple[str, ...]
    features: np.ndarray  # (K * len(VIEWS)) x F float32
    reader: str  # reader_fingerprint of the model the features come from
    weight: float = BLEND_WEIGHT
    temperature: float = TEMPERATURE
    vouch: float = VOUCH
    top: int = TOP
    gate: float = GATE
    rerank: bool = RERANK
    margin: float = MARGIN
    sure_similarity: float = RESCUE_SIMILARITY
    sure_margin: float = RESCUE_MARGIN
    created: str = ""
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        name: str,
        codes: Sequence[str],
        patches: np.ndarray,
        sources: Sequence[str],
        reader: CornerReader,
        created: str = "",
    ) -> DeckMemory:
        """The memory of kept corner ``patches`` (K x STORE x STORE x 3) taught as ``codes``."""
        features = cls.features_of(patches, reader)
        return cls(
            name,
            tuple(codes),
            np.ascontiguousarray(patches, np.uint8),
            tuple(sources),
            features,
            reader_fingerprint(reader),
            created=created or dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        )

    @staticmethod
    def features_of(patches: np.ndarray, reader: CornerReader, batch: int = 256) -> np.ndarray:
        seen = [v for kept in patches for v in views(kept, reader.size, reader.context)]
        parts = [reader.read_patches(seen[i : i + batch])[2] for i in range(0, len(seen), batch)]
        return np.concatenate(parts).astype(np.float32) if parts else np.zeros((0, 0), np.float32)

    @property
    def cards(self) -> tuple[str, ...]:
        """The different cards taught, in :data:`CARD_CODES` order."""
        return tuple(c for c in CARD_CODES if c in set(self.codes))

    def _model(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(taught class columns, the deck's mean feature, unit prototypes), computed once."""
        if "model" not in self._cache:
            per_view = np.repeat(np.asarray([CARD_CODES.index(c) for c in self.codes]), len(VIEWS))
            columns = np.asarray(sorted(set(per_view.tolist())), np.int64)
            mean = self.features.mean(axis=0)
            centred = _unit(self.features - mean)
            prototypes = np.stack([centred[per_view == c].mean(axis=0) for c in columns])
            self._cache["model"] = (columns, mean.astype(np.float32), _unit(prototypes))
        model: tuple[np.ndarray, np.ndarray, np.ndarray] = self._cache["model"]
        return model

    def similarities(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The taught classes' columns in :data:`CARD_CODES` order and each feature row's cosine
        similarity (centred on the deck's mean) to each taught card's prototype."""
        columns, mean, prototypes = self._model()
        return columns, _unit(np.asarray(features, np.float32) - mean) @ prototypes.T

    def blend(self, cards: np.ndarray, features: np.ndarray) -> np.ndarray:
        """The reader's card probabilities (N x 53) of corners with these ``features`` (N x F), blended
        with the memory over the taught cards (see the module doc). float32, rows summing as before."""
        if len(cards) == 0:
            return cards
        columns, sims = self.similarities(features)
        out = np.array(cards, dtype=np.float64)
        # the memory chooses among the taught cards the reader itself ranks in its ``top`` (all: 0), and
        # only where the reader is less sure than ``gate`` of its best card
        allowed = np.repeat(out.max(axis=1, keepdims=True) < self.gate, len(columns), axis=1)
        if len(columns) > 1 and self.margin > 0:  # ... and where the memory itself tells its best card apart
            ordered = np.sort(sims, axis=1)
            allowed &= (ordered[:, -1:] - ordered[:, -2:-1]) >= self.margin
        if 0 < self.top < out.shape[1]:
            kth = -np.partition(-out, self.top - 1, axis=1)[:, self.top - 1 : self.top]
            allowed &= out[:, columns] >= kth
        logits = np.where(allowed, sims / self.temperature, -np.inf)
        best = np.max(np.where(allowed, logits, -1e9), axis=1, keepdims=True)
        memory = np.where(allowed, np.exp(logits - best), 0.0)
        memory /= np.maximum(memory.sum(axis=1, keepdims=True), 1e-30)
        mass = np.where(allowed, out[:, columns], 0.0).sum(axis=1, keepdims=True)
        blended = (1 - self.weight) * out[:, columns] + self.weight * mass * memory
        if self.rerank:  # the memory says which card, the reader how sure: no card above the reader's best
            ceiling = out.max(axis=1, keepdims=True)
            top = np.max(np.where(allowed, blended, 0.0), axis=1, keepdims=True)
            blended = blended * np.minimum(1.0, ceiling / np.maximum(top, 1e-30))
        out[:, columns] = np.where(allowed, blended, out[:, columns])
        return out.astype(np.float32)

    def merge(self, scores: np.ndarray, cards: np.ndarray, codes: Sequence[str] = CARD_CODES) -> np.ndarray:
        """The detector's class scores (N x C, classes ``codes``) merged with the reader's card
        probabilities blended with this memory (N x C, same columns), as the detector merges them
        (:func:`vision.detector.merge_reading`), except that among the taught cards the detector only
        vouches that a corner is there: each taught card's score is raised to ``vouch`` times the best
        score the detector gave any taught card at that spot, so a corner of the family's deck the
        detector found but misnamed is named by the reader and the memory."""
        from vision.detector import merge_reading

        columns = np.asarray([codes.index(CARD_CODES[c]) for c in self._model()[0] if CARD_CODES[c] in codes])
        adjusted = np.array(scores, dtype=np.float32)
        if self.vouch > 0 and len(columns) and len(adjusted):
            anywhere = adjusted[:, columns].max(axis=1, keepdims=True) * self.vouch
            adjusted[:, columns] = np.maximum(adjusted[:, columns], anywhere)
        return merge_reading(adjusted, cards)

    def sure_cards(self, features: np.ndarray) -> list[str | None]:
        """Per feature row, the taught card the memory is sure it shows, else None: its prototype at least
        ``sure_similarity`` similar and at least ``sure_margin`` more similar than the runner-up's (the
        defaults ``RESCUE_SIMILARITY``, ``RESCUE_MARGIN``)."""
        if len(features) == 0:
            return []
        columns, sims = self.similarities(features)
        if len(columns) < 2:
            return [None] * len(features)
        order = np.argsort(-sims, axis=1)
        best = np.take_along_axis(sims, order[:, :1], axis=1)[:, 0]
        second = np.take_along_axis(sims, order[:, 1:2], axis=1)[:, 0]
        sure = (best >= self.sure_similarity) & (best - second >= self.sure_margin)
        return [CARD_CODES[columns[o]] if ok else None for o, ok in zip(order[:, 0], sure, strict=True)]

    def rescue(
        self, detector: Any, image: np.ndarray, found: Sequence[Detection], passes: Any = None
    ) -> list[Detection]:
        """``found`` (the corners read in ``image``) with the corners the reading cut that this deck knows
        surely: the detector's faint candidates of one upright pass (down to ``RESCUE_FLOOR``; one per
        spot) that overlap no corner found by more than ``RESCUE_OVERLAP`` (IoU) are read by the reader,
        and one whose features the memory is sure of (:meth:`sure_cards`) is added as that card, at the
        detector's threshold confidence (a card it makes is shown as doubtful, for the players to check).
        ``passes`` (the reading's :class:`vision.effort.Passes`, kept down to ``RESCUE_FLOOR``) lends its
        upright whole-photo pass, so the rescue runs no pass of its own; without them, it runs one.
        """
        from vision.geometry import box_iou_one, nms

        reader = _reader_of(detector)
        if passes is not None and passes.keep <= RESCUE_FLOOR:
            boxes, scores = passes.whole(0, floor=RESCUE_FLOOR)
        else:
            boxes, scores = detector.faint_candidates(image, RESCUE_FLOOR)
        if not len(boxes):
            return list(found)
        boxes = boxes[nms(boxes, scores.max(axis=1), RESCUE_NMS)]
        if found:
            taken = np.asarray([d.box for d in found], np.float32)
            boxes = boxes[box_iou_one(boxes[:, None, :], taken).max(axis=1) <= RESCUE_OVERLAP]
        if not len(boxes):
            return list(found)
        spots = [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in boxes]
        patches = [corner_patch(image, spot, reader.size, reader.context) for spot in spots]
        sure = self.sure_cards(reader.read_patches(patches)[2])
        confidence = float(detector.conf)
        rescued = [Detection(code, confidence, spot) for code, spot in zip(sure, spots, strict=True) if code]
        return sorted([*found, *rescued], key=lambda d: -d.confidence)

    def alike(self, threshold: float = ALIKE) -> list[tuple[str, str, float]]:
        """Pairs of taught cards whose prototypes are at least ``threshold`` similar, most alike first."""
        columns, _, prototypes = self._model()
        sims = prototypes @ prototypes.T
        pairs = [
            (CARD_CODES[columns[i]], CARD_CODES[columns[j]], float(sims[i, j]))
            for i in range(len(columns))
            for j in range(i + 1, len(columns))
            if sims[i, j] >= threshold
        ]
        return sorted(pairs, key=lambda p: -p[2])

    def photos_of(self, code: str) -> list[str]:
        return sorted({s for c, s in zip(self.codes, self.sources, strict=True) if c == code})

    def check(self) -> None:
        """A DeckError for a deck that must not be saved: too few different cards, or two cards taught
        that look alike (one of them is a photo of the wrong card)."""
        problems = []
        if len(self.cards) < MIN_CARDS:
            problems.append(
                f"only {len(self.cards)} different card{'s' * (len(self.cards) != 1)} taught; teach at "
                f"least {MIN_CARDS} (one suit, ace to king)"
            )
        for a, b, _ in self.alike():
            where = ", ".join(sorted({*self.photos_of(a), *self.photos_of(b)}))
            problems.append(f"{a} and {b} look the same to the reader ({where}): is one the wrong card?")
        if problems:
            raise DeckError(problems)

    def merged(self, other: DeckMemory) -> DeckMemory:
        """This memory with ``other``'s corners added (same reader)."""
        if other.reader != self.reader:
            raise DeckError("the two memories come from different reader models")
        return DeckMemory(
            self.name,
            self.codes + other.codes,
            np.concatenate([self.patches, other.patches]),
            self.sources + other.sources,
            np.concatenate([self.features, other.features]),
            self.reader,
            self.weight,
            self.temperature,
            self.vouch,
            self.top,
            self.gate,
            self.rerank,
            self.margin,
            self.sure_similarity,
            self.sure_margin,
            self.created,
        )

    def info(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "name": self.name,
            "created": self.created,
            "cards": list(self.cards),
            "corners": len(self.codes),
            "photos": sorted(set(self.sources)),
            "reader": self.reader,
        }


def _reader_of(detector: Any) -> CornerReader:
    reader: CornerReader | None = getattr(detector, "reader", None)
    if reader is None:
        raise DeckError("teaching a deck needs the corner reader (it is off: unset TABLETALLY_READER)")
    return reader


def standard_reading(image: np.ndarray, detector: Any, name: str) -> CardReading:
    """``detector``'s reading of ``image`` without any taught deck (teaching reads as the standard reader
    does, so that what it keeps does not depend on a deck in use)."""
    from vision.pipeline import read_cards

    reader = _reader_of(detector)
    in_use, reader.deck = reader.deck, None
    try:
        return read_cards(image, detector, name=name)
    finally:
        reader.deck = in_use


def read_photo(photo: TeachPhoto, detector: Any) -> list[CardMatch]:
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
    detector: Any,
    into: DeckMemory | None = None,
) -> tuple[DeckMemory, list[CardMatch]]:
    """Read each photo with ``detector``'s standard reading, match its cards to the codes it should show,
    and build the memory of their corners (added to ``into`` when given). Every problem of every photo,
    then of the whole deck, is raised as one :class:`DeckError` before anything could be saved.
    """
    reader = _reader_of(detector)
    name = check_deck_name(name)
    if not photos:
        raise DeckError("no photos to teach from")
    problems: list[str] = []
    taught: list[tuple[np.ndarray, list[CardMatch]]] = []
    for photo in photos:
        try:
            taught.append((photo.image, read_photo(photo, detector)))
        except DeckError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DeckError(problems)
    memory = memory_from(name, taught, reader, into)
    return memory, [m for _, matches in taught for m in matches]


def confirmed_matches(
    image: np.ndarray,
    detected: Sequence[tuple[str, Box]],
    confirmed: Sequence[str],
    detector: Any,
    photo: str,
    iou: float = 0.5,
) -> list[CardMatch]:
    """The cards of a kept game photo whose code the players confirmed, ready to teach: ``detected`` is
    what the scan read (code and card box), ``confirmed`` the codes the players kept for it. A card read
    as a code they kept is taught as that; where they corrected exactly one card (one code read that they
    did not keep, one kept that was not read) the correction is taught; other disagreements are left out.
    The corner boxes come from reading the photo again (standard reading), matched by card box."""
    from collections import Counter

    from vision.geometry import box_iou_one

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


# -------------------------------------------------------------------------------------------- the shelf


class DeckShelf:
    """The taught decks of one data directory: ``<data_dir>/decks/<name>/``."""

    def __init__(self, data_dir: str | Path) -> None:
        self.root = Path(data_dir).expanduser() / DECKS_DIR

    def path(self, name: str) -> Path:
        return self.root / check_deck_name(name)

    def names(self) -> list[str]:
        """The saved decks, by name (folders left half-made by a crash are not decks)."""
        if not self.root.is_dir():
            return []
        return sorted(
            (p.name for p in self.root.iterdir() if (p / INFO_FILE).is_file() and not p.name.startswith(".")),
            key=str.lower,
        )

    def info(self, name: str) -> dict[str, Any]:
        folder = self.path(name)
        try:
            data = json.loads((folder / INFO_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DeckError(self._unknown(name)) from None
        except (OSError, ValueError) as exc:
            raise DeckError(
                f"deck {name!r}: {folder / INFO_FILE} is unreadable ({exc}); remove it and teach it again"
            ) from exc
        if not isinstance(data, dict):
            raise DeckError(f"deck {name!r}: {folder / INFO_FILE} is not a deck description")
        return data

    def _unknown(self, name: str) -> str:
        known = self.names()
        return f"no taught deck {name!r}" + (
            f" (taught: {', '.join(known)})" if known else " (none taught yet)"
        )

    def load(self, name: str, reader: CornerReader) -> DeckMemory:
        """The saved deck ``name`` for ``reader`` (its features rebuilt from the kept patches when they come
        from another reader model). A DeckError for an unknown or damaged deck."""
        folder = self.path(name)
        if not (folder / INFO_FILE).is_file():
            raise DeckError(self._unknown(name))
        info = self.info(name)
        try:
            with np.load(folder / MEMORY_FILE, allow_pickle=False) as data:
                codes = tuple(str(c) for c in data["codes"])
                sources = tuple(str(s) for s in data["sources"])
                patches = np.asarray(data["patches"], np.uint8)
                features = np.asarray(data["features"], np.float32)
                fingerprint = str(data["reader"])
        except (OSError, KeyError, ValueError) as exc:
            raise DeckError(
                f"deck {name!r}: {folder / MEMORY_FILE} is damaged ({exc}); teach it again"
            ) from exc
        if (
            len(codes) != len(patches)
            or len(sources) != len(codes)
            or any(c not in CARD_CODES for c in codes)
        ):
            raise DeckError(f"deck {name!r}: {folder / MEMORY_FILE} does not hold a deck; teach it again")
        reader.load()
        memory = DeckMemory(
            folder.name, codes, patches, sources, features, fingerprint, created=str(info.get("created", ""))
        )
        if fingerprint != reader_fingerprint(reader) or len(features) != len(codes) * len(VIEWS):
            memory = DeckMemory.build(folder.name, codes, patches, sources, reader, memory.created)
        return memory

    def save(self, memory: DeckMemory, replace: bool = False) -> Path:
        """Write ``memory`` as deck ``memory.name``: whole, into a temporary folder renamed into place (an
        old deck of that name is replaced only with ``replace``). Returns the deck's folder."""
        target = self.path(memory.name)
        if target.exists() and not replace:
            raise DeckError(f"a deck named {memory.name!r} exists; remove it first, or add to it")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".new", dir=self.root))
        except OSError as exc:
            raise DeckError(f"cannot write decks into {self.root}: {exc.strerror or exc}") from exc
        old: Path | None = None
        try:
            np.savez_compressed(
                tmp / MEMORY_FILE,
                codes=np.asarray(memory.codes),
                sources=np.asarray(memory.sources),
                patches=memory.patches,
                features=memory.features,
                reader=np.asarray(memory.reader),
            )
            (tmp / INFO_FILE).write_text(json.dumps(memory.info(), indent=1) + "\n", encoding="utf-8")
            _fsync_dir(tmp)
            if target.exists():
                old = target.with_name(f".{target.name}.old")
                shutil.rmtree(old, ignore_errors=True)
                os.rename(target, old)
            os.rename(tmp, target)
            _fsync_dir(self.root)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if old is not None and not target.exists():
                os.rename(old, target)
            raise DeckError(f"could not save deck {memory.name!r}: {exc.strerror or exc}") from exc
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return target

    def remove(self, name: str) -> None:
        """Delete deck ``name`` (its folder, whole). A DeckError when there is no such deck."""
        folder = self.path(name)
        if not (folder / INFO_FILE).is_file():
            raise DeckError(self._unknown(name))
        gone = folder.with_name(f".{folder.name}.gone")
        try:
            shutil.rmtree(gone, ignore_errors=True)
            os.rename(folder, gone)  # one step: the deck is gone even if deleting its files is cut short
            shutil.rmtree(gone)
        except OSError as exc:
            raise DeckError(f"could not remove deck {name!r}: {exc.strerror or exc}") from exc


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def use_deck(detector: Any, memory: DeckMemory | None) -> None:
    """Read with ``memory`` (None: the standard reading) from now on. A DeckError when ``detector`` reads
    without the corner reader."""
    reader: CornerReader | None = getattr(detector, "reader", None)
    if reader is None:
        if memory is None:
            return
        raise DeckError("a taught deck needs the corner reader, which is off (unset TABLETALLY_READER)")
    if memory is not None and memory.reader != reader_fingerprint(reader):
        raise ModelError(f"deck {memory.name!r} was taught with another reader model; load it again")
    reader.deck = memory
