"""Measure teaching the detector a deck (:mod:`models.training.deck_tune`), as ``tabletally deck train`` does.

A procedural design no model trained on (``proc-300`` ...; :mod:`models.training.data.held_out` draws it)
is taught from one rendered photo per card (the product's teaching: :func:`vision.teach.teach`, the corner
boxes its reading matched), the detector is taught that deck within ``--minutes``, and then:

* the never-worse check's figures (held-back scenes composed from the taught photos);
* fanned 52-card deals of the design itself (the whole pack in one arc, spread so that every index shows
  in part, at camera size; the truth is the whole pack): recall and precision of the standard reading,
  the memory alone, and the memory with the taught detector;
* the kiosk's read time of those deals with the shipped and with the taught detector (same memory,
  alternating, one run), as a ratio;
* the real photos (``--real``, ``../shared/realcards``: other decks), read as standard (the taught deck is
  not used for them) and, for the record, with the taught detector and memory.

    python -m models.training.deck_tune_eval --design 300 [--minutes 40] [--deals 12] [--keep DIR]
    python -m models.training.deck_tune_eval --design 300 --measure  # the readings again, the model kept
    python -m models.training.deck_tune_eval --markdown DIR/*/report.json DIR/*/measure.json > REPORT.md

Prints markdown tables and writes ``DIR/<design>/report.json`` (``measure.json`` with ``--measure``);
``--markdown`` turns them into the report of record (a design's files merged in order, later over earlier).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.training.deck_scenes import cut_faces, fanned_pack
from models.training.deck_tune import Reading, TuneConfig, finish, read_scenes, tune

FACES = Path("runs/deckteach/faces")
REAL = Path(__file__).resolve().parents[3] / "shared" / "realcards"
DEAL_SIZE = (1920, 1080)


def deals(faces: Path, name: str, count: int, seed: int) -> list[tuple[np.ndarray, list[str]]]:
    """``count`` fanned 52-card deals of design ``name`` at camera size, with the whole pack as their truth.
    The pack is fanned in one arc as the renderer's deal (:data:`SceneKind.DEAL`) is, but spread wider
    (330-350 degrees, the cards' centres 1.2-1.5 card heights from the arc's centre), so that each card's
    index shows in part, as in a real deal spread on the table; the renderer's own deal of these designs
    hides all but slivers of most indices."""
    from models.training.data.decks import Deck, Family, Split
    from models.training.data.scenes import FaceLibrary

    deck = Deck(name, Family.PROCEDURAL, faces / name, name, Split.VAL, ("JK",))
    pack = FaceLibrary(faces, (deck,)).deck_faces(deck)
    out = []
    for k in range(count):
        result = fanned_pack(np.random.default_rng([seed, 52, k]), pack, *DEAL_SIZE, (330, 350), (1.2, 1.5))
        ok, data = cv2.imencode(".jpg", result.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        out.append((np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR)), result.hands[0]))
    return out


def real_sets(root: Path) -> dict[str, list[tuple[np.ndarray, list[str]]]]:
    """ivr_edinburgh (single cards, suits and ranks) and edje_pinochle (hands; ranks only, as codes of
    rank + '?'): the real photos, with what they show."""
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    out: dict[str, list[tuple[np.ndarray, list[str]]]] = {"ivr_edinburgh": [], "edje_pinochle": []}
    for entry in manifest["images"]:
        top = entry["file"].split("/")[0]
        if top not in out:
            continue
        image = cv2.imread(str(root / entry["file"]), cv2.IMREAD_COLOR)
        if image is None:
            continue
        truth = list(entry.get("cards") or [f"{r}?" for r in entry.get("ranks", [])])
        out[top].append((image, truth))
    return out


def read_ranks(detector: Any, made: list[tuple[np.ndarray, list[str]]]) -> Reading:
    """As :func:`read_scenes`, comparing ranks only where the truth has no suit."""
    from vision.pipeline import read_cards

    out = Reading()
    for image, truth in made:
        codes = [c.code for c in read_cards(image, detector).cards]
        if truth and truth[0].endswith("?"):
            codes = [c[:-1] + "?" for c in codes]
        out.add(truth, codes)
    return out


def timed(
    detectors: dict[str, Any], made: list[tuple[np.ndarray, list[str]]], rounds: int = 2
) -> dict[str, float]:
    """Median ms a photo of each detector, reading ``made`` in alternation."""
    from vision.pipeline import read_cards

    times: dict[str, list[float]] = {k: [] for k in detectors}
    for _ in range(rounds):
        for image, _truth in made:
            for key, det in detectors.items():
                start = time.perf_counter()
                read_cards(image, det)
                times[key].append((time.perf_counter() - start) * 1000)
    return {k: float(np.median(v)) for k, v in times.items()}


def _pct(r: dict[str, Any]) -> str:
    right, missing, extra = r["right"], r["missing"], r["extra"]
    recall, precision = right / max(1, right + missing), right / max(1, right + extra)
    return f"{recall:.3f} / {precision:.3f}"


def markdown(reports: list[dict[str, Any]]) -> str:
    """The report of record from the runs' ``report.json``: the targets' table and how each run went."""
    lines = [
        "# A taught deck's own detector: measurements",
        "",
        "Written by `python -m models.training.deck_tune_eval --markdown` from the runs' `report.json`",
        "(`python -m models.training.deck_tune_eval --design N --minutes M`). Procedural designs no model",
        "trained on, each taught from one rendered photo per card as `tabletally deck learn` teaches, then",
        "`tabletally deck train`'s fine-tune (`models.training.deck_tune.tune`) within the minutes given.",
        "Recall / precision of cards, read as the kiosk reads. Deals: fanned 52-card packs of the design",
        "itself at 1920 x 1080, every index showing in part, the whole pack the truth. Held-back check:",
        "`tune`'s never-worse check, 24 scenes composed from the teaching photos (truth: the cards with an",
        "index labelled, as the recipe labels them). Teaching: wall minutes with the load average of this",
        "shared 2-core machine, and the process's CPU minutes over 2 (about what it would take alone on 2",
        "cores). Read time: median ms of a deal as the kiosk reads it, the same memory, the taught detector",
        "over the shipped one, alternating photo by photo in one run on this loaded machine.",
        "",
        "| design | recipe | deals: standard | memory alone | memory + taught detector "
        "| held-back check: memory alone "
        "| with the taught detector | kept | teaching: wall min (load avg) | CPU min / 2 cores | epochs "
        "| read time taught / shipped |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for rep in reports:
        deals_of = rep.get("deals", {})
        tune_of = rep.get("tune", {})
        ms = rep.get("ms")
        load = rep.get("load_after_training") or rep.get("load_before") or [0, 0, 0]
        cpu = rep.get("cpu_s")
        cells = [
            rep["design"],
            str(rep.get("recipe", "as committed")),
            _pct(deals_of["standard"]) if "standard" in deals_of else "-",
            _pct(deals_of["memory alone"]) if "memory alone" in deals_of else "-",
            _pct(deals_of["memory + taught detector"]) if "memory + taught detector" in deals_of else "-",
            _pct(tune_of["memory"]) if "memory" in tune_of else "-",
            _pct(tune_of["tuned"]) if "tuned" in tune_of else "-",
            "yes" if tune_of.get("kept") else "no",
            f"{rep['tune_minutes']:.1f} ({load[0]:.1f})" if "tune_minutes" in rep else "-",
            f"{cpu / 120:.1f}" if cpu else "-",
            str(tune_of.get("epochs", "-")),
            f"{ms['taught'] / ms['shipped']:.2f}" if ms else "-",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    real = [(rep["design"], k, v) for rep in reports for k, v in rep.get("real", {}).items()]
    if real:
        lines += [
            "",
            "Real photos of other decks (`../shared/realcards`), recall / precision: a taught deck is not",
            "used for them (the kiosk reads them with the standard reading); read with a design's taught",
            "detector and memory only to show what it would do.",
            "",
            "| set | taught design | standard reading (what is used) "
            "| with that deck's detector and memory |",
            "|---|---|---|---|",
        ]
        for design, name, v in real:
            lines.append(f"| {name} | {design} | {_pct(v['standard'])} | {_pct(v['taught'])} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--markdown", type=Path, nargs="+", help="print the report of these report.json files")
    ap.add_argument("--design", type=int, default=300)
    ap.add_argument("--minutes", type=float, default=40.0)
    ap.add_argument("--scenes", type=int, default=TuneConfig.scenes)
    ap.add_argument("--deals", type=int, default=12)
    ap.add_argument("--seed", type=int, default=53)
    ap.add_argument("--faces", type=Path, default=FACES)
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--keep", type=Path, default=Path("runs/deck-tune"), help="the deck folder and report")
    ap.add_argument("--weights", type=Path, help="no training: export, check and measure these weights")
    ap.add_argument("--epochs", type=int, default=0, help="with --weights: the epochs they were trained")
    ap.add_argument("--measure", action="store_true", help="no training: measure the model kept in --keep")
    args = ap.parse_args(argv)
    if args.markdown:
        merged: dict[str, dict[str, Any]] = {}  # a design's reports in order, later keys over earlier
        for path in args.markdown:
            one = json.loads(path.read_text(encoding="utf-8"))
            merged.setdefault(one["design"], {}).update(one)
        print(markdown(list(merged.values())), end="")
        return 0

    from models.training.data.held_out import draw_designs, teaching_photos
    from models.training.deck_scenes import TaughtCard
    from vision.deck.memory import DeckError, reader_of, use_deck
    from vision.reading.detector import CardDetector
    from vision.teach import memory_from, read_photo

    (name,) = draw_designs(args.faces, [args.design])
    folder = args.keep / name
    folder.mkdir(parents=True, exist_ok=True)
    detector = CardDetector(threads=2).load()
    photos = teaching_photos(args.faces, name, args.seed)
    skipped: list[str] = []
    start = time.perf_counter()
    taught = []
    for photo in photos:  # as tabletally deck learn teaches: photos it cannot use are left out
        try:
            taught.append((photo.image, read_photo(photo, detector)))
        except DeckError as exc:
            skipped.extend(exc.problems)
    memory = memory_from("measured", taught, reader_of(detector))
    matches = [m for _, found in taught for m in found]
    print(
        f"{name}: taught {len(memory.cards)} cards in {time.perf_counter() - start:.1f} s; left out {skipped}"
    )
    images = {p.name: p.image for p in photos}
    cards = [TaughtCard(m.photo, images[m.photo], m.code, tuple(m.boxes)) for m in matches]
    report: dict[str, Any] = {"design": name, "load_before": os.getloadavg()}
    kept_report = folder / "report.json"
    if args.measure and kept_report.is_file():  # the training's figures stay; the readings are measured again
        old = json.loads(kept_report.read_text(encoding="utf-8"))
        report.update(
            {
                k: v
                for k, v in old.items()
                if k in ("tune", "tune_minutes", "cpu_s", "load_after_training", "real")
            }
        )
    model = folder / "model" / "cards.onnx"
    cfg = TuneConfig(minutes=args.minutes, scenes=args.scenes)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    if args.measure:
        kept = (folder / "model" / "cards.onnx").is_file()
        model = folder / ("model" if kept else ".model.rejected") / "cards.onnx"
    elif args.weights:  # an earlier run's weights: its minutes and load are in its own log
        cut = cut_faces(cards)
        result = finish(folder, memory, cut, args.weights, args.epochs, cfg, print, time.monotonic(), True)
    else:
        result = tune(folder, memory, cards, cfg, keep_rejected=True)
        report["tune_minutes"] = (time.perf_counter() - start) / 60
        usage = resource.getrusage(resource.RUSAGE_SELF)
        report["cpu_s"] = usage.ru_utime + usage.ru_stime - cpu_before
        report["load_after_training"] = os.getloadavg()
        print(f"taught in {report['tune_minutes']:.1f} min (load {os.getloadavg()}), kept: {result.kept}")
    if not args.measure:
        report["tune"] = result.to_json()
        if not result.kept:
            model = folder / ".model.rejected" / "cards.onnx"
    made = deals(args.faces, name, args.deals, args.seed + 7)
    rows: dict[str, Reading] = {}
    standard = CardDetector(threads=2).load()
    rows["standard"] = read_scenes(standard, made)
    use_deck(standard, memory)
    rows["memory alone"] = read_scenes(standard, made)
    tuned = None
    if model.is_file():
        tuned = CardDetector(model, threads=2).load()
        use_deck(tuned, memory)
        rows["memory + taught detector"] = read_scenes(tuned, made)
        report["ms"] = timed({"shipped": standard, "taught": tuned}, made[:4])
        report["load_timing"] = os.getloadavg()
    print(f"\n{name}, {len(made)} fanned 52-card deals at {DEAL_SIZE[0]}x{DEAL_SIZE[1]}:\n")
    print(
        "| reading | recall | precision | cards right / missed / extra | deals exact |\n|---|---|---|---|---|"
    )
    for label, r in rows.items():
        print(
            f"| {label} | {r.recall:.3f} | {r.precision:.3f} | {r.right} / {r.missing} / {r.extra} "
            f"| {r.exact}/{r.photos} |"
        )
    report["deals"] = {k: {"recall": r.recall, "precision": r.precision, **vars(r)} for k, r in rows.items()}
    if "ms" in report:
        ms = report["ms"]
        print(
            f"\nread time a deal (median ms): shipped {ms['shipped']:.0f}, taught {ms['taught']:.0f}, "
            f"ratio {ms['taught'] / ms['shipped']:.2f}"
        )
    if (args.real / "manifest.json").is_file() and tuned is not None:
        use_deck(standard, None)
        for set_name, photos_of in real_sets(args.real).items():
            sample = photos_of[:: max(1, len(photos_of) // 30)]
            std = read_ranks(standard, sample)
            with_deck = read_ranks(tuned, sample)
            report.setdefault("real", {})[set_name] = {"standard": vars(std), "taught": vars(with_deck)}
            print(
                f"{set_name} ({len(sample)} photos): standard {std.words()}; with deck {name}'s detector "
                f"and memory {with_deck.words()}"
            )
    usage = resource.getrusage(resource.RUSAGE_SELF)
    report["cpu_s_all"] = usage.ru_utime + usage.ru_stime
    (folder / ("measure.json" if args.measure else "report.json")).write_text(
        json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
