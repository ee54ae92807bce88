"""The doctor's placement check: the camera's height judged from one photo (vision.table.placement)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ui.commands import doctor
from ui.commands.doctor import TEST_PHOTO, CheckName, Status, check_placement
from vision.base.types import DetectedCard
from vision.runtimes.model_files import DEFAULT_ONNX
from vision.table.placement import GOOD_MODEL_PX, MIN_MODEL_PX

W, H = 2304, 1296
GOOD_CORNER_PX = GOOD_MODEL_PX * W / 576  # the thresholds in this photo's pixels
MIN_CORNER_PX = MIN_MODEL_PX * W / 576


class Cards:
    """A reader that finds the given cards in any photo (as the doctor's PipelineReader, through
    ``cards``)."""

    imgsz = 576

    def __init__(self, *cards: DetectedCard) -> None:
        self.found = list(cards)

    def cards(self, image: Any) -> list[DetectedCard]:
        return self.found


def card(code: str, x: float, y: float, size: float, sure: bool = True) -> DetectedCard:
    return DetectedCard(code, 0.9 if sure else 0.4, not sure, ((x, y, x + size, y + size),))


def photo() -> tuple[Any, str, str | None]:
    return np.zeros((H, W, 3), np.uint8), "Pi camera 0", "imx708"


def test_small_corners_read_surely_are_fine_and_read_unsure_a_warning_to_lower_the_camera() -> None:
    small = MIN_CORNER_PX - 2
    laid = (("AS", -200), ("KD", 0), ("9C", 200))
    reader = Cards(*(card(c, W / 2 + dx, H / 2, small) for c, dx in laid))
    check = check_placement(photo, lambda path: reader, Path("cards.onnx"))
    assert check is not None and check.status is Status.OK and check.details["verdict"] == "fine"
    assert "3 card(s) read, 0 in doubt" in check.summary
    reader = Cards(*(card(c, W / 2 + dx, H / 2, small, sure=c != "KD") for c, dx in laid))
    check = check_placement(photo, lambda path: reader, Path("cards.onnx"))
    assert check is not None and check.name is CheckName.PLACEMENT and check.status is Status.WARN
    assert check.summary.startswith(f"Pi camera 0: corner {small:.0f} px in the {W}x{H} photo")
    assert check.fix.startswith("Lower the camera to") and "m)" in check.fix  # the height, in metres
    assert check.details["verdict"] == "lower" and check.details["height_m"] > check.details["target_m"]


def test_a_card_cut_off_by_the_frame_is_a_warning_to_raise_the_camera() -> None:
    reader = Cards(
        card("AS", 0, H / 2, GOOD_CORNER_PX + 10, sure=False), card("KD", W / 2, H / 2, GOOD_CORNER_PX + 10)
    )
    check = check_placement(photo, lambda path: reader, Path("cards.onnx"))
    assert check is not None and check.status is Status.WARN and check.fix.startswith("Raise the camera")


def test_without_a_camera_there_is_no_placement_line_and_a_camera_that_fails_is_named() -> None:
    assert check_placement(lambda: None, lambda path: Cards(), Path("m")) is None

    def busy() -> Any:
        raise RuntimeError("Pi camera 0 could not be started: device busy")

    check = check_placement(busy, lambda path: Cards(), Path("m"))
    assert check is not None and check.status is Status.WARN
    assert "device busy" in check.summary and "--photo" in check.fix


@pytest.mark.skipif(not DEFAULT_ONNX.is_file(), reason="models/cards.onnx not exported")
def test_the_doctor_judges_its_test_photo_given_with_photo(tmp_path: Path, capsys: Any) -> None:
    from ui.cli import build_parser

    args = build_parser().parse_args(
        [
            "doctor",
            "--env-file",
            str(tmp_path / "kiosk.env"),
            "--data-dir",
            str(tmp_path),
            "--photo",
            str(TEST_PHOTO),
        ]
        + [
            arg
            for name in ("camera", "model", "display", "database", "disk", "runtime")
            for arg in ("--skip", name)
        ]
    )
    status = doctor.run(args, environ={})
    out = capsys.readouterr().out
    assert status == 0, out
    line = next(line for line in out.splitlines() if "placement" in line)
    # Three cards close up in a 640x480 photo: corners far larger than needed.
    assert "ok       placement doctor-photo.jpg: corner" in line and "640x480 photo" in out
    assert "the camera is placed right" in " ".join(out.split())
