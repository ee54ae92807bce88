"""Players across nights, nights, the import of whole games, and the migration of a record made by the
schema-1 TableTally (tests/ui/data/record-v1.sqlite3, written by ui/store.py as of commit 5fb902c: two
nights, a finished Jhyap game with an undo and an edit, a Seep game past midnight, a game in progress with
a scan and a draft, a setting)."""

from __future__ import annotations

import datetime as dt
import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ui.store import SCHEMA_VERSION, GameStatus, Store, StoreError, migrations
from ui.store.players import seat_every_game

V1 = Path(__file__).resolve().parent / "data" / "record-v1.sqlite3"
JHYAP = {"game": "jhyap", "players": ["Asha", "Bikash"], "rules": {}}
R1 = {"caller": "Asha", "hands": {"Asha": ["AS"], "Bikash": ["KS"]}}


def v1_copy(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(V1, folder / "tabletally.sqlite3")
    return folder


def version(db_file: Path) -> int:
    con = sqlite3.connect(f"file:{db_file}?mode=ro", uri=True)
    try:
        return int(con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
    finally:
        con.close()


def test_a_schema_1_record_is_migrated_and_keeps_everything(tmp_path: Path) -> None:
    data = v1_copy(tmp_path / "data")
    assert version(data / "tabletally.sqlite3") == 1
    store = Store(data, clock=lambda: dt.datetime(2026, 12, 5, 20, 0))
    assert store.migrated_from == 1 and version(store.path) == SCHEMA_VERSION == 2
    g1, g2, g3 = store.games()
    assert (g1.kind, len(g1.entries), g1.status, g1.winner) == ("jhyap", 14, GameStatus.FINISHED, "Dipesh")
    assert (g2.kind, len(g2.entries), g2.status) == ("seep", 7, GameStatus.FINISHED)
    assert (g3.status, len(g3.entries)) == (GameStatus.PLAYING, 2)
    assert [a for a, _p, _x, _w in store.history(g1.id)].count("undo") == 1
    draft = store.draft(g3.id)
    assert draft is not None and draft.state["caller"] == "Bikash"
    assert store.scans(g3.id)[0].detected == {"cards": ["5S", "JK"]} and store.setting("language") == "ne"
    names = {p.id: p.name for p in store.players()}
    assert sorted(names.values()) == sorted(
        ["Asha", "Bikash", "Chandra", "Dipesh", "Priya", "Sunil", "Raj", "Meera", "Esha"]
    )
    seats = store.seating()
    assert [names[i] for i in seats[g3.id]] == ["Asha", "Bikash", "Esha"]
    assert [names[i] for i in seats[g2.id]] == ["Priya", "Sunil", "Raj", "Meera"]
    assert seats[g1.id][0] == seats[g3.id][0]  # Asha on both nights is one player
    # the latest night's players first, the most games next
    assert store.recent_names()[:3] == ["Asha", "Bikash", "Esha"]
    nights = store.nights()
    assert [(n.date, len(n.games)) for n in nights] == [
        (dt.date(2026, 11, 28), 1),
        (dt.date(2026, 11, 20), 2),
    ]
    store.close()
    again = Store(data)
    assert again.migrated_from == 2 and len(again.players()) == 9
    again.close()


def test_a_migration_that_fails_half_way_leaves_the_schema_1_record_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = v1_copy(tmp_path / "data")

    def half_way(db: sqlite3.Connection) -> None:
        seat_every_game(db)
        raise OSError(5, "Input/output error")  # the disk fails after the seats were written

    monkeypatch.setitem(migrations.STEPS, 2, half_way)
    with pytest.raises(StoreError):
        Store(data)
    assert version(data / "tabletally.sqlite3") == 1
    con = sqlite3.connect(data / "tabletally.sqlite3")
    tables = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    con.close()
    assert "players" not in tables and "seats" not in tables
    monkeypatch.undo()
    store = Store(data)
    assert store.migrated_from == 1 and len(store.games()) == 3 and len(store.players()) == 9
    store.close()


OPEN = "import sys; from ui.store import Store; Store(sys.argv[1]).close(); print('OPEN', flush=True)"


@pytest.mark.slow
def test_a_migration_killed_at_random_moments_is_all_or_nothing(tmp_path: Path) -> None:
    big = v1_copy(tmp_path / "big") / "tabletally.sqlite3"
    con = sqlite3.connect(big)
    for _ in range(12):  # 3 games -> 12,288 games of the same definitions
        con.execute(
            "INSERT INTO games(kind, definition, status, winner, created, ended) "
            "SELECT kind, definition, status, winner, created, ended FROM games"
        )
    con.commit()
    games = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    seats = sum(
        len(json.loads(d).get("players", [])) or 4 for (d,) in con.execute("SELECT definition FROM games")
    )
    con.close()
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", OPEN, str(big.parent)], capture_output=True, check=False)
    whole = time.perf_counter() - began
    shutil.copy(V1, big)  # the timing run migrated it: start again from schema 1
    con = sqlite3.connect(big)
    for _ in range(12):
        con.execute(
            "INSERT INTO games(kind, definition, status, winner, created, ended) "
            "SELECT kind, definition, status, winner, created, ended FROM games"
        )
    con.commit()
    con.close()
    assert done.returncode == 0, done.stderr
    rng = random.Random(66)
    outcomes = set()
    for _ in range(12):
        proc = subprocess.Popen([sys.executable, "-c", OPEN, str(big.parent)], stdout=subprocess.PIPE)
        time.sleep(rng.uniform(0.0, whole))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        con = sqlite3.connect(big)
        got = int(con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
        tables = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if got == 1:
            assert "seats" not in tables
        else:
            assert con.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == seats
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == games
        con.close()
        outcomes.add(got)
        if got == 2:
            break
    store = Store(big.parent)
    assert len(store.seating()) == games and len(store.players()) == 9
    store.close()


def test_rename_and_merge_players(tmp_path: Path) -> None:
    store = Store(tmp_path)
    a = store.create_game("jhyap", {**JHYAP, "players": ["Asha", "Bikash"]})
    store.create_game("jhyap", {**JHYAP, "players": ["Aasha", "Bikash"]})  # a typo on another night
    ids = {p.name: p.id for p in store.players()}
    with pytest.raises(StoreError, match="Asha and Bikash played in the same game \\(game 1\\)"):
        store.merge_players(ids["Asha"], ids["Bikash"])
    with pytest.raises(StoreError, match="Bikash is already another player: merge the two instead"):
        store.rename_player(ids["Asha"], "bikash")
    with pytest.raises(StoreError, match="cannot be empty"):
        store.rename_player(ids["Asha"], "   ")
    store.merge_players(ids["Asha"], ids["Aasha"])
    players = {p.name: p for p in store.players()}
    assert set(players) == {"Asha", "Bikash"} and players["Asha"].games == 2
    assert store.rename_player(ids["Asha"], " Asha  Devi ") == "Asha Devi"
    assert store.game(a).names == ("Asha", "Bikash")  # the game log keeps the name played
    assert store.recent_names() == ["Asha Devi", "Bikash"] or store.recent_names() == ["Bikash", "Asha Devi"]
    b = store.create_game("jhyap", {**JHYAP, "players": ["asha devi", "Chandra"]})
    assert store.seating()[b][0] == ids["Asha"]
    with pytest.raises(StoreError, match="no player with id 99"):
        store.rename_player(99, "X")


def test_nights_their_end_and_the_story_due(tmp_path: Path) -> None:
    now = [dt.datetime(2026, 11, 20, 20, 0)]
    store = Store(tmp_path, clock=lambda: now[0])
    store.create_game("jhyap", JHYAP)
    now[0] = dt.datetime(2026, 11, 21, 1, 30)  # after midnight: the same night
    store.create_game("jhyap", JHYAP)
    assert store.story_due() is None  # tonight's story is not due yet
    now[0] = dt.datetime(2026, 11, 27, 19, 0)
    due = store.story_due()
    assert due is not None and due.date == dt.date(2026, 11, 20) and len(due.games) == 2 and due.ended is None
    store.end_night(due.date)
    assert store.story_due() is None and store.night(dt.date(2026, 11, 20)).ended == now[0]
    store.create_game("seep", {"game": "seep", "teams": {"A": ["a", "b"], "B": ["c", "d"]}})
    store.end_night()  # "Good night"
    assert [(n.date, len(n.games), n.ended is not None) for n in store.nights()] == [
        (dt.date(2026, 11, 27), 1, True),
        (dt.date(2026, 11, 20), 2, True),
    ]


def test_a_game_added_whole_is_not_doubled(tmp_path: Path) -> None:
    store = Store(tmp_path)
    log = {**JHYAP, "rounds": [R1]}
    when = dt.datetime(2026, 10, 2, 21, 0)
    game_id, added = store.add_game(log, when, GameStatus.ABANDONED, None, same=lambda other: other == log)
    assert added and store.game(game_id).log() == log and store.game(game_id).created == when
    assert store.add_game(log, when, GameStatus.ABANDONED, None, same=lambda other: other == log) == (
        game_id,
        False,
    )
    assert len(store.games()) == 1 and len(store.players()) == 2
    with pytest.raises(StoreError, match="unknown game kind 'poker'"):
        store.add_game({"game": "poker"}, when, GameStatus.FINISHED, None, same=lambda other: False)
