"""Training smoke test, training config checks, and the shipped ONNX model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import pytest

from models.training.classes import CLASSES_JSON, MODELS_DIR
from models.training.data.synth import SynthConfig, generate
from models.training.evaluate import SHIPPED_ONNX, OnePass, cards_read
from models.training.train import REPO, ConfigError, TrainConfig, load_config, train
from scorer.cards import CARD_CODES
from tests.models.conftest import TEST_DECKS
from tests.models.helpers import on_table


def test_committed_config_loads() -> None:
    cfg = load_config()
    assert cfg.model.endswith(".yaml")  # built from YAML, never a pretrained download
    assert cfg.train_args["fliplr"] == 0.0  # a mirrored corner index is not a card
    assert cfg.train_args["imgsz"] % 32 == 0
    assert cfg.train_args["save_period"] == 1  # every epoch's weights, for models.training.average
    assert [cfg.dataset_seed(i) for i in range(len(cfg.data))] == list(cfg.synth_seeds)


def test_data_folders_without_seeds_count_up_from_the_seed() -> None:
    cfg = TrainConfig(
        data=(Path("a"), Path("b")),
        model="m",
        project=Path("p"),
        name="n",
        synth_count=1,
        synth_val_count=1,
        synth_seed=7,
    )
    assert [cfg.dataset_seed(0), cfg.dataset_seed(1)] == [7, 8]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a list", "mapping"),
        ("model: yolo11n.yaml\n", "lacks the key"),
        ("data: d\nmodel: m\nimgsz: 100\nepochs: 1\nproject: p\nname: n\n", "multiple of 32"),
        ("data: d\nmodel: m\nimgsz: 64\nepochs: 1\nproject: p\nname: n\nlr9: 1\n", "unknown key"),
        (
            "data: [a, b]\nmodel: m\nimgsz: 64\nepochs: 1\nproject: p\nname: n\nsynth: {seeds: [4]}\n",
            "1 seeds for 2",
        ),
        (
            "data: d\nmodel: m\nimgsz: 64\nepochs: 1\nproject: p\nname: n\nsynth: {seeds: 4}\n",
            "list of integers",
        ),
    ],
)
def test_bad_configs_are_refused_with_a_clear_message(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "train.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


@pytest.mark.slow
def test_smoke_generate_and_train_one_tiny_epoch(faces_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    generate(SynthConfig(data, 4, 2, seed=1, faces=faces_dir, workers=1, long_side=128, decks=TEST_DECKS))
    cfg = TrainConfig(
        data=(data,),
        model="yolo11n.yaml",
        project=tmp_path / "runs",
        name="smoke",
        synth_count=4,
        synth_val_count=2,
        synth_seed=1,
        train_args={
            "imgsz": 64,
            "epochs": 1,
            "batch": 4,
            "workers": 0,
            "mosaic": 0.0,
            "fliplr": 0.0,
            "val": False,
        },
    )
    run = train(cfg, device="cpu")
    assert (run / "weights" / "last.pt").is_file()


@pytest.fixture(scope="module")
def one_pass() -> OnePass:
    """The evaluation's one-pass reading of the shipped model, loaded once for the module."""
    return OnePass()


def test_the_one_pass_reading_reads_once_at_the_threshold_asked(one_pass: OnePass) -> None:
    # The threshold sweep reads each photo once at its lowest threshold and filters: a higher threshold
    # must give exactly the surer detections of the lower one, and no threshold means the model's own.
    photo = cv2.imread(str(REPO / "vision" / "demo" / "round5.jpg"))
    assert photo is not None
    photo = cv2.resize(photo, (640, 480), interpolation=cv2.INTER_AREA)
    low, high = one_pass.detect(photo, conf=0.1), one_pass.detect(photo, conf=0.5)
    assert high and len(low) > len(high)
    assert [d for d in low if d.confidence >= 0.5] == high
    assert one_pass.detect(photo) == one_pass.detect(photo, conf=one_pass.default_conf)


def test_shipped_files_agree(one_pass: OnePass) -> None:
    import json

    from vision.reading.detector import CardDetector

    shipped = json.loads(CLASSES_JSON.read_text(encoding="utf-8"))
    assert CardDetector(SHIPPED_ONNX).load().codes == CARD_CODES == tuple(shipped["names"])
    assert one_pass.size == shipped["imgsz"]  # the recipe's size is what was exported
    assert one_pass.size == load_config().train_args["imgsz"]
    assert (MODELS_DIR / "cards.pt").stat().st_size < 20e6 and SHIPPED_ONNX.stat().st_size < 20e6


# Rendered from a held-out design (never seen in training). The shipped model (576 px) names every card of
# that deck (see models/README.md); these cover every suit, rank kind and the joker.
@pytest.mark.parametrize(
    "code",
    ["AS", "4S", "8S", "9S", "10S", "JS", "QS", "KS", "AH", "3H", "10H", "JH", "QH", "KH"]
    + ["2D", "5D", "7D", "QD", "KD", "AC", "6C", "JC", "KC", "JK"],
)
def test_shipped_onnx_model_reads_a_rendered_card(faces_dir: Path, code: str, one_pass: OnePass) -> None:
    face = cv2.imread(str(faces_dir / "ais-tigullio" / f"{code}.png"), cv2.IMREAD_UNCHANGED)
    assert face is not None
    dets = one_pass.detect(on_table(face))  # 200 px wide on a plain green-grey table
    assert dets, "no corner detected"
    assert dets[0].code == code
    assert code in cards_read(dets)


_KIOSKS: dict[int | None, Any] = {}


@pytest.mark.parametrize("code", ["8S", "QH", "5D", "KC", "JK"])
@pytest.mark.parametrize(("quarter_turns", "rotations"), [(0, None), (2, None), (1, 4), (3, 4)])
def test_the_kiosk_reads_a_rendered_card_in_its_turns(
    faces_dir: Path, code: str, quarter_turns: int, rotations: int | None
) -> None:
    # The kiosk's own detector and pairing on the held-out design: its default reading (the photo upright
    # and half-turned, voting) on a card lying either way up, and four turns on one lying sideways (the
    # model reads sideways indices less surely: docs/vision.md, "Reading each view in turns").
    import numpy as np

    from vision.reading.detector import CardDetector
    from vision.runtimes.model_files import DEFAULT_ROTATIONS
    from vision.table.cards import cards_from_detections

    face = cv2.imread(str(faces_dir / "ais-tigullio" / f"{code}.png"), cv2.IMREAD_UNCHANGED)
    assert face is not None
    photo = np.ascontiguousarray(np.rot90(on_table(face), -quarter_turns))
    if rotations not in _KIOSKS:  # one loaded detector per setting for the module
        _KIOSKS[rotations] = CardDetector(SHIPPED_ONNX, rotations=rotations).load()
    kiosk = _KIOSKS[rotations]
    assert kiosk.rotations == (rotations or DEFAULT_ROTATIONS)
    assert [card.code for card in cards_from_detections(kiosk.detect(photo))] == [code]
