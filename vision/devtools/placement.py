"""The camera's place, from a developer's seat: ``python -m vision.devtools.placement --table`` prints the
heights table of deploy/README.md and the widest views it names (:func:`widest_view`); ``--photo P [--lens
L]`` judges the camera by one photo (:func:`vision.table.placement.check_placement`, as the kiosk's camera
check does)."""

from __future__ import annotations

import argparse

from vision.pipeline import read_cards
from vision.reading.detector import CardDetector
from vision.table.placement import (
    BOX_PER_INDEX,
    GOOD_MODEL_PX,
    INDEX_MM,
    LENSES,
    MIN_MODEL_PX,
    check_placement,
    heights_table,
)


def widest_view(model_px: float = GOOD_MODEL_PX, imgsz: int = 576, index_mm: float = INDEX_MM) -> float:
    """Metres across the widest picture in which a corner still comes out ``model_px`` (a detected box,
    ``BOX_PER_INDEX`` times the index) in the model's ``imgsz`` view of the whole photo."""
    return imgsz * index_mm * BOX_PER_INDEX / model_px / 1000


def main(argv: list[str] | None = None) -> int:
    """``--table``: the heights table of deploy/README.md; ``--photo P``: judge the camera by a photo."""
    parser = argparse.ArgumentParser(prog="python -m vision.devtools.placement", description=main.__doc__)
    parser.add_argument("--table", action="store_true", help="print the heights table (markdown)")
    parser.add_argument(
        "--photo", help="read this photo with the kiosk's detector and judge the camera's place"
    )
    parser.add_argument(
        "--lens", choices=[lens.key for lens in LENSES], help="the camera module that took it"
    )
    args = parser.parse_args(argv)
    if args.photo:
        detector = CardDetector()
        reading = read_cards(args.photo, detector)
        lens = next((lens for lens in LENSES if lens.key == args.lens), None)
        placement = check_placement(reading.cards, reading.width, reading.height, None, detector.imgsz, lens)
        print(f"{args.photo}: {placement.verdict}: {placement.summary()}")
    if args.table or not args.photo:
        print(heights_table())
        print(
            f"\nthe widest picture a corner reads well in spans no more than about {widest_view():.2f} m; "
            f"the reading loses cards beyond about {widest_view(MIN_MODEL_PX):.2f} m"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
