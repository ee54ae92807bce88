"""Class list, corner-index boxes and the deck registry."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training.classes import CLASSES_JSON, load_class_names, rank_of, suit_of, write_classes_json
from models.training.data.corners import (
    Box,
    CornerError,
    deck_index_box,
    find_index_box,
    mark_in_four_corners,
    mark_repeat_score,
    mirrored,
)
from models.training.data.decks import ALL_DECKS, Split
from scorer.cards import CARD_CODES


def test_the_shipped_class_list_is_the_scorers_card_order() -> None:
    assert load_class_names(CLASSES_JSON) == list(CARD_CODES)
    assert CARD_CODES[0] == "AS" and CARD_CODES[-1] == "JK" and len(CARD_CODES) == 53


def test_class_list_round_trips_and_bad_files_are_named(tmp_path: Path) -> None:
    path = write_classes_json(tmp_path / "classes.json")
    assert load_class_names(path) == list(CARD_CODES)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        load_class_names(bad)
    bad.write_text(json.dumps({"names": "AS"}))
    with pytest.raises(ValueError, match="names"):
        load_class_names(bad)


def test_tuned_threshold_is_saved_for_the_runtime_detector(tmp_path: Path) -> None:
    from vision.reading.detector import CardDetector

    path = write_classes_json(tmp_path / "classes.json", conf=0.15)
    assert json.loads(path.read_text())["conf"] == 0.15
    assert load_class_names(path) == list(CARD_CODES)
    with pytest.raises(ValueError, match="1.5"):
        write_classes_json(tmp_path / "other.json", conf=1.5)
    import shutil

    shutil.copy(CLASSES_JSON.parent / "cards.onnx", tmp_path / "cards.onnx")
    assert CardDetector(tmp_path / "cards.onnx").load().conf == 0.15
    assert CardDetector(tmp_path / "cards.onnx", conf=0.4).load().conf == 0.4


def test_rank_and_suit_of_codes() -> None:
    assert (rank_of("10H"), suit_of("10H")) == ("10", "H")
    assert (rank_of("JK"), suit_of("JK")) == ("JK", "")
    with pytest.raises(ValueError, match="'1S'"):
        rank_of("1S")


def test_at_least_ten_designs_and_two_held_out_groups() -> None:
    train_groups = {d.group for d in ALL_DECKS if d.split is Split.TRAIN}
    val_groups = {d.group for d in ALL_DECKS if d.split is Split.VAL}
    assert len(train_groups | val_groups) >= 10
    assert len(val_groups) >= 2
    assert not train_groups & val_groups  # a held-out design never appears in training


def test_element_ids_follow_each_package_scheme() -> None:
    by_name = {d.name: d for d in ALL_DECKS}
    assert by_name["standard"].element_id("QH") == "queen_heart"
    assert by_name["standard"].element_id("AS") == "1_spade"
    assert by_name["ais-anglo"].element_id("10C") == "club_10"
    with pytest.raises(ValueError, match="JK"):
        by_name["standard"].element_id("JK")


def _fake_face(rank: str) -> np.ndarray:
    """A white card with a black rank and a pip in its top-left corner, and a big pip in the middle."""
    face = np.full((450, 320, 3), 255, np.uint8)
    cv2.putText(face, rank, (14, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (0, 0, 0), 4)
    cv2.circle(face, (30, 76), 12, (0, 0, 0), -1)
    cv2.circle(face, (160, 225), 50, (0, 0, 0), -1)
    return cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)


def test_index_box_covers_rank_and_pip_but_not_the_centre() -> None:
    box = find_index_box(_fake_face("7"))
    w, h = 320, 450
    assert box.x0 * w <= 20 and box.y0 * h <= 24  # the rank glyph's top-left
    assert box.y1 * h >= 85  # the pip under it
    assert box.x1 * w < 110 and box.y1 * h < 150  # not the centre pip


def test_index_box_refuses_a_blank_face() -> None:
    with pytest.raises(CornerError):
        find_index_box(np.full((450, 320, 4), 255, np.uint8))


def test_deck_box_needs_several_cards_and_bottom_right_is_rotated() -> None:
    boxes = [find_index_box(_fake_face(r)) for r in ("2", "5", "7", "9", "10")]
    deck = deck_index_box(boxes)
    assert all(deck.x0 <= b.x0 + 0.02 and deck.y1 >= b.y1 - 0.05 for b in boxes)
    assert Box(0.1, 0.2, 0.3, 0.4).rotated180() == pytest.approx(Box(0.7, 0.6, 0.9, 0.8))
    with pytest.raises(CornerError, match="only 2"):
        deck_index_box(boxes[:2])


def _star_face(corners: str) -> np.ndarray:
    """A white card with a red star mark in the corners named (t: top-left, r: top-right, picture between)."""
    face = np.full((450, 320, 3), 255, np.uint8)
    star = np.array(
        [[0, -20], [6, -6], [20, -6], [9, 4], [13, 19], [0, 10], [-13, 19], [-9, 4], [-20, -6], [-6, -6]]
    )
    for c, x in (("t", 36), ("r", 320 - 36)):
        if c in corners:
            cv2.fillPoly(face, [star + [x, 44]], (0, 0, 200), cv2.LINE_AA)
            cv2.putText(face, "JK", (x - 22, 96), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 200), 2)
    cv2.ellipse(face, (160, 225), (90, 140), 20, 0, 360, (30, 120, 30), -1)
    return cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)


def test_a_mark_printed_in_the_other_top_corner_too_is_found() -> None:
    box = Box(0.03, 0.04, 0.17, 0.24)
    assert mirrored(box) == pytest.approx(Box(0.83, 0.04, 0.97, 0.24))
    assert mark_repeat_score(_star_face("tr"), box) > 0.95
    assert mark_in_four_corners(_star_face("tr"), box)
    assert mark_in_four_corners(cv2.flip(_star_face("tr"), 1), box)  # printed mirrored at the other corner
    assert not mark_in_four_corners(_star_face("t"), box)
    assert mark_repeat_score(np.full((450, 320, 4), 255, np.uint8), box) == 0.0  # nothing in the corner
    with pytest.raises(CornerError, match="RGBA"):
        mark_repeat_score(np.zeros((450, 320, 3), np.uint8), box)


def test_jokers_printing_their_mark_in_four_corners_are_told_from_those_in_two(tmp_path: Path) -> None:
    """ais-plastic's joker prints its star in all four corners, ais-bellot.s jester in two."""
    import shutil

    from models.training.data.faces import RenderJob, render_element

    decks = {d.name: d for d in ALL_DECKS}
    if shutil.which("rsvg-convert") is None or not decks["ais-plastic"].path.is_file():
        pytest.skip("card art or rsvg-convert missing: run deploy/dev-setup.sh")
    found = {}
    for name in ("ais-plastic", "ais-bellot"):
        deck = decks[name]
        out = tmp_path / f"{name}.png"
        render_element(RenderJob(name, deck.path, deck.joker_ids[0], out, 320))
        face = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
        found[name] = mark_in_four_corners(face, find_index_box(face, max_w=0.2, max_h=0.42))
    assert found == {"ais-plastic": True, "ais-bellot": False}


