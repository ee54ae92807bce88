"""Ship the trained weights: ``python -m models.training.export [--weights runs/cards/weights/best.pt]``.

Copies the weights (optimizer stripped, half precision) to ``models/cards.pt``, exports them to ONNX at the
training size (``models/cards.onnx``, opset 17 for ONNX Runtime on the Pi), writes ``models/classes.json``,
and checks that the ONNX model runs. The input has a dynamic height and width, as shipped: the kiosk reads it
at the exported square (outputs bit-identical to a fixed export) and the focused reading may also read a large
photo at a larger size (``CardDetector.resizable``); ``--fixed`` exports a fixed square instead. ``python -m
models.training.export_ncnn`` converts either for NCNN. Without ``--weights`` it takes ``best.pt`` of the most
recently written run under the config's project folder, which may belong to a training still running (the
checkpoint is copied first).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from models.training.classes import CLASSES_JSON, MODELS_DIR, load_class_names, write_classes_json
from models.training.train import DEFAULT_CONFIG, ConfigError, load_config, offline_environment
from scorer.cards import CARD_CODES
from vision.runtimes.model_files import DEFAULT_ONNX

SHIPPED_PT = MODELS_DIR / "cards.pt"
SHIPPED_ONNX = DEFAULT_ONNX  # models/cards.onnx, what the kiosk runs
OPSET = 17


class ExportError(RuntimeError):
    """The weights cannot be exported (missing, wrong classes, ONNX check failed)."""


def latest_weights(project: Path, which: str = "best.pt") -> Path:
    found = sorted(project.glob(f"*/weights/{which}"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise FileNotFoundError(f"no {which} under {project}: train first (python -m models.training.train)")
    return found[-1]


def export(
    weights: Path,
    imgsz: int,
    out_pt: Path = SHIPPED_PT,
    out_onnx: Path = SHIPPED_ONNX,
    opset: int = OPSET,
    out_classes: Path = CLASSES_JSON,
    dynamic: bool = True,
) -> dict[str, object]:
    """Strip, copy and export ``weights``; returns a summary (epoch, sizes, paths)."""
    offline_environment()
    import torch
    from ultralytics import YOLO
    from ultralytics.utils.torch_utils import strip_optimizer

    if not weights.is_file():
        raise FileNotFoundError(f"weights not found: {weights}")
    with tempfile.TemporaryDirectory() as tmp:
        snap = Path(tmp) / "cards.pt"
        shutil.copy2(weights, snap)  # a running training may rewrite the file
        ckpt = torch.load(snap, map_location="cpu", weights_only=False)
        epoch = int(ckpt.get("epoch", -1))
        fitness = ckpt.get("best_fitness")
        strip_optimizer(str(snap))
        model = YOLO(str(snap))
        names = [model.names[i] for i in sorted(model.names)]
        if names != list(CARD_CODES):
            raise ExportError(f"{weights}: class names {names[:5]}... differ from scorer.cards.CARD_CODES")
        onnx_path = Path(
            model.export(
                format="onnx",
                imgsz=imgsz,
                opset=opset,
                dynamic=dynamic,
                simplify=True,
                nms=False,
                half=False,
                device="cpu",
            )
        )
        shutil.copy2(snap, out_pt)
        shutil.copy2(onnx_path, out_onnx)
    # new weights: no tuned threshold until models.training.evaluate --save-conf
    write_classes_json(out_classes, imgsz=imgsz)
    _check_onnx(out_onnx, out_classes, imgsz, dynamic)
    return {
        "weights": str(weights),
        "epoch": epoch + 1 if epoch >= 0 else "final",
        "best_fitness": None if fitness is None else float(fitness),
        "pt": f"{out_pt} ({out_pt.stat().st_size / 1e6:.1f} MB)",
        "onnx": f"{out_onnx} ({out_onnx.stat().st_size / 1e6:.1f} MB)",
    }


def _check_onnx(path: Path, classes: Path, imgsz: int, dynamic: bool = True) -> None:
    import numpy as np

    from vision.base.errors import VisionError
    from vision.reading.detector import CardDetector

    try:  # the kiosk's own detector, one plain pass
        det = CardDetector(path, tiles=1, rotations=1, reader="off").load()
        det.detect(np.full((480, 640, 3), 128, np.uint8))
    except VisionError as exc:
        raise ExportError(f"the exported model does not run: {exc}") from exc
    if det.input_hw != (imgsz, imgsz) or det.resizable != dynamic:
        shape = "a dynamic input" if dynamic else "a fixed input"
        raise ExportError(
            f"{path}: input {det.input_hw} (resizable: {det.resizable}), not {shape} read at {imgsz}"
        )
    if list(det.codes) != load_class_names(classes):
        raise ExportError(f"{path}: the detector's classes differ from {classes}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.export", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--weights", type=Path, help="checkpoint to ship (default: newest run's best.pt)")
    parser.add_argument(
        "--last", action="store_true", help="take last.pt instead of best.pt of the newest run"
    )
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--imgsz", type=int, help="ONNX input size (default: the config's imgsz)")
    parser.add_argument("--opset", type=int, default=OPSET)
    parser.add_argument(
        "--fixed", action="store_true", help="a fixed square input (default: a dynamic height and width)"
    )
    args = parser.parse_args(argv)
    try:
        cfg = load_config(args.config)
        weights = args.weights or latest_weights(cfg.project, "last.pt" if args.last else "best.pt")
        imgsz = args.imgsz or int(cfg.train_args["imgsz"])
        summary = export(weights, imgsz, opset=args.opset, dynamic=not args.fixed)
    except (ConfigError, FileNotFoundError, ExportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for k, v in summary.items():
        print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
