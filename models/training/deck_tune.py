"""Teach the detector one deck: a fine-tune of the shipped detector on synthetic scenes of that deck.

``tabletally deck train NAME`` runs :func:`tune` on a taught deck (:mod:`vision.deck.memory`): the cards it
was
taught from are cut out of their photos and composed into scenes (:mod:`models.training.deck_scenes`),
the shipped weights (``models/cards.pt``) are trained on them for a time budget, exported to ONNX (and to
NCNN where ``pnnx`` is installed), and the result is kept with the deck only if, on held-back scenes of the
same deck, the kiosk's reading with it and the deck's memory reads at least as well as the memory alone
(:func:`never_worse`). The general model is never changed.

The work (scenes, checkpoints) lives in the deck's ``training/`` folder: a run that is stopped (Ctrl-C, a
power cut) resumes from its last finished epoch; the kept model is written into a temporary folder and
renamed into place (``model/``), so the kiosk never sees half a model. Needs the ``train`` extra (torch).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.training.classes import MODELS_DIR
from models.training.data.scenes import Face, SceneResult
from models.training.deck_scenes import CutFaces, TaughtCard, cut_faces, scenes

WORK_DIR = "training"  # in the deck's folder: the scenes and checkpoints of an unfinished teaching
MODEL_DIR = "model"  # in the deck's folder: the kept detector (cards.onnx, classes.json, NCNN files)
NEAR_SMALL = 0.25  # box_scale: corners within this share of SMALL_CORNER (where the size tests decide)
RESULT_FILE = "tuned.json"  # in MODEL_DIR: what was measured when it was kept
SHIPPED_PT = MODELS_DIR / "cards.pt"
SHIPPED_CLASSES = MODELS_DIR / "classes.json"
IMGSZ = 576  # the shipped model's input (classes.json "imgsz")
CPU_THREADS = 2
MIN_FACES = 13  # cards that must be cut out to compose scenes (one suit)

Progress = Callable[[str], None]


class TuneError(RuntimeError):
    """Teaching the detector cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class TuneConfig:
    """How a deck is taught to the detector (the defaults are what ``tabletally deck train`` uses)."""

    minutes: float = 40.0  # the whole run: scenes, training, export, the check
    scenes: int = 360  # training scenes
    check_scenes: int = 24  # held-back scenes for the never-worse check
    size: tuple[int, int] = (960, 720)  # a training scene (width, height)
    check_size: tuple[int, int] = (1280, 960)  # a held-back scene, read as the kiosk reads
    batch: int = 8
    lr0: float = 0.002
    seed: int = 67
    reserve_minutes: float = 6.0  # kept back from training for the export and the check


@dataclass
class Reading:
    """Cards right, missed and extra over a set of scenes."""

    right: int = 0
    missing: int = 0
    extra: int = 0
    exact: int = 0
    photos: int = 0

    @property
    def recall(self) -> float:
        return self.right / max(1, self.right + self.missing)

    @property
    def precision(self) -> float:
        return self.right / max(1, self.right + self.extra)

    @property
    def net(self) -> int:
        """Cards right less cards read that are not there: what "at least as well" compares."""
        return self.right - self.extra

    def add(self, truth: Sequence[str], read: Sequence[str]) -> None:
        from collections import Counter

        want, got = Counter(truth), Counter(read)
        right = sum((want & got).values())
        self.right += right
        self.missing += sum(want.values()) - right
        self.extra += sum(got.values()) - right
        self.exact += want == got
        self.photos += 1

    def words(self) -> str:
        return (
            f"recall {self.recall:.3f}, precision {self.precision:.3f} ({self.right} right, {self.missing} "
            f"missed, {self.extra} extra; {self.exact}/{self.photos} photos exact)"
        )


@dataclass
class TuneResult:
    kept: bool
    memory: Reading
    tuned: Reading
    minutes: float
    epochs: int
    faces: int
    skipped: list[str] = field(default_factory=list)
    ncnn: bool = False

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["memory"]["recall"], out["memory"]["precision"] = self.memory.recall, self.memory.precision
        out["tuned"]["recall"], out["tuned"]["precision"] = self.tuned.recall, self.tuned.precision
        return out


# ---------------------------------------------------------------------------------------------- the data


def write_scenes(folder: Path, split: str, made: Sequence[SceneResult] | Any, start: int = 0) -> int:
    """Write scenes as an Ultralytics split (``images/<split>``, ``labels/<split>``); returns how many."""
    from models.training.data.synth import yolo_lines

    (folder / "images" / split).mkdir(parents=True, exist_ok=True)
    (folder / "labels" / split).mkdir(parents=True, exist_ok=True)
    n = 0
    for k, result in enumerate(made, start):
        name = f"{split}{k:05d}"
        label = folder / "labels" / split / f"{name}.txt"
        label.write_text("\n".join(yolo_lines(result)) + "\n", encoding="utf-8")
        cv2.imwrite(
            str(folder / "images" / split / f"{name}.jpg"), result.image, [cv2.IMWRITE_JPEG_QUALITY, 90]
        )
        n += 1
    return n


