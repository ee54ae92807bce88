"""Photos in: reading a photo file within a pixel budget (:func:`load_image`), the checks every photo
passes before it is read (:func:`check_image_array`, :func:`check_not_blank`), and telling a photo without
colour.

A compressed file can be tiny and still hold a huge picture: an 875 KB PNG of 30000 x 30000 pixels needs
several GB to decode, enough to take a 4 GB Raspberry Pi down. :func:`image_size` reads the width and
height from the file's header (JPEG, PNG, BMP, WebP, TIFF) without decoding anything, and
:func:`decode_image` refuses, with an :class:`~vision.base.errors.ImageError` naming the file and its size,
any
picture over :data:`PIXEL_BUDGET` before OpenCV allocates it. A file whose header cannot be read is refused
too: OpenCV would otherwise size the picture from a header nobody checked.

:func:`has_colour` tells a grayscale photo (one channel, or three equal ones): the card model tells red
suits from black ones by colour, so such a photo loses every red card and the caller should say so.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from vision.base.errors import ImageError

PIXEL_BUDGET = 50_000_000
"""The largest picture decoded, in pixels: 50 megapixels (a large phone photo; the Pi cameras take 12).
Decoded as BGR it takes 150 MB, which a 4 GB Pi can spare beside the kiosk."""

FORMATS = "JPEG, PNG, BMP, WebP or TIFF"
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})
"""The photo files a folder of photos offers (a folder camera, the measuring tools)."""


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame: SOFn
            if i + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    order = "<" if data[:2] == b"II" else ">"
    try:
        (offset,) = struct.unpack(order + "I", data[4:8])
        (count,) = struct.unpack(order + "H", data[offset : offset + 2])
        found: dict[int, int] = {}
        for k in range(count):
            entry = data[offset + 2 + 12 * k : offset + 14 + 12 * k]
            tag, kind = struct.unpack(order + "HH", entry[:4])
            if tag in (256, 257):  # ImageWidth, ImageLength: SHORT (3) or LONG (4)
                fmt = order + ("H" if kind == 3 else "I")
                found[tag] = struct.unpack(fmt, entry[8 : 8 + struct.calcsize(fmt)])[0]
        return (found[256], found[257]) if 256 in found and 257 in found else None
    except (struct.error, KeyError):
        return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    try:
        if chunk == b"VP8X":
            width = 1 + int.from_bytes(data[24:27], "little")
            height = 1 + int.from_bytes(data[27:30], "little")
            return width, height
        if chunk == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
        if chunk == b"VP8 ":
            width, height = struct.unpack("<HH", data[26:30])
            return width & 0x3FFF, height & 0x3FFF
    except struct.error:
        return None
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of the picture in an image file's first bytes, or None when the header is not one
    of JPEG, PNG, BMP, WebP or TIFF (or is cut short). Nothing is decoded."""
    head = bytes(data[:65536])
    try:
        if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
            width, height = struct.unpack(">II", head[16:24])
            return width, height
        if head[:2] == b"\xff\xd8":
            return _jpeg_size(head) or (_jpeg_size(bytes(data)) if len(data) > len(head) else None)
        if head[:2] == b"BM" and len(head) >= 26:
            width, height = struct.unpack("<ii", head[18:26])
            return abs(width), abs(height)
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return _webp_size(head)
        if head[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff_size(bytes(data))
    except struct.error:
        return None
    return None


def decode_image(data: bytes | np.ndarray, source: str | Path, budget: int = PIXEL_BUDGET) -> np.ndarray:
    """A photo file's bytes as a BGR uint8 array, checked against ``budget`` pixels from the header first.

    Raises :class:`ImageError` naming ``source``: an unknown or cut-short header, a picture over the
    budget (its size in the message), or one that does not decode.
    """
    import cv2

    raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
    size = image_size(raw)
    if size is None:
        raise ImageError(f"{source}: not a readable image ({FORMATS} expected)")
    width, height = size
    if width <= 0 or height <= 0:
        raise ImageError(f"{source}: the image header gives an empty picture ({width} x {height})")
    if width * height > budget:
        raise ImageError(
            f"{source}: {width} x {height} pixels ({width * height / 1e6:.0f} megapixels) is over the limit "
            f"of {budget / 1e6:.0f} megapixels; make the photo smaller"
        )
    try:
        image = cv2.imdecode(np.frombuffer(raw, dtype=np.uint8), cv2.IMREAD_COLOR)
    except (cv2.error, MemoryError) as exc:
        raise ImageError(f"{source}: the image does not decode ({type(exc).__name__})") from exc
    if image is None or image.size == 0:
        raise ImageError(f"{source}: not a readable image ({FORMATS} expected)")
    return np.asarray(image, dtype=np.uint8)


def has_colour(image: np.ndarray, tolerance: int = 6) -> bool:
    """False for a grayscale photo: one channel, or three that differ by at most ``tolerance`` everywhere
    (looked at on a grid of about 100,000 points, so it is fast on any size)."""
    if image.ndim < 3 or image.shape[2] < 3:
        return False
    step = max(1, int((image.shape[0] * image.shape[1] / 100_000) ** 0.5))
    grid = image[::step, ::step, :3].astype(np.int16)
    spread = np.max(grid, axis=2) - np.min(grid, axis=2)
    # A few coloured pixels (a sensor's noise, a watermark) do not make a colour photo of the cards.
    return bool(np.count_nonzero(spread > tolerance) > 0.002 * spread.size)


def load_image(path: str | Path) -> np.ndarray:
    """Read a photo as a BGR uint8 array; :class:`ImageError` naming the file if that is impossible,
    including a picture over the pixel budget (checked from the header before decoding)."""
    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no such file")
    if not p.is_file():
        raise ImageError(f"{p}: not a file")
    if p.stat().st_size == 0:
        raise ImageError(f"{p}: the file is empty")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ImageError(f"{p}: cannot read the file: {exc.strerror or exc}") from exc
    return decode_image(data, p)


def check_image_array(image: object) -> None:
    """Raise :class:`ImageError` unless ``image`` is a non-empty HxWx3 uint8 array."""
    if not isinstance(image, np.ndarray):
        raise ImageError(f"expected an image array, got {type(image).__name__}")
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 1 or image.shape[1] < 1:
        raise ImageError(f"expected an HxWx3 BGR image, got an array of shape {image.shape}")
    if image.dtype != np.uint8:
        raise ImageError(f"expected a uint8 image, got dtype {image.dtype}")


BLANK_STD = 2.0
"""A photo whose grey levels vary less than this (standard deviation, 0-255) is blank: lens covered,
camera not ready, or an all-black/all-white file."""

MIN_SIDE = 32


def check_not_blank(image: np.ndarray, name: str = "photo") -> None:
    """Raise :class:`ImageError` if ``image`` is too small or one flat colour."""
    check_image_array(image)
    h, w = image.shape[:2]
    if min(h, w) < MIN_SIDE:
        raise ImageError(f"{name}: {w}x{h} pixels is too small to hold readable cards")
    step = max(1, max(h, w) // 512)
    sample = image[::step, ::step].astype(np.float32)
    grey = sample @ np.array([0.114, 0.587, 0.299], dtype=np.float32)
    std = float(grey.std())
    if std < BLANK_STD:
        raise ImageError(
            f"{name}: the photo is blank (one flat colour, grey level {grey.mean():.0f} +/- {std:.1f}); "
            "is the lens covered or the light off?"
        )
