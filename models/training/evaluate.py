"""Measure the shipped card model: ``python -m models.training.evaluate [--data DIR] [--out models/eval]``.

Prints and writes ``OUT/report.md`` and ``OUT/report.json`` with:

* held-out synthetic designs (the ``val`` split of a dataset from :mod:`models.training.data.synth`): mAP50
  and mAP50-95
  (Ultralytics validation of ``cards.pt``), the exact-hand rate (per image, the set of cards read by the ONNX
  model equals the truth; the corners of one card count once), per-class precision/recall of the worst
  classes, and what became of each labelled corner index (read right, as another rank, with another suit,
  missed) with the most common confusions, how often the cards read would score as the truth does in each
  game (:func:`scores_right`: a king read as a jack costs a Jhyap hand nothing); where the truth carries
  the generator's readability records (data drawn since session 29), each reading split by how readable
  the cards are (:mod:`models.training.readability`: card recall by corner size and share in view,
  exact-hand rate
  by blur and of the clear photos);
* real photos (``../shared/realcards``): card accuracy (top detection's code vs the truth) on
  ``ivr_edinburgh`` and ``kaggle_cards53``, and on ``edje_pinochle/train`` the rank recall (a detection of the
  right rank centred inside the labelled card) and false detections per image; each measured once with the
  model's single pass over the photo (the targets' measure) and once as the kiosk reads (auto tiling,
  quarter turns, the corner reader: the same ``--tiles``/``--rotations``/``--reader`` as the held-out
  photos' kiosk measure, skipped with ``--tiles 1 --rotations 1 --reader off``);
* ONNX Runtime time per image with two threads.

Everything is measured at one confidence threshold: by default the model's own (``classes.json``'s "conf",
the kiosk's), else, and with ``--conf best``, the one with the best one-pass exact-hand rate on the held-out
photos (``--save-conf`` writes it into ``classes.json``). The one-pass exact-hand rate is shown at every
threshold of ``CONF_SWEEP`` either way.

Real photos are read in place; failure pictures go to ``runs/eval_failures/`` (outside git).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

from models.training.classes import CLASSES_JSON, MODELS_DIR, load_class_names, rank_of, write_classes_json
from models.training.readability import Breakdown, breakdown, has_records
from models.training.readability import render as render_readability
from scorer.cards import CARD_CODES, Card
from scorer.jhyap import card_value
from scorer.seep import seep_card_points
from vision.base.geometry import box_iou_one
from vision.base.types import ModelError
from vision.reader.corners import DEFAULT_READER
from vision.reading.detector import CardDetector, Detection
from vision.reading.rules import TILE_ROTATIONS
from vision.runtimes.model_files import DEFAULT_ONNX, DEFAULT_ROTATIONS, rotations_from, tiling, tuned_conf

REPO = MODELS_DIR.parent
DEFAULT_REAL = REPO.parent / "shared" / "realcards"
DEFAULT_OUT = MODELS_DIR / "eval"
FAILURES = REPO / "runs" / "eval_failures"
# The camera-resolution set: held-out designs drawn at the webcam's 1920 px (the Pi camera's stills are
# larger), read as the kiosk reads them. `make evaluate` draws it when missing (its seed fixes the photos).
DEFAULT_CAMERA = REPO / "datasets" / "camera"
CAMERA_LONG_SIDE = 1920
CAMERA_PHOTOS = 400
CAMERA_SEED = 23
PINOCHLE_RANKS = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}

TARGETS = {
    "synthetic_map50": 0.98,
    "synthetic_exact_hand_rate": 0.95,
    "ivr_edinburgh_card_accuracy": 0.90,
    "edje_pinochle_rank_recall": 0.90,
}


class EvalError(RuntimeError):
    """An input needed for the evaluation is missing or malformed."""


@dataclass
class SyntheticResult:
    images: int = 0
    map50: float | None = None
    map50_95: float | None = None
    exact_hand_rate: float = 0.0
    exact_by_kind: dict[str, float] = field(default_factory=dict)
    card_precision: float = 0.0
    card_recall: float = 0.0
    worst_classes: list[dict[str, object]] = field(default_factory=list)
    conf: float = 0.0  # the threshold used (chosen on this held-out set when not given)
    conf_given: bool = False  # whether ``conf`` was given (the model's own) rather than chosen here
    conf_sweep: dict[str, float] = field(default_factory=dict)  # exact-hand rate per threshold
    tiles: int | None = 1  # the extra kiosk-reading measurement below (1: not measured; None: auto)
    tiled_exact_hand_rate: float | None = None  # the kiosk's detector with tiles x tiles crops (or auto)
    tiled_exact_by_kind: dict[str, float] = field(default_factory=dict)
    # the share of photos whose cards read would score as the truth's, per game (scores_right)
    scores_right: dict[str, float] = field(default_factory=dict)
    tiled_scores_right: dict[str, float] = field(default_factory=dict)
    rotations: int = 1  # quarter turns per view in that measurement (the kiosk's detector, see vision)
    reader: str = "off"  # the corner reader of that measurement (a model file), or off
    corners: CornerReads | None = None  # each labelled corner index: read right, as another card, missed
    # each reading ("one pass", "kiosk") split by how readable the truth is (models.training.readability),
    # where
    # the truth carries the generator's records
    readability: dict[str, Breakdown] = field(default_factory=dict)


CORNER_IOU = 0.3  # a detection reads a labelled corner when their boxes overlap at least this much
Corner = tuple[str, tuple[float, float, float, float]]  # card code, x0, y0, x1, y1 in pixels


@dataclass
class CornerReads:
    """What became of every labelled corner index of the held-out photos (from ``labels/val``)."""

    corners: int = 0
    right: int = 0
    missed: int = 0  # no detection overlaps it by CORNER_IOU
    confusions: dict[str, int] = field(default_factory=dict)  # "truth->read", e.g. "QH->KH"; a plain
    # dict, not a Counter: dataclasses.asdict rebuilds a Counter from its (key, count) pairs as keys

    @property
    def other_rank(self) -> int:
        """Corners read as another rank (the suit may be right or wrong)."""
        pairs = ((key.split("->"), n) for key, n in self.confusions.items())
        return sum(n for (truth, read), n in pairs if rank_of(truth) != rank_of(read))

    @property
    def other_suit(self) -> int:
        """Corners read with the right rank and the wrong suit."""
        return sum(self.confusions.values()) - self.other_rank

    def add(self, truth: list[Corner], dets: list[Detection]) -> None:
        """Match each labelled corner (code, pixel box) with the detection overlapping it most."""
        boxes = np.array([d.box for d in dets], np.float64).reshape(-1, 4)
        for code, box in truth:
            self.corners += 1
            ious = box_iou_one(np.asarray(box, np.float64), boxes)
            best = int(ious.argmax()) if len(ious) else -1
            if best < 0 or ious[best] < CORNER_IOU:
                self.missed += 1
            elif dets[best].code == code:
                self.right += 1
            else:
                key = f"{code}->{dets[best].code}"
                self.confusions[key] = self.confusions.get(key, 0) + 1

    def most_common(self, n: int) -> list[tuple[str, int]]:
        """The ``n`` most frequent confusions, most frequent first."""
        return sorted(self.confusions.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def read_yolo_labels(path: Path, width: int, height: int) -> list[Corner]:
    """The corner boxes of a YOLO label file, in pixels of a ``width`` x ``height`` photo; [] if none."""
    if not path.is_file():
        return []
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            cls, cx, cy, w, h = line.split()
            code = CARD_CODES[int(cls)]
            x, y, bw, bh = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        except (ValueError, IndexError) as exc:
            raise EvalError(f"{path}:{n}: not a YOLO label line ({line!r})") from exc
        out.append((code, (x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2)))
    return out


@dataclass
class RealResult:
    name: str
    images: int
    metric: str
    value: float
    details: dict[str, object] = field(default_factory=dict)
    reading: str = "one pass"  # how the photos were read: "one pass" (the ONNX model once) or "kiosk"


SHIPPED_ONNX = DEFAULT_ONNX  # models/cards.onnx


class OnePass:
    """The model once over the whole photo, the targets' measure: the kiosk's own
    :class:`vision.reading.detector.CardDetector` with no tiling, one turn and no corner reader, its threshold
    chosen per call (the threshold sweep reads once at the lowest and filters)."""

    name = "one pass"

    def __init__(self, model: Path = SHIPPED_ONNX, threads: int = 2) -> None:
        self._det = CardDetector(model, tiles=1, rotations=1, reader="off", threads=threads).load()
        self.default_conf = self._det.conf  # the model's tuned threshold (classes.json), else the default
        if self._det.input_hw is None or self._det.input_hw[0] != self._det.input_hw[1]:
            raise EvalError(f"{model}: expected a fixed square input 1x3xSxS, got {self._det.input_hw}")
        self.size: int = self._det.imgsz

    def detect(self, image: np.ndarray, conf: float | None = None) -> list[Detection]:
        """Corner detections in a BGR photo at ``conf`` (default: the model's own), best first."""
        self._det.conf = self.default_conf if conf is None else conf
        return self._det.detect(image)


def cards_read(detections: list[Detection]) -> set[str]:
    """The cards read from a photo: the two (or four) corners of one card count once."""
    return {d.code for d in detections}


class KioskReading:
    """The kiosk's own reading of a photo (:class:`vision.reading.detector.CardDetector`: auto tiling, quarter
    turns voting, the corner reader) behind the one-pass detector's ``detect`` interface, so the real-photo
    measures can be taken both ways. Its threshold is fixed when it is built; ``detect`` refuses another."""

    def __init__(
        self, model: Path, conf: float, tiles: int | None = None, rotations: int = 2, reader: str = "off"
    ) -> None:
        from vision.reading.detector import CardDetector

        self.conf = conf
        self.name = "kiosk" if tiles is None else f"kiosk, {tiles} x {tiles} tiles"
        self._kiosk = CardDetector(model, conf=conf, tiles=tiles, rotations=rotations, reader=reader).load()

    def detect(self, image: np.ndarray, conf: float | None = None) -> list[Detection]:
        """Corner detections, best first."""
        if conf is not None and conf != self.conf:
            raise EvalError(f"the kiosk reading was built for confidence {self.conf}, not {conf}")
        return self._kiosk.detect(image)


@dataclass
class CameraResult:
    """The kiosk's reading of held-out photos at camera resolution (cards compared as sets per photo)."""

    data: str
    images: int
    long_side: int  # pixels, the photos' long side
    exact_hand_rate: float  # photos whose cards read equal the truth
    exact_by_kind: dict[str, float]
    cards: int  # cards in the truth
    cards_right: int  # of them read
    extra: int  # cards read that the photo does not hold
    scores_right: dict[str, float]
    rotations: int
    reader: str


def draw_camera_set(data: Path, photos: int = CAMERA_PHOTOS, seed: int = CAMERA_SEED) -> None:
    """Draw the camera-resolution held-out set into ``data`` unless its truth is there already."""
    if (data / "truth" / "val.jsonl").is_file():
        return
    from models.training.data.synth import SynthConfig, generate

    print(f"drawing {photos} held-out photos at {CAMERA_LONG_SIDE} px into {data} (seed {seed})", flush=True)
    generate(SynthConfig(out=data, count=0, val_count=photos, seed=seed, long_side=CAMERA_LONG_SIDE))


def measure_camera(
    model: Path,
    data: Path,
    conf: float,
    rotations: int,
    reader: str,
    limit: int | None = None,
) -> CameraResult:
    """The kiosk's own reading (auto tiling, ``rotations`` turns, ``reader``) of a held-out set drawn at
    camera resolution: exact photos, cards right, extra cards and whether the photo would score right."""
    rows = load_truth(data, limit)
    reads = kiosk_reads(model, data, rows, conf, None, rotations, reader)
    first = read_photo(data / "images" / "val" / str(rows[0]["image"]))
    truths = [set(cast(list[str], r["cards"])) for r in rows]
    rate, by_kind = exact_hand(cast(list[dict[str, object]], rows), reads)
    return CameraResult(
        data=str(data.relative_to(REPO)) if data.is_relative_to(REPO) else str(data),
        images=len(rows),
        long_side=max(first.shape[:2]),
        exact_hand_rate=round(rate, 4),
        exact_by_kind=by_kind,
        cards=sum(len(t) for t in truths),
        cards_right=sum(len(t & r) for t, r in zip(truths, reads, strict=True)),
        extra=sum(len(r - t) for t, r in zip(truths, reads, strict=True)),
        scores_right=scores_right(cast(list[dict[str, object]], rows), reads),
        rotations=rotations,
        reader=Path(reader).name if reader != "off" else "off",
    )


CAMERA_HEADING = "## At camera resolution"


def render_camera(cam: CameraResult) -> str:
    """The report's camera-resolution section."""
    share = cam.cards_right / max(1, cam.cards)
    return "\n".join(
        [
            CAMERA_HEADING,
            "",
            f"{cam.images} photos of the held-out designs drawn at {cam.long_side} px ({cam.data}), read as "
            f"the kiosk reads (auto tiling, {cam.rotations} quarter turns, corner reader {cam.reader}): "
            f"exact-hand rate {cam.exact_hand_rate:.3f}; by kind "
            + ", ".join(f"{k} {v:.2f}" for k, v in cam.exact_by_kind.items())
            + f". Cards right {cam.cards_right} of {cam.cards} ({share:.3f}), {cam.extra} extra.",
            "",
            _scores_line("as the kiosk reads", cam.scores_right) if cam.scores_right else "",
            "",
        ]
    )


def update_camera_section(out: Path, cam: CameraResult) -> None:
    """Put ``cam`` into an existing ``OUT/report.json`` and ``report.md`` (``--camera-only``), in place."""
    json_path, md_path = out / "report.json", out / "report.md"
    try:
        payload = json.loads(json_path.read_text(encoding="utf-8"))
        report = md_path.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise EvalError(f"--camera-only updates an existing report in {out}: {exc}") from exc
    payload["camera"] = asdict(cam)
    section = render_camera(cam)
    if CAMERA_HEADING in report:
        start = report.index(CAMERA_HEADING)
        end = report.find("\n## ", start + 1)
        report = report[:start] + section + (report[end + 1 :] if end >= 0 else "")
    elif "## Speed" in report:
        at = report.index("## Speed")
        report = report[:at] + section + "\n" + report[at:]
    else:
        report = report.rstrip("\n") + "\n\n" + section
    json_path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    md_path.write_text(report, encoding="utf-8")


def read_photo(path: Path) -> np.ndarray:
    """A photo as BGR pixels; :class:`EvalError` naming it when it cannot be read."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise EvalError(f"cannot read image {path}")
    return img


def load_truth(data: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The held-out truth rows of a ``models.training.data.synth`` dataset (``truth/val.jsonl``), the first
    ``limit``
    when given; :class:`EvalError` when the dataset has none."""
    truth_file = data / "truth" / "val.jsonl"
    if not truth_file.is_file():
        raise EvalError(
            f"no held-out truth at {truth_file}: python -m models.training.data.synth --out {data} first"
        )
    rows = [json.loads(line) for line in truth_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:limit] if limit else rows


def _draw(img: np.ndarray, dets: list[Detection], title: str) -> np.ndarray:
    out = img.copy()
    for d in dets:
        x0, y0, x1, y1 = (int(v) for v in d.box)
        cv2.rectangle(out, (x0, y0), (x1, y1), (0, 255, 0), 1)
        cv2.putText(out, f"{d.code} {d.confidence:.2f}", (x0, max(10, y0 - 2)), 0, 0.4, (0, 255, 255), 1)
    cv2.putText(out, title, (4, out.shape[0] - 6), 0, 0.45, (255, 0, 255), 1)
    return out


def ultralytics_map(
    weights: Path, data_yaml: Path, imgsz: int
) -> tuple[float, float, list[dict[str, object]]]:
    """mAP50, mAP50-95 and per-class (precision, recall, AP50) of the val split, by Ultralytics."""
    from models.training.train import offline_environment

    offline_environment()
    from ultralytics import YOLO
    from ultralytics.utils import torch_utils

    torch_utils.NUM_THREADS = 2
    model = YOLO(str(weights))
    m = model.val(
        data=str(data_yaml),
        imgsz=imgsz,
        split="val",
        plots=False,
        verbose=False,
        device="cpu",
        batch=8,
        workers=1,
    )
    per_class = []
    for i, c in enumerate(m.box.ap_class_index):
        per_class.append(
            {
                "class": model.names[int(c)],
                "precision": round(float(m.box.p[i]), 4),
                "recall": round(float(m.box.r[i]), 4),
                "ap50": round(float(m.box.ap50[i]), 4),
            }
        )
    return float(m.box.map50), float(m.box.map), per_class


DEFAULT_CONF = 0.25
CONF_SWEEP = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


def conf_choice(text: str) -> float | str:
    """``--conf``: a threshold between 0 and 1, or ``best``."""
    if text == "best":
        return text
    problem = f"expected a number between 0 and 1 or 'best', got {text!r}"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(problem) from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(problem)
    return value


def saved_conf(classes: Path) -> float | None:
    """The threshold saved in a ``classes.json`` ("conf", by ``--save-conf``), or None where it has none."""
    try:
        data = json.loads(classes.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EvalError(f"{classes}: cannot read the class list ({exc})") from None
    try:
        return tuned_conf(data if isinstance(data, dict) else {}, classes)
    except ModelError as exc:
        raise EvalError(str(exc)) from None


def best_threshold(sweep: dict[str, float]) -> str:
    """The swept threshold with the best exact-hand rate, the lowest of equals."""
    return max(sweep, key=lambda t: (sweep[t], -float(t)))


def eval_synthetic(
    det: OnePass,
    data: Path,
    conf: float | None,
    limit: int | None,
    weights: Path | None,
    tiles: int | None = 1,
    model: Path = SHIPPED_ONNX,
    failures: Path | None = None,
    rotations: int = 1,
    reader: str = "off",
) -> SyntheticResult:
    """Held-out synthetic metrics at ``conf``; None picks the threshold with the best exact-hand rate.

    The one-pass exact-hand rate is swept over ``CONF_SWEEP`` (and ``conf``) either way: one detection run at
    the lowest threshold, filtered per threshold, so a report at the model's own threshold still shows where
    the held-out photos would put it.
    """
    rows = load_truth(data, limit)
    res = SyntheticResult(images=len(rows), conf_given=conf is not None)
    thresholds = tuple(sorted(set(CONF_SWEEP) | ({conf} if conf is not None else set())))
    all_dets, shapes = [], []
    for row in rows:
        img = read_photo(data / "images" / "val" / row["image"])
        all_dets.append(det.detect(img, conf=min(thresholds)))
        shapes.append(img.shape[:2])
    for t in thresholds:
        rate, _ = exact_hand(rows, [cards_read([d for d in dets if d.confidence >= t]) for dets in all_dets])
        res.conf_sweep[str(t)] = round(rate, 4)
    res.conf = float(best_threshold(res.conf_sweep)) if conf is None else float(conf)
    kept = [[d for d in all_d if d.confidence >= res.conf] for all_d in all_dets]
    reads = [cards_read(dets) for dets in kept]
    res.exact_hand_rate, res.exact_by_kind = exact_hand(rows, reads)
    res.scores_right = scores_right(rows, reads)
    if has_records(rows):
        res.readability["one pass"] = breakdown(rows, reads)
    tp = fp = fn = 0
    shown = 0
    labels = data / "labels" / "val"
    if labels.is_dir():
        res.corners = CornerReads()
        for row, dets, (h, w) in zip(rows, kept, shapes, strict=True):
            res.corners.add(read_yolo_labels(labels / f"{Path(row['image']).stem}.txt", w, h), dets)
    for row, dets, got in zip(rows, kept, reads, strict=True):
        want = set(row["cards"])
        if got != want and failures is not None and shown < 12:
            shown += 1
            img = read_photo(data / "images" / "val" / row["image"])
            title = f"missed {sorted(want - got)} extra {sorted(got - want)}"
            _save_failure(failures / f"synth_{row['image']}", _draw(img, dets, title))
        tp += len(got & want)
        fp += len(got - want)
        fn += len(want - got)
    res.card_precision = tp / max(1, tp + fp)
    res.card_recall = tp / max(1, tp + fn)
    if tiles != 1 or rotations != 1 or reader != "off":
        res.tiles, res.rotations, res.reader = tiles, rotations, reader
        kiosk = kiosk_reads(model, data, rows, res.conf, tiles, rotations, reader)
        res.tiled_exact_hand_rate, res.tiled_exact_by_kind = exact_hand(rows, kiosk)
        res.tiled_scores_right = scores_right(rows, kiosk)
        if has_records(rows):
            res.readability["kiosk"] = breakdown(rows, kiosk)
    if weights is not None and weights.is_file():
        res.map50, res.map50_95, per_class = ultralytics_map(weights, data / "data.yaml", det.size)
        res.worst_classes = sorted(per_class, key=lambda c: (c["ap50"], c["recall"]))[:8]
    return res


def kiosk_reads(
    model: Path,
    data: Path,
    rows: list[dict[str, object]],
    conf: float,
    tiles: int | None,
    rotations: int = 1,
    reader: str = "off",
) -> list[set[str]]:
    """The cards read in each held-out photo by the kiosk's own detector
    (:class:`vision.reading.detector.CardDetector`) when it also reads a ``tiles`` x ``tiles`` grid of crops
    at full
    scale, as it does for large camera stills, or
    (``tiles=None``) as the kiosk reads each photo: 2 x 2 crops where the corners come out small; each
    view read in ``rotations`` quarter turns (the kiosk: 2), the views voting on each corner; each corner
    found re-read by ``reader`` (a corner-reader model file, the kiosk's ``models/reader.onnx``) unless off.

    The synthetic photos are 640 px, so this shows how much of the whole-photo failure is the corners'
    size rather than the model not knowing the card.
    """
    from vision.reading.detector import CardDetector

    kiosk = CardDetector(model, conf=conf, tiles=tiles, rotations=rotations, reader=reader).load()
    return [
        {d.code for d in kiosk.detect(read_photo(data / "images" / "val" / str(r["image"])))} for r in rows
    ]


def exact_hand(rows: list[dict[str, object]], reads: list[set[str]]) -> tuple[float, dict[str, float]]:
    """The share of photos whose cards read equal the truth, overall and per scene kind."""
    exact, kinds = Counter[str](), Counter[str]()
    for row, got in zip(rows, reads, strict=True):
        kinds[str(row["kind"])] += 1
        exact[str(row["kind"])] += got == set(row["cards"])  # type: ignore[call-overload]
    by_kind = {k: round(exact[k] / n, 4) for k, n in sorted(kinds.items())}
    return sum(exact.values()) / max(1, len(rows)), by_kind


def scores_right(rows: list[dict[str, object]], reads: list[set[str]]) -> dict[str, float]:
    """The share of photos whose cards read would score as the truth does, though a card may be misnamed.

    * ``jhyap``: the Jhyap values of the cards read equal the truth's, value for value (a king read as a
      jack or queen costs nothing, nor does a joker missed or seen in the clutter; a 4 read as a 5 does).
      Every photo counts. Which hand a card lies in is
      the kiosk's grouping, not the model's reading, so this is a photo's values, not each hand's total.
    * ``seep``: the Seep points of the cards read add up to the truth's (a missed three of hearts costs
      nothing). Only photos without a joker count (Seep is played without them), and a joker read there
      is wrong: the kiosk would refuse it.

    Cards are compared as sets, as in :func:`exact_hand` (the corners of one card count once).
    """
    jhyap = seep = seep_photos = 0
    for row, got in zip(rows, reads, strict=True):
        want = set(cast(list[str], row["cards"]))
        jhyap += _jhyap_values(got) == _jhyap_values(want)
        if "JK" not in want:
            seep_photos += 1
            seep += "JK" not in got and _seep_points(got) == _seep_points(want)
    return {
        "jhyap": round(jhyap / max(1, len(rows)), 4),
        "seep": round(seep / max(1, seep_photos), 4),
        "seep_photos": seep_photos,
    }


def _jhyap_values(codes: set[str]) -> Counter[int]:
    values = Counter(card_value(Card.parse(code)) for code in codes)
    del values[0]  # a joker adds nothing to whichever hand it lies in
    return values


def _seep_points(codes: set[str]) -> int:
    return sum(seep_card_points(Card.parse(code)) for code in codes if code != "JK")


def _save_failure(path: Path, picture: np.ndarray) -> None:
    """Write one annotated failure picture (``failures`` folders are made on first use)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), picture)


def _manifest(real: Path) -> list[dict[str, object]]:
    path = real / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise EvalError(f"real photo manifest not found: {path}") from exc
    images = data.get("images")
    if not isinstance(images, list):
        raise EvalError(f"{path} has no 'images' list")
    return images


def eval_single_card(
    det: OnePass | KioskReading,
    real: Path,
    folder: str,
    conf: float,
    failures: Path | None = None,
    reading: str = "one pass",
) -> RealResult:
    rows = [r for r in _manifest(real) if str(r["file"]).startswith(folder + "/") and r.get("cards")]
    correct = rank_ok = none = 0
    confusion: Counter[str] = Counter()
    shown = 0
    for row in rows:
        img = read_photo(real / str(row["file"]))
        truth = cast(list[str], row["cards"])[0]
        dets = det.detect(img, conf=conf)
        top = dets[0].code if dets else None
        if top is None:
            none += 1
        if top == truth:
            correct += 1
        else:
            confusion[f"{truth}->{top}"] += 1
            if failures is not None and shown < 8:
                shown += 1
                _save_failure(
                    failures / f"{folder}_{reading.replace(' ', '_')}_{Path(str(row['file'])).name}",
                    _draw(img, dets, f"truth {truth} top {top}"),
                )
        if top is not None and rank_of(top) == rank_of(truth):
            rank_ok += 1
    n = max(1, len(rows))
    return RealResult(
        folder,
        len(rows),
        "card accuracy (top detection)",
        correct / n,
        {
            "rank_accuracy": round(rank_ok / n, 4),
            "no_detection": none,
            "most_common_errors": confusion.most_common(8),
        },
        reading,
    )


def eval_pinochle(
    det: OnePass | KioskReading,
    real: Path,
    conf: float,
    failures: Path | None = None,
    reading: str = "one pass",
) -> RealResult:
    rows = [r for r in _manifest(real) if str(r["file"]).startswith("edje_pinochle/train/")]
    total = found = false_outside = wrong_rank = 0
    shown = 0
    for row in rows:
        img = read_photo(real / str(row["file"]))
        dets = det.detect(img, conf=conf)
        boxes = cast(list[dict[str, Any]], row.get("boxes") or [])
        matched = [False] * len(boxes)
        for d in dets:
            cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
            inside = [
                i
                for i, b in enumerate(boxes)
                if b["xmin"] <= cx <= b["xmax"] and b["ymin"] <= cy <= b["ymax"]
            ]
            if not inside:
                false_outside += 1
                continue
            ok = [
                i
                for i in inside
                if PINOCHLE_RANKS.get(str(boxes[i]["rank"]), str(boxes[i]["rank"])) == rank_of(d.code)
            ]
            if ok:
                for i in ok:
                    matched[i] = True
            else:
                wrong_rank += 1
        total += len(boxes)
        found += sum(matched)
        if failures is not None and not all(matched) and shown < 8:
            shown += 1
            _save_failure(
                failures / f"pinochle_{reading.replace(' ', '_')}_{Path(str(row['file'])).name}",
                _draw(img, dets, f"found {sum(matched)}/{len(boxes)}"),
            )
    n = max(1, len(rows))
    return RealResult(
        "edje_pinochle/train",
        len(rows),
        "rank recall",
        found / max(1, total),
        {
            "cards": total,
            "false_detections_per_image": round((false_outside + wrong_rank) / n, 3),
            "detections_off_any_card_per_image": round(false_outside / n, 3),
            "wrong_rank_detections_per_image": round(wrong_rank / n, 3),
        },
        reading,
    )


def onnx_timing(det: OnePass, images: list[np.ndarray], repeats: int = 30) -> dict[str, float]:
    det.detect(images[0])
    times = []
    for i in range(repeats):
        t = time.perf_counter()
        det.detect(images[i % len(images)])
        times.append((time.perf_counter() - t) * 1000)
    return {"median_ms": round(statistics.median(times), 1), "mean_ms": round(statistics.fmean(times), 1)}


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _scores_line(reading: str, rates: dict[str, float]) -> str:
    return (
        f"Photos whose cards read would score as the truth, {reading} (scores_right; a king read as a jack "
        f"costs Jhyap nothing): Jhyap values {rates['jhyap']:.3f}, Seep points {rates['seep']:.3f} "
        f"({rates['seep_photos']:.0f} photos without a joker)."
    )


def _conf_line(synth: SyntheticResult) -> str:
    """Where the threshold came from, and the one-pass exact-hand rate at each threshold swept."""
    sweep = ", ".join(f"{k}: {v:.3f}" for k, v in synth.conf_sweep.items())
    if not synth.conf_given:
        return (
            f"Confidence threshold {synth.conf}, chosen on these images "
            f"(exact-hand rate per threshold: {sweep})."
        )
    line = (
        f"Confidence threshold {synth.conf}, the model's own (classes.json, as the kiosk reads) or --conf; "
        f"one-pass exact-hand rate per threshold on these images: {sweep}"
    )
    best = best_threshold(synth.conf_sweep) if synth.conf_sweep else None
    if best is not None and float(best) != synth.conf:
        line += (
            f" (best {synth.conf_sweep[best]:.3f} at {best}; the kiosk's reading is measured at "
            f"{synth.conf} only)"
        )
    return line + "."


def render_report(
    synth: SyntheticResult | None,
    real: list[RealResult],
    timing: dict[str, float],
    conf: float,
    imgsz: int,
    camera: CameraResult | None = None,
) -> str:
    lines = ["# Card model evaluation", "", f"Input {imgsz}x{imgsz}, confidence threshold {conf}.", ""]
    if synth is not None:
        lines += [
            "## Held-out designs (synthetic)",
            "",
            "| metric | value | target |",
            "|---|---|---|",
            f"| mAP50 | {_fmt(synth.map50)} | >= {TARGETS['synthetic_map50']} |",
            f"| mAP50-95 | {_fmt(synth.map50_95)} | |",
            f"| exact-hand rate ({synth.images} images) | {synth.exact_hand_rate:.3f} | "
            f">= {TARGETS['synthetic_exact_hand_rate']} |",
            f"| card precision / recall | {synth.card_precision:.3f} / {synth.card_recall:.3f} | |",
            "",
            _conf_line(synth),
            "",
            "Exact-hand rate by scene kind: "
            + ", ".join(f"{k} {v:.2f}" for k, v in synth.exact_by_kind.items()),
            "",
        ]
        if synth.scores_right:
            lines += [_scores_line("one pass", synth.scores_right), ""]
        if synth.tiled_exact_hand_rate is not None:
            how = (
                "the kiosk's own reading (tiles auto: the whole photo, plus 2 x 2 crops at full scale "
                "where its corners come out small"
                if synth.tiles is None
                else "the whole photo alone"
                if synth.tiles == 1
                else f"the kiosk's tiling ({synth.tiles} x {synth.tiles} crops at full scale plus the whole "
                f"photo, as for a camera still"
            )
            if synth.rotations > 1:
                how += (
                    f"; the whole photo read in {synth.rotations} quarter turns, the crops in "
                    f"{min(synth.rotations, TILE_ROTATIONS)}, the views voting"
                )
            if synth.reader != "off":
                how += f"; each corner found re-read by the corner reader {Path(synth.reader).name}"
            lines += [
                f"With {how}; not the target's measure): exact-hand rate "
                f"{synth.tiled_exact_hand_rate:.3f}; by kind "
                + ", ".join(f"{k} {v:.2f}" for k, v in synth.tiled_exact_by_kind.items()),
                "",
            ]
            if synth.tiled_scores_right:
                lines += [_scores_line("as the kiosk reads", synth.tiled_scores_right), ""]
        if synth.readability:
            lines += render_readability(synth.readability)
        c = synth.corners
        if c is not None and c.corners:
            top = ", ".join(f"{k} {n}" for k, n in c.most_common(12))
            lines += [
                f"Corner indices ({c.corners} labelled): read right {c.right / c.corners:.3f}, as another "
                f"rank {c.other_rank / c.corners:.3f}, right rank and another suit "
                f"{c.other_suit / c.corners:.3f}, missed {c.missed / c.corners:.3f} (no detection "
                f"overlapping it by IoU {CORNER_IOU}). Most common confusions (truth->read): "
                f"{top or 'none'}.",
                "",
            ]
        if synth.worst_classes:
            lines += [
                "Worst classes (AP50):",
                "",
                "| class | precision | recall | AP50 |",
                "|---|---|---|---|",
            ]
            lines += [
                f"| {c['class']} | {c['precision']} | {c['recall']} | {c['ap50']} |"
                for c in synth.worst_classes
            ]
            lines.append("")
    if real:
        lines += [
            "## Real photos",
            "",
            "| set | reading | images | metric | value | details |",
            "|---|---|---|---|---|---|",
        ]
        for r in real:
            details = "; ".join(f"{k}: {v}" for k, v in r.details.items())
            lines.append(f"| {r.name} | {r.reading} | {r.images} | {r.metric} | {r.value:.3f} | {details} |")
        lines.append("")
        if any(r.reading != "one pass" for r in real):
            lines += [
                "Readings: one pass, the ONNX model once over the whole photo (the targets' measure); kiosk, "
                "the kiosk's own detector with the same tiling, quarter turns and corner reader as the "
                "held-out photos' kiosk measure above.",
                "",
            ]
    if camera is not None:
        lines += [render_camera(camera)]
    lines += [
        "## Speed",
        "",
        f"ONNX Runtime, 2 threads, this machine: median {timing.get('median_ms')} ms, "
        f"mean {timing.get('mean_ms')} ms per image (letterbox + inference + decoding).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.evaluate", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--onnx", type=Path, default=SHIPPED_ONNX)
    parser.add_argument("--classes", type=Path, default=CLASSES_JSON)
    parser.add_argument("--weights", type=Path, default=MODELS_DIR / "cards.pt", help="for mAP (Ultralytics)")
    parser.add_argument("--data", type=Path, default=REPO / "datasets" / "synth", help="synthetic dataset")
    parser.add_argument(
        "--real", type=Path, default=DEFAULT_REAL, help="real photo folder with manifest.json"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--conf",
        type=conf_choice,
        help="confidence threshold (default: the one saved in --classes as 'conf', which the kiosk uses, "
        "else as 'best'); best: the one-pass exact-hand rate's best on the synthetic set",
    )
    parser.add_argument("--limit", type=int, help="at most this many synthetic images (of each set)")
    parser.add_argument(
        "--camera",
        type=Path,
        help=f"also read a held-out set at camera resolution as the kiosk does; drawn there when missing "
        f"({CAMERA_PHOTOS} photos at {CAMERA_LONG_SIDE} px, seed {CAMERA_SEED}); make evaluate reads "
        "datasets/camera",
    )
    parser.add_argument(
        "--camera-only",
        action="store_true",
        help="measure only --camera and put it into the existing report in --out",
    )
    parser.add_argument(
        "--tiles",
        type=tiling,
        default=None,
        help="also measure the exact-hand rate with the kiosk's detector: N x N tiling (2-4), or auto as "
        "the kiosk reads (default); 1: the whole photo only (skipped if --rotations is 1 too)",
    )
    parser.add_argument(
        "--rotations",
        type=rotations_from,
        default=DEFAULT_ROTATIONS,
        help=f"quarter turns the kiosk's detector reads each photo in for that measurement: 1, 2 or 4 "
        f"(default {DEFAULT_ROTATIONS}, as the kiosk)",
    )
    parser.add_argument(
        "--reader",
        default=str(DEFAULT_READER),
        help="the corner reader of the kiosk's detector in that measurement: a model file, or off "
        "(default: the shipped models/reader.onnx, as the kiosk)",
    )
    parser.add_argument("--no-map", action="store_true", help="skip the Ultralytics mAP run")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument(
        "--save-conf",
        action="store_true",
        help="write the threshold used into --classes as 'conf', the runtime detector's default",
    )
    args = parser.parse_args(argv)
    if args.camera_only and args.camera is None:
        parser.error("--camera-only needs --camera DIR")
    if args.camera_only and args.conf == "best":
        parser.error("--camera-only reads at the model's own threshold or --conf P, not best")
    try:
        if args.camera_only:
            conf_only = args.conf if args.conf is not None else saved_conf(args.classes) or DEFAULT_CONF
            draw_camera_set(args.camera)
            cam = measure_camera(args.onnx, args.camera, conf_only, args.rotations, args.reader, args.limit)
            update_camera_section(args.out, cam)
            print(render_camera(cam))
            return 0
        det = OnePass(args.onnx)
        if args.conf is None:
            args.conf = saved_conf(args.classes)
        elif args.conf == "best":
            args.conf = None
        synth = None
        if not args.skip_synthetic:
            synth = eval_synthetic(
                det,
                args.data,
                args.conf,
                args.limit,
                None if args.no_map else args.weights,
                tiles=args.tiles,
                model=args.onnx,
                failures=FAILURES,
                rotations=args.rotations,
                reader=args.reader,
            )
        conf = args.conf if args.conf is not None else (synth.conf if synth else DEFAULT_CONF)
        real: list[RealResult] = []
        timing_imgs: list[np.ndarray] = []
        if not args.skip_real:
            if not (args.real / "manifest.json").is_file():
                print(f"warning: no real photos at {args.real}; skipping them", file=sys.stderr)
            else:
                real.append(eval_single_card(det, args.real, "ivr_edinburgh", conf, FAILURES))
                real.append(eval_single_card(det, args.real, "kaggle_cards53", conf, FAILURES))
                real.append(eval_pinochle(det, args.real, conf, FAILURES))
                if args.tiles != 1 or args.rotations != 1 or args.reader != "off":
                    kiosk = KioskReading(args.onnx, conf, args.tiles, args.rotations, args.reader)
                    for folder in ("ivr_edinburgh", "kaggle_cards53"):
                        real.append(eval_single_card(kiosk, args.real, folder, conf, FAILURES, kiosk.name))
                    real.append(eval_pinochle(kiosk, args.real, conf, FAILURES, kiosk.name))
                timing_imgs = [read_photo(args.real / str(r["file"])) for r in _manifest(args.real)[:10]]
        if not timing_imgs:
            timing_imgs = [np.full((480, 640, 3), 128, np.uint8)]
        timing = onnx_timing(det, timing_imgs)
        camera = None
        if args.camera is not None:
            draw_camera_set(args.camera)
            camera = measure_camera(args.onnx, args.camera, conf, args.rotations, args.reader, args.limit)
    except (EvalError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = render_report(synth, real, timing, conf, det.size, camera)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text(report, encoding="utf-8")
    payload = {
        "conf": conf,
        "imgsz": det.size,
        "targets": TARGETS,
        "timing": timing,
        "synthetic": asdict(synth) if synth else None,
        "real": [asdict(r) for r in real],
        "camera": asdict(camera) if camera else None,
    }
    (args.out / "report.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    if args.save_conf:
        load_class_names(args.classes)  # refuse to overwrite something that is not a class list
        write_classes_json(args.classes, conf)
        print(f"threshold {conf} saved in {args.classes}")
    print(report)
    print(f"written: {args.out / 'report.md'}, {args.out / 'report.json'}; failure pictures in {FAILURES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
