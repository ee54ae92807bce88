"""How well a model reads index styles it may not have trained on: ``python -m models.probe``.

Draws procedural decks (:mod:`models.procedural`, with the fonts installed *now*) that the training data
may not hold, lays each of their 52 cards alone, upright, 200 px wide, on a plain 640x480 table (as
``tests/models/test_train_export.py`` does with a held-out SVG deck) and counts the cards whose top detection
names them. Decks are grouped by index shape: jumbo (index over 22.5 % of the card height), condensed
(ranks squeezed), both, or neither; ``beside`` decks (pip right of the rank) are skipped. A probe, not a
target: 3 decks a group by default, each a font and a style, so a group's figure says where to look.

    python -m models.probe [--onnx models/cards.onnx] [--first 128] [--per-group 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from models.classes import CLASS_CODES, JOKER
from models.decks import PROCEDURAL_TRAINED
from models.faces import FACE_WIDTH
from models.onnx_detect import SHIPPED_ONNX, OnnxCardDetector
from models.procedural import DeckPainter, DeckStyle, court_sources, deck_style, find_fonts, find_pip_fonts

GROUPS = ("jumbo + condensed", "jumbo", "condensed", "neither")
TABLE_BGR = (96, 120, 90)


def group_of(style: DeckStyle) -> str:
    jumbo = style.index_height > 0.225
    narrow = style.rank_xscale < 1
    return GROUPS[0] if jumbo and narrow else GROUPS[1] if jumbo else GROUPS[2] if narrow else GROUPS[3]


def on_table(face: np.ndarray, width: int = 200) -> np.ndarray:
    """A BGRA face ``width`` pixels wide, centred on a plain 640x480 table (BGR)."""
    photo = np.full((480, 640, 3), TABLE_BGR, np.uint8)
    card = cv2.resize(
        face, (width, round(face.shape[0] * width / face.shape[1])), interpolation=cv2.INTER_AREA
    )
    h, w = card.shape[:2]
    y, x = (480 - h) // 2, (640 - w) // 2
    alpha = card[:, :, 3:4].astype(np.float32) / 255
    roi = photo[y : y + h, x : x + w].astype(np.float32)
    photo[y : y + h, x : x + w] = (card[:, :, :3] * alpha + roi * (1 - alpha)).astype(np.uint8)
    return photo


def probe(
    det: OnnxCardDetector, faces: Path, first: int, per_group: int, seed: int, limit: int = 400
) -> dict[str, list[tuple[int, str, int]]]:
    """Per group: (deck number, rank font, cards named right of 52) for ``per_group`` decks from ``first``."""
    fonts, pip_fonts, sources = find_fonts(), find_pip_fonts(), court_sources(faces)
    found: dict[str, list[tuple[int, str, int]]] = {g: [] for g in GROUPS}
    for index in range(first, first + limit):
        if all(len(v) >= per_group for v in found.values()):
            break
        style = deck_style(seed, index, fonts, pip_fonts, sources)
        group = group_of(style)
        if style.beside or len(found[group]) >= per_group:
            continue
        painter = DeckPainter(style, FACE_WIDTH, faces)
        right = 0
        for code in CLASS_CODES:
            if code != JOKER:
                dets = det.detect(on_table(painter.face(code)))
                right += bool(dets and dets[0].code == code)
        found[group].append((index, style.rank_font.stem, right))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.probe", description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, default=SHIPPED_ONNX)
    parser.add_argument("--faces", type=Path, default=Path("datasets/faces"), help="court pictures")
    parser.add_argument(
        "--first",
        type=int,
        default=PROCEDURAL_TRAINED,
        help=f"first deck number ({PROCEDURAL_TRAINED}: after the trained ones)",
    )
    parser.add_argument("--per-group", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0, help="procedural seed (0: models.faces' default)")
    args = parser.parse_args(argv)
    if args.first < 0 or args.per_group < 1:
        print("--first must be >= 0 and --per-group >= 1", file=sys.stderr)
        return 2
    try:
        det = OnnxCardDetector(args.onnx, args.onnx.parent / "classes.json")
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.onnx}: single upright cards of procedural decks {args.first}+ (seed {args.seed})")
    for group, decks in probe(det, args.faces, args.first, args.per_group, args.seed).items():
        right, total = sum(r for _, _, r in decks), 52 * len(decks)
        detail = ", ".join(f"{i} {font} {r}/52" for i, font, r in decks)
        print(f"  {group:18} {right:>3}/{total:<3} {right / max(total, 1):.3f}  ({detail})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
