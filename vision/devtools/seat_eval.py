"""How many cards go to the right player: hands found by clusters (the grouping before seats) against
hands given to seats (:mod:`vision.table.seats`).

    python -m vision.devtools.seat_eval                         # the synthetic tables kept as test data (true
    corners)
    python -m vision.devtools.seat_eval --demo                  # also the demo tables, read by the shipped
    model
    python -m vision.devtools.seat_eval --truth DIR/truth/val.jsonl --images DIR/images/val   # a synth set,
    read

Every scene is a whole table whose hands are known. Seats are what the kiosk would learn: ``taps`` puts a
seat on each hand's centre (a player tapping where they sit), ``taps, rough`` moves each tap by up to a
tenth of the photo, ``layout`` seats the players evenly round a round table turned to fit the hands (the
layout chosen with the kiosk on the right side). Clusters get their best rotation (what "Rotate seats"
fixed). A card is right when it lands with its own player; a card read wrongly or missed is not counted.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.base.types import Box, DetectedCard, Detection
from vision.table.cards import cards_from_detections, group_into_hands
from vision.table.seats import DEFAULT_SEAT_RULES, SeatMap, SeatRules, assign_to_seats, from_taps

CORNERS = Path(__file__).resolve().parents[2] / "tests" / "vision" / "data" / "synthetic_corners.json"


@dataclass(frozen=True)
class Table:
    name: str
    width: int
    height: int
    cards: tuple[DetectedCard, ...]
    hands: tuple[tuple[str, ...], ...]  # the codes of each player's hand, in seating order round the table

    def owner(self, code: str) -> int | None:
        return next((i for i, h in enumerate(self.hands) if code in h), None)


def tables_from_corners(path: Path = CORNERS) -> list[Table]:
    """The whole-table scenes kept as test data, their true corner boxes taken as detections."""
    data = json.loads(path.read_text())
    out = []
    for s in data["scenes"]:
        if s["kind"] != "table" or len(s["hands"]) < 2:
            continue
        corners = s["corners"]
        if isinstance(corners, str):
            import ast

            corners = ast.literal_eval(corners)
        dets = [Detection(c[0], 1.0, (c[1], c[2], c[3], c[4])) for c in corners]
        h, w = s["size"]
        out.append(
            Table(
                f"corners-{s['seed']}",
                w,
                h,
                tuple(cards_from_detections(dets)),
                tuple(map(tuple, s["hands"])),
            )
        )
    return out


def tables_from_labels(truth: Path, images: Path, labels: Path) -> list[Table]:
    """The whole tables of a synth set, their true corner boxes (the YOLO labels) taken as detections."""
    import cv2

    from scorer.cards import CARD_CODES

    out = []
    for line in truth.read_text().splitlines():
        row = json.loads(line)
        if row.get("kind") != "table" or len(row.get("hands", [])) < 2:
            continue
        image = cv2.imread(str(images / row["image"]))
        if image is None:
            raise FileNotFoundError(f"{images / row['image']}: not an image")
        h, w = image.shape[:2]
        dets = []
        for label in (labels / Path(row["image"]).with_suffix(".txt").name).read_text().splitlines():
            k, cx, cy, bw, bh = label.split()
            x, y, bw_px, bh_px = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
            box = (x - bw_px / 2, y - bh_px / 2, x + bw_px / 2, y + bh_px / 2)
            dets.append(Detection(CARD_CODES[int(k)], 1.0, box))
        hands = tuple(tuple(hand) for hand in row["hands"])
        out.append(Table(row["image"], w, h, tuple(cards_from_detections(dets)), hands))
    return out


def tables_read(photos: Sequence[tuple[Path, Sequence[Sequence[str]]]], detector: Any) -> list[Table]:
    """Whole tables read by the kiosk's pipeline (the shipped model)."""
    from vision.pipeline import read_cards

    out = []
    for path, hands in photos:
        reading = read_cards(path, detector)
        out.append(Table(path.name, reading.width, reading.height, reading.cards, tuple(map(tuple, hands))))
    return out


