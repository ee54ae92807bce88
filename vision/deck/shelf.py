"""Where taught decks are kept: ``<data>/decks/<name>/`` (:class:`DeckShelf`), ``memory.npz`` (the
patches, their codes and photos, the features), ``deck.json`` (what a person reads: cards, photos,
when), ``photos/`` (the teaching photos and the cards matched in them) and, once the detector has been
taught the deck (``tabletally deck train``), ``model/`` (its own detector: ``cards.onnx``, ``classes.json``,
the NCNN files). A deck is written whole to a temporary folder and renamed into place, so nothing is ever
half-saved, and removing it removes the folder. A memory made with another reader model (its
fingerprint differs) is rebuilt from the kept patches when loaded.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.types import CARD_CODES, Box
from vision.deck.memory import VIEWS, DeckError, DeckMemory, reader_fingerprint
from vision.reader.corners import CornerReader

DECKS_DIR = "decks"  # in the data directory
MEMORY_FILE = "memory.npz"
INFO_FILE = "deck.json"
PHOTOS_DIR = "photos"  # the teaching photos, and PHOTOS_FILE: the cards matched in each
PHOTOS_FILE = "photos.json"
PHOTO_SIDE = 1600  # a kept photo's longer side at most (pixels)
MODEL_DIR = "model"  # the deck's own detector, when taught one (the same file names as models/)
STANDARD = "standard"  # the reading without a taught deck; not a deck name
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$")


def check_deck_name(name: str) -> str:
    """``name`` stripped if it can name a deck (letters, digits, space, ``_ . -``; 1-40 characters, not
    ``standard``), else a DeckError saying what is allowed."""
    stripped = name.strip()
    if stripped.lower() == STANDARD:
        raise DeckError(f"{STANDARD!r} is the reading without a taught deck; choose another name")
    if not NAME_RE.match(stripped):
        raise DeckError(
            f"deck name {name!r}: use 1-40 letters, digits, spaces, '_', '.' or '-', starting with a "
            "letter or digit"
        )
    return stripped


class DeckShelf:
    """The taught decks of one data directory: ``<data_dir>/decks/<name>/``."""

    def __init__(self, data_dir: str | Path) -> None:
        self.root = Path(data_dir).expanduser() / DECKS_DIR

    def path(self, name: str) -> Path:
        return self.root / check_deck_name(name)

    def names(self) -> list[str]:
        """The saved decks, by name (folders left half-made by a crash are not decks)."""
        if not self.root.is_dir():
            return []
        return sorted(
            (p.name for p in self.root.iterdir() if (p / INFO_FILE).is_file() and not p.name.startswith(".")),
            key=str.lower,
        )

    def info(self, name: str) -> dict[str, Any]:
        folder = self.path(name)
        try:
            data = json.loads((folder / INFO_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DeckError(self._unknown(name)) from None
        except (OSError, ValueError) as exc:
            raise DeckError(
                f"deck {name!r}: {folder / INFO_FILE} is unreadable ({exc}); remove it and teach it again"
            ) from exc
        if not isinstance(data, dict):
            raise DeckError(f"deck {name!r}: {folder / INFO_FILE} is not a deck description")
        return data

    def _unknown(self, name: str) -> str:
        known = self.names()
        return f"no taught deck {name!r}" + (
            f" (taught: {', '.join(known)})" if known else " (none taught yet)"
        )

    def load(self, name: str, reader: CornerReader) -> DeckMemory:
        """The saved deck ``name`` for ``reader`` (its features rebuilt from the kept patches when they come
        from another reader model). A DeckError for an unknown or damaged deck."""
        folder = self.path(name)
        if not (folder / INFO_FILE).is_file():
            raise DeckError(self._unknown(name))
        info = self.info(name)
        try:
            with np.load(folder / MEMORY_FILE, allow_pickle=False) as data:
                codes = tuple(str(c) for c in data["codes"])
                sources = tuple(str(s) for s in data["sources"])
                patches = np.asarray(data["patches"], np.uint8)
                features = np.asarray(data["features"], np.float32)
                fingerprint = str(data["reader"])
        except (OSError, KeyError, ValueError) as exc:
            raise DeckError(
                f"deck {name!r}: {folder / MEMORY_FILE} is damaged ({exc}); teach it again"
            ) from exc
        if (
            len(codes) != len(patches)
            or len(sources) != len(codes)
            or any(c not in CARD_CODES for c in codes)
        ):
            raise DeckError(f"deck {name!r}: {folder / MEMORY_FILE} does not hold a deck; teach it again")
        reader.load()
        memory = DeckMemory(
            folder.name, codes, patches, sources, features, fingerprint, created=str(info.get("created", ""))
        )
        if fingerprint != reader_fingerprint(reader) or len(features) != len(codes) * len(VIEWS):
            memory = DeckMemory.build(folder.name, codes, patches, sources, reader, memory.created)
        memory.model = folder / MODEL_DIR if self.has_detector(name) else None
        return memory

    def save(
        self,
        memory: DeckMemory,
        replace: bool = False,
        photos: Sequence[tuple[str, np.ndarray, Sequence[Any]]] = (),
        carry: bool = False,
    ) -> Path:
        """Write ``memory`` as deck ``memory.name``: whole, into a temporary folder renamed into place (an
        old deck of that name is replaced only with ``replace``). Returns the deck's folder.

        ``photos`` are the teaching photos to keep with it (name, image, the cards matched in it: each with
        ``code`` and ``boxes``), for teaching the detector the deck later (:meth:`taught_cards`). With
        ``carry`` the old deck's kept photos (those of other names) and its taught detector are kept too
        (cards added to a deck); without it a replaced deck's go with it."""
        target = self.path(memory.name)
        if target.exists() and not replace:
            raise DeckError(f"a deck named {memory.name!r} exists; remove it first, or add to it")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".new", dir=self.root))
        except OSError as exc:
            raise DeckError(f"cannot write decks into {self.root}: {exc.strerror or exc}") from exc
        old: Path | None = None
        try:
            np.savez_compressed(
                tmp / MEMORY_FILE,
                codes=np.asarray(memory.codes),
                sources=np.asarray(memory.sources),
                patches=memory.patches,
                features=memory.features,
                reader=np.asarray(memory.reader),
            )
            old_photos = self._kept_photos(target) if carry else []
            _write_photos(tmp, photos, old_photos, target)
            if carry and (target / MODEL_DIR).is_dir():
                shutil.copytree(target / MODEL_DIR, tmp / MODEL_DIR)
            (tmp / INFO_FILE).write_text(json.dumps(memory.info(), indent=1) + "\n", encoding="utf-8")
            _fsync_dir(tmp)
            if target.exists():
                old = target.with_name(f".{target.name}.old")
                shutil.rmtree(old, ignore_errors=True)
                os.rename(target, old)
            os.rename(tmp, target)
            _fsync_dir(self.root)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if old is not None and not target.exists():
                os.rename(old, target)
            raise DeckError(f"could not save deck {memory.name!r}: {exc.strerror or exc}") from exc
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return target

    def _kept_photos(self, folder: Path) -> list[dict[str, Any]]:
        try:
            data = json.loads((folder / PHOTOS_DIR / PHOTOS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        rows = data.get("photos") if isinstance(data, dict) else None
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []

    def taught_cards(self, name: str) -> list[tuple[str, np.ndarray, str, tuple[Box, ...]]]:
        """The cards deck ``name`` was taught from, as kept with it: (photo, image, code, corner boxes in
        that image). A DeckError when it keeps none (a deck taught before photos were kept)."""
        from vision.base.photo import load_image
        from vision.base.types import ImageError

        folder = self.path(name)
        if not (folder / INFO_FILE).is_file():
            raise DeckError(self._unknown(name))
        out = []
        for row in self._kept_photos(folder):
            try:
                image = load_image(folder / PHOTOS_DIR / str(row["file"]))
                cards = [(str(c["code"]), tuple(_box(b) for b in c["boxes"])) for c in row["cards"]]
            except (ImageError, KeyError, TypeError, ValueError):
                continue
            out += [(str(row.get("name", row["file"])), image, code, boxes) for code, boxes in cards]
        if not out:
            raise DeckError(
                f"deck {name!r} keeps no teaching photos (taught before they were kept): teach it again "
                "(tabletally deck learn --replace, or the kiosk's Teach our deck)"
            )
        return out

    def has_detector(self, name: str) -> bool:
        """Whether deck ``name`` has a taught detector of its own (``tabletally deck train``)."""
        return (self.path(name) / MODEL_DIR / "cards.onnx").is_file()

    def remove(self, name: str) -> None:
        """Delete deck ``name`` (its folder, whole). A DeckError when there is no such deck."""
        folder = self.path(name)
        if not (folder / INFO_FILE).is_file():
            raise DeckError(self._unknown(name))
        gone = folder.with_name(f".{folder.name}.gone")
        try:
            shutil.rmtree(gone, ignore_errors=True)
            os.rename(folder, gone)  # one step: the deck is gone even if deleting its files is cut short
            shutil.rmtree(gone)
        except OSError as exc:
            raise DeckError(f"could not remove deck {name!r}: {exc.strerror or exc}") from exc


def _box(values: Any) -> Box:
    x0, y0, x1, y1 = (float(v) for v in values)
    return (x0, y0, x1, y1)


def _write_photos(
    folder: Path,
    photos: Sequence[tuple[str, np.ndarray, Sequence[Any]]],
    old: list[dict[str, Any]],
    old_folder: Path,
) -> None:
    """The teaching ``photos`` (at most ``PHOTO_SIDE`` pixels along their longer side, boxes scaled with
    them) and the ``old`` ones of other names (copied from ``old_folder``) into ``folder/photos``."""
    import cv2

    if not photos and not old:
        return
    (folder / PHOTOS_DIR).mkdir()
    rows: list[dict[str, Any]] = []
    new_names = {name for name, _, _ in photos}
    for row in old:
        if row.get("name") in new_names:
            continue
        source = old_folder / PHOTOS_DIR / str(row.get("file", ""))
        if source.is_file():
            shutil.copy2(source, folder / PHOTOS_DIR / source.name)
            rows.append(row)
    taken = {str(r.get("file")) for r in rows}
    k = 0
    for name, image, matches in photos:
        while f"{k:03d}.jpg" in taken:
            k += 1
        file = f"{k:03d}.jpg"
        taken.add(file)
        scale = min(1.0, PHOTO_SIDE / max(image.shape[:2]))
        small = (
            image
            if scale == 1.0
            else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        )
        if not cv2.imwrite(str(folder / PHOTOS_DIR / file), small, [cv2.IMWRITE_JPEG_QUALITY, 92]):
            raise OSError(f"could not write {folder / PHOTOS_DIR / file}")
        cards = [
            {"code": m.code, "boxes": [[round(float(v) * scale, 1) for v in b] for b in m.boxes]}
            for m in matches
        ]
        rows.append({"name": name, "file": file, "cards": cards})
    text = json.dumps({"photos": rows}, indent=1) + "\n"
    (folder / PHOTOS_DIR / PHOTOS_FILE).write_text(text, encoding="utf-8")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
