"""Measure teaching a deck (:mod:`vision.deck.memory`): the kiosk's reading of a deck before and after it is
taught.

Synthetic designs no model trained on: procedural decks (:mod:`models.training.data.procedural`) numbered
far past the trained ones (``proc-300`` ...; training drew ``proc-00`` ... ``proc-191`` with seed 0, see
:data:`models.training.data.decks.PROCEDURAL_TRAINED`). Each is taught from one single-card photo per card
(53 with the joker, drawn by the generator's scene renderer: its surfaces, light, shadows, perspective and
camera effects), then ``--scenes`` held-out scenes of that design (the generator's usual mix: hands,
tables, Seep rows, scatters, close-ups) are read with the kiosk's reading, standard and with the taught deck.

The real photos (``--real``, ``../shared/realcards``): ``ivr_edinburgh`` is one deck, 32 cards photographed
twice (``data1``, ``data2``): taught from one half, measured on the other, both ways round.

``--tune`` first sweeps, on designs not reported (``--tune-design``, default ``proc-303`` and ``proc-304``),
the blend (gate, weight, temperature, the memory's margin; no rescue) and then the rescue of faint corners
(the similarity and margin the memory must be sure by) with the shipped blend, and prints each setting's
score; the detector's passes and the reader's features are cached, so a setting costs little more than
the pairing.

    python -m models.training.deck_teaching [--scenes 60] [--designs 300 301 302] [--real DIR] [--tune]

Prints one table (markdown): cards right and photos read exactly, before and after, teaching time and
photos used.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.base.types import Detection
from vision.deck.memory import DeckMemory, use_deck
from vision.devtools.evaluate import Score
from vision.pipeline import read_cards
from vision.reader.corners import CornerReader
from vision.reading.detector import CardDetector
from vision.teach import TeachPhoto, teach

FACES = Path("runs/deckteach/faces")
COURT_DECKS = ("standard", "gm-paris")  # SVG training decks lending court pictures to the drawn decks
PROCEDURAL_SEED = 0  # the seed training drew its procedural decks with
DESIGNS = (300, 301, 302)
TUNE_DESIGNS = (303, 304)
TEACH_SIZE = (1280, 960)  # a teaching photo (the kiosk camera's view, scaled)
SCENE_SIZE = (1280, 960)
Scene = tuple[np.ndarray, dict[str, Any]]  # a photo and its truth ("cards", "hands", "kind")
REAL = Path(__file__).resolve().parents[3] / "shared" / "realcards"


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
        out.append((_jpeg(result.image), {"cards": result.cards, "hands": result.hands, "kind": result.kind}))
    return out


class CachedDetector(CardDetector):
    """The kiosk's detector whose model passes are remembered by input (a sweep reads the same photos
    again with other blends; the passes do not depend on the blend)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._passes: dict[bytes, np.ndarray] = {}

    def run_model(self, letterboxed: np.ndarray) -> np.ndarray:
        key = hashlib.blake2b(np.ascontiguousarray(letterboxed).data, digest_size=16).digest()
        key += repr(letterboxed.shape).encode()
        if key not in self._passes:
            self._passes[key] = super().run_model(letterboxed)
        return self._passes[key]


