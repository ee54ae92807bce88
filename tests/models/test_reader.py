"""The corner reader's data, training and export (smoke), and the shipped reader on a held-out design."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import models.training.reader.data
from models.training.data.synth import SynthConfig, generate
from models.training.evaluate import OnePass
from models.training.reader.data import NONE_ID, STORE, collect, detector_patches
from models.training.reader.data import main as reader_data_main
from models.training.reader.train import export, train
from tests.models.conftest import TEST_DECKS
from tests.models.helpers import on_table
from vision.base.types import CARD_CODES
from vision.reader.corners import DEFAULT_READER, CornerReader


@pytest.fixture(scope="module")
def tiny_data(faces_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("reader") / "data"
    generate(SynthConfig(data, 6, 3, seed=2, faces=faces_dir, workers=1, long_side=320, decks=TEST_DECKS))
    return data


def test_patches_are_the_labelled_corners_then_negatives_and_deterministic(tiny_data: Path) -> None:
    x, y = collect([tiny_data], "train", seed=0, workers=1)
    labels = [
        line for f in (tiny_data / "labels" / "train").glob("*.txt") for line in f.read_text().split("\n")
    ]
    corners = sum(1 for line in labels if line.strip())
    assert x.shape[1:] == (STORE, STORE, 3) and x.dtype == np.uint8
    assert int((y != NONE_ID).sum()) == corners
    assert 0 < int((y == NONE_ID).sum()) <= 2 * 6  # at most two negatives a photo
    again_x, again_y = collect([tiny_data], "train", seed=0, workers=1)
    assert np.array_equal(x, again_x) and np.array_equal(y, again_y)


def test_reader_data_names_a_folder_without_images(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert reader_data_main(["--data", str(tmp_path), "--out", str(tmp_path / "p.npz")]) == 2
    assert f"no train images in {tmp_path / 'images' / 'train'}" in capsys.readouterr().err


@pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="models/reader.onnx not exported yet")
def test_detector_patches_take_the_class_of_the_labelled_corner_they_overlap(
    tiny_data: Path, tmp_path: Path
) -> None:
    found = 0
    for image in sorted((tiny_data / "images" / "train").glob("*.jpg")):
        label = tiny_data / "labels" / "train" / f"{image.stem}.txt"
        classes = {int(line.split()[0]) for line in label.read_text().split("\n") if line.strip()}
        x, y = detector_patches((str(image), str(label), 0))
        assert x.shape == (len(y), STORE, STORE, 3)
        assert set(y.tolist()) <= classes | {NONE_ID}
        found += int((y != NONE_ID).sum())
    assert found > 0, "the kiosk's detector found none of the labelled corners"
    # the same photo with nothing labelled: every box the detector hands the reader is a negative
    unlabelled = tmp_path / "none.txt"
    unlabelled.write_text("")
    x, y = detector_patches((str(image), str(unlabelled), 0))
    assert len(y) > 0 and set(y.tolist()) == {NONE_ID}


def test_detector_patches_need_the_reader_on(
    tiny_data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLETALLY_READER", "off")
    monkeypatch.setattr(models.training.reader.data, "_DETECTOR", None)
    args = ["--data", str(tiny_data), "--from-detector", "--workers", "1", "--out", "unused.npz"]
    assert reader_data_main(args) == 2
    assert "--from-detector needs the corner reader on" in capsys.readouterr().err


@pytest.mark.slow
def test_smoke_train_one_tiny_epoch_export_and_read(tiny_data: Path, tmp_path: Path) -> None:
    for split in ("train", "val"):
        assert (
            reader_data_main(
                [
                    "--data",
                    str(tiny_data),
                    "--split",
                    split,
                    "--out",
                    str(tmp_path / f"{split}.npz"),
                    "--workers",
                    "1",
                ]
            )
            == 0
        )
    last = train(tmp_path / "train.npz", tmp_path / "val.npz", epochs=1, batch=16, run_dir=tmp_path / "run")
    assert last.is_file() and (tmp_path / "run" / "epoch1.pt").is_file()
    onnx_path = export(last, tmp_path / "out")
    cards, none = CornerReader(onnx_path).read(
        np.full((200, 200, 3), 128, np.uint8), np.array([[50, 50, 70, 80]], np.float32)
    )
    assert cards.shape == (1, len(CARD_CODES)) and 0.0 <= float(none[0]) <= 1.0
    assert float(cards.sum() + none.sum()) == pytest.approx(1.0, abs=1e-4)
    # an exported reader can be fine-tuned on when its checkpoint is gone
    again = train(
        tmp_path / "train.npz",
        tmp_path / "val.npz",
        epochs=1,
        batch=16,
        run_dir=tmp_path / "r2",
        init=onnx_path,
    )
    assert again.is_file()


@pytest.fixture(scope="module")
def shipped() -> tuple[OnePass, CornerReader]:
    """The shipped detector (one pass) and corner reader, loaded once for the module."""
    return OnePass(), CornerReader(DEFAULT_READER).load()


# The same held-out design as the detector's test (tigullio, never in training): the reader, given the
# detector's box of the card's top-left corner, names the card.
@pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="models/reader.onnx not exported yet")
@pytest.mark.parametrize("code", ["AS", "8S", "10S", "QS", "3H", "JH", "KH", "5D", "QD", "6C", "KC", "JK"])
def test_shipped_reader_names_a_rendered_card_from_its_corner(
    faces_dir: Path, code: str, shipped: tuple[OnePass, CornerReader]
) -> None:
    face = cv2.imread(str(faces_dir / "ais-tigullio" / f"{code}.png"), cv2.IMREAD_UNCHANGED)
    assert face is not None
    photo = on_table(face)
    detector, reader = shipped
    boxes = np.array([d.box for d in detector.detect(photo, conf=0.2)], np.float32)
    assert len(boxes), "the detector found no corner"
    cards, none = reader.read(photo, boxes)
    assert [CARD_CODES[int(i)] for i in cards.argmax(axis=1)] == [code] * len(boxes)
    assert float(none.max()) < 0.5


def test_a_reader_rebuilt_from_its_onnx_export_computes_what_the_export_does(tmp_path: Path) -> None:
    import onnxruntime as ort
    import torch

    from models.training.reader.train import build_model, calibration_batch, state_from_onnx

    torch.manual_seed(3)
    model = build_model()
    for m in model.modules():  # batch norms with statistics of their own, as a trained reader has
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    torch.save({"model": model.state_dict()}, tmp_path / "w.pt")
    onnx_path = export(tmp_path / "w.pt", tmp_path / "out")
    patches = (np.random.default_rng(0).random((64, STORE, STORE, 3)) * 255).astype(np.uint8)
    batch = calibration_batch(patches, seed=0, n=32)
    rebuilt = build_model()
    rebuilt.load_state_dict(state_from_onnx(onnx_path, batch))
    rebuilt.eval()
    with torch.no_grad():
        ours = rebuilt(batch).numpy()
    theirs = ort.InferenceSession(str(onnx_path)).run(None, {"patches": batch.numpy()})[0]
    assert np.abs(ours - theirs).max() < 1e-3
    # the rebuilt batch norms hold the calibration batch's statistics, not the identity
    first_bn = rebuilt[0][1]
    assert float(first_bn.running_var.min()) > 0 and not torch.allclose(
        first_bn.running_var, torch.ones_like(first_bn.running_var)
    )


def test_fine_tuning_from_an_onnx_file_that_is_not_a_reader_names_it(tmp_path: Path) -> None:
    from models.training.reader.train import state_from_onnx

    with pytest.raises(ValueError, match="cards.onnx: .*convolutions"):
        state_from_onnx(Path(__file__).resolve().parents[2] / "models" / "cards.onnx", None)


def test_a_soup_of_two_readers_is_their_parameter_mean_and_takes_onnx_files(tmp_path: Path) -> None:
    import torch

    from models.training.reader.train import build_model, calibration_batch, soup, state_from_onnx

    paths = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        torch.save({"model": build_model().state_dict()}, tmp_path / f"r{seed}.pt")
        paths.append(tmp_path / f"r{seed}.pt")
    patches = (np.random.default_rng(0).random((40, STORE, STORE, 3)) * 255).astype(np.uint8)
    out = soup(paths, patches, seed=0, out=tmp_path / "soup.pt")
    mixed = torch.load(out, weights_only=False)["model"]
    a, b = (torch.load(p, weights_only=False)["model"] for p in paths)
    key = "0.0.weight"
    assert torch.allclose(mixed[key], (a[key] + b[key]) / 2)
    assert not torch.allclose(mixed[key], a[key])
    # an exported reader in the soup is rebuilt from its ONNX file first, calibrated on the patches
    onnx_path = export(paths[0], tmp_path / "onnx")
    with_onnx = torch.load(soup([onnx_path, paths[1]], patches, 0, tmp_path / "s2.pt"), weights_only=False)
    rebuilt = state_from_onnx(onnx_path, calibration_batch(patches, 0))
    assert torch.allclose(with_onnx["model"][key], (rebuilt[key] + b[key]) / 2)


def test_a_soup_of_a_missing_reader_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from models.training.reader.train import main

    assert main(["--soup", str(tmp_path / "gone.pt"), "--train", str(tmp_path / "p.npz")]) == 2
    assert "gone.pt" in capsys.readouterr().err
