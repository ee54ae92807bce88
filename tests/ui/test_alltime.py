"""All-time standings, a player's record, nights and a night's story (ui.logic.alltime), tabletally import
and tabletally stats: every figure from the game logs through the scorer, nothing stored twice."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ui.commands import importing, stats
from ui.logic import boards, games
from ui.logic.alltime import Records, stats_json
from ui.logic.record_import import LogImportError, import_files, import_log
from ui.store import GameStatus, Store

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
FOUR = EXAMPLES / "jhyap-four-players.json"
FIVE = EXAMPLES / "jhyap-five-players-house-rules.json"
SEEP = EXAMPLES / "seep-two-baazis.json"
V1 = Path(__file__).resolve().parent / "data" / "record-v1.sqlite3"


def command(module: object, argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)  # type: ignore[attr-defined]
    return int(module.run(parser.parse_args(argv)))  # type: ignore[attr-defined]


def players(data: Path) -> dict[str, Any]:
    store = Store(data)
    try:
        return {p["name"]: p for p in stats_json(Records(store).all_time)["players"]}
    finally:
        store.close()


def test_the_examples_imported_give_each_players_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert command(importing, [str(FOUR), str(FIVE), str(SEEP), "--data-dir", str(tmp_path)]) == 0
    assert "3 of 3 game(s) added" in capsys.readouterr().out
    got = players(tmp_path)
    dipesh, asha = got["Dipesh"]["jhyap"], got["Asha"]["jhyap"]
    # four-player game: Dipesh wins with 5 calls held, 33 behind at worst; five-player game unfinished
    assert dipesh == {
        "played": 2, "won": 1, "win_rate": 0.5, "calls": 6, "calls_won": 5, "penalties": 1, "eliminations": 1,
        "rounds": 19, "average_hand": round((sum((0, 40, 0, 21, 34, 4, 11, 2, 24, 17, 17, 20, 16, 5))
                                              + sum((3, 16, 27, 13, 17))) / 19, 2), "best_comeback": 33,
    }  # fmt: skip
    assert (asha["played"], asha["won"], asha["calls"], asha["calls_won"], asha["penalties"]) == (
        2,
        0,
        5,
        4,
        1,
    )
    assert asha["eliminations"] == 1 and asha["best_comeback"] is None
    assert got["Raj"]["seep"] == {"played": 1, "won": 0, "win_rate": 0.0, "baazis": 1, "sweeps": 3}
    assert got["Priya"]["seep"]["sweeps"] == 2 and got["Priya"]["jhyap"]["played"] == 0
    assert next(iter(got)) == "Dipesh"  # the most games won first


def test_import_does_not_double_a_game_and_completes_a_shorter_one(tmp_path: Path) -> None:
    store = Store(tmp_path)
    log = json.loads(FOUR.read_text(encoding="utf-8"))
    when = dt.datetime(2026, 11, 20, 20, 0)
    first = import_log(store, {**log, "rounds": log["rounds"][:5]}, when, "part")
    assert first.added and first.entries == 5
    again = import_log(store, {**log, "rounds": log["rounds"][:3]}, when, "shorter")
    assert (again.added, again.game_id, again.extended) == (False, first.game_id, 0)
    whole = import_log(store, log, when, "whole")
    assert (whole.added, whole.game_id, whole.extended) == (False, first.game_id, 9)
    game = store.game(first.game_id)
    assert len(game.entries) == 14 and game.status is GameStatus.FINISHED and game.winner == "Dipesh"
    assert len(store.games()) == 1
    other = import_log(store, {**log, "rules": {**log["rules"], "caller_penalty": 25}}, when, "other rules")
    assert other.added  # other rules: another game


def test_bad_input_names_the_file_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(V1, data / "tabletally.sqlite3")
    before = (data / "tabletally.sqlite3").read_bytes()
    broken = tmp_path / "broken.json"
    broken.write_text(
        '{"game": "jhyap", "players": ["Asha", "Bikash"], "rounds": [{"caller": "Asha"', "utf-8"
    )
    over = tmp_path / "over.json"
    over.write_text(json.dumps({"game": "jhyap", "players": ["A", "B"], "rounds": [
        {"caller": "A", "hands": {"A": ["KS", "QS"], "B": ["AS"]}}]}), "utf-8")  # fmt: skip
    for bad, words in (
        (broken, "broken.json: invalid JSON"),
        (over, "over.json: round 1: caller A's hand totals 20, over the call limit of 5"),
        (tmp_path / "missing.json", "missing.json: cannot read the file"),
    ):
        assert command(importing, [str(SEEP), str(bad), "--data-dir", str(data)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("tabletally import: ") and words in err and "nothing was imported" in err
        assert err.count("\n") == 1
    assert (data / "tabletally.sqlite3").read_bytes() == before  # not even migrated
    with pytest.raises(LogImportError, match="no game log given"):
        import_files(Store(tmp_path / "other"), [])


def test_a_tonight_export_comes_back_on_its_night(tmp_path: Path) -> None:
    clock = [dt.datetime(2026, 11, 13, 21, 0)]
    kiosk = Store(tmp_path / "kiosk", clock=lambda: clock[0])
    log = json.loads(FOUR.read_text(encoding="utf-8"))
    game_id = kiosk.create_game("jhyap", log)
    for entry in log["rounds"]:
        kiosk.add_entry(game_id, entry)
    kiosk.set_status(game_id, GameStatus.FINISHED, "Dipesh")
    json_path, _csv = boards.export_game(kiosk.game(game_id), tmp_path / "exports" / "2026-11-13")
    second = Store(tmp_path / "second")
    (done,) = import_files(second, [json_path])
    assert done.added
    game = second.game(done.game_id)
    assert games.canonical_log(game.log()) == games.canonical_log(kiosk.game(game_id).log())
    assert game.winner == "Dipesh" and game.status is GameStatus.FINISHED
    nights = second.nights()
    assert [n.date for n in nights] == [dt.date(2026, 11, 13)]


def test_rename_and_merge_show_in_the_standings(tmp_path: Path) -> None:
    store = Store(tmp_path)
    log = json.loads(FOUR.read_text(encoding="utf-8"))
    import_log(store, log, dt.datetime(2026, 11, 6, 20, 0), "a")
    renamed = {**log, "players": ["Asha", "Bikash", "Chandra", "Dipu"], "first_dealer": "Chandra"}
    renamed["rounds"] = [
        {"caller": r["caller"].replace("Dipesh", "Dipu"),
         "hands": {k.replace("Dipesh", "Dipu"): v for k, v in r["hands"].items()}}
        for r in log["rounds"]
    ]  # fmt: skip
    import_log(store, renamed, dt.datetime(2026, 11, 13, 20, 0), "b")
    ids = {p.name: p.id for p in store.players()}
    store.merge_players(ids["Dipesh"], ids["Dipu"])
    store.rename_player(ids["Dipesh"], "Dipesh Rai")
    records = Records(store)
    dipesh = records.player(ids["Dipesh"])
    assert dipesh.name == "Dipesh Rai" and (dipesh.jhyap.played, dipesh.jhyap.won) == (2, 2)
    assert [(n.date, n.played, n.won) for n in dipesh.nights] == [
        (dt.date(2026, 11, 13), 1, 1),
        (dt.date(2026, 11, 6), 1, 1),
    ]
    assert [n.winners for n in records.all_time.nights] == [("Dipesh Rai",), ("Dipesh Rai",)]


def test_a_nights_story(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(V1, data / "tabletally.sqlite3")
    store = Store(data)
    told = Records(store).story(dt.date(2026, 11, 20))
    assert told.games == 2 and told.winners == ("Dipesh",) and told.wins == 1
    assert told.best_call is not None
    assert (told.best_call.name, told.best_call.hand, told.best_call.margin, told.best_call.round) == (
        "Dipesh", 0, 30, 3,
    )  # fmt: skip
    assert told.comeback == ("Dipesh", 33) and told.sweeps == (("Raj", "Meera"), 3)
    quiet = Records(store).story(dt.date(2026, 11, 28))  # one unfinished game: no winner yet
    assert quiet.winners == () and quiet.comeback is None and quiet.sweeps is None


def test_a_game_that_no_longer_replays_is_played_but_not_counted(tmp_path: Path) -> None:
    store = Store(tmp_path)
    game_id = store.create_game("jhyap", {"game": "jhyap", "players": ["A", "B"], "rules": {}})
    store.add_entry(game_id, {"caller": "A", "hands": {"A": ["KS", "QS"], "B": ["AS"]}})
    data = stats_json(Records(store).all_time)
    assert data["unreadable"] == [
        {"game": game_id, "problem": "round 1: caller A's hand totals 20, over the call limit of 5"}
    ]
    assert {p["name"]: p["jhyap"]["played"] for p in data["players"]} == {"A": 1, "B": 1}


def test_stats_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert command(importing, [str(FOUR), str(SEEP), "--data-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert command(stats, ["--json", "--data-dir", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"players", "nights"}
    first = data["players"][0]
    assert {"name", "jhyap", "seep"} <= set(first)
    assert {"played", "won", "win_rate", "calls", "calls_won", "penalties", "eliminations", "average_hand",
            "best_comeback"} <= set(first["jhyap"])  # fmt: skip
    assert {"played", "won", "baazis", "sweeps"} <= set(first["seep"])
    (night,) = data["nights"]
    assert night["games"] == 2 and night["winners"] == ["Dipesh"]
    assert command(stats, ["--data-dir", str(tmp_path)]) == 0
    assert "Dipesh" in capsys.readouterr().out


def test_a_game_exported_after_midnight_comes_back_on_the_night_before(tmp_path: Path) -> None:
    import os

    from ui.logic.record_import import file_date

    path = tmp_path / "2026-11-21-game4-jhyap.json"
    shutil.copy(FOUR, path)
    written = dt.datetime(2026, 11, 21, 1, 30)
    os.utime(path, (written.timestamp(), written.timestamp()))
    assert file_date(path) == written  # the night of the 20th
    later = dt.datetime(2026, 12, 1, 9, 0)  # copied to a new card days later: the evening of its date
    os.utime(path, (later.timestamp(), later.timestamp()))
    assert file_date(path) == dt.datetime(2026, 11, 21, 20, 0)
