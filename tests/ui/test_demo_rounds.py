"""The bundled demo photos (vision/demo) tell the truth of the demo's scripted rounds: each photo shows what
its truth file says, the scripted rounds and deals are those hands, and the kiosk, reading each photo with
the shipped model as a scan of the whole table does, gives every player (or team) exactly those cards with
none in doubt, so the first scans of ``make run`` and of the demo need no fixing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from models.training.classes import CLASS_INDEX
from ui.devtools.demo_data import DEALS, PLAYERS, ROUNDS
from ui.devtools.demo_photos import photo_plan, read_as_kiosk, round_logs, seats_of
from ui.logic import games
from vision.base.photo import load_image
from vision.cameras import DEMO_DIR, FolderCamera
from vision.reader.corners import DEFAULT_READER
from vision.reading.detector import CardDetector
from vision.runtimes.model_files import DEFAULT_ONNX, DEFAULT_ROTATIONS

TRUTH = json.loads((DEMO_DIR / "truth.json").read_text(encoding="utf-8"))


def ordered(codes: list[str]) -> list[str]:
    return sorted(codes, key=CLASS_INDEX.__getitem__)


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    """The kiosk's reading of the shipped models, whatever the environment says."""
    return CardDetector(DEFAULT_ONNX, rotations=DEFAULT_ROTATIONS, reader=DEFAULT_READER).load()


def test_the_photos_are_the_scripted_rounds_and_deals_in_the_order_the_demo_plays_them() -> None:
    names = [name for name, _entry, _groups in photo_plan()]
    assert list(TRUTH) == names == sorted(names)  # the folder camera shows them in this order
    assert sorted(p.name for p in DEMO_DIR.glob("*.jpg")) == names
    rounds = [TRUTH[n] for n in names if n.startswith("round")]
    deals = [TRUTH[n] for n in names if n.startswith("seep")]
    assert len(rounds) == len(ROUNDS) and len(deals) == len(DEALS)
    for entry, (_caller, hands) in zip(rounds, ROUNDS, strict=True):
        assert entry["kind"] == "table" and entry["players"] == len(PLAYERS)
        assert entry["hands"] == [ordered(hands.get(p, [])) for p in PLAYERS]
        assert 2 <= sum(1 for h in entry["hands"] if h) <= 5 and all(len(h) <= 5 for h in entry["hands"])
        assert entry["cards"] == ordered([c for h in entry["hands"] for c in h])  # every card shows a corner
    for entry, (captured, _sweeps) in zip(deals, DEALS, strict=True):
        assert entry["kind"] == "seep"
        assert entry["hands"] == [ordered(captured.get(t) or []) for t in ("A", "B")]


def test_the_photos_are_small_jpegs_the_folder_camera_shows() -> None:
    camera = FolderCamera(DEMO_DIR, loop=False)
    with camera:
        for name in TRUTH:
            image = camera.capture()
            assert camera.last_path is not None and camera.last_path.name == name
            assert image.shape == (960, 1280, 3)
            assert (DEMO_DIR / name).stat().st_size < 200_000


@pytest.mark.parametrize("name", list(TRUTH))
def test_the_kiosk_reads_each_photo_as_its_truth_with_no_card_in_doubt(
    name: str, detector: CardDetector
) -> None:
    entry: dict[str, Any] = TRUTH[name]
    if entry["kind"] == "table":
        log = round_logs()[int(name.removeprefix("round").removesuffix(".jpg")) - 1]
    else:
        log = games.new_seep_log({"A": PLAYERS[0::2], "B": PLAYERS[1::2]}, {})
    # read_as_kiosk answers [] when a card is in doubt (the players would be asked to look at it).
    assert read_as_kiosk(entry, load_image(DEMO_DIR / name), detector, log) == entry["hands"]
    if entry["kind"] == "table":
        active = [p for p, hand in zip(PLAYERS, entry["hands"], strict=True) if hand]
        assert len(seats_of(entry)) == len(active) == len(games.jhyap_state(log).active)


def test_the_scripted_rounds_score_as_read_without_an_over_limit_hand() -> None:
    for log, (caller, hands) in zip(round_logs(), ROUNDS, strict=True):
        entry = games.jhyap_entry(caller, hands)
        assert games.check_jhyap_entry(log, entry) is None
