"""The detector: its geometry (letterbox, decoding the raw YOLO output, both NMS steps), the ONNX Runtime
backend and the Ultralytics adapter behind one protocol, and model loading errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.vision.helpers import raw_output, table_photo
from vision.base.errors import InvalidValueError, VisionError
from vision.base.geometry import (
    MAX_CANDIDATES,
    Letterbox,
    candidate_boxes,
    decode_predictions,
    fuse_views,
    letterbox,
    nms,
    rect_input_size,
    rotate_image,
    suppress,
    tile_origins,
    turns,
    unrotate_boxes,
)
from vision.base.types import CARD_CODES, Detection, ImageError, ModelError
from vision.reading.detector import CardDetector
from vision.reading.rules import SMALL_CORNER
from vision.runtimes.model_files import load_class_codes, rotations_from
from vision.runtimes.protocols import Detector
from vision.runtimes.ultralytics import UltralyticsDetector

# A 640x480 photo in a 320 input: scale 0.5, 40 px of padding above and below.
LB = Letterbox(scale=0.5, pad_x=0.0, pad_y=40.0, size=(320, 320))


def to_input_xywh(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float, float, float]:
    """A photo box (640x480 photo) as the model's xywh in the 320 letterboxed input."""
    return ((x1 + x2) / 4, (y1 + y2) / 4 + 40, (x2 - x1) / 2, (y2 - y1) / 2)


def test_letterbox_keeps_the_aspect_and_pads_with_grey() -> None:
    image = np.full((480, 640, 3), 255, dtype=np.uint8)
    padded, lb = letterbox(image, 320)
    assert padded.shape == (320, 320, 3)
    assert lb == Letterbox(0.5, 0.0, 40.0, (320, 320))
    assert (padded[:40] == 114).all() and (padded[280:] == 114).all() and (padded[40:280] == 255).all()


def test_decoding_maps_boxes_back_to_photo_pixels() -> None:
    out = raw_output([to_input_xywh(100, 100, 120, 130)], [{"7S": 0.9}], anchors=8)
    (det,) = decode_predictions(out, CARD_CODES, LB, (480, 640))
    assert det.code == "7S" and det.confidence == pytest.approx(0.9)
    assert det.box == pytest.approx((100, 100, 120, 130))


def test_decoding_drops_boxes_under_the_confidence_threshold() -> None:
    out = raw_output(
        [to_input_xywh(100, 100, 120, 130), to_input_xywh(300, 100, 320, 130)], [{"7S": 0.9}, {"8S": 0.2}]
    )
    assert [d.code for d in decode_predictions(out, CARD_CODES, LB, (480, 640), conf=0.25)] == ["7S"]
    assert len(decode_predictions(out, CARD_CODES, LB, (480, 640), conf=0.1)) == 2


def test_decoding_clips_boxes_to_the_photo() -> None:
    out = raw_output([(5, 50, 20, 20)], [{"AS": 0.8}])  # reaches left of the photo
    (det,) = decode_predictions(out, CARD_CODES, LB, (480, 640))
    assert det.box[0] == 0.0


def test_overlapping_boxes_of_one_class_are_suppressed_to_the_best() -> None:
    out = raw_output(
        [
            to_input_xywh(100, 100, 120, 130),
            to_input_xywh(101, 101, 121, 131),
            to_input_xywh(400, 100, 420, 130),
        ],
        [{"7S": 0.7}, {"7S": 0.9}, {"7S": 0.8}],
    )
    dets = decode_predictions(out, CARD_CODES, LB, (480, 640))
    assert [d.confidence for d in dets] == pytest.approx([0.9, 0.8])


def test_one_spot_read_as_two_codes_is_one_corner_with_an_alternative() -> None:
    out = raw_output(
        [to_input_xywh(100, 100, 120, 130), to_input_xywh(100, 101, 120, 131)],
        [{"6H": 0.8}, {"9H": 0.6}],
    )
    (det,) = decode_predictions(out, CARD_CODES, LB, (480, 640))
    assert det.code == "6H" and det.alternatives == (("9H", pytest.approx(0.6)),)


def test_second_best_class_scores_of_a_box_become_alternatives() -> None:
    out = raw_output([to_input_xywh(100, 100, 120, 130)], [{"QH": 0.7, "QD": 0.5, "KH": 0.05}])
    (det,) = decode_predictions(out, CARD_CODES, LB, (480, 640))
    assert det.code == "QH" and [code for code, _ in det.alternatives] == ["QD"]