def prepare_data(work: Path, faces: dict[str, Face], cfg: TuneConfig, progress: Progress) -> Path:
    """The training scenes in ``work/data`` (drawn where missing: a resumed run keeps its scenes)."""
    from models.training.data.synth import write_data_yaml

    data = work / "data"
    done = data / "done.json"
    if done.is_file():
        return data / "data.yaml"
    labels = data / "labels" / "train"
    made = 0  # scenes are drawn in order, each from its own seed: a stopped run goes on where it was
    while (labels / f"train{made:05d}.txt").is_file() and (
        data / "images" / "train" / f"train{made:05d}.jpg"
    ).is_file():
        made += 1
    made = max(0, made - 1)  # the last one may be half-written
    start = time.monotonic()
    for result in scenes(faces, cfg.scenes, cfg.seed, cfg.size, start=made):
        write_scenes(data, "train", [result], made)
        made += 1
        if made % 40 == 0 or made == cfg.scenes:
            progress(f"scenes: {made}/{cfg.scenes} drawn ({time.monotonic() - start:.0f} s)")
    # Ultralytics wants a validation split; it is not used (val=False): the check below is the measure
    write_scenes(data, "val", list(scenes(faces, 2, cfg.seed + 1, cfg.size)))
    path = write_data_yaml(data)
    done.write_text(json.dumps({"scenes": made}) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------- training


def _environment() -> None:
    from models.training.train import offline_environment

    offline_environment()
    os.environ.setdefault("OMP_NUM_THREADS", str(CPU_THREADS))


def train(
    work: Path, data_yaml: Path, minutes: float, cfg: TuneConfig, progress: Progress
) -> tuple[Path, int]:
    """Fine-tune the shipped weights on ``data_yaml`` for about ``minutes`` (resuming an unfinished run in
    ``work/run``); returns the last weights and the epochs done."""
    _environment()
    import torch
    from ultralytics import YOLO
    from ultralytics.utils import torch_utils

    device = "0" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        torch.set_num_threads(CPU_THREADS)
        torch_utils.NUM_THREADS = CPU_THREADS
    run = work / "run"
    last = run / "weights" / "last.pt"
    begun = time.monotonic()

    def on_epoch(trainer: Any) -> None:
        done = int(trainer.epoch) + 1
        total = int(trainer.epochs)
        spent = (time.monotonic() - begun) / 60
        progress(f"training: epoch {done}/{total} done ({spent:.1f} min)")

    if last.is_file() and _unfinished(last):
        progress(f"resuming the training from {last}")
        model = YOLO(str(last))
        model.add_callback("on_train_epoch_end", on_epoch)
        model.train(resume=True, device=device)
    else:
        shutil.rmtree(run, ignore_errors=True)
        model = YOLO(str(SHIPPED_PT))
        model.add_callback("on_train_epoch_end", on_epoch)
        model.train(
            data=str(data_yaml),
            project=str(work.resolve()),  # a relative project goes under Ultralytics' runs_dir
            name="run",
            exist_ok=True,
            device=device,
            imgsz=IMGSZ,
            epochs=100,  # the time budget below decides
            time=max(minutes, 1.0) / 60,
            batch=cfg.batch,
            workers=0,
            optimizer="SGD",
            lr0=cfg.lr0,
            lrf=0.1,
            momentum=0.937,
            weight_decay=0.0005,
            warmup_epochs=0.0,
            fliplr=0.0,
            flipud=0.0,
            degrees=0.0,
            translate=0.1,
            scale=0.25,
            mosaic=1.0,
            close_mosaic=1,
            mixup=0.0,
            hsv_h=0.015,
            hsv_s=0.5,
            hsv_v=0.3,
            val=False,
            plots=False,
            pretrained=True,
            amp=device != "cpu",
            seed=cfg.seed,
            deterministic=False,
            verbose=False,
        )
    if not last.is_file():
        raise TuneError(f"the training left no weights in {last.parent}")
    epochs = int(_checkpoint(last).get("epoch", -1))
    return last, epochs + 1 if epochs >= 0 else _finished_epochs(run)


def _checkpoint(path: Path) -> dict[str, Any]:
    import torch

    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=False)
    except Exception:  # noqa: BLE001 - a checkpoint cut short by a kill: start over
        return {}
    return ckpt if isinstance(ckpt, dict) else {}


def _unfinished(last: Path) -> bool:
    ckpt = _checkpoint(last)
    epoch = ckpt.get("epoch", -1)
    total = (ckpt.get("train_args") or {}).get("epochs", 0)
    return ckpt.get("optimizer") is not None and 0 <= epoch < total - 1


