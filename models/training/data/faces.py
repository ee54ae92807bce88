"""Render every card face of every deck once into a cache of PNGs, and find each face's corner index.

``python -m models.training.data.faces --out datasets/faces`` renders, with ``rsvg-convert``, each card
(52 + joker where
the
deck has one) and the back of every installed deck in :data:`models.training.data.decks.ALL_DECKS` to
``OUT/<deck>/<code>.png`` (RGBA, cropped to the opaque pixels, fixed width), then measures the corner-index
box of every face and writes ``OUT/<deck>/corners.json``. Scene synthesis only composites these PNGs, so
thousands of photos take minutes.

It then draws ``--procedural N`` procedural decks (default 128, :mod:`models.training.data.procedural`)
into the same folder
as ``OUT/proc-00`` ... (same files; their court pictures come from the SVG renders, so those go first).
``--only-procedural`` draws just those into an existing cache; ``--procedural 0`` draws none.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.training.classes import JOKER
from models.training.data.decks import (
    ALL_DECKS,
    PROCEDURAL_TRAINED,
    Deck,
    decks_by_name,
    installed_decks,
    procedural_decks,
)
from scorer.cards import CARD_CODES

FACE_WIDTH = 320
BACK = "back"
CORNERS_FILE = "corners.json"
SHEET_CODES = ["AS", "7S", "10H", "QH", "KD", "3C", "JC", JOKER, BACK]


class RenderError(RuntimeError):
    """rsvg-convert failed or produced an unusable image for one card."""


@dataclass(frozen=True)
class RenderJob:
    deck: str
    svg: Path
    element: str
    out: Path
    width: int


def _crop_to_opaque(rgba: np.ndarray, where: str) -> np.ndarray:
    alpha = rgba[:, :, 3]
    ys, xs = np.nonzero(alpha > 8)
    if len(xs) == 0:
        raise RenderError(f"{where}: rendered image is fully transparent")
    return rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _rsvg(job: RenderJob, zoom: float, tmp: Path) -> np.ndarray:
    cmd = ["rsvg-convert", "-i", job.element, "-z", f"{zoom:.4f}", "-o", str(tmp), str(job.svg)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    where = f"{job.deck}/{job.element}"
    if proc.returncode != 0 or not tmp.is_file():
        raise RenderError(f"{where}: rsvg-convert failed: {proc.stderr.strip()[:200]}")
    img = cv2.imread(str(tmp), cv2.IMREAD_UNCHANGED)
    tmp.unlink(missing_ok=True)
    if img is None:
        raise RenderError(f"{where}: rsvg-convert output is not a readable PNG")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return _crop_to_opaque(img, where)


def render_element(job: RenderJob) -> Path:
    """Render one SVG element to a cropped RGBA PNG of width ``job.width``.

    ``-w`` would scale the whole sheet (a deck file holds all cards), so the element is first rendered at its
    natural size, then again with the zoom that makes it about 1.5x the target width, and area-downscaled.
    """
    tmp = job.out.with_suffix(".tmp.png")
    where = f"{job.deck}/{job.element}"
    natural = _rsvg(job, 1.0, tmp)
    zoom = 1.5 * job.width / natural.shape[1]
    img = _rsvg(job, zoom, tmp) if abs(zoom - 1) > 0.05 else natural
    h, w = img.shape[:2]
    if not 1.2 < h / w < 1.7:
        raise RenderError(f"{where}: rendered element is {w}x{h}, not card-shaped")
    img = cv2.resize(img, (job.width, round(h * job.width / w)), interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(job.out), img)
    return job.out


def _element_exists(svg_text: str, element: str) -> bool:
    return f'id="{element}"' in svg_text


def jobs_for_deck(deck: Deck, out_dir: Path, width: int = FACE_WIDTH) -> list[RenderJob]:
    """The render jobs of one deck: every card, its first available joker, and its back."""
    import gzip

    with gzip.open(deck.path, "rt", encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    jobs: list[RenderJob] = []
    for code in CARD_CODES:
        if code == JOKER:
            element = next((j for j in deck.joker_ids if _element_exists(text, j)), None)
            if element is None:
                continue
        else:
            element = deck.element_id(code)
            if not _element_exists(text, element):
                raise RenderError(f"deck {deck.name}: element {element!r} for {code} not in {deck.path}")
        jobs.append(RenderJob(deck.name, deck.path, element, out_dir / deck.name / f"{code}.png", width))
    jobs.append(RenderJob(deck.name, deck.path, deck.back_id(), out_dir / deck.name / f"{BACK}.png", width))
    return jobs


def render_decks(decks: Iterable[Deck], out_dir: Path, workers: int = 2, force: bool = False) -> list[str]:
    """Render all faces of ``decks`` into ``out_dir``; returns the error messages (empty if all went well)."""
    jobs: list[RenderJob] = []
    for deck in decks:
        (out_dir / deck.name).mkdir(parents=True, exist_ok=True)
        jobs.extend(j for j in jobs_for_deck(deck, out_dir) if force or not j.out.is_file())
    errors: list[str] = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(render_element, j) for j in jobs]
        for fut in futures:
            try:
                fut.result()
            except (RenderError, subprocess.TimeoutExpired) as exc:
                errors.append(str(exc))
    return errors


def contact_sheet(faces_dir: Path, decks: list[str], codes: list[str], cell_h: int = 150) -> np.ndarray:
    """One row per deck, one column per code: a quick visual check of the renders (grey = missing)."""
    rows = []
    cell_w = int(cell_h * 0.72)
    for name in decks:
        cells = []
        for code in codes:
            cell = np.full((cell_h, cell_w, 3), 90, np.uint8)
            img = cv2.imread(str(faces_dir / name / f"{code}.png"), cv2.IMREAD_UNCHANGED)
            if img is not None:
                img = cv2.resize(img, (cell_w - 4, cell_h - 4), interpolation=cv2.INTER_AREA)
                a = img[:, :, 3:4].astype(np.float32) / 255
                cell[2:-2, 2:-2] = (img[:, :, :3] * a + cell[2:-2, 2:-2] * (1 - a)).astype(np.uint8)
            cells.append(cell)
        row = np.hstack(cells)
        cv2.putText(row, name, (3, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1, cv2.LINE_AA)
        rows.append(row)
    return np.vstack(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.data.faces", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=Path("datasets/faces"), help="cache folder")
    parser.add_argument("--decks", nargs="*", help="deck names (default: all installed)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--force", action="store_true", help="re-render files that exist")
    parser.add_argument("--sheet", type=Path, help="also write a contact sheet PNG here")
    parser.add_argument(
        "--procedural",
        type=int,
        default=PROCEDURAL_TRAINED,
        metavar="N",
        help=f"procedural decks to draw (default {PROCEDURAL_TRAINED}; 0: none)",
    )
    parser.add_argument("--procedural-seed", type=int, default=0, help="seed of the procedural decks")
    parser.add_argument(
        "--only-procedural", action="store_true", help="draw only the procedural decks (SVG renders kept)"
    )
    args = parser.parse_args(argv)
    if args.procedural < 0:
        print(f"--procedural must be >= 0, got {args.procedural}", file=sys.stderr)
        return 2
    if args.only_procedural:
        return _render_procedural(args.out, args.procedural, args.procedural_seed, args.workers, args.sheet)
    if shutil.which("rsvg-convert") is None:
        print("rsvg-convert not found: install librsvg2-bin (deploy/dev-setup.sh does)", file=sys.stderr)
        return 2
    known = decks_by_name()
    if args.decks:
        unknown = [n for n in args.decks if n not in known]
        if unknown:
            print(f"unknown deck(s): {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
            return 2
        decks = tuple(known[n] for n in args.decks)
    else:
        decks = installed_decks(ALL_DECKS)
    errors = render_decks(decks, args.out, args.workers, args.force)
    for e in errors:
        print("error:", e, file=sys.stderr)
    from models.training.data.corners import measure_deck_corners

    for deck in decks:
        corners = measure_deck_corners(args.out / deck.name)
        (args.out / deck.name / CORNERS_FILE).write_text(
            json.dumps(corners, indent=1) + "\n", encoding="utf-8"
        )
    print(f"rendered {len(decks)} decks into {args.out}; {len(errors)} errors")
    status = _render_procedural(args.out, args.procedural, args.procedural_seed, args.workers, None)
    if args.sheet:
        names = [d.name for d in decks] + [d.name for d in procedural_decks(args.out)]
        cv2.imwrite(str(args.sheet), contact_sheet(args.out, names, SHEET_CODES))
    return 1 if errors or status else 0


def _render_procedural(out: Path, count: int, seed: int, workers: int, sheet: Path | None) -> int:
    """Draw the procedural decks into ``out`` (after the SVG renders, whose court pictures they borrow)."""
    if count == 0:
        return 0
    import time

    from models.training.data.procedural import FontError, render_procedural_decks

    start = time.monotonic()
    try:
        names = render_procedural_decks(out, count, seed, workers=workers)
    except FontError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stale = [d.name for d in procedural_decks(out) if d.name not in names]
    if stale:
        print(
            f"warning: older procedural decks {', '.join(stale)} are still in {out} and will be used in "
            "training; delete them if that is not wanted",
            file=sys.stderr,
        )
    if sheet:
        cv2.imwrite(str(sheet), contact_sheet(out, names, SHEET_CODES))
    print(f"drew {len(names)} procedural decks into {out} in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
