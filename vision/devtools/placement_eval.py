"""How small a corner the kiosk's reading still reads, and at which capture size: the measurement behind
:mod:`vision.table.placement`'s thresholds.

    python -m vision.devtools.placement_eval [--truth datasets/camera/truth/val.jsonl] [--limit 40]
                                    [--fill 1.0 0.7 0.5] [--capture 4608 2304 1536]
                                    [--kind table scatter seep]

Each held-out synthetic photo (drawn at 1920 px, with the true size of every corner index) is laid on a
Camera Module 3 still of 4608 x 2592 pixels at ``fill`` times its own size, on the photo's own table
colour (a camera hanging higher sees the same cards smaller, with more table round them), and the still
is then taken at each ``capture`` width (the whole frame scaled down, as the sensor's binned modes and
smaller stills are). A photo drawn at 1920 px whose corners are 35 px tall, laid at fill 1.0 on 4608 px,
is what a Camera Module 3 sees of a 1 m table from 0.77 m (an 8 mm index, 37 px).

Each still is read as the kiosk reads (:class:`~vision.reading.detector.CardDetector` with its defaults: the
shipped models, the kiosk's effort, automatic tiling) and its cards are compared with the truth as
multisets of codes. A card's size is its largest corner index's true height in the still's pixels (the
index as printed: a card lying at an angle has a larger box). For the cards read, the detected corner box
(``sqrt(w * h)``, what :mod:`vision.table.placement` sees at the table) is kept too, so the thresholds can be
put in the measure the camera check has.

Prints recall by corner height in photo pixels, per capture width, the median reading time per capture
width, and the ratio of the detected box size to the true index height.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.types import ImageError, box_size
from vision.devtools.evaluate import default_photo_dir, load_truth
from vision.pipeline import read_cards
from vision.reading.detector import CardDetector

SENSOR = (4608, 2592)
BINS = (4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 1000)
MODEL_BINS = (3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 1000)
IMGSZ = 576  # the shipped model's input: a photo's corner in its view is its size * IMGSZ / the long side


def on_table(photo: np.ndarray, fill: float, rng: np.random.Generator) -> np.ndarray:
    """``photo`` scaled by ``fill`` and laid in the middle of a sensor-sized still of its own table colour."""
    import cv2

    h, w = photo.shape[:2]
    small = cv2.resize(photo, (round(w * fill), round(h * fill)), interpolation=cv2.INTER_AREA)
    border = np.concatenate([photo[:8].reshape(-1, 3), photo[-8:].reshape(-1, 3)])
    colour = np.median(border, axis=0)
    still = np.empty((SENSOR[1], SENSOR[0], 3), np.float32)
    still[:] = colour
    # The table's own grain: soft blotches (as wood or cloth) and fine sensor noise, so that a frame of
    # mostly table is not taken for a blank photo.
    coarse = rng.normal(0.0, 10.0, (SENSOR[1] // 32, SENSOR[0] // 32, 1)).astype(np.float32)
    still += cv2.resize(coarse, SENSOR, interpolation=cv2.INTER_CUBIC)[:, :, None]
    still += rng.normal(0.0, 4.0, still.shape).astype(np.float32)
    still = np.clip(still, 0, 255).astype(np.uint8)
    sh, sw = small.shape[:2]
    y0, x0 = (SENSOR[1] - sh) // 2, (SENSOR[0] - sw) // 2
    still[y0 : y0 + sh, x0 : x0 + sw] = small
    return still


def on_frame(small: np.ndarray, like: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``small`` in the middle of a frame the size of ``like``, of ``like``'s border colour with grain."""
    import cv2

    h, w = like.shape[:2]
    border = np.concatenate([like[:4].reshape(-1, 3), like[-4:].reshape(-1, 3)])
    frame = np.empty((h, w, 3), np.float32)
    frame[:] = np.median(border, axis=0)
    coarse = rng.normal(0.0, 10.0, (max(2, h // 32), max(2, w // 32), 1)).astype(np.float32)
    frame += cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)[:, :, None]
    frame += rng.normal(0.0, 4.0, frame.shape).astype(np.float32)
    out = np.clip(frame, 0, 255).astype(np.uint8)
    sh, sw = small.shape[:2]
    y0, x0 = (h - sh) // 2, (w - sw) // 2
    out[y0 : y0 + sh, x0 : x0 + sw] = small
    return out


def bin_of(size: float, bins: tuple[int, ...] = BINS) -> str:
    lo = 0
    for hi in bins:
        if size < hi:
            return f"{lo}-{hi}" if hi < 1000 else f">={lo}"
        lo = hi
    return f">={lo}"


def read_stills(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every card of every still: its true index height, found or not, its detected box, the still's ms."""
    import cv2

    entries = [e for e in load_truth(args.truth) if e.get("kind") in args.kind and e.get("corners")]
    entries = entries[: args.limit]
    photos = default_photo_dir(args.truth)
    detector = CardDetector().load()
    rng = np.random.default_rng(57)
    rows: list[dict[str, Any]] = []
    for n, entry in enumerate(entries):
        photo = cv2.imread(str(photos / entry["image"]))
        if photo is None:
            print(f"{entry['image']}: not readable, skipped")
            continue
        heights: dict[str, float] = {}
        for c in entry["corners"]:
            heights[c["code"]] = max(heights.get(c["code"], 0.0), float(c["h"]))
        for fill in args.fill:
            still = on_table(photo, fill, rng)
            for width in args.capture:  # one after the other: the widths meet the same load
                k = width / SENSOR[0]
                shot = (
                    still
                    if width == SENSOR[0]
                    else cv2.resize(still, (width, round(SENSOR[1] * k)), interpolation=cv2.INTER_AREA)
                )
                start = time.perf_counter()
                try:
                    cards = read_cards(shot, detector, name=entry["image"]).cards
                except ImageError:  # too flat to be a photo of cards: the kiosk refuses it, nothing is read
                    cards = ()
                ms = (time.perf_counter() - start) * 1000.0
                got = Counter(card.code for card in cards)
                boxes = {card.code: max(box_size(b) for b in card.boxes) for card in cards}
                for code in entry["cards"]:
                    if code not in heights:
                        continue
                    found = got[code] > 0
                    if found:
                        got[code] -= 1
                    rows.append(
                        {
                            "still": f"{entry['image']}@{fill}",
                            "fill": fill,
                            "capture": width,
                            "height_px": heights[code] * fill * k,
                            "found": found,
                            "box_px": boxes.get(code) if found else None,
                            "ms": ms,
                        }
                    )
        print(f"{n + 1}/{len(entries)} {entry['image']}", flush=True)
        if args.json:  # so far, in case the run is stopped
            args.json.write_text(json.dumps(rows))
    return rows


def read_real(manifest: Path, prefix: str, limit: int, fills: list[float]) -> list[dict[str, Any]]:
    """Real photos (``../shared/realcards``' manifest, files under ``prefix``): each card read right in the
    photo as it is (by rank: some sets label ranks only) is followed as the photo is shrunk by each of
    ``fills`` onto a frame of its own size (a camera hanging higher). Each row: the card's corner box in the
    model's view of the whole photo, and whether the card (its rank) is still read."""
    import cv2

    from vision.base.photo import load_image

    data = json.loads(manifest.read_text())
    entries = [e for e in data["images"] if str(e["file"]).startswith(prefix)][:limit]
    detector = CardDetector().load()
    rng = np.random.default_rng(57)
    rows: list[dict[str, Any]] = []
    for n, entry in enumerate(entries):
        photo = load_image(manifest.parent / entry["file"])
        h, w = photo.shape[:2]
        ranks = list(entry.get("ranks") or [c[:-1] for c in entry.get("cards", [])])
        want = Counter(ranks)
        native = []
        for card in read_cards(photo, detector).cards:
            rank = card.code[:-1]
            if want[rank] > 0:
                want[rank] -= 1
                native.append((rank, max(box_size(b) for b in card.boxes)))
        for fill in fills:
            small = cv2.resize(photo, (round(w * fill), round(h * fill)), interpolation=cv2.INTER_AREA)
            frame = on_frame(small, photo, rng)
            try:
                got = Counter(c.code[:-1] for c in read_cards(frame, detector).cards)
            except ImageError:
                got = Counter()
            for rank, box in native:
                found = got[rank] > 0
                if found:
                    got[rank] -= 1
                model_px = box * fill * IMGSZ / max(w, h)
                rows.append({"still": f"{entry['file']}@{fill}", "model_px": model_px, "found": found})
        print(
            f"{n + 1}/{len(entries)} {entry['file']}: {len(native)} of {len(ranks)} read as it is", flush=True
        )
    return rows


def real_table(rows: list[dict[str, Any]]) -> list[str]:
    """Recall of the real photos' cards by their corner box in the model's view of the shrunk photo."""
    out = ["| corner box in the model's view | recall |", "|---|---|"]
    for label in sorted({bin_of(float(r["model_px"]), MODEL_BINS) for r in rows}, key=_order):
        sel = [r for r in rows if bin_of(float(r["model_px"]), MODEL_BINS) == label]
        out.append(f"| {label} | {_recall(sel)} |")
    return out


def _recall(rows: list[dict[str, Any]]) -> str:
    return f"{sum(bool(r['found']) for r in rows) / len(rows):.3f} ({len(rows)})" if rows else "-"


def _model(row: dict[str, Any]) -> float:
    return float(row["height_px"]) * IMGSZ / int(row["capture"])


def _order(label: str) -> float:
    return float(label.split("-")[0].lstrip(">="))


def model_view_table(rows: list[dict[str, Any]]) -> list[str]:
    """Recall by the index's height in the model's view of the whole photo, per capture width."""
    captures = sorted({int(r["capture"]) for r in rows}, reverse=True)
    out = [
        "| index height in the model's view | " + " | ".join(f"{w} px wide" for w in captures) + " | all |",
        "|" + "---|" * (len(captures) + 2),
    ]
    for label in sorted({bin_of(_model(r), MODEL_BINS) for r in rows}, key=_order):
        sel = [r for r in rows if bin_of(_model(r), MODEL_BINS) == label]
        cells = [_recall([r for r in sel if r["capture"] == w]) for w in captures]
        out.append(f"| {label} | " + " | ".join(cells) + f" | {_recall(sel)} |")
    return out


def report(
    rows: list[dict[str, Any]], command: str, also: tuple[tuple[str, list[dict[str, Any]]], ...] = ()
) -> str:
    """The measurement as markdown: recall by the true index height, by the still's median detected corner
    box (what the camera check sees), and the reading time per capture width."""
    captures = sorted({int(r["capture"]) for r in rows}, reverse=True)
    out = [
        "# How small a corner the reading reads, and at which capture size",
        "",
        f"Generated by `{command}` (vision/devtools/placement_eval.py explains the scenes), "
        f"{len({r['still'] for r in rows})} scenes. Recall: cards read right over cards in the scene "
        "(count in brackets).",
        "",
        "## Recall by the corner index's true height in the model's view of the whole photo (pixels)",
        "",
        f"The index's height times {IMGSZ} over the photo's width: the same framing at every capture width.",
        "",
        *model_view_table(rows),
    ]
    for name, other in also:
        out += ["", f"### {name}", "", *model_view_table(other)]
    out += [
        "",
        "## Recall by the corner index's true height in the photo (pixels)",
        "",
        "| index height px | " + " | ".join(f"{w} px wide" for w in captures) + " | all |",
        "|" + "---|" * (len(captures) + 2),
    ]
    for label in sorted({bin_of(float(r["height_px"])) for r in rows}, key=_order):
        sel = [r for r in rows if bin_of(float(r["height_px"])) == label]
        cells = [_recall([r for r in sel if r["capture"] == w]) for w in captures]
        out.append(f"| {label} | " + " | ".join(cells) + f" | {_recall(sel)} |")
    stills: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        stills[(str(r["still"]), int(r["capture"]))].append(r)
    out += [
        "",
        "## Recall by the photo's median detected corner box in the model's view (`sqrt(w * h)`, pixels)",
        "",
        "What the camera check sees (vision.table.placement's MIN_MODEL_PX and GOOD_MODEL_PX).",
        "",
        "| median corner box, model's view | photos | recall |",
        "|---|---|---|",
    ]
    by_box: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for cards in stills.values():
        boxes = [float(r["box_px"]) for r in cards if r["box_px"]]
        width = int(cards[0]["capture"])
        label = bin_of(statistics.median(boxes) * IMGSZ / width, MODEL_BINS) if boxes else "none read"
        by_box[label].extend(cards)
    for label in sorted(by_box, key=lambda s: -1.0 if s == "none read" else _order(s)):
        n_photos = len({(r["still"], r["capture"]) for r in by_box[label]})
        out.append(f"| {label} | {n_photos} | {_recall(by_box[label])} |")
    out += ["", "## Reading time per capture width (this machine, the widths read one after the other)", ""]
    out += [
        "| capture width | median ms | 90th percentile ms | median ratio to the widest |",
        "|---|---|---|---|",
    ]
    per_still = {key: float(cards[0]["ms"]) for key, cards in stills.items() if "ms" in cards[0]}
    widest = captures[0]
    for w in captures:
        ms = sorted(v for (_, cw), v in per_still.items() if cw == w)
        if not ms:
            continue
        ratios = [
            v / per_still[(s, widest)]
            for (s, cw), v in per_still.items()
            if cw == w and (s, widest) in per_still
        ]
        out.append(
            f"| {w} | {statistics.median(ms):.0f} | {ms[int(0.9 * (len(ms) - 1))]:.0f} | "
            f"{statistics.median(ratios):.2f} |"
        )
    ratios = sorted(float(r["box_px"]) / float(r["height_px"]) for r in rows if r["box_px"])
    if ratios:
        out += [
            "",
            "Detected corner box over the true index height, cards read: median "
            f"{statistics.median(ratios):.2f} "
            f"(10th percentile {ratios[len(ratios) // 10]:.2f}, 90th {ratios[9 * len(ratios) // 10]:.2f}).",
        ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.devtools.placement_eval", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--truth", type=Path, default=Path("datasets/camera/truth/val.jsonl"))
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--fill", type=float, nargs="+", default=[1.0, 0.6, 0.35, 0.2])
    parser.add_argument("--capture", type=int, nargs="+", default=[4608, 2304, 1536])
    parser.add_argument("--kind", nargs="+", default=["table", "scatter", "seep"])
    parser.add_argument("--json", type=Path, help="also write every card's result here (as it goes)")
    parser.add_argument("--rows", type=Path, help="report on the results a --json run wrote, reading nothing")
    parser.add_argument("--report", type=Path, help="write the report (markdown) here too")
    parser.add_argument("--real", type=Path, help="a real photo set's manifest.json (../shared/realcards)")
    parser.add_argument("--prefix", default="ivr_edinburgh/", help="with --real: the files under this folder")
    parser.add_argument(
        "--real-rows", nargs="*", default=[], metavar="NAME=ROWS", help="--real runs' rows: their tables too"
    )
    parser.add_argument(
        "--ran", help="with --rows: the command that wrote them (for the report's first line)"
    )
    parser.add_argument(
        "--also",
        nargs="*",
        default=[],
        metavar="NAME=ROWS",
        help="another run's rows: its model-view table too",
    )
    args = parser.parse_args(argv)
    if args.real:
        fills = [f for f in args.fill if f < 1] or [0.5, 0.35, 0.25, 0.18, 0.12]
        real = read_real(args.real, args.prefix, args.limit, fills)
        if args.json:
            args.json.write_text(json.dumps(real))
        print("\n".join(real_table(real)))
        return 0
    rows = json.loads(args.rows.read_text()) if args.rows else read_stills(args)
    command = args.ran or "python -m vision.devtools.placement_eval " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    also = tuple(
        (name, json.loads(Path(path).read_text())) for name, _, path in (a.rpartition("=") for a in args.also)
    )
    text = report(rows, command, also)
    for name, _, path in (a.rpartition("=") for a in args.real_rows):
        real_rows = json.loads(Path(path).read_text())
        text += f"\n## Real photos: {name}\n\n" + "\n".join(real_table(real_rows)) + "\n"
    print(text)
    if args.report:
        args.report.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
