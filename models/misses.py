"""Why the kiosk misses the cards it misses, on held-out synthetic photos.

``python -m models.misses [--data DIR] [--model M.onnx] [--limit N] [--out FILE.md]``

Each held-out photo is read as the kiosk reads it (:class:`vision.detector.CardDetector` with its
defaults: auto tiling, two turns, the corner reader), and every card of the truth that the reading leaves
out is put down to the first step that lost it, from the candidates the detector handed the corner reader
(after the views' vote and the reader's floor, :attr:`~vision.detector.CardDetector.candidate_conf`):

* ``not found``: no candidate overlaps any labelled corner of the card (IoU >= :data:`CORNER_IOU`);
* ``another card``: candidates overlap it, but none scores this card up to the floor (the detector read
  the spot as something else, or too faintly);
* ``reader disagreed``: a candidate scores it over the floor, but merged with the corner reader's
  probability (:func:`vision.detector.merge_reading`) it falls under the threshold;
* ``suppressed``: it passes the merge, and an overlapping corner read as another card wins the
  non-maximum suppression.

The report counts the causes overall, by scene kind and by the card's largest corner's height (from the
truth's readability records, :mod:`models.readability`), and names what the spot was read as instead. It
measures the kiosk's own pipeline, so it says which lever a remaining miss needs: a better detector (not
found, another card) or a better reading of what it found (the reader, the suppression).
"""

from __future__ import annotations

import argparse
import enum
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.evaluate import CORNER_IOU, EvalError, load_truth, read_photo, read_yolo_labels
from models.onnx_detect import SHIPPED_ONNX
from models.readability import card_views, height_bin, height_bins
from vision.detector import CardDetector, box_iou_one, merge_reading

REPO = Path(__file__).resolve().parent.parent


class Cause(enum.StrEnum):
    NOT_FOUND = "not found"
    ANOTHER_CARD = "another card"
    READER = "reader disagreed"
    SUPPRESSED = "suppressed"


@dataclass(frozen=True)
class Candidates:
    """What the detector handed the corner reader in one photo: boxes (Nx4, photo pixels), the views'
    fused class scores (NxC) and the reader's card probabilities (NxC, the detector's class order)."""

    boxes: np.ndarray
    scores: np.ndarray
    reader: np.ndarray

    @classmethod
    def empty(cls, n_classes: int) -> Candidates:
        none = np.zeros((0, n_classes), np.float32)
        return cls(np.zeros((0, 4), np.float32), none, none)


@dataclass(frozen=True)
class Miss:
    """One card the reading left out, why, and what its spot was read as (the best candidate's top card
    there after the merge, or None)."""

    image: str
    kind: str
    code: str
    cause: Cause
    read_as: str | None
    height: float | None  # its largest labelled corner's height (px), when the truth records it


def cause_of(
    corners: Sequence[tuple[float, float, float, float]],
    cls: int,
    cand: Candidates,
    floor: float,
    conf: float,
) -> tuple[Cause, int | None]:
    """Why the card of class index ``cls``, whose labelled corners are ``corners`` (xyxy), was not read
    from ``cand``; and the class its spot's best overlapping candidate was read as after the merge (None
    when nothing overlaps). See the module's docstring for the causes, checked in that order."""
    if not corners or len(cand.boxes) == 0:
        return Cause.NOT_FOUND, None
    near = np.zeros(len(cand.boxes), dtype=bool)
    for box in corners:
        near |= box_iou_one(np.asarray(box, np.float32), cand.boxes) >= CORNER_IOU
    if not near.any():
        return Cause.NOT_FOUND, None
    scores, merged = cand.scores[near], merge_reading(cand.scores[near], cand.reader[near])
    top = int(merged.max(axis=0).argmax())
    if scores[:, cls].max() < floor:
        return Cause.ANOTHER_CARD, top
    if merged[:, cls].max() < conf:
        return Cause.READER, top
    return Cause.SUPPRESSED, top


