"""The corner reader: a second, small model that names the card of one corner index the detector found.

The detector (:mod:`vision.reading.detector`) finds and names corner indices in one pass over the whole photo,
where an index is 15-30 pixels across. The reader looks at each found corner alone: a square patch around
its box, cut from the photo at full resolution (:func:`corner_patch`), given to a small classifier
(``models/reader.onnx``) trained on such patches of the synthetic photos only. Its 53 card scores plus one
"not a corner" score are a second opinion, which :meth:`vision.reading.detector.CardDetector.reread` merges
with
the detector's scores.

The patch geometry is shared with the training code (``models/training/reader/data.py``), so the model
sees at run time exactly what it was trained on.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from vision.base.errors import ModelError
from vision.base.types import CARD_CODES, Detection
from vision.runtimes.model_files import MODELS_DIR
from vision.runtimes.onnx import bgr_batch_input, onnx_session

DEFAULT_READER = MODELS_DIR / "reader.onnx"
READER_JSON = "reader.json"
PATCH = 48  # the reader's input side in pixels
CONTEXT = 1.5  # the patch side over the box's longer side
NONE_CLASS = "none"  # the reader's extra class: the patch shows no corner index
FEATURES_OUTPUT = (
    "features"  # the reader's second output: its penultimate features (vision.deck.memory remembers them)
)


class TaughtDeck(Protocol):
    """A deck a family taught the reader (:class:`vision.deck.memory.DeckMemory`), as the reading sees it:
    what it does to the reader's card probabilities (:meth:`blend`) and to the detector's merge with them
    (:meth:`merge`), and the corners it rescues from what the detector cut (:meth:`rescue`)."""

    name: str

    @property
    def rescue_floor(self) -> float:
        """The detector's candidates the rescue looks at go down to this score."""
        ...

    def blend(self, cards: np.ndarray, features: np.ndarray) -> np.ndarray: ...

    def merge(
        self, scores: np.ndarray, cards: np.ndarray, codes: Sequence[str] = CARD_CODES
    ) -> np.ndarray: ...

    def rescue(
        self,
        reader: CornerReader,
        image: np.ndarray,
        found: Sequence[Detection],
        candidates: tuple[np.ndarray, np.ndarray],
        confidence: float,
    ) -> list[Detection]: ...


def patch_square(
    box: tuple[float, float, float, float], context: float = CONTEXT
) -> tuple[float, float, float]:
    """The square a box's patch is cut from: centre x, centre y and side, in photo pixels."""
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 4.0) * context
    return (x0 + x1) / 2, (y0 + y1) / 2, side


def corner_patch(
    image: np.ndarray, box: tuple[float, float, float, float], size: int = PATCH, context: float = CONTEXT
) -> np.ndarray:
    """A ``size`` x ``size`` BGR patch of ``image`` around ``box`` (xyxy photo pixels): the square of
    :func:`patch_square`, cut at full resolution (edges repeated where it leaves the photo), then resized
    with area averaging (shrinking) or bilinear interpolation (enlarging)."""
    import cv2

    cx, cy, side = patch_square(box, context)
    n = max(2, math.ceil(side))
    cut = cv2.getRectSubPix(image, (n, n), (float(cx), float(cy)))
    if n == size:
        return cut
    interpolation = cv2.INTER_AREA if n > size else cv2.INTER_LINEAR
    return cv2.resize(cut, (size, size), interpolation=interpolation)


def patches_tensor(patches: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 patches -> Nx3xSxS float32 RGB in [0, 1], the reader's input."""
    return bgr_batch_input(np.stack(patches))


class CornerReader:
    """The exported reader (``reader.onnx`` and its ``reader.json``) run with ONNX Runtime.

    ``read(image, boxes)`` gives, per box, the reader's probabilities over the 53 card codes (in
    :data:`CARD_CODES` order) and the probability that the patch shows no corner index.

    ``deck`` (None: the standard reading) is a taught deck (:class:`TaughtDeck`): the reader
    then also computes its penultimate features of each patch (the model's ``features`` output) and the
    deck blends its memory of those corners into the card probabilities. Without a deck the reading is
    exactly the standard one.
    """

    def __init__(self, model_path: Path | str = DEFAULT_READER, threads: int = 2) -> None:
        self.model_path = Path(model_path)
        self.threads = threads
        self._session: Any = None
        self._lock = threading.Lock()
        self.size = PATCH
        self.context = CONTEXT
        self.deck: TaughtDeck | None = None
        """The taught deck whose memory is blended into the reading, or None (the standard reading)."""

    def load(self) -> CornerReader:
        with self._lock:
            if self._session is None:
                self._load()
        return self

    def _load(self) -> None:
        p = self.model_path
        if not p.is_file():
            raise ModelError(f"reader model {p} not found (set TABLETALLY_READER=off to read without it)")
        meta_file = p.parent / READER_JSON
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(f"{meta_file}: cannot read the reader's classes: {exc}") from exc
        names = meta.get("names") if isinstance(meta, dict) else None
        if names != [*CARD_CODES, NONE_CLASS]:
            raise ModelError(f"{meta_file}: 'names' must be the 53 card codes then {NONE_CLASS!r}")
        self.size = int(meta.get("size", PATCH))
        self.context = float(meta.get("context", CONTEXT))
        session = onnx_session(p, self.threads, "reader model")
        self._input = session.get_inputs()[0].name
        self.has_features = any(o.name == FEATURES_OUTPUT for o in session.get_outputs())
        self._logits = session.get_outputs()[0].name
        self._session = session

    def read(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per box (Nx4 xyxy in ``image`` pixels): card probabilities (Nx53) and "no corner" (N); with a
        taught ``deck``, the card probabilities blended with its memory (:meth:`DeckMemory.blend`)."""
        self.load()
        if len(boxes) == 0:
            return np.zeros((0, len(CARD_CODES)), np.float32), np.zeros(0, np.float32)
        patches = [corner_patch(image, tuple(b), self.size, self.context) for b in boxes]
        if self.deck is None:
            logits = self._session.run([self._logits], {self._input: patches_tensor(patches)})[0]
            return probabilities(logits)
        cards, none, features = self.read_patches(patches)
        return self.deck.blend(cards, features), none

    def read_patches(self, patches: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The standard reading of ``PATCH``-sized BGR patches: card probabilities (Nx53), "no corner"
        (N) and the penultimate features (NxF). A :class:`ModelError` for a reader without features."""
        self.load()
        if not self.has_features:
            raise ModelError(
                f"{self.model_path} has no {FEATURES_OUTPUT!r} output, which a taught deck needs "
                "(python -m models.training.reader.features adds it)"
            )
        if not patches:
            return (np.zeros((0, len(CARD_CODES)), np.float32), np.zeros(0, np.float32), np.zeros((0, 0)))
        logits, features = self._session.run(
            [self._logits, FEATURES_OUTPUT], {self._input: patches_tensor(patches)}
        )
        cards, none = probabilities(logits)
        return cards, none, np.asarray(features, np.float32)


def probabilities(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reader's logits (Nx54) -> card probabilities (Nx53) and "no corner" (N), float32."""
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    return probs[:, : len(CARD_CODES)].astype(np.float32), probs[:, len(CARD_CODES)].astype(np.float32)
