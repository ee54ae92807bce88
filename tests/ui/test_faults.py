"""Storage faults: corrupt pages, a foreign or newer database, a full disk, a read-only record. Each is
refused or survived with a plain-words problem and nothing confirmed lost; foreign and newer databases are
never changed; a damaged record is set aside (renamed, with its readable games exported), never deleted."""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import hashlib
import itertools
import json
import os
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.catalogs import has_catalog
from ui import i18n
from ui.logic.faults import Action, FaultFlow, problem_for
from ui.logic.kiosk import Kiosk
from ui.store import DB_NAME, Fault, GameStatus, RecordFault, Store, StoreError, set_aside

JHYAP = {"game": "jhyap", "players": ["Asha", "Bikash"], "rules": {}}
ROUND = {"caller": "Asha", "hands": {"Asha": ["AS"], "Bikash": ["KS"]}}
OTHER = [
    rank + suit for suit in "HDCS" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
]


def filled(data: Path, games: int = 40, rounds: int = 30) -> Path:
    """A record of ``games`` Jhyap games played one after the other, a minute per round, each finished."""
    moments = (dt.datetime(2026, 12, 5, 18, 0) + dt.timedelta(minutes=n) for n in itertools.count())
    store = Store(data, clock=lambda: next(moments))
    for n in range(games):
        other = "Bikash" if n == 0 else f"Bikash {n + 1}"  # no two games are the same game
        gid = store.create_game("jhyap", {**JHYAP, "players": ["Asha", other]})
        for _ in range(rounds):
            store.add_entry(gid, {**ROUND, "hands": {"Asha": ["AS"], other: ["KS"]}})
        store.set_status(gid, GameStatus.FINISHED, "Asha")
    store.close()
    return data / DB_NAME


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def open_fault(data: Path) -> RecordFault:
    with pytest.raises(RecordFault) as info:
        Store(data)
    return info.value


# -- corrupt pages ---------------------------------------------------------------------------------------
def test_a_record_with_corrupt_pages_is_refused_at_open_not_written_into(tmp_path: Path) -> None:
    db = filled(tmp_path)
    size = db.stat().st_size
    with open(db, "r+b") as fh:  # 8 KB of garbage over pages near the end (some games' rounds)
        fh.seek(size - 3 * 8192)
        fh.write(os.urandom(8192))
    before = digest(db)
    fault = open_fault(tmp_path)
    assert fault.fault is Fault.CORRUPT
    assert digest(db) == before  # not written into
    problem = problem_for(fault, tmp_path)
    assert problem.title == "The game record is damaged"
    assert Action.FRESH_RECORD in problem.actions


def test_a_damaged_record_is_set_aside_after_a_yes_with_its_readable_games_exported(tmp_path: Path) -> None:
    db = filled(tmp_path)
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        fh.seek(size - 3 * 8192)
        fh.write(os.urandom(8192))
    damaged = digest(db)
    flow = FaultFlow(open_fault(tmp_path), tmp_path)
    assert flow.act(Action.FRESH_RECORD) is False  # asks first
    assert flow.question is not None and db.exists()
    assert flow.act(Action.CONFIRM_FRESH) is False  # says what it did
    assert flow.set_aside_as is not None and digest(flow.set_aside_as) == damaged  # renamed, not deleted
    exported = sorted((tmp_path / "exports").glob("recovered-*/*.json"))
    assert 30 <= len(exported) < 40  # the games whose pages were not hit, each read whole
    assert len(list((tmp_path / "exports").glob("recovered-*/*.csv"))) == len(exported)
    log = json.loads(exported[0].read_text(encoding="utf-8"))
    assert len(log["rounds"]) == 30 and log["rounds"][0]["hands"]["Asha"] == ["AS"]
    lines = flow.problem.lines
    assert lines[0] == f"The damaged record is kept as {flow.set_aside_as.name}."
    assert lines[1] == f"Saved: {len(exported)} of 40 games, with {30 * len(exported)} rounds and deals."
    assert lines[2].startswith(f"Could not be saved whole: {40 - len(exported)} games (")
    assert lines[3] == "The saved games are back in the fresh record."
    assert flow.act(Action.START) is True
    fresh = Store(tmp_path)
    assert len(fresh.games()) == len(exported)  # taken back into the fresh record
    assert all(len(g.entries) == 30 and g.status is GameStatus.FINISHED for g in fresh.games())


