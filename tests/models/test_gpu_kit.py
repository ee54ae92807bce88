"""The GPU kit: faces packed small enough to travel, unpacked into a working cache, a timed run end to end."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.decks import ALL_DECKS, Deck, Family, Split, decks_by_name, installed_decks
from models.gpu_kit import (
    FACES_TAR,
    MANIFEST,
    START_WEIGHTS,
    KitError,
    RunConfig,
    pack,
    pack_faces,
    run,
    spread_order,
    start_weights,
    summarize_results,
    unpack_faces,
)
from models.synth import SynthConfig, generate

from .conftest import TEST_DECKS


@pytest.mark.parametrize("n", [1, 2, 5, 8, 64, 192])
def test_spread_order_is_a_permutation(n: int) -> None:
    assert sorted(spread_order(n)) == list(range(n))


def test_spread_order_prefixes_spread_over_the_range() -> None:
    assert spread_order(8) == [0, 4, 2, 6, 1, 5, 3, 7]
    # a quarter of 192 procedural decks takes 16 of each generation of 64
    first = spread_order(192)[:48]
    assert [sum(1 for i in first if g * 64 <= i < (g + 1) * 64) for g in range(3)] == [16, 16, 16]
    assert spread_order(0) == []


def _with_procedural(faces_dir: Path, tmp_path: Path, n: int) -> Path:
    """A copy of the test faces plus ``n`` procedural decks (copies of the standard deck's faces)."""
    faces = tmp_path / "faces"
    shutil.copytree(faces_dir, faces)
    for i in range(n):
        shutil.copytree(faces_dir / "standard", faces / f"proc-{i:02d}")
    return faces


def test_pack_and_unpack_round_trip_the_faces(faces_dir: Path, tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    manifest = pack(faces_dir, kit, budget_mib=20, wheels=False, workers=1)
    assert manifest["svg_decks"] == list(TEST_DECKS)
    assert manifest["procedural_decks"] == [] and manifest["procedural_left_out"] == 0
    assert json.loads((kit / MANIFEST).read_text())["faces_bytes"] == (kit / FACES_TAR).stat().st_size
    # WebP is several times smaller than the cached PNGs
    png_bytes = sum(p.stat().st_size for p in faces_dir.glob("*/*.png"))
    assert manifest["faces_bytes"] < png_bytes / 2

    out = tmp_path / "unpacked"
    n = unpack_faces(kit, out, workers=1)
    originals = sorted(faces_dir.glob("*/*.png"))
    assert n == len(originals)
    for deck in TEST_DECKS:
        assert (out / deck / "corners.json").read_bytes() == (faces_dir / deck / "corners.json").read_bytes()
    for png in originals[::7]:
        a = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        b = cv2.imread(str(out / png.parent.name / png.name), cv2.IMREAD_UNCHANGED)
        assert b is not None and a.shape == b.shape
        assert np.array_equal(a[:, :, 3], b[:, :, 3])  # the alpha (the card's outline) is lossless
        seen = a[:, :, 3] > 0  # colour under fully transparent pixels is never drawn
        assert np.abs(a[:, :, :3].astype(int) - b[:, :, :3])[seen].mean() < 3.0


def test_unpacked_faces_draw_photos(faces_dir: Path, tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    pack(faces_dir, kit, budget_mib=20, wheels=False, workers=1)
    faces = tmp_path / "unpacked"
    unpack_faces(kit, faces, workers=1)
    data = tmp_path / "data"
    generate(SynthConfig(data, 2, 2, seed=3, faces=faces, workers=1, long_side=160, decks=TEST_DECKS))
    assert len(list((data / "images" / "train").glob("*.jpg"))) == 2
    assert len(list((data / "labels" / "val").glob("*.txt"))) == 2


def test_procedural_decks_fill_the_budget_in_spread_order(faces_dir: Path, tmp_path: Path) -> None:
    faces = _with_procedural(faces_dir, tmp_path, 4)
    sized = pack_faces(faces, tmp_path / "sizing", 50 * 2**20, workers=1)
    svg_only = pack_faces(faces_dir, tmp_path / "svg", 50 * 2**20, workers=1)["faces_bytes"]
    per_deck = (sized["faces_bytes"] - svg_only) / 4
    kept = pack_faces(faces, tmp_path / "kit", int(svg_only + 2.5 * per_deck), workers=1)
    assert kept["procedural_decks"] == ["proc-00", "proc-02"]
    assert kept["procedural_left_out"] == 2


def test_a_budget_too_small_for_the_svg_decks_is_refused(faces_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(KitError, match="SVG decks alone need more than the budget of 0.1 MiB"):
        pack_faces(faces_dir, tmp_path / "kit", int(0.1 * 2**20), workers=1)


def test_faces_without_a_held_out_deck_are_refused(faces_dir: Path, tmp_path: Path) -> None:
    faces = tmp_path / "faces"
    shutil.copytree(faces_dir / "standard", faces / "standard")
    with pytest.raises(KitError, match="none of the held-out decks"):
        pack_faces(faces, tmp_path / "kit", 2**30, workers=1)


def test_missing_or_broken_kits_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(KitError, match="no face cache at"):
        pack_faces(tmp_path / "nowhere", tmp_path / "kit", 2**20)
    with pytest.raises(KitError, match="no faces.tar in"):
        unpack_faces(tmp_path, tmp_path / "out", workers=1)
    (tmp_path / FACES_TAR).write_bytes(b"not a tar file at all" * 40)
    with pytest.raises(KitError, match="not a readable tar archive"):
        unpack_faces(tmp_path, tmp_path / "out", workers=1)
    cfg = RunConfig(kit=tmp_path / "empty", out=tmp_path / "o", work=tmp_path / "w", budget_s=60)
    with pytest.raises(KitError, match="no kit.json in"):
        run(cfg)


def test_packed_start_weights_travel_in_the_kit_and_take_their_room_from_the_faces(
    faces_dir: Path, tmp_path: Path
) -> None:
    from ultralytics import YOLO

    from models.classes import MODELS_DIR

    kit = tmp_path / "kit"
    plain = pack(faces_dir, kit, wheels=False, workers=1)  # the default budget: what the transfer leaves
    assert "start_weights" not in plain
    assert start_weights(kit, plain, None) == MODELS_DIR / "cards.pt"

    shipped = MODELS_DIR / "cards.pt"
    manifest = pack(faces_dir, kit, wheels=False, workers=1, start_from=shipped)
    packed = kit / START_WEIGHTS
    assert manifest["start_weights"] == START_WEIGHTS and manifest["start_weights_from"] == str(shipped)
    assert manifest["start_weights_bytes"] == packed.stat().st_size > 0
    assert plain["budget_bytes"] - manifest["budget_bytes"] == manifest["start_weights_bytes"]
    written = json.loads((kit / MANIFEST).read_text())
    assert written["start_weights_sha256"] == manifest["start_weights_sha256"]
    assert len(YOLO(str(packed)).names) == 53
    # a run starts from them unless told otherwise
    assert start_weights(kit, manifest, None) == packed
    assert start_weights(kit, manifest, tmp_path / "other.pt") == tmp_path / "other.pt"
    # packing again without them starts from the shipped model again
    again = pack(faces_dir, kit, budget_mib=20, wheels=False, workers=1)
    assert not packed.exists() and start_weights(kit, again, None) == shipped


def test_start_weights_that_are_not_weights_or_did_not_travel_are_named(
    faces_dir: Path, tmp_path: Path
) -> None:
    kit = tmp_path / "kit"
    bogus = tmp_path / "bogus.pt"
    bogus.write_bytes(b"not a checkpoint")
    with pytest.raises(KitError, match="bogus.pt: not a PyTorch checkpoint"):
        pack(faces_dir, kit, budget_mib=20, wheels=False, workers=1, start_from=bogus)
    assert not (kit / START_WEIGHTS).exists()
    with pytest.raises(KitError, match="no weights to pack at .*absent.pt"):
        pack(faces_dir, kit, budget_mib=20, wheels=False, workers=1, start_from=tmp_path / "absent.pt")
    with pytest.raises(KitError, match="names start.pt, missing from .*: carry the whole kit"):
        start_weights(kit, {"start_weights": START_WEIGHTS}, None)


def test_a_deck_whose_faces_are_cached_counts_as_installed_without_its_svg(tmp_path: Path) -> None:
    deck = Deck("far-away", Family.KDE, tmp_path / "missing.svgz", "far-away", Split.TRAIN)
    assert installed_decks((deck,)) == ()
    assert installed_decks((deck,), tmp_path) == ()
    (tmp_path / "far-away").mkdir()
    (tmp_path / "far-away" / "corners.json").write_text("{}")
    assert installed_decks((deck,), tmp_path) == (deck,)


def test_a_cache_unpacked_from_a_kit_holds_all_the_decks_there_are(faces_dir: Path, tmp_path: Path) -> None:
    here = decks_by_name()["ais-anglo"]  # installed on this machine, not in the test kit
    assert here.path.is_file()
    pack(faces_dir, tmp_path / "kit", budget_mib=20, wheels=False, workers=1)
    unpack_faces(tmp_path / "kit", tmp_path / "faces", workers=1)
    assert [d.name for d in installed_decks(ALL_DECKS, tmp_path / "faces")] == list(TEST_DECKS)
    assert here in installed_decks(ALL_DECKS, faces_dir)  # a cache of one's own: the installed decks count


def test_results_are_read_back_without_polars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ultralytics.engine.trainer import BaseTrainer

    from models.gpu_kit import _without_polars

    monkeypatch.setattr(BaseTrainer, "read_results_csv", BaseTrainer.read_results_csv)  # restored afterwards
    monkeypatch.setitem(sys.modules, "polars", None)  # import polars now raises ImportError
    _without_polars()
    results = tmp_path / "results.csv"
    results.write_text("epoch,time, metrics/mAP50(B)\n1,10.5,0.5\n2,21.0,0.625\n")

    class Trainer:
        csv = results

    assert BaseTrainer.read_results_csv(Trainer()) == {
        "epoch": [1.0, 2.0],
        "time": [10.5, 21.0],
        "metrics/mAP50(B)": [0.5, 0.625],
    }
    assert summarize_results(results) == [
        {"epoch": 1.0, "time": 10.5, "map50": 0.5},
        {"epoch": 2.0, "time": 21.0, "map50": 0.625},
    ]


def tiny_run(faces_dir: Path, tmp_path: Path, **overrides: object) -> RunConfig:
    """A kit packed from the test faces and a 60 s CPU run of it at 64 px, writing to tmp_path/out."""
    kit = tmp_path / "kit"
    pack(faces_dir, kit, budget_mib=20, wheels=False, workers=1)
    settings: dict[str, object] = dict(
        kit=kit,
        out=tmp_path / "out",
        work=tmp_path / "work",
        budget_s=60,
        count=8,
        val_count=4,
        workers=1,
        imgsz=64,
        batch=4,
        device="cpu",
        reserve_s=5,
        cache="",
    )
    return RunConfig(**{**settings, **overrides})  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_timed_run_fine_tunes_the_shipped_weights_and_returns_them(
    faces_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ultralytics import YOLO

    # the first training dies as data-loader workers do in a container with a small /dev/shm
    real_train = YOLO.train
    calls: list[int] = []

    def train_once_failing(self: YOLO, **kwargs: object) -> object:
        calls.append(int(kwargs["workers"]))  # type: ignore[call-overload]
        if len(calls) == 1:
            raise RuntimeError("DataLoader worker (pid 4242) is killed by signal: Bus error.")
        return real_train(self, **kwargs)

    monkeypatch.setattr(YOLO, "train", train_once_failing)

    out = tmp_path / "out"
    report = run(tiny_run(faces_dir, tmp_path, keep_epochs=2))
    assert calls == [1, 2] and report["retry"]["workers"] == 2  # trained again, with two loader workers
    assert report["faces"] == len(list(faces_dir.glob("*/*.png")))
    assert report["epochs"] and all("map50" in e for e in report["epochs"])
    for name in ("best.pt", "last.pt", "results.csv", "report.json"):
        assert (out / name).is_file(), name
    assert 1 <= len(list(out.glob("epoch*.pt"))) <= 2
    assert (out / "best.pt").stat().st_size < 16 * 2**20  # what the device machine may send back
    assert len(YOLO(str(out / "best.pt")).names) == 53
    # the training is planned inside the budget (the time taken is the machine's business: no timed test);
    # the retry plans what is left, which a failure within 50 ms leaves equal to the first plan at 0.1 s
    assert 0 < report["retry"]["train_s_planned"] <= report["train_s_planned"] < 60


@pytest.mark.slow
def test_a_p2_run_widens_the_shipped_weights_and_trains_only_the_new_level(
    faces_dir: Path, tmp_path: Path
) -> None:
    import torch

    from models.average import model_of
    from models.classes import MODELS_DIR
    from models.p2 import levels

    out = tmp_path / "out"
    report = run(tiny_run(faces_dir, tmp_path, keep_epochs=1, p2=True))
    assert report["p2"]["widened_here"] and report["config"].endswith("train-p2.yaml")
    assert levels(out / "last.pt") == 4
    # the recipe freezes every trained layer: the backbone and neck come back as the shipped model has them
    shipped_pt, last_pt = MODELS_DIR / "cards.pt", out / "last.pt"
    _, shipped = model_of(torch.load(shipped_pt, map_location="cpu", weights_only=False), shipped_pt)
    _, trained = model_of(torch.load(last_pt, map_location="cpu", weights_only=False), last_pt)
    old, new = shipped.float().state_dict(), trained.float().state_dict()
    frozen = [k for k in old if k.startswith("model.") and int(k.split(".")[1]) <= 22]
    assert frozen and all(torch.equal(old[k], new[k]) for k in frozen)
    # and the new branch trained
    init = torch.load(tmp_path / "work" / "p2-init.pt", map_location="cpu", weights_only=False)["model"]
    start = init.float().state_dict()
    assert any(not torch.equal(start[k], new[k]) for k in new if k.startswith("model.25."))


def test_a_p2_run_refuses_weights_it_cannot_widen(faces_dir: Path, tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.pt"
    bogus.write_bytes(b"not a checkpoint")
    with pytest.raises(KitError, match="bogus.pt: not a PyTorch checkpoint"):
        run(tiny_run(faces_dir, tmp_path, start_from=bogus, p2=True))
    assert not (tmp_path / "work" / "faces").exists()  # refused before unpacking anything
