"""How the checks reach the machine: :class:`Probes`, replaced in tests, and :func:`real_probes`."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ui.commands.doctor.camera import camera_photo
from ui.commands.doctor.model import ReferencePhoto, blank_picture, bundled_test_photos, load_reader
from ui.commands.doctor.runtime import time_runtimes
from ui.commands.doctor.settings import service_active
from ui.commands.doctor.sharing import SHARE_DROP_IN, lan_addresses


@dataclass(frozen=True)
class Probes:
    """How the checks reach the hardware. Tests replace them; the defaults use the real machine."""

    list_cameras: Callable[[], Sequence[Any]]
    load_detector: Callable[[Path], Any]
    test_photos: Callable[[], Sequence[ReferencePhoto]]
    read_image: Callable[[Path], Any]
    blank_image: Callable[[], Any]
    kiosk_running: Callable[[], bool] = service_active
    disk_usage: Callable[[Path], Any] = shutil.disk_usage
    drm_root: Path = Path("/sys/class/drm")
    input_root: Path = Path("/sys/class/input")
    dev_root: Path = Path("/dev")
    x11_dir: Path = Path("/tmp/.X11-unix")
    lan_addresses: Callable[[], Sequence[str]] = lan_addresses
    share_drop_in: Path = SHARE_DROP_IN
    time_runtimes: Callable[[], Mapping[str, float | str]] | None = None  # None: no runtime check
    # A photo to judge the camera's place by: (image, where it came from, libcamera's sensor name or None),
    # None when there is no camera; raises when the camera gives no photo. None: no placement check.
    placement_photo: Callable[[str], tuple[Any, str, str | None] | None] | None = None


def real_probes() -> Probes:
    """Probes on this machine, through TableTally's vision package (imports OpenCV and ONNX Runtime)."""
    from vision.base.photo import load_image
    from vision.cameras import demo_photos, list_cameras

    return Probes(
        list_cameras=list_cameras,
        load_detector=load_reader,
        test_photos=lambda: [*bundled_test_photos(), *(ReferencePhoto(p) for p in demo_photos())],
        read_image=load_image,
        blank_image=blank_picture,
        time_runtimes=time_runtimes,
        placement_photo=camera_photo,
    )
