"""Games saved from a damaged record: past a broken index, table by table, page by page (with the
write-ahead log), by "Start a fresh record" (and taken back into the fresh one) and by tabletally export.

Every damaged record here is built by the test: a real record written through the Store, then the bytes of
one of its pages overwritten in the file."""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import json
import random
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from scorer import replay_text
from ui.commands import export
from ui.logic.faults import Action, FaultFlow
from ui.logic.rescue import save_games
from ui.store import DB_NAME, Fault, GameStatus, RecordFault, Store
from ui.store.pages import PageFile, table_rows
from ui.store.salvage import SHAPES, Depth, salvage

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
PLAYERS = ["Asha", "बिकास", "Chandra"]
HANDS = [
    {"Asha": ["AS", "2H"], "बिकास": ["KS", "QH", "9C"], "Chandra": ["10D", "JC", "8S"]},
    {"Asha": ["5C", "6D", "KH"], "बिकास": ["3S"], "Chandra": ["4H", "4D"]},
]


def a_round(r: int) -> dict[str, Any]:
    """Round ``r``: one of the two hands, called by the player holding the fewest cards."""
    hands = HANDS[r % 2]
    return {"caller": min(hands, key=lambda p: len(hands[p])), "hands": hands}


def ticking() -> Any:
    moments = (dt.datetime(2026, 12, 5, 19, 0) + dt.timedelta(minutes=n) for n in itertools.count())
    return lambda: next(moments)


def night(data: Path, rounds: tuple[int, ...] = (6, 5, 6, 5), playing_last: bool = True) -> Path:
    """A night of Jhyap games played one after the other (the last still being played), and one Seep game
    from docs/examples; every round confirmed through the Store as the kiosk does."""
    store = Store(data, clock=ticking())
    for n, count in enumerate(rounds):
        game = store.create_game(
            "jhyap", {"game": "jhyap", "players": PLAYERS, "rules": {"max_score": 500 + 4 * n}}
        )
        for r in range(count):
            store.add_entry(game, a_round(r))
        if n == 1:
            store.undo_last(game)  # an undo and an edit: the fold must still give the right rounds
            store.add_entry(game, {"caller": "बिकास", "hands": HANDS[1]})
            store.replace_entry(game, 0, {"caller": "Asha", "hands": HANDS[0]})
        if not (playing_last and n == len(rounds) - 1):
            store.set_status(game, GameStatus.FINISHED, "Asha")
    store.close()
    return data / DB_NAME


def logs_of(data: Path) -> dict[int, str]:
    """Each game's replay (the scorer's result) from an intact record, by game id."""
    store = Store(data)
    try:
        return {g.id: json.dumps(replay_text(json.dumps(g.log())), sort_keys=True) for g in store.games()}
    finally:
        store.close()


def page_size(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("PRAGMA page_size").fetchone()[0])
    finally:
        con.close()


def root_of(db: Path, name: str) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0])
    finally:
        con.close()


def smash(db: Path, page: int, fill: bytes = b"\xff") -> None:
    """Overwrite page ``page`` (numbered from 1) of the file with ``fill`` bytes."""
    size = page_size(db)
    data = bytearray(db.read_bytes())
    data[(page - 1) * size : page * size] = fill * size
    db.write_bytes(bytes(data))


def damaged_index(data: Path) -> tuple[Path, dict[int, str]]:
    """The issue's record: 4 games, 22 rounds, and the one page of the events-by-game index damaged."""
    db = night(data)
    before = logs_of(data)
    smash(db, root_of(db, "events_game"))
    return db, before


def replayed(path: Path) -> str:
    return json.dumps(replay_text(path.read_text(encoding="utf-8")), sort_keys=True)


