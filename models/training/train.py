"""Train the card detector from the committed recipe: ``python -m models.training.train [--config FILE]``.

The recipe is ``models/train.yaml``.

* Builds the model from its YAML (no pretrained download is possible), or warm-starts from the shipped
  ``models/cards.pt`` with ``--warm-start``.
* Resumes automatically from ``<project>/<name>/weights/last.pt`` (written after every epoch) when that
  training is unfinished; ``--fresh`` starts over in a new run folder.
* Uses the GPU when torch sees one, else the CPU with two threads.
* ``data`` is one synthetic dataset folder or a list of them (their training images are pooled; the first
  one's held-out ``val`` split validates); a missing one is generated first (seed ``synth.seeds[i]``,
  else ``synth.seed + i``).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.training.classes import MODELS_DIR

REPO = MODELS_DIR.parent
DEFAULT_CONFIG = MODELS_DIR / "train.yaml"
SHIPPED_PT = MODELS_DIR / "cards.pt"
CPU_THREADS = 2

# keys of train.yaml handed straight to Ultralytics' train()
_PASS_THROUGH = (
    "imgsz",
    "epochs",
    "batch",
    "workers",
    "patience",
    "optimizer",
    "lr0",
    "lrf",
    "momentum",
    "weight_decay",
    "warmup_epochs",
    "cos_lr",
    "fliplr",
    "flipud",
    "degrees",
    "translate",
    "scale",
    "mosaic",
    "close_mosaic",
    "mixup",
    "hsv_h",
    "hsv_s",
    "hsv_v",
    "val",
    "save_period",
    "freeze",
)


class ConfigError(ValueError):
    """The training config is missing, unreadable or has a bad value."""


def offline_environment() -> None:
    """Keep Ultralytics offline, silent about updates, and its settings inside the project."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(MODELS_DIR / ".yolo-config"))
    Path(os.environ["YOLO_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)


@dataclass(frozen=True)
class TrainConfig:
    data: tuple[Path, ...]
    model: str
    project: Path
    name: str
    synth_count: int
    synth_val_count: int
    synth_seed: int
    train_args: dict[str, Any] = field(default_factory=dict)
    synth_seeds: tuple[int, ...] = ()  # one per data folder; () = synth_seed, synth_seed + 1, ...

    def dataset_seed(self, i: int) -> int:
        """The seed that draws data folder ``i`` when it is missing."""
        return self.synth_seeds[i] if self.synth_seeds else self.synth_seed + i

    @property
    def run_dir(self) -> Path:
        """The newest run folder of this config (``name``, ``name2``, ...), or ``name`` when none exists."""
        runs = [
            p for p in self.project.glob(f"{self.name}*") if p.is_dir() and p.name[len(self.name) :].isdigit()
        ]
        runs += [self.project / self.name] if (self.project / self.name).is_dir() else []
        if not runs:
            return self.project / self.name
        return max(runs, key=lambda p: int(p.name[len(self.name) :] or 1))

    @property
    def last_checkpoint(self) -> Path:
        return self.run_dir / "weights" / "last.pt"

    @property
    def best_checkpoint(self) -> Path:
        return self.run_dir / "weights" / "best.pt"


def _resolve(p: str | Path) -> Path:
    path = Path(p)
    return path if path.is_absolute() else REPO / path


def load_config(path: Path = DEFAULT_CONFIG) -> TrainConfig:
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"training config not found: {path}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"training config {path} is not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"training config {path} must be a mapping of keys to values")
    for key in ("data", "model", "imgsz", "epochs", "project", "name"):
        if key not in raw:
            raise ConfigError(f"training config {path} lacks the key {key!r}")
    synth = raw.get("synth") or {}
    if not isinstance(synth, dict):
        raise ConfigError(f"training config {path}: 'synth' must be a mapping")
    imgsz, epochs = raw["imgsz"], raw["epochs"]
    if not isinstance(imgsz, int) or imgsz < 32 or imgsz % 32:
        raise ConfigError(f"training config {path}: imgsz must be a multiple of 32, got {imgsz!r}")
    if not isinstance(epochs, int) or epochs < 1:
        raise ConfigError(f"training config {path}: epochs must be a positive integer, got {epochs!r}")
    data = raw["data"] if isinstance(raw["data"], list) else [raw["data"]]
    seeds = synth.get("seeds") or []
    if not isinstance(seeds, list) or not all(isinstance(x, int) for x in seeds):
        raise ConfigError(f"training config {path}: synth.seeds must be a list of integers, got {seeds!r}")
    if seeds and len(seeds) != len(data):
        raise ConfigError(
            f"training config {path}: synth.seeds gives {len(seeds)} seeds for {len(data)} data folders"
        )
    unknown = set(raw) - set(_PASS_THROUGH) - {"data", "model", "project", "name", "synth"}
    if unknown:
        raise ConfigError(f"training config {path}: unknown key(s) {', '.join(sorted(unknown))}")
    return TrainConfig(
        data=tuple(_resolve(d) for d in data),
        model=str(raw["model"]),
        project=_resolve(raw["project"]),
        name=str(raw["name"]),
        synth_count=int(synth.get("count", 3200)),
        synth_val_count=int(synth.get("val_count", 400)),
        synth_seed=int(synth.get("seed", 1)),
        train_args={k: raw[k] for k in _PASS_THROUGH if k in raw},
        synth_seeds=tuple(seeds),
    )


def pick_device() -> str:
    import torch

    if torch.cuda.is_available():
        return "0"
    torch.set_num_threads(CPU_THREADS)
    return "cpu"


def _unfinished(checkpoint: Path) -> bool:
    """Whether a last.pt belongs to a training that has epochs left (Ultralytics marks finished ones)."""
    import torch

    try:
        ckpt = torch.load(checkpoint, map_location="cpu", weights_only=False)
    except Exception:  # a checkpoint cut short by a kill: start over rather than crash
        return False
    epoch = ckpt.get("epoch", -1)
    total = (ckpt.get("train_args") or {}).get("epochs", 0)
    return ckpt.get("optimizer") is not None and 0 <= epoch < total - 1


def ensure_dataset(cfg: TrainConfig, workers: int = 2) -> Path:
    """The Ultralytics data file to train on, generating missing datasets first."""
    from models.training.data.synth import SynthConfig, generate, write_data_yaml

    for i, folder in enumerate(cfg.data):
        if not (folder / "data.yaml").is_file():
            val = cfg.synth_val_count if i == 0 else 0
            print(f"no dataset at {folder}: generating {cfg.synth_count}+{val} images", flush=True)
            generate(SynthConfig(folder, cfg.synth_count, val, cfg.dataset_seed(i), workers=workers))
    if len(cfg.data) == 1:
        return cfg.data[0] / "data.yaml"
    cfg.project.mkdir(parents=True, exist_ok=True)
    pooled = write_data_yaml(
        cfg.data[0],
        cfg.project / f"{cfg.name}-data.yaml",
        train=[str(d.resolve() / "images" / "train") for d in cfg.data],
    )
    return pooled


def train(
    cfg: TrainConfig,
    *,
    fresh: bool = False,
    warm_start: bool = False,
    start_from: Path | None = None,
    epochs: int | None = None,
    device: str | None = None,
) -> Path:
    """Run (or resume) the training; returns the run folder."""
    offline_environment()
    from ultralytics import YOLO
    from ultralytics.utils import torch_utils

    torch_utils.NUM_THREADS = (
        CPU_THREADS  # Ultralytics resets torch threads to this on CPU (default: cores - 1)
    )
    device = device or pick_device()
    if not fresh and cfg.last_checkpoint.is_file() and _unfinished(cfg.last_checkpoint):
        print(f"resuming from {cfg.last_checkpoint}", flush=True)
        YOLO(str(cfg.last_checkpoint)).train(resume=True, device=device)
        return cfg.run_dir
    data_yaml = ensure_dataset(cfg)
    warm = warm_start or start_from is not None
    if warm:
        source = start_from or SHIPPED_PT
        if not source.is_file():
            raise FileNotFoundError(f"warm start needs the weights {source}")
        model = YOLO(str(source))
        print(f"warm start from {source}", flush=True)
    else:
        model = YOLO(cfg.model)
    args = dict(cfg.train_args)
    if epochs is not None:
        args["epochs"] = epochs
    name = cfg.name
    if (cfg.project / cfg.name).exists():  # finished, or --fresh: keep the old runs, start a new folder
        n = 2
        while (cfg.project / f"{cfg.name}{n}").exists():
            n += 1
        name = f"{cfg.name}{n}"
    model.train(
        data=str(data_yaml),
        project=str(cfg.project),
        name=name,
        device=device,
        plots=False,
        pretrained=warm,  # False: random init from the YAML; True: keep the loaded weights
        amp=device != "cpu",
        verbose=True,
        **args,
    )
    return cfg.project / name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.train", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument(
        "--fresh", action="store_true", help="ignore an unfinished checkpoint, start a new run"
    )
    parser.add_argument("--warm-start", action="store_true", help="start from the shipped models/cards.pt")
    parser.add_argument("--start-from", type=Path, help="start a new run from these weights (warm start)")
    parser.add_argument("--epochs", type=int, help="override the config's epochs")
    parser.add_argument("--device", help="'cpu' or a CUDA index (default: GPU when available)")
    args = parser.parse_args(argv)
    try:
        cfg = load_config(args.config)
        run = train(
            cfg,
            fresh=args.fresh,
            warm_start=args.warm_start,
            start_from=args.start_from,
            epochs=args.epochs,
            device=args.device,
        )
    except (ConfigError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"training done; weights in {run / 'weights'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
