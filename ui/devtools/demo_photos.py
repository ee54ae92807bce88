"""Write the bundled demo photos (vision/demo/) from the demo's scripted rounds, with the synthetic renderer:

    python -m ui.devtools.demo_photos --faces datasets/faces [--out vision/demo] [--seed 62]

One photo per scripted Jhyap round (``round1.jpg`` ...: ``ui.devtools.demo.ROUNDS``) with each player's hand
laid in front of their seat, the seats being the kiosk's default layout for the demo's players ("round a
table", the kiosk at the bottom: ``vision.table.seats.layout``); a player who is out has no hand there. And
one photo per scripted Seep deal (``seep1.jpg`` ...: ``DEALS``) with each scanned team's point cards on its
half of the table (the kiosk's ``HALVES``: the first team's on the near half). The cards are drawn by
``models.training.data`` (held-out designs only, never seen in training) with its table surfaces and camera
effects; ``truth.json`` says what each photo shows::

    {"round1.jpg": {"kind": "table", "players": 4, "hands": [[...], [], ...], "cards": [...], "decks": [...]},
     "seep1.jpg": {"kind": "seep", "hands": [[...A], [...B]], "cards": [...], "decks": [...]}, ...}

``hands`` by seat (seating order of the layout of ``players`` seats; an empty list for a seat with no hand)
or by team; ``cards`` every card whose corner index shows, sorted. A photo is drawn again (the next draw of
the same seed) until every laid card shows a corner index whole, so ``cards`` holds every card laid. The
photos' names sort in the order the demo plays them, so the folder camera of ``make run`` shows round 1
first. The faces come from ``python -m models.training.data.faces --out DIR --decks ais-anglo_modern_4_color
ais-tigullio --procedural 0`` (a few minutes).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.training.classes import CLASS_INDEX
from models.training.data.decks import decks_by_name
from models.training.data.scenes import Face, FaceLibrary, Placement, render_scene
from ui.devtools.demo_data import DEALS, MAX_SCORE, PLAYERS, ROUNDS
from ui.logic.seep_deal import HALVES
from vision.table.seats import SeatMap, layout

WIDTH, HEIGHT = 1280, 960  # a 4:3 photo, the Pi camera's still aspect
CARD_H = 0.2  # card height as a share of the photo's height (the renderer's tables: 0.19 to 0.3)
JPEG_QUALITY = 76
MAX_BYTES = 190_000
MAX_DRAWS = 40
DECKS = ("ais-anglo_modern_4_color", "ais-tigullio")  # held-out designs with jokers


def _row(n: int, aspect: float, rng: np.random.Generator) -> list[tuple[float, float, float]]:
    """A hand laid as a row, each card over the one before, far enough apart that every card's top-left
    corner index shows: (dx, dy, angle) in card heights round the hand's centre, the hand upright."""
    step = rng.uniform(0.42, 0.52) / aspect
    return [((i - (n - 1) / 2) * step, float(rng.normal(0, 0.02)), float(rng.normal(0, 3))) for i in range(n)]


def _lay(
    faces: Sequence[Face], towards: tuple[float, float], reach: float, rng: np.random.Generator
) -> list[Placement]:
    """One hand (or pile) in front of a seat at ``towards`` (photo fractions), ``reach`` of the way out from
    the centre, turned to face that seat (upright as its player sees it)."""
    sx, sy = (towards[0] - 0.5) * WIDTH, (towards[1] - 0.5) * HEIGHT
    a = math.atan2(sy, sx)
    cx, cy = WIDTH / 2 + sx * reach, HEIGHT / 2 + sy * reach
    angle = 90 - math.degrees(a) + float(rng.normal(0, 4))  # as models.training.data.scenes lays a table
    height = CARD_H * HEIGHT * rng.uniform(0.95, 1.08)
    aspect = faces[0].image.shape[0] / faces[0].image.shape[1]
    r = math.radians(angle)
    c, s = math.cos(r), math.sin(r)
    out = []
    for face, (dx, dy, da) in zip(faces, _row(len(faces), aspect, rng), strict=True):
        x, y = dx * height, dy * height
        out.append(Placement(face, cx + c * x + s * y, cy - s * x + c * y, height, angle + da))
    return out


