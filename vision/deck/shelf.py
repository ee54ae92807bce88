"""Where taught decks are kept: ``<data>/decks/<name>/`` (:class:`DeckShelf`), ``memory.npz`` (the
patches, their codes and photos, the features) and ``deck.json`` (what a person reads: cards, photos,
when). A deck is written whole to a temporary folder and renamed into place, so nothing is ever
half-saved, and removing it removes the folder. A memory made with another reader model (its
fingerprint differs) is rebuilt from the kept patches when loaded.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from vision.base.types import CARD_CODES
from vision.deck.memory import VIEWS, DeckError, DeckMemory, reader_fingerprint
from vision.reader.corners import CornerReader

DECKS_DIR = "decks"  # in the data directory
MEMORY_FILE = "memory.npz"
INFO_FILE = "deck.json"
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
        return memory

    def save(self, memory: DeckMemory, replace: bool = False) -> Path:
        """Write ``memory`` as deck ``memory.name``: whole, into a temporary folder renamed into place (an
        old deck of that name is replaced only with ``replace``). Returns the deck's folder."""
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
