"""Train the corner reader (``vision.reader.corners``) on patches from ``models.training.reader.data``, and
export it.

A small convolutional network (four stages of two 3x3 convolutions, 32-256 channels, about 1.2 M
parameters, ~0.1 GFLOP per 48-pixel patch) with plain PyTorch: the patches live in memory, so an epoch of
~200 000 patches takes minutes on two CPU threads. Each batch is augmented on the fly: the runtime's
square is cut from the stored patch with its centre shifted by up to ``SHIFT`` of the box and its side
scaled by ``SCALE`` (the detector's boxes are that loose), turned by a quarter turn and a few degrees
(corners lie at any angle), with brightness, contrast, grey and noise jitter. No mirroring: a mirrored index
is not a card.

    python -m models.training.reader.train --train runs/reader/train.npz --val runs/reader/val.npz --epochs 8
    python -m models.training.reader.train --export runs/reader/last.pt   # -> models/reader.onnx, reader.json
    python -m models.training.reader.train --soup models/reader.onnx runs/reader6/last.pt --train P.npz

Checkpoints ``runs/reader/last.pt`` after every epoch; rerunning resumes an unfinished run.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from models.training.reader.data import NONE_ID, STORE, STORE_CONTEXT
from vision.base.types import CARD_CODES
from vision.reader.corners import CONTEXT, NONE_CLASS, PATCH, READER_JSON
from vision.runtimes.onnx import bgr_batch_input

RUN_DIR = Path("runs/reader")
N_CLASSES = len(CARD_CODES) + 1
SHIFT = 0.12  # of the box's longer side
SCALE = (0.85, 1.2)
TILT_DEGREES = 12.0


def build_model() -> Any:
    import torch.nn as nn

    def conv(cin: int, cout: int, stride: int) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(inplace=True)
        )

    return nn.Sequential(
        conv(3, 32, 1),
        conv(32, 64, 2),
        conv(64, 64, 1),
        conv(64, 128, 2),
        conv(128, 128, 1),
        conv(128, 256, 2),
        conv(256, 256, 1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(256, N_CLASSES),
    )


def to_tensor(x: np.ndarray) -> Any:
    """N x S x S x 3 uint8 BGR -> N x 3 x S x S float RGB in [0, 1]."""
    import torch

    return torch.from_numpy(bgr_batch_input(x))


def centre(batch: Any) -> Any:
    """The runtime's square (``CONTEXT``) cut from stored patches (``STORE_CONTEXT``), ``PATCH`` pixels."""
    import torch
    import torch.nn.functional as F

    n = batch.shape[0]
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = theta[:, 1, 1] = CONTEXT / STORE_CONTEXT
    grid = F.affine_grid(theta, [n, 3, PATCH, PATCH], align_corners=False)
    return F.grid_sample(batch, grid, mode="bilinear", padding_mode="border", align_corners=False)


