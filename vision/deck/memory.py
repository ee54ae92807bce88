"""A taught deck's memory: the corner reader's memory of one family's own cards, blended into its reading.

The corner reader (:mod:`vision.reader.corners`) was trained on synthetic decks only. A family teaches it
the deck they play with (:mod:`vision.teach`); every corner of every taught card is cut from the photo
(:func:`vision.reader.corners.corner_patch`, with more context kept so it can be turned and shifted
later), and the reader's penultimate features of those patches, each seen in ``len(VIEWS)`` turns and
shifts (a card on the table lies at any angle), are the deck's memory (:class:`DeckMemory`), which the
reader sees as a :class:`vision.reader.corners.TaughtDeck`.

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
(``python -m vision.devtools.deck_teaching``). Without a deck the reader reads exactly as before.

Where a deck is kept is :mod:`vision.deck.shelf`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from vision.base.errors import ModelError, VisionError
from vision.base.geometry import box_iou_one, nms
from vision.base.types import CARD_CODES, Box, Detection
from vision.reader.corners import CONTEXT, PATCH, CornerReader, corner_patch
from vision.reading.rules import merge_reading
from vision.runtimes.protocols import Detector

FORMAT = 1  # of a saved deck (deck.json "format")
STORE_CONTEXT = 2.0  # a kept patch's side over the corner box's longer side (the runtime cuts 1.5)
STORE = round(PATCH * STORE_CONTEXT / CONTEXT)  # 64 pixels
# Each kept corner is seen in these views: (turn in degrees, shift x, shift y in box sides, scale). Cards lie
# at any angle on the table and the detector's boxes are loose, as the reader's training augmentations say.
VIEWS: tuple[tuple[float, float, float, float], ...] = tuple(
    (angle, 0.06 * math.cos(k * 2.1), 0.06 * math.sin(k * 2.1), 1.0 + 0.08 * math.sin(k * 1.3))
    for k, angle in enumerate(range(0, 360, 30))
)

MIN_CARDS = 13  # different cards a deck must be taught: one suit, ace to king
# The memory's settings below were chosen with python -m vision.devtools.deck_teaching --tune.
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


class DeckError(VisionError):
    """Teaching a deck, or finding a taught one, failed; ``problems`` has one line per problem."""

    def __init__(self, problems: str | Sequence[str]) -> None:
        self.problems = (problems,) if isinstance(problems, str) else tuple(problems)
        super().__init__("\n".join(self.problems))


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
    model: Path | None = None  # the folder of the deck's own detector (vision.deck.shelf.MODEL_DIR), if any
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
        (:func:`vision.reading.rules.merge_reading`), except that among the taught cards the detector only
        vouches that a corner is there: each taught card's score is raised to ``vouch`` times the best
        score the detector gave any taught card at that spot, so a corner of the family's deck the
        detector found but misnamed is named by the reader and the memory."""
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

    @property
    def rescue_floor(self) -> float:
        """The detector's candidates :meth:`rescue` looks at go down to this score."""
        return RESCUE_FLOOR

    def rescue(
        self,
        reader: CornerReader,
        image: np.ndarray,
        found: Sequence[Detection],
        candidates: tuple[np.ndarray, np.ndarray],
        confidence: float,
    ) -> list[Detection]:
        """``found`` (the corners read in ``image``) with the corners the reading cut that this deck knows
        surely: the detector's faint ``candidates`` of one upright pass (boxes and class scores, down to
        ``RESCUE_FLOOR``: the reading's own pass, :meth:`vision.reading.passes.Passes.whole`; one per spot)
        that overlap no corner found by more than ``RESCUE_OVERLAP`` (IoU) are read by ``reader``, and one
        whose features the memory is sure of (:meth:`sure_cards`) is added as that card, at the detector's
        threshold ``confidence`` (a card it makes is shown as doubtful, for the players to check).
        """
        boxes, scores = candidates
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
            self.model,
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


@runtime_checkable
class ReadsCorners(Protocol):
    """A detector with a corner reader (:class:`vision.reading.detector.CardDetector`; None: it is off)."""

    reader: CornerReader | None


def _reader(detector: object) -> CornerReader | None:
    return detector.reader if isinstance(detector, ReadsCorners) else None


def reader_of(detector: Detector) -> CornerReader:
    """``detector``'s corner reader; a DeckError when it reads without one (teaching needs it)."""
    reader = _reader(detector)
    if reader is None:
        raise DeckError("teaching a deck needs the corner reader (it is off: unset TABLETALLY_READER)")
    return reader


@runtime_checkable
class SwapsModel(Protocol):
    """A detector that can read with a taught deck's own detector (as
    :class:`~vision.reading.detector.CardDetector` does)."""

    def use_model(self, folder: Path | None) -> None: ...


def use_deck(detector: object, memory: DeckMemory | None) -> None:
    """Read with ``memory`` (None: the standard reading) from now on, and with the deck's own detector
    where it has one (``memory.model``; the detector's own model otherwise, as it was). A DeckError when
    ``detector`` reads without the corner reader."""
    reader = _reader(detector)
    if reader is None:
        if memory is None:
            return
        raise DeckError("a taught deck needs the corner reader, which is off (unset TABLETALLY_READER)")
    if memory is not None and memory.reader != reader_fingerprint(reader):
        raise ModelError(f"deck {memory.name!r} was taught with another reader model; load it again")
    if isinstance(detector, SwapsModel):
        detector.use_model(None if memory is None else memory.model)
    reader.deck = memory
