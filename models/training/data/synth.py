"""Write a synthetic Ultralytics dataset of card photos.

``python -m models.training.data.synth --out DIR --count N --seed S [--val-count M] [--long-side PX]
[--kind KIND]``

``--kind`` (table, hand, seep, ...) makes every scene of that kind, to measure one kind: for example 300
whole tables at the kiosk's size, ``--count 0 --val-count 300 --long-side 1280 --kind table``, for
``python -m vision.devtools.evaluate --truth DIR/truth/val.jsonl --known-hands``.

Training images use only the training designs, validation images only the held-out designs
(:mod:`models.training.data.decks`). The procedural decks found in the faces folder
(:mod:`models.training.data.procedural`) are training
designs too: about :data:`models.training.data.scenes.PROCEDURAL_SHARE` of the training scenes use one.
Output::

    DIR/data.yaml                    Ultralytics dataset file (53 card classes)
    DIR/images/{train,val}/*.jpg     the photos
    DIR/labels/{train,val}/*.txt     YOLO boxes of every visible printed corner index
    DIR/truth/{train,val}.jsonl      per image: cards with a visible corner, the hands as laid, scene kind

In :data:`models.training.data.scenes.HAND_SHARE` of the training scenes with cards a player's hand reaches
in over them
(``--hand-share`` sets the share in both splits; by default the held-out split has none, so it stays the
photos every stage was measured on); likewise makers' marks (``--mark-share``), indices printed in four
corners (``--four-share``), hands laid a quarter turn round (``--turn-share``) and bent or glossy cards
(``--bend-share``). The result depends only on the seed, the counts and the rendered faces (each image has
its own generator), not on the number of worker processes. The truth records, per labelled corner, its
size and share in view and, per photo, what the camera did (:mod:`models.training.readability` reads them).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.training.data.decks import (
    ALL_DECKS,
    Deck,
    Split,
    decks_by_name,
    installed_decks,
    procedural_decks,
)
from models.training.data.scenes import (
    BEND_SHARE,
    FOUR_SHARE,
    HAND_SHARE,
    MARK_SHARE,
    TURN_SHARE,
    FaceLibrary,
    SceneKind,
    SceneMaker,
    SceneResult,
    scene_truth,
)
from scorer.cards import CARD_CODES

FRAMES: tuple[tuple[int, int], ...] = ((640, 480), (480, 640), (640, 360))
FRAME_P = (0.72, 0.14, 0.14)
DEFAULT_FACES = Path("datasets/faces")


@dataclass(frozen=True)
class SynthConfig:
    out: Path
    count: int
    val_count: int
    seed: int
    faces: Path = DEFAULT_FACES
    workers: int = 2
    long_side: int = 640
    decks: tuple[
        str, ...
    ] = ()  # restrict both splits to these decks (tests, quick looks); () = the split's own
    kind: SceneKind | None = None  # every scene of this kind (measuring one kind); None = the usual mix
    # share of scenes with a player's hand over the cards; None = HAND_SHARE in train, none in val
    hand_share: float | None = None
    # share of scenes whose cards carry a maker's mark; None = MARK_SHARE in train, none in val
    mark_share: float | None = None
    # share of scenes whose jokers (some decks: every card) print the index in four corners; as above
    four_share: float | None = None
    # share of scenes whose hand, Seep row or close-up is laid a quarter turn round; as above
    turn_share: float | None = None
    # share of scenes whose cards are bent or glossy (models.training.data.scenes.BEND_SHARE); as above
    bend_share: float | None = None
    # every image of this width:height (e.g. (16, 9)); None = the usual mix of FRAMES
    aspect: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.count < 0 or self.val_count < 0:
            raise ValueError(f"image counts must be >= 0, got count={self.count}, val_count={self.val_count}")
        if self.long_side < 64:
            raise ValueError(f"long_side must be at least 64 pixels, got {self.long_side}")
        for name in ("hand_share", "mark_share", "four_share", "turn_share", "bend_share"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")

    @staticmethod
    def _split_share(asked: float | None, train_default: float, split: Split) -> float:
        """The share asked for (both splits), else ``train_default`` in train and none held out."""
        if asked is not None:
            return asked
        return train_default if split is Split.TRAIN else 0.0

    def split_hand_share(self, split: Split) -> float:
        """The share of scenes of ``split`` that show a player's hand."""
        return self._split_share(self.hand_share, HAND_SHARE, split)

    def split_mark_share(self, split: Split) -> float:
        """The share of scenes of ``split`` whose cards carry a maker's mark."""
        return self._split_share(self.mark_share, MARK_SHARE, split)

    def split_four_share(self, split: Split) -> float:
        """The share of scenes of ``split`` whose jokers (some decks: all cards) print four indices."""
        return self._split_share(self.four_share, FOUR_SHARE, split)

    def split_turn_share(self, split: Split) -> float:
        """The share of scenes of ``split`` whose hand, Seep row or close-up lies a quarter turn round."""
        return self._split_share(self.turn_share, TURN_SHARE, split)

    def split_bend_share(self, split: Split) -> float:
        """The share of scenes of ``split`` whose cards are bent or glossy."""
        return self._split_share(self.bend_share, BEND_SHARE, split)