def _finished_epochs(run: Path) -> int:
    results = run / "results.csv"
    if not results.is_file():
        return 0
    return max(0, len(results.read_text(encoding="utf-8").strip().splitlines()) - 1)


def export(weights: Path, out: Path, progress: Progress) -> bool:
    """The kiosk's model files of ``weights`` in the new folder ``out``: ``cards.onnx`` (as the shipped one:
    opset 17, dynamic input, read at 576), the shipped ``classes.json`` (the same classes, input size and
    threshold), and ``cards.ncnn.param``/``.bin`` where pnnx is installed. Returns whether NCNN was made."""
    from models.training.export import export as export_onnx

    out.mkdir(parents=True)
    export_onnx(
        weights, IMGSZ, out_pt=out / "cards.pt", out_onnx=out / "cards.onnx", out_classes=out / "classes.json"
    )
    shutil.copy2(SHIPPED_CLASSES, out / "classes.json")
    (out / "cards.pt").unlink()  # the kiosk reads ONNX or NCNN; the weights stay in training/ until done
    try:
        from models.training.export_ncnn import ConversionError, convert

        convert(out / "cards.onnx", out / "cards.ncnn.param")
    except (ConversionError, ImportError, OSError) as exc:
        progress(f"no NCNN model ({exc}); the deck's model reads with ONNX Runtime")
        return False
    return True


# ---------------------------------------------------------------------------------------------- the check


def read_scenes(detector: Any, made: Sequence[tuple[np.ndarray, list[str]]]) -> Reading:
    """The kiosk's reading of each scene against its truth."""
    from vision.pipeline import read_cards

    out = Reading()
    for image, truth in made:
        out.add(truth, [c.code for c in read_cards(image, detector).cards])
    return out


