"""The real Kivy kiosk headless across nights (ui.devtools.demo --script story): the first game of a new
night tells the last night's story first, New game then offers the past players, and the Players screen
merges two names of one player."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.headless import demo_result, run_demo
from ui.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_a_new_night_tells_the_last_story_then_offers_the_past_players(tmp_path: Path) -> None:
    out, data = tmp_path / "shots", tmp_path / "data"
    proc = run_demo(
        tmp_path, "--script", "story", "--out", str(out), "--size", "landscape", "--data-dir", str(data)
    )
    result = demo_result(proc)
    assert result["ok"] and result["screen_errors"] == []
    assert result["small_targets"] == [] and result["cut_text"] == []
    names = sorted(p.name.split("-", 1)[1] for p in (out / "landscape").glob("*.png"))
    assert names == [
        "new-game-past-players.png",
        "nights-all-time.png",
        "players-merge.png",
        "players-merged.png",
        "story-next-night.png",
    ]
    store = Store(data)
    players = {p.name: p.games for p in store.players()}
    assert players == {"Asha": 2, "Bikash": 2, "Chandra": 2, "Dipesh": 2}  # Dipu merged into Dipesh
    (night,) = [n for n in store.nights() if n.ended is not None]  # the story told is that night's end
    assert len(night.games) == 1 and "Dipesh" in night.games[0].names
