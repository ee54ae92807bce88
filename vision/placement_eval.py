"""How small a corner the kiosk's reading still reads, and at which capture size: the measurement behind
:mod:`vision.placement`'s thresholds.

    python -m vision.placement_eval [--truth datasets/camera/truth/val.jsonl] [--limit 40]
                                    [--fill 1.0 0.7 0.5] [--capture 4608 2304 1536]
                                    [--kind table scatter seep]

Each held-out synthetic photo (drawn at 1920 px, with the true size of every corner index) is laid on a
Camera Module 3 still of 4608 x 2592 pixels at ``fill`` times its own size, on the photo's own table
colour (a camera hanging higher sees the same cards smaller, with more table round them), and the still
is then taken at each ``capture`` width (the whole frame scaled down, as the sensor's binned modes and
smaller stills are). A photo drawn at 1920 px whose corners are 35 px tall, laid at fill 1.0 on 4608 px,
is what a Camera Module 3 sees of a 1 m table from 0.77 m (an 8 mm index, 37 px).

Each still is read as the kiosk reads (:class:`~vision.detector.CardDetector` with its defaults: the
shipped models, the kiosk's effort, automatic tiling) and its cards are compared with the truth as
multisets of codes. A card's size is its largest corner index's true height in the still's pixels (the
index as printed: a card lying at an angle has a larger box). For the cards read, the detected corner box
(``sqrt(w * h)``, what :mod:`vision.placement` sees at the table) is kept too, so the thresholds can be
put in the measure the camera check has.

Prints recall by corner height in photo pixels, per capture width, the median reading time per capture
width, and the ratio of the detected box size to the true index height.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from vision.detector import CardDetector
from vision.evaluate import default_photo_dir, load_truth
from vision.pipeline import read_cards
from vision.types import box_size

SENSOR = (4608, 2592)
BINS = (4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 1000)


def on_table(photo: np.ndarray, fill: float, rng: np.random.Generator) -> np.ndarray:
    """``photo`` scaled by ``fill`` and laid in the middle of a sensor-sized still of its own table colour."""
    import cv2

    h, w = photo.shape[:2]
    small = cv2.resize(photo, (round(w * fill), round(h * fill)), interpolation=cv2.INTER_AREA)
    border = np.concatenate([photo[:8].reshape(-1, 3), photo[-8:].reshape(-1, 3)])
    colour = np.median(border, axis=0)
    still = np.empty((SENSOR[1], SENSOR[0], 3), np.float32)
    still[:] = colour
    still += rng.normal(0.0, 4.0, still.shape).astype(np.float32)
    still = np.clip(still, 0, 255).astype(np.uint8)
    sh, sw = small.shape[:2]
    y0, x0 = (SENSOR[1] - sh) // 2, (SENSOR[0] - sw) // 2
    still[y0 : y0 + sh, x0 : x0 + sw] = small
    return still


def bin_of(size: float) -> str:
    lo = 0
    for hi in BINS:
        if size < hi:
            return f"{lo}-{hi}" if hi < 1000 else f">={lo}"
        lo = hi
    return f">={lo}"


def main(argv: list[str] | None = None) -> int:
    import cv2

    parser = argparse.ArgumentParser(
        prog="python -m vision.placement_eval", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--truth", type=Path, default=Path("datasets/camera/truth/val.jsonl"))
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--fill", type=float, nargs="+", default=[1.0, 0.7, 0.5])
    parser.add_argument("--capture", type=int, nargs="+", default=[4608, 2304, 1536])
    parser.add_argument("--kind", nargs="+", default=["table", "scatter", "seep"])
    parser.add_argument("--json", type=Path, help="also write every card's result here")
    args = parser.parse_args(argv)

    entries = [e for e in load_truth(args.truth) if e.get("kind") in args.kind and e.get("corners")]
    entries = entries[: args.limit]
    photos = default_photo_dir(args.truth)
    detector = CardDetector().load()
    rng = np.random.default_rng(57)
    rows: list[dict[str, Any]] = []
    times: dict[int, list[float]] = defaultdict(list)
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
            for width in args.capture:
                k = width / SENSOR[0]
                shot = (
                    still
                    if width == SENSOR[0]
                    else cv2.resize(still, (width, round(SENSOR[1] * k)), interpolation=cv2.INTER_AREA)
                )
                start = time.perf_counter()
                reading = read_cards(shot, detector, name=entry["image"])
                times[width].append((time.perf_counter() - start) * 1000.0)
                got = Counter(reading.codes)
                boxes = {card.code: max(box_size(b) for b in card.boxes) for card in reading.cards}
                for code in entry["cards"]:
                    if code not in heights:
                        continue
                    found = got[code] > 0
                    if found:
                        got[code] -= 1
                    rows.append(
                        {
                            "image": entry["image"],
                            "fill": fill,
                            "capture": width,
                            "height_px": heights[code] * fill * k,
                            "found": found,
                            "box_px": boxes.get(code) if found else None,
                        }
                    )
        print(f"{n + 1}/{len(entries)} {entry['image']}", flush=True)

    print("\nrecall by true corner-index height in the still (photo pixels), per capture width")
    header = "| height px | " + " | ".join(f"{w} px" for w in args.capture) + " | all |"
    print(header)
    print("|" + "---|" * (len(args.capture) + 2))
    labels = sorted(
        {bin_of(float(r["height_px"])) for r in rows}, key=lambda s: float(s.split("-")[0].lstrip(">="))
    )
    for label in labels:
        cells = []
        for width in [*args.capture, None]:
            sel = [
                r
                for r in rows
                if bin_of(float(r["height_px"])) == label and (width is None or r["capture"] == width)
            ]
            cells.append(f"{sum(bool(r['found']) for r in sel) / len(sel):.3f} ({len(sel)})" if sel else "-")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print("\nrecall by fill and capture width (fill 1.0 at 4608 px: a 1 m table under a Camera Module 3)")
    for fill in args.fill:
        cells = []
        for width in args.capture:
            sel = [r for r in rows if r["fill"] == fill and r["capture"] == width]
            med = statistics.median(float(r["height_px"]) for r in sel)
            cells.append(f"{width}: {sum(bool(r['found']) for r in sel) / len(sel):.3f} (index {med:.0f} px)")
        print(f"fill {fill}: " + ", ".join(cells))
    print(
        "\nmedian / p90 reading ms per capture width (this machine): "
        + ", ".join(
            f"{w}: {statistics.median(t):.0f} / {sorted(t)[int(0.9 * (len(t) - 1))]:.0f}"
            for w, t in times.items()
        )
    )
    ratios = [float(r["box_px"]) / float(r["height_px"]) for r in rows if r["box_px"]]
    print(
        f"detected box size / true index height: median {statistics.median(ratios):.2f} "
        f"(p10 {sorted(ratios)[len(ratios) // 10]:.2f}, p90 {sorted(ratios)[9 * len(ratios) // 10]:.2f})"
    )
    if args.json:
        args.json.write_text(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
