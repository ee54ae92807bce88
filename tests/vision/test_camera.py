"""Camera sources: the folder source, the Pi camera against a fake picamera2, a webcam that vanishes, auto."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.cameras as camera_mod
from tests.vision.helpers import table_photo
from vision.base.types import CameraError
from vision.cameras import (
    Camera,
    CameraInfo,
    CameraKind,
    FolderCamera,
    OpenCVCamera,
    PiCamera,
    list_cameras,
    open_camera,
    parse_spec,
)


@pytest.fixture
def photo_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    for k, name in enumerate(["b.png", "a.jpg", "c.JPG"]):
        assert cv2.imwrite(str(folder / name.lower()), table_photo(64 + 8 * k, 48, seed=k))
    (folder / "c.jpg").rename(folder / "c.JPG")
    (folder / "notes.txt").write_text("not a photo")
    return folder


@pytest.fixture
def no_webcams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(camera_mod, "_video_nodes", lambda *a: [])
    monkeypatch.setattr(camera_mod.sys, "platform", "linux")


# -- folder source ---------------------------------------------------------------------------------------


def test_a_folder_camera_returns_its_photos_in_name_order_and_loops(photo_folder: Path) -> None:
    with FolderCamera(photo_folder) as cam:
        assert isinstance(cam, Camera)
        widths = [cam.capture().shape[1] for _ in range(4)]
        assert [p.name for p in cam.paths] == ["a.jpg", "b.png", "c.JPG"]
        assert cam.last_path is not None and cam.last_path.name == "a.jpg"
    assert widths == [72, 64, 80, 72]


def test_a_folder_camera_without_loop_says_when_the_photos_run_out(photo_folder: Path) -> None:
    cam = FolderCamera(photo_folder, loop=False)
    for _ in range(3):
        assert cam.capture().dtype == np.uint8
    with pytest.raises(CameraError, match="no more photos"):
        cam.capture()


def test_a_folder_camera_takes_a_list_of_files(photo_folder: Path) -> None:
    cam = FolderCamera([photo_folder / "c.JPG", photo_folder / "a.jpg"])
    assert [cam.capture().shape[1] for _ in range(2)] == [80, 72]


def test_a_missing_or_empty_folder_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="does not exist"):
        FolderCamera(tmp_path / "nowhere").open()
    with pytest.raises(CameraError, match="holds no images"):
        FolderCamera(tmp_path).open()


def test_an_unreadable_photo_in_the_folder_is_a_camera_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 broken")
    with pytest.raises(CameraError, match=r"broken\.jpg: not a readable image"):
        FolderCamera(tmp_path).capture()


# -- Pi camera (the real PiCamera code against a fake picamera2 module) ---------------------------------


def test_the_pi_camera_takes_binned_bgr_stills_with_focus_and_locked_exposure(
    fake_picamera2: Any,
) -> None:
    with PiCamera() as cam:
        frame = cam.capture()
        (fake,) = fake_picamera2.instances
        # The Camera Module 3's 2x2 binned mode: the whole field of view, the size the reading needs.
        assert fake.config["main"] == {"format": "RGB888", "size": (2304, 1296)}
        assert cam.still == (2304, 1296) and cam.model == "imx708"
        assert (
            fake.calls.index("start") < fake.calls.index("autofocus_cycle") < fake.calls.index("set_controls")
        )
        assert cam.focused is True
        assert fake.controls == {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": 16000,
            "AnalogueGain": 2.0,
            "ColourGains": (1.9, 1.6),
            "AfMode": 0,  # manual: the lens stays where the one autofocus cycle put it
            "LensPosition": 1.25,
        }
    assert frame.shape == (2592, 4608, 3) and frame[0, 0].tolist() == [200, 0, 0]
    assert fake.calls[-2:] == ["stop", "close"]


def test_a_running_pi_camera_takes_each_photo_with_capture_array_alone(fake_picamera2: Any) -> None:
    """Configured, started, settled and focused once; every photo after that is one capture_array of the
    running camera: no new configuration, mode switch, restart or autofocus sweep per photo."""
    with PiCamera() as cam:
        (fake,) = fake_picamera2.instances
        opened = len(fake.calls)
        for _ in range(3):
            cam.capture()
        assert fake.calls[opened:] == ["capture_array:main"] * 3
        assert fake.calls[:opened].count("start") == 1
        assert fake.calls[:opened].count("configure") == 1
        assert fake.calls[:opened].count("autofocus_cycle") == 1
        cam.open()  # already open: nothing happens
        assert len(fake.calls) == opened + 3 and len(fake_picamera2.instances) == 1


def test_the_pi_camera_takes_the_still_size_it_is_given(fake_picamera2: Any) -> None:
    with PiCamera(size=(4608, 2592)) as cam:
        assert fake_picamera2.instances[0].config["main"] == {"format": "RGB888", "size": (4608, 2592)}
        assert cam.still == (4608, 2592)


@pytest.mark.parametrize(
    ("model", "sensor", "still"),
    [
        ("imx708_wide", (4608, 2592), (2304, 1296)),  # Camera Module 3 Wide: the same binned mode
        ("imx477", (4056, 3040), (4056, 3040)),  # HQ Camera: halved it would be under CAPTURE_WIDTH
        ("imx219", (3280, 2464), (3280, 2464)),  # Camera Module 2: halved it would be under CAPTURE_WIDTH
    ],
)
def test_the_pi_camera_still_size_is_the_sensor_halved_while_it_stays_wide_enough(
    fake_picamera2: Any, model: str, sensor: tuple[int, int], still: tuple[int, int]
) -> None:
    fake_picamera2.cameras = [{"Model": model, "Num": 0}]
    fake_picamera2.frame_shape = (sensor[1], sensor[0], 3)
    with PiCamera() as cam:
        assert fake_picamera2.instances[0].config["main"]["size"] == still
        assert cam.model == model


def test_a_fixed_focus_pi_camera_skips_the_autofocus_cycle(fake_picamera2: Any) -> None:
    fake_picamera2.has_autofocus = False
    with PiCamera() as cam:
        cam.capture()
    assert "autofocus_cycle" not in fake_picamera2.instances[0].calls and cam.focused is None
    assert "AfMode" not in cam.locked_controls and "LensPosition" not in cam.locked_controls


def test_a_pi_camera_that_disappears_mid_capture_is_a_camera_error_and_is_closed(fake_picamera2: Any) -> None:
    cam = PiCamera()
    cam.open()
    fake_picamera2.fail_on = "capture"
    with pytest.raises(CameraError, match="stopped responding .*retry"):
        cam.capture()
    assert fake_picamera2.instances[0].closed
    fake_picamera2.fail_on = None
    assert cam.capture().shape == (2592, 4608, 3)  # a retry reopens the camera
    assert len(fake_picamera2.instances) == 2
    cam.close()


def test_a_pi_camera_that_fails_to_start_is_closed_again(fake_picamera2: Any) -> None:
    fake_picamera2.fail_on = "start"
    with pytest.raises(CameraError, match="could not be started: Failed to start camera"):
        PiCamera().open()
    assert fake_picamera2.instances[0].closed


def test_no_pi_camera_on_the_port_is_a_camera_error(fake_picamera2: Any) -> None:
    fake_picamera2.cameras = []
    with pytest.raises(CameraError, match="no camera connected to the camera port"):
        PiCamera().open()


@pytest.mark.usefixtures("no_picamera2")
def test_without_picamera2_the_pi_camera_says_how_to_install_it() -> None:
    with pytest.raises(CameraError, match="needs picamera2.*apt install python3-picamera2"):
        PiCamera().open()


# -- webcam ---------------------------------------------------------------------------------------------


class FakeCapture:
    """Stands in for cv2.VideoCapture: delivers ``frames`` pictures, then nothing (unplugged)."""

    frames = 100
    opened = True

    def __init__(self, index: int) -> None:
        self.index = index
        self.released = False

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        return True

    def grab(self) -> bool:
        return self.read()[0]

    def read(self) -> tuple[bool, np.ndarray | None]:
        cls = type(self)
        if cls.frames <= 0:
            return False, None
        cls.frames -= 1
        return True, table_photo(64, 48)

    def release(self) -> None:
        self.released = True


@pytest.fixture
def fake_capture(monkeypatch: pytest.MonkeyPatch) -> type[FakeCapture]:
    fake = type("FakeCapture", (FakeCapture,), {"frames": 100, "opened": True})
    monkeypatch.setattr(cv2, "VideoCapture", fake)
    return fake


def test_a_webcam_that_is_unplugged_mid_game_is_a_camera_error_not_a_crash(fake_capture: Any) -> None:
    cam = OpenCVCamera(0)
    assert cam.capture().shape == (48, 64, 3)
    fake_capture.frames = 0
    with pytest.raises(CameraError, match="webcam 0 stopped delivering pictures"):
        cam.capture()
    fake_capture.frames = 100
    assert cam.capture().shape == (48, 64, 3)  # the retry reopens it
    cam.close()


def test_a_webcam_that_cannot_be_opened_is_a_camera_error(fake_capture: Any) -> None:
    fake_capture.opened = False
    with pytest.raises(CameraError, match="webcam 2 could not be opened"):
        OpenCVCamera(2).open()


def test_webcam_nodes_skip_the_pi_isp_codec_and_metadata_nodes(tmp_path: Path) -> None:
    for node, name, index in [
        ("video0", "HD Pro Webcam C920", "0"),
        ("video1", "HD Pro Webcam C920", "1"),
        ("video10", "bcm2835-codec-decode", "0"),
        ("video13", "bcm2835-isp", "0"),
        ("video19", "rp1-cfe", "0"),
        ("media0", "not a video node", "0"),
    ]:
        (tmp_path / node).mkdir()
        (tmp_path / node / "name").write_text(name + "\n")
        (tmp_path / node / "index").write_text(index + "\n")
    assert camera_mod._video_nodes(tmp_path) == [(0, "HD Pro Webcam C920")]


# -- choosing a camera ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("auto", ("auto", "")),
        ("webcam:1", ("webcam", "1")),
        ("folder:/x/y", ("folder", "/x/y")),
        ("PI", ("pi", "")),
    ],
)
def test_camera_specs_are_parsed(spec: str, expected: tuple[str, str]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("usb", "unknown camera 'usb'"),
        ("webcam:left", "must be a camera index"),
        ("folder:", "needs a path"),
        ("auto:1", "takes no argument"),
    ],
)
def test_bad_camera_specs_are_camera_errors(spec: str, message: str) -> None:
    with pytest.raises(CameraError, match=message):
        parse_spec(spec)


@pytest.mark.usefixtures("no_webcams")
def test_auto_picks_the_pi_camera_first(fake_picamera2: Any) -> None:
    cam, why = open_camera("auto")
    try:
        assert isinstance(cam, PiCamera) and why == "Pi camera 0 (first choice)"
    finally:
        cam.close()


@pytest.mark.usefixtures("no_picamera2")
def test_auto_falls_back_to_a_webcam_and_says_why(fake_capture: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(camera_mod.sys, "platform", "linux")
    monkeypatch.setattr(camera_mod, "_video_nodes", lambda *a: [(3, "USB cam")])
    cam, why = open_camera()
    try:
        assert isinstance(cam, OpenCVCamera) and cam.index == 3
        assert why.startswith("webcam 3, because Pi camera: the Pi camera needs picamera2")
    finally:
        cam.close()


@pytest.mark.usefixtures("no_picamera2", "no_webcams")
def test_auto_falls_back_to_the_demo_photos_and_says_why(
    photo_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(camera_mod, "DEMO_DIR", photo_folder)
    cam, why = open_camera()
    with cam:
        assert isinstance(cam, FolderCamera) and cam.capture().ndim == 3
    assert why.startswith("the bundled demo photos, because Pi camera: the Pi camera needs picamera2")
    assert "webcam: no video capture device" in why


@pytest.mark.usefixtures("no_picamera2", "no_webcams")
def test_auto_with_nothing_at_all_is_one_camera_error_listing_every_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(camera_mod, "DEMO_DIR", tmp_path / "no-demo")
    with pytest.raises(CameraError, match="no camera available: Pi camera: .*; webcam: .*; demo photos: "):
        open_camera()


def test_a_folder_spec_opens_that_folder(photo_folder: Path) -> None:
    cam, why = open_camera(f"folder:{photo_folder}")
    with cam:
        assert cam.capture().shape[1] == 72
    assert "asked for" in why


@pytest.mark.usefixtures("no_webcams")
def test_list_cameras_reports_each_source_with_a_reason(
    fake_picamera2: Any, photo_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(camera_mod, "DEMO_DIR", photo_folder)
    infos = list_cameras()
    assert infos == [
        CameraInfo(CameraKind.PI, "Pi camera 0 (imx708)", True, "found by libcamera", "pi:0"),
        CameraInfo(CameraKind.WEBCAM, "webcam", False, "no video capture device (/dev/video*)", "webcam"),
        CameraInfo(CameraKind.FOLDER, "demo photos (3)", True, f"bundled in {photo_folder}", "demo"),
    ]