# -- past a broken index --------------------------------------------------------------------------------
def test_a_damaged_index_page_loses_no_game(tmp_path: Path) -> None:
    db, before = damaged_index(tmp_path)
    with pytest.raises(RecordFault) as info:
        Store(tmp_path)
    assert info.value.fault is Fault.CORRUPT  # the kiosk refuses it, as before
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    with pytest.raises(sqlite3.DatabaseError):  # reading a game's events through the index fails
        con.execute("SELECT payload FROM events WHERE game_id = 1 ORDER BY id").fetchall()
    con.close()
    found = salvage(db)
    assert (len(found.games), found.rounds, found.not_saved) == (4, 22, 0)
    assert found.depth is Depth.TABLES and found.unread_actions == 0
    assert {g.id: json.dumps(replay_text(json.dumps(g.log())), sort_keys=True) for g in found.games} == before
    assert [g.status for g in found.games][-1] is GameStatus.PLAYING


def test_a_fresh_record_saves_every_game_says_so_and_takes_them_back(tmp_path: Path) -> None:
    db, before = damaged_index(tmp_path)
    damaged = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(RecordFault) as info:
        Store(tmp_path)
    flow = FaultFlow(info.value, tmp_path, clock=lambda: dt.datetime(2026, 12, 6, 1, 0))
    flow.act(Action.FRESH_RECORD)
    assert flow.act(Action.CONFIRM_FRESH) is False
    aside = flow.set_aside_as
    assert aside is not None and hashlib.sha256(aside.read_bytes()).hexdigest() == damaged
    assert flow.problem.lines[:2] == (
        f"The damaged record is kept as {aside.name}.",
        "Saved: 4 of 4 games, with 22 rounds and deals.",
    )
    assert flow.problem.lines[2] == "The saved games are back in the fresh record."
    folder = tmp_path / "exports" / "recovered-20261206-010000"
    assert len(list(folder.glob("*.json"))) == 4 and len(list(folder.glob("*.csv"))) == 4
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # the record's own folders are private
    assert sorted(replayed(p) for p in folder.glob("*.json")) == sorted(before.values())
    assert flow.act(Action.START) is True
    fresh = Store(tmp_path)  # the kiosk starts again on the fresh record, the night in it
    try:
        games = fresh.games()
        assert sorted(json.dumps(replay_text(json.dumps(g.log())), sort_keys=True) for g in games) == sorted(
            before.values()
        )
        assert [g.status for g in games].count(GameStatus.PLAYING) == 1  # the game being played goes on
        assert [g.created.date() for g in games] == [dt.date(2026, 12, 5)] * 4
    finally:
        fresh.close()


# -- table by table, page by page -----------------------------------------------------------------------
def test_a_damaged_games_page_loses_those_games_and_says_how_many_rounds(tmp_path: Path) -> None:
    db = night(tmp_path)
    smash(db, root_of(db, "games"), b"\x00")  # four small games: their one page
    found = salvage(db)
    assert found.games == () and found.lost == (1, 2, 3, 4)
    assert found.lost_rounds == 22 and found.depth is Depth.TABLE_BY_TABLE


def test_a_lost_first_page_is_read_page_by_page(tmp_path: Path) -> None:
    """Page 1 holds the file's header and the schema: SQLite cannot open the file at all. The page size is
    guessed and the games and events are known by the shape of their rows."""
    db = night(tmp_path)
    before = logs_of(tmp_path)
    smash(db, 1, b"\xab")
    found = salvage(db)
    assert found.depth is Depth.PAGES and (len(found.games), found.rounds) == (4, 22)
    assert {g.id: json.dumps(replay_text(json.dumps(g.log())), sort_keys=True) for g in found.games} == before


def test_rounds_still_in_the_write_ahead_log_are_saved(tmp_path: Path) -> None:
    """The kiosk lost power mid-game: the rounds are only in the -wal file (its committed frames). Read page
    by page, the frames are laid over the file's pages; without them the file alone holds no round."""
    live = tmp_path / "live"
    store = Store(live, clock=ticking())
    game = store.create_game("jhyap", {"game": "jhyap", "players": PLAYERS})
    for r in range(7):
        store.add_entry(game, a_round(r))
    copy = tmp_path / "copy"
    copy.mkdir()
    for suffix in ("", "-wal"):  # the files as a power cut leaves them (the connection still open)
        shutil.copy(f"{live / DB_NAME}{suffix}", f"{copy / DB_NAME}{suffix}")
    store.close()
    db = copy / DB_NAME
    pages = PageFile.read(db)
    assert pages.wal_frames > 0
    assert len(table_rows(pages, SHAPES)["events"]) == 7
    assert [len(g.entries) for g in salvage(db).games] == [7]
    Path(f"{db}-wal").rename(tmp_path / "wal")
    assert table_rows(PageFile.read(db), SHAPES)["events"] == {}


