"""The stride-4 (P2) detector: the shipped yolo11n carried over unchanged, only the new branch trains."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from models import p2
from models.classes import MODELS_DIR
from models.p2 import P2_YAML, WidenError, check_carried, p2_anchors, save, widen
from models.train import load_config

SHIPPED = MODELS_DIR / "cards.pt"


@pytest.fixture(scope="module")
def widened():  # type: ignore[no-untyped-def]
    return widen(SHIPPED)


def test_widened_model_reads_as_the_shipped_one_on_its_three_levels(widened) -> None:  # type: ignore[no-untyped-def]
    assert check_carried(SHIPPED, widened, imgsz=192) < 1e-4


def test_widened_model_has_four_levels_with_the_new_one_at_stride_4(widened) -> None:  # type: ignore[no-untyped-def]
    detect = widened.model[-1]
    assert detect.stride.tolist() == [4.0, 8.0, 16.0, 32.0]
    with torch.no_grad():
        out = widened.eval()(torch.zeros(1, 3, 128, 128))[0]
    assert out.shape == (1, 4 + 53, p2_anchors(128) + 16**2 + 8**2 + 4**2)


def test_the_new_branch_starts_quiet(widened) -> None:  # type: ignore[no-untyped-def]
    x = torch.rand(1, 3, 192, 192, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        scores = widened.eval()(x)[0][0, 4:, : p2_anchors(192)]
    assert float(scores.max()) < 0.05  # no confident corners from an untrained branch


def test_widened_checkpoint_loads_in_ultralytics(widened, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from ultralytics import YOLO

    out = tmp_path / "p2.pt"
    save(widened, out, SHIPPED)
    model = YOLO(str(out))
    assert model.names[0] == "AS" and len(model.names) == 53
    assert model.model.yaml["head"][-1][0] == [25, 16, 19, 22]


def test_widening_refuses_a_model_that_is_not_a_yolo11n_card_detector(widened, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "p2.pt"
    save(widened, out, SHIPPED)
    with pytest.raises(WidenError, match="three-level"):
        widen(out)  # already widened
    with pytest.raises(FileNotFoundError, match="nope.pt"):
        widen(tmp_path / "nope.pt")
    junk = tmp_path / "junk.pt"
    torch.save({"model": None}, junk)
    with pytest.raises(WidenError, match="not an Ultralytics checkpoint"):
        widen(junk)


def test_p2_recipe_freezes_everything_but_the_new_branch() -> None:
    cfg = load_config(MODELS_DIR / "train-p2.yaml")
    frozen = {f"model.{x}." for x in cfg.train_args["freeze"]}
    assert {f"model.{i}." for i in range(23)} <= frozen
    for branch in ("cv2", "cv3"):
        assert {f"model.26.{branch}.{level}." for level in (1, 2, 3)} <= frozen
        assert f"model.26.{branch}.0." not in frozen
    assert not frozen & {"model.23.", "model.24.", "model.25."}
    assert cfg.model == str(P2_YAML.relative_to(MODELS_DIR.parent))
    assert cfg.train_args["fliplr"] == 0.0


def test_p2_only_loss_sees_the_stride_4_anchors_alone(widened) -> None:  # type: ignore[no-untyped-def]
    import copy
    from types import SimpleNamespace

    from models.p2 import p2_only_loss

    model = copy.deepcopy(widened).float().train()
    model.args = SimpleNamespace(box=7.5, cls=0.5, dfl=1.5)
    batch = {
        "batch_idx": torch.zeros(1),
        "cls": torch.tensor([[3.0]]),
        "bboxes": torch.tensor([[0.5, 0.5, 0.1, 0.15]]),  # normalised xywh: one corner
    }
    x = torch.rand(1, 3, 128, 128, generator=torch.Generator().manual_seed(5))
    loss = p2_only_loss(model)
    before, _ = loss(model(x), batch)
    detect = model.model[-1]
    with torch.no_grad():  # the trained levels' branches changed: the loss must not notice
        for branch in (*detect.cv2[1:], *detect.cv3[1:]):
            for p in branch.parameters():
                p.add_(1.0)
    after, _ = loss(model(x), batch)
    assert torch.allclose(before, after)
    with torch.no_grad():  # the new branch changed: it must
        for p in detect.cv3[0].parameters():
            p.add_(0.5)
    changed, _ = loss(model(x), batch)
    assert not torch.allclose(before, changed)


def test_widened_writes_a_three_level_model_widened_and_passes_a_widened_one_through(tmp_path: Path) -> None:
    out = tmp_path / "init.pt"
    assert p2.levels(SHIPPED) == 3
    assert p2.widened(SHIPPED, out) == out and p2.levels(out) == 4
    again = tmp_path / "again.pt"
    assert p2.widened(out, again) == out and not again.exists()


def test_a_file_that_is_no_checkpoint_is_refused_by_name(tmp_path: Path) -> None:
    bad = tmp_path / "photo.pt"
    bad.write_bytes(b"\xff\xd8 a jpeg, not weights")
    with pytest.raises(WidenError, match="photo.pt: not a PyTorch checkpoint"):
        p2.levels(bad)


def test_the_p2_loss_is_patched_in_only_while_training_it() -> None:
    from types import SimpleNamespace

    from ultralytics.nn.tasks import DetectionModel

    original = DetectionModel.init_criterion
    with p2.p2_loss_while_training():
        assert DetectionModel.init_criterion is not original
        four = DetectionModel(str(P2_YAML), nc=53, verbose=False)
        three = DetectionModel("yolo11n.yaml", nc=53, verbose=False)
        for model in (four, three):
            model.args = SimpleNamespace(box=7.5, cls=0.5, dfl=1.5)
        assert type(four.init_criterion()).__name__ == "P2OnlyLoss"
        assert type(three.init_criterion()).__name__ == "v8DetectionLoss"
    assert DetectionModel.init_criterion is original
