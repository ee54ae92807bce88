"""Pick the training photos the detector reads wrong, as a training folder of their own (hard examples).

``python -m models.hard --src DIR [DIR ...] --out DIR [--count N] [--seed S] [--model M.onnx] [--conf C]``

Each training photo of the source datasets (drawn by :mod:`models.synth`) is read once whole by the
detector at its input size, as :mod:`models.evaluate` reads the held-out photos (default: the shipped
``models/cards.onnx`` at its tuned threshold). Each labelled corner is matched with the detection overlapping
it most (IoU at least ``CORNER_IOU``): it is *wrong* when nothing overlaps it that much or the detection
names another card. A detection that overlaps no labelled corner that much is *extra*. A photo with a wrong
corner or an extra detection is *hard*; ``--count`` of the hard photos (all of them by default), picked at
random from ``--seed``, are copied with their labels, so that training can see them more often than the
photos the model already reads.

Output (``models.train`` pools it like any data folder; it has no validation photos of its own)::

    OUT/data.yaml                 Ultralytics dataset file (53 card classes)
    OUT/images/train/*            the picked photos, named after their folder: synth91_000123.jpg
    OUT/labels/train/*.txt        their YOLO labels, unchanged
    OUT/hard.json                 what was read and picked: sources, model, threshold, counts, and per
                                  picked photo its wrong corners and extra detections
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.classes import CLASSES_JSON
from models.evaluate import CORNER_IOU, Corner, CornerReads, read_yolo_labels
from models.onnx_detect import SHIPPED_ONNX, Detection, OnnxCardDetector
from models.synth import write_data_yaml
from vision.detector import box_iou_one

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png"}


class HardError(Exception):
    """A source dataset is missing or unreadable, or the options cannot be met."""


@dataclass(frozen=True)
class PhotoReading:
    """How the detector read one training photo."""

    photo: Path
    corners: int  # labelled corners
    wrong: int  # of them missed or read as another card
    extra: int  # detections overlapping no labelled corner

    @property
    def hard(self) -> bool:
        return self.wrong > 0 or self.extra > 0


def score(truth: list[Corner], dets: Sequence[Detection]) -> tuple[int, int]:
    """Wrong labelled corners and extra detections of one photo (the matching of :class:`CornerReads`)."""
    reads = CornerReads()
    reads.add(truth, list(dets))
    labels = np.array([box for _, box in truth], np.float64).reshape(-1, 4)
    extra = 0
    for d in dets:
        ious = box_iou_one(np.array([d.x0, d.y0, d.x1, d.y1], np.float64), labels)
        if not len(ious) or ious.max() < CORNER_IOU:
            extra += 1
    return reads.corners - reads.right, extra


def training_photos(src: Path) -> list[Path]:
    """The training photos of dataset ``src``, sorted; an error names a folder that is not a dataset."""
    images = src / "images" / "train"
    if not images.is_dir() or not (src / "labels" / "train").is_dir():
        raise HardError(f"{src}: not a dataset of models.synth (no images/train and labels/train)")
    photos = sorted(p for p in images.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
    if not photos:
        raise HardError(f"{images}: no training photos")
    return photos


def label_of(photo: Path) -> Path:
    """The label file of photo ``DATASET/images/train/NAME.jpg``: ``DATASET/labels/train/NAME.txt``."""
    return photo.parents[2] / "labels" / "train" / f"{photo.stem}.txt"


def read_photos(
    sources: Sequence[Path],
    detect: Callable[[np.ndarray], Sequence[Detection]],
    progress: Callable[[int, int], None] | None = None,
) -> list[PhotoReading]:
    """Read every training photo of ``sources`` with ``detect`` and score it against its labels."""
    photos = [p for src in sources for p in training_photos(src)]
    readings = []
    for index, photo in enumerate(photos):
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if image is None:
            raise HardError(f"{photo}: not a readable image")
        height, width = image.shape[:2]
        truth = read_yolo_labels(label_of(photo), width, height)
        wrong, extra = score(truth, detect(image))
        readings.append(PhotoReading(photo, len(truth), wrong, extra))
        if progress is not None:
            progress(index + 1, len(photos))
    return readings


def pick(readings: Sequence[PhotoReading], count: int | None, seed: int) -> list[PhotoReading]:
    """``count`` of the hard photos (all when None), at random from ``seed``, in the order read."""
    if count is not None and count < 1:
        raise HardError(f"--count must be at least 1, got {count}")
    hard = [r for r in readings if r.hard]
    if count is None or count >= len(hard):
        return hard
    chosen = set(random.Random(seed).sample(range(len(hard)), count))
    return [r for i, r in enumerate(hard) if i in chosen]


def write(out: Path, picked: Sequence[PhotoReading], manifest: dict[str, object]) -> None:
    """Copy the picked photos and their labels into ``out`` and write its data.yaml and hard.json."""
    for sub in ("images/train", "labels/train", "images/val"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    rows = []
    for r in picked:
        name = f"{r.photo.parents[2].name}_{r.photo.stem}"
        shutil.copyfile(r.photo, out / "images" / "train" / f"{name}{r.photo.suffix}")
        label = label_of(r.photo)
        text = label.read_text(encoding="utf-8") if label.is_file() else ""
        (out / "labels" / "train" / f"{name}.txt").write_text(text, encoding="utf-8")
        rows.append({"photo": str(r.photo), "corners": r.corners, "wrong": r.wrong, "extra": r.extra})
    write_data_yaml(out)
    (out / "hard.json").write_text(json.dumps(manifest | {"picked": rows}, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.hard", description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, nargs="+", required=True, help="dataset folders of models.synth")
    parser.add_argument("--out", type=Path, required=True, help="the hard-examples folder to write")
    parser.add_argument("--count", type=int, help="hard photos to keep (default: all of them)")
    parser.add_argument("--seed", type=int, default=0, help="which hard photos are kept (default 0)")
    parser.add_argument("--model", type=Path, default=SHIPPED_ONNX, help="ONNX detector (default: shipped)")
    parser.add_argument("--classes", type=Path, default=CLASSES_JSON, help="its classes.json")
    parser.add_argument("--conf", type=float, default=0.2, help="detection threshold (default 0.2)")
    args = parser.parse_args(argv)
    try:
        detector = OnnxCardDetector(args.model, args.classes)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def progress(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            print(f"  {done}/{total} photos read", flush=True)

    try:
        readings = read_photos(args.src, lambda image: detector.detect(image, conf=args.conf), progress)
        picked = pick(readings, args.count, args.seed)
        hard = sum(r.hard for r in readings)
        manifest: dict[str, object] = {
            "sources": [str(s) for s in args.src],
            "model": str(args.model),
            "conf": args.conf,
            "seed": args.seed,
            "photos": len(readings),
            "hard": hard,
            "with_wrong_corners": sum(r.wrong > 0 for r in readings),
            "with_extra": sum(r.extra > 0 for r in readings),
            "corners": sum(r.corners for r in readings),
            "wrong_corners": sum(r.wrong for r in readings),
            "extra": sum(r.extra for r in readings),
        }
        write(args.out, picked, manifest)
    except HardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"{len(readings)} photos, {hard} hard ({manifest['with_wrong_corners']} with a wrong corner, "
        f"{manifest['with_extra']} with an extra detection); {len(picked)} copied -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
