"""`tabletally replay FILE|-`: JSON on stdout and exit 0, or one clear line on stderr and exit 1."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorer.log import replay
from ui.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
TABLETALLY = Path(sys.executable).parent / "tabletally"

VALID = {
    "game": "jhyap",
    "players": ["Asha", "Bikash", "Chandra"],
    "rounds": [
        {
            "caller": "Bikash",
            "hands": {"Asha": ["KS", "3H"], "Bikash": ["AS", "2D", "JK"], "Chandra": ["5C", "7D"]},
        }
    ],
}


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: Any, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def assert_one_error_line(code: int, out: str, err: str, *parts: str) -> None:
    assert code == 1
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("tabletally replay: ")
    assert "Traceback" not in err
    for part in parts:
        assert part in err


def test_replay_prints_the_scored_game_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, str(write(tmp_path, VALID)))
    assert code == 0
    assert err == ""
    assert json.loads(out) == replay(VALID)
    assert out.startswith('{\n  "game": "jhyap"')


def test_compact_prints_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "--compact", str(write(tmp_path, VALID)))
    assert code == 0
    assert out.count("\n") == 1
    assert json.loads(out) == replay(VALID)


def test_dash_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(VALID).encode())))
    code, out, err = run_main(capsys, "-")
    assert code == 0 and err == ""
    assert json.loads(out) == replay(VALID)


def test_bad_json_on_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"game": ')))
    assert_one_error_line(*run_main(capsys, "-"), "<stdin>: invalid JSON at line 1 column 10")


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(VALID).encode())
    code, out, _ = run_main(capsys, str(path))
    assert code == 0 and json.loads(out) == replay(VALID)


def test_names_are_printed_as_utf8_not_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(json.dumps(VALID).replace("Asha", "आशा"))
    code, out, _ = run_main(capsys, str(write(tmp_path, data)))
    assert code == 0 and '"आशा": 13' in out


@pytest.mark.parametrize(
    ("change", "parts"),
    [
        (
            lambda d: d["rounds"][0]["hands"]["Asha"].append("ZZ"),
            ["round 1: Asha's hand: unknown card code 'ZZ'"],
        ),
        (
            lambda d: d["rounds"][0].update(caller="Asha"),
            ["round 1: caller Asha's hand totals 13, over the call limit of 5"],
        ),
        (lambda d: d.update(colour="red"), ["unknown key 'colour'"]),
        (lambda d: d.update(players=["Asha"]), ["Jhyap needs 2-5 players, got 1"]),
        (lambda d: d.update(players=["Asha", "Bikash", "Asha"]), ["duplicate player name 'Asha'"]),
        (
            lambda d: d["rounds"][0]["hands"].update(Dev=["2C"]),
            ["round 1: hand given for unknown player 'Dev'"],
        ),
        (lambda d: d.update(game="rummy"), ['"game" must be "jhyap" or "seep"']),
    ],
)
def test_an_invalid_log_prints_one_line_naming_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, parts: list[str]
) -> None:
    data = json.loads(json.dumps(VALID))
    change(data)
    path = write(tmp_path, data)
    assert_one_error_line(*run_main(capsys, str(path)), f"{path}: ", *parts)


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nope.json"
    assert_one_error_line(
        *run_main(capsys, str(path)), f"{path}: cannot read the file: No such file or directory"
    )


def test_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_error_line(*run_main(capsys, str(tmp_path)), "cannot read the file")


def test_bad_json_in_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, '{"game": "jhyap",\n "players": [}')
    assert_one_error_line(*run_main(capsys, str(path)), "invalid JSON at line 2 column 14")


def test_a_file_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"game": "jhyap", "players": ["J\xf6rg"]}')
    assert_one_error_line(*run_main(capsys, str(path)), "not UTF-8")


def test_an_error_message_stays_on_one_line_even_with_a_newline_in_a_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(json.dumps(VALID))
    data["rounds"][0]["hands"]["Dev\nX"] = ["2C"]
    assert_one_error_line(*run_main(capsys, str(write(tmp_path, data))), "unknown player")


def test_the_file_argument_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["replay"])
    assert info.value.code == 2
    assert "FILE" in capsys.readouterr().err


def test_replay_is_listed_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "replay" in capsys.readouterr().out


def test_the_installed_command_replays_an_example_and_rejects_a_bad_log(tmp_path: Path) -> None:
    assert TABLETALLY.exists(), f"{TABLETALLY} is not installed; run `make setup`"
    example = EXAMPLES / "seep-two-baazis.json"
    done = subprocess.run(
        [str(TABLETALLY), "replay", str(example)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout) == replay(json.loads(example.read_text(encoding="utf-8")))

    bad = json.loads(example.read_text(encoding="utf-8"))
    bad["deals"][2]["captured"]["B"].append("JK")
    done = subprocess.run(
        [str(TABLETALLY), "replay", "-"], input=json.dumps(bad), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "tabletally replay: <stdin>: deal 3: team B captured a joker, but Seep is played without jokers\n"
    )