class TracingDetector(CardDetector):
    """The kiosk's detector, keeping the candidates it handed the corner reader in the last photo."""

    last: Candidates | None = None

    def reread(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        self.last = None  # a tiled photo is reread twice: the second reading is the one returned
        return super().reread(image, boxes, scores)

    def reader_opinion(
        self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        boxes, scores, cards = super().reader_opinion(image, boxes, scores)
        self.last = Candidates(boxes, scores, cards)
        return boxes, scores, cards


def find_misses(det: TracingDetector, data: Path, rows: Sequence[dict[str, Any]]) -> tuple[list[Miss], int]:
    """Every card of ``rows`` (held-out truth) the detector's reading leaves out, with its cause; and how
    many photos it read exactly."""
    if det.reader is None:
        raise EvalError("the causes need the corner reader: give a reader model, not off")
    det.load()
    misses: list[Miss] = []
    exact = 0
    for row in rows:
        image = read_photo(data / "images" / "val" / str(row["image"]))
        got = {d.code for d in det.detect(image)}
        want = set(row["cards"])
        exact += got == want
        if not want - got:
            continue
        h, w = image.shape[:2]
        labels = read_yolo_labels(data / "labels" / "val" / f"{Path(str(row['image'])).stem}.txt", w, h)
        views = card_views(row) if "corners" in row else {}
        cand = det.last or Candidates.empty(len(det.codes))
        for code in sorted(want - got):
            corners = [box for c, box in labels if c == code]
            why, top = cause_of(corners, det.codes.index(code), cand, det.candidate_conf, det.conf)
            view = views.get(code)
            misses.append(
                Miss(
                    str(row["image"]),
                    str(row.get("kind", "")),
                    code,
                    why,
                    None if top is None else det.codes[top],
                    None if view is None else view.height,
                )
            )
    return misses, exact


def render(misses: Sequence[Miss], photos: int, exact: int, cards: int, model: Path, data: Path) -> str:
    """The report (Markdown): the causes overall, by kind, by corner height, and the spots' readings."""
    causes = list(Cause)
    lines = [
        "# Why the kiosk misses cards",
        "",
        f"Model {model}, held-out photos {data} ({photos}; read exactly {exact}, "
        f"{exact / max(1, photos):.3f}); cards in the truth {cards}, missed {len(misses)}.",
        "",
        "| cause | cards | share of the misses |",
        "|---|---|---|",
    ]
    total = Counter(m.cause for m in misses)
    for c in causes:
        lines.append(f"| {c} | {total[c]} | {total[c] / max(1, len(misses)):.2f} |")

    def table(title: str, groups: dict[str, Counter[Cause]], order: Sequence[str]) -> None:
        lines.extend(["", f"| {title} | " + " | ".join(causes) + " |", "|---|" + "---|" * len(causes)])
        for k in order:
            if k in groups:
                lines.append(f"| {k} | " + " | ".join(str(groups[k][c]) for c in causes) + " |")

    by_kind: dict[str, Counter[Cause]] = defaultdict(Counter)
    by_height: dict[str, Counter[Cause]] = defaultdict(Counter)
    for m in misses:
        by_kind[m.kind][m.cause] += 1
        by_height["no record" if m.height is None else height_bin(m.height)][m.cause] += 1
    table("scene kind", by_kind, sorted(by_kind))
    table("largest corner", by_height, [*height_bins(), "no record"])
    swaps = Counter(f"{m.code}->{m.read_as}" for m in misses if m.read_as is not None and m.read_as != m.code)
    if swaps:
        lines.extend(["", "Read there instead (truth->read, the spot's best candidate after the merge): "])
        lines[-1] += ", ".join(f"{k} {n}" for k, n in swaps.most_common(12)) + "."
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.misses", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO / "datasets" / "synth", help="synthetic dataset")
    parser.add_argument("--model", type=Path, default=SHIPPED_ONNX, help="the detector (.onnx)")
    parser.add_argument("--reader", help="the corner reader (default: the kiosk's, models/reader.onnx)")
    parser.add_argument("--conf", type=float, help="threshold (default: the model's classes.json)")
    parser.add_argument("--limit", type=int, help="at most this many photos")
    parser.add_argument("--out", type=Path, help="also write the report here (Markdown) and FILE.json")
    args = parser.parse_args(argv)
    try:
        rows = load_truth(args.data, args.limit)
        det = TracingDetector(args.model, conf=args.conf, reader=args.reader)
        misses, exact = find_misses(det, args.data, rows)
    except (EvalError, FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = render(misses, len(rows), exact, sum(len(r["cards"]) for r in rows), args.model, args.data)
    print(report, end="")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
        payload = [asdict(m) for m in misses]
        args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
