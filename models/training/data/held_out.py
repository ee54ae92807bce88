"""Procedural deck designs no model trained on, drawn to measure teaching a deck: each design's teaching
photos (one card a photo, or the kiosk's rows of a suit) and held-out scenes with their truth.

The designs are numbered far past the trained ones (``proc-300`` ...; training drew ``proc-00`` ...
``proc-191`` with seed 0, see :data:`models.training.data.decks.PROCEDURAL_TRAINED`) and drawn by the
generator (:mod:`models.training.data.procedural`), the photos by its scene renderer (its surfaces, light,
shadows, perspective and camera effects). The measuring tools use them: ``vision.devtools.deck_teaching``
(the taught deck's memory) and :mod:`models.training.deck_tune_eval` (the detector taught a deck).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.teach import TeachPhoto

COURT_DECKS = ("standard", "gm-paris")  # SVG training decks lending court pictures to the drawn decks
PROCEDURAL_SEED = 0  # the seed training drew its procedural decks with
TEACH_SIZE = (1280, 960)  # a teaching photo (the kiosk camera's view, scaled)
SCENE_SIZE = (1280, 960)
Scene = tuple[np.ndarray, dict[str, Any]]  # a photo and its truth ("cards", "hands", "kind")


def draw_designs(faces: Path, indices: Sequence[int], court_decks: Sequence[str] = COURT_DECKS) -> list[str]:
    """The procedural decks ``indices`` in ``faces`` (drawn when missing; court pictures from
    ``court_decks``, rendered first when missing; none: the court cards show a big letter and pip)."""
    from models.training.data.decks import decks_by_name
    from models.training.data.faces import render_decks
    from models.training.data.procedural import (
        court_sources,
        deck_name,
        deck_style,
        find_fonts,
        find_pip_fonts,
        render_deck,
    )

    missing = [d for d in court_decks if not (faces / d / "corners.json").is_file()]
    if missing:
        from models.training.data.corners import measure_deck_corners

        known = decks_by_name()
        render_decks([known[d] for d in missing], faces, workers=1)
        for d in missing:
            corners = measure_deck_corners(faces / d)
            (faces / d / "corners.json").write_text(json.dumps(corners, indent=1) + "\n", encoding="utf-8")
    fonts, pips, sources = find_fonts(), find_pip_fonts(), court_sources(faces)
    names = []
    for index in indices:
        if not (faces / deck_name(index) / "corners.json").is_file():
            render_deck(faces, index, deck_style(PROCEDURAL_SEED, index, fonts, pips, sources))
        names.append(deck_name(index))
    return names


def _jpeg(image: np.ndarray, quality: int = 90) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    return image if decoded is None else np.asarray(decoded)


def teaching_photos(
    faces: Path, name: str, seed: int, size: tuple[int, int] = TEACH_SIZE
) -> list[TeachPhoto]:
    """One photo per card of design ``name``: the card alone, near upright, filling about two thirds of
    the frame's height, under the generator's light and camera effects."""
    from models.training.data.decks import Deck, Family, Split
    from models.training.data.scenes import FaceLibrary, Placement, render_scene

    deck = Deck(name, Family.PROCEDURAL, faces / name, name, Split.VAL, ("JK",))
    library = FaceLibrary(faces, (deck,))
    rng = np.random.default_rng([seed, 1])
    w, h = size
    photos = []
    for code, face in library.deck_faces(deck).items():
        if code == "back":
            continue
        p = Placement(
            face,
            w / 2 + rng.normal(0, 0.05) * w,
            h / 2 + rng.normal(0, 0.05) * h,
            rng.uniform(0.55, 0.75) * h,
            rng.normal(0, 5),
        )
        image, _, _ = render_scene(rng, [p], w, h, rng.uniform(0, 0.05), 0, None)
        photos.append(TeachPhoto(f"{code}.jpg", _jpeg(image), (code,)))
    return photos


def row_photos(faces: Path, name: str, seed: int, size: tuple[int, int] = (1920, 1080)) -> list[TeachPhoto]:
    """The kiosk's teaching layout of design ``name``: one photo per suit, ace to king in one row, then
    one of the jokers; under the generator's light and camera effects."""
    from models.training.data.decks import Deck, Family, Split
    from models.training.data.scenes import FaceLibrary, Placement, render_scene

    deck = Deck(name, Family.PROCEDURAL, faces / name, name, Split.VAL, ("JK",))
    faces_of = FaceLibrary(faces, (deck,)).deck_faces(deck)
    rng = np.random.default_rng([seed, 3])
    w, h = size
    rows = [[f"{r}{suit}" for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")] for suit in "SHDC"]
    rows.append(["JK"])
    photos = []
    for codes in rows:
        codes = [c for c in codes if c in faces_of]
        height = min(0.5 * h, 0.95 * w / len(codes) / 0.72)
        step = w / (len(codes) + 0.3)
        placements = [
            Placement(
                faces_of[c],
                step * (k + 0.65) + rng.normal(0, 0.02) * step,
                h / 2 + rng.normal(0, 0.02) * h,
                height,
                rng.normal(0, 3),
            )
            for k, c in enumerate(codes)
        ]
        image, _, _ = render_scene(rng, placements, w, h, rng.uniform(0, 0.04), 0, None)
        photos.append(
            TeachPhoto(f"{codes[0][-1] if len(codes) > 1 else 'JK'}-row.jpg", _jpeg(image), tuple(codes))
        )
    return photos


def held_out_scenes(
    faces: Path, name: str, count: int, seed: int, size: tuple[int, int] = SCENE_SIZE
) -> list[Scene]:
    """``count`` scenes of design ``name`` (the generator's usual mix), with their truth."""
    from models.training.data.decks import Deck, Family, Split
    from models.training.data.scenes import FaceLibrary, SceneMaker

    deck = Deck(name, Family.PROCEDURAL, faces / name, name, Split.VAL, ("JK",))
    maker = SceneMaker(FaceLibrary(faces, (deck,)))
    out = []
    for k in range(count):
        rng = np.random.default_rng([seed, 2, k])
        result = maker.make(rng, *size)
        out.append(
            (
                _jpeg(result.image),
                {"cards": result.cards, "hands": result.hands, "kind": result.kind},
            )
        )
    return out
