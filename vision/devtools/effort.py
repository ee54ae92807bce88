"""Measuring the focused reading's rules: ``python -m vision.devtools.effort --truth T --store DIR --focus
RULES...`` compares the full reading with focused ones on the same photos, in one run, the model passes
kept in a :class:`ViewStore` on disk and reused. Never used by the kiosk."""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.photo import IMAGE_SUFFIXES
from vision.base.types import Detection, VisionError
from vision.devtools.evaluate import Score, default_photo_dir, load_truth
from vision.pipeline import read_cards
from vision.reading.detector import CardDetector
from vision.reading.focused import read_with_effort
from vision.reading.passes import Passes
from vision.reading.rules import DEFAULT_FOCUS, FOCUSED, FULL, FocusRules, focus_rules


class ViewStore(MutableMapping[str, Any]):
    """A :class:`Passes` store on disk: one ``.npz`` per photo and pass under ``folder`` (for measuring
    rules on many photos; never used by the kiosk)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.folder / (key.replace("/", "__") + ".npz")

    def __getitem__(self, key: str) -> Any:
        path = self._path(key)
        if not path.is_file():
            raise KeyError(key)
        with np.load(path) as data:
            return data["boxes"], data["scores"], float(data["ms"])

    def __setitem__(self, key: str, value: Any) -> None:
        boxes, scores, ms = value
        np.savez(self._path(key), boxes=boxes, scores=scores, ms=ms)

    def __delitem__(self, key: str) -> None:
        self._path(key).unlink()

    def __iter__(self) -> Any:
        return (p.stem.replace("__", "/") for p in self.folder.glob("*.npz"))

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*.npz"))


class EffortReader:
    """A :class:`vision.runtimes.protocols.Detector` that reads with ``effort`` through ``detector``'s passes,
    kept
    in ``store`` under each photo's ``key`` (set before each photo); ``last`` is the last photo's
    :class:`Passes`. For measuring (``main``), where a photo is read several ways."""

    def __init__(
        self,
        detector: Any,
        effort: str,
        store: MutableMapping[str, Any] | None = None,
        rules: FocusRules = DEFAULT_FOCUS,
    ) -> None:
        self.detector = detector
        self.effort = effort
        self.store = store
        self.rules = rules
        self.key: str | None = None
        self.last: Passes | None = None

    @property
    def model_path(self) -> Path:
        return Path(self.detector.model_path)

    @property
    def loaded(self) -> bool:
        return bool(self.detector.loaded)

    def load(self) -> EffortReader:
        self.detector.load()
        return self

    def detect(self, image: np.ndarray) -> list[Detection]:
        found, self.last = read_with_effort(
            self.detector, image, self.effort, self.store, self.key, self.rules
        )
        return found


def main(argv: list[str] | None = None) -> int:
    """Compare the full reading with focused ones on the same photos, in one run: against the truth when
    there is one, and always against the full reading (cards it read that a focused one did not)."""
    parser = argparse.ArgumentParser(prog="python -m vision.devtools.effort", description=main.__doc__)
    parser.add_argument("--truth", type=Path, help="truth file (as vision.devtools.evaluate takes)")
    parser.add_argument("--photos", type=Path, help="photo folder (default: next to the truth)")
    parser.add_argument("--store", type=Path, help="keep each pass of the model here and reuse it")
    parser.add_argument("--limit", type=int, help="only the first N photos")
    parser.add_argument("--decks", type=int, help="read no card more often than N packs hold")
    parser.add_argument("--focus", nargs="+", type=focus_rules, default=[DEFAULT_FOCUS], help="rules to try")
    parser.add_argument(
        "--model", type=Path, help="the detector the focused readings use (default: the kiosk's, as the full)"
    )
    args = parser.parse_args(argv)
    if args.truth:
        entries = load_truth(args.truth)
        photos = args.photos or default_photo_dir(args.truth)
        prefix = args.truth.parent.parent.name
    elif args.photos:
        files = sorted(p for p in args.photos.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        entries = [{"image": str(p.relative_to(args.photos)), "cards": None} for p in files]
        photos, prefix = args.photos, args.photos.name
    else:
        parser.error("give --truth or --photos")
    entries = entries[: args.limit]
    store = ViewStore(args.store) if args.store else None
    detector = CardDetector().load()
    focus_detector = CardDetector(args.model).load() if args.model else detector
    readers = {FULL: EffortReader(detector, FULL, store)}
    for k, rules in enumerate(args.focus):
        readers[f"{FOCUSED}{k or ''}"] = EffortReader(focus_detector, FOCUSED, store, rules)
        print(f"{FOCUSED}{k or ''}: {rules}{f' with {args.model}' if args.model else ''}")
    scores = {name: Score() for name in readers}
    times: dict[str, list[float]] = {name: [] for name in readers}
    passes: dict[str, list[int]] = {name: [] for name in readers}
    lost = dict.fromkeys(readers, 0)
    gained = dict.fromkeys(readers, 0)
    alike = dict.fromkeys(readers, 0)
    cards = dict.fromkeys(readers, 0)
    print(f"{len(entries)} photos from {photos}", flush=True)
    for entry in entries:
        codes: dict[str, Counter[str]] = {}
        for name, reader in readers.items():
            reader.key = f"{prefix}.{Path(entry['image']).with_suffix('').as_posix().replace('/', '.')}"
            if reader.detector is not detector:
                reader.key += f"@{Path(reader.detector.model_path).stem}"
            try:
                reading = read_cards(photos / entry["image"], reader, decks=args.decks)
            except VisionError as exc:
                print(f"  {entry['image']}: {exc}", file=sys.stderr)
                break
            assert reader.last is not None
            if entry["cards"] is not None:
                scores[name].add(entry, reading)
            times[name].append(reading.ms - reader.last.live_ms + reader.last.ms)
            passes[name].append(reader.last.passes)
            codes[name] = Counter(reading.codes)
            cards[name] += len(reading.codes)
            lost[name] += sum((codes[FULL] - codes[name]).values())
            gained[name] += sum((codes[name] - codes[FULL]).values())
            alike[name] += codes[name] == codes[FULL]
    header = f"{'reading':9} {'cards':>6} {'right':>6} {'extra':>6} {'miss':>5} {'exact':>9} {'median':>7}"
    print(header + f" {'p90':>7} {'x full':>6} passes  vs full: lost, gained, photos alike")
    base = statistics.median(times[FULL]) if times[FULL] else 0.0
    for name in readers:
        sc, ms = scores[name], sorted(times[name])
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))] if ms else 0.0
        median = statistics.median(ms) if ms else 0.0
        print(
            f"{name:9} {cards[name]:>6} {sc.right / max(sc.right + sc.missing, 1):>6.1%} {sc.extra:>6} "
            f"{sc.missing:>5} {f'{sc.exact}/{sc.photos}':>9} {median:>7.1f} {p90:>7.1f} "
            f"{median / base if base else 0:>6.2f} {statistics.fmean(passes[name]) if ms else 0:>6.2f}  "
            f"{lost[name]}, {gained[name]}, {alike[name]}/{len(ms)}"
        )
    if store is not None:
        print("times: the passes' model time as stored (measured when first run), the rest live")
    return 0


if __name__ == "__main__":
    sys.exit(main())
