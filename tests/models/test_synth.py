"""Synthetic scenes and the dataset writer."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training.data.decks import Split
from models.training.data.scenes import SceneKind
from models.training.data.synth import SynthConfig, generate, main, make_image
from scorer.cards import CARD_CODES
from tests.models.conftest import TEST_DECKS


def _read_labels(path: Path) -> list[list[float]]:
    return [[float(v) for v in line.split()] for line in path.read_text().splitlines() if line.strip()]


def test_dataset_is_deterministic_from_the_seed(faces_dir: Path, tmp_path: Path) -> None:
    outs = []
    for i, workers in enumerate((1, 2)):
        cfg = SynthConfig(
            tmp_path / f"ds{i}",
            6,
            2,
            seed=5,
            faces=faces_dir,
            workers=workers,
            long_side=256,
            decks=TEST_DECKS,
        )
        generate(cfg)
        outs.append(cfg.out)
    for sub in ("labels/train", "labels/val", "truth"):
        a = sorted((outs[0] / sub).iterdir())
        b = sorted((outs[1] / sub).iterdir())
        assert [p.name for p in a] == [p.name for p in b]
        assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b, strict=True))


def test_labels_are_normalised_boxes_of_the_cards_in_the_truth(faces_dir: Path, tmp_path: Path) -> None:
    cfg = SynthConfig(
        tmp_path / "ds", 12, 3, seed=2, faces=faces_dir, workers=1, long_side=320, decks=TEST_DECKS
    )
    data_yaml = generate(cfg)
    assert "names:" in data_yaml.read_text() and "  52: 'JK'" in data_yaml.read_text()
    rows = [json.loads(line) for line in (cfg.out / "truth" / "train.jsonl").read_text().splitlines()]
    assert len(rows) == 12
    for row in rows:
        labels = _read_labels(cfg.out / "labels" / "train" / row["image"].replace(".jpg", ".txt"))
        classes = {CARD_CODES[int(lab[0])] for lab in labels}
        assert classes == set(row["cards"])
        for _, cx, cy, w, h in labels:
            assert cx - w / 2 + 1e-6 >= 0 and cx + w / 2 <= 1 + 1e-6
            assert cy - h / 2 + 1e-6 >= 0 and cy + h / 2 <= 1 + 1e-6
        assert (cfg.out / "images" / "train" / row["image"]).is_file()


@pytest.mark.parametrize("kind", list(SceneKind))
def test_every_scene_kind_renders_with_labels_inside_the_image(faces_dir: Path, kind: SceneKind) -> None:
    result, quality = make_image(9, Split.TRAIN, 0, faces_dir, long_side=320, kind=kind, decks=TEST_DECKS)
    h, w = result.image.shape[:2]
    assert max(h, w) == 320 and result.image.dtype == np.uint8
    assert 40 <= quality <= 95
    for cls, x0, y0, x1, y1 in result.labels:
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
        assert CARD_CODES[cls] in result.cards
    if kind is SceneKind.NEGATIVE:
        assert result.labels == [] and result.cards == []
    if kind in (SceneKind.UPRIGHT, SceneKind.SQUASHED):
        # one card, fully in view: both printed corners are labelled
        assert len(result.labels) == 2 and len(result.cards) == 1


def test_a_covered_corner_is_not_labelled(faces_dir: Path) -> None:
    """A card lying exactly on top of another hides it: only the top card's corners are labelled."""
    from models.training.data.decks import decks_by_name
    from models.training.data.scenes import FaceLibrary, Placement, render_scene

    lib = FaceLibrary(faces_dir, (decks_by_name()["standard"],))
    faces = lib.deck_faces(lib.decks[0])
    below, above = faces["2S"], faces["KH"]
    rng = np.random.default_rng(0)
    placements = [Placement(below, 160, 120, 150, 0), Placement(above, 160, 120, 150, 0)]
    _, labels, cards = render_scene(rng, placements, 320, 240, tilt=0.0, clutter=0)
    assert cards == ["KH"]
    assert len(labels) == 2


def test_cli_rejects_bad_counts_and_unknown_decks(faces_dir: Path, tmp_path: Path, capsys) -> None:
    assert main(["--out", str(tmp_path / "x"), "--count", "-1", "--faces", str(faces_dir)]) == 2
    assert "count" in capsys.readouterr().err
    assert (
        main(["--out", str(tmp_path / "y"), "--count", "1", "--faces", str(faces_dir), "--decks", "nope"])
        == 2
    )
    assert "nope" in capsys.readouterr().err