def _draw(
    library: FaceLibrary,
    deck: str,
    groups: Sequence[tuple[Sequence[str], tuple[float, float], float]],
    seed: int,
) -> tuple[np.ndarray, list[str]] | None:
    """The photo of ``groups`` (cards, seat, reach) on a table and the cards laid; None when a laid card
    shows no whole corner index (a hand over another, or cut at the border)."""
    rng = np.random.default_rng(seed)
    faces = library.deck_faces(decks_by_name()[deck])
    placements: list[Placement] = []
    for codes, seat, reach in groups:
        if codes:
            placements += _lay([faces[c] for c in codes], seat, reach, rng)
    tilt = float(rng.uniform(0, 0.03))
    image, _labels, visible = render_scene(rng, placements, WIDTH, HEIGHT, tilt, clutter=0)
    laid = sorted({c for codes, _, _ in groups for c in codes}, key=CLASS_INDEX.__getitem__)
    return (image, laid) if visible == laid else None


def _jpeg(image: np.ndarray) -> bytes | None:
    """The photo as a JPEG of at most MAX_BYTES (the best quality that fits), or None (a noisy draw)."""
    for quality in range(JPEG_QUALITY, 50, -6):
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok and len(buf) <= MAX_BYTES:
            return bytes(buf.tobytes())
    return None


def photo_plan() -> list[tuple[str, dict[str, Any], list[tuple[list[str], tuple[float, float], float]]]]:
    """(file name, truth without the cards, the groups to lay) of every demo photo, in the demo's order."""
    plan: list[tuple[str, dict[str, Any], list[tuple[list[str], tuple[float, float], float]]]] = []
    seats = layout(len(PLAYERS), "round", "bottom").seats
    for number, (_caller, hands) in enumerate(ROUNDS, 1):
        by_seat = [sorted(hands.get(p, []), key=CLASS_INDEX.__getitem__) for p in PLAYERS]
        truth = {"kind": "table", "players": len(PLAYERS), "hands": by_seat}
        plan.append(
            (f"round{number}.jpg", truth, [(h, seat, 0.85) for h, seat in zip(by_seat, seats, strict=True)])
        )
    for number, (captured, _sweeps) in enumerate(DEALS, 1):
        piles = [sorted(captured.get(t) or [], key=CLASS_INDEX.__getitem__) for t in ("A", "B")]
        # Each pile laid in rows of up to 6 on its half of the table: one row across its middle, or two
        # rows apart (the far one by the edge, the near one by the middle line).
        groups = []
        for pile, seat in zip(piles, HALVES.seats, strict=True):
            rows = [pile[i : i + 6] for i in range(0, len(pile), 6)]
            reaches = (0.75,) if len(rows) == 1 else (1.15, 0.38)
            groups += [(row, seat, reach) for row, reach in zip(rows, reaches, strict=False)]
        plan.append((f"seep{number}.jpg", {"kind": "seep", "hands": piles}, groups))
    return plan


def seats_of(entry: dict[str, Any]) -> SeatMap:
    """The seats a photo's cards go to, as the kiosk has them: the players still in round a table laid
    out for all of them, or the two Seep halves."""
    if entry["kind"] == "seep":
        return HALVES
    full = layout(int(entry["players"]), "round", "bottom")
    return full.only([i for i, hand in enumerate(entry["hands"]) if hand])


def round_logs() -> list[dict[str, Any]]:
    """The demo game's log before each scripted round (its players, "Out above" and the rounds before), so
    a round is read with the players still in as the kiosk has them."""
    from ui.logic import games

    log = games.new_jhyap_log(PLAYERS, None, None, {"max_score": MAX_SCORE})
    logs = []
    for caller, hands in ROUNDS:
        logs.append(log)
        log = {**log, "rounds": [*log["rounds"], games.jhyap_entry(caller, hands)]}
    return logs