def test_a_file_that_is_not_a_database_is_a_damaged_record(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(os.urandom(5000))
    assert open_fault(tmp_path).fault is Fault.CORRUPT


def test_set_aside_keeps_every_file(tmp_path: Path) -> None:
    db = filled(tmp_path, games=2, rounds=2)
    original = digest(db)
    aside, exported = set_aside(tmp_path)
    assert digest(aside) == original and len(exported) == 2


# -- another program's database, a newer TableTally ------------------------------------------------------
@pytest.mark.parametrize(
    "schema",
    [
        "CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT, score INTEGER)",  # its own `games`
        "CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)",  # no `games` at all
    ],
)
def test_a_foreign_database_is_refused_by_name_and_never_changed(tmp_path: Path, schema: str) -> None:
    db = tmp_path / DB_NAME
    con = sqlite3.connect(db)
    con.execute(schema)
    con.execute("INSERT INTO " + schema.split()[2] + " (id) VALUES (1)")
    con.commit()
    con.close()
    before = digest(db)
    fault = open_fault(tmp_path)
    assert fault.fault is Fault.FOREIGN
    assert "another program" in str(fault)
    assert digest(db) == before
    assert not (tmp_path / f"{DB_NAME}-wal").exists()
    problem = problem_for(fault, tmp_path)
    assert problem.title == "This is not a TableTally record"
    assert str(db) in problem.lines[0] and "has not changed it" in problem.lines[0]


def test_a_database_with_another_application_id_is_foreign(tmp_path: Path) -> None:
    db = tmp_path / DB_NAME
    con = sqlite3.connect(db)
    con.execute("PRAGMA application_id = 1234")
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    assert open_fault(tmp_path).fault is Fault.FOREIGN


def test_a_newer_schema_is_refused_unchanged(tmp_path: Path) -> None:
    db = filled(tmp_path, games=1, rounds=1)
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    before = digest(db)
    fault = open_fault(tmp_path)
    assert fault.fault is Fault.NEWER and "schema_version 99" in str(fault)
    assert digest(db) == before
    assert problem_for(fault, tmp_path).title == "This record is from a newer TableTally"


def test_a_record_written_before_application_ids_still_opens(tmp_path: Path) -> None:
    db = filled(tmp_path, games=1, rounds=1)
    con = sqlite3.connect(db)
    con.execute("PRAGMA application_id = 0")
    con.commit()
    con.close()
    assert len(Store(tmp_path).games()) == 1


# -- a full disk -----------------------------------------------------------------------------------------
@contextlib.contextmanager
def small_tmpfs(path: Path, size: str = "600k") -> Iterator[bool]:
    """A small tmpfs at ``path`` when this machine lets us mount one (root); False otherwise."""
    path.mkdir()
    mounted = (
        os.geteuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(path)], check=False)


def test_on_a_full_disk_photos_go_first_and_scores_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with small_tmpfs(tmp_path / "card") as mounted:
        data = tmp_path / "card"
        store = Store(data)
        store.photo_reserve = 200_000 if mounted else 0  # the card is 600 KB; a Pi keeps 16 MB
        gid = store.create_game("jhyap", JHYAP)
        if not mounted:  # inject the ENOSPC a full card gives when the photo is written, from the 4th on
            calls = [0]
            real_fsync = os.fsync

            def fsync(fd: int) -> None:
                calls[0] += 1
                if calls[0] > 3:
                    raise OSError(errno.ENOSPC, "No space left on device")
                real_fsync(fd)

            monkeypatch.setattr(os, "fsync", fsync)
        photo = os.urandom(150_000)  # JPEG-sized and incompressible
        confirmed = 0
        first_drop: int | None = None
        fault: RecordFault | None = None
        for i in range(40):
            try:
                scan = store.add_scan(gid, i, "table", photo, {"cards": []})
                if scan.photo is None and first_drop is None:
                    first_drop = confirmed
                store.add_entry(gid, ROUND)
            except RecordFault as exc:
                fault = exc
                break
            confirmed += 1
        assert first_drop is not None  # a photo was dropped...
        assert store.photos_dropped >= 1
        assert not list((data / "photos").glob("*.part"))  # ...leaving no partial file
        assert len(store.game(gid).entries) == confirmed  # every confirmed round is there
        if fault is not None:  # the card filled up entirely: the record said so, and kept what it had
            assert fault.fault is Fault.FULL
        flow = FaultFlow(RecordFault(Fault.FULL, data, "full"), data, store=store)
        assert flow.problem.actions[0] is Action.DELETE_PHOTOS
        store.delete_old_photos(keep_tonight=False)  # what "Delete old photos" frees on a card of one night
        store.add_entry(gid, ROUND)  # room again
        assert len(store.game(gid).entries) == confirmed + 1
        store.close()


def test_a_database_full_error_is_a_full_disk_fault_and_the_last_confirmed_round_stays(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path)
    gid = store.create_game("jhyap", JHYAP)
    store.add_entry(gid, ROUND)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # "database or disk is full" at the next page
    with pytest.raises(RecordFault) as info:
        for i in range(2000):
            store.set_setting(f"filler-{i}", "x" * 4000)
    assert info.value.fault is Fault.FULL
    assert "disk is full" in str(info.value)
    assert store.game(gid).entries == (ROUND,)
    problem = problem_for(info.value, tmp_path, in_game=True)
    assert problem.title == "The SD card is full" and Action.BACK in problem.actions