_MAKERS: dict[str, SceneMaker] = {}


def split_decks(split: Split, names: tuple[str, ...] = (), faces: Path | None = None) -> tuple[Deck, ...]:
    """The installed decks of a split, or the named decks (any split) when ``names`` is given.

    With ``faces``, the procedural decks rendered there join the training split (and can be named).
    """
    if names:
        known = decks_by_name()
        if faces is not None:
            known.update({d.name: d for d in procedural_decks(faces)})
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"unknown deck(s) {', '.join(unknown)}; known: {', '.join(known)}")
        return tuple(known[n] for n in names)
    decks = tuple(d for d in installed_decks(ALL_DECKS, faces) if d.split is split)
    if not decks:
        raise FileNotFoundError(
            f"no installed {split.value} decks: install the card art (deploy/dev-setup.sh)"
        )
    return decks


def _maker(faces: Path, split: Split, names: tuple[str, ...] = ()) -> SceneMaker:
    key = f"{faces}:{split.value}:{','.join(names)}"
    if key not in _MAKERS:
        _MAKERS[key] = SceneMaker(FaceLibrary(faces, split_decks(split, names, faces)))
    return _MAKERS[key]


def make_image(
    seed: int,
    split: Split,
    index: int,
    faces: Path,
    long_side: int = 640,
    kind: SceneKind | None = None,
    decks: tuple[str, ...] = (),
    frame: tuple[int, int] | None = None,
    hand_share: float = 0.0,
    mark_share: float = 0.0,
    four_share: float = 0.0,
    turn_share: float = 0.0,
    bend_share: float = 0.0,
) -> tuple[SceneResult, int]:
    """The scene of image ``index`` of a split, and its JPEG quality; deterministic.

    A player's hand (in ``hand_share`` of the scenes) comes from a generator of its own, so adding hands
    leaves every other image, and the rest of each image, as it was; so does a maker's mark (in
    ``mark_share`` of the scenes), four-corner indices (``four_share``), quarter turns (``turn_share``) and
    bent or glossy cards (``bend_share``).
    """
    split_id = 0 if split is Split.TRAIN else 1
    rng = np.random.default_rng([seed, split_id, index])
    hand_rng = np.random.default_rng([seed, split_id, index, 1])
    with_hand = hand_share > 0 and hand_rng.random() < hand_share
    mark_rng = np.random.default_rng([seed, split_id, index, 2])
    with_mark = mark_share > 0 and mark_rng.random() < mark_share
    four_rng = np.random.default_rng([seed, split_id, index, 3])
    with_four = four_share > 0 and four_rng.random() < four_share
    turn_rng = np.random.default_rng([seed, split_id, index, 4])
    with_turn = turn_share > 0 and turn_rng.random() < turn_share
    bend_rng = np.random.default_rng([seed, split_id, index, 5])
    with_bend = bend_share > 0 and bend_rng.random() < bend_share
    fw, fh = FRAMES[int(rng.choice(len(FRAMES), p=FRAME_P))]
    if frame is not None:
        fw, fh = frame
    k = long_side / max(FRAMES[0])
    w, h = int(round(fw * k)), int(round(fh * k))
    result = _maker(faces, split, decks).make(
        rng,
        w,
        h,
        kind,
        hand_rng if with_hand else None,
        mark_rng if with_mark else None,
        four_rng if with_four else None,
        turn_rng if with_turn else None,
        bend_rng if with_bend else None,
    )
    quality = int(rng.integers(40, 96))
    return result, quality


def yolo_lines(result: SceneResult) -> list[str]:
    h, w = result.image.shape[:2]
    lines = []
    for cls, x0, y0, x1, y1 in result.labels:
        lines.append(
            f"{cls} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
        )
    return lines


def frame_of(aspect: tuple[int, int] | None) -> tuple[int, int] | None:
    """The frame (in FRAMES' units: long side 640) of an image of ``aspect`` (width, height)."""
    if aspect is None:
        return None
    w, h = aspect
    if w <= 0 or h <= 0:
        raise ValueError(f"an aspect needs a positive width and height, got {w}:{h}")
    k = max(FRAMES[0]) / max(w, h)
    return round(w * k), round(h * k)


def _aspect(text: str) -> tuple[int, int]:
    w, sep, h = text.partition(":")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) == 0 or int(h) == 0:
        raise argparse.ArgumentTypeError(f"aspect must be WIDTH:HEIGHT such as 16:9, got {text!r}")
    return int(w), int(h)


def _write_one(args: tuple[SynthConfig, Split, int]) -> str:
    cfg, split, index = args
    result, quality = make_image(
        cfg.seed,
        split,
        index,
        cfg.faces,
        cfg.long_side,
        cfg.kind,
        cfg.decks,
        hand_share=cfg.split_hand_share(split),
        mark_share=cfg.split_mark_share(split),
        four_share=cfg.split_four_share(split),
        turn_share=cfg.split_turn_share(split),
        bend_share=cfg.split_bend_share(split),
        frame=frame_of(cfg.aspect),
    )
    name = f"{split.value}_{cfg.seed}_{index:06d}"
    cv2.imwrite(
        str(cfg.out / "images" / split.value / f"{name}.jpg"),
        result.image,
        [cv2.IMWRITE_JPEG_QUALITY, quality],
    )
    (cfg.out / "labels" / split.value / f"{name}.txt").write_text("\n".join(yolo_lines(result)) + "\n")
    return scene_truth(f"{name}.jpg", result, quality)


