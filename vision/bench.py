"""Benchmark: the ONNX Runtime path against Ultralytics ``predict`` on the same model and photos.

    python -m vision.bench [--onnx models/cards.onnx] [--pt models/cards.pt] [PHOTO...]
    python -m vision.bench --stand-in 416 [--dynamic] PHOTO...   # an untrained model of the same shape

Each side runs in a fresh subprocess that only detects, so the figures are those of a real process:

* start-up: from launching the process to its first result (interpreter, imports, model load and the
  first photo), measured by the parent;
* ms per photo: the median over ``--repeat`` passes over all photos, timed from the decoded photo to
  the detections (ONNX: letterbox, inference, decoding and both NMS steps; Ultralytics: ``predict`` with
  its defaults);
* peak memory: the process's peak resident set size (``ru_maxrss``).

Each backend runs ``--rounds`` times, alternating, so a change in the machine's load hits both alike.
It prints a table with the ratios, and how far the two backends agree on the corners they found.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEFAULT_ONNX = Path(__file__).resolve().parent.parent / "models" / "cards.onnx"
DEFAULT_PT = DEFAULT_ONNX.with_suffix(".pt")
FIRST = "@@bench first result"
RESULT = "@@bench result "


def _peak_rss_mb() -> float:
    """This process's peak resident memory. On Linux VmHWM, because ``ru_maxrss`` survives exec and would
    report the parent's peak when the parent is bigger."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024.0 if sys.platform != "darwin" else peak / (1024.0 * 1024.0)


def _worker(kind: str, model: str, images: list[str], repeat: int, threads: int) -> None:
    """Runs in the subprocess: load, announce the first result, time the rest, print JSON."""
    import cv2

    photos = [cv2.imread(p, cv2.IMREAD_COLOR) for p in images]
    if kind == "onnx":
        from vision.detector import CardDetector

        # Like for like: Ultralytics reads the whole photo once, upright, without the corner reader.
        detector = CardDetector(model, threads=threads, tiles=1, rotations=1, reader="off")

        def detect(img: Any) -> list[tuple[str, float, list[float]]]:
            return [(d.code, d.confidence, list(d.box)) for d in detector.detect(img)]
    else:
        from ultralytics import YOLO  # type: ignore[attr-defined,unused-ignore]

        yolo: Any = YOLO(model, task="detect")

        def detect(img: Any) -> list[tuple[str, float, list[float]]]:
            result = yolo.predict(img, verbose=False)[0]
            names = result.names
            return [
                (str(names[int(c)]), float(s), [float(v) for v in box])
                for box, c, s in zip(
                    result.boxes.xyxy.tolist(),
                    result.boxes.cls.tolist(),
                    result.boxes.conf.tolist(),
                    strict=True,
                )
            ]

    found = {images[0]: detect(photos[0])}
    print(FIRST, flush=True)
    times = []
    for _ in range(repeat):
        for path, img in zip(images, photos, strict=True):
            start = time.perf_counter()
            found[path] = detect(img)
            times.append((time.perf_counter() - start) * 1000.0)
    print(RESULT + json.dumps({"ms": times, "peak_rss_mb": _peak_rss_mb(), "found": found}), flush=True)


def _run_worker(kind: str, model: Path, images: list[Path], repeat: int, threads: int) -> dict[str, Any]:
    cmd = [
        sys.executable,
        "-m",
        "vision.bench",
        "--worker",
        kind,
        "--model",
        str(model),
        "--repeat",
        str(repeat),
        "--threads",
        str(threads),
        *map(str, images),
    ]
    env = dict(os.environ, YOLO_OFFLINE="1", YOLO_AUTOINSTALL="False", PYTHONUNBUFFERED="1")
    with tempfile.TemporaryDirectory(prefix="tabletally-yolo-") as config_dir:  # removed after the run
        env.setdefault("YOLO_CONFIG_DIR", config_dir)
        return _timed_worker(kind, cmd, env)


