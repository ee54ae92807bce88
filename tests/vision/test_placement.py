"""Where the camera hangs: the height rule, the still size, and the advice from one photo's cards."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vision.base.types import DetectedCard, InvalidValueError
from vision.devtools.placement import widest_view
from vision.table.placement import (
    BOX_PER_INDEX,
    GOOD_MODEL_PX,
    MIN_MODEL_PX,
    MODULE3,
    MODULE3_WIDE,
    WEBCAM,
    Verdict,
    camera_height,
    check_placement,
    heights_table,
    index_px,
    lens_for,
    still_size,
)
from vision.table.seats import layout

W, H = 2304, 1296
GOOD_CORNER_PX = GOOD_MODEL_PX * W / 576  # the thresholds in this photo's pixels
MIN_CORNER_PX = MIN_MODEL_PX * W / 576
README = Path(__file__).resolve().parents[2] / "deploy" / "README.md"


def card(code: str, x: float, y: float, size: float, sure: bool = True) -> DetectedCard:
    """A card whose one corner box, ``size`` pixels (``sqrt(w * h)``), is centred on (x, y) in pixels; read
    surely, or in doubt (low confidence, ``uncertain``)."""
    w, h = size * 0.75, size / 0.75
    box = (max(0.0, x - w / 2), max(0.0, y - h / 2), min(float(W), x + w / 2), min(float(H), y + h / 2))
    return DetectedCard(code, 0.9 if sure else 0.4, not sure, (box,))


def at_seats(
    size: float, seats: list[tuple[float, float]], skip: tuple[int, ...] = (), sure: bool = True
) -> list[DetectedCard]:
    codes = ["AS", "2H", "3D", "4C", "5S", "6H"]
    return [card(codes[i], x * W, y * H, size, sure) for i, (x, y) in enumerate(seats) if i not in skip]


def laid_side_by_side(
    columns: int, rows: int, width: int, height: int, size: float, margin: float
) -> list[DetectedCard]:
    """A bigger table as real photos laid side by side: one card in the middle of each of ``columns`` x
    ``rows`` tiles of a ``width`` x ``height`` photo, its corner ``size`` pixels, the outermost corners
    ``margin`` pixels in from the photo's edge; every card read surely."""
    codes = [
        f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    ]
    w, h = size * 0.75, size / 0.75
    out = []
    for k in range(columns * rows):
        i, j = k % columns, k // columns
        x = margin + w / 2 + i * (width - 2 * margin - w) / max(1, columns - 1)
        y = margin + h / 2 + j * (height - 2 * margin - h) / max(1, rows - 1)
        out.append(DetectedCard(codes[k % 52], 0.9, False, ((x - w / 2, y - h / 2, x + w / 2, y + h / 2),)))
    return out


# -- the height rule ------------------------------------------------------------------------------------


def test_a_camera_module_3_covers_a_1_m_table_from_0_77_m_and_the_wide_one_from_0_40_m() -> None:
    assert camera_height(1.0, 66) == pytest.approx(0.770, abs=0.002)
    assert MODULE3_WIDE.height_for(1.0) == pytest.approx(0.405, abs=0.002)
    # An 8 mm index on a 1 m table fills 37 px of a 4608 px still, 18 px of the 2304 px binned one.
    assert index_px(1.0, 4608) == pytest.approx(36.9, abs=0.1)
    assert index_px(1.0, 2304) == pytest.approx(18.4, abs=0.1)


def test_the_widest_view_the_reading_reads_well_follows_the_threshold() -> None:
    # A corner box of GOOD_MODEL_PX in the model's 576 px view of a picture this wide is an 8 mm index.
    view = widest_view()
    assert index_px(view, 576) * BOX_PER_INDEX == pytest.approx(GOOD_MODEL_PX)
    assert widest_view(MIN_MODEL_PX) > view


def test_bad_sizes_are_refused_with_a_message() -> None:
    with pytest.raises(InvalidValueError, match="table width"):
        camera_height(0, 66)
    with pytest.raises(InvalidValueError, match="photo size"):
        check_placement([], 0, 10)