def held_back(faces: dict[str, Face], cfg: TuneConfig) -> list[tuple[np.ndarray, list[str]]]:
    """The held-back scenes of the deck (a seed training never draws), JPEG-compressed as a camera's."""
    out = []
    for result in scenes(faces, cfg.check_scenes, cfg.seed + 1000, cfg.check_size):
        ok, data = cv2.imencode(".jpg", result.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else result.image
        out.append((np.asarray(image), list(result.cards)))
    return out


def never_worse(
    memory: Any, model: Path, made: Sequence[tuple[np.ndarray, list[str]]], progress: Progress
) -> tuple[Reading, Reading]:
    """The kiosk's reading of ``made`` with the deck's memory on the shipped detector, then on ``model``."""
    import dataclasses

    from vision.deck.memory import use_deck
    from vision.reading.detector import CardDetector

    memory = dataclasses.replace(memory, model=None)  # not a detector the deck was taught before
    readings = []
    for label, path in (("the memory alone", None), ("the taught detector", model)):
        detector = CardDetector(path, threads=CPU_THREADS).load()
        use_deck(detector, memory)
        reading = read_scenes(detector, made)
        progress(f"check, {label}: {reading.words()}")
        readings.append(reading)
    return readings[0], readings[1]


def box_scale(model: Path, made: Sequence[tuple[np.ndarray, list[str]]], pairs: int = 20) -> float | None:
    """How much larger ``model`` draws a corner's box than the shipped model: over the corners both find in
    the whole photo of the scenes ``made`` (upright, one pass each; one corner: boxes of IoU over 0.5) that
    the shipped model sees near the size tests' ``SMALL_CORNER`` (within ``NEAR_SMALL`` of it, in model-input
    pixels; all of them where fewer than ``pairs`` are), the median ratio of their sides (``sqrt(w * h)``:
    the ratio shrinks as corners grow, and the tests decide at that size); None where fewer than ``pairs``
    corners are found by both. Kept in the model's ``classes.json`` ("box_scale"), so that the reading's
    size tests, made for the shipped model's boxes, follow it
    (:func:`vision.runtimes.model_files.model_box_scale`)."""
    from vision.base.geometry import box_iou_one, class_nms
    from vision.reading.detector import CardDetector
    from vision.reading.passes import Passes
    from vision.reading.rules import SMALL_CORNER

    shipped = CardDetector(threads=CPU_THREADS).load()
    taught = CardDetector(model, threads=CPU_THREADS).load()
    ratios: list[np.ndarray] = []
    sizes: list[np.ndarray] = []
    for image, _truth in made:
        found = []
        for detector in (shipped, taught):
            boxes, scores = Passes(detector, image).whole(0)
            found.append(boxes[class_nms(boxes, scores, detector.iou)])
        ours, theirs = found
        if not len(ours) or not len(theirs):
            continue
        iou = box_iou_one(ours[:, None, :], theirs)
        best = iou.argmax(axis=1)
        matched = iou[np.arange(len(ours)), best] > 0.5
        side = np.sqrt((ours[:, 2] - ours[:, 0]) * (ours[:, 3] - ours[:, 1]))
        other = theirs[best]
        other_side = np.sqrt((other[:, 2] - other[:, 0]) * (other[:, 3] - other[:, 1]))
        ratios.append((other_side / np.maximum(side, 1e-6))[matched])
        sizes.append(side[matched] * shipped.view_scale(image.shape[:2]))
    every = np.concatenate(ratios) if ratios else np.zeros(0)
    if len(every) < pairs:
        return None
    near = np.abs(np.concatenate(sizes) / SMALL_CORNER - 1.0) <= NEAR_SMALL
    return round(float(np.median(every[near] if near.sum() >= pairs else every)), 3)


def keep_box_scale(folder: Path, scale: float | None) -> None:
    """Write ``scale`` (:func:`box_scale`) into the ``classes.json`` of the model in ``folder`` ("box_scale";
    None: removed, the reading's size tests stay the shipped model's)."""
    from vision.runtimes.model_files import BOX_SCALE_KEY

    path = folder / "classes.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop(BOX_SCALE_KEY, None)
    if scale is not None:
        data[BOX_SCALE_KEY] = scale
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------- the run


def tune(
    deck_folder: Path,
    memory: Any,
    cards: Sequence[TaughtCard],
    cfg: TuneConfig = TuneConfig(),
    progress: Progress = print,
    keep_rejected: bool = False,
) -> TuneResult:
    """Teach the detector the deck kept in ``deck_folder`` (its ``memory`` and its taught ``cards``) within
    ``cfg.minutes``; the model is kept in ``deck_folder/model`` only if it passes :func:`never_worse`
    (a model kept before is replaced only then). ``training/`` is removed when done."""
    begun = time.monotonic()
    work = deck_folder / WORK_DIR
    work.mkdir(parents=True, exist_ok=True)
    cut: CutFaces = cut_faces(cards)
    for line in cut.problems():
        progress(f"left out of the scenes: {line}")
    if len(cut.faces) < MIN_FACES:
        raise TuneError(
            f"only {len(cut.faces)} cards could be cut out of the teaching photos (at least {MIN_FACES} "
            "needed): photograph the cards apart, on a darker plain table, and teach the deck again"
        )
    progress(f"{len(cut.faces)} cards cut out of the teaching photos")
    data_yaml = prepare_data(work, cut.faces, cfg, progress)
    spent = (time.monotonic() - begun) / 60
    budget = cfg.minutes - spent - cfg.reserve_minutes
    if budget < 1:
        raise TuneError(f"no time left to train after {spent:.1f} minutes of scenes: give more --minutes")
    progress(f"training for about {budget:.0f} minutes from the shipped detector")
    weights, epochs = train(work, data_yaml, budget, cfg, progress)
    result = finish(deck_folder, memory, cut, weights, epochs, cfg, progress, begun, keep_rejected)
    shutil.rmtree(work, ignore_errors=True)
    return result


def finish(
    deck_folder: Path,
    memory: Any,
    cut: CutFaces,
    weights: Path,
    epochs: int,
    cfg: TuneConfig,
    progress: Progress,
    begun: float,
    keep_rejected: bool = False,
) -> TuneResult:
    """Export ``weights``, check them (:func:`never_worse`) and keep them in ``deck_folder/model`` when they
    pass (a rejected model is deleted, or kept aside in ``.model.rejected`` for measuring)."""
    staged = deck_folder / f".{MODEL_DIR}.new"
    shutil.rmtree(staged, ignore_errors=True)
    ncnn = export(weights, staged, progress)
    progress("checking on held-back scenes of the deck")
    checks = held_back(cut.faces, cfg)
    keep_box_scale(staged, box_scale(staged / "cards.onnx", checks))
    before, after = never_worse(memory, staged / "cards.onnx", checks, progress)
    kept = after.net >= before.net
    result = TuneResult(
        kept, before, after, (time.monotonic() - begun) / 60, epochs, len(cut.faces), cut.problems(), ncnn
    )
    if kept:
        (staged / RESULT_FILE).write_text(json.dumps(result.to_json(), indent=1) + "\n", encoding="utf-8")
        install(staged, deck_folder / MODEL_DIR)
    elif keep_rejected:
        install(staged, deck_folder / f".{MODEL_DIR}.rejected")
    else:
        shutil.rmtree(staged, ignore_errors=True)
    return result


def install(staged: Path, target: Path) -> None:
    """Put the finished model folder ``staged`` in place of ``target`` by renames (never half a model)."""
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.rename(target, old)
    os.rename(staged, target)
    shutil.rmtree(old, ignore_errors=True)
