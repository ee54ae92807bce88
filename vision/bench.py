"""Benchmark: the kiosk's reading stage by stage, and the ONNX Runtime pass against Ultralytics ``predict``.

    python -m vision.bench [--part all|reading|backends] [--onnx models/cards.onnx] [--pt models/cards.pt]
                           [PHOTO...]
    python -m vision.bench --stand-in 416 [--dynamic] PHOTO...   # an untrained model of the same shape

The reading part (:func:`reading_bench`) reads every photo with today's full reading and with the focused
one (:mod:`vision.effort`), alternating, and prints per kind of photo (the demo photos by name, others by
folder) the median and 90th percentile of each stage: decoding the photo, each view of the model, the
corner reader, the views' vote and suppression, pairing and hands, and the total, with Pi 5 and Pi 4
estimates by the published ratios (``PI5_RATIO``, ``PI4_OVER_PI5``: estimates, not measurements); then the
camera, the real :class:`vision.camera.PiCamera` code over a camera simulated with published Pi delays,
opened for each scan against kept ready.

In the backends part each side runs in a fresh subprocess that only detects, so the figures are those
of a real process:

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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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
    if kind in ("onnx", "ncnn"):
        from vision.detector import CardDetector
        from vision.ncnn_backend import NcnnDetector

        # Like for like: Ultralytics reads the whole photo once, upright, without the corner reader.
        make = NcnnDetector if kind == "ncnn" else CardDetector
        detector = make(model, threads=threads, tiles=1, rotations=1, reader="off")

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
    parser.add_argument(
        "--part",
        choices=("all", "reading", "backends"),
        default="all",
        help="the reading stage by stage (full against focused), the backends' one pass, or both (default)",
    )
    parser.add_argument("--worker", choices=("onnx", "ncnn", "ultralytics"), help=argparse.SUPPRESS)
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

    if args.part in ("all", "reading") and not args.stand_in:
        reading_bench(images, args.repeat, args.threads)
        if args.part == "reading":
            return 0
        print()
    print(
        f"{len(images)} photos x {args.repeat} passes x {args.rounds} rounds; ONNX Runtime on {args.threads} "
        f"threads; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    from vision.ncnn_backend import DEFAULT_NCNN

    ncnn_model = args.onnx.parent / DEFAULT_NCNN.name
    onnx_runs, ultra_runs, ncnn_runs = [], [], []
    for _ in range(max(1, args.rounds)):
        onnx_runs.append(_run_worker("onnx", args.onnx, images, args.repeat, args.threads))
        ultra_runs.append(_run_worker("ultralytics", args.pt, images, args.repeat, args.threads))
        if ncnn_model.is_file() and not args.stand_in:
            ncnn_runs.append(_run_worker("ncnn", ncnn_model, images, args.repeat, args.threads))
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
    if ncnn_runs:
        ncnn = _combine(ncnn_runs)
        ncnn_ms = statistics.median(ncnn["ms"])
        alike, seen = _agreement(onnx["found"], ncnn["found"])
        print(
            f"NCNN ({ncnn_model.name}, the same photos and threads): {ncnn_ms:.1f} ms per photo, "
            f"{ncnn_ms / statistics.median(onnx['ms']):.1f}x ONNX Runtime's time, "
            f"{statistics.median(ultra['ms']) / ncnn_ms:.1f}x faster than Ultralytics; start-up "
            f"{ncnn['startup_s']:.2f} s, {ncnn['peak_rss_mb']:.0f} MB; "
            f"{alike} of {seen} corners as ONNX Runtime found them"
        )
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


# -- the reading, stage by stage: today's full reading against the focused one ---------------------------

PI5_RATIO = 3.4
"""A Raspberry Pi 5 runs the same ONNX model about this many times slower than the development machine
(the project's published ratio: Ultralytics' 168 ms for YOLO11n at 640 through ONNX against ~50 ms here)."""
PI4_OVER_PI5 = (3.0, 5.0)
"""A Pi 4 against a Pi 5 on the same nano detectors: 3.3-6.5x in Q-engineering's NCNN tables, so 3-5x as
deploy/README.md estimates ("How long a photo takes"): a range, an estimate."""


@dataclass(frozen=True)
class PiCameraDelays:
    """What the Pi camera costs, from published Pi 5 figures (not measured here): starting a still
    configuration, auto exposure settling (frames until ``AeLocked``), one autofocus cycle of a Camera
    Module 3, one 12 MP ``capture_array`` of the running camera, stopping and closing."""

    start_s: float = 0.3
    frame_s: float = 1 / 15
    settle_frames: int = 10
    autofocus_s: float = 1.0
    capture_s: float = 0.12
    close_s: float = 0.05


class SimulatedPicamera2:
    """A stand-in for ``picamera2.Picamera2`` that sleeps as the real camera takes (``delays``) and gives
    ``frames`` (decoded photos) in turn, so the real :class:`vision.camera.PiCamera` code can be timed on
    a machine without a camera. Never used by the kiosk."""

    delays = PiCameraDelays()
    frames: list[Any] = []

    def __init__(self, camera_num: int = 0) -> None:
        self.sensor_resolution = (4608, 2592)
        self.camera_controls = {"AfMode": (0, 2, 0)}
        self._frame = 0
        self._metadata = 0

    @classmethod
    def global_camera_info(cls) -> list[dict[str, Any]]:
        return [{"Model": "imx708 (simulated)", "Num": 0}]

    def create_still_configuration(self, main: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        return {"main": main or {}}

    def configure(self, config: dict[str, Any]) -> None:
        pass

    def start(self) -> None:
        time.sleep(self.delays.start_s)

    def capture_metadata(self) -> dict[str, Any]:
        time.sleep(self.delays.frame_s)
        self._metadata += 1
        return {
            "ExposureTime": 20000,
            "AnalogueGain": 2.0,
            "ColourGains": (1.8, 1.5),
            "LensPosition": 1.3,
            "AeLocked": self._metadata >= self.delays.settle_frames,
        }

    def autofocus_cycle(self) -> bool:
        time.sleep(self.delays.autofocus_s)
        return True

    def set_controls(self, controls: dict[str, Any]) -> None:
        pass

    def capture_array(self, name: str = "main") -> Any:
        time.sleep(self.delays.capture_s)
        frame = self.frames[self._frame % len(self.frames)]
        self._frame += 1
        return frame

    def stop(self) -> None:
        time.sleep(self.delays.close_s)

    def close(self) -> None:
        pass


@contextmanager
def simulated_pi_camera(frames: list[Any], delays: PiCameraDelays | None = None) -> Iterator[None]:
    """While inside, ``import picamera2`` gives :class:`SimulatedPicamera2` over ``frames`` (with
    ``delays``, default :attr:`SimulatedPicamera2.delays`: the published Pi figures), so the real
    :class:`vision.camera.PiCamera` (the ``pi`` camera spec) runs on a machine without a camera: for
    benchmarks and the headless demo only."""
    import types

    module = types.ModuleType("picamera2")
    fields: dict[str, Any] = {"frames": frames} if delays is None else {"frames": frames, "delays": delays}
    fake = type("Picamera2", (SimulatedPicamera2,), fields)
    module.Picamera2 = fake  # type: ignore[attr-defined]
    saved = sys.modules.get("picamera2")
    sys.modules["picamera2"] = module
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop("picamera2", None)
        else:
            sys.modules["picamera2"] = saved


def _camera_times(frames: list[Any], scans: int = 3) -> dict[str, list[float]]:
    """Seconds per photo of the real PiCamera code over the simulated camera: opened for each scan and
    closed after it (how the kiosk took photos before), and kept open and ready (how it does now)."""
    from vision.camera import PiCamera

    with simulated_pi_camera(frames):
        per_scan, kept = [], []
        for _ in range(scans):
            start = time.perf_counter()
            with PiCamera() as cam:
                cam.capture()
            per_scan.append(time.perf_counter() - start)
        with PiCamera() as cam:
            for _ in range(scans):
                start = time.perf_counter()
                cam.capture()
                kept.append(time.perf_counter() - start)
    return {"opened for each scan": per_scan, "kept ready": kept}


STAGES = (
    "decode",
    "whole photo, upright",
    "whole photo, half turn",
    "crops",
    "corner reader",
    "vote and suppression",
    "pairing and hands",
    "reading (photo to hands)",
)


def _stage_times(detector: Any, path: Path, effort: str) -> tuple[dict[str, float], int]:
    """One photo read with ``effort``, each stage's milliseconds, and the number of cards read."""
    from vision.camera import load_image
    from vision.cards import cards_from_detections, group_into_hands
    from vision.effort import read_with_effort

    start = time.perf_counter()
    image = load_image(path)
    times = {"decode": (time.perf_counter() - start) * 1000}
    reader = detector.reader
    spent = [0.0]
    if reader is not None:
        plain = reader.read

        def timed(*args: Any) -> Any:
            begun = time.perf_counter()
            try:
                return plain(*args)
            finally:
                spent[0] += (time.perf_counter() - begun) * 1000

        reader.read = timed
    try:
        start = time.perf_counter()
        found, passes = read_with_effort(detector, image, effort)
        detect_ms = (time.perf_counter() - start) * 1000
    finally:
        if reader is not None:
            del reader.read  # the instance attribute; the class's method is back
    start = time.perf_counter()
    cards = cards_from_detections(found)
    group_into_hands(cards)
    grouping = (time.perf_counter() - start) * 1000
    views = {name: ms for name, (_, _, ms) in passes._seen.items()}
    times["whole photo, upright"] = views.get("w0", 0.0)
    times["whole photo, half turn"] = sum(ms for name, ms in views.items() if name in ("w1", "w2", "w3"))
    times["crops"] = sum(ms for name, ms in views.items() if name.startswith("t"))
    times["corner reader"] = spent[0]
    times["vote and suppression"] = max(0.0, detect_ms - passes.ms - spent[0])
    times["pairing and hands"] = grouping
    times["reading (photo to hands)"] = detect_ms + grouping
    return times, len(cards)


