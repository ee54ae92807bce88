"""Checkpoint averaging: the mean of each parameter, an Ultralytics checkpoint out, clear refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("ultralytics")

from models.training.average import AverageError, average_checkpoints, main  # noqa: E402
from models.training.train import offline_environment  # noqa: E402


def _checkpoint(path: Path, shift: float, nc: int = 53, epoch: int = 4) -> dict[str, Any]:
    """A checkpoint as Ultralytics writes it: its EMA model in half precision, every parameter + ``shift``."""
    offline_environment()
    from ultralytics.nn.tasks import DetectionModel

    torch.manual_seed(0)
    model = DetectionModel("yolo11n.yaml", nc=nc, verbose=False)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) + shift)
        for name, b in model.named_buffers():
            if b.is_floating_point():
                b.fill_(1.0 + shift)
            elif name.endswith("num_batches_tracked"):
                b.fill_(epoch)
    ckpt = {"epoch": epoch, "ema": model.half(), "model": None, "optimizer": {"state": 1}}
    torch.save(ckpt, path)
    return ckpt


def test_the_average_is_the_mean_of_every_parameter_and_buffer(tmp_path: Path) -> None:
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    first = _checkpoint(a, 0.0, epoch=3)["ema"].float().state_dict()
    _checkpoint(b, 0.5, epoch=4)
    out = tmp_path / "avg" / "mean.pt"
    summary = average_checkpoints([a, b], out)
    assert summary == {"out": str(out), "checkpoints": 2, "epoch": 5}
    ckpt = torch.load(out, map_location="cpu", weights_only=False)
    assert ckpt["optimizer"] is None and ckpt["averaged_from"] == [str(a), str(b)]
    assert next(ckpt["ema"].parameters()).dtype == torch.float16
    state = ckpt["ema"].float().state_dict()
    for name, value in state.items():
        if value.is_floating_point():
            assert torch.allclose(value, first[name] + 0.25, atol=2e-3), name
        elif name.endswith("num_batches_tracked"):
            assert int(value) == 4, name  # integer buffers: the last checkpoint's


def test_the_averaged_checkpoint_loads_in_ultralytics(tmp_path: Path) -> None:
    from ultralytics import YOLO

    a, b, out = tmp_path / "a.pt", tmp_path / "b.pt", tmp_path / "mean.pt"
    _checkpoint(a, 0.0)
    _checkpoint(b, 0.1)
    assert main(["--out", str(out), str(a), str(b)]) == 0
    model = YOLO(str(out))
    assert len(model.names) == 53


def test_refusals_name_the_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, other = tmp_path / "a.pt", tmp_path / "other.pt"
    _checkpoint(a, 0.0)
    _checkpoint(other, 0.0, nc=2)
    with pytest.raises(AverageError, match="at least two"):
        average_checkpoints([a], tmp_path / "x.pt")
    with pytest.raises(AverageError, match="other.pt is a different model"):
        average_checkpoints([a, other], tmp_path / "x.pt")
    with pytest.raises(AverageError, match="not found: .*missing.pt"):
        average_checkpoints([a, tmp_path / "missing.pt"], tmp_path / "x.pt")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    assert main(["--out", str(tmp_path / "x.pt"), str(a), str(junk)]) == 2
    err = capsys.readouterr().err
    assert "cannot read checkpoint" in err and "junk.pt" in err
    torch.save({"epoch": 1}, junk)
    with pytest.raises(AverageError, match="junk.pt holds no model"):
        average_checkpoints([a, junk], tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()
