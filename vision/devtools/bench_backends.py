"""``make bench``'s backends part: one upright pass of the whole photo with each runtime, each in a worker
process of its own, against Ultralytics ``predict`` (:func:`backends_bench`; vision.devtools.bench's doc)."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

FIRST = "@@bench first result"


RESULT = "@@bench result "


QUIT = "quit"


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


def _median_p90(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