def read_as_kiosk(
    entry: dict[str, Any], image: np.ndarray, detector: Any, log: dict[str, Any]
) -> list[list[str]]:
    """The cards the kiosk gives each seat (or team) of a photo, sorted: read with its reading
    (``vision.pipeline.read_cards``: the players still in as the hands, the game's packs) and put where they
    lie by the round's (or deal's) own flow, as one scan of the whole table. ``log``: the game before it."""
    from ui.logic.jhyap_round import TABLE, JhyapRoundFlow
    from ui.logic.scan import reading_to_scan
    from ui.logic.seep_deal import BOTH, SeepDealFlow
    from vision.pipeline import read_cards

    flow: JhyapRoundFlow | SeepDealFlow
    if entry["kind"] == "seep":
        flow = SeepDealFlow(log)
        target, n = BOTH, 2
    else:
        flow = JhyapRoundFlow(log)
        flow.seat_map = layout(len(flow.players), "round", "bottom")
        target, n = TABLE, len(flow.active)
    reading = read_cards(image, detector, n_hands=n, decks=flow.decks)
    flow.apply_scan(reading_to_scan(target, reading, image, "demo"))
    if any(c.needs_look for pile in flow.piles.values() for c in pile or []):
        return []  # read, but in doubt: the players would be asked to look
    codes = flow.codes()
    keys = list(flow.players) if isinstance(flow, JhyapRoundFlow) else list(codes)
    return [sorted(codes.get(k) or [], key=CLASS_INDEX.__getitem__) for k in keys]


def write_demos(out: Path, faces: Path, seed: int = 62, check: bool = True) -> dict[str, dict[str, Any]]:
    """Draw every demo photo into ``out`` with ``truth.json``; each photo from its own generator. With
    ``check``, a draw the shipped model does not read right (cards, seats, any doubt) is drawn again, so
    the demo's first scans need no fixing; ``draw`` in the truth says how many draws went before."""
    library = FaceLibrary(faces, tuple(decks_by_name()[d] for d in DECKS))
    detector = None
    if check:
        from vision.reading.detector import detector_for_runtime

        detector = detector_for_runtime().load()
    from ui.logic import games

    logs = round_logs()
    seep = games.new_seep_log({"A": PLAYERS[0::2], "B": PLAYERS[1::2]}, {})
    out.mkdir(parents=True, exist_ok=True)
    truth: dict[str, dict[str, Any]] = {}
    for index, (name, entry, groups) in enumerate(photo_plan()):
        log = logs[index] if entry["kind"] == "table" else seep
        deck = DECKS[index % len(DECKS)]
        misread = 0
        for draw in range(MAX_DRAWS):
            drawn = _draw(library, deck, groups, seed * 1000 + index * 100 + draw)
            jpeg = _jpeg(drawn[0]) if drawn is not None else None
            if drawn is None or jpeg is None:
                continue
            if detector is None:
                break
            decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            if decoded is not None and read_as_kiosk(entry, decoded, detector, log) == entry["hands"]:
                break
            misread += 1
        else:
            raise ValueError(f"{name}: no draw in {MAX_DRAWS} shows every card's corner and reads right")
        laid = drawn[1]
        (out / name).write_bytes(jpeg)
        truth[name] = {**entry, "cards": laid, "decks": [deck], "draw": draw}
        print(f"{name}: draw {draw} ({misread} drawn before read wrongly)", file=sys.stderr, flush=True)
    for old in out.glob("*.jpg"):
        if old.name not in truth:
            old.unlink()
    (out / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return truth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ui.devtools.demo_photos", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=Path("vision/demo"))
    parser.add_argument("--faces", type=Path, default=Path("datasets/faces"))
    parser.add_argument("--seed", type=int, default=62)
    parser.add_argument("--no-check", action="store_true", help="keep the first draw the model is not asked")
    args = parser.parse_args(argv)
    try:
        truth = write_demos(args.out, args.faces, args.seed, check=not args.no_check)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name, t in truth.items():
        size = (args.out / name).stat().st_size
        print(f"{name}: {len(t['cards'])} cards, hands {[len(h) for h in t['hands']]}, {size // 1000} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
