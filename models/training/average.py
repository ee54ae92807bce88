"""Average the weights of several checkpoints of one training run.

``python -m models.training.average --out runs/avg.pt runs/cards/weights/epoch8.pt .../epoch9.pt``

The last epochs of a run wander around a good solution, and their average, parameter by parameter, tends
to read better than any one of them (models/README.md, "What was learned"). The BatchNorm running
statistics are averaged too; integer buffers are taken from the last checkpoint. The result is an
Ultralytics checkpoint (the last one's, its EMA model replaced by the average, no optimizer) that
``models.training.export`` takes like any other.
``models.training.train`` keeps every epoch's checkpoint (``save_period: 1`` in the config) for this.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from models.training.train import offline_environment


class AverageError(ValueError):
    """The checkpoints cannot be averaged: missing, unreadable, or of different models."""


def model_of(ckpt: Any, path: Path) -> tuple[str, Any]:
    """The model an Ultralytics checkpoint holds (its EMA when there is one) and the key it is under."""
    if not isinstance(ckpt, dict):
        raise AverageError(f"{path} is not an Ultralytics checkpoint (no dict of model and metadata)")
    for key in ("ema", "model"):
        if ckpt.get(key) is not None and hasattr(ckpt[key], "state_dict"):
            return key, ckpt[key]
    raise AverageError(f"{path} holds no model ('ema' or 'model')")


def mean_state(states: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The parameter-by-parameter mean of model states of one network: floating-point tensors (weights
    and BatchNorm statistics) averaged, integer buffers (counters) taken from the last state."""
    return {
        k: (sum(s[k] for s in states) / len(states)) if v.is_floating_point() else v
        for k, v in states[-1].items()
    }


def average_checkpoints(paths: Sequence[Path], out: Path) -> dict[str, object]:
    """Write the average of ``paths`` (at least two) to ``out``; returns a summary."""
    offline_environment()
    import torch

    if len(paths) < 2:
        raise AverageError(f"averaging needs at least two checkpoints, got {len(paths)}")
    states: list[dict[str, Any]] = []
    ckpt: dict[str, Any] = {}
    key, model = "", None
    for path in paths:
        if not path.is_file():
            raise AverageError(f"checkpoint not found: {path}")
        try:
            ckpt = torch.load(path, map_location="cpu", weights_only=False)
        except Exception as exc:  # pickle, zip and torch errors alike: name the file
            raise AverageError(f"cannot read checkpoint {path}: {exc}") from exc
        key, model = model_of(ckpt, path)
        state = {k: v.detach().float() if v.is_floating_point() else v for k, v in model.state_dict().items()}
        if states:
            first = states[0]
            if state.keys() != first.keys() or any(state[k].shape != first[k].shape for k in first):
                raise AverageError(f"{path} is a different model from {paths[0]}: its parameters differ")
        states.append(state)
    assert model is not None  # at least two checkpoints were loaded (checked above)
    # ckpt, key and model are now the last checkpoint's: its metadata and structure carry the average
    mean = mean_state(states)
    averaged = copy.deepcopy(model).float()
    averaged.load_state_dict(mean)
    ckpt[key] = averaged.half()  # as Ultralytics saves its checkpoints
    if key == "ema":
        ckpt["model"] = None
    ckpt["optimizer"] = None
    ckpt["averaged_from"] = [str(p) for p in paths]
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, out)
    return {"out": str(out), "checkpoints": len(paths), "epoch": int(ckpt.get("epoch", -1)) + 1}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.average", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, required=True, help="the averaged checkpoint to write")
    parser.add_argument("checkpoints", type=Path, nargs="+", help="checkpoints of one run (two or more)")
    args = parser.parse_args(argv)
    try:
        summary = average_checkpoints(args.checkpoints, args.out)
    except AverageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"averaged {summary['checkpoints']} checkpoints into {summary['out']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
