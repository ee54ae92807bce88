"""Photos within limits: the size is read from the header and a picture over the pixel budget is refused
before decoding (decompression bombs), a bad photo in a batch never stops the rest, and a photo without
colour is told apart."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.base.errors import CameraError, ImageError
from vision.base.photo import PIXEL_BUDGET, decode_image, has_colour, image_size, load_image
from vision.cameras import FolderCamera

ROOT = Path(__file__).resolve().parents[2]


def png_bomb(width: int, height: int) -> bytes:
    """A real PNG whose header says width x height (grayscale): the picture is all zeros and compresses to
    almost nothing; a decoder would allocate all of it."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compressobj(9)
    row = b"\0" * (width + 1)
    body = b"".join(rows.compress(row) for _ in range(min(height, 64))) + rows.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def jpeg_claiming(width: int, height: int) -> bytes:
    """A small real JPEG whose frame header is rewritten to claim width x height."""
    ok, buf = cv2.imencode(".jpg", np.full((16, 16, 3), 120, np.uint8))
    assert ok
    data = bytearray(buf.tobytes())
    at = data.find(b"\xff\xc0")
    data[at + 5 : at + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.mark.parametrize(
    ("encode", "size"),
    [
        (".png", (640, 480)),
        (".jpg", (1000, 700)),
        (".bmp", (33, 17)),
        (".webp", (300, 200)),
        (".tiff", (50, 40)),
    ],
)
def test_image_size_reads_the_header_of_each_format(encode: str, size: tuple[int, int]) -> None:
    ok, buf = cv2.imencode(encode, np.zeros((size[1], size[0], 3), np.uint8))
    assert ok
    assert image_size(buf.tobytes()) == size


@pytest.mark.parametrize(
    ("data", "claimed"),
    [
        (png_bomb(30000, 30000), "30000 x 30000"),
        (png_bomb(100000, 100000), "100000 x 100000"),
        (jpeg_claiming(20000, 20000), "20000 x 20000"),
    ],
)
def test_a_decompression_bomb_is_refused_from_its_header(tmp_path: Path, data: bytes, claimed: str) -> None:
    path = tmp_path / "bomb.png"
    path.write_bytes(data)
    assert path.stat().st_size < 1_000_000
    with pytest.raises(ImageError, match=f"{claimed} pixels .* over the limit of 50 megapixels"):
        load_image(path)


def test_refusing_a_bomb_allocates_nothing(tmp_path: Path) -> None:
    """In a fresh process, reading the 30000 x 30000 PNG keeps the peak memory where importing OpenCV left
    it (decoding it would need 2.7 GB)."""
    path = tmp_path / "bomb.png"
    path.write_bytes(png_bomb(30000, 30000))
    code = (
        "import resource, cv2, numpy\n"
        "from vision.cameras import load_image\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        f"    load_image({str(path)!r})\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print((after - before) // 1024)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    kind, grown_mb = done.stdout.split()
    assert kind == "ImageError"
    assert int(grown_mb) < 50


def test_a_picture_within_the_budget_decodes(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".png", np.zeros((200, 300, 3), np.uint8))
    assert decode_image(buf.tobytes(), "x.png").shape == (200, 300, 3)
    assert PIXEL_BUDGET == 50_000_000


@pytest.mark.parametrize("data", [b"GIF89a" + b"\0" * 100, os.urandom(3000), b"\x89PNG\r\n\x1a\n"])
def test_an_unknown_or_cut_short_header_is_refused(data: bytes) -> None:
    with pytest.raises(ImageError, match="not a readable image"):
        decode_image(data, "odd.img")


def test_a_bad_photo_in_a_folder_never_stops_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a-bomb.png").write_bytes(png_bomb(100000, 100000))
    cv2.imwrite(str(tmp_path / "b-good.png"), np.full((40, 60, 3), (0, 0, 200), np.uint8))
    camera = FolderCamera(tmp_path, loop=False)
    with pytest.raises(CameraError, match="a-bomb.png: 100000 x 100000 pixels"):
        camera.capture()
    assert camera.capture().shape == (40, 60, 3)


@pytest.mark.skipif(not (ROOT / "models" / "cards.onnx").is_file(), reason="the card model is not built")
def test_tabletally_detect_reads_every_photo_after_a_bad_one(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_bomb(100000, 100000))
    from vision.cameras import demo_photos

    good = demo_photos()[0]
    tabletally = Path(sys.executable).parent / "tabletally"
    done = subprocess.run(
        [str(tabletally), "detect", "--json", str(bomb), str(good)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr
    assert "bomb.png: 100000 x 100000 pixels" in done.stderr
    assert len(json.loads(done.stdout)) == 1  # the good photo was read
    assert done.returncode != 0


def test_a_photo_without_colour_is_told(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    gray = rng.integers(0, 255, (300, 400), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "gray.jpg"), gray)
    assert not has_colour(load_image(tmp_path / "gray.jpg"))  # decoded as three equal channels
    assert not has_colour(gray)
    colour = np.dstack([gray, gray, gray]).copy()
    colour[100:200, 100:200] = (20, 20, 200)  # a red card
    assert has_colour(colour)