def test_distinct_corners_of_different_codes_are_all_kept() -> None:
    boxes = [to_input_xywh(100 + 30 * k, 100, 120 + 30 * k, 130) for k in range(5)]
    out = raw_output(boxes, [{code: 0.9} for code in ["2S", "3S", "4S", "5S", "6S"]])
    assert sorted(d.code for d in decode_predictions(out, CARD_CODES, LB, (480, 640))) == [
        "2S",
        "3S",
        "4S",
        "5S",
        "6S",
    ]


def test_an_output_of_the_wrong_shape_is_a_model_error() -> None:
    with pytest.raises(ModelError, match=r"expected \(1, 57, N\)"):
        decode_predictions(np.zeros((1, 84, 10), np.float32), CARD_CODES, LB, (480, 640))


def test_nms_keeps_the_best_of_overlapping_boxes() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]], dtype=np.float32)
    assert nms(boxes, np.array([0.5, 0.9, 0.7], np.float32), 0.5).tolist() == [1, 2]


def test_the_onnx_detector_finds_what_the_model_outputs(make_model: Callable[..., Path]) -> None:
    model = make_model(raw_output([to_input_xywh(100, 100, 120, 130)], [{"10C": 0.95}], anchors=20))
    detector = CardDetector(model, tiles=1)  # one pass: the fake model answers every crop alike
    assert not detector.loaded
    (det,) = detector.detect(table_photo())
    assert detector.loaded and detector.imgsz == 320
    assert det.code == "10C" and det.box == pytest.approx((100, 100, 120, 130), abs=0.01)


def test_a_fixed_input_size_cannot_be_overridden(make_model: Callable[..., Path]) -> None:
    model = make_model(raw_output([], [], anchors=4))
    with pytest.raises(ModelError, match="fixed 320x320 input, not imgsz=640"):
        CardDetector(model, imgsz=640).load()


def test_a_missing_model_is_a_clear_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"model file .*nothing\.onnx not found"):
        CardDetector(tmp_path / "nothing.onnx").detect(table_photo())


def test_an_empty_model_file_is_a_clear_model_error(tmp_path: Path) -> None:
    (tmp_path / "cards.onnx").write_bytes(b"")
    with pytest.raises(ModelError, match="is empty"):
        CardDetector(tmp_path / "cards.onnx").load()


def test_a_corrupt_model_file_is_a_clear_model_error(tmp_path: Path) -> None:
    (tmp_path / "cards.onnx").write_bytes(b"\x08\x07this is not a protobuf" * 10)
    with pytest.raises(ModelError, match="is not a valid ONNX model"):
        CardDetector(tmp_path / "cards.onnx").load()


def test_a_model_with_a_different_number_of_classes_is_refused(make_model: Callable[..., Path]) -> None:
    model = make_model(np.zeros((1, 84, 10), np.float32))
    with pytest.raises(ModelError, match="does not match 53 classes"):
        CardDetector(model).load()


def test_class_codes_come_from_classes_json_next_to_the_model(tmp_path: Path) -> None:
    model = tmp_path / "cards.onnx"
    (tmp_path / "classes.json").write_text(json.dumps({"format": "x", "names": list(reversed(CARD_CODES))}))
    assert load_class_codes(model) == tuple(reversed(CARD_CODES))
    (tmp_path / "classes.json").write_text(json.dumps(list(CARD_CODES)))
    assert load_class_codes(model) == CARD_CODES


def test_class_names_that_are_not_card_codes_are_refused(tmp_path: Path) -> None:
    (tmp_path / "classes.json").write_text(json.dumps(["person", "bicycle"]))
    with pytest.raises(ModelError, match=r"\['person', 'bicycle'\] are not card codes"):
        load_class_codes(tmp_path / "cards.onnx")
    (tmp_path / "classes.json").write_text("{not json")
    with pytest.raises(ModelError, match="not a readable JSON list"):
        load_class_codes(tmp_path / "cards.onnx")


def test_ultralytics_metadata_names_are_used_without_classes_json(tmp_path: Path) -> None:
    names = {i: code for i, code in enumerate(CARD_CODES)}
    assert load_class_codes(tmp_path / "cards.onnx", names) == CARD_CODES


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (np.zeros((10, 10), np.uint8), "HxWx3"),
        (np.zeros((10, 10, 3), np.float32), "uint8"),
        ("photo.jpg", "expected an image array"),
    ],
)
def test_detecting_on_something_that_is_not_a_bgr_image_is_an_image_error(
    image: object, message: str
) -> None:
    with pytest.raises(ImageError, match=message):
        CardDetector("unused.onnx").detect(image)  # type: ignore[arg-type]