def test_delete_old_photos_keeps_tonights_and_the_record(tmp_path: Path) -> None:
    import datetime as dt

    now = [dt.datetime(2026, 12, 1, 20, 0)]
    store = Store(tmp_path, clock=lambda: now[0])
    old = store.create_game("jhyap", JHYAP)
    old_scan = store.add_scan(old, 0, "table", b"old-photo" * 1000, {"cards": ["AS"]})
    now[0] = dt.datetime(2026, 12, 5, 20, 0)
    new = store.create_game("jhyap", JHYAP)
    new_scan = store.add_scan(new, 0, "table", b"new-photo" * 1000, {"cards": ["KS"]})
    (store.photos_dir / "leftover.part").write_bytes(b"x" * 10)
    count, freed = store.delete_old_photos()
    assert count == 1 and freed >= 9000
    assert store.scan(old_scan.id).photo is None and store.scan(old_scan.id).detected == {"cards": ["AS"]}
    kept = store.scan(new_scan.id).photo
    assert kept is not None and kept.exists()
    assert not list(store.photos_dir.glob("*.part"))


# -- a read-only record ----------------------------------------------------------------------------------
def test_a_read_only_record_is_a_fault_with_chown_as_the_fix(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "card", "2m") as mounted:
        data = tmp_path / "card"
        filled(data, games=1, rounds=1)
        if mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(data)], check=True)
        elif os.geteuid() != 0:
            (data / DB_NAME).chmod(0o400)
            data.chmod(0o500)
        else:
            pytest.skip("root without mount: nothing can be made read-only")
        try:
            fault = open_fault(data)
        finally:
            if not mounted:
                data.chmod(0o700)
        assert fault.fault is Fault.READ_ONLY
        problem = problem_for(fault, data)
        if mounted:  # a read-only card: chown cannot help
            assert problem.title == "The SD card is read-only"
            assert not any("chown" in line for line in problem.lines)
        else:
            assert problem.title == "TableTally may not write its record"
            assert any("sudo chown -R" in line for line in problem.lines)


# -- the kiosk's logic on top --------------------------------------------------------------------------
def test_the_kiosk_logic_reports_a_fault_as_a_store_error(tmp_path: Path) -> None:
    store = Store(tmp_path)
    kiosk = Kiosk(store)
    store.close()
    with pytest.raises(StoreError):
        kiosk.resumable()


def test_the_record_and_photos_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        store = Store(tmp_path / "data")
        gid = store.create_game("jhyap", JHYAP)
        scan = store.add_scan(gid, 0, "table", b"jpeg", {})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
    assert stat.S_IMODE(store.photos_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert scan.photo is not None and stat.S_IMODE(scan.photo.stat().st_mode) == 0o600


def test_players_read_a_sentence_not_onnx_runtimes_error(tmp_path: Path) -> None:
    from ui.logic.scan import _model_message
    from vision.reading.detector import CardDetector

    bad = tmp_path / "cards.onnx"
    bad.write_bytes(os.urandom(4000))
    with pytest.raises(Exception) as info:
        CardDetector(bad).load()
    message = _model_message(info.value)
    assert "tabletally doctor" in message
    for raw in ("ONNX", "onnxruntime", "protobuf", "INVALID", str(bad)):
        assert raw not in message


@pytest.fixture
def nepali() -> Iterator[None]:
    i18n.set_language("ne")
    yield
    i18n.set_language(i18n.DEFAULT_LANGUAGE)


@pytest.mark.skipif(not has_catalog("ne"), reason="no compiled ne catalog (make catalogs)")
@pytest.mark.usefixtures("nepali")
def test_an_unforeseen_record_error_is_told_in_the_players_words_not_in_its_own(tmp_path: Path) -> None:
    raw = "edit of entry 7 but the game has 3 entries"
    problem = problem_for(StoreError(raw), tmp_path)
    assert problem.title == i18n._("The record cannot be opened")
    assert problem.lines == (
        i18n._("TableTally could not use its record. The details are in the kiosk's log."),
        i18n._("Run tabletally doctor to find out why."),
    )
    assert problem.lines[0] != "TableTally could not use its record. The details are in the kiosk's log."
    assert not any(raw in line or "entry" in line for line in problem.lines)


@pytest.mark.skipif(not has_catalog("ne"), reason="no compiled ne catalog (make catalogs)")
@pytest.mark.usefixtures("nepali")
def test_a_fix_that_fails_says_so_in_the_players_words(tmp_path: Path) -> None:
    data = tmp_path / "data"
    filled(data, games=1, rounds=1)
    flow = FaultFlow(RecordFault(Fault.FULL, data / DB_NAME, "database or disk is full"), data)
    flow.act(Action.FRESH_RECORD)
    raw = "[Errno 30] Read-only file system: 'photos'"
    flow.fix_failed(RecordFault(Fault.IO, data / "photos", raw))
    assert not flow.asking and flow.question is None
    assert flow.outcome is not None and flow.outcome.startswith(i18n._("That did not work.") + " ")
    assert i18n._("The card did not read or write the record.") in flow.outcome
    assert "Errno" not in flow.outcome and "Read-only" not in flow.outcome
