"""Teaching a deck end to end, with the shipped models and a procedural deck no model trained on
(``proc-303``, drawn here without court pictures): teaching it raises its reading; `tabletally deck` and
`detect --deck`; removing the deck restores the standard reading byte for byte; every bad input is refused
with its one-line error and nothing is saved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from ui.cli import main
from vision.reader.corners import DEFAULT_READER
from vision.runtimes.model_files import DEFAULT_ONNX

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (DEFAULT_ONNX.is_file() and DEFAULT_READER.is_file()),
        reason="the shipped models are missing",
    ),
]

DESIGN = 303  # numbered far past the procedural decks drawn for training (proc-00 ... proc-191)


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The design's faces, its five teaching rows saved as photos, and a held-out scene."""
    pytest.importorskip("PIL")
    from models.training.data import held_out

    root = tmp_path_factory.mktemp("deck")
    faces = root / "faces"
    (name,) = held_out.draw_designs(faces, [DESIGN], court_decks=())
    rows = held_out.row_photos(faces, name, 1)
    files = []
    for photo in rows:
        path = root / ("JK.jpg" if photo.codes == ("JK",) else photo.name)
        cv2.imwrite(str(path), photo.image)
        files.append((path, photo.codes))
    scene = held_out.held_out_scenes(faces, name, 1, 5, size=(640, 480))[0][0]
    cv2.imwrite(str(root / "scene.jpg"), scene)
    return {"root": root, "faces": faces, "name": name, "rows": rows, "files": files}


def learn_args(deck: dict[str, Any], data: Path, name: str = "Family") -> list[str]:
    args = ["deck", "learn", name]
    args += [str(path) for path, _ in deck["files"]]
    for _, codes in deck["files"]:  # one --order per row photo, in the order the photos are given
        if len(codes) > 1:
            args += ["--order", " ".join(codes)]
    return [*args, "--data-dir", str(data)]


def test_teaching_a_held_out_deck_raises_its_reading(deck: dict[str, Any]) -> None:
    from models.training.data.held_out import held_out_scenes
    from vision.deck.memory import use_deck
    from vision.devtools import deck_teaching as dt
    from vision.teach import teach

    detector = dt.make_detector()
    memory, matches = teach("Family", deck["rows"], detector)
    assert len(memory.cards) == 53 and len(matches) == 53
    scenes = held_out_scenes(deck["faces"], deck["name"], 30, 7, size=(960, 720))
    standard = dt.score(detector, scenes)
    use_deck(detector, memory)
    taught = dt.score(detector, scenes)
    use_deck(detector, None)
    assert taught.right > standard.right and taught.extra <= standard.extra, (standard, taught)


def read_json(scene: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    capsys.readouterr()
    assert main(["detect", str(scene), "--json", *extra]) == 0
    out = json.loads(capsys.readouterr().out)
    for entry in out:
        entry.pop("ms")  # a time, not the reading
    return json.dumps(out)


def test_learn_list_detect_with_the_deck_and_remove_restores_the_standard_reading(
    deck: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = deck["root"] / "scene.jpg"
    standard = read_json(scene, capsys)
    assert main(learn_args(deck, tmp_path)) == 0
    out = capsys.readouterr().out
    assert "deck 'Family' saved: 53 cards from 5 photos" in out
    assert main(["deck", "list", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("Family: 53 cards from 5 photos, taught ")
    assert json.loads(read_json(scene, capsys, "--deck", "Family", "--data-dir", str(tmp_path)))
    assert main(["deck", "remove", "Family", "--data-dir", str(tmp_path)]) == 0
    assert list((tmp_path / "decks").iterdir()) == []
    assert read_json(scene, capsys) == standard
    assert main(["detect", str(scene), "--deck", "Family", "--data-dir", str(tmp_path)]) == 5
    assert "no taught deck 'Family'" in capsys.readouterr().err


def refused(args: list[str], data: Path, capsys: pytest.CaptureFixture[str], *expected: str) -> None:
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err
    for text in expected:
        assert text in err, err
    for line in err.strip().splitlines():
        assert line.startswith("tabletally deck: ") and "Traceback" not in line
    assert not (data / "decks").exists() or list((data / "decks").iterdir()) == []


def test_each_bad_input_is_refused_and_nothing_is_saved(
    deck: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    files = deck["files"]
    spades, hearts = files[0][0], files[1][0]
    base = ["deck", "learn", "Family"]
    where = ["--data-dir", str(data)]
    refused([*base, str(spades), "--order", "AS 2S 1S ZZ", *where], data, capsys, "unknown card codes 1S, ZZ")
    garbage = tmp_path / "QH.jpg"
    garbage.write_bytes(b"not a photo")
    refused([*base, str(garbage), *where], data, capsys, "QH.jpg: not a readable image")
    table = tmp_path / "KD.jpg"
    cv2.imwrite(str(table), np.random.default_rng(0).integers(90, 110, (480, 640, 3), np.uint8))
    refused([*base, str(table), *where], data, capsys, "KD.jpg: found no card")
    two = tmp_path / "7C.jpg"
    two.write_bytes(spades.read_bytes())
    refused([*base, str(two), *where], data, capsys, "7C.jpg: found 13 cards")
    refused(
        [*base, str(hearts), "--order", " ".join(files[0][1]), *where],
        data,
        capsys,
        "read as other cards (AS read AH",
        "is it the right suit",
    )
    refused(
        [*base, str(files[4][0]), *where], data, capsys, "only 1 different card taught; teach at least 13"
    )
    refused([*base, str(spades), *where], data, capsys, "1 row photo (S-row.jpg) but 0 --order")
