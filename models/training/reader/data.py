"""Patches for the corner reader (``vision.reader.corners``), cut from the synthetic photos and their YOLO
labels.

Every labelled corner index of a dataset split becomes one patch, cut as the runtime cuts it
(:func:`vision.reader.corners.corner_patch`) but with more context (``STORE_CONTEXT``), so that training can
shift
and scale the runtime's square inside it. Negatives ("none") are squares of the same sizes away from every
labelled corner: half of them one or two corner sizes beside a corner (the card's pips, its picture, the
edge of the next card), half anywhere in the photo. Deterministic from the seed.

With ``--from-detector`` the patches are cut around the boxes the kiosk's detector itself hands the reader
(:meth:`vision.reading.detector.CardDetector.reread`: its candidates after class-wise suppression, tiling and
turns
as the kiosk reads, down to ``DETECTOR_FLOOR`` of its threshold, lower than the kiosk goes), so the reader
learns the detector's loose boxes, its weak corners and its false ones. A box takes
the class of the labelled corner it overlaps (IoU >= ``MATCH_IOU``), is "none" where it overlaps none
(IoU < ``NONE_IOU``), and is left out in between. Use photos the detector was not trained on.

    python -m models.training.reader.data --data datasets/synth datasets/synth14 --out runs/reader/train.npz
    python -m models.training.reader.data --data datasets/synth9 --from-detector --out runs/reader/hard_9.npz

The output is an ``.npz`` with ``x`` (N x S x S x 3 uint8 BGR, S = ``STORE``) and ``y`` (class ids: the
53 card codes in ``CARD_CODES`` order, then 53 for "none").
"""

from __future__ import annotations

import argparse
import random
import sys
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.geometry import box_iou_one
from vision.base.types import CARD_CODES, ModelError
from vision.reader.corners import CONTEXT, PATCH, corner_patch

STORE_CONTEXT = 2.0  # the stored patch's side over the box's longer side
STORE = round(PATCH * STORE_CONTEXT / CONTEXT)  # 64: the runtime's 48-pixel square is its centre
NONE_ID = len(CARD_CODES)  # the reader's last class, "none"
NEGATIVES_PER_IMAGE = 2
MATCH_IOU = 0.5  # --from-detector: a box overlapping a labelled corner this much is that card
NONE_IOU = 0.2  # ... and one overlapping every labelled corner less than this shows none
DETECTOR_FLOOR = 0.25  # --from-detector: candidates down to this share of conf (the kiosk: READER_FLOOR)


def _boxes(label_file: Path, width: int, height: int) -> list[tuple[int, tuple[float, float, float, float]]]:
    out: list[tuple[int, tuple[float, float, float, float]]] = []
    if not label_file.is_file():
        return out
    for line in label_file.read_text().split("\n"):
        parts = line.split()
        if len(parts) != 5:
            continue
        c, x, y, w, h = int(parts[0]), *map(float, parts[1:])
        x0, x1 = (x - w / 2) * width, (x + w / 2) * width
        y0, y1 = (y - h / 2) * height, (y + h / 2) * height
        out.append((c, (x0, y0, x1, y1)))
    return out


def _far(box: tuple[float, float, float, float], labelled: list[tuple[float, float, float, float]]) -> bool:
    """Whether ``box``'s centre lies outside every labelled box grown by half its size."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for x0, y0, x1, y1 in labelled:
        gx, gy = (x1 - x0) / 2, (y1 - y0) / 2
        if x0 - gx < cx < x1 + gx and y0 - gy < cy < y1 + gy:
            return False
    return True


def image_patches(job: tuple[str, str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The patches of one photo: its labelled corners, then its negatives."""
    import cv2

    image_path, label_path, seed = job
    image = cv2.imread(image_path, cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"unreadable image {image_path}")
    height, width = image.shape[:2]
    rng = random.Random(seed)
    labelled = _boxes(Path(label_path), width, height)
    patches, ids = [], []
    for c, box in labelled:
        patches.append(corner_patch(image, box, STORE, STORE_CONTEXT))
        ids.append(c)
    sizes = [(b[2] - b[0], b[3] - b[1]) for _, b in labelled] or [(18.0, 26.0), (30.0, 44.0)]
    boxes = [b for _, b in labelled]
    made = tries = 0
    while made < NEGATIVES_PER_IMAGE and tries < 40:
        tries += 1
        w, h = rng.choice(sizes)
        if labelled and made % 2 == 0:
            _, (x0, y0, x1, y1) = rng.choice(labelled)
            angle = rng.uniform(0, 2 * np.pi)
            reach = rng.uniform(1.0, 2.5) * max(w, h)
            cx, cy = (x0 + x1) / 2 + reach * np.cos(angle), (y0 + y1) / 2 + reach * np.sin(angle)
        else:
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        if not (0 <= cx < width and 0 <= cy < height) or not _far(box, boxes):
            continue
        patches.append(corner_patch(image, box, STORE, STORE_CONTEXT))
        ids.append(NONE_ID)
        made += 1
    if not patches:
        return np.zeros((0, STORE, STORE, 3), np.uint8), np.zeros(0, np.int16)
    return np.stack(patches), np.asarray(ids, np.int16)


