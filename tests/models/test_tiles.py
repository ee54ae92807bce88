"""The kiosk's tiles cut out of a dataset as training photos of their own."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.tiles import Box, TilesError, corners_are_small, cut, main, read_labels, tile_labels
from vision.detector import tile_grid

W, H = 640, 480


def _dataset(root: Path, labels: dict[str, list[str]]) -> Path:
    """A dataset of models.synth's shape: one noisy 640 x 480 photo per entry, with those label lines."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    rng = np.random.default_rng(0)
    for stem, lines in labels.items():
        cv2.imwrite(str(root / "images" / "train" / f"{stem}.jpg"), rng.integers(0, 255, (H, W, 3), np.uint8))
        (root / "labels" / "train" / f"{stem}.txt").write_text("".join(f"{line}\n" for line in lines))
    return root


def _yolo(cls: int, x1: float, y1: float, x2: float, y2: float) -> str:
    return f"{cls} {(x1 + x2) / 2 / W} {(y1 + y2) / 2 / H} {(x2 - x1) / W} {(y2 - y1) / H}"


SMALL = [_yolo(3, 40, 40, 52, 58), _yolo(7, 500, 400, 512, 418), _yolo(9, 300, 60, 312, 78)]


def test_the_grid_is_the_kiosks_two_by_two_crops_with_a_fifth_overlap() -> None:
    grid = tile_grid(H, W, 2)
    assert len(grid) == 4
    assert {(x0, y0) for x0, y0, _, _ in grid} == {(0, 0), (284, 0), (0, 213), (284, 213)}
    assert all((w, h) == (356, 267) for _, _, w, h in grid)
    assert tile_grid(100, 100, 1) == [(0, 0, 100, 100)]


def test_labels_are_read_in_pixels_and_a_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text(_yolo(5, 10, 20, 30, 60) + "\n\n")
    (box,) = read_labels(path, W, H)
    assert box.cls == 5
    assert (box.x1, box.y1, box.x2, box.y2) == pytest.approx((10, 20, 30, 60))
    path.write_text("5 0.5 oops 0.1 0.1\n")
    with pytest.raises(TilesError, match=r"a\.txt:1: not a YOLO label line"):
        read_labels(path, W, H)


def test_the_smallness_rule_is_the_kiosks_median_corner_at_the_input_size() -> None:
    small = [Box(0, 0, 0, 20, 20)] * 3  # 20 px in a 640 px photo: 18 at 576
    large = [Box(0, 0, 0, 30, 30)] * 3  # 27 at 576
    assert corners_are_small(small, W, H, 576)
    assert not corners_are_small(large, W, H, 576)
    assert corners_are_small(large, W, H, 320)
    assert not corners_are_small([], W, H, 576)


def test_a_corner_mostly_inside_a_crop_is_clipped_to_it_and_one_mostly_outside_is_dropped() -> None:
    inside = Box(1, 100, 100, 120, 130)
    straddling = Box(2, 350, 10, 360, 30)  # 6 of 10 px wide inside a crop ending at x = 356
    mostly = Box(3, 340, 10, 360, 30)  # 16 of 20 inside
    lines = tile_labels([inside, straddling, mostly], 0, 0, 356, 267)
    assert len(lines) == 2
    cls, cx, cy, w, h = lines[0].split()
    assert cls == "1"
    assert (float(cx), float(cy), float(w), float(h)) == pytest.approx(
        (110 / 356, 115 / 267, 20 / 356, 30 / 267), abs=1e-6
    )
    cls, cx, _, w, _ = lines[1].split()
    assert cls == "3" and float(w) == pytest.approx(16 / 356, abs=1e-6)
    assert float(cx) == pytest.approx(348 / 356, abs=1e-6)


def test_cut_writes_the_chosen_crops_pixel_for_pixel_with_their_corners(tmp_path: Path) -> None:
    src = _dataset(tmp_path / "src", {"000000": SMALL})
    result = cut(src, tmp_path / "out", per_image=4, seed=1)
    assert (result.photos, result.tiled, result.crops) == (1, 1, 3)  # the fourth crop holds no corner
    photo = cv2.imread(str(src / "images" / "train" / "000000.jpg"))
    for k, (x0, y0, w, h) in enumerate(tile_grid(H, W, 2)):
        crop = tmp_path / "out" / "images" / "train" / f"000000_t{k}.png"
        label = tmp_path / "out" / "labels" / "train" / f"000000_t{k}.txt"
        if not crop.exists():
            assert k == 2  # bottom left: no corner of SMALL lies there
            continue
        assert np.array_equal(cv2.imread(str(crop)), photo[y0 : y0 + h, x0 : x0 + w])
        assert label.read_text().strip()
    assert result.corners == 4  # the corner at x 300-312 lies in both top crops: counted in each
    assert (tmp_path / "out" / "data.yaml").is_file()
    assert json.loads((tmp_path / "out" / "tiles.json").read_text())["crops"] == 3


def test_photos_the_kiosk_would_not_tile_are_left_out_unless_all_are_asked_for(tmp_path: Path) -> None:
    large = [_yolo(3, 40, 40, 80, 90), _yolo(4, 400, 300, 440, 350)]
    src = _dataset(tmp_path / "src", {"000000": SMALL, "000001": large, "000002": []})
    assert (cut(src, tmp_path / "a", per_image=1).tiled, cut(src, tmp_path / "a").crops) == (1, 2)
    every = cut(src, tmp_path / "b", per_image=1, every=True)
    assert (every.tiled, every.crops) == (3, 2)  # the photo without corners has no crop to give


def test_the_crops_picked_depend_on_the_seed_only(tmp_path: Path) -> None:
    src = _dataset(tmp_path / "src", {f"{i:06d}": SMALL for i in range(6)})

    def picked(out: str, seed: int) -> list[str]:
        cut(src, tmp_path / out, per_image=1, seed=seed)
        return sorted(p.name for p in (tmp_path / out / "images" / "train").iterdir())

    assert picked("a", 3) == picked("b", 3)
    assert any(picked(f"c{s}", s) != picked("a", 3) for s in range(4, 8))


def test_a_missing_or_empty_source_is_refused_with_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--src", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
    assert "nowhere: not a dataset of models.synth" in capsys.readouterr().err
    (tmp_path / "empty" / "images" / "train").mkdir(parents=True)
    (tmp_path / "empty" / "labels" / "train").mkdir(parents=True)
    with pytest.raises(TilesError, match="no training photos"):
        cut(tmp_path / "empty", tmp_path / "out")
    with pytest.raises(TilesError, match="--per-image must be at least 1, got 0"):
        cut(tmp_path / "empty", tmp_path / "out", per_image=0)
