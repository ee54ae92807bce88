"""The camera check's logic (ui.logic.camera_check): first start opens it once, a photo of one card per seat
is read and judged, each seat gets its line, and a camera that gives no photo can be skipped."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision.helpers import table_photo
from ui.logic.camera_check import (
    CameraCheck,
    advice,
    last_check,
    last_check_line,
    needs_check,
    numbers,
    opens_at_start,
    remember,
)
from ui.store import Store
from vision.base.errors import CameraError
from vision.base.types import Detection
from vision.runtimes.fake import FakeDetector
from vision.table.placement import GOOD_MODEL_PX, MIN_MODEL_PX, Verdict
from vision.table.seats import layout

W, H = 1152, 648
GOOD_CORNER_PX = round(GOOD_MODEL_PX * W / 576)  # the thresholds in this photo's pixels
MIN_CORNER_PX = round(MIN_MODEL_PX * W / 576)
CODES = ["AS", "7H", "KD", "10C", "5S", "QH"]


class PiLike:
    """A camera that says which module it is, as the Pi camera does after open()."""

    model = "imx708"


def seat_detections(
    players: int, size: float, skip: tuple[int, ...] = (), unsure: tuple[int, ...] = ()
) -> list[Detection]:
    """One corner per seat of the default layout, ``size`` pixels, a little out from each seat's point;
    the seats ``unsure`` read with a confidence the reading doubts."""
    found = []
    for i, (x, y) in enumerate(layout(players).seats):
        if i in skip:
            continue
        cx, cy = x * W, y * H
        half = size / 2
        found.append(
            Detection(CODES[i], 0.3 if i in unsure else 0.9, (cx - half, cy - half, cx + half, cy + half))
        )
    return found


def check_with(*readings: list[Detection], players: int = 4, capture: object = None) -> CameraCheck:
    detector = FakeDetector(*readings)
    photo = table_photo(W, H)
    return CameraCheck(
        capture if callable(capture) else (lambda: photo),
        lambda: detector,
        lambda: PiLike(),
        players,
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path)


def test_first_start_opens_the_check_once_the_language_is_chosen_and_never_again(store: Store) -> None:
    assert needs_check(store)
    assert last_check_line(store) == ""  # the technician's page says nothing of a check never done
    assert not opens_at_start(store, None)  # the home screen offers the languages first
    assert opens_at_start(store, "ne")
    remember(store, None)  # skipped
    assert not opens_at_start(store, "ne")
    assert last_check(store) == {"verdict": "skipped", "when": last_check(store)["when"]}  # type: ignore[index]
    assert last_check_line(store) == f"camera check {last_check(store)['when']}: skipped"  # type: ignore[index]


def test_a_check_done_is_kept_in_the_record_with_its_corner_size(store: Store) -> None:
    check = check_with(seat_detections(4, GOOD_CORNER_PX + 10))
    placement = check.run()
    assert placement is not None
    remember(store, placement, "Pi camera 0")
    kept = last_check(store)
    assert kept is not None and kept["verdict"] == "fine" and kept["corner_px"] == GOOD_CORNER_PX + 10
    assert last_check_line(store) == (  # the technician's page (Settings) shows it
        f"camera check {kept['when']}: fine, corners {GOOD_CORNER_PX + 10:g} px in the "
        f"{placement.width}x{placement.height} photo (Pi camera 0)"
    )
    assert not needs_check(store)


def test_one_card_read_at_each_seat_is_all_good_with_a_line_per_seat() -> None:
    check = check_with(seat_detections(4, GOOD_CORNER_PX + 10))
    assert check.view().state == "live"
    check.run()
    view = check.view()
    assert view.state == "done" and view.good
    assert view.headline.startswith("All good")
    assert [line.ok for line in view.seats] == [True] * 4
    assert view.seats[0].text == "Seat 1: 1 card read"
    assert view.detail == "Cards read at 4 of 4 seats. No card in doubt."
    assert "in the model's view of it" in numbers(check.placement)  # the technician's line, with the sizes
    seat_of = dict(zip([c.code for c in check.cards], check.seat_of_cards(), strict=True))
    assert seat_of == {"AS": 0, "7H": 1, "KD": 2, "10C": 3}


def test_a_seat_with_no_card_read_is_named() -> None:
    check = check_with(seat_detections(5, GOOD_CORNER_PX + 10, skip=(3,)), players=5)
    check.run()
    view = check.view()
    assert check.placement is not None and check.placement.verdict == Verdict.MISSING
    assert "seat 4" in view.headline and not view.good
    assert view.seats[3].text == "Seat 4: no card read" and not view.seats[3].ok


def test_small_corners_read_surely_are_all_good() -> None:
    check = check_with(seat_detections(4, MIN_CORNER_PX - 4))
    check.run()
    assert check.placement is not None and check.placement.verdict == Verdict.FINE
    assert check.view().good and check.view().headline.startswith("All good")


def test_small_corners_read_unsure_say_lower_the_camera() -> None:
    check = check_with(seat_detections(4, MIN_CORNER_PX - 4, unsure=(2,)))
    check.run()
    assert check.placement is not None and check.placement.verdict == Verdict.LOWER
    view = check.view()
    assert "lower the camera to about" in view.headline
    assert view.seats[2].text == "Seat 3: 1 card read, not surely" and not view.seats[2].ok
    assert view.detail == "Cards read at 4 of 4 seats. 1 card read not surely."


def test_large_cards_read_unsure_are_not_put_down_to_the_camera() -> None:
    check = check_with(seat_detections(4, GOOD_CORNER_PX + 10, unsure=(1,)))
    check.run()
    assert check.placement is not None and check.placement.verdict == Verdict.UNSURE
    assert check.view().headline.startswith(
        "The camera is placed right, but a card at seat 2 was read unsure"
    )


def test_a_card_cut_off_at_the_edge_says_raise_the_camera() -> None:
    found = seat_detections(4, GOOD_CORNER_PX + 10)
    # Cut by the left edge, and read unsure (its index is partly out of the photo).
    found.append(Detection("9S", 0.3, (0.0, H / 2, GOOD_CORNER_PX + 10, H / 2 + GOOD_CORNER_PX + 10)))
    check = check_with(found)
    check.run()
    assert check.placement is not None and check.placement.verdict in (Verdict.RAISE, Verdict.WIDE)
    assert "cut off at the edge" in check.view().headline


def test_no_camera_says_so_and_the_check_can_be_skipped(store: Store) -> None:
    def no_camera() -> np.ndarray:
        raise CameraError("Pi camera 0: no camera connected to the camera port")

    check = check_with(seat_detections(4, 30), capture=no_camera)
    assert check.run() is None
    view = check.view()
    assert view.state == "failed"
    assert view.headline.startswith("No photo from the camera: Pi camera 0: no camera connected")
    assert "skip the check" in view.headline
    remember(store, None)
    assert not needs_check(store)


def test_without_a_card_model_the_check_says_how_to_fix_it() -> None:
    check = CameraCheck(lambda: table_photo(W, H), lambda: None)
    check.run()
    assert check.view().state == "failed" and "tabletally doctor" in check.view().headline


def test_the_seat_count_moves_between_two_and_six_and_returns_to_the_live_view() -> None:
    check = check_with(seat_detections(4, 30))
    check.run()
    check.more()
    check.more()
    check.more()
    assert check.players == 6 and check.view().state == "live" and check.placement is None
    for _ in range(6):
        check.fewer()
    assert check.players == 2
    x0, y0, x1, y1 = check.outline()
    assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1


def test_the_advice_for_every_verdict_is_a_sentence() -> None:
    check = check_with(seat_detections(4, 30))
    placement = check.run()
    assert placement is not None
    from dataclasses import replace

    for verdict in Verdict:
        text = advice(replace(placement, verdict=verdict, target_m=0.7, wide_m=0.4, factor=1.5))
        assert text and text[-1] == "." and "{" not in text