class CachedReader(CornerReader):
    """The corner reader whose readings of a batch of patches are remembered (as above)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._seen: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def read_patches(self, patches: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not patches:
            return super().read_patches(patches)
        key = hashlib.blake2b(np.stack(patches).data, digest_size=16).digest()
        if key not in self._seen:
            self._seen[key] = super().read_patches(patches)
        return self._seen[key]


def make_detector() -> CachedDetector:
    detector = CachedDetector(threads=2)
    assert detector.reader is not None
    detector.reader = CachedReader(detector.reader.model_path, 2)
    detector.load()
    return detector


@dataclass
class Row:
    name: str
    photos_taught: int
    cards_taught: int
    teach_s: float
    scenes: int
    before: Score
    after: Score


def score(detector: CardDetector, scenes: list[Scene]) -> Score:
    result = Score()
    for image, truth in scenes:
        result.add(truth, read_cards(image, detector))
    return result


def measure(
    detector: CardDetector,
    name: str,
    photos: list[TeachPhoto],
    scenes: list[Scene],
) -> tuple[Row, DeckMemory]:
    use_deck(detector, None)
    before = score(detector, scenes)
    start = time.perf_counter()
    memory, _ = teach("measured", photos, detector)
    taught = time.perf_counter() - start
    use_deck(detector, memory)
    after = score(detector, scenes)
    use_deck(detector, None)
    return Row(name, len(photos), len(memory.cards), taught, len(scenes), before, after), memory


def real_halves(root: Path) -> list[tuple[str, list[TeachPhoto], list[Scene]]]:
    """ivr_edinburgh: taught from data1, measured on data2, and the other way round."""
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    halves: dict[str, list[tuple[str, np.ndarray, str]]] = {"data1": [], "data2": []}
    for entry in manifest["images"]:
        parts = entry["file"].split("/")
        if parts[0] == "ivr_edinburgh" and parts[1] in halves and len(entry.get("cards", [])) == 1:
            image = cv2.imread(str(root / entry["file"]), cv2.IMREAD_COLOR)
            if image is not None:
                halves[parts[1]].append((entry["file"], image, entry["cards"][0]))
    out = []
    for teach_half, test_half in (("data1", "data2"), ("data2", "data1")):
        photos = [TeachPhoto(Path(f).name, im, (code,)) for f, im, code in halves[teach_half]]
        scenes = [(im, {"cards": [code]}) for _, im, code in halves[test_half]]
        out.append((f"ivr_edinburgh, taught {teach_half}, read {test_half}", photos, scenes))
    return out


def pct(s: Score) -> str:
    total = s.right + s.missing
    return f"{100 * s.right / max(total, 1):.1f} % ({s.right}/{total}, {s.extra} extra)"


def table(rows: list[Row]) -> str:
    lines = [
        "| set | photos taught (cards) | teaching s | photos read | cards right before | after "
        "| exact before | after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.name} | {r.photos_taught} ({r.cards_taught}) | {r.teach_s:.1f} | {r.scenes} | "
            f"{pct(r.before)} | **{pct(r.after)}** | {r.before.exact} | **{r.after.exact}** |"
        )
    return "\n".join(lines)


# the blends swept by --tune (DeckMemory fields), without the rescue
BLEND_GRID: dict[str, tuple[float, ...]] = {
    "gate": (1.01, 0.9, 0.7),
    "weight": (0.3, 0.6, 1.0),
    "temperature": (0.02,),
    "margin": (0.0, 0.05, 0.1, 0.15),
}
# then the rescue's gate (DeckMemory fields), with the shipped blend
RESCUE_GRID: dict[str, tuple[float, ...]] = {
    "sure_similarity": (0.7, 0.75, 0.8, 0.85),
    "sure_margin": (0.1, 0.15, 0.2, 0.25),
}


def sweep(
    detector: CardDetector, memory: DeckMemory, scenes: list[Scene], grid: dict[str, tuple[float, ...]]
) -> list[tuple[dict[str, float], Score]]:
    """The score on ``scenes`` of every combination of ``grid``'s values of the memory's fields (other
    fields as shipped); the memory's fields are restored after."""
    kept = {name: getattr(memory, name) for name in grid}
    out = []
    for values in itertools.product(*grid.values()):
        setting = dict(zip(grid, values, strict=True))
        for name, value in setting.items():
            setattr(memory, name, value)
        use_deck(detector, memory)
        out.append((setting, score(detector, scenes)))
    use_deck(detector, None)
    for name, value in kept.items():
        setattr(memory, name, value)
    return out


class NoRescue(DeckMemory):
    """A memory that blends but rescues nothing (the blend's sweep)."""

    def rescue(
        self,
        reader: CornerReader,
        image: np.ndarray,
        found: Sequence[Detection],
        candidates: tuple[np.ndarray, np.ndarray],
        confidence: float,
    ) -> list[Detection]:
        return list(found)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--faces", type=Path, default=FACES, help="face cache to draw the designs into")
    ap.add_argument("--designs", type=int, nargs="*", default=list(DESIGNS), help="procedural deck numbers")
    ap.add_argument("--scenes", type=int, default=60, help="held-out scenes per design")
    ap.add_argument("--seed", type=int, default=53)
    ap.add_argument("--real", type=Path, default=REAL, help="the real photos (skipped when missing)")
    ap.add_argument("--tune", action="store_true", help="first sweep the blend and rescue on --tune-design")
    ap.add_argument("--tune-design", type=int, nargs="*", default=list(TUNE_DESIGNS))
    args = ap.parse_args(argv)

    detector = make_detector()
    rows: list[Row] = []
    for name in draw_designs(args.faces, args.tune_design) if args.tune else []:
        scenes = held_out_scenes(args.faces, name, args.scenes, args.seed)
        row, memory = measure(detector, name, teaching_photos(args.faces, name, args.seed), scenes)
        print(f"tuning on {name}: before {pct(row.before)}, exact {row.before.exact}/{row.scenes}")
        kept = {f.name: getattr(memory, f.name) for f in fields(memory) if not f.name.startswith("_")}
        for grid, tuned in ((BLEND_GRID, NoRescue(**kept)), (RESCUE_GRID, memory)):
            for setting, s in sweep(detector, tuned, scenes, grid):
                words = ", ".join(f"{k} {v:g}" for k, v in setting.items())
                print(f"  {words}: cards right {pct(s)}, exact {s.exact}", flush=True)
    for name in draw_designs(args.faces, args.designs):
        scenes = held_out_scenes(args.faces, name, args.scenes, args.seed)
        row, _ = measure(
            detector, f"{name} (synthetic)", teaching_photos(args.faces, name, args.seed), scenes
        )
        rows.append(row)
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    if (args.real / "manifest.json").is_file():
        for name, photos, scenes in real_halves(args.real):
            rows.append(measure(detector, name, photos, scenes)[0])
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
