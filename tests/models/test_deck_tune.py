"""Teaching the detector a deck: faces cut from teaching photos, scenes composed from them, the kept model."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training.data.scenes import Face
from models.training.deck_scenes import TaughtCard, cut_face, cut_faces, scenes
from models.training.deck_tune import Reading, TuneConfig, install, prepare_data

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def card_photo(
    code: str,
    angle: float = 8.0,
    size: tuple[int, int] = (640, 480),
    centre: tuple[float, float] = (320, 240),
) -> tuple[np.ndarray, tuple[tuple[float, float, float, float], ...], np.ndarray]:
    """A photo of one drawn card (paper on a dark table, its code in two corners), the corner boxes in
    photo pixels, and the card's four corners."""
    w, h = size
    image = np.full((h, w, 3), (40, 70, 30), np.uint8)
    fw, fh = 200, 280
    face = np.full((fh, fw, 3), 245, np.uint8)
    cv2.putText(face, code[:-1], (10, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (0, 0, 0), 3)
    cv2.putText(face, code[-1], (12, 75), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 200), 2)
    face[fh // 2 :, :] = np.rot90(face[: fh - fh // 2, :], 2)
    face[: fh // 2 :, :] = face[: fh // 2, :]
    matrix = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, 1.0)
    matrix[:, 2] += np.array(centre) - np.array([fw / 2, fh / 2])
    warped = cv2.warpAffine(face, matrix, (w, h), borderValue=(0, 0, 0))
    mask = cv2.warpAffine(np.full((fh, fw), 255, np.uint8), matrix, (w, h))
    image[mask > 0] = warped[mask > 0]
    boxes = []
    for x0, y0, x1, y1 in ((6, 6, 56, 84), (fw - 56, fh - 84, fw - 6, fh - 6)):
        pts = cv2.transform(np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32), matrix)[0]
        boxes.append(
            (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))
        )
    quad = cv2.transform(np.array([[[0, 0], [fw, 0], [fw, fh], [0, fh]]], np.float32), matrix)[0]
    return image, tuple(boxes), quad


