"""``make bench``'s reading part: the kiosk's reading stage by stage, the full against the focused one
(:func:`reading_bench`), the Pi camera's code over a simulated camera, and one pass at other input sizes
(:func:`sizes_bench`; vision.devtools.bench's doc)."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.devtools.bench_backends import _iou, _median_p90

SYNTHETIC_KINDS = {"table1080": "1920x1080 tables", "deal12": "52-card fanned deals"}
"""Synthetic sets ``make bench`` adds when they have been made: folder under runs/data, what they are."""

PI5_RATIO = 3.4
"""How many times slower a Raspberry Pi 5 runs the same ONNX model than the development machine: the
project's published ratio (deploy/README.md, "How long a photo takes", where its sources are)."""
PI4_OVER_PI5 = (3.0, 5.0)
"""How many times slower a Pi 4 is than a Pi 5 on the same nano detectors: a range, an estimate
(deploy/README.md, "How long a photo takes")."""


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
