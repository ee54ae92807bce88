"""Carry a training run to the GPU machine and use its few minutes in one prepared command.

The device machine (an H200, when the workplace lends one) is lent for 15 minutes a session, a command may
run 10 of them, and at most 64 MiB of working tree travels to it; it has torch, OpenCV and numpy but not
Ultralytics, ``rsvg-convert`` or the card art, and the face cache (``datasets/faces``, ~490 MB of PNGs) is
far over the limit. So the kit is packed here and unpacked there:

* ``python -m models.gpu_kit pack`` (here) writes ``.gpukit/``: the faces of every SVG deck (training and
  held-out) and as many procedural decks as fit the transfer budget, re-encoded as WebP (``faces.tar``),
  the Ultralytics wheel (``wheels/``, fetched from PyPI by pip) and ``kit.json`` (what it holds).
  ``pack --start-from W`` also packs the weights ``W`` (``start.pt``, without their optimizer; the faces get
  that much less room), so that a run there continues a training begun here (a CPU run's ``last.pt``).
* ``python -m models.gpu_kit run --kit .gpukit --out DIR --budget-s S`` (there) unpacks the faces, draws a
  fresh training set from them with every core, fine-tunes the kit's ``start.pt`` if it has one, else the
  shipped ``models/cards.pt``, with the
  committed recipe (``models/train.yaml``) for whatever is left of ``S`` seconds (Ultralytics' ``time``
  mode: its learning-rate schedule and last no-mosaic epoch fit the time), and writes to ``DIR`` the best
  and last weights, the last epochs' weights (for ``models.average``), ``results.csv`` and ``report.json``.
* ``run ... --p2`` trains the stride-4 level instead (``models.p2``, stage 33 of the model card): it widens
  the start weights there (unless they are widened already) and trains with ``models/train-p2.yaml`` and the
  loss on the P2 anchors alone, the rest of the model frozen.

The weights come back here, where ``models.average``, ``models.export`` and ``models.evaluate`` finish the job
(models/README.md, "Training on the GPU machine"). The same ``run`` works on the CPU with a tiny budget,
which is how it is tested.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.classes import MODELS_DIR
from models.decks import ALL_DECKS, KIT_MARKER, PROCEDURAL_PREFIX, Split, procedural_decks

REPO = MODELS_DIR.parent
DEFAULT_KIT = REPO / ".gpukit"
DEFAULT_FACES = REPO / "datasets" / "faces"
FACES_TAR = "faces.tar"
MANIFEST = KIT_MARKER  # the kit's manifest, copied into the unpacked cache as its marker
WHEELS = "wheels"
START_WEIGHTS = "start.pt"  # the weights a run starts from, when the kit was packed with --start-from
CORNERS = "corners.json"
TRANSFER_LIMIT_MIB = 64.0  # what travels to the device machine: tracked files + carried paths
TRANSFER_MARGIN_MIB = 3.0  # untracked files, tar headers, the manifest
KIT_VERSION = 1
# processes by default: the device machine's 16 cores; each scene-drawing process holds up to ~2.6 GB of
# faces, so a container that shows a host's hundreds of cores must not get one process each
MAX_WORKERS = 16
# what PyTorch says when a data-loader worker dies (a container's small /dev/shm): train again with fewer
RETRY_MESSAGES = ("DataLoader worker", "shared memory", "Bus error")


class KitError(RuntimeError):
    """The kit cannot be packed or run: missing faces, a budget too small, an unreadable kit."""


# ---------------------------------------------------------------------------------------------- packing


def spread_order(n: int) -> list[int]:
    """0..n-1 in an order whose every prefix is spread evenly over the range (bit-reversed, van der Corput).

    Procedural decks come in generations of 64 (proc-00 ..); taking a prefix of this order keeps each
    generation in the kit in proportion.
    """
    if n <= 0:
        return []
    bits = max(1, (n - 1).bit_length())
    order = []
    for i in range(1 << bits):
        j = int(f"{i:0{bits}b}"[::-1], 2)
        if j < n:
            order.append(j)
    return order


def tracked_bytes(repo: Path = REPO) -> int | None:
    """Bytes of the files git tracks in ``repo`` (they travel with every call), or None without git."""
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z"], capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    total = 0
    for name in out.decode("utf-8", "replace").split("\0"):
        path = repo / name
        if name and path.is_file():
            total += path.stat().st_size
    return total


def _encode_deck(args: tuple[Path, int]) -> tuple[str, list[tuple[str, bytes]]]:
    """One deck's faces as WebP (lossy colour, lossless alpha) plus its corners.json, as tar members."""
    import cv2

    deck_dir, quality = args
    members: list[tuple[str, bytes]] = []
    for png in sorted(deck_dir.glob("*.png")):
        img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise KitError(f"{png} is not a readable PNG: render the faces again (python -m models.faces)")
        ok, buf = cv2.imencode(".webp", img, [cv2.IMWRITE_WEBP_QUALITY, quality])
        if not ok:
            raise KitError(f"{png}: OpenCV could not encode it as WebP")
        members.append((f"{deck_dir.name}/{png.stem}.webp", buf.tobytes()))
    members.append((f"{deck_dir.name}/{CORNERS}", (deck_dir / CORNERS).read_bytes()))
    return deck_dir.name, members


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0  # the same faces give the same archive
    tar.addfile(info, io.BytesIO(data))