def test_a_game_that_may_have_lost_an_action_is_not_saved_as_whole(tmp_path: Path) -> None:
    """Two games played side by side lose a page of their rounds: they are read in part (written under
    incomplete/, not taken back); the finished game before and the game begun after are whole."""
    store = Store(tmp_path, clock=ticking())
    first = store.create_game("jhyap", {"game": "jhyap", "players": PLAYERS, "rules": {"max_score": 100000}})
    for r in range(60):
        store.add_entry(first, a_round(r))
    store.set_status(first, GameStatus.FINISHED, "Asha")
    side = [
        store.create_game(
            "jhyap", {"game": "jhyap", "players": PLAYERS, "rules": {"max_score": 100004 + 4 * n}}
        )
        for n in range(2)
    ]
    for r in range(60):
        for game in side:
            store.add_entry(game, a_round(r))
    for game in side:
        store.set_status(game, GameStatus.FINISHED, "Asha")
    last = store.create_game("jhyap", {"game": "jhyap", "players": PLAYERS})
    for r in range(5):
        store.add_entry(last, a_round(r))
    store.close()
    db = tmp_path / DB_NAME
    pages = PageFile.read(db)
    leaves = pages.tree_leaves(root_of(db, "events"), set())
    middle = leaves[len(leaves) // 2]
    unread = len(list(pages.leaf_rows(middle)))
    smash(db, middle, b"\x00")
    found = salvage(db)
    assert [(g.id, len(g.entries)) for g in found.games] == [(1, 60), (4, 5)]
    assert [g.id for g in found.partial] == [2, 3] and found.unread_actions == unread
    saved = save_games(db, tmp_path / "out")
    assert len(saved.games) == 2 and saved.not_saved == 2 and not saved.complete
    assert len(list((tmp_path / "out" / "incomplete").glob("*.json"))) == 2


# -- tabletally export ------------------------------------------------------------------------------------
def run_export(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    export.add_arguments(parser)
    return export.run(parser.parse_args(list(argv)))


def test_export_writes_every_game_of_a_sound_record(tmp_path: Path, capsys: Any) -> None:
    data = tmp_path / "data"
    night(data)
    store = Store(data)
    seep_log = json.loads((EXAMPLES / "seep-two-baazis.json").read_text(encoding="utf-8"))
    from ui.logic.record_import import import_log

    import_log(store, seep_log, dt.datetime(2026, 12, 5, 23, 0))
    before = {g.id: json.dumps(replay_text(json.dumps(g.log())), sort_keys=True) for g in store.games()}
    store.close()
    assert run_export("--data-dir", str(data), "--out", str(tmp_path / "out")) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"saved 5 of 5 games (22 rounds, {len(seep_log['deals'])} deals) into ")
    assert "damaged" not in out
    assert sorted(replayed(p) for p in (tmp_path / "out").glob("*.json")) == sorted(before.values())
    seep_csv = next((tmp_path / "out").glob("*-seep.csv")).read_text(encoding="utf-8-sig")
    assert seep_csv.startswith("deal,") and len(seep_csv.splitlines()) == len(seep_log["deals"]) + 1


def test_export_saves_the_games_of_the_damaged_index_record(tmp_path: Path, capsys: Any) -> None:
    _db, before = damaged_index(tmp_path / "data")
    assert run_export("--data-dir", str(tmp_path / "data"), "--out", str(tmp_path / "out")) == 0
    out = capsys.readouterr().out
    assert out.startswith("the record is damaged; its games were read whole, past its indexes: ")
    assert "saved 4 of 4 games (22 rounds) into" in out
    assert sorted(replayed(p) for p in (tmp_path / "out").glob("*.json")) == sorted(before.values())


def test_export_says_what_it_could_not_save_and_exits_1(tmp_path: Path, capsys: Any) -> None:
    db = night(tmp_path / "data")
    smash(db, root_of(db, "games"), b"\x00")
    assert run_export("--data-dir", str(tmp_path / "data"), "--out", str(tmp_path / "out")) == 1
    captured = capsys.readouterr()
    assert (
        "saved 0 of 4 games" in captured.out
        and "4 game(s) could not be saved whole (22 rounds" in captured.out
    )


def test_export_of_an_empty_record_saves_no_game_and_says_so(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / DB_NAME).write_bytes(b"")  # SQLite's empty database, not a damaged one
    assert run_export("--data-dir", str(tmp_path / "data"), "--out", str(tmp_path / "out")) == 0
    assert capsys.readouterr().out == f"saved 0 of 0 games (no rounds) into {tmp_path / 'out'}\n"


def test_export_refuses_what_is_not_a_record_and_changes_nothing(tmp_path: Path, capsys: Any) -> None:
    assert run_export("--data-dir", str(tmp_path / "none"), "--out", str(tmp_path / "out")) == 1
    assert capsys.readouterr().err.startswith("tabletally export: no record in ")
    other = tmp_path / "other"
    other.mkdir()
    con = sqlite3.connect(other / DB_NAME)
    con.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
    con.commit()
    con.close()
    before = (other / DB_NAME).read_bytes()
    assert run_export("--data-dir", str(other), "--out", str(tmp_path / "out")) == 1
    err = capsys.readouterr().err
    assert "a database of another program" in err and "it was not changed" in err
    assert (other / DB_NAME).read_bytes() == before and not (tmp_path / "out").exists()


def test_pages_destroyed_at_random_never_give_a_wrong_game_as_whole(tmp_path: Path) -> None:
    """Eight games, played one or two at a time, with undos and edits; then, 150 times, one to three of the
    file's pages overwritten (zeros, 0xff, random bytes, as a failing card leaves them). The salvage never
    fails, and every game it calls whole is exactly the game confirmed (its log, fold for fold); the others
    are counted as not saved."""
    rng = random.Random(7)
    store = Store(tmp_path / "base", clock=ticking())
    ids: list[int] = []
    for g in range(8):
        ids.append(
            store.create_game(
                "jhyap", {"game": "jhyap", "players": PLAYERS, "rules": {"max_score": 100000 + 4 * g}}
            )
        )
        for r in range(rng.randint(5, 40)):
            game = rng.choice(ids[-2:] if g % 3 else ids[-1:])
            if store.game(game).status is GameStatus.PLAYING:
                store.add_entry(game, a_round(r + g))
            else:
                store.replace_entry(game, 0, a_round(r + g + 1))  # an edit after the game ended
            if rng.random() < 0.05:
                store.undo_last(game)
        if g % 2 == 0:
            store.set_status(ids[-1], GameStatus.FINISHED, "Asha")
    truth = {g.id: g.log() for g in store.games()}
    store.close()
    original = (tmp_path / "base" / DB_NAME).read_bytes()
    size = page_size(tmp_path / "base" / DB_NAME)
    pages = len(original) // size
    saved = 0
    for trial in range(150):
        data = bytearray(original)
        for _ in range(rng.randint(1, 3)):
            page = rng.randrange(pages)
            fill = rng.choice([bytes(size), b"\xff" * size, rng.randbytes(size)])
            data[page * size : (page + 1) * size] = fill
        db = tmp_path / f"trial{trial}" / DB_NAME
        db.parent.mkdir()
        db.write_bytes(bytes(data))
        found = salvage(db)
        assert found.total >= len(found.games)
        for game in found.games:
            assert game.log() == truth[game.id], (trial, game.id)
        saved += len(found.games)
    assert 0 < saved < 150 * len(truth)  # some games were saved, and the damage cost some