def test_bad_detector_settings_are_refused_as_vision_errors() -> None:
    with pytest.raises(InvalidValueError, match="conf must lie between 0 and 1"):
        CardDetector(conf=1.5)
    with pytest.raises(InvalidValueError, match="multiple of 32"):
        CardDetector(imgsz=100)
    with pytest.raises(InvalidValueError, match="multiple of 32"):
        UltralyticsDetector(imgsz=100)
    with pytest.raises(VisionError, match="conf must lie between 0 and 1"):
        UltralyticsDetector(conf=0.0)


def test_the_default_models_are_the_shipped_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLETALLY_MODEL", raising=False)
    assert CardDetector().model_path.name == "cards.onnx"
    monkeypatch.setenv("TABLETALLY_MODEL", "/srv/other.onnx")
    assert CardDetector().model_path == Path("/srv/other.onnx")
    assert UltralyticsDetector().model_path.name == "cards.pt"


def test_tile_origins_cover_the_photo_with_overlap() -> None:
    assert tile_origins(500, 600, 0.2) == [0]
    origins = tile_origins(1000, 560, 0.2)
    assert origins[0] == 0 and origins[-1] == 1000 - 560
    assert all(b - a <= 560 * 0.8 for a, b in zip(origins, origins[1:], strict=False))


def test_tiling_runs_the_whole_photo_and_each_crop_and_maps_crops_back(
    make_model: Callable[..., Path],
) -> None:
    # The constant model sees one corner in the middle of whatever it is shown.
    model = make_model(raw_output([(160, 160, 10, 10)], [{"4C": 0.9}], anchors=4))
    photo = table_photo(1000, 1000)
    centres = sorted(
        (round((d.box[0] + d.box[2]) / 2), round((d.box[1] + d.box[3]) / 2))
        for d in CardDetector(model, tiles=2).detect(photo)
    )
    # Whole photo: centre 500; crops of 556 px at 0 and 444: centres 278 and 722.
    assert centres == [(278, 278), (278, 722), (500, 500), (722, 278), (722, 722)]
    assert len(CardDetector(model, tiles=1).detect(photo)) == 1


def test_a_box_cut_by_a_crop_edge_is_dropped(make_model: Callable[..., Path]) -> None:
    # A corner at the very right edge of what the model is shown: kept for the photo's real edge only.
    model = make_model(raw_output([(316, 160, 8, 10)], [{"4C": 0.9}], anchors=4))
    dets = CardDetector(model, tiles=2).detect(table_photo(1000, 1000))
    # The whole photo and the two right-hand crops keep it; the two left-hand crops cut it and drop it.
    assert all(d.box[2] == pytest.approx(1000, abs=1) for d in dets) and len(dets) == 3


def test_a_corrupt_ultralytics_model_is_a_clear_model_error(tmp_path: Path) -> None:
    pytest.importorskip("ultralytics")
    (tmp_path / "cards.pt").write_bytes(b"not a torch checkpoint" * 8)
    with pytest.raises(ModelError, match=r"cards\.pt is not a valid Ultralytics model"):
        UltralyticsDetector(tmp_path / "cards.pt").load()


def test_letterbox_into_a_rectangle_pads_only_what_is_left() -> None:
    padded, lb = letterbox(np.full((480, 640, 3), 9, np.uint8), (256, 320))
    assert padded.shape == (256, 320, 3) and lb == Letterbox(0.5, 0.0, 8.0, (256, 320))


@pytest.mark.parametrize(
    ("photo", "imgsz", "expected"),
    [((480, 640), 416, (320, 416)), ((2592, 4608), 416, (256, 416)), ((640, 480), 640, (640, 480))],
)
def test_a_dynamic_model_gets_the_smallest_stride_aligned_input_for_the_photo(
    photo: tuple[int, int], imgsz: int, expected: tuple[int, int]
) -> None:
    assert rect_input_size(photo, imgsz) == expected