def _timed_worker(kind: str, cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    root = Path(__file__).resolve().parent.parent
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH", "")]))
    start = time.perf_counter()
    # stderr goes to a file: a pipe could fill up while we read stdout line by line. stdout is read through
    # one file object to the end (communicate() would bypass lines it has already buffered).
    with tempfile.TemporaryFile(mode="w+") as err_file:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err_file, text=True, env=env)
        assert proc.stdout is not None
        startup = None
        lines = []
        for line in proc.stdout:  # the libraries may print their own lines first
            if startup is None and line.strip() == FIRST:
                startup = time.perf_counter() - start
            lines.append(line)
        proc.wait()
        err_file.seek(0)
        err = err_file.read()
    found = [line[len(RESULT) :] for line in lines if line.startswith(RESULT)]
    if startup is None or proc.returncode != 0 or not found:
        tail = (err.strip() or "".join(lines).strip() or "no output").splitlines()[-3:]
        raise SystemExit(f"vision.bench: the {kind} run failed (exit {proc.returncode}): " + " | ".join(tail))
    result: dict[str, Any] = json.loads(found[0])
    result["startup_s"] = startup
    return result


def export_stand_in(folder: Path, imgsz: int = 416, dynamic: bool = False) -> tuple[Path, Path]:
    """An *untrained* YOLO11n with the card model's 53-class head, as ``cards.pt`` and ``cards.onnx``.

    Same architecture, input size and export settings as the shipped model (opset 17, simplified), so it
    times like it; it finds nothing. Needs Ultralytics; nothing is downloaded (built from the YAML).
    """
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(folder / ".yolo-config"))
    import torch
    import ultralytics
    from ultralytics import YOLO  # type: ignore[attr-defined,unused-ignore]

    from vision.types import CARD_CODES

    cfg = Path(ultralytics.__file__).parent / "cfg" / "models" / "11" / "yolo11.yaml"
    text = "\n".join(
        "nc: 53" if line.startswith("nc:") else line for line in cfg.read_text(encoding="utf-8").splitlines()
    )
    yaml_path = folder / "yolo11n-cards.yaml"  # the "n" in the name selects the nano scale
    yaml_path.write_text(text + "\n", encoding="utf-8")
    model: Any = YOLO(str(yaml_path))
    model.model.names = dict(enumerate(CARD_CODES))
    model.model.args = {"imgsz": imgsz, "task": "detect"}
    pt = folder / "cards.pt"
    torch.save({"model": model.model, "train_args": {"imgsz": imgsz, "task": "detect"}}, pt)
    (folder / "classes.json").write_text(json.dumps({"names": list(CARD_CODES)}), encoding="utf-8")
    exported = Path(
        YOLO(str(pt)).export(format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=dynamic)
    )
    onnx = folder / "cards.onnx"
    if exported != onnx:
        exported.replace(onnx)
    return pt, onnx


Found = dict[str, list[tuple[str, float, list[float]]]]


def _agreement(a: Found, b: Found) -> tuple[int, int]:
    """Corners found by both (same code, IoU >= 0.5) and the corners found by either."""
    both = total = 0
    for image, dets_a in a.items():
        dets_b = list(b.get(image, []))
        same = 0
        for code, _, box in dets_a:
            match = next((d for d in dets_b if d[0] == code and _iou(box, d[2]) >= 0.5), None)
            if match is not None:
                dets_b.remove(match)
                same += 1
        both += same
        total += len(dets_a) + len(b.get(image, [])) - same
    return both, total


def _iou(p: list[float], q: list[float]) -> float:
    w = max(0.0, min(p[2], q[2]) - max(p[0], q[0]))
    h = max(0.0, min(p[3], q[3]) - max(p[1], q[1]))
    inter = w * h
    union = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
    return inter / union if union > 0 else 0.0


