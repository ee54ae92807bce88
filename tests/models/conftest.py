"""Fixtures of the card-model tests: a small face cache rendered from the installed SVG decks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from models.training.data.decks import decks_by_name
from models.training.data.faces import CORNERS_FILE, render_decks
from models.training.data.procedural import FontError, find_fonts

# small SVG files, fast to render: one training design and one held-out design
TEST_DECKS = ("standard", "ais-tigullio")


def have_fonts() -> bool:
    """Whether the procedural decks find a usable font (deploy/dev-setup.sh installs them)."""
    try:
        find_fonts()
    except FontError:
        return False
    return True


def _have_art() -> bool:
    decks = decks_by_name()
    return shutil.which("rsvg-convert") is not None and all(decks[n].path.is_file() for n in TEST_DECKS)


@pytest.fixture(scope="session")
def faces_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Faces of :data:`TEST_DECKS`, rendered once per test session, with their corner boxes measured."""
    if not _have_art():
        pytest.skip("card art or rsvg-convert missing: run deploy/dev-setup.sh")
    import json

    from models.training.data.corners import measure_deck_corners

    out = tmp_path_factory.mktemp("faces")
    known = decks_by_name()
    errors = render_decks([known[n] for n in TEST_DECKS], out, workers=2)
    assert errors == []
    for name in TEST_DECKS:
        (out / name / CORNERS_FILE).write_text(json.dumps(measure_deck_corners(out / name)))
    return out