def test_the_still_is_the_sensor_halved_while_it_stays_wide_enough() -> None:
    assert still_size((4608, 2592)) == (2304, 1296)
    assert still_size((1920, 1080)) == (1920, 1080)
    assert still_size((4608, 2592), width=1000) == (1152, 648)


def test_pi_sensors_are_known_by_libcamera_name() -> None:
    assert lens_for("imx708") is MODULE3 and lens_for("imx708_wide_noir") is MODULE3_WIDE
    assert lens_for("imx477") is None and lens_for(None) is None  # the HQ Camera takes many lenses


def test_the_heights_table_in_deploy_readme_is_the_one_the_rule_gives() -> None:
    table = heights_table()
    readme = README.read_text(encoding="utf-8")
    assert table in readme, "regenerate it: python -m vision.devtools.placement --table"
    flat = " ".join(readme.split())
    assert f"spans no more than about {widest_view():.2f} m" in flat
    assert f"loses cards beyond about {widest_view(MIN_MODEL_PX):.2f} m" in flat
    assert "| Camera Module 3 (66 degrees, 2304 px) | 0.62 m" in table
    assert WEBCAM.name in table and re.search(r"1\.0 m across", table) is None  # "table 1 m across"


# -- the advice -----------------------------------------------------------------------------------------


def test_well_placed_cards_at_every_seat_are_all_good() -> None:
    seats = layout(4)
    p = check_placement(at_seats(GOOD_CORNER_PX + 8, list(seats.seats)), W, H, seats, 576, MODULE3)
    assert p.verdict == Verdict.FINE
    assert [s.cards for s in p.seats] == [1, 1, 1, 1]
    assert p.corner_px == pytest.approx(GOOD_CORNER_PX + 8)
    assert p.model_px == pytest.approx((GOOD_CORNER_PX + 8) * 576 / W)


def test_small_corners_read_surely_are_all_good() -> None:
    # A camera whose photo reads every seat surely is never told to move, however small the corners.
    seats = layout(4)
    p = check_placement(at_seats(MIN_CORNER_PX / 2, list(seats.seats)), W, H, seats, 576, MODULE3)
    assert p.verdict == Verdict.FINE and p.sure


def test_the_1_1_m_table_of_48_px_corners_read_surely_is_all_good() -> None:
    # The first table: real photos laid side by side, 48 px corners in a 3840 px photo (7.2 px in
    # the model's view, under the size rule) filling the view, 28 of 28 cards read: no "nearer the middle".
    cards = laid_side_by_side(7, 4, 3840, 2160, 48.0, 30.0)
    p = check_placement(cards, 3840, 2160, None, 576, MODULE3)
    assert p.model_px == pytest.approx(7.2) and p.model_px < GOOD_MODEL_PX and p.room < 1.1
    assert p.verdict == Verdict.FINE, p.summary()
    # The same table with its cards in doubt: then the small corners are the cause, and lowering the camera
    # would cut the cards off.
    unsure = [DetectedCard(c.code, 0.4, True, c.boxes) for c in cards]
    assert check_placement(unsure, 3840, 2160, None, 576, MODULE3).verdict == Verdict.CROWDED


def test_the_1_7_m_table_of_20_px_corners_read_surely_is_all_good_and_nothing_is_cut() -> None:
    # The second table: 20 px corners in a 2560 px photo (4.5 px in the model's view), 56 of 56
    # cards read, the outermost 12 px in from the border: not cut off, and no advice to raise the camera.
    cards = laid_side_by_side(8, 7, 2560, 1440, 20.0, 12.0)
    p = check_placement(cards, 2560, 1440, None, 576, MODULE3)
    assert p.model_px == pytest.approx(4.5)
    assert p.cut == () and p.verdict == Verdict.FINE, p.summary()


