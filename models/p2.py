"""Give a trained yolo11n card detector a fourth detection level at stride 4 (P2):
``python -m models.p2 widen --out runs/p2/init.pt``.

The held-out photos' missed and misread corners are 12-22 px at the model input (models/README.md, "Known
weaknesses"): a stride-8 grid puts two or three cells across such a corner. ``models/yolo11n-p2.yaml`` is
yolo11n with one more branch: the P3 features upsampled to stride 4, joined with the backbone's stride-4
features (layer 2) and one C3k2 block, and a fourth Detect branch on it. Every other layer has the shape it
has in yolo11n, so the trained weights carry over unchanged and the widened model gives, on its P3-P5
anchors, exactly the outputs of the model it came from (:func:`check_carried`). The new C3k2 block (layer
25) starts from Ultralytics' own initialisation (its input is half as wide as layer 16's, so nothing
carries); the head's P2 branch starts as a copy of its P3 branch (the shapes agree), with its class bias set
to Ultralytics' prior for stride 4, so it starts quiet.

The file written is an Ultralytics checkpoint (``YOLO(path)`` loads it). ``python -m models.p2 train
--start-from PATH`` trains it with ``models/train-p2.yaml`` (everything but the new branch frozen) and a loss
on the P2 anchors alone (:func:`p2_only_loss`): with the trained levels in the loss, Ultralytics' task-aligned
assigner gives every corner to the P3 anchors that already score it, the quiet P2 anchors get targets near 0,
and the new branch learns nothing (measured: after an epoch so trained, the best P2 anchor of each of 60
held-out photos scored 0.005 on average, none over 0.2).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from models.classes import CLASS_CODES, MODELS_DIR
from models.train import offline_environment

P2_YAML = MODELS_DIR / "yolo11n-p2.yaml"
P2_CONFIG = MODELS_DIR / "train-p2.yaml"
OLD_DETECT = 23  # the Detect layer's index in yolo11n
NEW_DETECT = 26  # and in yolo11n-p2
NEW_LAYERS = ("model.23.", "model.24.", "model.25.")  # the P2 branch's upsample, concat and C3k2: start new


class WidenError(ValueError):
    """The weights are not a yolo11n card detector that the P2 model can carry over."""


def _key_map(old_keys: list[str]) -> dict[str, str]:
    """New key -> old key: the layers 0-22 as they are, the old Detect's branches one place on, and the
    new P2 branch of the head from the P3 one."""
    mapping: dict[str, str] = {}
    old_prefix, new_prefix = f"model.{OLD_DETECT}.", f"model.{NEW_DETECT}."
    for key in old_keys:
        if not key.startswith(old_prefix):
            mapping[key] = key
            continue
        rest = key[len(old_prefix) :]
        parts = rest.split(".")
        if parts[0] in ("cv2", "cv3") and parts[1].isdigit():
            level = int(parts[1])
            mapping[new_prefix + ".".join([parts[0], str(level + 1), *parts[2:]])] = key
            if level == 0:  # the P3 branch also seeds the new P2 branch
                mapping[new_prefix + ".".join([parts[0], "0", *parts[2:]])] = key
        else:  # dfl
            mapping[new_prefix + rest] = key
    return mapping


def load_model(weights: Path) -> Any:
    """The model of the Ultralytics checkpoint ``weights``, in float32 and eval mode."""
    import torch

    from models.average import AverageError, model_of

    if not weights.is_file():
        raise FileNotFoundError(f"weights not found: {weights}")
    try:
        ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as exc:
        raise WidenError(f"{weights}: not a PyTorch checkpoint ({exc})") from exc
    try:
        _, model = model_of(ckpt, weights)
    except AverageError as exc:
        raise WidenError(f"{weights}: not an Ultralytics checkpoint ({exc})") from exc
    return model.float().eval()


def widen(weights: Path, yaml_path: Path = P2_YAML) -> Any:
    """The P2 model built from ``yaml_path`` carrying the weights of the yolo11n checkpoint ``weights``."""
    return _widen_model(load_model(weights), weights, yaml_path)


def _widen_model(old: Any, weights: Path, yaml_path: Path = P2_YAML) -> Any:
    """:func:`widen` of the model ``old``, loaded from ``weights`` (named in errors)."""
    offline_environment()
    import torch
    from ultralytics.nn.tasks import DetectionModel

    names = [old.names[i] for i in sorted(old.names)]
    if names != list(CLASS_CODES):
        raise WidenError(f"{weights}: class names {names[:5]}... differ from models.classes.CLASS_CODES")
    head = old.yaml.get("head", [])
    if not head or head[-1][0] != [16, 19, 22]:
        raise WidenError(
            f"{weights}: not a three-level yolo11n (its Detect reads {head[-1][0] if head else '?'})"
        )

    new = DetectionModel(str(yaml_path), nc=len(CLASS_CODES), verbose=False)
    old_state = old.state_dict()
    new_state = new.state_dict()
    mapping = _key_map(list(old_state))
    missing = sorted(k for k in set(new_state) - set(mapping) if not k.startswith(NEW_LAYERS))
    if missing:
        raise WidenError(f"{yaml_path}: {len(missing)} parameters have no source, e.g. {missing[:3]}")
    for new_key, old_key in mapping.items():
        if new_key not in new_state:
            raise WidenError(f"{yaml_path}: no parameter {new_key} for {weights}'s {old_key}")
        if new_state[new_key].shape != old_state[old_key].shape:
            raise WidenError(
                f"{new_key} {tuple(new_state[new_key].shape)} cannot take "
                f"{old_key} {tuple(old_state[old_key].shape)}"
            )
        new_state[new_key] = old_state[old_key].clone()
    new.load_state_dict(new_state)
    detect = new.model[-1]
    cls_bias = detect.cv3[0][-1].bias
    with torch.no_grad():
        cls_bias[:] = math.log(5 / detect.nc / (640 / float(detect.stride[0])) ** 2)
    new.names = dict(old.names)
    new.args = getattr(old, "args", {})
    new.eval()
    return new


def p2_only_loss(model: Any) -> Any:
    """Ultralytics' detection loss on the first detection level (stride 4) of ``model`` only."""
    from ultralytics.utils.loss import v8DetectionLoss

    class P2OnlyLoss(v8DetectionLoss):  # type: ignore[misc]
        def __init__(self, m: Any) -> None:
            super().__init__(m)
            strides: Any = m.model[-1].stride
            self.stride = strides[:1]

        def parse_output(self, preds: Any) -> dict[str, Any]:
            out = super().parse_output(preds)
            feats = out["feats"]
            n = feats[0].shape[2] * feats[0].shape[3]
            return {"boxes": out["boxes"][..., :n], "scores": out["scores"][..., :n], "feats": [feats[0]]}

    return P2OnlyLoss(model)


