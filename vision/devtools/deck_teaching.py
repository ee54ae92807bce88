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

    python -m vision.devtools.deck_teaching [--scenes 60] [--designs 300 301 302] [--real DIR] [--tune]

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

from models.training.data.held_out import Scene, draw_designs, held_out_scenes, teaching_photos
from vision.base.types import Detection
from vision.deck.memory import DeckMemory, use_deck
from vision.devtools.evaluate import Score
from vision.pipeline import read_cards
from vision.reader.corners import CornerReader
from vision.reading.detector import CardDetector
from vision.teach import TeachPhoto, teach

FACES = Path("runs/deckteach/faces")
DESIGNS = (300, 301, 302)
TUNE_DESIGNS = (303, 304)
REAL = Path(__file__).resolve().parents[3] / "shared" / "realcards"


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