def test_a_dynamic_shape_model_is_run_on_a_rect_input(make_model: Callable[..., Path]) -> None:
    # At imgsz 640 a 640x480 photo needs no scaling and no padding: input boxes are photo boxes.
    model = make_model(raw_output([(110, 115, 20, 30)], [{"KS": 0.9}], anchors=4), imgsz=None)
    detector = CardDetector(model, imgsz=640)
    (det,) = detector.detect(table_photo())
    assert detector.input_hw is None and det.box == pytest.approx((100, 100, 120, 130))


def test_a_fixed_rectangular_model_input_is_used_as_it_is(make_model: Callable[..., Path]) -> None:
    model = make_model(raw_output([(55, 65 + 8, 10, 15)], [{"KS": 0.9}], anchors=4), imgsz=(256, 320))
    detector = CardDetector(model, tiles=1)
    (det,) = detector.detect(table_photo())
    assert detector.input_hw == (256, 320) and detector.imgsz == 320
    assert det.box == pytest.approx((100, 115, 120, 145))


def test_letterboxing_a_big_photo_averages_instead_of_skipping_pixels() -> None:
    # One white column in eight: the true average is 255 / 8 = 32; a single bilinear step at 1/8 samples
    # next to the stripes and gives 128 everywhere.
    stripes = np.zeros((2560, 2560, 3), np.uint8)
    stripes[:, 3::8] = 255
    padded, lb = letterbox(stripes, 320)
    assert lb.scale == pytest.approx(0.125) and padded.shape == (320, 320, 3)
    assert abs(float(padded.mean()) - 32) < 2 and float(padded.std()) < 2


def test_the_model_s_own_threshold_from_classes_json_is_the_default(make_model: Callable[..., Path]) -> None:
    model = make_model(raw_output([(55, 72.5, 10, 15)], [{"7S": 0.15}], anchors=4))
    assert CardDetector(model, tiles=1).detect(table_photo()) == []  # 0.15 < the general default 0.25
    (model.parent / "classes.json").write_text(json.dumps({"names": list(CARD_CODES), "conf": 0.1}))
    detector = CardDetector(model, tiles=1)
    assert [d.code for d in detector.detect(table_photo())] == ["7S"] and detector.conf == 0.1
    assert CardDetector(model, conf=0.2, tiles=1).detect(table_photo()) == []  # an explicit threshold wins


def test_a_bad_threshold_in_classes_json_is_a_model_error(make_model: Callable[..., Path]) -> None:
    model = make_model(raw_output([], [], anchors=4))
    (model.parent / "classes.json").write_text(json.dumps({"names": list(CARD_CODES), "conf": "low"}))
    with pytest.raises(ModelError, match="'conf' must be a number between 0 and 1, got 'low'"):
        CardDetector(model).load()


def test_photos_much_bigger_than_the_model_input_are_tiled_by_default(
    make_model: Callable[..., Path],
) -> None:
    model = make_model(raw_output([(160, 160, 10, 10)], [{"4C": 0.9}], anchors=4))
    detector = CardDetector(model).load()
    assert detector.tiles_for((480, 640)) == 1 and detector.tiles_for((960, 1280)) == 2
    assert len(detector.detect(table_photo(1000, 1000))) == 5  # the photo and 4 crops
    assert len(CardDetector(model, tiles=1).detect(table_photo(1000, 1000))) == 1
    # The 576 px model: a 1280 px webcam photo is 2.2 times its input, so it is tiled; 1152 px (twice) is not.
    wide_model = make_model(raw_output([(160, 160, 10, 10)], [{"4C": 0.9}], anchors=4), imgsz=576)
    wide = CardDetector(wide_model).load()
    assert wide.tiles_for((960, 1280)) == 2 and wide.tiles_for((864, 1152)) == 1


def test_photos_whose_corners_come_out_small_are_read_again_in_crops(make_model: Callable[..., Path]) -> None:
    # A 640x480 photo is not big enough to be tiled up front; its one corner is 12 px in the 320 px input.
    model = make_model(raw_output([(160, 160, 10, 15)], [{"4C": 0.9}], anchors=4))
    auto = CardDetector(model)
    assert auto.load().tiles_for((480, 640)) == 1
    found = auto.detect(table_photo())
    assert len(found) > 1  # the fake model answers each crop alike: each finds "its" corner
    assert found == CardDetector(model, tiles=2).detect(table_photo())
    assert len(CardDetector(model, tiles=1).detect(table_photo())) == 1


def test_photos_whose_corners_are_large_enough_are_read_in_one_pass(make_model: Callable[..., Path]) -> None:
    model = make_model(raw_output([(160, 160, 24, 30)], [{"4C": 0.9}], anchors=4))  # 26.8 px in the input
    assert len(CardDetector(model).detect(table_photo())) == 1
    assert CardDetector(make_model(raw_output([], [], anchors=4))).detect(table_photo()) == []


