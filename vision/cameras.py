"""Camera sources: the Raspberry Pi camera, an OpenCV webcam, and a folder of photos.

All three follow the :class:`Camera` protocol: ``open()``, ``capture() -> BGR uint8 array``, ``close()``,
and they are context managers. ``open()`` on an open camera does nothing, so a camera returned open by
:func:`open_camera` can still be used in a ``with`` block. A camera that fails, or disappears while a
game is running, raises :class:`~vision.base.types.CameraError` with a message meant for a person; the caller
may simply call ``capture()`` again (the camera reopens itself) or pick another source.

``preview()`` gives the camera's small stream: a small BGR frame (:data:`LORES_WIDTH` wide) of what the
camera sees now, for the kiosk's live view and the table watcher (``vision.table.watch``). On the Pi it is
picamera2's ``lores`` stream of the one configuration that is running (no mode switch; ``capture()`` still
takes the main stream); a webcam and a folder of photos give the same view, taken again at most every
``preview_gap`` seconds (a webcam's full frame, shrunk; a folder's next photo, without using it up).

``picamera2`` is imported only when the Pi camera is used, so this module imports fine on a laptop.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np

from vision.base.errors import CameraError, ImageError, InvalidValueError
from vision.base.photo import IMAGE_SUFFIXES, load_image
from vision.table.placement import still_size

DEMO_DIR = Path(__file__).resolve().parent / "demo"
"""The bundled demo photos (package data): the last resort of ``open_camera("auto")``."""

LORES_WIDTH = 384
"""The width of the camera's small stream (its height keeps the still's shape)."""


def lores_size(still: tuple[int, int]) -> tuple[int, int]:
    """The small stream's (width, height) for a still of ``still`` (width, height): ``LORES_WIDTH`` wide
    (the still's width when narrower), the still's shape, both even (the Pi's YUV420 needs them so)."""
    w, h = int(still[0]), int(still[1])
    if w <= 0 or h <= 0:
        raise InvalidValueError(f"a still size must be positive, got {w}x{h}")
    width = min(LORES_WIDTH, w) // 2 * 2
    return width, max(2, round(width * h / w / 2) * 2)


def shrink(image: np.ndarray, width: int = LORES_WIDTH) -> np.ndarray:
    """A BGR frame at most ``width`` wide (the frame itself when no wider), its shape kept."""
    h, w = image.shape[:2]
    if w <= width:
        return image
    import cv2

    size = lores_size((w, h)) if width == LORES_WIDTH else (width, max(1, round(h * width / w)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


# Video4Linux nodes on a Raspberry Pi that belong to the ISP, codecs or the CSI receiver, not to a webcam.
_NOT_WEBCAM_NAMES = ("bcm2835", "unicam", "rp1-cfe", "pispbe", "rpivid", "hevc", "codec", "isp")


class CameraKind(StrEnum):
    PI = "pi"
    WEBCAM = "webcam"
    FOLDER = "folder"


@runtime_checkable
class Camera(Protocol):
    """A source of photos. ``capture()`` returns an HxWx3 uint8 BGR array."""

    name: str

    def open(self) -> None: ...

    def capture(self) -> np.ndarray: ...

    def preview(self) -> np.ndarray: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class _CameraBase:
    name: str = "camera"
    preview_gap = 1.0
    """Seconds a small frame is shown again before another is taken (a webcam's full frame, a photo)."""
    _preview: tuple[float, np.ndarray] | None = None

    def open(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def capture(self) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def preview(self) -> np.ndarray:
        """A small BGR frame of what the camera sees (the small stream): taken anew at most every
        ``preview_gap`` seconds, the last one again in between."""
        now = time.monotonic()
        if self._preview is not None and now - self._preview[0] < self.preview_gap:
            return self._preview[1]
        frame = self._small_frame()
        self._preview = (now, frame)
        return frame

    def _small_frame(self) -> np.ndarray:
        return shrink(self.capture())

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class FolderCamera(_CameraBase):
    """Photos from files: a folder (its images in name order) or an explicit list of paths.

    Each ``capture()`` returns the next photo; with ``loop=True`` it starts again after the last one,
    otherwise it raises :class:`CameraError` when the photos run out.
    """

    def __init__(self, source: str | Path | Sequence[str | Path], loop: bool = True) -> None:
        if isinstance(source, str | Path):
            folder = Path(source)
            self.name = f"folder {folder}"
            self._folder: Path | None = folder
            self._paths: list[Path] = []
        else:
            self._folder = None
            self._paths = [Path(p) for p in source]
            self.name = f"{len(self._paths)} photo file(s)"
        self.loop = loop
        self._index = 0
        self._open = False

    @property
    def paths(self) -> list[Path]:
        """The photo files in the order they are returned (after ``open()``)."""
        return list(self._paths)

    @property
    def last_path(self) -> Path | None:
        """The file the last ``capture()`` returned, if any."""
        return self._paths[self._index - 1] if self._open and self._index > 0 else None

    def open(self) -> None:
        if self._open:
            return
        if self._folder is not None:
            if not self._folder.is_dir():
                raise CameraError(f"photo folder {self._folder} does not exist")
            self._paths = sorted(
                p for p in self._folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
            )
            if not self._paths:
                kinds = ", ".join(sorted(IMAGE_SUFFIXES))
                raise CameraError(f"photo folder {self._folder} holds no images ({kinds})")
        elif not self._paths:
            raise CameraError("no photo files given")
        self._index = 0
        self._open = True

    def capture(self) -> np.ndarray:
        if not self._open:
            self.open()
        if self._index >= len(self._paths):
            if not self.loop:
                raise CameraError(f"{self.name}: no more photos (all {len(self._paths)} were returned)")
            self._index = 0
        path = self._paths[self._index]
        self._index += 1
        try:
            return load_image(path)
        except ImageError as exc:
            raise CameraError(f"{self.name}: {exc}") from exc

    def _small_frame(self) -> np.ndarray:
        """The photo the next ``capture()`` gives, small (a folder camera's view does not use it up)."""
        if not self._open:
            self.open()
        path = self._paths[self._index % len(self._paths)]
        try:
            return shrink(load_image(path))
        except ImageError as exc:
            raise CameraError(f"{self.name}: {exc}") from exc

    def close(self) -> None:
        self._open = False
        self._preview = None


class OpenCVCamera(_CameraBase):
    """A USB webcam (or any camera OpenCV can open) by index.

    ``open()`` asks for the given resolution (the camera may give less) and throws away the first frames
    while exposure settles; ``capture()`` flushes the driver's buffer so the photo is taken now.
    """

    def __init__(
        self,
        index: int = 0,
        width: int | None = 1920,
        height: int | None = 1080,
        warmup_frames: int = 8,
    ) -> None:
        if index < 0:
            raise InvalidValueError(f"webcam index must be >= 0, got {index}")
        self.index = index
        self.width = width
        self.height = height
        self.warmup_frames = warmup_frames
        self.name = f"webcam {index}"
        self._cap: Any = None

    def open(self) -> None:
        if self._cap is not None:
            return
        import cv2

        cap = cv2.VideoCapture(self.index)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"{self.name} could not be opened (not connected, or in use by another app)")
        if self.width and self.height:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        ok = False
        for _ in range(max(1, self.warmup_frames)):
            ok, _frame = cap.read()
        if not ok:
            cap.release()
            raise CameraError(f"{self.name} opened but delivers no pictures")
        self._cap = cap

    def capture(self) -> np.ndarray:
        if self._cap is None:
            self.open()
        cap = self._cap
        # Drop frames the driver buffered while we were busy, then take a fresh one.
        for _ in range(2):
            cap.grab()
        ok, frame = cap.read()
        if not ok or frame is None or frame.size == 0:
            self.close()
            raise CameraError(f"{self.name} stopped delivering pictures (unplugged?); check it and retry")
        if frame.ndim == 2:
            import cv2

            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        return np.ascontiguousarray(frame[:, :, :3])

    def close(self) -> None:
        if self._cap is not None:
            with contextlib.suppress(Exception):
                self._cap.release()
            self._cap = None


def _import_picamera2() -> Any:
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise CameraError(
            "the Pi camera needs picamera2, which is not installed "
            "(on Raspberry Pi OS: sudo apt install python3-picamera2, and create the venv with "
            f"--system-site-packages): {exc}"
        ) from exc
    return Picamera2


AF_MODE_MANUAL = 0
"""libcamera's ``AfModeEnum.Manual``: the lens stays at ``LensPosition`` (picamera2 takes the number)."""


class PiCamera(_CameraBase):
    """The Raspberry Pi camera through picamera2: stills as BGR arrays from a camera that stays running.

    ``open()`` does everything slow once: one still configuration (``size``, default the size the reading
    needs: :func:`vision.table.placement.still_size`, 2304 x 1296 on a Camera Module 3), started once,
    automatic
    exposure and white balance left to settle, one autofocus cycle when the module can focus (Camera
    Module 3), then exposure, gain, white balance *and the lens position* locked, so every photo of the
    game night looks the same and none waits for the camera. Each ``capture()`` then only takes the next
    frame of the running camera (``capture_array``: no mode switch, no refocus). Keep the camera open
    while a game is on; a camera that fails is closed, and the next ``capture()`` opens it again. The
    camera is always closed, also when opening fails half-way.
    """

    def __init__(
        self,
        camera_num: int = 0,
        settle_frames: int = 30,
        settle_timeout_s: float = 3.0,
        size: tuple[int, int] | None = None,
    ) -> None:
        self.camera_num = camera_num
        self.settle_frames = settle_frames
        self.settle_timeout_s = settle_timeout_s
        self.size = size
        """The still's (width, height) as asked; None for the size the reading needs: the sensor's own
        halved while it stays at least ``vision.table.placement.CAPTURE_WIDTH`` wide (a Camera Module 3's 2304
        x
        1296 binned mode, same field of view; chosen by measurement, models/eval/placement.md)."""
        self.name = f"Pi camera {camera_num}"
        self.model: str | None = None
        """After open(): libcamera's sensor name (``imx708``, ``imx708_wide``...), when it gives one."""
        self.still: tuple[int, int] | None = None
        """After open(): the (width, height) of the stills this camera takes."""
        self.lores: tuple[int, int] | None = None
        """After open(): the (width, height) of its small stream (:func:`lores_size` of the still)."""
        self._cam: Any = None
        self.focused: bool | None = None
        """After open(): True/False whether the autofocus cycle succeeded, None for a fixed-focus module."""
        self.locked_controls: dict[str, Any] = {}
        """After open(): the exposure, gain and colour gains the camera was locked to."""

    def open(self) -> None:
        if self._cam is not None:
            return
        picamera2 = _import_picamera2()
        try:
            cameras = picamera2.global_camera_info()
        except Exception as exc:
            raise CameraError(f"{self.name}: libcamera could not list cameras: {exc}") from exc
        if self.camera_num >= len(cameras):
            raise CameraError(
                f"{self.name}: no camera connected to the camera port (libcamera found {len(cameras)})"
            )
        info = cameras[self.camera_num]
        self.model = str(info.get("Model")) if isinstance(info, dict) and info.get("Model") else None
        cam = None
        try:
            cam = picamera2(self.camera_num)
            # "RGB888" in picamera2 is laid out B, G, R in memory: exactly OpenCV's BGR.
            size = tuple(self.size or still_size(tuple(cam.sensor_resolution)))
            self.still = (int(size[0]), int(size[1]))
            # The small stream (lores, YUV420: what every Pi's ISP gives there) runs in the same
            # configuration, so the live view never switches the camera's mode.
            self.lores = lores_size(self.still)
            config = cam.create_still_configuration(
                main={"format": "RGB888", "size": size}, lores={"format": "YUV420", "size": self.lores}
            )
            cam.configure(config)
            cam.start()
            self._settle(cam)
            focusing = "AfMode" in cam.camera_controls
            if focusing:
                self.focused = bool(cam.autofocus_cycle())
            metadata = cam.capture_metadata()
            locked: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
            for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
                if key in metadata:
                    locked[key] = metadata[key]
            if focusing and "LensPosition" in metadata:
                # The lens stays where the one autofocus cycle put it: no sweep before any later photo.
                locked["AfMode"] = AF_MODE_MANUAL
                locked["LensPosition"] = metadata["LensPosition"]
            cam.set_controls(locked)
            self.locked_controls = locked
        except CameraError:
            self._close_quietly(cam)
            raise
        except Exception as exc:
            self._close_quietly(cam)
            raise CameraError(f"{self.name} could not be started: {exc}") from exc
        self._cam = cam

    def _settle(self, cam: Any) -> None:
        """Wait until auto exposure reports it has converged (or a few frames/seconds have passed)."""
        deadline = time.monotonic() + self.settle_timeout_s
        for _ in range(self.settle_frames):
            metadata = cam.capture_metadata()
            if metadata.get("AeLocked") or time.monotonic() > deadline:
                break

    def capture(self) -> np.ndarray:
        if self._cam is None:
            self.open()
        try:
            frame = self._cam.capture_array("main")
        except Exception as exc:
            self.close()
            raise CameraError(
                f"{self.name} stopped responding ({exc}); check the ribbon cable and retry"
            ) from exc
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] < 3 or frame.size == 0:
            shape = getattr(frame, "shape", None)
            self.close()
            raise CameraError(f"{self.name} returned an unusable picture (shape {shape}); retry")
        return np.ascontiguousarray(frame[:, :, :3])

    preview_gap = 0.0  # the lores stream runs with the camera: every frame asked for is a new one

    def _small_frame(self) -> np.ndarray:
        """The running camera's next lores frame (YUV420, its grey plane on top), as BGR."""
        if self._cam is None:
            self.open()
        try:
            frame = self._cam.capture_array("lores")
        except Exception as exc:
            self.close()
            raise CameraError(
                f"{self.name} stopped responding ({exc}); check the ribbon cable and retry"
            ) from exc
        w, h = self.lores or (0, 0)
        if not isinstance(frame, np.ndarray) or frame.ndim != 2 or frame.shape[0] < h * 3 // 2 or not w:
            shape = getattr(frame, "shape", None)
            raise CameraError(f"{self.name} returned an unusable small frame (shape {shape}); retry")
        import cv2

        if frame.shape[1] != w:  # rows padded to the ISP's stride: the colour planes lie otherwise
            return cv2.cvtColor(np.ascontiguousarray(frame[:h, :w]), cv2.COLOR_GRAY2BGR)
        return cv2.cvtColor(np.ascontiguousarray(frame[: h * 3 // 2]), cv2.COLOR_YUV2BGR_I420)

    @staticmethod
    def _close_quietly(cam: Any) -> None:
        if cam is None:
            return
        with contextlib.suppress(Exception):
            cam.stop()
        with contextlib.suppress(Exception):
            cam.close()

    def close(self) -> None:
        cam, self._cam = self._cam, None
        self._close_quietly(cam)


@dataclass(frozen=True)
class CameraInfo:
    """One camera `tabletally cameras` knows about. ``spec`` is what to pass to :func:`open_camera`."""

    kind: CameraKind
    name: str
    available: bool
    reason: str
    spec: str


def _pi_info(available: bool, reason: str, num: int | None = None, model: str = "") -> CameraInfo:
    if num is None:
        return CameraInfo(CameraKind.PI, "Pi camera", available, reason, "pi")
    return CameraInfo(CameraKind.PI, f"Pi camera {num} ({model})", available, reason, f"pi:{num}")


def _webcam_info(index: int | None, label: str, available: bool, reason: str) -> CameraInfo:
    if index is None:
        return CameraInfo(CameraKind.WEBCAM, "webcam", available, reason, "webcam")
    return CameraInfo(CameraKind.WEBCAM, f"webcam {index} ({label})", available, reason, f"webcam:{index}")


def _pi_cameras() -> list[CameraInfo]:
    try:
        picamera2 = _import_picamera2()
    except CameraError as exc:
        return [_pi_info(False, str(exc).split(" (")[0])]
    try:
        found = picamera2.global_camera_info()
    except Exception as exc:
        return [_pi_info(False, f"libcamera could not list cameras: {exc}")]
    if not found:
        return [_pi_info(False, "no camera connected to the camera port")]
    infos = []
    for num, info in enumerate(found):
        model = info.get("Model", "unknown sensor") if isinstance(info, dict) else str(info)
        infos.append(_pi_info(True, "found by libcamera", num, model))
    return infos


def _video_nodes(sys_root: Path = Path("/sys/class/video4linux")) -> list[tuple[int, str]]:
    """Capture nodes that may be webcams: (index, device name). Linux only; [] elsewhere."""
    if not sys_root.is_dir():
        return []
    nodes = []
    for entry in sys_root.iterdir():
        if not entry.name.startswith("video") or not entry.name[5:].isdigit():
            continue
        name = _read_text(entry / "name") or entry.name
        # UVC webcams expose a second node (index 1) for metadata only.
        if _read_text(entry / "index") not in (None, "0"):
            continue
        if any(tag in name.lower() for tag in _NOT_WEBCAM_NAMES):
            continue
        nodes.append((int(entry.name[5:]), name))
    return sorted(nodes)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _webcams(probe: bool = True) -> list[CameraInfo]:
    """Webcams: on Linux the V4L2 capture nodes (without the Pi's ISP/codec nodes), elsewhere index 0."""
    if sys.platform.startswith("linux"):
        nodes = _video_nodes()
        if not nodes:
            return [_webcam_info(None, "", False, "no video capture device (/dev/video*)")]
    else:
        nodes = [(0, "default camera")]
    infos = []
    for index, label in nodes:
        if not probe:
            infos.append(_webcam_info(index, label, True, "device present"))
            continue
        cam = OpenCVCamera(index, warmup_frames=1)
        try:
            cam.open()
        except CameraError as exc:
            infos.append(_webcam_info(index, label, False, str(exc)))
        else:
            infos.append(_webcam_info(index, label, True, "delivers pictures"))
        finally:
            cam.close()
    return infos


def demo_photos() -> list[Path]:
    """The bundled demo photos, in name order ([] when none are installed)."""
    if not DEMO_DIR.is_dir():
        return []
    return sorted(p for p in DEMO_DIR.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)


def _demo_info() -> CameraInfo:
    count = len(demo_photos())
    if count:
        return CameraInfo(CameraKind.FOLDER, f"demo photos ({count})", True, f"bundled in {DEMO_DIR}", "demo")
    return CameraInfo(CameraKind.FOLDER, "demo photos", False, f"no photos in {DEMO_DIR}", "demo")


def list_cameras(probe_webcams: bool = True) -> list[CameraInfo]:
    """Every camera source this machine could use, with whether it is available and why (not).

    With ``probe_webcams`` each webcam is opened briefly to check it really delivers pictures.
    """
    return [*_pi_cameras(), *_webcams(probe_webcams), _demo_info()]


def parse_spec(spec: str) -> tuple[str, str]:
    """Split a camera spec into (kind, argument).

    Specs: ``auto``, ``pi[:N]``, ``webcam[:N]``, ``folder:PATH``, ``demo``.
    """
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind not in {"auto", "pi", "webcam", "folder", "demo"}:
        raise CameraError(f"unknown camera {spec!r}: use auto, pi[:N], webcam[:N], folder:PATH or demo")
    if kind in {"pi", "webcam"} and arg and not arg.isdigit():
        raise CameraError(f"camera {spec!r}: the number after {kind}: must be a camera index like {kind}:0")
    if kind == "folder" and not arg:
        raise CameraError("camera 'folder:' needs a path, for example folder:photos/")
    if kind in {"auto", "demo"} and arg:
        raise CameraError(f"camera {spec!r}: {kind} takes no argument")
    return kind, arg


def _opened(camera: Camera) -> Camera:
    camera.open()
    return camera


def open_camera(spec: str = "auto") -> tuple[Camera, str]:
    """Open a camera and say why it was chosen. The camera comes back open; close it when done.

    ``auto`` tries the Pi camera, then each webcam, then the bundled demo photos, and the returned text
    says which one it chose and why each earlier one was not available. Raises :class:`CameraError`
    when the asked-for camera (or, for ``auto``, every camera) cannot be opened.
    """
    kind, arg = parse_spec(spec)
    if kind == "pi":
        cam = PiCamera(int(arg or 0))
        return _opened(cam), f"{cam.name} (asked for)"
    if kind == "webcam":
        webcam = OpenCVCamera(int(arg or 0))
        return _opened(webcam), f"{webcam.name} (asked for)"
    if kind == "folder":
        folder = FolderCamera(Path(arg).expanduser())
        return _opened(folder), f"{folder.name} (asked for)"
    if kind == "demo":
        demo = FolderCamera(DEMO_DIR)
        return _opened(demo), "the bundled demo photos (asked for)"

    skipped: list[str] = []
    pi = PiCamera(0)
    try:
        return _opened(pi), _because(pi.name, skipped)
    except CameraError as exc:
        skipped.append(f"Pi camera: {exc}")
    webcams = _webcams(probe=False)
    for info in webcams:
        if not info.available:
            skipped.append(f"webcam: {info.reason}")
            continue
        webcam = OpenCVCamera(int(info.spec.partition(":")[2]))
        try:
            return _opened(webcam), _because(webcam.name, skipped)
        except CameraError as exc:
            skipped.append(str(exc))
    demo = FolderCamera(DEMO_DIR)
    try:
        return _opened(demo), _because("the bundled demo photos", skipped)
    except CameraError as exc:
        skipped.append(f"demo photos: {exc}")
        raise CameraError("no camera available: " + "; ".join(skipped)) from exc


def _because(chosen: str, skipped: list[str]) -> str:
    if not skipped:
        return f"{chosen} (first choice)"
    return f"{chosen}, because " + "; ".join(skipped)