def test_a_card_is_cut_out_of_its_photo_with_its_corners_in_face_fractions() -> None:
    image, boxes, _ = card_photo("QH")
    face = cut_face(TaughtCard("QH.jpg", image, "QH", boxes))
    assert not isinstance(face, str), face
    fh, fw = face.image.shape[:2]
    assert face.image.shape[2] == 4 and 1.3 < fh / fw < 1.5
    assert len(face.boxes) == 2
    top = min(face.boxes, key=lambda b: b.y0)
    # the top-left index box lies in the face's top-left (a little looser: the box of a turned box)
    assert top.x0 < 0.1 and top.y0 < 0.1 and 0.2 < top.x1 < 0.45 and 0.25 < top.y1 < 0.4
    # the face is the card: paper inside, not the table
    assert face.image[fh // 2, 5:-5, :3].mean() > 200


def test_a_corner_found_once_is_labelled_in_both_corners() -> None:
    image, boxes, _ = card_photo("7S")
    face = cut_face(TaughtCard("7S.jpg", image, "7S", boxes[:1]))
    assert not isinstance(face, str)
    assert len(face.boxes) == 2
    a, b = sorted(face.boxes, key=lambda x: x.y0)
    assert abs(a.x0 - (1 - b.x1)) < 1e-6 and abs(a.y0 - (1 - b.y1)) < 1e-6


def test_cards_that_cannot_be_cut_are_named_and_the_rest_kept() -> None:
    image, boxes, _ = card_photo("2C")
    blank = np.full_like(image, 120)  # a photo as light as ... nothing: no outline
    cut = cut_faces([TaughtCard("2C.jpg", image, "2C", boxes), TaughtCard("3C.jpg", blank, "3C", boxes)])
    assert set(cut.faces) == {"2C"}
    assert len(cut.skipped) == 1 and cut.skipped[0][:2] == ("3C.jpg", "3C")
    assert "3C.jpg: 3C:" in cut.problems()[0]


def test_a_card_cut_off_by_the_photo_edge_is_not_used() -> None:
    image, boxes, _ = card_photo("KD", centre=(50, 240))  # the card reaches past the left edge
    assert isinstance(cut_face(TaughtCard("KD.jpg", image, "KD", boxes)), str)


@pytest.fixture(scope="module")
def faces() -> dict[str, Face]:
    out: dict[str, Face] = {}
    for rank in RANKS:
        code = rank + "S"
        image, boxes, _ = card_photo(code, angle=float(len(out) * 3 - 15))
        face = cut_face(TaughtCard(f"{code}.jpg", image, code, boxes))
        assert not isinstance(face, str), (code, face)
        out[code] = face
    return out


def test_scenes_show_only_the_taught_cards_and_are_the_same_from_their_seed(faces: dict[str, Face]) -> None:
    made = list(scenes(faces, 6, 5, (320, 240)))
    assert len(made) == 6
    labelled = [m for m in made if m.labels]
    assert labelled, "no scene labels any corner"
    from scorer.cards import CARD_CODES

    for m in made:
        assert {CARD_CODES[cls] for cls, *_ in m.labels} <= set(faces)
    again = list(scenes(faces, 6, 5, (320, 240), start=4))
    assert np.array_equal(again[0].image, made[4].image) and again[1].labels == made[5].labels


def test_the_training_data_goes_on_where_a_stopped_run_left_it(
    faces: dict[str, Face], tmp_path: Path
) -> None:
    cfg = TuneConfig(scenes=4, size=(320, 240))
    lines: list[str] = []
    data = prepare_data(tmp_path, faces, cfg, lines.append)
    first = sorted((tmp_path / "data" / "labels" / "train").iterdir())
    assert len(first) == 4 and data.is_file()
    texts = [p.read_text() for p in first]
    # a run stopped after two scenes: the same scenes are drawn again from the third (the last rewritten)
    (tmp_path / "data" / "done.json").unlink()
    for p in first[2:]:
        p.unlink()
    kept = (tmp_path / "data" / "images" / "train" / "train00000.jpg").stat().st_mtime_ns
    prepare_data(tmp_path, faces, cfg, lines.append)
    again = sorted((tmp_path / "data" / "labels" / "train").iterdir())
    assert [p.read_text() for p in again] == texts
    assert (tmp_path / "data" / "images" / "train" / "train00000.jpg").stat().st_mtime_ns == kept


def test_a_reading_counts_right_missed_and_extra_cards() -> None:
    r = Reading()
    r.add(["AS", "2S", "3S"], ["AS", "2S", "4S"])
    r.add(["KH"], ["KH"])
    assert (r.right, r.missing, r.extra, r.exact, r.photos) == (3, 1, 1, 1, 2)
    assert r.recall == 0.75 and r.precision == 0.75 and r.net == 2


def test_a_finished_model_replaces_the_old_one_by_renames(tmp_path: Path) -> None:
    target = tmp_path / "model"
    target.mkdir()
    (target / "cards.onnx").write_bytes(b"old")
    staged = tmp_path / ".model.new"
    staged.mkdir()
    (staged / "cards.onnx").write_bytes(b"new")
    install(staged, target)
    assert (target / "cards.onnx").read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_a_fanned_pack_is_the_whole_pack_and_scenes_leave_the_renderers_rule_as_it_was(
    faces: dict[str, Face],
) -> None:
    from models.training.data import scenes as renderer
    from models.training.deck_scenes import fanned_pack

    general = renderer.MIN_VISIBLE
    result = fanned_pack(np.random.default_rng(1), faces, 480, 360, (330, 350), (1.2, 1.5))
    assert sorted(result.hands[0]) == sorted(faces) and result.kind == "deal"
    list(scenes(faces, 2, 3, (320, 240)))
    assert general == renderer.MIN_VISIBLE
