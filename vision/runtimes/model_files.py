"""What a detector is set up from, apart from running it: the model file and what lies beside it
(``classes.json``, the ONNX metadata), and the environment variables that override the defaults
(``$TABLETALLY_MODEL``, ``$TABLETALLY_READER``, ``$TABLETALLY_ROTATIONS``, as ``tabletally doctor`` and
the systemd unit set them).

Each setting is one small function, so a backend reads only what it uses and a test sets one thing.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any

from vision.base.errors import InvalidValueError, ModelError
from vision.base.types import CARD_CODES

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
"""Where the shipped models live."""
DEFAULT_ONNX = MODELS_DIR / "cards.onnx"
DEFAULT_PT = MODELS_DIR / "cards.pt"
CLASSES_FILE = "classes.json"
MODEL_ENV = "TABLETALLY_MODEL"  # overrides the default ONNX model (as `tabletally doctor` does)
READER_ENV = "TABLETALLY_READER"  # the corner reader's model file, or "off" to read without it
ROTATIONS_ENV = "TABLETALLY_ROTATIONS"  # the kiosk's quarter turns per photo (1, 2 or 4) without a rebuild
DEFAULT_ROTATIONS = 2  # chosen by measurement: docs/vision.md ("Reading each view in turns")
ROTATION_CHOICES = (1, 2, 4)
DEFAULT_CONF = 0.25
"""The confidence threshold of a model whose ``classes.json`` names none."""


def tiling(text: str) -> int | None:
    """A tiling given as text (a command-line option): ``1`` to ``4``, or ``auto`` for None (the
    detector decides per photo). Raises :class:`InvalidValueError` naming the text otherwise."""
    if text == "auto":
        return None
    if text.isdigit() and 1 <= int(text) <= 4:
        return int(text)
    raise InvalidValueError(f"tiles must be 1 to 4 or auto, got {text!r}")


def rotations_from(text: str, source: str = "rotations") -> int:
    """A number of quarter turns given as text (a command-line option, ``$TABLETALLY_ROTATIONS``): 1, 2
    or 4. Raises :class:`InvalidValueError` naming ``source`` and the text otherwise."""
    if text.strip().isdigit() and int(text) in ROTATION_CHOICES:
        return int(text)
    raise InvalidValueError(f"{source} must be 1, 2 or 4, got {text!r}")


def model_from_env() -> Path:
    """The ONNX model the detector runs by default: ``$TABLETALLY_MODEL``, else ``models/cards.onnx``."""
    return Path(os.environ.get(MODEL_ENV) or DEFAULT_ONNX)


def rotations_from_env() -> int:
    """The quarter turns a photo is read in by default: ``$TABLETALLY_ROTATIONS``, else
    ``DEFAULT_ROTATIONS``. A bad value raises :class:`InvalidValueError` naming the variable."""
    text = os.environ.get(ROTATIONS_ENV)
    return rotations_from(text, f"${ROTATIONS_ENV}") if text else DEFAULT_ROTATIONS


def reader_from_env(default: str | Path) -> str | Path:
    """The corner reader by default: ``$TABLETALLY_READER`` (a model file, or ``off``), else ``default``."""
    return os.environ.get(READER_ENV) or default


def check_model_file(path: Path) -> None:
    """Raise :class:`ModelError` naming ``path`` unless it is a non-empty file (the hint says how to make
    the shipped model when that is the one missing)."""
    if not path.exists():
        hint = " (train and export it: make train)" if path.parent == MODELS_DIR else ""
        raise ModelError(f"model file {path} not found{hint}")
    if not path.is_file():
        raise ModelError(f"model file {path} is not a file")
    if path.stat().st_size == 0:
        raise ModelError(f"model file {path} is empty")


def loading_conf(model_path: Path, requested: float | None, default: float) -> float:
    """What every detector does first when it loads ``model_path``: check the file is there
    (:func:`check_model_file`), and give the confidence threshold to read with: ``requested`` when given,
    else the model's tuned one (:func:`model_conf`), else ``default``."""
    check_model_file(model_path)
    if requested is not None:
        return requested
    tuned = model_conf(model_path)
    return default if tuned is None else tuned