_DETECTOR: Any = None


def _recording_detector() -> Any:
    """The kiosk's detector (default model, reader, tiling and turns, one thread), remembering the boxes
    it last handed the corner reader."""
    global _DETECTOR
    if _DETECTOR is None:
        from vision.reader.corners import CornerReader
        from vision.reading.detector import CardDetector

        class RecordingReader(CornerReader):
            handed: np.ndarray = np.zeros((0, 4), np.float32)

            def read(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                self.handed = boxes
                return super().read(image, boxes)

        class Recording(CardDetector):
            @property
            def candidate_conf(self) -> float:
                return self.conf * DETECTOR_FLOOR

        detector = Recording(threads=1)
        if detector.reader is None:
            raise ValueError("--from-detector needs the corner reader on (unset TABLETALLY_READER=off)")
        detector.reader = RecordingReader(detector.reader.model_path, threads=1)
        _DETECTOR = detector.load()
    return _DETECTOR


def detector_patches(job: tuple[str, str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The patches of one photo around the boxes the kiosk's detector hands its reader, labelled from
    the photo's labelled corners (see the module doc)."""
    import cv2

    image_path, label_path, _ = job
    image = cv2.imread(image_path, cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"unreadable image {image_path}")
    labelled = _boxes(Path(label_path), image.shape[1], image.shape[0])
    detector = _recording_detector()
    detector.reader.handed = np.zeros((0, 4), np.float32)
    detector.detect(image)
    truths = np.array([b for _, b in labelled], np.float32).reshape(-1, 4)
    patches, ids = [], []
    for row in detector.reader.handed:
        box = (float(row[0]), float(row[1]), float(row[2]), float(row[3]))
        overlaps = box_iou_one(np.asarray(box, np.float32), truths)
        k = int(overlaps.argmax()) if len(truths) else 0
        best = float(overlaps[k]) if len(truths) else 0.0
        code = labelled[k][0] if best > 0 else NONE_ID
        if best >= MATCH_IOU or best < NONE_IOU:
            patches.append(corner_patch(image, box, STORE, STORE_CONTEXT))
            ids.append(code if best >= MATCH_IOU else NONE_ID)
    if not patches:
        return np.zeros((0, STORE, STORE, 3), np.uint8), np.zeros(0, np.int16)
    return np.stack(patches), np.asarray(ids, np.int16)


def collect(
    folders: list[Path], split: str, seed: int, workers: int = 2, from_detector: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    jobs = []
    for folder in folders:
        images = sorted((folder / "images" / split).glob("*.jpg"))
        if not images:
            raise FileNotFoundError(f"no {split} images in {folder / 'images' / split}")
        for k, img in enumerate(images):
            label = folder / "labels" / split / (img.stem + ".txt")
            jobs.append((str(img), str(label), zlib.crc32(f"{seed}/{folder.name}/{k}".encode())))
    make = detector_patches if from_detector else image_patches
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(make, jobs, chunksize=8 if from_detector else 32))
    else:
        parts = [make(j) for j in jobs]
    return np.concatenate([p for p, _ in parts]), np.concatenate([i for _, i in parts])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data",
        nargs="+",
        type=Path,
        required=True,
        help="dataset folders (models.training.data.synth output)",
    )
    ap.add_argument("--split", default="train", choices=["train", "val"])
    ap.add_argument("--out", type=Path, required=True, help="the .npz to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--from-detector",
        action="store_true",
        help="cut the patches around the kiosk detector's own boxes (see the module doc)",
    )
    args = ap.parse_args(argv)
    try:
        x, y = collect(args.data, args.split, args.seed, args.workers, args.from_detector)
    except (FileNotFoundError, ValueError, ModelError) as exc:
        print(
            f"models.training.reader.data: {exc} (python -m models.training.data.synth draws a dataset)",
            file=sys.stderr,
        )
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, x=x, y=y)
    print(f"{args.out}: {len(y)} patches ({int((y == NONE_ID).sum())} none) of {STORE}x{STORE} px")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
