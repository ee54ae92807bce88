"""The Players, Nights, player and story screens' logic (ui.logic.record_views) and the phones' story."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from ui.logic.alltime import Records
from ui.logic.record_views import (
    Mode,
    PlayersForm,
    all_time_rows,
    night_rows,
    night_view,
    player_lines,
    player_nights,
    story_lines,
)
from ui.share.snapshot import snapshot
from ui.store import Store

V1 = Path(__file__).resolve().parent / "data" / "record-v1.sqlite3"
JHYAP = {"game": "jhyap", "players": ["Asha", "Bikash"], "rules": {}}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "data").mkdir()
    shutil.copy(V1, tmp_path / "data" / "tabletally.sqlite3")
    return Store(tmp_path / "data", clock=lambda: dt.datetime(2026, 11, 20, 23, 0))


def test_the_story_in_words(store: Store) -> None:
    lines = story_lines(Records(store).story(dt.date(2026, 11, 20)))
    assert lines == [
        "Winner of the night: Dipesh",
        "1 game won",
        "Best call: Dipesh called on 0, 30 under the next hand (round 3)",
        "Biggest comeback: Dipesh won from 33 points behind",
        "Most sweeps: Raj & Meera, 3 sweeps",
    ]
    assert story_lines(Records(store).story(dt.date(2026, 11, 28))) == [
        "No game was won.",
        "Best call: Esha called on 3, 7 under the next hand (round 1)",
    ]


def test_nights_and_a_night_as_tonight_shows_it(store: Store) -> None:
    records = Records(store)
    rows = night_rows(records)
    assert [r.text for r in rows] == ["2026-11-28  ·  1 game", "2026-11-20  ·  2 games\nWinners: Dipesh"]
    view = night_view(records, dt.date(2026, 11, 20))
    assert [g.kind for g in view.games] == ["jhyap", "seep"]
    assert view.standings[0].name == "Dipesh" and view.standings[0].won == 1
    assert view.story[0] == "Winner of the night: Dipesh"


def test_the_all_time_standings(store: Store) -> None:
    rows = all_time_rows(Records(store))
    assert rows[0] == ["Player", "Played", "Won", "Win rate"]
    assert rows[1] == ["Dipesh", "1", "1", "100%"] and ["Asha", "2", "0", "0%"] in rows
    assert len(rows) == 10  # the nine players of the two nights


def test_a_players_page(store: Store) -> None:
    records = Records(store)
    asha = next(p for p in records.all_time.players if p.name == "Asha")
    assert player_lines(asha) == [
        "Jhyap: 2 played, 0 won (0%)",
        "Calls: 4, successful: 3; penalties: 1",
        "Went out: 1; average hand at the end of a round: 18.5",
    ]
    assert player_nights(asha) == ["2026-11-28: won 0 of 1", "2026-11-20: won 0 of 1"]
    raj = next(p for p in records.all_time.players if p.name == "Raj")
    assert player_lines(raj) == ["Seep: 1 played, 0 won (0%); baazis: 1, sweeps: 3"]


def test_players_rename_and_merge_through_the_form(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.create_game("jhyap", {**JHYAP, "players": ["Asha", "Bikash"]})
    store.create_game("jhyap", {**JHYAP, "players": ["Aasha", "Chandra"]})
    form = PlayersForm(store)
    ids = {p.name: p.id for p in form.players}
    form.choose(ids["Asha"])
    form.start_rename()
    assert form.mode is Mode.RENAME
    assert not form.rename("  ") and form.message == "Type a name first."
    assert (
        not form.rename("bikash")
        and form.message == "Bikash is another player already: merge the two instead."
    )
    assert form.rename("Asha Devi") and form.name(ids["Asha"]) == "Asha Devi" and form.mode.value == "list"
    form.start_merge()
    form.choose(ids["Bikash"])
    assert form.mode.value == "confirm_merge"
    assert (
        not form.merge()
        and form.message == "Asha Devi and Bikash played in the same game: they are two players."
    )
    form.start_merge()
    form.choose(ids["Aasha"])
    assert (
        form.merge_question()
        == "Aasha and Asha Devi are one player: every game of Aasha becomes Asha Devi's."
    )
    assert form.merge()
    assert [(p.name, p.games) for p in form.players if p.id == ids["Asha"]] == [("Asha Devi", 2)]
    assert "Aasha" not in [p.name for p in form.players]


def test_the_phones_get_tonights_story(tmp_path: Path) -> None:
    store = Store(tmp_path, clock=lambda: dt.datetime(2026, 11, 20, 21, 0))
    assert snapshot(store, None)["tonight"]["story"] == []
    game = store.create_game("jhyap", JHYAP)
    store.add_entry(game, {"caller": "Asha", "hands": {"Asha": ["AS"], "Bikash": ["KS"]}})
    story = snapshot(store, game)["tonight"]["story"]
    assert story == ["No game was won.", "Best call: Asha called on 1, 9 under the next hand (round 1)"]


def test_new_game_offers_past_players_and_a_past_name_typed_again_is_that_player(tmp_path: Path) -> None:
    from ui.logic.new_game import NewGameForm

    now = [dt.datetime(2026, 11, 13, 20, 0)]
    store = Store(tmp_path, clock=lambda: now[0])
    store.create_game("jhyap", {**JHYAP, "players": ["Chandra", "Asha"]})
    now[0] = dt.datetime(2026, 11, 20, 20, 0)
    store.create_game("jhyap", {**JHYAP, "players": ["Asha", "बिकास"]})
    form = NewGameForm("jhyap", store.recent_names())
    assert form.recent_choices() == ["Asha", "बिकास", "Chandra"]  # last night's first, then the most games
    form.add("  asha ")
    assert form.names == ["Asha"] and form.recent_choices() == ["बिकास", "Chandra"]
    form.add("Dipa")  # a newcomer is typed
    assert form.names == ["Asha", "Dipa"]