def classes_json(model_path: Path) -> dict[str, Any]:
    """``classes.json`` beside the model as an object ({} when missing, unreadable or a bare list:
    :func:`load_class_codes` reports an unreadable one)."""
    source = model_path.parent / CLASSES_FILE
    try:
        data = json.loads(source.read_text(encoding="utf-8")) if source.is_file() else None
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def exported_imgsz(model_path: Path) -> int | None:
    """The input size the model was exported at, from its ``classes.json`` "imgsz"; None without one."""
    value = classes_json(model_path).get("imgsz")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 32:
        return value
    return None


BOX_SCALE_KEY = "box_scale"  # classes.json: how much larger the model draws corner boxes than the shipped one
BOX_SCALE_RANGE = (0.5, 2.0)  # a "box_scale" outside this is not believed (1.0 is used)


def model_box_scale(model_path: Path) -> float:
    """How much larger the model draws a corner's box than the shipped model does (its ``classes.json``
    "box_scale": a taught deck's detector measures it on its held-back scenes when it is kept,
    :func:`models.training.deck_tune.box_scale`); 1.0 where it has none or an unbelievable one. The reading's
    size tests (``SMALL_CORNER``) are made for the shipped model's boxes and follow it."""
    value = classes_json(model_path).get(BOX_SCALE_KEY)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        low, high = BOX_SCALE_RANGE
        if low <= float(value) <= high:
            return float(value)
    return 1.0


def model_conf(model_path: Path) -> float | None:
    """The threshold the model was tuned for (its ``classes.json`` "conf"), None where it has none."""
    return tuned_conf(classes_json(model_path), model_path.parent / CLASSES_FILE)


def load_class_codes(model_path: Path, metadata_names: Any = None) -> tuple[str, ...]:
    """The model's class codes in class order: ``classes.json`` next to the model, else its metadata.

    ``classes.json`` is a list of codes or an object whose ``names`` is that list.

    Every name must be a card code; a model trained on other classes is refused with :class:`ModelError`.
    """
    source = model_path.parent / CLASSES_FILE
    names: Any
    if source.is_file():
        try:
            names = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(f"{source}: not a readable JSON list of class codes: {exc}") from exc
        where = str(source)
        if isinstance(names, dict) and "names" in names:
            names = names["names"]  # {"format": ..., "names": [...]} as written by models.training.classes
    elif metadata_names is not None:
        names, where = metadata_names, f"{model_path} metadata"
    else:
        return CARD_CODES
    if isinstance(names, dict):
        try:
            names = [names[k] for k in sorted(names, key=int)]
        except (TypeError, ValueError) as exc:
            raise ModelError(f"{where}: class names are not indexed 0..N-1") from exc
    if not isinstance(names, list) or not names:
        raise ModelError(f"{where}: expected a list of class codes, got {type(names).__name__}")
    unknown = [n for n in names if n not in CARD_CODES]
    if unknown:
        raise ModelError(f"{where}: {unknown[:5]} are not card codes (expected codes like 7S, 10H, JK)")
    return tuple(names)


def metadata_imgsz(raw: str | None) -> int | None:
    """Ultralytics stores the export size as e.g. ``[416, 416]``; its larger side, if readable."""
    try:
        value = ast.literal_eval(raw) if raw else None
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(v, int) for v in value):
        return int(max(value))
    return None


def metadata_names(raw: str | None) -> Any:
    """Ultralytics stores ``names`` as a Python dict literal in the ONNX metadata."""
    if not raw:
        return None
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return None


def tuned_conf(classes: dict[str, Any], source: Path) -> float | None:
    """The threshold a model was tuned for: its ``classes.json`` object's "conf", None where it has none.

    A ModelError naming ``source`` (that file) when "conf" is not a number between 0 and 1.
    """
    value = classes.get("conf")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value < 1.0:
        raise ModelError(f"{source}: 'conf' must be a number between 0 and 1, got {value!r}")
    return float(value)