def write_data_yaml(out: Path, path: Path | None = None, train: list[str] | None = None) -> Path:
    """Ultralytics data file of dataset ``out`` (or of several training folders and ``out``'s val split)."""
    names = "\n".join(f"  {i}: '{c}'" for i, c in enumerate(CARD_CODES))
    train_entry = "images/train" if not train else "\n" + "".join(f"  - {t}\n" for t in train).rstrip("\n")
    text = f"path: {out.resolve()}\ntrain: {train_entry}\nval: images/val\nnames:\n{names}\n"
    path = path or out / "data.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def generate(cfg: SynthConfig) -> Path:
    """Write the dataset; returns the path of its ``data.yaml``."""
    for split in (Split.TRAIN, Split.VAL):
        for sub in ("images", "labels"):
            (cfg.out / sub / split.value).mkdir(parents=True, exist_ok=True)
    (cfg.out / "truth").mkdir(parents=True, exist_ok=True)
    for split, n in ((Split.TRAIN, cfg.count), (Split.VAL, cfg.val_count)):
        jobs = [(cfg, split, i) for i in range(n)]
        if cfg.workers > 1 and n > 1:
            with ProcessPoolExecutor(max_workers=cfg.workers) as pool:
                lines = list(pool.map(_write_one, jobs, chunksize=8))
        else:
            lines = [_write_one(j) for j in jobs]
        (cfg.out / "truth" / f"{split.value}.jsonl").write_text("".join(line + "\n" for line in lines))
    return write_data_yaml(cfg.out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.training.data.synth", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, required=True, help="dataset folder to write")
    parser.add_argument("--count", type=int, default=4000, help="training images (default 4000)")
    parser.add_argument("--val-count", type=int, help="validation images (default: count/8, at least 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--faces",
        type=Path,
        default=DEFAULT_FACES,
        help="face cache from python -m models.training.data.faces",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--long-side", type=int, default=640, help="image long side in pixels (default 640)")
    parser.add_argument("--decks", nargs="*", default=[], help="use only these decks in both splits")
    parser.add_argument(
        "--kind",
        choices=[k.value for k in SceneKind],
        help="only scenes of this kind (to measure one kind; default: the training mix)",
    )
    parser.add_argument(
        "--hand-share",
        type=float,
        help=f"share of scenes (hands, tables, Seep rows, scatters, negatives) with a player's hand over the "
        f"cards, in both splits (default: {HAND_SHARE} in train, none in the held-out val split)",
    )
    parser.add_argument(
        "--mark-share",
        type=float,
        help=f"share of scenes whose cards carry a maker's mark near the corners without an index, in both "
        f"splits (default: {MARK_SHARE} in train, none in the held-out val split)",
    )
    parser.add_argument(
        "--four-share",
        type=float,
        help=f"share of scenes whose jokers (and some decks' every card) print their index in all four "
        f"corners, in both splits (default: {FOUR_SHARE} in train, none in the held-out val split)",
    )
    parser.add_argument(
        "--turn-share",
        type=float,
        help=f"share of scenes whose hands, Seep rows and close-ups may lie a quarter turn round, in both "
        f"splits (default: {TURN_SHARE} in train, none in the held-out val split)",
    )
    parser.add_argument(
        "--bend-share",
        type=float,
        help=f"share of scenes whose cards may be bent or glossy, in both splits (default: {BEND_SHARE} in "
        f"train, none in the held-out val split)",
    )
    parser.add_argument(
        "--aspect",
        type=_aspect,
        help="every image of this WIDTH:HEIGHT, e.g. 16:9 for a 1920x1080 table with --long-side 1920 "
        "(default: the training mix of 4:3, 3:4 and 16:9)",
    )
    args = parser.parse_args(argv)
    val = args.val_count if args.val_count is not None else max(20, args.count // 8)
    try:
        cfg = SynthConfig(
            args.out,
            args.count,
            val,
            args.seed,
            args.faces,
            args.workers,
            args.long_side,
            tuple(args.decks),
            SceneKind(args.kind) if args.kind else None,
            args.hand_share,
            args.mark_share,
            args.four_share,
            args.turn_share,
            args.bend_share,
            args.aspect,
        )
        if not (cfg.faces / "standard").is_dir() and not any(cfg.faces.glob("*/corners.json")):
            print(f"no rendered faces in {cfg.faces}; rendering them first (a few minutes)", file=sys.stderr)
            from models.training.data.faces import main as render_main

            render_main(["--out", str(cfg.faces), "--workers", str(cfg.workers)])
        data = generate(cfg)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {cfg.count} train + {cfg.val_count} val images; dataset: {data}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
