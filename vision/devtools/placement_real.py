"""What the reading does with real cards on a bigger table: the measurement behind the camera check's size
rule (:mod:`vision.table.placement`), on real photographs instead of synthetic scenes.

    python -m vision.devtools.placement_real [--photos ../shared/realcards] [--columns 3 4 5 6 8 10 12]
                                             [--capture 0 2304] [--out models/eval/placement-real.md]

The real photos of one upright card each on a plain table (``ivr_edinburgh`` in the real-card folder's
``manifest.json``: 640 x 480 webcam photos, every card labelled) are laid side by side at their own pixels,
``columns`` photos across and three quarters as many down, as one bigger table: a camera hanging higher over a
larger table sees more photos' worth of table, each card as large in the sensor's pixels as in its own
photo. The table is then taken as a still ``capture`` pixels wide (0: the photos' own pixels, up to the
Camera Module 3's 4608). The photos are composed here, in memory, each time: none is copied anywhere.

Each still is read as the camera check reads it (:func:`vision.pipeline.read_cards` with the kiosk's
detector) and compared with the labels as multisets of codes: cards read right, cards in doubt (the
reading's ``uncertain``), cards read wrong, and what :func:`vision.table.placement.check_placement` then
advises. The sizes are those the check sees: each card's largest detected corner box (``sqrt(w * h)``) in
the still and in the model's view of the whole still (times the model's input side over the still's long
side). The report is a table per capture with those figures, and the smallest model-view size at which
every card was read and none was in doubt.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REAL = Path(__file__).resolve().parents[3] / "shared" / "realcards"
SENSOR_WIDTH = 4608  # a Camera Module 3's full still
SET = "ivr_edinburgh"


@dataclass(frozen=True)
class Run:
    columns: int
    rows: int
    capture: int
    width: int
    height: int
    cards: int
    right: int
    doubt: int
    wrong: int
    corner_px: float | None
    model_px: float | None
    verdict: str
    advice: str
    seconds: float


def load_photos(root: Path) -> list[tuple[np.ndarray, str]]:
    """The real set's photos (BGR, 640 x 480) with their one card each, in the manifest's order."""
    import cv2

    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    out = []
    for item in manifest["images"]:
        if not item["file"].startswith(SET + "/") or len(item.get("cards", [])) != 1:
            continue
        image = cv2.imread(str(root / item["file"]), cv2.IMREAD_COLOR)
        if image is not None and image.shape[:2] == (480, 640):
            out.append((image, item["cards"][0]))
    if not out:
        raise FileNotFoundError(f"no {SET} photos listed in {root / 'manifest.json'}")
    return out


def compose(
    photos: list[tuple[np.ndarray, str]], columns: int, rows: int, start: int = 0
) -> tuple[np.ndarray, list[str]]:
    """``columns`` x ``rows`` photos side by side at their own pixels (the set used in turn from ``start``,
    again from its first once it runs out), and the cards they show."""
    tiles, codes = [], []
    for k in range(columns * rows):
        image, code = photos[(start + k) % len(photos)]
        tiles.append(image)
        codes.append(code)
    grid = [np.hstack(tiles[r * columns : (r + 1) * columns]) for r in range(rows)]
    return np.vstack(grid), codes


def taken(table: np.ndarray, capture: int) -> np.ndarray:
    """The table as a still ``capture`` pixels wide (0: its own pixels, at most SENSOR_WIDTH wide)."""
    import cv2

    h, w = table.shape[:2]
    width = capture or min(w, SENSOR_WIDTH)
    if width == w:
        return table
    return cv2.resize(table, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)


def measure(detector: Any, photos: list[tuple[np.ndarray, str]], columns: int, capture: int) -> Run:
    from vision.base.types import box_size
    from vision.pipeline import read_cards
    from vision.table.placement import check_placement, lens_for

    rows = max(1, round(columns * 0.75))
    table, codes = compose(photos, columns, rows, start=columns * 7)
    still = taken(table, capture)
    started = time.perf_counter()
    reading = read_cards(still, detector)
    seconds = time.perf_counter() - started
    h, w = still.shape[:2]
    truth, read = Counter(codes), Counter(c.code for c in reading.cards)
    right = sum((truth & read).values())
    imgsz = int(getattr(detector, "imgsz", 576) or 576)
    corners = [max(box_size(b) for b in c.boxes) for c in reading.cards]
    corner = statistics.median(corners) if corners else None
    placement = check_placement(reading.cards, w, h, None, imgsz, lens_for("imx708"))
    return Run(
        columns,
        rows,
        capture,
        w,
        h,
        len(codes),
        right,
        sum(1 for c in reading.cards if c.uncertain),
        sum((read - truth).values()),
        corner,
        None if corner is None else corner * imgsz / max(w, h),
        str(placement.verdict),
        placement.summary().partition("; ")[0],
        seconds,
    )


def report(runs: list[Run], command: str, model: str) -> str:
    lines = [
        "# The camera check's size rule on real cards laid as a bigger table",
        "",
        f"Generated by `{command}` (vision/devtools/placement_real.py explains the tables), read with "
        f"{model}. The real photos ({SET}, one upright card on a plain table each, 640 x 480) are laid side "
        "by side at their own pixels; a still of `capture` pixels across is the table taken at that width "
        "(own: the photos' own pixels, at most 4608). Corner: the median largest detected corner box "
        "(`sqrt(w * h)`) of the cards read, in the still and in the model's view of the whole still. "
        "Right: cards read with their right code; doubt: cards the reading marks uncertain; wrong: codes "
        "read that are not on the table. Advice: what the camera check (vision.table.placement) says of it.",
        "",
        "| photos across x down | still | cards | right | doubt | wrong | corner px "
        "| corner in the model's view | advice | read in |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        corner = "-" if r.corner_px is None else f"{r.corner_px:.0f}"
        model = "-" if r.model_px is None else f"{r.model_px:.1f}"
        lines.append(
            f"| {r.columns} x {r.rows} | {r.width} x {r.height} | {r.cards} | {r.right} | {r.doubt} | "
            f"{r.wrong} | {corner} | {model} | {r.advice} | {r.seconds:.1f} s |"
        )
    from vision.table.placement import GOOD_MODEL_PX, MIN_MODEL_PX

    whole = [r.model_px for r in runs if r.model_px is not None and r.right == r.cards and not r.wrong]
    lost = [r.model_px for r in runs if r.model_px is not None and (r.right < r.cards or r.wrong)]
    large = [r for r in runs if r.model_px is not None and r.model_px >= GOOD_MODEL_PX]
    small = [r for r in runs if r.model_px is not None and r.model_px < GOOD_MODEL_PX]
    lines += ["", "## Summary", ""]
    if whole:
        lines.append(f"- Every card read right down to {min(whole):.1f} px in the model's view.")
    if lost:
        lines.append(f"- Cards lost or read wrong from {max(lost):.1f} px in the model's view down.")
    for name, part in (("from", large), ("under", small)):
        cards = sum(r.cards for r in part)
        if cards:
            lines.append(
                f"- {name.capitalize()} {GOOD_MODEL_PX:g} px: {sum(r.right for r in part)} of {cards} cards "
                f"read right, {sum(r.doubt for r in part)} in doubt."
            )
    lines.append(
        f"- The check's size rule (vision.table.placement): cards are put down to their size when lost or in "
        f"doubt under GOOD_MODEL_PX = {GOOD_MODEL_PX:g} px, and lowering is no help under MIN_MODEL_PX = "
        f"{MIN_MODEL_PX:g} px when the cards already fill the view. A photo whose every seat is read with no "
        "card in doubt is never advised to move."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.devtools.placement_real", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--photos", type=Path, default=REAL, help="the real-card folder (its manifest.json)")
    parser.add_argument("--columns", type=int, nargs="+", default=[3, 4, 5, 6, 8, 10, 12])
    parser.add_argument(
        "--capture", type=int, nargs="+", default=[0, 2304], help="still widths (0: own pixels)"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the report here (Markdown)")
    parser.add_argument("--json", type=Path, default=None, help="write the runs here")
    args = parser.parse_args(argv)
    try:
        photos = load_photos(args.photos)
    except (FileNotFoundError, KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from vision.reading.detector import detector_for_runtime

    detector = detector_for_runtime().load()
    runs = []
    for capture in args.capture:
        for columns in args.columns:
            run = measure(detector, photos, columns, capture)
            runs.append(run)
            print(json.dumps(run.__dict__), flush=True)
    command = "python -m vision.devtools.placement_real " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    model = Path(getattr(detector, "model_path", "models/cards.onnx"))
    root = Path(__file__).resolve().parents[2]
    shown = model.resolve().relative_to(root) if model.resolve().is_relative_to(root) else model
    text = report(runs, command.strip(), str(shown))
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in runs], indent=1) + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
