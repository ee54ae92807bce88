"""List the cameras TableTally can use, whether each is available, and why not.

The kiosk's "auto" camera takes the Pi camera, then a webcam, then the bundled demo photos: the first
available one in this list. Webcams are opened for a moment to check they deliver pictures
(--no-probe skips that). Exit status 0 when some camera is available, 1 when none is.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    parser.add_argument(
        "--no-probe", action="store_true", help="do not open webcams to check that they deliver pictures"
    )


def run(args: argparse.Namespace) -> int:
    from vision.cameras import list_cameras

    infos = list_cameras(probe_webcams=not args.no_probe)
    chosen = next((info for info in infos if info.available), None)
    if args.json:
        rows = [dataclasses.asdict(info) for info in infos]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        width = max(len(i.name) for i in infos)
        spec_width = max(len(i.spec) for i in infos)
        for info in infos:
            mark = "yes" if info.available else "no "
            print(f"{mark}  {info.name:<{width}}  {info.spec:<{spec_width}}  {info.reason}")
        if chosen is not None:
            print(f"auto uses: {chosen.name} ({chosen.spec})")
        else:
            print("auto uses: nothing; no camera is available")
    return 0 if chosen is not None else 1