def augment(batch: Any, gen: Any) -> Any:
    """Random view of each stored patch as the runtime would cut it from a loose box (see module doc)."""
    import torch
    import torch.nn.functional as F

    n = batch.shape[0]
    quarter = torch.randint(0, 4, (n,), generator=gen).float() * (math.pi / 2)
    angle = quarter + (torch.rand(n, generator=gen) * 2 - 1) * math.radians(TILT_DEGREES)
    scale = (CONTEXT / STORE_CONTEXT) * (SCALE[0] + torch.rand(n, generator=gen) * (SCALE[1] - SCALE[0]))
    # a shift of SHIFT box sides, in the stored patch's [-1, 1] coordinates (its side is STORE_CONTEXT boxes)
    shift = (torch.rand(n, 2, generator=gen) * 2 - 1) * (2 * SHIFT / STORE_CONTEXT)
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )
    grid = F.affine_grid(theta, [n, 3, PATCH, PATCH], align_corners=False)
    out = F.grid_sample(batch, grid, mode="bilinear", padding_mode="border", align_corners=False)
    # light: brightness, contrast, sometimes grey, noise
    bright = 1 + (torch.rand(n, 1, 1, 1, generator=gen) * 2 - 1) * 0.25
    contrast = 1 + (torch.rand(n, 1, 1, 1, generator=gen) * 2 - 1) * 0.3
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    out = (out - mean) * contrast + mean * bright
    grey = torch.rand(n, generator=gen) < 0.1
    if grey.any():
        out[grey] = out[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    noise = torch.rand(n, 1, 1, 1, generator=gen) * 0.04
    out = out + torch.randn(out.shape, generator=gen) * noise
    return out.clamp_(0, 1)


def evaluate(model: Any, x: np.ndarray, y: np.ndarray, batch: int = 512) -> dict[str, Any]:
    """Accuracy on the centred squares: over corners, and how often "none" is told apart."""
    import torch

    model.eval()
    preds = []
    with torch.no_grad():
        for i in range(0, len(y), batch):
            preds.append(model(centre(to_tensor(x[i : i + batch]))).argmax(1).numpy())
    pred = np.concatenate(preds) if preds else np.zeros(0, np.int64)
    corner = y != NONE_ID
    return {
        "corners": int(corner.sum()),
        "corner_accuracy": float((pred[corner] == y[corner]).mean()) if corner.any() else 0.0,
        "corner_called_none": float((pred[corner] == NONE_ID).mean()) if corner.any() else 0.0,
        "none_accuracy": float((pred[~corner] == NONE_ID).mean()) if (~corner).any() else 0.0,
        "pred": pred,
    }


CALIBRATION = 2048  # patches that give an exported reader back its batch-norm statistics


def calibration_batch(x: np.ndarray, seed: int, n: int = CALIBRATION) -> Any:
    """The runtime's centred squares of ``n`` stored patches chosen from ``seed``."""
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(len(x), size=min(n, len(x)), replace=False))
    return centre(to_tensor(x[idx]))


