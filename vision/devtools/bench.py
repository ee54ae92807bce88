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
from typing import IO, Any

DEFAULT_ONNX = Path(__file__).resolve().parents[2] / "models" / "cards.onnx"
DEFAULT_PT = DEFAULT_ONNX.with_suffix(".pt")
FIRST = "@@bench first result"
RESULT = "@@bench result "
QUIT = "quit"
RUNS = Path(__file__).resolve().parents[2] / "runs" / "data"
SYNTHETIC_KINDS = {"table1080": "1920x1080 tables", "deal12": "52-card fanned deals"}
"""Synthetic sets ``make bench`` adds when they have been made: folder under runs/data, what they are."""
SYNTHETIC_PHOTOS = 4  # photos of each synthetic set
WORKER_KINDS = (
    "onnx",
    "onnx-rect",
    "ncnn",
    "openvino",
    "openvino-rect",
    "ultralytics",
    "ultralytics-square",
)
"""What a one-pass worker runs: ONNX Runtime (as the kiosk: a fixed or exported square input), ONNX
Runtime on a dynamic model with a "rect" input, NCNN, OpenVINO (as the kiosk, or "rect" on a dynamic
model), Ultralytics ``predict`` (its default "rect" input) and ``predict`` with a square input
(``rect=False``, as the kiosk's model reads)."""
KIOSK_KINDS = {"onnx": "onnx", "ncnn": "ncnn", "openvino": "openvino"}
"""Worker kinds that read as the kiosk reads on a runtime (vision.runtimes.choice.RUNTIMES): the choice."""
ALSO_KINDS = ("onnx", "onnx-rect", "ncnn", "openvino", "openvino-rect")


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


Detected = list[tuple[str, float, list[float]]]


def _runtime_pass(kind: str, model: str, threads: int) -> tuple[Any, str]:
    """For the worker: a function photo -> (corners found, {"pre": s, "run": s, "post": s}) running one
    upright pass of the whole photo, without the corner reader, with ``kind``'s runtime; and the input
    it gives the model ("rect 576": long side 576, short side to a multiple of 32; or a fixed "576x576")."""
    if kind in ALSO_KINDS:
        import vision.reading.detector as detector_module
        from vision.base.geometry import letterbox as plain_letterbox
        from vision.reading.detector import NcnnDetector, OpenVinoDetector

        runtime = kind.removesuffix("-rect")
        make = {"ncnn": NcnnDetector, "openvino": OpenVinoDetector}.get(runtime, detector_module.CardDetector)
        detector = make(model, threads=threads, tiles=1, rotations=1, reader="off", effort="full").load()
        if kind.endswith("-rect"):  # a dynamic-input model read as Ultralytics reads: rect, not its square
            if not detector.resizable:
                raise SystemExit(f"{model}: {kind} needs a model with a dynamic input")
            detector.input_hw = None
        spent = {"pre": 0.0, "run": 0.0}
        plain_run = detector.run_model

        def timed(part: str, step: Any) -> Any:
            def run(*args: Any) -> Any:
                start = time.perf_counter()
                try:
                    return step(*args)
                finally:
                    spent[part] += time.perf_counter() - start

            return run

        # The detector's own steps, timed where they are called: the letterbox, and the model's pass (the
        # input tensor and the run); the rest of detect is decoding and suppression.
        setattr(detector_module, "letterbox", timed("pre", plain_letterbox))  # noqa: B010
        detector.run_model = timed("run", plain_run)  # type: ignore[method-assign]

        def one_pass(img: Any) -> tuple[Detected, dict[str, float]]:
            spent.update(pre=0.0, run=0.0)
            start = time.perf_counter()
            found = [(d.code, d.confidence, list(d.box)) for d in detector.detect(img)]
            total = time.perf_counter() - start
            return found, {
                "pre": spent["pre"],
                "run": spent["run"],
                "post": total - spent["pre"] - spent["run"],
            }

        fixed = detector.input_hw
        return one_pass, f"{fixed[0]}x{fixed[1]}" if fixed else f"rect {detector.imgsz}"
    import torch
    from ultralytics import YOLO  # type: ignore[attr-defined,unused-ignore]

    from vision.runtimes.model_files import exported_imgsz, model_conf

    torch.set_num_threads(threads)
    yolo: Any = YOLO(model, task="detect")
    imgsz = exported_imgsz(Path(model)) or 640
    conf = model_conf(Path(model)) or 0.25

    rect = kind != "ultralytics-square"  # predict's own default: rect; square as the kiosk's model reads

    def predict(img: Any) -> tuple[Detected, dict[str, float]]:
        result = yolo.predict(img, imgsz=imgsz, conf=conf, iou=0.5, rect=rect, verbose=False)[0]
        names = result.names
        found = [
            (str(names[int(c)]), float(s), [float(v) for v in box])
            for box, c, s in zip(
                result.boxes.xyxy.tolist(), result.boxes.cls.tolist(), result.boxes.conf.tolist(), strict=True
            )
        ]
        speed = result.speed
        return found, {
            "pre": speed["preprocess"] / 1e3,
            "run": speed["inference"] / 1e3,
            "post": speed["postprocess"] / 1e3,
        }

    return predict, f"rect {imgsz}" if rect else f"{imgsz}x{imgsz}"


