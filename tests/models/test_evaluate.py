"""The evaluation's scoring rules, checked with a stand-in detector on made-up photos."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training.classes import CLASS_INDEX
from models.training.evaluate import (
    EvalError,
    conf_choice,
    eval_pinochle,
    eval_single_card,
    eval_synthetic,
    read_yolo_labels,
    render_report,
    saved_conf,
)
from vision.reading.detector import Detection


class ScriptedDetector:
    """Returns the detections listed for each photo size (photos are told apart by their width)."""

    size = 320

    def __init__(self, by_width: dict[int, list[Detection]]) -> None:
        self.by_width = by_width

    def detect(self, image: np.ndarray, conf: float | None = None) -> list[Detection]:
        return self.by_width.get(image.shape[1], [])


def _det(code: str, x0: float, y0: float, x1: float, y1: float, score: float = 0.9) -> Detection:
    return Detection(code, score, (x0, y0, x1, y1))


def _real(tmp_path: Path, images: list[dict[str, object]]) -> Path:
    for row in images:
        path = tmp_path / str(row["file"])
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), np.zeros((int(row["height"]), int(row["width"]), 3), np.uint8))
    (tmp_path / "manifest.json").write_text(json.dumps({"images": images}))
    return tmp_path


def test_pinochle_rank_recall_counts_right_rank_inside_the_card(tmp_path: Path) -> None:
    real = _real(
        tmp_path,
        [
            {
                "file": "edje_pinochle/train/a.jpg",
                "width": 100,
                "height": 80,
                "boxes": [
                    {"xmin": 0, "ymin": 0, "xmax": 40, "ymax": 60, "rank": "K"},
                    {"xmin": 50, "ymin": 0, "xmax": 90, "ymax": 60, "rank": "9"},
                ],
            },
        ],
    )
    det = ScriptedDetector(
        {
            100: [
                _det("KH", 2, 2, 10, 14),  # right rank inside the first card
                _det("QS", 52, 2, 60, 14),  # wrong rank inside the second card
                _det("AS", 20, 65, 30, 78),  # outside every card
            ]
        }
    )
    res = eval_pinochle(det, real, 0.3)  # type: ignore[arg-type]
    assert res.value == pytest.approx(0.5)
    assert res.details["wrong_rank_detections_per_image"] == 1
    assert res.details["detections_off_any_card_per_image"] == 1


def test_single_card_accuracy_uses_the_top_detection(tmp_path: Path) -> None:
    real = _real(
        tmp_path,
        [
            {"file": "ivr_edinburgh/d/1.jpg", "width": 64, "height": 48, "cards": ["7H"]},
            {"file": "ivr_edinburgh/d/2.jpg", "width": 65, "height": 48, "cards": ["2S"]},
            {"file": "ivr_edinburgh/d/3.jpg", "width": 66, "height": 48, "cards": ["9D"]},
        ],
    )
    det = ScriptedDetector({64: [_det("7H", 0, 0, 5, 5)], 65: [_det("2C", 0, 0, 5, 5)]})
    res = eval_single_card(det, real, "ivr_edinburgh", 0.3)  # type: ignore[arg-type]
    assert res.images == 3 and res.value == pytest.approx(1 / 3)
    assert res.details["rank_accuracy"] == pytest.approx(2 / 3, abs=1e-3)
    assert res.details["no_detection"] == 1


def test_exact_hand_pairs_the_corners_of_one_card(tmp_path: Path) -> None:
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "truth").mkdir()
    rows = [
        {"image": "a.jpg", "cards": ["AS", "7H"], "kind": "hand"},
        {"image": "b.jpg", "cards": ["2C"], "kind": "hand"},
    ]
    cv2.imwrite(str(tmp_path / "images" / "val" / "a.jpg"), np.zeros((40, 50, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "images" / "val" / "b.jpg"), np.zeros((40, 51, 3), np.uint8))
    (tmp_path / "truth" / "val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    # two corners of 7H and one of AS: one exact hand; the second photo misses its card
    det = ScriptedDetector(
        {50: [_det("7H", 0, 0, 4, 4), _det("7H", 40, 30, 44, 34), _det("AS", 10, 0, 14, 4)]}
    )
    res = eval_synthetic(det, tmp_path, 0.3, None, None, failures=tmp_path / "fail")  # type: ignore[arg-type]
    assert [f.name for f in (tmp_path / "fail").iterdir()] == ["synth_b.jpg"]  # the photo it got wrong
    assert res.exact_hand_rate == pytest.approx(0.5)
    assert res.card_precision == 1.0 and res.card_recall == pytest.approx(2 / 3)
    assert "exact-hand rate (2 images) | 0.500" in render_report(res, [], {"median_ms": 1.0}, 0.3, 320)
    assert res.scores_right == {"jhyap": 0.5, "seep": 1.0, "seep_photos": 2}  # 2C has no Seep points
    assert "Jhyap values 0.500, Seep points 1.000 (2 photos without a joker)" in render_report(
        res, [], {"median_ms": 1.0}, 0.3, 320
    )


def _one_photo(tmp_path: Path, cards: list[str]) -> None:
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "truth").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "val" / "a.jpg"), np.zeros((40, 50, 3), np.uint8))
    row = {"image": "a.jpg", "cards": cards, "kind": "hand"}
    (tmp_path / "truth" / "val.jsonl").write_text(json.dumps(row) + "\n")


def test_a_given_threshold_is_used_and_the_sweep_still_shows_the_best(tmp_path: Path) -> None:
    _one_photo(tmp_path, ["AS", "7H"])
    # 7H is found only weakly: the photo is exact at 0.25 and below, not at the model's own 0.3
    det = ScriptedDetector({50: [_det("AS", 10, 0, 14, 4, 0.9), _det("7H", 0, 0, 4, 4, 0.27)]})
    given = eval_synthetic(det, tmp_path, 0.3, None, None)  # type: ignore[arg-type]
    assert given.conf == 0.3 and given.conf_given
    assert given.exact_hand_rate == 0.0  # measured at the threshold given, not the best
    assert given.conf_sweep["0.25"] == 1.0 and given.conf_sweep["0.3"] == 0.0
    line = render_report(given, [], {"median_ms": 1.0}, 0.3, 320)
    assert "Confidence threshold 0.3, the model's own" in line
    assert "(best 1.000 at 0.05; the kiosk's reading is measured at 0.3 only)" in line
    chosen = eval_synthetic(det, tmp_path, None, None, None)  # type: ignore[arg-type]
    assert chosen.conf == 0.05 and not chosen.conf_given and chosen.exact_hand_rate == 1.0
    assert "Confidence threshold 0.05, chosen on these images" in render_report(
        chosen, [], {"median_ms": 1.0}, 0.05, 320
    )


def test_a_threshold_off_the_sweep_is_measured_too(tmp_path: Path) -> None:
    _one_photo(tmp_path, ["AS"])
    det = ScriptedDetector({50: [_det("AS", 10, 0, 14, 4, 0.9)]})
    res = eval_synthetic(det, tmp_path, 0.22, None, None)  # type: ignore[arg-type]
    assert res.conf == 0.22 and res.conf_sweep["0.22"] == 1.0
    assert list(res.conf_sweep) == sorted(res.conf_sweep, key=float)


def test_the_saved_threshold_is_read_and_a_bad_one_is_named(tmp_path: Path) -> None:
    classes = tmp_path / "classes.json"
    classes.write_text(json.dumps({"names": ["AS"], "conf": 0.2}))
    assert saved_conf(classes) == 0.2
    classes.write_text(json.dumps({"names": ["AS"]}))
    assert saved_conf(classes) is None
    classes.write_text(json.dumps({"names": ["AS"], "conf": 2}))
    with pytest.raises(EvalError, match=r"classes.json: 'conf' must be a number between 0 and 1, got 2"):
        saved_conf(classes)
    classes.write_text("{not json")
    with pytest.raises(EvalError, match="classes.json: cannot read the class list"):
        saved_conf(classes)


@pytest.mark.parametrize(("text", "value"), [("0.2", 0.2), ("best", "best")])
def test_conf_takes_a_threshold_or_best(text: str, value: float | str) -> None:
    assert conf_choice(text) == value


@pytest.mark.parametrize("text", ["0", "1.5", "high"])
def test_conf_refuses_what_is_not_a_threshold(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=f"got '{text}'"):
        conf_choice(text)


@pytest.mark.parametrize(
    ("truth", "read", "jhyap", "seep"),
    [
        (["KS", "7H"], ["KS", "7H"], 1, 1),  # exact
        (["KH", "7H"], ["JH", "7H"], 1, 1),  # a court read as another: same value, no Seep points either way
        (["KS", "7H"], ["JS", "7H"], 1, 0),  # the king of spades is 13 Seep points, the jack 11
        (["4H", "7H"], ["5H", "7H"], 0, 1),  # a 4 read as a 5: Jhyap counts it, Seep does not
        (["3H", "AS"], ["AS"], 0, 1),  # a missed three of hearts: 3 Jhyap points, no Seep points
        (["AS", "2S"], ["2S", "AH"], 1, 1),  # swapped aces: same value, 1 Seep point each
        (["10D"], ["10H"], 1, 0),  # the ten of diamonds is worth 6 in Seep
        (["5C", "2C"], ["7C"], 0, 1),  # Jhyap compares value for value, not the total
        ([], ["JK"], 1, 0),  # a joker adds 0 to any Jhyap hand, and cannot be in a Seep reading
    ],
)
def test_scores_right_forgives_the_misreads_a_game_does_not_count(
    truth: list[str], read: list[str], jhyap: int, seep: int
) -> None:
    from models.training.evaluate import scores_right

    rates = scores_right([{"cards": truth}], [set(read)])
    assert (rates["jhyap"], rates["seep"], rates["seep_photos"]) == (jhyap, seep, 1)


def test_scores_right_leaves_photos_with_a_joker_out_of_seep() -> None:
    from models.training.evaluate import scores_right

    rows: list[dict[str, object]] = [{"cards": ["JK", "AS"]}, {"cards": ["AS"]}, {"cards": ["2S"]}]
    rates = scores_right(rows, [{"AS"}, {"AS"}, {"3S"}])  # a missed joker leaves the Jhyap totals as they are
    assert rates == {"jhyap": pytest.approx(2 / 3, abs=1e-4), "seep": 0.5, "seep_photos": 2}
    assert scores_right([], []) == {"jhyap": 0.0, "seep": 0.0, "seep_photos": 0}


def test_truth_with_readability_records_splits_the_reading_in_the_report(tmp_path: Path) -> None:
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "truth").mkdir()
    cam = {"lowres": 1.0, "blur": 0.0, "motion": 0, "noise": 1.0, "jpeg": 90}
    rows = [
        {"image": "a.jpg", "cards": ["AS"], "kind": "hand", "camera": cam,
         "corners": [{"code": "AS", "h": 30.0, "w": 14.0, "visible": 1.0}]},
        {"image": "b.jpg", "cards": ["2C"], "kind": "hand", "camera": {**cam, "motion": 4},
         "corners": [{"code": "2C", "h": 16.0, "w": 8.0, "visible": 0.9}]},
    ]  # fmt: skip
    cv2.imwrite(str(tmp_path / "images" / "val" / "a.jpg"), np.zeros((40, 50, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "images" / "val" / "b.jpg"), np.zeros((40, 51, 3), np.uint8))
    (tmp_path / "truth" / "val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    det = ScriptedDetector({50: [_det("AS", 0, 0, 4, 4)]})  # the small, blurred 2C is missed
    res = eval_synthetic(det, tmp_path, 0.3, None, None)  # type: ignore[arg-type]
    split = res.readability["one pass"]
    assert (split.clear.hit, split.clear.total, split.rest.hit, split.rest.total) == (1, 1, 0, 1)
    assert split.cards_by_height["14-18 px"].rate == 0.0 and split.cards_by_height["28-40 px"].rate == 1.0
    assert json.loads(json.dumps(asdict(res)))["readability"]["one pass"]["clear"] == {"hit": 1, "total": 1}
    report = render_report(res, [], {"median_ms": 1.0}, 0.3, 320)
    assert "one pass 1.000 (1/1), the other photos 0.000 (0/1)" in report
    assert "| motion blur | 0.000 (0/1) |" in report


def test_truth_without_records_reports_no_split(tmp_path: Path) -> None:
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "truth").mkdir()
    (tmp_path / "truth" / "val.jsonl").write_text(json.dumps({"image": "a.jpg", "cards": [], "kind": "x"}))
    cv2.imwrite(str(tmp_path / "images" / "val" / "a.jpg"), np.zeros((40, 50, 3), np.uint8))
    res = eval_synthetic(ScriptedDetector({}), tmp_path, 0.3, None, None)  # type: ignore[arg-type]
    assert res.readability == {}
    assert "By readability" not in render_report(res, [], {"median_ms": 1.0}, 0.3, 320)


def test_missing_truth_is_named(tmp_path: Path) -> None:
    with pytest.raises(EvalError, match="val.jsonl"):
        eval_synthetic(ScriptedDetector({}), tmp_path, 0.3, None, None)  # type: ignore[arg-type]


def test_the_kiosk_detector_reads_every_photo(tmp_path: Path) -> None:
    from models.training.evaluate import SHIPPED_ONNX, exact_hand, kiosk_reads

    (tmp_path / "images" / "val").mkdir(parents=True)
    rows: list[dict[str, object]] = [
        {"image": "empty.jpg", "cards": [], "kind": "negative"},
        {"image": "also-empty.jpg", "cards": ["AS"], "kind": "hand"},
    ]
    (tmp_path / "truth").mkdir()
    (tmp_path / "truth" / "val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for row in rows:  # a plain grey table: nothing to read, so only the first row is right
        cv2.imwrite(
            str(tmp_path / "images" / "val" / str(row["image"])), np.full((480, 640, 3), 120, np.uint8)
        )
    rate, by_kind = exact_hand(rows, kiosk_reads(SHIPPED_ONNX, tmp_path, rows, 0.3, 2))
    assert rate == pytest.approx(0.5)
    assert by_kind == {"hand": 0.0, "negative": 1.0}
    res = eval_synthetic(ScriptedDetector({}), tmp_path, 0.3, None, None)  # type: ignore[arg-type]
    res.tiles, res.tiled_exact_hand_rate, res.tiled_exact_by_kind = 2, rate, by_kind
    report = render_report(res, [], {"median_ms": 1.0}, 0.3, 320)
    assert "kiosk's tiling (2 x 2 crops" in report and "exact-hand rate 0.500" in report
    auto = kiosk_reads(SHIPPED_ONNX, tmp_path, rows, 0.3, None)
    assert exact_hand(rows, auto) == (rate, by_kind)  # auto: one pass here
    res.tiles = None
    assert "kiosk's own reading (tiles auto" in render_report(res, [], {"median_ms": 1.0}, 0.3, 320)


def _label(code: str, x0: float, y0: float, x1: float, y1: float, w: int, h: int) -> str:
    return f"{CLASS_INDEX[code]} {(x0 + x1) / 2 / w} {(y0 + y1) / 2 / h} {(x1 - x0) / w} {(y1 - y0) / h}"


def test_corner_reads_count_right_confused_and_missed_corners(tmp_path: Path) -> None:
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "labels" / "val").mkdir(parents=True)
    (tmp_path / "truth").mkdir()
    rows = [{"image": "a.jpg", "cards": ["QH", "7S", "AC", "2D"], "kind": "table"}]
    (tmp_path / "truth" / "val.jsonl").write_text(json.dumps(rows[0]) + "\n")
    cv2.imwrite(str(tmp_path / "images" / "val" / "a.jpg"), np.zeros((100, 200, 3), np.uint8))
    boxes = {
        "QH": (10, 10, 20, 25),
        "7S": (50, 10, 60, 25),
        "AC": (90, 10, 100, 25),
        "2D": (150, 60, 160, 75),
    }
    lines = [_label(code, *box, 200, 100) for code, box in boxes.items()]
    (tmp_path / "labels" / "val" / "a.txt").write_text("\n".join(lines) + "\n")
    det = ScriptedDetector(
        {
            200: [
                _det("KH", 10, 10, 20, 25),  # another rank
                _det("7S", 51, 11, 60, 25),  # right
                _det("AS", 90, 10, 100, 25),  # right rank, another suit
                _det("2D", 100, 60, 110, 75),  # far from the 2D corner: that one is missed
            ]
        }
    )
    res = eval_synthetic(det, tmp_path, 0.3, None, None)  # type: ignore[arg-type]
    c = res.corners
    assert c is not None
    assert (c.corners, c.right, c.missed, c.other_rank, c.other_suit) == (4, 1, 1, 1, 1)
    assert c.confusions == {"QH->KH": 1, "AC->AS": 1} and c.most_common(1) == [("AC->AS", 1)]
    assert json.loads(json.dumps(asdict(res)))["corners"]["confusions"] == {"QH->KH": 1, "AC->AS": 1}
    report = render_report(res, [], {"median_ms": 1.0}, 0.3, 320)
    assert "Corner indices (4 labelled): read right 0.250, as another rank 0.250" in report
    assert "missed 0.250" in report and "QH->KH 1" in report


def test_a_malformed_label_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("0 0.5 0.5 0.1 0.1\n99 0.5 0.5 0.1 0.1\n")
    with pytest.raises(EvalError, match=r"a.txt:2: not a YOLO label line"):
        read_yolo_labels(path, 100, 100)
    assert read_yolo_labels(tmp_path / "none.txt", 100, 100) == []


def test_real_photos_are_measured_as_the_kiosk_reads_them_too(tmp_path: Path, faces_dir: Path) -> None:
    # The kiosk's own detector (quarter turns, the corner reader) behind the one-pass interface: a held-out
    # design's card, photographed upside down, is its top detection, and the report says which reading.
    from models.training.evaluate import SHIPPED_ONNX, KioskReading
    from tests.models.helpers import on_table
    from vision.reader.corners import DEFAULT_READER

    face = cv2.imread(str(faces_dir / "ais-tigullio" / "QH.png"), cv2.IMREAD_UNCHANGED)
    assert face is not None
    (tmp_path / "ivr_edinburgh").mkdir()
    cv2.imwrite(str(tmp_path / "ivr_edinburgh" / "q.jpg"), np.ascontiguousarray(np.rot90(on_table(face), 2)))
    (tmp_path / "manifest.json").write_text(
        json.dumps({"images": [{"file": "ivr_edinburgh/q.jpg", "cards": ["QH"]}]})
    )
    kiosk = KioskReading(SHIPPED_ONNX, 0.2, None, 2, str(DEFAULT_READER))
    res = eval_single_card(kiosk, tmp_path, "ivr_edinburgh", 0.2, reading=kiosk.name)
    assert (res.value, res.reading) == (1.0, "kiosk")
    assert "| ivr_edinburgh | kiosk | 1 | card accuracy" in render_report(None, [res], {}, 0.2, 576)
    with pytest.raises(EvalError, match="built for confidence 0.2, not 0.5"):
        kiosk.detect(np.zeros((48, 64, 3), np.uint8), conf=0.5)


def test_the_camera_set_is_read_as_the_kiosk_reads_and_put_into_the_report(
    tmp_path: Path, faces_dir: Path
) -> None:
    from models.training.evaluate import (
        CAMERA_HEADING,
        SHIPPED_ONNX,
        measure_camera,
        render_report,
        update_camera_section,
    )
    from tests.models.helpers import on_table

    data = tmp_path / "camera"
    (data / "images" / "val").mkdir(parents=True)
    (data / "truth").mkdir()
    face = cv2.imread(str(faces_dir / "ais-tigullio" / "AS.png"), cv2.IMREAD_UNCHANGED)
    photos = {"card.jpg": on_table(face), "empty.jpg": np.full((480, 640, 3), 120, np.uint8)}
    rows = [
        {"image": "card.jpg", "cards": ["AS", "7H"], "kind": "hand"},  # the 7H is not in the photo
        {"image": "empty.jpg", "cards": [], "kind": "negative"},
    ]
    for name, photo in photos.items():
        cv2.imwrite(str(data / "images" / "val" / name), cv2.resize(photo, (1280, 960)))
    (data / "truth" / "val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    cam = measure_camera(SHIPPED_ONNX, data, 0.2, 1, "off")
    assert (cam.images, cam.long_side, cam.cards, cam.cards_right, cam.extra) == (2, 1280, 2, 1, 0)
    assert cam.exact_hand_rate == 0.5 and cam.exact_by_kind == {"hand": 0.0, "negative": 1.0}

    out = tmp_path / "eval"
    out.mkdir()
    report = render_report(None, [], {"median_ms": 1.0}, 0.2, 576)
    (out / "report.md").write_text(report)
    (out / "report.json").write_text(json.dumps({"conf": 0.2, "camera": None}))
    for _ in range(2):  # a second update replaces the section, not adds one
        update_camera_section(out, cam)
    text = (out / "report.md").read_text()
    assert text.count(CAMERA_HEADING) == 1 and text.index(CAMERA_HEADING) < text.index("## Speed")
    assert "exact-hand rate 0.500" in text and "Cards right 1 of 2 (0.500), 0 extra" in text
    assert json.loads((out / "report.json").read_text())["camera"]["cards_right"] == 1
    assert render_report(None, [], {"median_ms": 1.0}, 0.2, 576, cam).count(CAMERA_HEADING) == 1
