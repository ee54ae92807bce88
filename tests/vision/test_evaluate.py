"""``python -m vision.devtools.evaluate``: truth files, the card and grouping measures, photo filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.base.errors import InvalidValueError, VisionError
from vision.base.types import CardReading, DetectedCard
from vision.cameras import DEMO_DIR
from vision.devtools.evaluate import Score, hand_pairs, load_truth, main
from vision.runtimes.model_files import DEFAULT_ONNX


def reading(hands: list[list[str]]) -> CardReading:
    """A reading with these cards, grouped as given (boxes do not matter to the measures)."""
    cards, groups, k = [], [], 0
    for hand in hands:
        groups.append(tuple(range(k, k + len(hand))))
        k += len(hand)
        cards += [DetectedCard(code, 0.9, False, ((0.0, 0.0, 10.0, 10.0),)) for code in hand]
    return CardReading("photo", 1.0, tuple(cards), tuple(groups), 640, 480)


def test_hand_pairs_count_pairs_of_rightly_read_cards_grouped_as_laid() -> None:
    truth = {"cards": ["2S", "3S", "4H", "5H"], "hands": [["2S", "3S"], ["4H", "5H"]]}
    assert hand_pairs(truth, reading([["2S", "3S"], ["4H", "5H"]])) == (6, 6)
    # 4H put with the spades: 2S-4H and 3S-4H wrongly together, 4H-5H wrongly apart.
    assert hand_pairs(truth, reading([["2S", "3S", "4H"], ["5H"]])) == (3, 6)


def test_hand_pairs_leave_out_misreads_duplicates_and_single_hands() -> None:
    truth = {"cards": ["2S", "3S", "4H", "4H", "5H"], "hands": [["2S", "3S", "4H"], ["4H", "5H"]]}
    # 4H lies in both hands (two decks) and KC is a misread: only 2S, 3S, 5H count.
    assert hand_pairs(truth, reading([["2S", "3S", "4H", "KC"], ["4H", "5H"]])) == (3, 3)
    assert hand_pairs({"cards": ["2S", "3S"], "hands": [["2S", "3S"]]}, reading([["2S"], ["3S"]])) == (0, 0)


def test_score_adds_cards_and_grouping() -> None:
    score = Score()
    truth = {"cards": ["2S", "3S", "4H"], "hands": [["2S", "3S"], ["4H"]]}
    score.add(truth, reading([["2S", "3S"], ["4H", "9C"]]))
    assert (score.right, score.extra, score.missing, score.exact) == (3, 1, 0, 0)
    assert (score.pairs_agree, score.pairs_total) == (3, 3)


def test_truth_files_with_no_entries_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "truth.json"
    path.write_text(json.dumps({"photos": []}))
    with pytest.raises(InvalidValueError, match="no entries with 'image' and 'cards'") as err:
        load_truth(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (
            json.dumps({"photos": [{"image": "a.jpg", "cards": ["AS"]}, {"image": "b.jpg"}]}),
            "entry 2 has no 'cards'",
        ),
        (json.dumps([{"cards": ["AS"]}]), "entry 1 has no 'image'"),
        (json.dumps({"t.jpg": {"cards": ["AS", "ZZ"]}}), "entry 't.jpg' has an unknown card code 'ZZ'"),
        (json.dumps([["AS"]]), "entry 1 is not an object"),
        ('{"image": "a.jpg", "cards": ["AS"]}\n\n{"image": "b.jpg", "cards": ["2S"\n', "line 3 is not JSON"),
        ('{"image": "a.jpg", "cards": ["AS"]}\n{"image": "b.jpg", "cards": "2S"}\n', "line 2 has no 'cards'"),
        ('[{"image": "a.jpg",\n "cards": ["AS"]},\n]', "not JSON or JSON lines: .* at line 3"),
        ("42", "expected a list of photos, got int"),
    ],
)
def test_a_bad_truth_file_is_refused_naming_the_file_and_the_entry(
    tmp_path: Path, text: str, named: str
) -> None:
    path = tmp_path / "truth.jsonl"
    path.write_text(text)
    with pytest.raises(InvalidValueError, match=named) as err:
        load_truth(path)
    assert str(err.value).startswith(f"{path}: ")
    assert isinstance(err.value, VisionError)  # what the evaluation commands catch and print


def test_truth_as_a_mapping_list_or_json_lines_reads_the_same(tmp_path: Path) -> None:
    entries = [{"image": "a.jpg", "cards": ["AS", "10D"]}, {"image": "b.jpg", "cards": [], "kind": "hand"}]
    (tmp_path / "list.json").write_text(json.dumps({"photos": entries}))
    (tmp_path / "map.json").write_text(
        json.dumps({e["image"]: {k: v for k, v in e.items() if k != "image"} for e in entries})
    )
    (tmp_path / "lines.jsonl").write_text("\n".join(json.dumps(e) for e in entries) + "\n\n")
    for name in ["list.json", "map.json", "lines.jsonl"]:
        assert load_truth(tmp_path / name) == entries, name


def test_a_bad_truth_file_is_a_clear_message_from_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "truth.json"
    path.write_text(json.dumps([{"image": "a.jpg", "cards": ["1S"]}]))
    assert main(["--truth", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"vision.devtools.evaluate: {path}: entry 1 has an unknown card code '1S'")


@pytest.mark.skipif(not DEFAULT_ONNX.is_file(), reason="the shipped model is not there yet")
def test_kind_filter_reads_only_those_photos(capsys: pytest.CaptureFixture[str]) -> None:
    truth = json.loads((DEMO_DIR / "truth.json").read_text(encoding="utf-8"))
    tables = sum(entry["kind"] == "table" for entry in truth.values())
    assert 0 < tables < len(truth)  # the demo set has whole-table photos and others (the Seep deals)
    assert main(["--kind", "table", "--tiles", "1", "--known-hands"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{tables} photos from")  # only the whole-table photos are read
    row = out.splitlines()[-1].split()
    assert row[0] == DEFAULT_ONNX.name and row[2] == "1" and row[4] == "on"  # the shipped corner reader
    assert "of" in row  # the pair measure: "84.1% of 60"
    assert float(row[-2]) > 0 and float(row[-1]) > 0  # median and mean ms per photo


def test_a_pack_limit_below_one_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--decks", "0"])
    assert exit_info.value.code == 2
    assert "--decks must be at least 1, got 0" in capsys.readouterr().err


def test_the_demo_photos_read_as_well_with_the_kiosk_pack_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """The demo tables read no card twice, so one pack's limit changes none of the measures."""
    assert main(["--kind", "table", "--tiles", "1"]) == 0
    free = capsys.readouterr().out.splitlines()[-1].split()
    assert main(["--kind", "table", "--tiles", "1", "--decks", "1"]) == 0
    limited = capsys.readouterr().out.splitlines()[-1].split()
    assert limited[0] == DEFAULT_ONNX.name
    assert limited[:-2] == free[:-2]  # every measure but the two timings