def _combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs of one backend: all photo times, the median start-up, the largest peak memory."""
    return {
        "ms": [ms for run in runs for ms in run["ms"]],
        "startup_s": statistics.median(run["startup_s"] for run in runs),
        "peak_rss_mb": max(run["peak_rss_mb"] for run in runs),
        "found": runs[-1]["found"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("images", nargs="*", type=Path, help="photos (default: the bundled demo photos)")
    parser.add_argument("--onnx", type=Path, default=DEFAULT_ONNX, help="ONNX model (default %(default)s)")
    parser.add_argument("--pt", type=Path, default=DEFAULT_PT, help="Ultralytics model (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="passes over the photos per run (default 3)")
    parser.add_argument(
        "--rounds", type=int, default=2, help="runs of each backend, alternating (default 2: evens out load)"
    )
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime intra-op threads (default 2)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument(
        "--stand-in",
        metavar="IMGSZ",
        type=int,
        help="time an UNTRAINED YOLO11n of the same shape instead (exported at IMGSZ): speed and memory only",
    )
    parser.add_argument("--dynamic", action="store_true", help="with --stand-in: export a dynamic-shape ONNX")
    parser.add_argument("--worker", choices=("onnx", "ultralytics"), help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        _worker(args.worker, args.model, [str(p) for p in args.images], args.repeat, args.threads)
        return 0
    if args.stand_in:
        with tempfile.TemporaryDirectory(prefix="tabletally-standin-") as folder:
            print(f"exporting an untrained stand-in model (imgsz {args.stand_in}) ...", flush=True)
            args.pt, args.onnx = export_stand_in(Path(folder), args.stand_in, args.dynamic)
            print("STAND-IN MODEL: untrained weights; the times and memory hold, the agreement does not.")
            return _bench(args)
    return _bench(args)


def _bench(args: argparse.Namespace) -> int:
    from vision.camera import demo_photos

    images = list(args.images) or demo_photos()
    if not images:
        print("vision.bench: no photos given and no demo photos in vision/demo", file=sys.stderr)
        return 1
    for path in (args.onnx, args.pt, *images):
        if not Path(path).is_file():
            print(f"vision.bench: {path}: no such file", file=sys.stderr)
            return 1

    print(
        f"{len(images)} photos x {args.repeat} passes x {args.rounds} rounds; ONNX Runtime on {args.threads} "
        f"threads; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    onnx_runs, ultra_runs = [], []
    for _ in range(max(1, args.rounds)):
        onnx_runs.append(_run_worker("onnx", args.onnx, images, args.repeat, args.threads))
        ultra_runs.append(_run_worker("ultralytics", args.pt, images, args.repeat, args.threads))
    onnx, ultra = _combine(onnx_runs), _combine(ultra_runs)

    rows = [
        ("median ms per photo", statistics.median(onnx["ms"]), statistics.median(ultra["ms"]), "{:.1f}"),
        ("start-up to first result (s)", onnx["startup_s"], ultra["startup_s"], "{:.2f}"),
        ("peak memory (MB RSS)", onnx["peak_rss_mb"], ultra["peak_rss_mb"], "{:.0f}"),
    ]
    print(f"\n{'':30} {'ONNX Runtime':>13} {'Ultralytics':>13} {'ratio':>7}")
    for label, a, b, fmt in rows:
        print(f"{label:30} {fmt.format(a):>13} {fmt.format(b):>13} {b / a:>6.1f}x")
    both, total = _agreement(onnx["found"], ultra["found"])
    print(f"\nagreement: {both} of {total} corners found by both (same code, IoU >= 0.5)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    if args.json:
        figures = {
            "photos": [str(p) for p in images],
            "repeat": args.repeat,
            "rounds": args.rounds,
            "threads": args.threads,
            "onnx": {k: onnx[k] for k in ("startup_s", "peak_rss_mb")}
            | {"median_ms": statistics.median(onnx["ms"])},
            "ultralytics": {k: ultra[k] for k in ("startup_s", "peak_rss_mb")}
            | {"median_ms": statistics.median(ultra["ms"])},
            "agreement": {"both": both, "total": total},
        }
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