def test_corners_are_measured_in_model_input_pixels() -> None:
    detector = CardDetector("unused.onnx", imgsz=640)  # not loaded: a dynamic input of long side 640
    assert SMALL_CORNER == 24.0

    def corner(side: float) -> Detection:
        return Detection("4C", 0.9, (100.0, 100.0, 100.0 + side, 100.0 + side))

    assert detector.corners_are_small([corner(20)], (480, 640))  # 20 px at scale 1
    assert not detector.corners_are_small([corner(30)], (480, 640))
    assert detector.corners_are_small([corner(40)], (960, 1280))  # 40 px at scale 0.5: 20
    assert not detector.corners_are_small([corner(40), corner(60), corner(10)], (480, 640))  # median 40
    assert not detector.corners_are_small([], (480, 640))


@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_boxes_found_in_a_turned_photo_map_back_onto_the_photo(quarter_turns: int) -> None:
    photo = np.zeros((48, 64, 3), np.uint8)
    photo[10:20, 5:30] = 255  # x 5-30, y 10-20
    turned = rotate_image(photo, quarter_turns)
    ys, xs = np.nonzero(turned[:, :, 0])
    found = np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], np.float32)
    assert turned.shape[:2] == ((64, 48) if quarter_turns % 2 else (48, 64))
    assert unrotate_boxes(found, quarter_turns, (48, 64)).tolist() == [[5, 10, 30, 20]]


def test_the_turns_of_a_reading_start_upright_then_half_a_turn() -> None:
    assert turns(1) == (0,) and turns(2) == (0, 2) and turns(4) == (0, 1, 2, 3)
    assert rotations_from("2") == 2
    with pytest.raises(ValueError, match=r"\$X must be 1, 2 or 4, got '3'"):
        rotations_from("3", "$X")


def _scores(**by_code: float) -> np.ndarray:
    row = np.zeros((1, len(CARD_CODES)), np.float32)
    for code, score in by_code.items():
        row[0, CARD_CODES.index(code)] = score
    return row


def test_views_that_agree_on_a_corner_keep_its_score() -> None:
    box = np.array([[10, 10, 30, 40]], np.float32)
    one = (box, _scores(QH=0.8))
    assert fuse_views([one]) is one  # a single view is left as it is
    boxes, scores = fuse_views([one, (box + 1, _scores(QH=0.8))])
    assert len(boxes) == 2 and scores[:, CARD_CODES.index("QH")] == pytest.approx([0.8, 0.8])


def test_views_that_disagree_on_a_corner_share_the_vote() -> None:
    box = np.array([[10, 10, 30, 40]], np.float32)
    boxes, scores = fuse_views([(box, _scores(QH=0.8, KH=0.3)), (box, _scores(KH=0.6))])
    (corner,) = suppress(boxes, scores, CARD_CODES)
    # QH: (0.8 + 0) / 2 = 0.4; KH: (0.3 + 0.6) / 2 = 0.45: the second view tips it, QH stays an alternative.
    assert corner.code == "KH" and corner.confidence == pytest.approx(0.45)
    assert corner.alternatives == (("QH", pytest.approx(0.4)),)


def test_a_corner_seen_in_one_view_of_two_keeps_half_its_score() -> None:
    left, right = np.array([[10, 10, 30, 40]], np.float32), np.array([[200, 10, 220, 40]], np.float32)
    boxes, scores = fuse_views([(left, _scores(AS=0.9)), (right, _scores(AS=0.5))])
    assert scores.max(axis=1) == pytest.approx([0.45, 0.25])
    empty = (np.zeros((0, 4), np.float32), np.zeros((0, len(CARD_CODES)), np.float32))
    assert len(fuse_views([empty, empty])[0]) == 0


def test_a_corner_read_alike_in_every_turn_is_one_corner_at_its_own_score(
    make_model: Callable[..., Path],
) -> None:
    # The constant model's corner sits in the middle of the input, so every turn of the photo puts it in
    # the middle of the photo again: all views agree.
    model = make_model(raw_output([(160, 160, 24, 30)], [{"4C": 0.9}], anchors=4))
    for rotations in (2, 4):
        (corner,) = CardDetector(model, rotations=rotations).detect(table_photo())
        assert corner.code == "4C" and corner.confidence == pytest.approx(0.9, abs=1e-4)
        assert corner.box[0] + corner.box[2] == pytest.approx(640, abs=1)  # centred
        assert corner.box[1] + corner.box[3] == pytest.approx(480, abs=1)


