"""The doctor tells the truth: it checks the model the kiosk will use ($TABLETALLY_MODEL included, with the
real ONNX Runtime), recognises another program's database and a newer record, and gives chown, not a
repair, for a permissions problem."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path

import pytest

from ui.commands import doctor
from ui.commands.doctor import CheckName, Status, check_database
from ui.store import Store
from vision.runtimes.model_files import DEFAULT_ONNX

SKIP_ALL_BUT_MODEL = [
    arg for name in CheckName if name is not CheckName.MODEL for arg in ("--skip", name.value)
]


def args(tmp_path: Path, *extra: str) -> argparse.Namespace:
    from ui.cli import build_parser

    return build_parser().parse_args(["doctor", "--json", "--env-file", str(tmp_path / "kiosk.env"), *extra])


def broken_models(tmp_path: Path) -> dict[str, Path]:
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(DEFAULT_ONNX.read_bytes()[:200_000])
    random_bytes = tmp_path / "random.onnx"
    random_bytes.write_bytes(os.urandom(300_000))
    return {"missing": tmp_path / "missing.onnx", "truncated": truncated, "random": random_bytes}


@pytest.mark.skipif(not DEFAULT_ONNX.is_file(), reason="the shipped model is not built")
@pytest.mark.parametrize("kind", ["missing", "truncated", "random"])
@pytest.mark.parametrize("where", ["environment", "env-file"])
def test_a_broken_model_named_by_tabletally_model_is_not_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, where: str
) -> None:
    model = broken_models(tmp_path)[kind]
    environ: dict[str, str] = {}
    if where == "environment":
        environ["TABLETALLY_MODEL"] = str(model)
    else:  # the installed kiosk's settings, which the service reads too
        (tmp_path / "kiosk.env").write_text(f"TABLETALLY_MODEL={model}\n", encoding="utf-8")
    status = doctor.run(args(tmp_path, *SKIP_ALL_BUT_MODEL), environ=environ)
    report = json.loads(capsys.readouterr().out)
    check = next(c for c in report["checks"] if c["name"] == "model")
    assert status == 1 and report["ok"] is False
    assert check["name"] == "model" and check["status"] == "problem"
    assert check["details"]["path"] == str(model)


def test_another_programs_database_is_not_called_intact(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "tabletally.sqlite3")
    con.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
    con.commit()
    con.close()
    before = (tmp_path / "tabletally.sqlite3").read_bytes()
    check = check_database(tmp_path)
    assert check.name is CheckName.DATABASE and check.status is Status.FAIL
    assert check.summary.startswith("this is not a TableTally record")
    assert "has not changed it" in check.fix and "mv " in check.fix
    assert (tmp_path / "tabletally.sqlite3").read_bytes() == before


def test_a_newer_record_says_update(tmp_path: Path) -> None:
    Store(tmp_path).close()
    con = sqlite3.connect(tmp_path / "tabletally.sqlite3")
    con.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    check = check_database(tmp_path)
    assert check.status is Status.FAIL and "newer TableTally" in check.summary
    assert "update.sh" in check.fix


def test_a_permissions_problem_is_fixed_with_chown_not_a_repair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Store(tmp_path).close()
    record = tmp_path / "tabletally.sqlite3"
    if os.geteuid() == 0:  # root reads and writes anything: take the account's view of the permissions
        monkeypatch.setattr(doctor.os, "access", lambda path, mode: Path(path) != record)
    else:
        record.chmod(0o200)
    try:
        check = check_database(tmp_path)
    finally:
        record.chmod(0o600)
    assert check.status is Status.FAIL
    assert "chown" in check.fix and ".recover" not in check.fix
    assert "may not read and write" in check.summary


def test_corruption_is_told_the_kiosk_sets_it_aside(tmp_path: Path) -> None:
    (tmp_path / "tabletally.sqlite3").write_bytes(os.urandom(8192))
    check = check_database(tmp_path)
    assert check.status is Status.FAIL and "set the damaged record aside" in check.fix