def test_cli_writes_scenes_of_one_kind_only(faces_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "tables"
    args = ["--out", str(out), "--count", "0", "--val-count", "3", "--faces", str(faces_dir), "--decks"]
    args += list(TEST_DECKS)
    assert main([*args, "--long-side", "256", "--workers", "1", "--kind", "table"]) == 0
    assert "wrote 0 train + 3 val images" in capsys.readouterr().out
    rows = [json.loads(line) for line in (out / "truth" / "val.jsonl").read_text().splitlines()]
    assert [row["kind"] for row in rows] == ["table"] * 3
    assert all(len(row["hands"]) >= 2 for row in rows)
    with pytest.raises(SystemExit):
        main([*args, "--kind", "picnic"])
    assert "invalid choice: 'picnic'" in capsys.readouterr().err


def test_a_players_hand_only_hides_corners_and_leaves_the_rest_of_the_scene(faces_dir: Path) -> None:
    """The hand has its own generator: the same scene with a hand has a subset of the labels."""
    seen_a_hidden_corner = False
    for index in range(6):
        plain, _ = make_image(
            3, Split.TRAIN, index, faces_dir, 320, SceneKind.TABLE, TEST_DECKS, hand_share=0.0
        )
        handed, _ = make_image(
            3, Split.TRAIN, index, faces_dir, 320, SceneKind.TABLE, TEST_DECKS, hand_share=1.0
        )
        assert handed.hands == plain.hands and handed.kind == plain.kind
        assert set(handed.labels) <= set(plain.labels)
        assert set(handed.cards) <= set(plain.cards)
        assert not np.array_equal(handed.image, plain.image)
        seen_a_hidden_corner |= len(handed.labels) < len(plain.labels)
    assert seen_a_hidden_corner


def test_single_card_scenes_never_get_a_hand(faces_dir: Path) -> None:
    for kind in (SceneKind.CLOSEUP, SceneKind.SQUASHED, SceneKind.UPRIGHT):
        a, qa = make_image(4, Split.TRAIN, 0, faces_dir, 256, kind, TEST_DECKS, hand_share=0.0)
        b, qb = make_image(4, Split.TRAIN, 0, faces_dir, 256, kind, TEST_DECKS, hand_share=1.0)
        assert np.array_equal(a.image, b.image) and a.labels == b.labels and qa == qb


def test_the_held_out_split_has_no_hands_unless_asked(tmp_path: Path) -> None:
    cfg = SynthConfig(tmp_path, 1, 1, seed=1)
    assert cfg.split_hand_share(Split.VAL) == 0.0
    assert 0.0 < cfg.split_hand_share(Split.TRAIN) < 1.0
    assert SynthConfig(tmp_path, 1, 1, seed=1, hand_share=0.5).split_hand_share(Split.VAL) == 0.5
    with pytest.raises(ValueError, match="hand_share must be between 0 and 1, got 1.5"):
        SynthConfig(tmp_path, 1, 1, seed=1, hand_share=1.5)


def test_config_rejects_a_tiny_long_side(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="long_side must be at least 64 pixels, got 32"):
        SynthConfig(tmp_path, 1, 1, seed=1, long_side=32)


def test_a_makers_mark_changes_the_cards_print_but_never_the_labels(faces_dir: Path) -> None:
    """The mark has its own generator: the same scene, the same labels and cards, other pixels."""
    for index in range(4):
        plain, qa = make_image(
            5, Split.TRAIN, index, faces_dir, 320, SceneKind.HAND, TEST_DECKS, mark_share=0.0
        )
        marked, qb = make_image(
            5, Split.TRAIN, index, faces_dir, 320, SceneKind.HAND, TEST_DECKS, mark_share=1.0
        )
        assert marked.labels == plain.labels and marked.cards == plain.cards and qa == qb
        assert not np.array_equal(marked.image, plain.image)


def test_a_makers_mark_is_printed_beside_the_two_corners_without_an_index(faces_dir: Path) -> None:

    from models.training.data.decks import decks_by_name
    from models.training.data.faces import BACK
    from models.training.data.scenes import FaceLibrary, MakersMark

    faces = FaceLibrary(faces_dir, (decks_by_name()["standard"],)).deck_faces(decks_by_name()["standard"])
    mark = MakersMark("KDE", (0.0, 0.0, 0.0), 0.04, vertical=True, courts_only=True, font=0, thickness=1)
    king = faces["KS"]
    changed = np.argwhere((mark.stamp(king).image != king.image).any(axis=2))
    h, w = king.image.shape[:2]
    top_right = changed[(changed[:, 0] < h / 2) & (changed[:, 1] > w / 2)]
    bottom_left = changed[(changed[:, 0] > h / 2) & (changed[:, 1] < w / 2)]
    assert len(top_right) > 20 and len(bottom_left) > 20 and len(top_right) + len(bottom_left) == len(changed)
    index_tl = king.boxes[0]
    assert not (
        (changed[:, 1] < index_tl.x1 * w) & (changed[:, 0] < index_tl.y1 * h)
    ).any()  # index untouched
    assert mark.stamp(faces["7S"]) is faces["7S"]  # courts only
    assert mark.stamp(faces[BACK]) is faces[BACK]
    four = type(king)(king.deck, king.code, king.image, king.boxes + king.boxes)
    assert mark.stamp(four) is four  # an index in all four corners leaves no room for a mark


def test_the_held_out_split_has_no_makers_marks_unless_asked(tmp_path: Path) -> None:
    cfg = SynthConfig(tmp_path, 1, 1, seed=1)
    assert cfg.split_mark_share(Split.VAL) == 0.0
    assert 0.0 < cfg.split_mark_share(Split.TRAIN) < 1.0
    assert SynthConfig(tmp_path, 1, 1, seed=1, mark_share=1.0).split_mark_share(Split.VAL) == 1.0
    with pytest.raises(ValueError, match="mark_share must be between 0 and 1, got -0.1"):
        SynthConfig(tmp_path, 1, 1, seed=1, mark_share=-0.1)


def test_four_cornered_prints_the_index_in_the_two_other_corners_and_labels_them(faces_dir: Path) -> None:
    from models.training.data.corners import mirrored
    from models.training.data.decks import decks_by_name
    from models.training.data.faces import BACK
    from models.training.data.scenes import FaceLibrary, four_cornered

    deck = decks_by_name()["standard"]
    faces = FaceLibrary(faces_dir, (deck,)).deck_faces(deck)
    seven = faces["7H"]
    four = four_cornered(seven)
    b = seven.boxes[0]
    assert four.boxes == (*seven.boxes, mirrored(b), mirrored(b).rotated180())
    h, w = seven.image.shape[:2]
    x0, y0, x1, y1 = int(b.x0 * w), int(b.y0 * h), int(np.ceil(b.x1 * w)), int(np.ceil(b.y1 * h))
    # the top-right corner now shows the top-left index as printed (not mirrored) ...
    assert np.array_equal(four.image[y0:y1, w - x1 : w - x0, :3], seven.image[y0:y1, x0:x1, :3])
    # ... the bottom-left its half turn, and nothing else on the face changed
    assert np.array_equal(four.image[h - y1 : h - y0, x0:x1, :3], seven.image[y0:y1, x0:x1, :3][::-1, ::-1])
    changed = (four.image != seven.image).any(axis=2)
    changed[y0:y1, w - x1 : w - x0] = False
    changed[h - y1 : h - y0, x0:x1] = False
    assert not changed.any()
    assert not np.array_equal(four.image, seven.image)
    assert four_cornered(four) is four  # already four corners
    assert four_cornered(faces[BACK]) is faces[BACK]


def test_four_corners_and_quarter_turns_keep_the_scene_and_only_add_labels(faces_dir: Path) -> None:
    """Both have generators of their own: the same cards and hands; four corners only add labels."""
    added = 0
    for index in range(6):
        plain, qa = make_image(5, Split.TRAIN, index, faces_dir, 320, SceneKind.HAND, TEST_DECKS)
        four, qb = make_image(
            5, Split.TRAIN, index, faces_dir, 320, SceneKind.HAND, TEST_DECKS, four_share=1.0
        )
        turned, qc = make_image(
            5, Split.TRAIN, index, faces_dir, 320, SceneKind.HAND, TEST_DECKS, turn_share=1.0
        )
        assert four.hands == plain.hands == turned.hands and qa == qb == qc
        assert set(plain.cards) <= set(four.cards)
        added += len(four.labels) - len(plain.labels)
        assert len(four.labels) >= len(plain.labels)
        assert not np.array_equal(turned.image, plain.image)
    assert added > 0


def test_a_quarter_turn_lays_a_close_up_sideways(faces_dir: Path) -> None:
    """An upright close-up's index boxes are taller than wide; turned a quarter, wider than tall."""

    def tall_share(share: float) -> float:
        tall = total = 0
        for index in range(8):
            scene, _ = make_image(
                6, Split.TRAIN, index, faces_dir, 320, SceneKind.CLOSEUP, TEST_DECKS, turn_share=share
            )
            for _, x0, y0, x1, y1 in scene.labels:
                tall += (y1 - y0) > (x1 - x0)
                total += 1
        return tall / max(1, total)

    assert tall_share(1.0) < 0.5 < tall_share(0.0)


def test_the_held_out_split_has_no_four_corners_or_turns_unless_asked(tmp_path: Path) -> None:
    cfg = SynthConfig(tmp_path, 1, 1, seed=1)
    for share in (cfg.split_four_share, cfg.split_turn_share):
        assert share(Split.VAL) == 0.0
        assert 0.0 < share(Split.TRAIN) < 1.0
    assert SynthConfig(tmp_path, 1, 1, seed=1, four_share=1.0).split_four_share(Split.VAL) == 1.0
    assert SynthConfig(tmp_path, 1, 1, seed=1, turn_share=0.5).split_turn_share(Split.VAL) == 0.5
    with pytest.raises(ValueError, match="four_share must be between 0 and 1, got 2.0"):
        SynthConfig(tmp_path, 1, 1, seed=1, four_share=2.0)
    with pytest.raises(ValueError, match="turn_share must be between 0 and 1, got -1.0"):
        SynthConfig(tmp_path, 1, 1, seed=1, turn_share=-1.0)


def test_the_camera_record_leaves_the_photo_as_it_was() -> None:
    from models.training.data.textures import camera

    img = np.random.default_rng(3).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    for seed in range(12):
        record: dict[str, float] = {}
        plain = camera(np.random.default_rng(seed), img)
        recorded = camera(np.random.default_rng(seed), img, record=record)
        assert np.array_equal(plain, recorded)
        assert set(record) == {"lowres", "blur", "motion", "noise"}
        assert 0.45 <= record["lowres"] <= 1 and 0 <= record["blur"] <= 1.4 and 0 <= record["noise"] <= 9
        assert record["motion"] in (0, 3, 4, 5, 6)


def test_each_label_has_a_readability_record_in_the_truth(faces_dir: Path, tmp_path: Path) -> None:
    cfg = SynthConfig(
        tmp_path / "ds", 0, 6, seed=4, faces=faces_dir, workers=1, long_side=320, decks=TEST_DECKS
    )
    generate(cfg)
    rows = [json.loads(line) for line in (cfg.out / "truth" / "val.jsonl").read_text().splitlines()]
    for row in rows:
        labels = _read_labels(cfg.out / "labels" / "val" / row["image"].replace(".jpg", ".txt"))
        assert [c["code"] for c in row["corners"]] == [CARD_CODES[int(lab[0])] for lab in labels]
        for c, (_, _, _, bw, bh) in zip(row["corners"], labels, strict=True):
            assert 0.7 <= c["visible"] <= 1 and c["h"] > 0 and c["w"] > 0
            # the index's own height fits inside its upright box's diagonal
            assert c["h"] <= 320 * np.hypot(bw, bh) + 1
        assert 40 <= row["camera"]["jpeg"] <= 95 and set(row["camera"]) >= {"blur", "motion", "lowres"}


def test_a_card_in_full_view_records_both_indices_whole_and_alike(faces_dir: Path) -> None:
    from models.training.data.decks import decks_by_name
    from models.training.data.scenes import FaceLibrary, Placement, render_scene

    lib = FaceLibrary(faces_dir, (decks_by_name()["standard"],))
    faces = lib.deck_faces(lib.decks[0])
    meta: dict[str, object] = {}
    placements = [Placement(faces["2S"], 160, 120, 150, 0)]
    render_scene(np.random.default_rng(0), placements, 320, 240, tilt=0.0, clutter=0, meta=meta)
    corners = meta["corners"]
    assert isinstance(corners, list) and [c["code"] for c in corners] == ["2S", "2S"]
    assert all(c["visible"] == 1.0 for c in corners)
    # an upright card 150 px tall: both indices the same height, a fraction of the card's
    assert corners[0]["h"] == corners[1]["h"] and 8 < corners[0]["h"] < 75


def _standard_face(faces_dir: Path, code: str):  # type: ignore[no-untyped-def]
    from models.training.data.decks import decks_by_name
    from models.training.data.scenes import FaceLibrary

    lib = FaceLibrary(faces_dir, (decks_by_name()["standard"],))
    return lib.deck_faces(lib.decks[0])[code]


def _ink_centre(face, box) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """The centre of the dark-or-coloured ink inside a box of a face (in face fractions)."""
    fh, fw = face.image.shape[:2]
    x0, y0, x1, y1 = int(box.x0 * fw), int(box.y0 * fh), int(np.ceil(box.x1 * fw)), int(np.ceil(box.y1 * fh))
    rgb = face.image[y0:y1, x0:x1, :3].astype(int)
    ink = (rgb.max(axis=2) - rgb.min(axis=2) > 80) | (rgb.max(axis=2) < 100)
    ys, xs = np.nonzero(ink)
    return (x0 + xs.mean()) / fw, (y0 + ys.mean()) / fh


@pytest.mark.parametrize("across_width", [True, False])
def test_a_bent_card_keeps_its_size_and_its_index_inside_the_moved_box(
    faces_dir: Path, across_width: bool
) -> None:
    from models.training.data.scenes import bent

    flat = _standard_face(faces_dir, "QH")
    curled = bent(flat, 1.0, across_width, light=0.2, shade=0.5, gloss=0.0)
    assert curled.image.shape == flat.image.shape and len(curled.boxes) == len(flat.boxes)
    fh, fw = flat.image.shape[:2]
    # seen from above the curl is shorter: the ends along the bent axis are transparent
    ends = curled.image[:, [0, fw - 1], 3] if across_width else curled.image[[0, fh - 1], :, 3]
    assert ends.max() == 0
    for before, after in zip(flat.boxes, curled.boxes, strict=True):
        moved = (after.x0, after.x1) if across_width else (after.y0, after.y1)
        kept = (before.x0, before.x1) if across_width else (before.y0, before.y1)
        # the index moves towards the middle, and its ink stays inside its box
        assert abs(moved[0] - 0.5) < abs(kept[0] - 0.5) and moved[0] < moved[1]
        cx, cy = _ink_centre(curled, after)
        assert after.x0 < cx < after.x1 and after.y0 < cy < after.y1


def test_a_glare_never_washes_the_ink_out_completely(faces_dir: Path) -> None:
    from models.training.data.scenes import MAX_GLOSS, glossy

    flat = _standard_face(faces_dir, "KS")
    shiny = glossy(flat, 0.15, 0.12, 0.3, 0.3, strength=0.95)  # asked for more than the cap
    before = flat.image[:, :, :3].astype(int)
    after = shiny.image[:, :, :3].astype(int)
    assert (after >= before).all() and after.sum() > before.sum()
    assert ((after - before) <= np.ceil(MAX_GLOSS * (255 - before)) + 1).all()
    assert shiny.boxes == flat.boxes and np.array_equal(shiny.image[:, :, 3], flat.image[:, :, 3])


def test_bent_cards_come_from_their_own_generator(faces_dir: Path) -> None:
    """Asking for bends changes the cards' look but not the scene: the same cards, kind and decks."""
    plain, q1 = make_image(7, Split.VAL, 3, faces_dir, long_side=320, decks=TEST_DECKS)
    curled, q2 = make_image(7, Split.VAL, 3, faces_dir, long_side=320, decks=TEST_DECKS, bend_share=1.0)
    assert q1 == q2 and plain.kind == curled.kind and plain.hands == curled.hands
    assert not np.array_equal(plain.image, curled.image)


def test_a_deal_fans_a_whole_pack_in_one_hand(faces_dir: Path) -> None:
    result, _ = make_image(4, Split.VAL, 0, faces_dir, 480, SceneKind.DEAL, TEST_DECKS, frame=(640, 640))
    assert result.image.shape[:2] == (480, 480)
    assert len(result.hands) == 1 and len(result.hands[0]) == 52 and "JK" not in result.hands[0]
    assert set(result.cards) <= set(result.hands[0])


def test_cli_writes_every_image_in_the_aspect_asked(faces_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "wide"
    args = ["--out", str(out), "--count", "0", "--val-count", "2", "--faces", str(faces_dir), "--decks"]
    args += [*TEST_DECKS, "--long-side", "320", "--workers", "1"]
    assert main([*args, "--aspect", "16:9"]) == 0
    for image in (out / "images" / "val").glob("*.jpg"):
        assert cv2.imread(str(image)).shape[:2] == (180, 320)
    with pytest.raises(SystemExit):
        main([*args, "--aspect", "wide"])
    assert "WIDTH:HEIGHT" in capsys.readouterr().err