def test_saving_a_threshold_keeps_the_exported_input_size(tmp_path: Path) -> None:
    """export writes imgsz, evaluate --save-conf writes conf: neither loses the other's."""
    path = write_classes_json(tmp_path / "classes.json", imgsz=416)
    write_classes_json(path, conf=0.2)
    assert {k: json.loads(path.read_text())[k] for k in ("imgsz", "conf")} == {"imgsz": 416, "conf": 0.2}
    write_classes_json(path, imgsz=320)  # new weights exported: a new size, no tuned threshold yet
    assert json.loads(path.read_text()).get("conf") is None and json.loads(path.read_text())["imgsz"] == 320
    (tmp_path / "broken.json").write_text("{not json")
    assert "imgsz" not in json.loads(write_classes_json(tmp_path / "broken.json", conf=0.3).read_text())


def test_ultralytics_backend_runs_at_the_exported_size(tmp_path: Path) -> None:
    """cards.pt remembers its training size; classes.json the size it was shipped at. Both backends use the
    latter, so the .pt and .onnx read the same picture."""
    pytest.importorskip("ultralytics")
    import shutil

    from vision.runtimes.ultralytics import UltralyticsDetector

    shutil.copy(CLASSES_JSON.parent / "cards.pt", tmp_path / "cards.pt")
    write_classes_json(tmp_path / "classes.json", imgsz=352)
    assert UltralyticsDetector(tmp_path / "cards.pt").load().imgsz == 352
    assert UltralyticsDetector(tmp_path / "cards.pt", imgsz=288).load().imgsz == 288