@pytest.mark.parametrize("size", [6.0, 12.0, 30.0, 90.0])
@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_every_seat_read_surely_is_never_told_to_move_the_camera(size: float, players: int) -> None:
    seats = layout(players, "square")
    p = check_placement(at_seats(size, list(seats.seats)), W, H, seats, 576, MODULE3)
    assert p.verdict == Verdict.FINE and p.factor == 1.0 and p.target_m is None


def test_small_corners_in_doubt_with_room_round_them_say_lower_the_camera_with_the_height() -> None:
    seats = layout(4)
    # The seats lie well inside the frame (0.36 of the way out): room to come down.
    p = check_placement(
        at_seats(GOOD_CORNER_PX / 1.6, list(seats.seats), sure=False), W, H, seats, 576, MODULE3
    )
    assert p.verdict == Verdict.LOWER
    assert p.factor == pytest.approx(1.6)
    assert p.target_m is not None and p.height_m is not None and p.target_m < p.height_m
    assert "lower the camera" in p.summary()


def test_small_corners_in_doubt_that_already_fill_the_view_cannot_be_fixed_by_lowering() -> None:
    seats = [(0.03, 0.5), (0.5, 0.05), (0.97, 0.5), (0.5, 0.95)]
    p = check_placement(at_seats(MIN_CORNER_PX / 2, seats, sure=False), W, H, layout(4), 576)
    assert p.verdict == Verdict.CROWDED
    assert p.room < p.factor


def test_a_card_cut_off_at_the_edge_says_raise_and_names_the_wide_module() -> None:
    cards = at_seats(GOOD_CORNER_PX + 8, list(layout(4).seats))
    cards.append(card("9S", 4.0, H / 2, GOOD_CORNER_PX + 8, sure=False))  # cut by the left edge, in doubt
    p = check_placement(cards, W, H, layout(4), 576, MODULE3)
    assert p.verdict == Verdict.RAISE
    assert p.cut and p.target_m is not None and p.wide_m is not None and p.wide_m < p.target_m
    assert "raise the camera" in p.summary()


def test_a_cut_off_card_under_a_camera_that_would_hang_too_high_says_use_the_wide_module() -> None:
    # Small corners in the photo: the picture spans far, so the camera already hangs high.
    cards = at_seats(12.0, list(layout(4).seats))  # 12 px in 2304: the picture spans about 1.6 m
    cards.append(card("9S", W - 3.0, H / 2, 12.0, sure=False))
    p = check_placement(cards, W, H, layout(4), 576, MODULE3)
    assert p.verdict == Verdict.WIDE
    assert p.height_m is not None and p.height_m > 1.0


def test_a_seat_with_no_card_read_is_named() -> None:
    seats = layout(4)
    p = check_placement(at_seats(GOOD_CORNER_PX + 8, list(seats.seats), skip=(2,)), W, H, seats)
    assert p.verdict == Verdict.MISSING
    assert p.missing == (2,)
    assert "seat 3" in p.summary()


def test_a_card_read_surely_at_the_border_is_not_cut_and_one_clipped_by_it_is() -> None:
    seats = layout(4)
    cards = at_seats(GOOD_CORNER_PX + 8, list(seats.seats))
    near = card(
        "9S", 1 + (GOOD_CORNER_PX + 8) * 0.375 + 10, H / 2, GOOD_CORNER_PX + 8
    )  # 10 px in from the edge
    assert check_placement([*cards, near], W, H, seats, 576).cut == ()
    clipped = card("9S", 0.0, H / 3, GOOD_CORNER_PX + 8)  # by the top-left seat
    p = check_placement([*cards, clipped], W, H, seats, 576)
    assert p.cut == (1,) and p.verdict == Verdict.FINE  # read surely all the same: nothing to move
    # A seat missing while a card is cut by the border: the seat may lie out of view.
    p = check_placement([*at_seats(GOOD_CORNER_PX + 8, list(seats.seats), skip=(2,)), clipped], W, H, seats)
    assert p.verdict == Verdict.RAISE