def _worker(kind: str, model: str, images: list[str], threads: int) -> None:
    """Runs in the subprocess: load, read the first photo, announce it, then read the photo whose index
    each line of stdin names and print its figures as JSON, until ``quit`` (then the peak memory)."""
    import cv2

    photos = [cv2.imread(p, cv2.IMREAD_COLOR) for p in images]
    one_pass, given = _runtime_pass(kind, model, threads)
    one_pass(photos[0])
    print(FIRST + " " + json.dumps({"input": given}), flush=True)
    for line in sys.stdin:
        if line.strip() == QUIT:
            break
        img = photos[int(line)]
        cpu, start = time.process_time(), time.perf_counter()
        found, parts = one_pass(img)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        figures = {"ms": wall * 1000, "cpu_ms": cpu * 1000, "parts": {k: v * 1000 for k, v in parts.items()}}
        print(RESULT + json.dumps(figures | {"found": found}), flush=True)
    print(RESULT + json.dumps({"peak_rss_mb": _peak_rss_mb()}), flush=True)


class _Runtime:
    """One runtime's worker process, kept running: started once (its start-up timed), then asked photo by
    photo. ``label`` names it in the table."""

    def __init__(self, label: str, kind: str, model: Path, images: list[Path], threads: int) -> None:
        self.label, self.kind, self.model = label, kind, model
        self.runs: list[dict[str, Any]] = []
        self.found: dict[str, Detected] = {}
        self.peak_rss_mb = 0.0
        cmd = [sys.executable, "-m", "vision.devtools.bench", "--worker", kind, "--model", str(model)]
        cmd += ["--threads", str(threads), *map(str, images)]
        root = Path(__file__).resolve().parents[2]
        env = dict(os.environ, YOLO_OFFLINE="1", YOLO_AUTOINSTALL="False", PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH", "")]))
        self._config = tempfile.TemporaryDirectory(prefix="tabletally-yolo-")  # removed after the run
        env.setdefault("YOLO_CONFIG_DIR", self._config.name)
        # stderr goes to a file: a pipe could fill up while stdout is read line by line.
        self._err: IO[str] = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed by close()
        start = time.perf_counter()
        self._proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, text=True, env=env
        )
        self._lines: list[str] = []
        self.input = str(json.loads(self._read_until(FIRST)[len(FIRST) :])["input"])
        self.startup_s = time.perf_counter() - start

    def _read_until(self, prefix: str) -> str:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:  # the libraries may print their own lines first
            if line.startswith(prefix):
                return line
            self._lines.append(line)
        self._proc.wait()
        self._err.seek(0)
        tail = (self._err.read().strip() or "".join(self._lines).strip() or "no output").splitlines()[-3:]
        self.close()
        raise SystemExit(
            f"vision.devtools.bench: the {self.label} run failed (exit {self._proc.returncode}): "
            + " | ".join(tail)
        )

    def _ask(self, line: str) -> dict[str, Any]:
        assert self._proc.stdin is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self._read_until(RESULT)[len(RESULT) :])
        return answer

    def read(self, index: int, path: Path) -> None:
        figures = self._ask(str(index))
        self.found[str(path)] = [(c, s, b) for c, s, b in figures.pop("found")]
        self.runs.append(figures)

    def finish(self) -> None:
        self.peak_rss_mb = float(self._ask(QUIT)["peak_rss_mb"])
        self._proc.wait(timeout=60)
        self.close()

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._err.close()
        self._config.cleanup()

    def median(self, key: str) -> float:
        return float(statistics.median(run[key] for run in self.runs))

    def part(self, key: str) -> float:
        return float(statistics.median(run["parts"][key] for run in self.runs))

    def p90(self) -> float:
        return _median_p90([run["ms"] for run in self.runs])[1]