def _kind(path: Path) -> str:
    """A photo's kind for the tables: the demo photos by name (hand, seep, table), others by folder."""
    stem = path.stem.rstrip("0123456789_-")
    return stem if path.parent == DEMO_PHOTOS else path.parent.name


DEMO_PHOTOS = Path(__file__).resolve().parent / "demo"


def _pi4(ms_here: float) -> str:
    low, high = (ms_here * PI5_RATIO * k / 1000 for k in PI4_OVER_PI5)
    return f"{low:.1f}-{high:.1f} s"


def _median_p90(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def reading_bench(images: list[Path], repeat: int = 3, threads: int = 2) -> dict[str, Any]:
    """Time today's full reading and the focused one on the same photos, stage by stage, alternating
    photo by photo so the machine's load hits both alike; print median and 90th percentile by kind of
    photo, the camera's share (simulated Pi delays), and Pi 5 / Pi 4 estimates. Returns the figures."""
    import cv2

    from vision.detector import CardDetector
    from vision.effort import FOCUSED, FULL

    detector = CardDetector(threads=threads).load()
    efforts = (FULL, FOCUSED)
    by_kind: dict[str, dict[str, dict[str, list[float]]]] = {}
    cards: dict[str, int] = dict.fromkeys(efforts, 0)
    for _ in range(repeat):
        for path in images:
            kind = _kind(path)
            for effort in efforts:
                times, count = _stage_times(detector, path, effort)
                stages = by_kind.setdefault(kind, {}).setdefault(effort, {})
                for stage, ms in times.items():
                    stages.setdefault(stage, []).append(ms)
                cards[effort] += count
    frames = [cv2.imread(str(images[0]), cv2.IMREAD_COLOR)]
    camera = _camera_times(frames)
    print(
        f"\nThe reading, stage by stage: {len(images)} photos x {repeat}, today's full reading against the "
        f"focused one, alternating; ms on this machine ({os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f}), median / 90th percentile"
    )
    figures: dict[str, Any] = {"kinds": {}, "camera_s": camera, "cards": cards}
    for kind, per_effort in sorted(by_kind.items()):
        count = len(per_effort[FULL]["decode"]) // repeat
        print(f"\n{kind} ({count} photo{'s' if count != 1 else ''}) {'full':>26} {'focused':>17}")
        for stage in STAGES:
            full, focused = (_median_p90(per_effort[e][stage]) for e in efforts)
            print(f"  {stage:28} {full[0]:7.1f} / {full[1]:6.1f} {focused[0]:8.1f} / {focused[1]:6.1f}")
        total = [_median_p90(per_effort[e]["reading (photo to hands)"]) for e in efforts]
        full_ms, focused_ms = total[0][0], total[1][0]
        print(
            f"  {'focused / full (median)':28} {focused_ms / max(full_ms, 1e-9):>17.2f}x   ESTIMATES: "
            f"Pi 5 {full_ms * PI5_RATIO / 1000:.2f} s -> {focused_ms * PI5_RATIO / 1000:.2f} s, "
            f"Pi 4 {_pi4(full_ms)} -> {_pi4(focused_ms)}"
        )
        figures["kinds"][kind] = {
            e: {stage: _median_p90(per_effort[e][stage]) for stage in STAGES} for e in efforts
        }
    print(f"\ncards read, all photos and passes: full {cards[FULL]}, focused {cards[FOCUSED]}")
    delays = SimulatedPicamera2.delays
    print(
        "\nthe camera (the real PiCamera code over a simulated camera with published Pi 5 delays: start "
        f"{delays.start_s} s, exposure settling up to {delays.settle_frames} frames of {delays.frame_s:.3f} "
        f"s, autofocus {delays.autofocus_s} s, capture_array {delays.capture_s} s), s per photo, median:"
    )
    for name, seconds in camera.items():
        print(f"  {name:28} {statistics.median(seconds):7.2f}")
    return figures


if __name__ == "__main__":
    sys.exit(main())