def test_large_whole_cards_in_doubt_are_not_the_cameras_fault() -> None:
    seats = layout(4)
    cards = at_seats(GOOD_CORNER_PX + 8, list(seats.seats))
    cards[1] = DetectedCard(cards[1].code, 0.4, True, cards[1].boxes)
    p = check_placement(cards, W, H, seats, 576, MODULE3)
    assert p.verdict == Verdict.UNSURE and p.doubtful == (1,) and p.factor == 1.0 and p.target_m is None
    assert "check the light" in p.summary()


def test_no_card_at_all_says_so() -> None:
    p = check_placement([], W, H, layout(3))
    assert p.verdict == Verdict.NO_CARDS and p.corner_px is None and p.missing == (0, 1, 2)


# -- the measurement behind the thresholds --------------------------------------------------------------


def test_the_measurement_lays_a_scene_smaller_on_a_sensor_sized_still_and_reports_recall_by_model_view() -> (
    None
):
    import numpy as np

    from vision.devtools.placement_eval import SENSOR, on_table, report

    scene = np.full((480, 640, 3), 200, np.uint8)
    still = on_table(scene, 0.5, np.random.default_rng(0))
    assert still.shape == (SENSOR[1], SENSOR[0], 3)
    assert (still[SENSOR[1] // 2, SENSOR[0] // 2] == 200).all()  # the scene, in the middle
    rows = [
        {
            "still": "a@1",
            "fill": 1.0,
            "capture": 4608,
            "height_px": 80.0,
            "found": True,
            "box_px": 84.0,
            "ms": 90.0,
        },
        {
            "still": "a@1",
            "fill": 1.0,
            "capture": 2304,
            "height_px": 40.0,
            "found": True,
            "box_px": 42.0,
            "ms": 60.0,
        },
        {
            "still": "b@1",
            "fill": 1.0,
            "capture": 2304,
            "height_px": 16.0,
            "found": False,
            "box_px": None,
            "ms": 50.0,
        },
    ]
    text = report(rows, "python -m vision.devtools.placement_eval")
    # 80 px in 4608 and 40 px in 2304 are both 10 px in the model's 576 px view: one row, both read.
    assert "| 10-12 | 1.000 (1) | 1.000 (1) | 1.000 (2) |" in text
    assert "| 4-5 | - | 0.000 (1) | 0.000 (1) |" in text
    assert "| 2304 | 55 | 50 | 0.67 |" in text  # a@1 read in 60 ms at 2304 against 90 at 4608


def test_the_real_measurement_lays_photos_side_by_side_at_their_own_pixels_and_reports_the_size_rule() -> (
    None
):
    import numpy as np

    from vision.devtools.placement_real import Run, compose, report, taken

    photos = [(np.full((480, 640, 3), k * 40, np.uint8), code) for k, code in enumerate(["2S", "3H", "4D"])]
    table, codes = compose(photos, 3, 2)
    assert table.shape == (960, 1920, 3) and codes == ["2S", "3H", "4D", "2S", "3H", "4D"]
    assert (table[0, 640] == 40).all() and (table[480, 0] == 0).all()  # the photos in turn, row by row
    assert taken(table, 0) is table and taken(table, 960).shape == (480, 960, 3)
    runs = [
        Run(3, 2, 0, 1920, 960, 6, 6, 0, 0, 60.0, 18.0, "fine", "the camera is placed right", 1.0),
        Run(12, 9, 0, 4608, 3456, 108, 70, 50, 2, 45.0, 5.6, "crowded", "lay them nearer the middle", 3.0),
    ]
    text = report(runs, "python -m vision.devtools.placement_real", "models/cards.onnx")
    assert "| 3 x 2 | 1920 x 960 | 6 | 6 | 0 | 0 | 60 | 18.0 | the camera is placed right | 1.0 s |" in text
    assert "Every card read right down to 18.0 px" in text and "Cards lost or read wrong from 5.6 px" in text
    assert f"GOOD_MODEL_PX = {GOOD_MODEL_PX:g} px" in text
