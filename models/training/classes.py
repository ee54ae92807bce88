"""The shipped class list, ``models/classes.json``: the model's 53 classes are the scorer's card order.

The class order is :data:`scorer.cards.CARD_CODES` (for each suit S, H, D, C the ranks A, 2..10, J, Q, K, then
the joker ``JK``); this module writes and reads the file and names the codes' parts for the training code.
"""

from __future__ import annotations

import json
from pathlib import Path

from scorer.cards import CARD_CODES, Card, CardError, Rank, Suit
from scorer.cards import JOKER as JOKER_CARD

SUITS: tuple[str, ...] = tuple(s.value for s in Suit)
RANKS: tuple[str, ...] = tuple(r.value for r in Rank)
JOKER: str = JOKER_CARD.code  # "JK"
CLASS_INDEX: dict[str, int] = {code: i for i, code in enumerate(CARD_CODES)}

MODELS_DIR = Path(__file__).resolve().parents[1]  # models/: the shipped files
CLASSES_JSON = MODELS_DIR / "classes.json"


def _card(code: str) -> Card:
    if code not in CLASS_INDEX:  # canonical codes only: a class name, not a player's spelling
        raise ValueError(f"unknown card code {code!r}; expected one of {', '.join(CARD_CODES)}")
    try:
        return Card.parse(code)
    except CardError as exc:  # pragma: no cover - every class code parses
        raise ValueError(str(exc)) from exc


def rank_of(code: str) -> str:
    """The rank part of a card code (``"10H"`` -> ``"10"``); the joker's rank is ``"JK"``."""
    rank = _card(code).rank
    return JOKER if rank is None else rank.value


def suit_of(code: str) -> str:
    """The suit letter of a card code (``"10H"`` -> ``"H"``); the joker has suit ``""``."""
    suit = _card(code).suit
    return "" if suit is None else suit.value


def write_classes_json(
    path: Path = CLASSES_JSON, conf: float | None = None, imgsz: int | None = None
) -> Path:
    """Write the class list (index -> code) as JSON, the file shipped next to the ONNX model.

    ``conf`` is the confidence threshold the model was tuned for
    (``python -m models.training.evaluate --save-conf``);
    the runtime detector uses it unless told otherwise. ``imgsz`` is the exported input size
    (``python -m models.training.export``); when not given, the one already in ``path`` is kept, so saving a
    threshold does not lose it.
    """
    payload: dict[str, object] = {
        "format": "tabletally-card-classes/1",
        "labels": "printed corner index (rank + suit pip) of a face-up card; one box per visible corner",
        "names": list(CARD_CODES),
    }
    if imgsz is None and path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            old = None
        kept = old.get("imgsz") if isinstance(old, dict) else None
        imgsz = kept if isinstance(kept, int) and not isinstance(kept, bool) else None
    if imgsz is not None:
        payload["imgsz"] = int(imgsz)
    if conf is not None:
        if not 0.0 < conf < 1.0:
            raise ValueError(f"confidence threshold must be between 0 and 1, got {conf!r}")
        payload["conf"] = round(float(conf), 4)
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return path


def load_class_names(path: Path = CLASSES_JSON) -> list[str]:
    """Read the class names from a ``classes.json`` written by :func:`write_classes_json`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"class list not found: {path}") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"class list {path} is not valid JSON: {exc}") from exc
    names = data.get("names") if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"class list {path} has no 'names' list of strings")
    return names
