"""Convert the shipped card model for NCNN: ``python -m models.training.export_ncnn [--onnx M.onnx]``.

Runs ``pnnx`` (PyPI, the ``train`` extra) on the exported ONNX model, its input fixed to the square
``classes.json`` "imgsz" first (pnnx leaves a dynamic YOLO head with layers NCNN cannot run), and ships the
NCNN graph and weights as ``models/cards.ncnn.param`` and ``models/cards.ncnn.bin``, which
:class:`vision.reading.detector.NcnnDetector` reads. The kiosk never converts anything; this runs once per
exported model (after ``models.training.export``). It then reads the demo photos with both runtimes, one
upright pass each, and prints how far they agree (corners found by both, largest score difference).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from vision.runtimes.model_files import DEFAULT_ONNX, exported_imgsz
from vision.runtimes.ncnn import DEFAULT_NCNN


class ConversionError(RuntimeError):
    """pnnx is missing or could not convert the model."""


def pnnx_command() -> str:
    """The ``pnnx`` executable: beside this Python (a venv), else on PATH."""
    beside = Path(sys.executable).parent / "pnnx"
    found = str(beside) if beside.is_file() else shutil.which("pnnx")
    if not found:
        raise ConversionError("pnnx is not installed (pip install pnnx, or pip install -e '.[train]')")
    return found


def fixed_square(onnx: Path, imgsz: int, out: Path) -> Path:
    """``onnx`` with its input fixed to 1 x 3 x ``imgsz`` x ``imgsz`` (a dynamic export's height and width
    made constants; a fixed one is copied), written to ``out``."""
    import onnx as onnx_lib
    from onnxruntime.tools.onnx_model_utils import make_input_shape_fixed

    model = onnx_lib.load(str(onnx))
    name = model.graph.input[0].name
    make_input_shape_fixed(model.graph, name, [1, 3, imgsz, imgsz])
    onnx_lib.save(model, str(out))
    return out


def convert(onnx: Path = DEFAULT_ONNX, param: Path = DEFAULT_NCNN) -> tuple[Path, Path]:
    """Convert ``onnx`` (its input fixed to the square of ``classes.json``'s "imgsz") into ``param`` and
    the ``.bin`` beside it. Returns both paths."""
    imgsz = exported_imgsz(onnx)
    if imgsz is None:
        raise ConversionError(f"{onnx}: no exported input size in classes.json ('imgsz')")
    with tempfile.TemporaryDirectory(prefix="tabletally-pnnx-") as work:
        source = fixed_square(onnx, imgsz, Path(work) / "cards.onnx")
        done = subprocess.run(
            [pnnx_command(), str(source), f"inputshape=[1,3,{imgsz},{imgsz}]"],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        made_param, made_bin = Path(work) / "cards.ncnn.param", Path(work) / "cards.ncnn.bin"
        if done.returncode != 0 or not made_param.is_file() or not made_bin.is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise ConversionError(
                f"pnnx could not convert {onnx} (exit {done.returncode}): " + " | ".join(tail)
            )
        param.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(made_param, param)
        shutil.copyfile(made_bin, param.with_suffix(".bin"))
    return param, param.with_suffix(".bin")


def agreement(photos: list[Path], onnx: Path = DEFAULT_ONNX, param: Path = DEFAULT_NCNN) -> dict[str, float]:
    """Both runtimes on ``photos``, one upright pass without the corner reader: the largest difference of
    any class score in the raw outputs, and the corners found by both (same code, IoU >= 0.5) of all."""
    from vision.base.geometry import box_iou_one, letterbox
    from vision.base.photo import load_image
    from vision.reading.detector import CardDetector, NcnnDetector

    ort = CardDetector(onnx, tiles=1, rotations=1, reader="off").load()
    ncnn = NcnnDetector(param, tiles=1, rotations=1, reader="off").load()
    worst, both, total = 0.0, 0, 0
    for path in photos:
        image = load_image(path)
        padded, _ = letterbox(image, ncnn.input_hw or ncnn.imgsz)  # NCNN's fixed input, both read it
        a, b = ort.run_model(padded), ncnn.run_model(padded)
        worst = max(worst, float(np.abs(a[:, 4:] - b[:, 4:]).max()))
        found_a, found_b = ort.detect(image), list(ncnn.detect(image))
        same = 0
        for det in found_a:
            match = next(
                (
                    d
                    for d in found_b
                    if d.code == det.code
                    and box_iou_one(np.array(det.box, np.float32), np.array([d.box], np.float32))[0] >= 0.5
                ),
                None,
            )
            if match is not None:
                found_b.remove(match)
                same += 1
        both += same
        total += len(found_a) + len(found_b)
    return {"max_score_difference": worst, "corners_both": both, "corners_total": total}


def main(argv: list[str] | None = None) -> int:
    from vision.cameras import demo_photos

    parser = argparse.ArgumentParser(prog="python -m models.training.export_ncnn", description=__doc__)
    parser.add_argument(
        "--onnx", type=Path, default=DEFAULT_ONNX, help="the ONNX model (default %(default)s)"
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_NCNN, help="the .param to write (default %(default)s)"
    )
    args = parser.parse_args(argv)
    try:
        param, weights = convert(args.onnx, args.out)
    except ConversionError as exc:
        print(f"export_ncnn: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {param} and {weights} ({weights.stat().st_size / 1e6:.1f} MB)")
    photos = demo_photos()
    if photos:
        figures = agreement(photos, args.onnx, param)
        print(
            f"ONNX Runtime against NCNN on {len(photos)} demo photos, one upright pass: "
            f"{figures['corners_both']:.0f} of {figures['corners_total']:.0f} corners found by both, "
            f"largest class score difference {figures['max_score_difference']:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