def _centre(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def hand_centres(table: Table) -> list[tuple[float, float]]:
    """The middle of each hand's cards as read, in fractions of the photo (the truth's hands)."""
    out = []
    for i in range(len(table.hands)):
        pts = [_centre(c.box) for c in table.cards if table.owner(c.code) == i]
        if not pts:
            pts = [(table.width / 2, table.height / 2)]
        out.append(
            (
                sum(p[0] for p in pts) / len(pts) / table.width,
                sum(p[1] for p in pts) / len(pts) / table.height,
            )
        )
    return out


def seats_from_taps(table: Table, rough: float = 0.0, rng: random.Random | None = None) -> SeatMap:
    pts = []
    for x, y in hand_centres(table):
        if rough and rng is not None:
            a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0, rough)
            x, y = x + r * math.cos(a), y + r * math.sin(a)
        pts.append((min(1.0, max(0.0, x)), min(1.0, max(0.0, y))))
    try:
        return from_taps(pts)
    except ValueError:
        return from_taps([(0.5 + 0.3 * math.cos(i), 0.5 + 0.3 * math.sin(i)) for i in range(len(pts))])


def seats_from_layout(table: Table) -> SeatMap:
    """Evenly round a round table, turned so the seats fit the hands best (the kiosk's side chosen)."""
    n = len(table.hands)
    step = 2 * math.pi / n
    centres = hand_centres(table)
    # The camera aimed at the middle of the table: the middle of the hands.
    mx = (min(x for x, _ in centres) + max(x for x, _ in centres)) / 2
    my = (min(y for _, y in centres) + max(y for _, y in centres)) / 2
    angles = [math.atan2(y - my, x - mx) for x, y in centres]
    # Seats go round the table in order; the players name them in the order they sit.
    ring = sorted(range(n), key=angles.__getitem__)
    angles = [angles[i] for i in ring]
    turn = math.atan2(
        sum(math.sin(a - i * step) for i, a in enumerate(angles)),
        sum(math.cos(a - i * step) for i, a in enumerate(angles)),
    )
    at = {
        h: (mx + 0.3 * math.cos(turn + k * step), my + 0.3 * math.sin(turn + k * step))
        for k, h in enumerate(ring)
    }
    seats = tuple((min(1.0, max(0.0, at[i][0])), min(1.0, max(0.0, at[i][1]))) for i in range(n))
    return SeatMap(seats, (mx, my))


def clusters_right(table: Table) -> tuple[int, int]:
    """Cards right with clusters, as the kiosk did before seats: clockwise from the bottom, best rotation."""
    cards = [c for c in table.cards if table.owner(c.code) is not None]
    if not cards:
        return 0, 0
    n = len(table.hands)
    groups = group_into_hands(cards, n)

    # Cluster -> player: the clusters clockwise round the photo's centre, then the best turn of that ring
    # (and the ring's direction the truth's hands were laid in).
    def angle(g: Sequence[int]) -> float:
        x = sum(_centre(cards[i].box)[0] for i in g) / len(g) - table.width / 2
        y = sum(_centre(cards[i].box)[1] for i in g) / len(g) - table.height / 2
        return math.atan2(y, x)

    ring = sorted(range(len(groups)), key=lambda g: angle(groups[g]))
    best = 0
    for shift in range(n):
        for direction in (1, -1):
            right = 0
            for k, g in enumerate(ring):
                player = (shift + direction * k) % n
                right += sum(1 for i in groups[g] if table.owner(cards[i].code) == player)
            best = max(best, right)
    return best, len(cards)


def seats_right(
    table: Table, seat_map: SeatMap, rules: SeatRules = DEFAULT_SEAT_RULES, clusters: bool = False
) -> tuple[int, int]:
    cards = [c for c in table.cards if table.owner(c.code) is not None]
    groups = group_into_hands(cards, len(seat_map)) if clusters else None
    got = assign_to_seats([c.box for c in cards], seat_map, table.width, table.height, rules, groups)
    return sum(1 for c, s in zip(cards, got, strict=True) if s == table.owner(c.code)), len(cards)