def test_a_corner_only_one_turn_sees_is_marked_down(make_model: Callable[..., Path]) -> None:
    # Off the middle, the upright view and the half-turned one put the constant corner in two places.
    model = make_model(raw_output([(55, 72.5, 24, 30)], [{"7S": 0.9}], anchors=4))
    found = CardDetector(model, rotations=2).detect(table_photo())
    assert sorted(d.confidence for d in found) == pytest.approx([0.45, 0.45], abs=1e-4)
    assert CardDetector(model, rotations=2, conf=0.5).detect(table_photo()) == []
    assert [d.confidence for d in CardDetector(model, rotations=1).detect(table_photo())] == [0.9]


def test_the_number_of_turns_comes_from_the_argument_the_environment_or_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TABLETALLY_ROTATIONS", raising=False)
    assert CardDetector("m.onnx").rotations == 2
    assert UltralyticsDetector("m.pt").rotations == 1  # Ultralytics reads a photo once
    monkeypatch.setenv("TABLETALLY_ROTATIONS", "4")
    assert CardDetector("m.onnx").rotations == 4 and CardDetector("m.onnx", rotations=1).rotations == 1
    monkeypatch.setenv("TABLETALLY_ROTATIONS", "often")
    with pytest.raises(ValueError, match=r"\$TABLETALLY_ROTATIONS must be 1, 2 or 4, got 'often'"):
        CardDetector("m.onnx")
    with pytest.raises(InvalidValueError, match="rotations must be 1, 2 or 4, got 3"):
        CardDetector("m.onnx", rotations=3)
    monkeypatch.setenv("TABLETALLY_ROTATIONS", "4")
    assert UltralyticsDetector("m.pt").rotations == 1  # the kiosk's setting does not reach it


def test_a_pass_keeps_at_most_its_best_candidates_in_anchor_order() -> None:
    n = MAX_CANDIDATES + 200
    rng = np.random.default_rng(0)
    scores = rng.permutation(n) / (2 * n) + 0.3  # distinct, all over conf
    output = raw_output([(100.0 + k % 50, 150.0, 20.0, 30.0) for k in range(n)], [{"6S": v} for v in scores])
    identity = Letterbox(1.0, 0.0, 0.0, (320, 320))
    boxes, got = candidate_boxes(output, len(CARD_CODES), identity, (320, 320), conf=0.25)
    assert len(boxes) == len(got) == MAX_CANDIDATES
    best = np.sort(np.argsort(-scores)[:MAX_CANDIDATES])  # the best, in the model's own order
    assert np.allclose(got[:, CARD_CODES.index("6S")], scores[best])
    few, _ = candidate_boxes(output, len(CARD_CODES), identity, (320, 320), conf=0.25, limit=n)
    assert len(few) == n


def test_both_backends_and_the_fake_follow_the_detector_protocol() -> None:
    from vision.runtimes.fake import FakeDetector

    assert isinstance(CardDetector("m.onnx"), Detector)
    assert isinstance(UltralyticsDetector("m.pt"), Detector)
    assert isinstance(FakeDetector(()), Detector)
    assert not isinstance(object(), Detector)


def test_the_geometry_imports_no_model_runtime() -> None:
    """vision.base.geometry is shared by every backend: importing it must not pull in a runtime."""
    import subprocess
    import sys

    runtimes = "('onnxruntime', 'torch', 'ultralytics')"
    code = f"import sys, vision.base.geometry; print([m for m in {runtimes} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_tiles_1_reads_the_whole_photo_in_one_pass_a_turn(make_model: Callable[..., Path]) -> None:
    # a small corner in a large photo: the automatic tiling would add crops; tiles=1 must not (not even
    # a grid of one crop, which is the same pass again)
    det = CardDetector(make_model(raw_output([(55, 72.5, 4, 6)], [{"7S": 0.9}], anchors=4)), tiles=1)
    passes = []
    plain = det.load().run_model
    det.run_model = lambda x: passes.append(x.shape) or plain(x)  # type: ignore[method-assign]
    found = det.detect(np.full((1500, 2000, 3), 128, np.uint8))
    assert len(passes) == det.rotations == 1 and [d.code for d in found] == ["7S"]