def backends_bench(
    images: list[Path],
    runtimes: list[tuple[str, str, Path]],
    repeat: int = 3,
    threads: int = 2,
) -> dict[str, Any]:
    """Time one pass of each of ``runtimes`` ((label, kind, model); kind onnx, ncnn or ultralytics) on
    ``images``, photo by photo in turn (the order rotating), each in its own kept process; print the table
    against Ultralytics (the runtime of kind ultralytics) and ONNX Runtime's corners (the first onnx one).
    Returns the figures."""
    print(
        f"One pass, the runtimes in turn on the same photos: {len(images)} photos x {repeat}, "
        f"{threads} threads, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    started: list[_Runtime] = []
    try:
        for label, kind, model in runtimes:
            started.append(_Runtime(label, kind, model, images, threads))
        for round_ in range(repeat):
            for index, path in enumerate(images):
                shift = (round_ * len(images) + index) % len(started)
                for runtime in started[shift:] + started[:shift]:
                    runtime.read(index, path)
        for runtime in started:
            runtime.finish()
    finally:
        for runtime in started:
            runtime.close()
    ultralytics = [r for r in started if r.kind.startswith("ultralytics")]
    ref = next((r for r in started if r.kind == "onnx"), started[0])
    print(
        f"\n{'':26} {'ms med':>7} {'p90':>6} {'pre':>5} {'run':>6} {'post':>5} {'CPU ms':>7} "
        f"{'x Ultralytics':>13} {'(CPU)':>6} {'start s':>7} {'MB':>5} {'input':>9}  corners as {ref.label}"
    )
    figures: dict[str, Any] = {"photos": [str(p) for p in images], "repeat": repeat, "threads": threads}
    for runtime in started:
        # like for like: against Ultralytics given the same input (a square, or rect), else the first
        base = next(
            (r for r in ultralytics if r.input == runtime.input), ultralytics[0] if ultralytics else None
        )
        ms, cpu = runtime.median("ms"), runtime.median("cpu_ms")
        ratio = f"{base.median('ms') / ms:.2f}x" if base else "-"
        cpu_ratio = f"{base.median('cpu_ms') / cpu:.2f}x" if base else "-"
        both, total = _agreement(ref.found, runtime.found)
        print(
            f"{runtime.label:26} {ms:7.1f} {runtime.p90():6.1f} {runtime.part('pre'):5.1f} "
            f"{runtime.part('run'):6.1f} {runtime.part('post'):5.1f} {cpu:7.1f} {ratio:>13} {cpu_ratio:>6} "
            f"{runtime.startup_s:7.1f} {runtime.peak_rss_mb:5.0f} {runtime.input:>9}  {both} of {total}"
        )
        figures[runtime.label] = {
            "median_ms": ms,
            "p90_ms": runtime.p90(),
            "cpu_ms": cpu,
            "parts_ms": {k: runtime.part(k) for k in ("pre", "run", "post")},
            "startup_s": runtime.startup_s,
            "peak_rss_mb": runtime.peak_rss_mb,
            "agreement": [both, total],
            "input": runtime.input,
            "kind": runtime.kind,
            "ratio_to": None if base is None else base.label,
        }
    chosen = chosen_runtime(figures)
    if chosen is not None:
        figures["chosen"] = chosen
        print(
            f"\nthe runtime the device would choose: {chosen['name']} ({chosen['why']}), "
            f"{chosen['ratio']:.2f}x {chosen['ratio_to']} (wall), {chosen['cpu_ratio']:.2f}x (CPU)"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return figures


def chosen_runtime(figures: dict[str, Any]) -> dict[str, Any] | None:
    """The runtime the device would choose from one-pass rows (``backends_bench``'s figures: label ->
    median_ms, cpu_ms, input, kind), as the installer and the doctor choose
    (:func:`vision.runtimes.choice.choose_runtime`), and its wall and CPU ratios to Ultralytics ``predict``
    given the same input (else the first ``predict``); None without a kiosk runtime or a ``predict`` row.
    The first row of each kiosk kind counts (an ``--also`` row of the same kind is another model)."""
    from vision.runtimes.choice import NAMES, choose_runtime

    rows = {label: row for label, row in figures.items() if isinstance(row, dict) and "kind" in row}
    kiosk: dict[str, tuple[str, dict[str, Any]]] = {}
    for label, row in rows.items():
        if row["kind"] in KIOSK_KINDS:
            kiosk.setdefault(KIOSK_KINDS[row["kind"]], (label, row))
    predict = [(label, row) for label, row in rows.items() if row["kind"].startswith("ultralytics")]
    if not kiosk or not predict:
        return None
    name, why = choose_runtime({k: row["median_ms"] for k, (_, row) in kiosk.items()})
    label, row = kiosk[name]
    base_label, base = next(((lb, r) for lb, r in predict if r["input"] == row["input"]), predict[0])
    return {
        "runtime": name,
        "label": label,
        "name": NAMES[name],
        "why": why,
        "ratio": base["median_ms"] / row["median_ms"],
        "cpu_ratio": base["cpu_ms"] / row["cpu_ms"],
        "ratio_to": base_label,
    }


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

    from vision.base.types import CARD_CODES

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
    ``frames`` (decoded photos) in turn, so the real :class:`vision.cameras.PiCamera` code can be timed on
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
        return {"main": main or {}, **kw}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config
        self._small: dict[int, Any] = {}

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
        if name == "lores":  # the running camera's next frame of its small stream (made by the ISP)
            time.sleep(self.delays.frame_s)
            return self._lores(self._frame % len(self.frames))
        time.sleep(self.delays.capture_s)
        frame = self.frames[self._frame % len(self.frames)]
        self._frame += 1
        return frame

    def _lores(self, k: int) -> Any:
        """Frame ``k`` as the lores stream gives it: YUV420 (I420) at the configured size, made once (the
        Pi's ISP makes it without the CPU)."""
        if k not in self._small:
            import cv2

            size = tuple(self.config["lores"]["size"])
            small = cv2.resize(self.frames[k], size, interpolation=cv2.INTER_AREA)
            self._small[k] = cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420)
        return self._small[k]

    def stop(self) -> None:
        time.sleep(self.delays.close_s)

    def close(self) -> None:
        pass


@contextmanager
def simulated_pi_camera(frames: list[Any], delays: PiCameraDelays | None = None) -> Iterator[None]:
    """While inside, ``import picamera2`` gives :class:`SimulatedPicamera2` over ``frames`` (with
    ``delays``, default :attr:`SimulatedPicamera2.delays`: the published Pi figures), so the real
    :class:`vision.cameras.PiCamera` (the ``pi`` camera spec) runs on a machine without a camera: for
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
    from vision.cameras import PiCamera

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
    "large look",
    "windows, turned",
    "crops",
    "corner reader",
    "vote and suppression",
    "pairing and hands",
    "reading (photo to hands)",
)


def _stage_times(detector: Any, path: Path, effort: str) -> tuple[dict[str, float], int]:
    """One photo read with ``effort``, each stage's milliseconds, and the number of cards read."""
    from vision.base.photo import load_image
    from vision.reading.focused import read_with_effort
    from vision.table.cards import cards_from_detections, group_into_hands

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
    for stage in ("whole photo, upright", "whole photo, half turn", "large look", "windows, turned", "crops"):
        times[stage] = sum(ms for name, ms in views.items() if _view_stage(name) == stage)
    times["corner reader"] = spent[0]
    times["vote and suppression"] = max(0.0, detect_ms - passes.ms - spent[0])
    times["pairing and hands"] = grouping
    times["reading (photo to hands)"] = detect_ms + grouping
    return times, len(cards)


def _view_stage(name: str) -> str:
    """The stage a pass of :class:`vision.reading.passes.Passes` counts under, by its name: ``w<turns>`` the
    whole
    photo (``L<side>`` upright: the large look), ``r...`` a window around spots in doubt, ``t...`` a crop."""
    if name.startswith("w"):
        if name[1] != "0":
            return "whole photo, half turn"
        return "large look" if "L" in name else "whole photo, upright"
    return "windows, turned" if name.startswith("r") else "crops"


def _kind(path: Path) -> str:
    """A photo's kind for the tables: the demo photos by name (hand, seep, table), a synthetic set's by
    what it holds (``SYNTHETIC_KINDS``) or its name (``runs/data/NAME/images/val``), others by folder."""
    if path.parent == DEMO_PHOTOS:
        return path.stem.rstrip("0123456789_-")
    if path.parent.parent.name == "images":
        name = path.parent.parent.parent.name
        return SYNTHETIC_KINDS.get(name, name)
    return path.parent.name


DEMO_PHOTOS = Path(__file__).resolve().parents[1] / "demo"


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

    from vision.reading.detector import CardDetector
    from vision.reading.rules import FOCUSED, FULL

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


# -- other input sizes: one pass at each long side, its work and the corners it reads -----------------------

SIZES = (480, 544, 576, 640, 800, 960)
SIZE_IOU = 0.3  # a detection reads a labelled corner when their boxes overlap this much (as models.training)


def _labelled_corners(
    photo: Path, hw: tuple[int, int], codes: tuple[str, ...]
) -> list[tuple[str, list[float]]]:
    """The corner boxes of ``photo``'s YOLO label file (``.../labels/X/`` for ``.../images/X/``), in pixels;
    [] without one."""
    label = Path(str(photo.parent).replace("/images/", "/labels/")) / (photo.stem + ".txt")
    if not label.is_file():
        return []
    height, width = hw
    corners = []
    for line in label.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            cls, cx, cy, w, h = (float(v) for v in line.split())
            x, y, bw, bh = cx * width, cy * height, w * width, h * height
            corners.append((codes[int(cls)], [x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2]))
    return corners


def sizes_bench(
    images: list[Path], model: Path, sizes: tuple[int, ...] = SIZES, threads: int = 2
) -> dict[int, Any]:
    """One upright pass of ``model`` (a dynamic-input export, as shipped: ``models.training.export``) at each
    long side of ``sizes``, "rect" inputs, without the corner reader, the sizes in turn on each photo: median
    wall and CPU ms, and the labelled corners read right (same code, IoU >= ``SIZE_IOU``), missed and read
    as another card. Prints the table with the work against the shipped size; returns the figures."""
    import cv2

    from vision.reading.detector import CardDetector

    detectors = {}
    for size in sizes:
        detector = CardDetector(
            model, imgsz=size, threads=threads, tiles=1, rotations=1, reader="off", effort="full"
        )
        detectors[size] = detector.load()
        if not detector.resizable:
            raise SystemExit(
                f"vision.devtools.bench: {model} has a fixed input: export one without --fixed to time sizes"
            )
        detector.input_hw = None  # rect at every size, the exported one too
    figures: dict[int, Any] = {
        s: {"ms": [], "cpu_ms": [], "right": 0, "missed": 0, "other": 0} for s in sizes
    }
    labelled = 0
    for index, path in enumerate(images):
        image: Any = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"vision.devtools.bench: {path}: not a photo OpenCV can read")
        truth = _labelled_corners(path, image.shape[:2], detectors[sizes[0]].codes)
        labelled += len(truth)
        shift = index % len(sizes)
        for size in sizes[shift:] + sizes[:shift]:
            cpu, start = time.process_time(), time.perf_counter()
            found = detectors[size].detect(image)
            figures[size]["ms"].append((time.perf_counter() - start) * 1000)
            figures[size]["cpu_ms"].append((time.process_time() - cpu) * 1000)
            for code, box in truth:
                best = max(found, key=lambda d: _iou(box, list(d.box)), default=None)
                if best is None or _iou(box, list(best.box)) < SIZE_IOU:
                    figures[size]["missed"] += 1
                else:
                    figures[size]["right" if best.code == code else "other"] += 1
    base = statistics.median(figures[576 if 576 in sizes else sizes[0]]["cpu_ms"])
    print(
        f"One upright pass at each long side (rect inputs, no reader, {threads} threads) on {len(images)} "
        f"photos, {labelled} labelled corners; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'long side':>9} {'ms med':>7} {'CPU ms':>7} {'work x':>7} {'read right':>17} {'missed':>7} "
        f"{'other':>6}"
    )
    for size in sizes:
        row = figures[size]
        cpu = statistics.median(row["cpu_ms"])
        share = f"{row['right']} ({100 * row['right'] / max(labelled, 1):.1f} %)"
        print(
            f"{size:>9} {statistics.median(row['ms']):7.1f} {cpu:7.1f} {cpu / base:7.2f} {share:>17} "
            f"{row['missed']:>7} {row['other']:>6}"
        )
    return figures


if __name__ == "__main__":
    sys.exit(main())
