"""Benchmark: the kiosk's reading stage by stage, and one pass of each runtime against Ultralytics.

    python -m vision.devtools.bench [--part all|reading|backends] [--onnx models/cards.onnx] [--pt
    models/cards.pt]
                           [--also onnx:OTHER.onnx] [PHOTO_OR_FOLDER...]
    python -m vision.devtools.bench --stand-in 416 [--dynamic] PHOTO...   # an untrained model of the same
    shape

Without photos it reads the bundled demo photos (a hand, a Seep pile, two tables) and, where they have
been made (``python -m models.training.synth``; ``runs/`` is not in the repository), a few synthetic
1920x1080 tables and 52-card fanned deals (``runs/data/table1080``, ``runs/data/deal12``); it says which
kind is missing.

The reading part (:func:`reading_bench`) reads every photo with today's full reading and with the focused
one (:mod:`vision.reading.focused`), alternating, and prints per kind of photo (the demo photos by name,
others by
folder) the median and 90th percentile of each stage: decoding the photo, each view of the model, the
corner reader, the views' vote and suppression, pairing and hands, and the total, with Pi 5 and Pi 4
estimates by the published ratios (``PI5_RATIO``, ``PI4_OVER_PI5``: estimates, not measurements); then the
camera, the real :class:`vision.cameras.PiCamera` code over a camera simulated with published Pi delays,
opened for each scan against kept ready.

The backends part (:func:`backends_bench`) times one upright pass of the whole photo, without the corner
reader, with ONNX Runtime, NCNN and OpenVINO (where installed) as the kiosk runs them (the model's square
input, 576 x 576) and with Ultralytics ``predict`` on the same photos and threads, twice: given the same
square (``rect=False``) and with its own default, a "rect" input (the long side 576, the short side padded
to a multiple of 32, fewer pixels for a 4:3 or 16:9 photo). Each runtime's ratio is to ``predict`` given
the same input: like for like (``--also onnx-rect:models/cards.onnx`` adds ONNX Runtime on the dynamic
model with rect inputs, against rect).
Each runtime runs in a process of its own, started once and kept; the parent asks them in turn for the
same photo, so a change in the machine's load hits all alike. Per runtime it prints:

* ms per photo: median and 90th percentile over ``--repeat`` passes over all photos, timed from the
  decoded photo to the detections, and split into preprocess (the letterbox), the model run (its input
  tensor included) and postprocess (decoding and both NMS steps; Ultralytics: its own ``speed`` split);
* CPU ms per photo (all the process's threads): the work, which a busy machine inflates far less;
* start-up to the first result (interpreter, imports, model load, the first photo) and peak memory;
* the ratio to Ultralytics, and how many corners it found as ONNX Runtime found them;

then the runtime the device would choose from these medians (:func:`chosen_runtime`, by the installer's
rule) and its wall and CPU ratios to ``predict`` given the same input.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

from vision.devtools.bench_backends import (
    ALSO_KINDS,
    WORKER_KINDS,
    _worker,
    backends_bench,
    export_stand_in,
)
from vision.devtools.bench_reading import SIZES, SYNTHETIC_KINDS, reading_bench, sizes_bench

DEFAULT_ONNX = Path(__file__).resolve().parents[2] / "models" / "cards.onnx"


DEFAULT_PT = DEFAULT_ONNX.with_suffix(".pt")


RUNS = Path(__file__).resolve().parents[2] / "runs" / "data"


SYNTHETIC_PHOTOS = 4  # photos of each synthetic set


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.devtools.bench", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "images", nargs="*", type=Path, help="photos or folders of photos (default: the demo photos and more)"
    )
    parser.add_argument("--onnx", type=Path, default=DEFAULT_ONNX, help="ONNX model (default %(default)s)")
    parser.add_argument("--pt", type=Path, default=DEFAULT_PT, help="Ultralytics model (default %(default)s)")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="KIND:MODEL",
        help="one more runtime in the one-pass table: onnx:M.onnx, onnx-rect:M.onnx (a dynamic model read "
        "with rect inputs), ncnn:M.param, openvino:M.onnx or openvino-rect:M.onnx (repeatable)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="passes over the photos (default 3)")
    parser.add_argument("--threads", type=int, default=2, help="threads of each runtime (default 2)")
    parser.add_argument("--json", type=Path, help="also write the one-pass figures to this JSON file")
    parser.add_argument(
        "--stand-in",
        metavar="IMGSZ",
        type=int,
        help="time an UNTRAINED YOLO11n of the same shape instead (exported at IMGSZ): speed and memory only",
    )
    parser.add_argument("--dynamic", action="store_true", help="with --stand-in: export a dynamic-shape ONNX")
    parser.add_argument(
        "--part",
        choices=("all", "reading", "backends", "sizes"),
        default="all",
        help="the reading stage by stage (full against focused), the runtimes' one pass, or both (default); "
        "sizes: one pass at other input sizes (--onnx: a dynamic export; photos with YOLO labels beside)",
    )
    parser.add_argument("--worker", choices=WORKER_KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        _worker(args.worker, args.model, [str(p) for p in args.images], args.threads)
        return 0
    if args.stand_in:
        with tempfile.TemporaryDirectory(prefix="tabletally-standin-") as folder:
            print(f"exporting an untrained stand-in model (imgsz {args.stand_in}) ...", flush=True)
            args.pt, args.onnx = export_stand_in(Path(folder), args.stand_in, args.dynamic)
            print("STAND-IN MODEL: untrained weights; the times and memory hold, the agreement does not.")
            return _bench(args)
    return _bench(args)


def bench_photos(given: list[Path]) -> list[Path]:
    """The photos to time: those given (a folder gives its JPEG and PNG photos), else the demo photos and
    the first ``SYNTHETIC_PHOTOS`` of each synthetic set of ``SYNTHETIC_KINDS`` that has been made (a
    line on stderr names each set that has not)."""
    from vision.cameras import demo_photos

    if not given:
        photos = demo_photos()
        for folder, what in SYNTHETIC_KINDS.items():
            found = sorted((RUNS / folder / "images" / "val").glob("*.jpg"))[:SYNTHETIC_PHOTOS]
            if not found:
                print(
                    f"vision.devtools.bench: no {what} (runs/data/{folder}: "
                    "make them with models.training.data.synth)",
                    file=sys.stderr,
                )
            photos += found
        return photos
    photos = []
    for path in given:
        if path.is_dir():
            photos += sorted(p for p in path.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        else:
            photos.append(path)
    return photos


def _bench(args: argparse.Namespace) -> int:
    images = bench_photos(list(args.images))
    if not images:
        print("vision.devtools.bench: no photos given and no demo photos in vision/demo", file=sys.stderr)
        return 1
    for path in (args.onnx, args.pt, *images):
        if not Path(path).is_file():
            print(f"vision.devtools.bench: {path}: no such file", file=sys.stderr)
            return 1
    runtimes: list[tuple[str, str, Path]] = [("ONNX Runtime", "onnx", args.onnx)]
    from vision.runtimes.ncnn import DEFAULT_NCNN

    ncnn_model = args.onnx.parent / DEFAULT_NCNN.name
    if ncnn_model.is_file() and not args.stand_in:
        runtimes.append(("NCNN", "ncnn", ncnn_model))
    if importlib.util.find_spec("openvino") is not None:
        runtimes.append(("OpenVINO", "openvino", args.onnx))
    else:
        print("vision.devtools.bench: no OpenVINO (pip install openvino): not timed", file=sys.stderr)
    for extra in args.also:
        kind, _, model = extra.partition(":")
        if kind not in ALSO_KINDS or not Path(model).is_file():
            print(
                f"vision.devtools.bench: --also {extra}: expected KIND:FILE of a model, KIND one of "
                + ", ".join(ALSO_KINDS),
                file=sys.stderr,
            )
            return 1
        runtimes.append((f"{kind} {Path(model).name}", kind, Path(model)))
    runtimes.append(("Ultralytics predict, square", "ultralytics-square", args.pt))
    runtimes.append(("Ultralytics predict", "ultralytics", args.pt))

    if args.part == "sizes":
        sizes_bench(images, args.onnx, SIZES, args.threads)
        return 0
    if args.part in ("all", "reading") and not args.stand_in:
        reading_bench(images, args.repeat, args.threads)
        if args.part == "reading":
            return 0
        print()
    figures = backends_bench(images, runtimes, args.repeat, args.threads)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
