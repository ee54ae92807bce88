"""What watching the table costs while a round waits: ``python -m vision.devtools.watch_bench``.

The real :class:`vision.cameras.PiCamera` over the simulated picamera2 (``vision.devtools.bench_reading``:
the lores stream of the running camera, made by the "ISP" without this process's CPU, as on the Pi) gives
the small frames of a scripted round (``vision.devtools.table_film``) at the kiosk's rate
(``ui.logic.watching.LIVE_SECONDS``), and a :class:`vision.table.watch.TableWatcher` judges each. The
figure is this process's CPU time while watching against a baseline in the same run: the same loop of
ticks taking and judging nothing (the kiosk with watching off). Both as a share of one core; the Pi 5's
is estimated as this machine's x 3.4 (an estimate, not a measurement).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable

PI5_FACTOR = 3.4
RATE_S = 0.25  # as ui.logic.watching.LIVE_SECONDS (vision imports nothing of ui)


def _loop(seconds: float, work: Callable[[float], None]) -> tuple[float, float, list[float]]:
    """Run ``work(t)`` every ``RATE_S`` for ``seconds``: (wall s, CPU s of this process, CPU s per call)."""
    per: list[float] = []
    wall0, cpu0 = time.perf_counter(), time.process_time()
    tick = wall0
    while time.perf_counter() - wall0 < seconds:
        c = time.thread_time()
        work(time.monotonic())
        per.append(time.thread_time() - c)
        tick += RATE_S
        time.sleep(max(0.0, tick - time.perf_counter()))
    return time.perf_counter() - wall0, time.process_time() - cpu0, per


def run(seconds: float = 20.0, rounds: int = 2) -> dict[str, float]:
    from vision.cameras import PiCamera
    from vision.devtools.bench_reading import PiCameraDelays, simulated_pi_camera
    from vision.devtools.table_film import Renderer, round_film
    from vision.table.watch import TableWatcher, seat_regions

    angles = [math.radians(90 + (i + 0.5) * 90) for i in range(4)]
    seats = [(0.5 + 0.36 * math.cos(a), 0.5 + 0.36 * math.sin(a)) for a in angles]
    film = round_film([["AS", "2H"], ["KS", "QH", "9C"], ["10D", "JC", "8S"], ["5C", "6D"]], seats, seed=1)
    renderer = Renderer(film)
    frames = [renderer.frame(i) for i in range(film.length)]
    # no sleeping in the camera: every frame is there at once (the figure is CPU, not waiting)
    delays = PiCameraDelays(start_s=0, frame_s=0, settle_frames=1, autofocus_s=0, capture_s=0, close_s=0)
    out: dict[str, list[float]] = {"base": [], "watch": [], "frame_ms": []}
    with simulated_pi_camera(frames, delays), PiCamera() as camera:
        size = camera.lores
        for _ in range(rounds):  # alternated, so a noisy neighbour hits both alike
            wall, cpu, _per = _loop(seconds, lambda t: None)
            out["base"].append(cpu / wall)
            watcher = TableWatcher(seat_regions(seats))

            def judge(t: float, watcher: TableWatcher = watcher) -> None:
                watcher.feed(camera.preview(), t)

            wall, cpu, per = _loop(seconds, judge)
            out["watch"].append(cpu / wall)
            out["frame_ms"] += [p * 1000 for p in per]
    base, watch = statistics.median(out["base"]), statistics.median(out["watch"])
    return {
        "lores_w": float(size[0]) if size else 0.0,
        "lores_h": float(size[1]) if size else 0.0,
        "fps": 1 / RATE_S,
        "base_core_pct": 100 * base,
        "watch_core_pct": 100 * watch,
        "watching_core_pct": 100 * (watch - base),
        "watching_pi5_est_pct": 100 * (watch - base) * PI5_FACTOR,
        "frame_ms_median": statistics.median(out["frame_ms"]),
        "frame_ms_p90": statistics.quantiles(out["frame_ms"], n=10)[-1],
        "watch_over_base": watch / base if base > 0 else float("inf"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.devtools.watch_bench", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="each loop's length (default 20)")
    parser.add_argument("--rounds", type=int, default=2, help="base/watch pairs, alternated (default 2)")
    args = parser.parse_args(argv)
    r = run(args.seconds, args.rounds)
    small = f"{r['lores_w']:.0f} x {r['lores_h']:.0f}"
    print(f"small frames {small} (the Pi's lores stream), {r['fps']:.0f} a second")
    print(f"baseline (ticks, no frames):  {r['base_core_pct']:.2f} % of one core")
    print(f"watching (frame + watcher):   {r['watch_core_pct']:.2f} % of one core")
    print(f"watching's own cost:          {r['watching_core_pct']:.2f} % of one core on this machine")
    print(f"Pi 5 (estimate, x {PI5_FACTOR}):       {r['watching_pi5_est_pct']:.2f} % of one core")
    print(f"per frame: median {r['frame_ms_median']:.2f} ms, p90 {r['frame_ms_p90']:.2f} ms (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