@contextlib.contextmanager
def p2_loss_while_training() -> Iterator[None]:
    """While inside, every four-level DetectionModel that Ultralytics trains gets :func:`p2_only_loss`
    (three-level models keep their stock loss)."""
    offline_environment()
    from ultralytics.nn.tasks import DetectionModel

    original = DetectionModel.init_criterion

    def init_criterion(self: Any) -> Any:
        return p2_only_loss(self) if len(self.model[-1].stride) == 4 else original(self)

    DetectionModel.init_criterion = init_criterion
    try:
        yield
    finally:
        DetectionModel.init_criterion = original


def levels(weights: Path) -> int:
    """How many detection levels the model of the checkpoint ``weights`` has (3 for yolo11n, 4 widened)."""
    return len(load_model(weights).model[-1].stride)


def widened(weights: Path, out: Path) -> Path:
    """``weights`` if its model already has the P2 level, else its widened model written to ``out``."""
    old = load_model(weights)
    if len(old.model[-1].stride) == 4:
        return weights
    model = _widen_model(old, weights)
    drift = _drift(old, model)
    if drift > 1e-4:
        raise WidenError(f"{weights}: the widened model's P3-P5 outputs drift by {drift:.2e}")
    save(model, out, weights)
    return out


def train_p2(config: Path, start_from: Path, epochs: int | None = None) -> Path:
    """Train the P2 branch of the widened model ``start_from`` with the recipe ``config``, the loss on the P2
    anchors only; returns the run folder."""
    from models.train import load_config, train

    with p2_loss_while_training():
        return train(load_config(config), start_from=start_from, epochs=epochs)


def p2_anchors(imgsz: int) -> int:
    """How many stride-4 anchors lead the widened model's output at input ``imgsz``."""
    return (imgsz // 4) ** 2


def check_carried(old_weights: Path, new_model: Any, imgsz: int = 256, seed: int = 0) -> float:
    """The largest difference between the P3-P5 outputs of the widened model and those of the model it
    came from, on one random input (0 up to float rounding when the weights carried over)."""
    return _drift(load_model(old_weights), new_model, imgsz, seed)


def _drift(old: Any, new_model: Any, imgsz: int = 256, seed: int = 0) -> float:
    """:func:`check_carried` against the already loaded model ``old``."""
    import torch

    x = torch.rand(1, 3, imgsz, imgsz, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        a = old(x)[0]
        b = new_model.float().eval()(x)[0]
    return float((b[..., p2_anchors(imgsz) :] - a).abs().max())


def save(model: Any, out: Path, source: Path) -> None:
    """Write ``model`` as an Ultralytics checkpoint that ``YOLO(out)`` loads and training starts from."""
    import torch
    from ultralytics import __version__

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "epoch": -1,
            "best_fitness": None,
            "model": model,
            "ema": None,
            "updates": None,
            "optimizer": None,
            "train_args": {},
            "version": __version__,
            "widened_from": str(source),
        },
        out,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.p2", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("widen", help="write the widened checkpoint")
    w.add_argument("--weights", type=Path, default=MODELS_DIR / "cards.pt", help="a yolo11n card detector")
    w.add_argument("--out", type=Path, required=True, help="the widened checkpoint to write")
    t = sub.add_parser("train", help="train the new branch (loss on the P2 anchors only)")
    t.add_argument("--config", type=Path, default=P2_CONFIG)
    t.add_argument("--start-from", type=Path, required=True, help="a widened checkpoint")
    t.add_argument("--epochs", type=int, help="override the config's epochs")
    args = parser.parse_args(argv)
    if args.command == "train":
        from models.train import ConfigError

        try:
            run = train_p2(args.config, args.start_from, args.epochs)
        except (ConfigError, FileNotFoundError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"training done; weights in {run / 'weights'}")
        return 0
    try:
        model = widen(args.weights)
        drift = check_carried(args.weights, model)
    except (FileNotFoundError, WidenError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    save(model, args.out, args.weights)
    params = sum(p.numel() for p in model.parameters())
    print(f"wrote {args.out}: {params} parameters; P3-P5 outputs differ from {args.weights}'s by {drift:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