def state_from_onnx(onnx_path: Path, calibration: Any) -> dict[str, Any]:
    """A trainable ``build_model`` state from an exported ``reader.onnx``, to fine-tune a reader whose
    checkpoint is gone.

    The export folds each batch norm into the convolution before it (weight and bias). The state puts the
    folded weight back in the convolution and gives each batch norm the mean ``m`` and variance ``v`` of
    that convolution's output over ``calibration`` (N x 3 x PATCH x PATCH), with scale ``sqrt(v + eps)``
    and shift ``m + bias``: evaluated, the network computes exactly what the ONNX model does, and a
    training batch like the calibration one normalises about as the running statistics do.
    """
    import onnx
    import torch
    import torch.nn.functional as F
    from onnx import numpy_helper

    graph = onnx.load(str(onnx_path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:  # the exporter shares equal tensors through Identity nodes
        if node.op_type == "Identity" and node.input[0] in weights:
            weights[node.output[0]] = weights[node.input[0]]
    convs = [n for n in graph.node if n.op_type == "Conv"]
    gemms = [n for n in graph.node if n.op_type == "Gemm"]
    model = build_model()
    blocks = [(i, m) for i, m in enumerate(model) if isinstance(m, torch.nn.Sequential)]
    if len(convs) != len(blocks) or len(gemms) != 1 or any(len(n.input) != 3 for n in convs):
        raise ValueError(
            f"{onnx_path}: {len(convs)} convolutions and {len(gemms)} linear layers, expected the reader's "
            f"{len(blocks)} convolutions (with folded batch norm) and one linear layer"
        )
    state: dict[str, Any] = dict(model.state_dict())
    h = calibration.float()
    with torch.no_grad():
        for k, ((prefix, block), node) in enumerate(zip(blocks, convs, strict=True)):
            w = torch.from_numpy(weights[node.input[1]].copy())
            b = torch.from_numpy(weights[node.input[2]].copy())
            conv, bn = block[0], block[1]
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(
                    f"{onnx_path}: convolution {k + 1} has weights {tuple(w.shape)}, "
                    f"expected {tuple(conv.weight.shape)}"
                )
            z = F.conv2d(h, w, None, conv.stride, conv.padding)
            mean, var = z.mean(dim=(0, 2, 3)), z.var(dim=(0, 2, 3), unbiased=False)
            state[f"{prefix}.0.weight"] = w
            state[f"{prefix}.1.running_mean"] = mean
            state[f"{prefix}.1.running_var"] = var
            state[f"{prefix}.1.weight"] = torch.sqrt(var + bn.eps)
            state[f"{prefix}.1.bias"] = mean + b
            h = F.silu(z + b[None, :, None, None])
        gemm, last = gemms[0], len(model) - 1
        linear = model[last]
        lw = torch.from_numpy(weights[gemm.input[1]].copy())
        lb = torch.from_numpy(weights[gemm.input[2]].copy())
        if tuple(lw.shape) != tuple(linear.weight.shape):
            raise ValueError(
                f"{onnx_path}: linear layer {tuple(lw.shape)}, expected {tuple(linear.weight.shape)}"
            )
        state[f"{last}.weight"], state[f"{last}.bias"] = lw, lb
    return state


def load_state(weights: Path, calibration: np.ndarray, seed: int) -> dict[str, Any]:
    """A ``build_model`` state from a checkpoint, or from an exported ``reader.onnx`` rebuilt with
    ``calibration_batch(calibration, seed)`` (:func:`state_from_onnx`)."""
    import torch

    if weights.suffix == ".onnx":
        return state_from_onnx(weights, calibration_batch(calibration, seed))
    state: dict[str, Any] = torch.load(weights, weights_only=False)["model"]
    return state


def soup(weights: list[Path], calibration: np.ndarray, seed: int, out: Path) -> Path:
    """Average readers parameter by parameter (batch-norm statistics too; counters from the last) into a
    checkpoint at ``out``. ``weights``: checkpoints or exported ``reader.onnx`` files of one network."""
    import torch

    from models.training.average import mean_state

    mixed = mean_state([load_state(w, calibration, seed) for w in weights])
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": mixed, "soup": [str(w) for w in weights]}, out)
    return out


def train(
    train_npz: Path | list[Path],
    val_npz: Path,
    epochs: int,
    batch: int = 256,
    lr: float = 3e-3,
    seed: int = 0,
    threads: int = 2,
    run_dir: Path = RUN_DIR,
    init: Path | None = None,
) -> Path:
    """Train or resume into ``run_dir`` (``last.pt`` after each epoch, and ``epochN.pt``); returns last.pt.

    ``train_npz``: one patch file or several (pooled). ``init``: start from these weights (a checkpoint of
    an earlier run, or an exported ``reader.onnx``, see :func:`state_from_onnx`) with a fresh optimizer and
    schedule, to fine-tune on more data.
    """
    import torch
    import torch.nn as nn

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    files = train_npz if isinstance(train_npz, list) else [train_npz]
    parts = [np.load(f) for f in files]
    x = parts[0]["x"] if len(parts) == 1 else np.concatenate([p["x"] for p in parts])
    y = np.concatenate([p["y"] for p in parts]).astype(np.int64)
    val = np.load(val_npz)
    vx, vy = val["x"], val["y"].astype(np.int64)
    if x.shape[1:] != (STORE, STORE, 3):
        raise ValueError(f"{files}: patches of shape {x.shape[1:]}, expected {(STORE, STORE, 3)}")
    run_dir.mkdir(parents=True, exist_ok=True)
    last = run_dir / "last.pt"
    model = build_model()
    if init is not None:
        model.load_state_dict(load_state(init, x, seed))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
    steps_per_epoch = math.ceil(len(y) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=lr, total_steps=epochs * steps_per_epoch, pct_start=0.1
    )
    start = 0
    if last.is_file():
        ckpt = torch.load(last, weights_only=False)
        if ckpt.get("epochs") == epochs and ckpt["epoch"] < epochs:
            model.load_state_dict(ckpt["model"])
            opt.load_state_dict(ckpt["opt"])
            sched.load_state_dict(ckpt["sched"])
            start = ckpt["epoch"]
            print(f"resuming {last} after epoch {start}")
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(start, epochs):
        model.train()
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed * 1000 + epoch)).numpy()
        t0, total = time.time(), 0.0
        for step in range(steps_per_epoch):
            idx = np.sort(order[step * batch : (step + 1) * batch])
            inputs = augment(to_tensor(x[idx]), gen)
            loss = loss_fn(model(inputs), torch.from_numpy(y[idx]))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            if step % 100 == 0:
                print(
                    f"epoch {epoch + 1} step {step}/{steps_per_epoch} loss {total / (step + 1):.3f}",
                    flush=True,
                )
        result = evaluate(model, vx, vy)
        print(
            f"epoch {epoch + 1}/{epochs}: loss {total / steps_per_epoch:.3f}, held-out corners read right "
            f"{result['corner_accuracy']:.4f} (called none {result['corner_called_none']:.4f}), none told "
            f"{result['none_accuracy']:.4f}, {time.time() - t0:.0f} s",
            flush=True,
        )
        state = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}
        torch.save({**state, "epoch": epoch + 1, "epochs": epochs}, last)
        torch.save({"model": model.state_dict(), "epoch": epoch + 1}, run_dir / f"epoch{epoch + 1}.pt")
    return last