def deck_folders(faces: Path) -> tuple[list[Path], list[Path]]:
    """The rendered SVG decks (in :data:`ALL_DECKS` order) and procedural decks (sorted) in ``faces``."""
    svg = [faces / d.name for d in ALL_DECKS if (faces / d.name / CORNERS).is_file()]
    # procedural_decks sorts by name (proc-100 before proc-11): by number, so generations stay in order
    proc = [d.path for d in sorted(procedural_decks(faces), key=lambda d: _proc_number(d.name))]
    return svg, proc


def pack_faces(
    faces: Path, out: Path, budget_bytes: int, quality: int = 90, proc_quality: int = 75, workers: int = 2
) -> dict[str, Any]:
    """Write ``out/faces.tar``: every SVG deck, then procedural decks in :func:`spread_order` while they fit.

    The SVG decks' detailed art is kept at WebP ``quality``, the procedural decks' flat drawing at
    ``proc_quality`` (75 saves a third against 90, and a corner index at 3x zoom looks the same).

    Raises :class:`KitError` when the faces are missing, a held-out deck is not rendered, or the SVG decks
    alone do not fit ``budget_bytes``.
    """
    if not faces.is_dir():
        raise KitError(f"no face cache at {faces}: run python -m models.faces --out {faces}")
    svg, proc = deck_folders(faces)
    held_out = [d.name for d in ALL_DECKS if d.split is Split.VAL]
    if not any((faces / name / CORNERS).is_file() for name in held_out):
        raise KitError(
            f"{faces} holds none of the held-out decks ({', '.join(held_out)}): nothing to validate on"
        )
    ordered = svg + [proc[i] for i in spread_order(len(proc))]
    svg_names = {d.name for d in svg}
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / (FACES_TAR + ".part")
    used = 0
    kept: list[str] = []
    skipped = 0
    with tarfile.open(tmp, "w") as tar, ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        for name, members in pool.map(
            _encode_deck, [(d, quality if d.name in svg_names else proc_quality) for d in ordered]
        ):
            size = sum(512 + len(data) + (-len(data) % 512) for _, data in members)
            if used + size > budget_bytes:
                if name in svg_names:
                    raise KitError(
                        f"the SVG decks alone need more than the budget of {budget_bytes / 2**20:.1f} MiB "
                        f"(at deck {name}); lower --quality or free the working tree"
                    )
                skipped += 1
                continue
            for member, data in members:
                _add(tar, member, data)
            used += size
            kept.append(name)
    tmp.replace(out / FACES_TAR)
    return {
        "quality": quality,
        "procedural_quality": proc_quality,
        "svg_decks": [d.name for d in svg],
        "procedural_decks": sorted((n for n in kept if n.startswith(PROCEDURAL_PREFIX)), key=_proc_number),
        "procedural_left_out": skipped,
        "faces_bytes": (out / FACES_TAR).stat().st_size,
    }


