"""The README's pictures of the kiosk, picked from the demo's screenshots (``make demo``) and made small:
the check screen, the scoreboard between rounds, game over (800x480), and the phones' page.

    python -m ui.devtools.readme_shots screenshots docs/images
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# (the demo's screenshot, by the end of its name; the README's file; its width in pixels)
PICKS = (
    ("landscape", "-round1-ready.png", "check-screen.png", 480),
    ("landscape", "-round3-start.png", "between-rounds.png", 480),
    ("landscape", "-game-over.png", "game-over.png", 480),
    ("phone", "jhyap-portrait-light.png", "phones-page.png", 200),
)


def pick(shots: Path, out: Path) -> list[Path]:
    """Write the README's pictures from the demo's ``shots``; every one must be there."""
    import cv2

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for folder, ending, name, width in PICKS:
        found = sorted(p for p in (shots / folder).glob("*.png") if p.name.endswith(ending))
        if not found:
            raise SystemExit(f"no screenshot ending in {ending} in {shots / folder}: run make demo first")
        image = cv2.imread(str(found[0]), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"{found[0]} is not an image")
        h, w = image.shape[:2]
        small = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
        target = out / name
        cv2.imwrite(str(target), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ui.devtools.readme_shots", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("shots", type=Path, help="the demo's screenshots (make demo: screenshots)")
    parser.add_argument("out", type=Path, help="where the README's pictures go (docs/images)")
    args = parser.parse_args(argv)
    for path in pick(args.shots, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
