"""The kiosk's scanner: a camera kept open and ready between scans, the detector loaded before the first
tap, and reading threads that yield to the UI."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ui.logic.scan import Scanner, ScanPhase
from vision.fake import FakeDetector


def write_photos(folder: Path, widths: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    for k, width in enumerate(widths):
        photo = rng.integers(0, 255, (60, width, 3), dtype=np.uint8)  # not blank
        assert cv2.imwrite(str(folder / f"{k:02d}.png"), photo)


def fake() -> FakeDetector:
    """A detector that finds nothing, and records how often it was loaded."""
    return FakeDetector([])


def test_a_folder_camera_gives_the_next_photo_at_each_scan(tmp_path: Path) -> None:
    write_photos(tmp_path / "photos", [100, 110, 120])
    scanner = Scanner(f"folder:{tmp_path / 'photos'}", detector=fake())
    widths = [scanner.scan_now("table", 1).width for _ in range(4)]
    assert widths == [100, 110, 120, 100]
    scanner.release_camera()


def test_a_camera_that_fails_is_closed_and_opened_again_at_the_next_scan(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    write_photos(folder, [100])
    (folder / "01.jpg").write_bytes(b"\xff\xd8 not a photo")
    scanner = Scanner(f"folder:{folder}", detector=fake())
    assert scanner.scan_now("table", 1).width == 100
    failed = scanner.scan_now("table", 1)
    assert failed.camera_failed and failed.error is not None
    assert failed.error.startswith("The camera did not give a photo:") and "tap Retry" in failed.error
    assert scanner.scan_now("table", 1).width == 100  # reopened: the folder starts again
    scanner.release_camera()


def test_a_new_camera_choice_is_used_at_the_next_scan_and_the_old_camera_kept_until_it_opens(
    tmp_path: Path,
) -> None:
    write_photos(tmp_path / "one", [100, 110])
    write_photos(tmp_path / "two", [200])
    scanner = Scanner(f"folder:{tmp_path / 'one'}", detector=fake())
    assert scanner.scan_now("table", 1).width == 100
    scanner.camera_spec = f"folder:{tmp_path / 'missing'}"  # unplugged: reported, the old one kept
    assert scanner.scan_now("table", 1).camera_failed
    scanner.camera_spec = f"folder:{tmp_path / 'one'}"
    assert scanner.scan_now("table", 1).width == 110  # the same camera, its next photo
    scanner.camera_spec = f"folder:{tmp_path / 'two'}"
    assert scanner.scan_now("table", 1).width == 200
    scanner.release_camera()
    scanner.release_camera()  # closing twice is harmless


def test_warming_up_loads_the_detector_once_before_the_first_scan(tmp_path: Path) -> None:
    write_photos(tmp_path, [100])
    detector = fake()
    scanner = Scanner(f"folder:{tmp_path}", detector=detector)
    assert not scanner.ready
    scanner.warm_up(camera=True).join(10)
    assert scanner.ready and detector.loads == 1
    phases: list[ScanPhase] = []
    assert scanner.scan_now("table", 1, phases.append).width == 100
    assert phases == [ScanPhase.CAMERA, ScanPhase.READING, ScanPhase.DONE]  # no wait for the model
    assert len(detector.photos) == 1
    scanner.release_camera()


def test_a_warm_up_that_finds_no_camera_leaves_the_message_to_the_scan(tmp_path: Path) -> None:
    scanner = Scanner(f"folder:{tmp_path / 'nowhere'}", model_path=tmp_path / "missing.onnx")
    scanner.warm_up(camera=True).join(10)
    assert not scanner.ready
    result = scanner.scan_now("table", 1)
    assert result.camera_failed and "does not exist" in (result.error or "")