def _proc_number(name: str) -> int:
    return int(name[len(PROCEDURAL_PREFIX) :])


def fetch_wheels(dest: Path) -> list[str]:
    """Download the wheel of the Ultralytics installed here (pure Python; no dependencies) into ``dest``.

    The device machine already holds torch, torchvision, OpenCV, numpy, scipy, matplotlib, psutil and
    requests; polars (only read back from results.csv) and ultralytics-thop (FLOPs in the log) are optional
    there (see :func:`_without_polars`).
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        wanted = f"ultralytics=={version('ultralytics')}"
    except PackageNotFoundError as exc:
        raise KitError("ultralytics is not installed here: run make setup first") from exc
    dest.mkdir(parents=True, exist_ok=True)
    have = sorted(p.name for p in dest.glob("ultralytics-*.whl"))
    if have and have[0].startswith(f"ultralytics-{wanted.split('==')[1]}-"):
        return have
    for old in dest.glob("*.whl"):
        old.unlink()
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        "--python-version",
        "3.12",
        "-d",
        str(dest),
        wanted,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
    if proc.returncode != 0:
        raise KitError(f"pip could not download {wanted}: {proc.stderr.strip()[-400:]}")
    return sorted(p.name for p in dest.glob("*.whl"))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def pack(
    faces: Path = DEFAULT_FACES,
    kit: Path = DEFAULT_KIT,
    *,
    budget_mib: float | None = None,
    quality: int = 90,
    proc_quality: int = 75,
    wheels: bool = True,
    workers: int = 2,
    start_from: Path | None = None,
) -> dict[str, Any]:
    """Pack the kit; returns (and writes as ``kit.json``) its manifest.

    ``start_from``: weights to pack as the kit's ``start.pt`` (stripped of their optimizer), from which a
    run starts unless told otherwise; without it a run starts from the shipped ``models/cards.pt``. With the
    default budget they take their size from the faces' room; ``budget_mib`` is the faces' room alone.
    """
    start = kit / START_WEIGHTS
    start.unlink(missing_ok=True)  # a kit packed again without --start-from starts from the shipped model
    if start_from is not None:
        pack_start_weights(start_from, start)
    wheel_names = fetch_wheels(kit / WHEELS) if wheels else []
    wheel_bytes = sum(p.stat().st_size for p in (kit / WHEELS).glob("*.whl")) if wheels else 0
    start_bytes = start.stat().st_size if start_from is not None else 0
    if budget_mib is None:
        tracked = tracked_bytes()
        if tracked is None:
            raise KitError("git is not available to size the working tree: give --budget-mib")
        budget = int((TRANSFER_LIMIT_MIB - TRANSFER_MARGIN_MIB) * 2**20) - tracked - wheel_bytes - start_bytes
    else:
        budget = int(budget_mib * 2**20)
    if budget <= 0:
        raise KitError(f"no room left for the faces: the budget is {budget / 2**20:.1f} MiB")
    manifest: dict[str, Any] = {"kit_version": KIT_VERSION, "budget_bytes": budget, "wheels": wheel_names}
    manifest.update(pack_faces(faces, kit, budget, quality, proc_quality, workers))
    if start_from is not None:
        manifest.update(
            start_weights=START_WEIGHTS,
            start_weights_from=str(start_from),
            start_weights_bytes=start_bytes,
            start_weights_sha256=_sha256(start),
        )
    elif (MODELS_DIR / "cards.pt").is_file():
        manifest["start_weights_sha256"] = _sha256(MODELS_DIR / "cards.pt")
    (kit / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


# ---------------------------------------------------------------------------------------------- running


def _decode_member(args: tuple[str, bytes, Path]) -> None:
    import cv2
    import numpy as np

    name, data, dest = args
    path = dest / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if name.endswith(".webp"):
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise KitError(f"{name} in the kit is not a readable WebP image: pack the kit again")
        cv2.imwrite(str(path.with_suffix(".png")), img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    else:
        path.write_bytes(data)


def _members(tar_path: Path) -> Iterator[tuple[str, bytes]]:
    try:
        with tarfile.open(tar_path, "r") as tar:
            for info in tar:
                parts = Path(info.name).parts
                if not info.isfile() or len(parts) != 2 or ".." in parts or info.name.startswith("/"):
                    raise KitError(f"{tar_path}: unexpected member {info.name!r}: pack the kit again")
                fh = tar.extractfile(info)
                assert fh is not None
                yield info.name, fh.read()
    except tarfile.TarError as exc:
        raise KitError(f"{tar_path} is not a readable tar archive ({exc}): pack the kit again") from exc


def unpack_faces(kit: Path, dest: Path, workers: int) -> int:
    """Unpack ``kit/faces.tar`` into a face cache at ``dest`` (PNG again, as the scene maker reads them)."""
    tar_path = kit / FACES_TAR
    if not tar_path.is_file():
        raise KitError(f"no {FACES_TAR} in {kit}: run python -m models.gpu_kit pack here first")
    jobs = [(name, data, dest) for name, data in _members(tar_path)]
    dest.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(_decode_member, jobs, chunksize=32))
    if (kit / MANIFEST).is_file():  # marks the cache: its decks, and no installed SVG deck, are the designs
        shutil.copy2(kit / MANIFEST, dest / KIT_MARKER)
    return sum(1 for name, _, _ in jobs if name.endswith(".webp"))


def _without_polars() -> None:
    """Ultralytics reads results.csv back with polars when it saves a checkpoint; where polars is missing
    (the device machine), read it with the csv module instead, into the same dict of columns."""
    try:
        import polars  # noqa: F401
    except ImportError:
        pass
    else:
        return
    from ultralytics.engine.trainer import BaseTrainer

    def read_results_csv(self: Any) -> dict[str, list[Any]]:
        try:
            with open(self.csv, newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
        except OSError:
            return {}
        columns: dict[str, list[Any]] = {}
        for row in rows:
            for key, value in row.items():
                key = key.strip()
                try:
                    columns.setdefault(key, []).append(float(value))
                except (TypeError, ValueError):
                    columns.setdefault(key, []).append(value)
        return columns

    BaseTrainer.read_results_csv = read_results_csv


def usable_cores() -> int:
    """The cores this process may run on (a container can show the host's count in ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass(frozen=True)
class RunConfig:
    kit: Path
    out: Path
    work: Path
    budget_s: float
    count: int = 9600
    val_count: int = 200
    seed: int = 201
    workers: int = 0  # 0: the usable cores, at most MAX_WORKERS
    imgsz: int | None = None  # None: the config's
    batch: int = 64
    lr0: float | None = None  # None: the config's
    epochs_hint: int = 30  # the schedule's length until the first epoch's time re-estimates it
    start_from: Path | None = None  # None: the kit's start.pt if packed with one, else models/cards.pt
    config: Path | None = None  # None: models/train.yaml, or models/train-p2.yaml with p2
    p2: bool = False  # train the stride-4 level (models.p2): widen start_from if need be, P2-only loss
    device: str | None = None
    reserve_s: float = 30.0  # kept for the final validation and copying the weights out
    keep_epochs: int = 3
    cache: str = "ram"


def _strip_copy(src: Path, dest: Path) -> None:
    from ultralytics.utils.torch_utils import strip_optimizer

    shutil.copy2(src, dest)
    strip_optimizer(str(dest))  # half precision, no optimizer: ~5 MB, under the 16 MiB a returned file may be


def pack_start_weights(src: Path, dest: Path) -> None:
    """``src`` copied to ``dest`` without its optimizer; a KitError naming ``src`` if it is not weights."""
    if not src.is_file():
        raise KitError(f"no weights to pack at {src}")
    from models.p2 import WidenError, load_model

    try:
        load_model(src)  # Ultralytics' own stripping only warns about a file that is not weights
    except WidenError as exc:
        raise KitError(str(exc)) from exc
    dest.parent.mkdir(parents=True, exist_ok=True)
    _strip_copy(src, dest)


def start_weights(kit: Path, manifest: dict[str, Any], given: Path | None) -> Path:
    """What a run starts from: ``given``, else the kit's packed ``start.pt``, else the shipped model."""
    if given is not None:
        return given
    if "start_weights" in manifest:
        packed = kit / str(manifest["start_weights"])
        if not packed.is_file():
            name = manifest["start_weights"]
            raise KitError(f"{kit / MANIFEST} names {name}, missing from {kit}: carry the whole kit")
        return packed
    return MODELS_DIR / "cards.pt"


def run(cfg: RunConfig) -> dict[str, Any]:
    """Unpack, draw, train for the time left, write the weights and a report to ``cfg.out``."""
    t0 = time.monotonic()
    deadline = t0 + cfg.budget_s
    manifest_path = cfg.kit / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise KitError(f"no {MANIFEST} in {cfg.kit}: run python -m models.gpu_kit pack here first") from exc
    except json.JSONDecodeError as exc:
        raise KitError(f"{manifest_path} is not valid JSON ({exc}): pack the kit again") from exc
    given = start_weights(cfg.kit, manifest, cfg.start_from)
    if not given.is_file():
        raise KitError(f"no weights to start from at {given}")
    cores = usable_cores()
    workers = cfg.workers or min(cores, MAX_WORKERS)
    report: dict[str, Any] = {"cores": cores, "workers": workers, "budget_s": cfg.budget_s}
    report["start_from"] = str(given)
    if manifest.get("start_weights_sha256") not in (None, _sha256(given)):
        report["warning"] = f"{given} differs from the weights the kit was packed with"
    start_from = given
    if cfg.p2:  # widened before anything else, so that weights it cannot widen cost no device time
        from models.p2 import WidenError, widened

        cfg.work.mkdir(parents=True, exist_ok=True)
        try:
            start_from = widened(given, cfg.work / "p2-init.pt")
        except WidenError as exc:
            raise KitError(f"--p2 cannot widen {given}: {exc}") from exc
        report["p2"] = {"start_from": str(start_from), "widened_here": start_from != given}

    faces = cfg.work / "faces"
    if faces.exists():
        shutil.rmtree(faces)
    n_faces = unpack_faces(cfg.kit, faces, workers)
    report["faces"] = n_faces
    report["decks"] = len(manifest.get("svg_decks", [])) + len(manifest.get("procedural_decks", []))
    report["unpack_s"] = round(time.monotonic() - t0, 1)
    print(f"unpacked {n_faces} faces of {report['decks']} decks in {report['unpack_s']} s", flush=True)

    from models.synth import SynthConfig, generate

    t = time.monotonic()
    data = cfg.work / "data"
    if data.exists():
        shutil.rmtree(data)
    data_yaml = generate(SynthConfig(data, cfg.count, cfg.val_count, cfg.seed, faces=faces, workers=workers))
    report["synth_s"] = round(time.monotonic() - t, 1)
    report["synth_images_per_s"] = round((cfg.count + cfg.val_count) / max(report["synth_s"], 1e-3), 1)
    print(f"drew {cfg.count}+{cfg.val_count} photos in {report['synth_s']} s", flush=True)

    from models.p2 import P2_CONFIG, p2_loss_while_training
    from models.train import CPU_THREADS, DEFAULT_CONFIG, load_config, offline_environment, pick_device

    offline_environment()
    config = cfg.config or (P2_CONFIG if cfg.p2 else DEFAULT_CONFIG)
    train_cfg = load_config(config)
    args = dict(train_cfg.train_args)
    args.update(batch=cfg.batch, workers=workers, epochs=cfg.epochs_hint, save_period=1)
    if cfg.imgsz is not None:
        args["imgsz"] = cfg.imgsz
    if cfg.lr0 is not None:
        args["lr0"] = cfg.lr0
    import torch
    from ultralytics import YOLO

    _without_polars()
    device = cfg.device or pick_device()
    if device == "cpu":
        from ultralytics.utils import torch_utils

        torch_utils.NUM_THREADS = CPU_THREADS  # Ultralytics' CPU default is one thread
    # Ultralytics' time mode counts from the first batch; setting up (loading, caching) comes before it
    setup_allowance = 20.0 if cfg.cache == "ram" else 10.0
    train_s = deadline - time.monotonic() - cfg.reserve_s - setup_allowance
    if train_s < 10:
        raise KitError(
            f"the budget of {cfg.budget_s:.0f} s leaves {train_s:.0f} s to train after unpacking and drawing "
            f"({time.monotonic() - t0:.0f} s): give a larger --budget-s or a smaller --count"
        )
    report.update(
        device=device,
        gpu=torch.cuda.get_device_name(0) if device != "cpu" else None,
        train_s_planned=round(train_s, 1),
        config=str(config),
        train_args=args,
    )
    project = cfg.work / "runs"
    if project.exists():
        shutil.rmtree(project)
    t = time.monotonic()

    def fit(name: str, loader_workers: int, seconds: float) -> None:
        with p2_loss_while_training() if cfg.p2 else contextlib.nullcontext():
            YOLO(str(start_from)).train(
                data=str(data_yaml),
                project=str(project),
                name=name,
                device=device,
                plots=False,
                pretrained=True,
                amp=device != "cpu",
                verbose=True,
                time=seconds / 3600,
                cache=cfg.cache or False,
                deterministic=device == "cpu",  # GPU: cuDNN's fastest kernels, minutes are short
                **{**args, "workers": loader_workers},
            )

    run_name = "gpu"
    try:
        fit(run_name, workers, train_s)
    except RuntimeError as exc:
        # a container's small /dev/shm kills data-loader workers (a bus error): the rest of the time with two
        if not any(m in str(exc) for m in RETRY_MESSAGES):
            raise
        seconds = deadline - time.monotonic() - cfg.reserve_s - setup_allowance
        if seconds < 10:
            raise
        print(f"training failed ({exc}); again with 2 data-loader workers for {seconds:.0f} s", flush=True)
        report["retry"] = {"error": str(exc)[:300], "workers": 2, "train_s_planned": round(seconds, 1)}
        run_name = "gpu-retry"
        fit(run_name, 2, seconds)
    report["train_s"] = round(time.monotonic() - t, 1)
    weights = project / run_name / "weights"
    cfg.out.mkdir(parents=True, exist_ok=True)
    returned = []
    for name in ("best.pt", "last.pt"):
        if (weights / name).is_file():
            _strip_copy(weights / name, cfg.out / name)
            returned.append(name)
    epochs = sorted(weights.glob("epoch*.pt"), key=lambda p: int(p.stem[len("epoch") :]))
    for ckpt in epochs[-cfg.keep_epochs :] if cfg.keep_epochs > 0 else []:
        _strip_copy(ckpt, cfg.out / ckpt.name)
        returned.append(ckpt.name)
    results = project / run_name / "results.csv"
    if results.is_file():
        shutil.copy2(results, cfg.out / "results.csv")
        returned.append("results.csv")
        report["epochs"] = summarize_results(results)
    report["returned"] = returned
    report["total_s"] = round(time.monotonic() - t0, 1)
    (cfg.out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    return report


def summarize_results(path: Path) -> list[dict[str, float]]:
    """Epoch, time and validation mAP of each row of an Ultralytics results.csv."""
    rows = []
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            row = {k.strip(): v for k, v in row.items()}
            picked = {}
            for key, short in (
                ("epoch", "epoch"),
                ("time", "time"),
                ("metrics/mAP50(B)", "map50"),
                ("metrics/mAP50-95(B)", "map50_95"),
            ):
                with contextlib.suppress(KeyError, TypeError, ValueError):
                    picked[short] = float(row[key])
            rows.append(picked)
    return rows


# ---------------------------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.gpu_kit", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack", help="here: pack faces and wheels into the kit folder")
    p.add_argument("--faces", type=Path, default=DEFAULT_FACES)
    p.add_argument("--kit", type=Path, default=DEFAULT_KIT)
    p.add_argument("--budget-mib", type=float, help="room for the faces (default: 61 MiB less the tree)")
    p.add_argument("--quality", type=int, default=90, help="WebP quality of the faces (default 90)")
    p.add_argument("--proc-quality", type=int, default=75, help="WebP quality of procedural decks (75)")
    p.add_argument("--no-wheels", action="store_true", help="do not fetch the Ultralytics wheel")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--start-from", type=Path, help="weights a run there starts from (default: the shipped cards.pt)"
    )
    r = sub.add_parser("run", help="there: unpack, draw, train for the budget, write the weights")
    r.add_argument("--kit", type=Path, default=DEFAULT_KIT)
    r.add_argument("--out", type=Path, required=True, help="folder for the weights and report")
    r.add_argument("--work", type=Path, help="scratch folder (default: /tmp/tabletally-gpu-kit)")
    r.add_argument("--budget-s", type=float, required=True, help="seconds from start to weights written")
    r.add_argument("--count", type=int, default=RunConfig.count, help="training photos to draw")
    r.add_argument("--val-count", type=int, default=RunConfig.val_count, help="held-out photos to draw")
    r.add_argument("--seed", type=int, default=RunConfig.seed)
    r.add_argument("--workers", type=int, default=0, help=f"processes (default: cores, <= {MAX_WORKERS})")
    r.add_argument("--imgsz", type=int, help="training size (default: the config's)")
    r.add_argument("--batch", type=int, default=RunConfig.batch)
    r.add_argument("--lr0", type=float, help="initial learning rate (default: the config's)")
    r.add_argument("--epochs-hint", type=int, default=RunConfig.epochs_hint)
    r.add_argument("--start-from", type=Path, help="weights (default: the kit's start.pt, else cards.pt)")
    r.add_argument("--config", type=Path, help="recipe (default: models/train.yaml; train-p2.yaml with --p2)")
    r.add_argument("--p2", action="store_true", help="train the stride-4 level (models.p2) of --start-from")
    r.add_argument("--device", help="'cpu' or a CUDA index (default: GPU when available)")
    r.add_argument("--cache", choices=["ram", "disk", ""], default="ram", help="Ultralytics image cache")
    r.add_argument("--keep-epochs", type=int, default=RunConfig.keep_epochs)
    args = parser.parse_args(argv)
    try:
        if args.command == "pack":
            manifest = pack(
                args.faces,
                args.kit,
                budget_mib=args.budget_mib,
                quality=args.quality,
                proc_quality=args.proc_quality,
                wheels=not args.no_wheels,
                workers=args.workers,
                start_from=args.start_from,
            )
            print(
                f"packed {len(manifest['svg_decks'])} SVG and {len(manifest['procedural_decks'])} procedural "
                f"decks ({manifest['procedural_left_out']} left out) into {args.kit / FACES_TAR}: "
                f"{manifest['faces_bytes'] / 2**20:.1f} MiB of a {manifest['budget_bytes'] / 2**20:.1f} MiB "
                f"budget; wheels: {', '.join(manifest['wheels']) or 'none'}"
                + (
                    f"; start weights: {args.start_from} ({manifest['start_weights_bytes'] / 2**20:.1f} MiB)"
                    if args.start_from
                    else ""
                )
            )
            return 0
        report = run(
            RunConfig(
                kit=args.kit,
                out=args.out,
                work=args.work or Path("/tmp/tabletally-gpu-kit"),
                budget_s=args.budget_s,
                count=args.count,
                val_count=args.val_count,
                seed=args.seed,
                workers=args.workers,
                imgsz=args.imgsz,
                batch=args.batch,
                lr0=args.lr0,
                epochs_hint=args.epochs_hint,
                start_from=args.start_from,
                config=args.config,
                p2=args.p2,
                device=args.device,
                keep_epochs=args.keep_epochs,
                cache=args.cache,
            )
        )
    except KitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    last = (report.get("epochs") or [{}])[-1]
    where = report["gpu"] or "the CPU"
    print(
        f"trained {len(report.get('epochs', []))} epochs in {report['train_s']} s on {where} "
        f"(last mAP50 {last.get('map50', float('nan')):.3f}); "
        f"wrote {', '.join(report['returned'])} to {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
