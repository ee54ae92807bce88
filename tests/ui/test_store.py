"""The game-night record: event-sourced log, drafts, scans, settings, nights, bad input."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest

from ui.store import GameStatus, Store, StoreError, default_data_dir, fold_events, night_of

JHYAP = {"game": "jhyap", "players": ["Asha", "Bikash"], "rules": {}}
R1 = {"caller": "Asha", "hands": {"Asha": ["AS"], "Bikash": ["KS"]}}
R2 = {"caller": "Bikash", "hands": {"Asha": ["2S"], "Bikash": ["AH"]}}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "data")


def test_store_creates_wal_database_and_photo_folder(store: Store) -> None:
    assert store.path.is_file()
    assert store.photos_dir.is_dir()
    mode = sqlite3.connect(store.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_confirmed_rounds_survive_reopening_the_record(store: Store, tmp_path: Path) -> None:
    gid = store.create_game("jhyap", JHYAP)
    store.add_entry(gid, R1)
    store.add_entry(gid, R2)
    store.close()
    again = Store(tmp_path / "data")
    record = again.game(gid)
    assert record.entries == (R1, R2)
    assert record.log() == {**JHYAP, "rounds": [R1, R2]}
    assert record.status is GameStatus.PLAYING


def test_undo_and_edit_keep_the_history(store: Store) -> None:
    gid = store.create_game("jhyap", JHYAP)
    store.add_entry(gid, R1)
    store.add_entry(gid, R2)
    store.undo_last(gid)
    assert store.game(gid).entries == (R1,)
    edited = {**R1, "caller": "Bikash"}
    store.replace_entry(gid, 0, edited)
    assert store.game(gid).entries == (edited,)
    actions = [a for a, *_ in store.history(gid)]
    assert actions == ["add", "add", "undo", "edit"]


def test_undo_with_nothing_to_undo_names_the_game(store: Store) -> None:
    gid = store.create_game("jhyap", JHYAP)
    with pytest.raises(StoreError, match=f"game {gid} has no round to undo"):
        store.undo_last(gid)


def test_edit_of_a_missing_round_is_refused(store: Store) -> None:
    gid = store.create_game("jhyap", JHYAP)
    store.add_entry(gid, R1)
    with pytest.raises(StoreError, match="no round 3"):
        store.replace_entry(gid, 2, R2)


def test_unknown_game_kind_and_missing_game_are_clear_errors(store: Store) -> None:
    with pytest.raises(StoreError, match="unknown game kind 'poker'"):
        store.create_game("poker", {})
    with pytest.raises(StoreError, match="no game with id 99"):
        store.game(99)


def test_fold_events_rejects_an_edit_past_the_end() -> None:
    with pytest.raises(StoreError, match="edit of entry 1 but the game has 1 entries"):
        fold_events([("add", None, R1), ("edit", 1, R2)])


def test_draft_is_saved_replaced_and_cleared_by_a_confirmed_round(store: Store) -> None:
    gid = store.create_game("jhyap", JHYAP)
    store.save_draft(gid, "round", {"caller": "Asha"})
    store.save_draft(gid, "round", {"caller": "Bikash"})
    draft = store.draft(gid)
    assert draft is not None and draft.state == {"caller": "Bikash"}
    store.add_entry(gid, R1)
    assert store.draft(gid) is None


def test_scan_photo_is_written_beside_the_record_with_what_was_confirmed(store: Store) -> None:
    gid = store.create_game("jhyap", JHYAP)
    scan = store.add_scan(gid, 1, "table", b"\xff\xd8jpeg", {"cards": [{"code": "AS"}]})
    assert scan.photo is not None and scan.photo.read_bytes() == b"\xff\xd8jpeg"
    assert scan.photo.parent == store.photos_dir
    store.add_entry(gid, R1, confirmed_scans=[(scan.id, {"cards": ["AS"]})])  # as the kiosk confirms a round
    assert store.scans(gid)[0].confirmed == {"cards": ["AS"]}
    assert store.scans(gid)[0].detected == {"cards": [{"code": "AS"}]}


def test_a_round_and_its_scan_confirmations_are_one_transaction(store: Store) -> None:
    gid = store.create_game("jhyap", JHYAP)
    scan = store.add_scan(gid, 1, "table", None, {"cards": []})
    with pytest.raises(StoreError, match="no scan with id 999"):
        store.add_entry(gid, R1, confirmed_scans=[(scan.id, {"cards": ["AS"]}), (999, {})])
    assert store.game(gid).entries == ()  # nothing half-written
    assert store.scan(scan.id).confirmed is None
    store.add_entry(gid, R1, confirmed_scans=[(scan.id, {"cards": ["AS"]})])
    assert store.scan(scan.id).confirmed == {"cards": ["AS"]}


def test_finished_game_is_not_offered_for_resume(store: Store) -> None:
    a = store.create_game("jhyap", JHYAP)
    b = store.create_game("jhyap", JHYAP)
    store.set_status(a, GameStatus.FINISHED, "Asha")
    assert [r.id for r in store.unfinished()] == [b]
    assert store.game(a).winner == "Asha"


def test_tonight_holds_games_since_six_in_the_morning(tmp_path: Path) -> None:
    now = [dt.datetime(2026, 11, 28, 23, 0)]
    store = Store(tmp_path, clock=lambda: now[0])
    store.create_game("jhyap", JHYAP)
    now[0] = dt.datetime(2026, 11, 29, 1, 30)  # after midnight: still the same night
    store.create_game("jhyap", JHYAP)
    assert len(store.tonight()) == 2
    now[0] = dt.datetime(2026, 11, 29, 19, 0)  # the next evening: a new night
    assert store.tonight() == []
    assert night_of(dt.datetime(2026, 11, 29, 5, 59)) == dt.date(2026, 11, 28)


def test_recent_names_are_the_most_recent_night_then_the_most_games_without_repeats(tmp_path: Path) -> None:
    now = [dt.datetime(2026, 11, 20, 20, 0)]
    store = Store(tmp_path, clock=lambda: now[0])
    store.create_game("jhyap", {**JHYAP, "players": ["Chandra", "Bikash"]})
    now[0] = dt.datetime(2026, 11, 27, 20, 0)  # a week later
    store.create_game("jhyap", {**JHYAP, "players": ["Asha", "Bikash"]})
    now[0] = dt.datetime(2026, 11, 27, 21, 0)
    store.create_game("seep", {"game": "seep", "teams": {"A": ["Priya", "asha"], "B": ["Raj", "मीरा"]}})
    # asha is Asha; Asha and Bikash played twice, Asha last; Chandra not on the latest night
    assert store.recent_names() == ["Asha", "Bikash", "Priya", "Raj", "मीरा", "Chandra"]


def test_settings_round_trip(store: Store) -> None:
    assert store.setting("camera", "auto") == "auto"
    store.set_setting("camera", "demo")
    assert store.setting("camera") == "demo"


def test_data_dir_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TABLETALLY_DATA_DIR", str(tmp_path / "x"))
    assert default_data_dir() == tmp_path / "x"


def test_unwritable_data_dir_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot create the data directory"):
        Store(blocker / "data")


def test_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "tabletally.sqlite3").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open the record"):
        Store(tmp_path)