def export(weights: Path, out_dir: Path) -> Path:
    """Write ``reader.onnx`` (input N x 3 x PATCH x PATCH, outputs N x 54 logits and N x 256 features) and
    ``reader.json``."""
    import torch

    model = build_model()
    model.load_state_dict(torch.load(weights, weights_only=False)["model"])
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = out_dir / "reader.onnx"
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated; its output is what ships
        warnings.simplefilter("ignore", DeprecationWarning)
        _export_onnx(model, onnx_path)
    from models.training.reader.features import add_features

    add_features(onnx_path)  # the penultimate features too: a taught deck (vision.deck.memory) remembers them
    meta = {"names": [*CARD_CODES, NONE_CLASS], "size": PATCH, "context": CONTEXT}
    (out_dir / READER_JSON).write_text(json.dumps(meta) + "\n", encoding="utf-8")
    return onnx_path


def _export_onnx(model: Any, onnx_path: Path) -> None:
    import torch

    torch.onnx.export(
        model,
        (torch.zeros(1, 3, PATCH, PATCH),),
        str(onnx_path),
        input_names=["patches"],
        output_names=["logits"],
        dynamic_axes={"patches": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=Path, nargs="+", default=[RUN_DIR / "train.npz"])
    ap.add_argument("--val", type=Path, default=RUN_DIR / "val.npz")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--run-dir", type=Path, default=RUN_DIR, help="checkpoints (default runs/reader)")
    ap.add_argument(
        "--init",
        type=Path,
        metavar="WEIGHTS",
        help="start from these weights (fine-tuning): a checkpoint, or an exported reader.onnx",
    )
    ap.add_argument("--export", type=Path, metavar="WEIGHTS", help="export these weights instead of training")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2])  # models/
    ap.add_argument(
        "--soup",
        type=Path,
        nargs="+",
        metavar="WEIGHTS",
        help="average these readers (checkpoints or reader.onnx files) into RUN_DIR/soup.pt instead of "
        "training; the first --train file calibrates the ONNX ones (with --seed)",
    )
    args = ap.parse_args(argv)
    if args.export:
        print(export(args.export, args.out))
        return 0
    if args.soup:
        missing = [str(w) for w in args.soup if not w.is_file()]
        if missing:
            print(f"models.training.reader.train: no reader at {', '.join(missing)}", file=sys.stderr)
            return 2
        calibration = np.zeros((0, STORE, STORE, 3), np.uint8)  # only exported readers need patches
        if any(w.suffix == ".onnx" for w in args.soup):
            if not args.train[0].is_file():
                print(
                    f"models.training.reader.train: no patches at {args.train[0]} to calibrate with",
                    file=sys.stderr,
                )
                return 2
            calibration = np.load(args.train[0])["x"]
        print(soup(args.soup, calibration, args.seed, args.run_dir / "soup.pt"))
        return 0
    for path in (*args.train, args.val):
        if not path.is_file():
            print(
                f"models.training.reader.train: no patches at {path} (python -m models.training.reader.data)",
                file=sys.stderr,
            )
            return 2
    train(
        args.train,
        args.val,
        args.epochs,
        args.batch,
        args.lr,
        args.seed,
        args.threads,
        args.run_dir,
        args.init,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
