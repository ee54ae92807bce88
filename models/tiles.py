"""Cut the kiosk's tiles out of a synthetic dataset, as training photos of their own.

``python -m models.tiles --src DIR --out DIR [--per-image N] [--seed S] [--imgsz PX] [--all]``

When the corners in a photo come out small (a whole table in a 640 px photo), the kiosk reads the photo
again as a 2 x 2 grid of overlapping crops, each scaled up to the model input (:mod:`vision.detector`,
``tile_grid``). Those crops look unlike any training photo: corners of 20-35 input pixels, as soft as
the 12-20 px they were in the photo. This tool makes such training photos from a dataset drawn by
:mod:`models.synth`: for each training photo whose labelled corners the kiosk would find small (median
``sqrt(w * h)`` under ``SMALL_CORNER`` input pixels at ``--imgsz``; ``--all`` takes every photo) it picks
``--per-image`` of the kiosk's own tiles that hold a labelled corner, at random from ``--seed``, and writes
each crop at its own size, losslessly (PNG): training scales it up to the input as the kiosk does.

A label is kept, clipped to the crop, when at least ``MIN_VISIBLE`` of its box lies inside the crop (the
rule the scenes label corners by: a corner mostly cut off is not asked for); otherwise it is dropped.

Output (``models.train`` pools it like any data folder; it has no validation photos of its own)::

    OUT/data.yaml                 Ultralytics dataset file (53 card classes)
    OUT/images/train/*.png        the crops, named after their photo and tile: 000123_t2.png
    OUT/labels/train/*.txt        their YOLO boxes
    OUT/tiles.json                what was cut: source, seed, counts
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2

from models.scenes import MIN_VISIBLE
from models.synth import write_data_yaml
from vision.detector import SMALL_CORNER, tile_grid

TILES = 2  # the kiosk's grid for photos whose corners are small (vision.detector.CardDetector.detect)


class TilesError(Exception):
    """The source dataset is missing or unreadable."""


@dataclass(frozen=True)
class Box:
    """One YOLO label in photo pixels."""

    cls: int
    x1: float
    y1: float
    x2: float
    y2: float

    @property
    def size(self) -> float:
        """``sqrt(w * h)``, the measure the kiosk's smallness rule uses."""
        return math.sqrt(max(self.x2 - self.x1, 0.0) * max(self.y2 - self.y1, 0.0))


def read_labels(path: Path, width: int, height: int) -> list[Box]:
    """The YOLO label file ``path`` of a ``width`` x ``height`` photo as boxes in pixels."""
    boxes = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        try:
            cls, cx, cy, w, h = int(parts[0]), *(float(v) for v in parts[1:5])
        except (ValueError, IndexError) as exc:
            raise TilesError(f"{path}:{n}: not a YOLO label line ('class cx cy w h'): {line!r}") from exc
        boxes.append(
            Box(cls, (cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)
        )
    return boxes


def corners_are_small(boxes: list[Box], width: int, height: int, imgsz: int) -> bool:
    """Whether the kiosk would tile this photo: its median corner under ``SMALL_CORNER`` input pixels."""
    if not boxes:
        return False
    return statistics.median(b.size for b in boxes) * imgsz / max(width, height) < SMALL_CORNER


def tile_labels(boxes: list[Box], x0: int, y0: int, w: int, h: int) -> list[str]:
    """The labels of crop (x0, y0, w, h): boxes at least ``MIN_VISIBLE`` inside it, clipped, as YOLO lines."""
    lines = []
    for b in boxes:
        area = (b.x2 - b.x1) * (b.y2 - b.y1)
        ix1, iy1 = max(b.x1, x0), max(b.y1, y0)
        ix2, iy2 = min(b.x2, x0 + w), min(b.y2, y0 + h)
        if area <= 0 or ix2 <= ix1 or iy2 <= iy1 or (ix2 - ix1) * (iy2 - iy1) / area < MIN_VISIBLE:
            continue
        cx, cy = ((ix1 + ix2) / 2 - x0) / w, ((iy1 + iy2) / 2 - y0) / h
        lines.append(f"{b.cls} {cx:.6f} {cy:.6f} {(ix2 - ix1) / w:.6f} {(iy2 - iy1) / h:.6f}")
    return lines


@dataclass(frozen=True)
class CutResult:
    photos: int  # training photos read
    tiled: int  # of them, those the kiosk would tile (or all, with every=True)
    crops: int  # crops written
    corners: int  # labels written


def cut(
    src: Path, out: Path, per_image: int = 2, seed: int = 0, imgsz: int = 576, every: bool = False
) -> CutResult:
    """Write the tiles dataset ``out`` from the training photos of ``src`` (see the module docstring)."""
    if per_image < 1:
        raise TilesError(f"--per-image must be at least 1, got {per_image}")
    images = src / "images" / "train"
    labels = src / "labels" / "train"
    if not images.is_dir() or not labels.is_dir():
        raise TilesError(f"{src}: not a dataset of models.synth (no images/train and labels/train)")
    photos = sorted(p for p in images.iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"})
    if not photos:
        raise TilesError(f"{images}: no training photos")
    for sub in ("images/train", "labels/train", "images/val"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    tiled = crops = corners = 0
    for index, photo in enumerate(photos):
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if image is None:
            raise TilesError(f"{photo}: not a readable image")
        height, width = image.shape[:2]
        label_file = labels / f"{photo.stem}.txt"
        boxes = read_labels(label_file, width, height) if label_file.is_file() else []
        if not every and not corners_are_small(boxes, width, height, imgsz):
            continue
        tiled += 1
        grid = [(k, t, tile_labels(boxes, *t)) for k, t in enumerate(tile_grid(height, width, TILES))]
        choices = [g for g in grid if g[2]]
        rng = random.Random(f"{seed}:{photo.name}")  # one stream per photo: order and counts do not matter
        for k, (x0, y0, w, h), lines in rng.sample(choices, min(per_image, len(choices))):
            name = f"{photo.stem}_t{k}"
            target = out / "images" / "train" / f"{name}.png"
            if not cv2.imwrite(str(target), image[y0 : y0 + h, x0 : x0 + w]):
                raise TilesError(f"could not write {target}")
            (out / "labels" / "train" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            crops += 1
            corners += len(lines)
        if index % 500 == 499:
            print(f"  {index + 1}/{len(photos)} photos, {crops} crops", flush=True)
    write_data_yaml(out)
    result = CutResult(len(photos), tiled, crops, corners)
    manifest = {"source": str(src), "seed": seed, "per_image": per_image, "imgsz": imgsz, "all": every}
    manifest |= {"photos": result.photos, "tiled": result.tiled, "crops": crops, "corners": corners}
    (out / "tiles.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.tiles", description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, required=True, help="a dataset folder of models.synth")
    parser.add_argument("--out", type=Path, required=True, help="the tiles dataset folder to write")
    parser.add_argument("--per-image", type=int, default=2, help="crops per tiled photo (default 2, of 4)")
    parser.add_argument("--seed", type=int, default=0, help="which crops are picked (default 0)")
    parser.add_argument("--imgsz", type=int, default=576, help="model input size for the smallness rule")
    parser.add_argument("--all", action="store_true", help="cut every photo, not only those the kiosk tiles")
    args = parser.parse_args(argv)
    try:
        r = cut(args.src, args.out, args.per_image, args.seed, args.imgsz, args.all)
    except TilesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{r.photos} photos, {r.tiled} tiled, {r.crops} crops with {r.corners} corners -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
