"""Write demo photos for end-to-end tests: ``python -m models.training.data.demo_photos --out vision/demo``.

Synthetic 1280x960 JPEGs of held-out designs only (never seen in training): whole tables of Jhyap hands, a
single hand and a Seep team's point cards, with ``truth.json``::

    {"table1.jpg": {"cards": [...], "hands": [[...], ...], "kind": "table", "decks": [...]}, ...}

``cards`` are the cards whose printed corner index is visible (readable) in the photo, ``hands`` the cards of
each hand as laid. Only scenes where every laid card shows at least one corner are kept, so the two agree.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2

from models.training.classes import CLASS_INDEX
from models.training.data.decks import Split
from models.training.data.scenes import SceneKind
from models.training.data.synth import DEFAULT_FACES, make_image

MAX_BYTES = 300_000
DEMOS: tuple[tuple[str, SceneKind], ...] = (
    ("table1.jpg", SceneKind.TABLE),
    ("table2.jpg", SceneKind.TABLE),
    ("hand1.jpg", SceneKind.HAND),
    ("seep1.jpg", SceneKind.SEEP),
)


def write_demos(out: Path, faces: Path = DEFAULT_FACES, seed: int = 2024) -> dict[str, dict[str, Any]]:
    out.mkdir(parents=True, exist_ok=True)
    truth: dict[str, dict[str, Any]] = {}
    index = 0
    for name, kind in DEMOS:
        while True:
            index += 1
            result, _ = make_image(seed, Split.VAL, index, faces, long_side=1280, kind=kind, frame=(640, 480))
            laid = sorted({c for hand in result.hands for c in hand}, key=CLASS_INDEX.__getitem__)
            wanted_hands = 3 if kind is SceneKind.TABLE else 1
            wanted_cards = 8 if kind is SceneKind.SEEP else 3
            if result.cards == laid and len(result.hands) >= wanted_hands and len(laid) >= wanted_cards:
                break
        for quality in (88, 80, 72, 64):
            ok, buf = cv2.imencode(".jpg", result.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
            if ok and len(buf) < MAX_BYTES:
                break
        (out / name).write_bytes(buf.tobytes())
        truth[name] = {
            "cards": result.cards,
            "hands": result.hands,
            "kind": result.kind,
            "decks": result.decks,
        }
    (out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return truth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.data.demo_photos", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=Path("vision/demo"))
    parser.add_argument("--faces", type=Path, default=DEFAULT_FACES)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    try:
        truth = write_demos(args.out, args.faces, args.seed)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name, t in truth.items():
        print(f"{name}: {len(t['cards'])} cards in {len(t['hands'])} hand(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
