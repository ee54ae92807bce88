"""The cameras' small stream (``preview()``): the Pi's lores stream in the one running configuration (a fake
picamera2 that records the calls), and the same view from a folder of photos at a low rate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.helpers import table_photo
from vision.base.errors import InvalidValueError
from vision.cameras import LORES_WIDTH, FolderCamera, PiCamera, lores_size, shrink


def test_the_pi_camera_runs_its_small_stream_in_the_one_still_configuration(fake_picamera2: Any) -> None:
    with PiCamera() as cam:
        (fake,) = fake_picamera2.instances
        assert fake.config["main"] == {"format": "RGB888", "size": (2304, 1296)}
        assert fake.config["lores"] == {"format": "YUV420", "size": (384, 216)}
        assert cam.lores == (384, 216)
        assert fake.calls.count("configure") == 1 and fake.calls.count("start") == 1
        opened = len(fake.calls)
        small = cam.preview()
        photo = cam.capture()
        again = cam.preview()
        # No mode switch, restart or refocus: each frame is one capture_array of the running camera, the
        # small ones from lores, the photo for reading from main.
        assert fake.calls[opened:] == ["capture_array:lores", "capture_array:main", "capture_array:lores"]
    assert small.shape == again.shape == (216, 384, 3) and small.dtype == np.uint8
    b, g, r = (int(v) for v in small[100, 100])
    assert b > r and b > g  # the fake's U plane leans to blue: the colour planes were read as such
    assert photo.shape == (2592, 4608, 3)


def test_a_pi_small_frame_with_padded_rows_is_shown_grey(fake_picamera2: Any) -> None:
    with PiCamera() as cam:
        (fake,) = fake_picamera2.instances
        fake.capture_array = lambda name="main": np.full((324, 448), 77, np.uint8)  # stride 448 for 384
        small = cam.preview()
    assert small.shape == (216, 384, 3) and set(np.unique(small)) == {77}


def test_the_small_stream_keeps_the_stills_shape() -> None:
    assert lores_size((2304, 1296)) == (LORES_WIDTH, 216)
    assert lores_size((1640, 1232)) == (384, 288)  # a Camera Module 2's 4:3
    assert lores_size((320, 240)) == (320, 240)  # no wider than the still
    with pytest.raises(InvalidValueError, match="positive"):
        lores_size((0, 10))
    big = np.zeros((960, 1280, 3), np.uint8)
    assert shrink(big).shape == (288, 384, 3)
    assert shrink(big[:100, :200]).shape == (100, 200, 3)


def test_a_folder_camera_shows_its_next_photo_without_using_it_up(tmp_path: Path) -> None:
    for k in range(2):
        assert cv2.imwrite(str(tmp_path / f"{k}.png"), table_photo(800, 600, seed=k))
    with FolderCamera(tmp_path) as cam:
        view = cam.preview()
        assert view.shape == (288, 384, 3)
        first = cam.capture()
        expected = cv2.resize(first, (384, 288), interpolation=cv2.INTER_AREA)
        assert np.array_equal(view, expected)
        # The view is taken again at most every preview_gap seconds: until then the same frame.
        assert cam.preview() is view
        cam.preview_gap = 0.0
        second = cam.preview()
        assert np.array_equal(second, cv2.resize(cam.capture(), (384, 288), interpolation=cv2.INTER_AREA))
