"""The scripted demo's data: its players, the keys that type their names, the short game's "Out above",
the scripted Jhyap rounds and Seep deals, and the bundled photo each one is read from (show_photo)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

PLAYERS = ["Asha", "बिकास", "Chandra", "Dipa"]
# Keys to press for each name on the on-screen keyboard (Devanagari via the script switch).
NAME_KEYS = {
    "Asha": ["A", "s", "h", "a"],
    "बिकास": ["\u0926\u0947\u0935", "ब", "ि", "क", "ा", "स"],
    "Chandra": ["C", "h", "a", "n", "d", "r", "a"],
    "Dipa": ["D", "i", "p", "a"],
    "Eka": ["E", "k", "a"],
}
MAX_SCORE = 100  # a short game for the demo: "Out above" lowered from 200 in the rules sheet
# (caller, hands by seat) for each round; the scorer decides what they make.
ROUNDS: list[tuple[str, dict[str, list[str]]]] = [
    (
        "Asha",
        {
            "Asha": ["AS", "2H"],
            "बिकास": ["KS", "QH", "9C"],
            "Chandra": ["10D", "JC", "8S"],
            "Dipa": ["5C", "6D"],
        },
    ),
    (
        "Dipa",
        {
            "Asha": ["2S", "2D"],
            "बिकास": ["KH", "KD", "QS"],
            "Chandra": ["JH", "QD", "9S"],
            "Dipa": ["AC", "3S"],
        },
    ),
    (
        "Chandra",
        {"Asha": ["AH", "2C"], "बिकास": ["KC", "JD", "10S", "5H"], "Chandra": ["4H"], "Dipa": ["7C", "8D"]},
    ),
    ("Asha", {"Asha": ["AD"], "बिकास": ["9H", "8C"], "Chandra": ["6S", "3C"], "Dipa": ["10C", "4D"]}),
    (
        "Asha",
        {
            "Asha": ["JK"],
            "Chandra": ["KS", "KH", "KD", "KC", "9S"],
            "Dipa": ["QD", "QC", "JS", "JH", "JD"],
        },
    ),
    ("Asha", {"Asha": ["JK"], "Chandra": ["KS", "KH"], "Dipa": ["QD", "QC"]}),
]
# Seep: point cards each team scanned (None: not scanned, the scorer gives it the rest), and sweeps.
DEALS: list[tuple[dict[str, list[str] | None], list[tuple[str, str]]]] = [
    (
        {
            "A": ["AS", "2S", "3S", "4S", "5S", "AH", "10D", "KS"],
            "B": ["6S", "7S", "8S", "9S", "10S", "JS", "QS", "AD", "AC"],
        },
        [("A", "normal"), ("B", "first")],
    ),
    (
        {
            "A": ["6S", "7S", "8S", "9S", "AD"],
            "B": ["AS", "2S", "3S", "4S", "5S", "10S", "JS", "QS", "KS", "AH", "10D", "AC"],
        },
        [("B", "normal"), ("B", "last")],
    ),
]
_ONE_PHOTO: dict[str, Path] = {}  # a demo photo's name -> a folder holding that photo alone (show_photo)


def show_photo(app: Any, name: str) -> None:
    """Let the next scan read the bundled demo photo ``name`` (vision/demo: the photo of this scripted round
    or deal, ui.devtools.demo_photos), when the demo's camera is the bundled photos: the folder camera over
    a folder holding that photo alone. Whatever the script photographed before (the seats, a failed
    camera), the round is read from its own photo."""
    from vision.cameras import DEMO_DIR

    camera = str(app.camera_override or "")
    if camera != f"folder:{DEMO_DIR}" and not any(camera == f"folder:{d}" for d in _ONE_PHOTO.values()):
        return
    if not (DEMO_DIR / name).is_file():
        return
    if name not in _ONE_PHOTO:
        folder = Path(tempfile.mkdtemp(prefix="tabletally-demo-photo-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        shutil.copy(DEMO_DIR / name, folder / name)
        _ONE_PHOTO[name] = folder
    app.camera_override = f"folder:{_ONE_PHOTO[name]}"