def measure(
    tables: Sequence[Table], rules: SeatRules = DEFAULT_SEAT_RULES
) -> dict[str, tuple[int, int, int]]:
    """Per method: cards right, cards, tables entirely right."""
    rng = random.Random(5)
    methods: dict[str, Callable[[Table], tuple[int, int]]] = {
        "clusters (before)": clusters_right,
        "seats from taps": lambda t: seats_right(t, seats_from_taps(t), rules),
        "seats from rough taps": lambda t: seats_right(t, seats_from_taps(t, 0.1, rng), rules),
        "seats from a layout": lambda t: seats_right(t, seats_from_layout(t), rules),
        "clusters to seats, taps": lambda t: seats_right(t, seats_from_taps(t), rules, clusters=True),
        "clusters to seats, layout": lambda t: seats_right(t, seats_from_layout(t), rules, clusters=True),
    }
    out = {}
    for name, fn in methods.items():
        right = total = whole = 0
        for t in tables:
            r, n = fn(t)
            right, total, whole = right + r, total + n, whole + (r == n)
        out[name] = (right, total, whole)
    return out


def _report(title: str, tables: Sequence[Table], rules: SeatRules) -> None:
    print(f"{title}: {len(tables)} tables, {sum(len(t.hands) for t in tables)} hands")
    for name, (right, total, whole) in measure(tables, rules).items():
        share = right / total if total else 0.0
        print(
            f"  {name:24s} {right:4d} of {total:4d} cards right ({share:.3f}), "
            f"{whole} of {len(tables)} tables whole"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.devtools.seat_eval", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--demo", action="store_true", help="also the demo tables, read by the shipped model")
    parser.add_argument("--truth", type=Path, help="a synth truth file (jsonl) of whole tables to read")
    parser.add_argument("--images", type=Path, help="the folder of its images")
    parser.add_argument("--turn", type=float, default=DEFAULT_SEAT_RULES.turn)
    parser.add_argument("--touch", type=float, default=DEFAULT_SEAT_RULES.touch)
    parser.add_argument("--by", default=DEFAULT_SEAT_RULES.by, choices=["angle", "distance"])
    parser.add_argument("--no-read", action="store_true", help="true corners only: no detector")
    args = parser.parse_args(argv)
    rules = SeatRules(turn=args.turn, touch=args.touch, by=args.by)
    _report(
        "synthetic tables, true corners (tests/vision/data/synthetic_corners.json)",
        tables_from_corners(),
        rules,
    )
    photos: list[tuple[Path, list[list[str]]]] = []
    if args.demo:
        from vision.cameras import DEMO_DIR

        truth = json.loads((DEMO_DIR / "truth.json").read_text())
        photos += [
            (DEMO_DIR / name, [h for h in t["hands"] if h])
            for name, t in truth.items()
            if t["kind"] == "table"
        ]  # a seat with no hand: a player who is out
    if args.truth:
        images = args.images or args.truth.parent.parent / "images" / args.truth.stem
        for line in args.truth.read_text().splitlines():
            row = json.loads(line)
            if row.get("kind") == "table" and len(row.get("hands", [])) >= 2:
                photos.append((images / row["image"], row["hands"]))
    if args.truth:
        labels = (
            args.images or args.truth.parent.parent / "images" / args.truth.stem
        ).parent.parent / "labels"
        labels = labels / args.truth.stem
        if labels.is_dir():
            images = args.images or args.truth.parent.parent / "images" / args.truth.stem
            _report(
                f"synthetic tables, true corners ({args.truth})",
                tables_from_labels(args.truth, images, labels),
                rules,
            )
    if photos and not args.no_read:
        from vision.reading.detector import CardDetector

        _report("whole tables read by the shipped model", tables_read(photos, CardDetector().load()), rules)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
