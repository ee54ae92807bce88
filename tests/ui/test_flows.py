"""Screen logic without Kivy: new game, Jhyap rounds, Seep deals, undo/edit, resume, export, scanning."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.ui.kiosk_scans import record_scan
from ui.logic import boards, games
from ui.logic.jhyap_round import TABLE, JhyapRoundFlow
from ui.logic.keyboard import BACKSPACE, DONE, SWITCH, NameKeyboard
from ui.logic.kiosk import RESULT, ROUND, Kiosk, KioskError
from ui.logic.new_game import FormError, NewGameForm
from ui.logic.scan import CardPicker, HandCard, Scanner, ScanPhase, ScanResult, card_label
from ui.logic.seep_deal import SeepDealFlow
from ui.store import GameStatus, Store
from vision.base.types import Detection
from vision.runtimes.fake import FakeDetector

PLAYERS = ["Asha", "बिकास", "Chandra", "Dipa"]
ROUND1 = {
    "Asha": ["AS", "2H"],
    "बिकास": ["KS", "QH", "9C"],
    "Chandra": ["10D", "JC", "8S"],
    "Dipa": ["5C", "6D"],
}
ROUND2 = {
    "Asha": ["2S", "2D"],
    "बिकास": ["KH", "KD", "QS"],
    "Chandra": ["JH", "QD", "9S"],
    "Dipa": ["AC", "3S"],
}


@pytest.fixture
def kiosk(tmp_path: Path) -> Kiosk:
    return Kiosk(Store(tmp_path))


def start_jhyap(kiosk: Kiosk, **rules: int | bool) -> int:
    form = kiosk.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    form.rules.update(rules)
    return kiosk.start(form)


def play(kiosk: Kiosk, caller: str, hands: dict[str, list[str]]) -> None:
    flow = kiosk.jhyap
    flow.pick_caller(caller)
    for player, cards in hands.items():
        flow.type_hand(player, cards)
    kiosk.confirm()
    kiosk.next_round()


def table_scan(hands_by_position: list[list[str]], uncertain: set[str] = frozenset()) -> ScanResult:
    """A whole-table scan with one hand at the bottom, left, top and right of a 1000x1000 photo."""
    centres = [(500, 900), (100, 500), (500, 100), (900, 500)]
    cards: list[HandCard] = []
    groups = []
    for (x, y), hand in zip(centres, hands_by_position, strict=False):
        group = []
        for j, code in enumerate(hand):
            group.append(len(cards))
            cards.append(
                HandCard(code, 0.9, code in uncertain, (x + 40 * j, y, x + 40 * j + 30, y + 40), ("9S",))
            )
        groups.append(tuple(group))
    return ScanResult(TABLE, tuple(cards), tuple(groups), 1000, 1000, jpeg=b"jpeg")


# -- new game ------------------------------------------------------------------------------------------


def test_new_game_form_rejects_duplicates_blank_and_too_many_names() -> None:
    form = NewGameForm("jhyap")
    with pytest.raises(FormError, match="Type a name first"):
        form.add("   ")
    form.add("Asha")
    with pytest.raises(FormError, match="Asha is already playing"):
        form.add("asha")
    for name in "BCDE":
        form.add(name)
    with pytest.raises(FormError, match="5 players at most"):
        form.add("F")


def test_new_game_form_defaults_come_from_the_rules_engine() -> None:
    form = NewGameForm("jhyap")
    assert form.rules == {
        "max_score": 200,
        "call_limit": 5,
        "caller_penalty": 30,
        "tie_penalizes_caller": False,
        "halve_exact": True,
        "hand_limit": 5,
    }
    assert NewGameForm("seep").rules["baazi_lead"] == 100


def test_new_game_needs_enough_players_and_says_so() -> None:
    form = NewGameForm("seep")
    form.add("Priya")
    assert form.problems() == ["Seep needs 4 players (1 so far)."]
    with pytest.raises(FormError, match="Seep needs 4 players"):
        form.build()


def test_seep_partners_sit_opposite() -> None:
    form = NewGameForm("seep")
    for name in ["Priya", "Raj", "Sunil", "Meera"]:
        form.add(name)
    assert form.teams() == {"A": ("Priya", "Sunil"), "B": ("Raj", "Meera")}
    assert form.build().log["teams"] == {"A": ["Priya", "Sunil"], "B": ["Raj", "Meera"]}


def test_seating_order_dealer_and_changed_rules_reach_the_game_log() -> None:
    form = NewGameForm("jhyap")
    for name in ["Asha", "Bikash", "Chandra"]:
        form.add(name)
    form.move("Chandra", -2)
    form.set_dealer("Bikash")
    form.step("max_score", -100)
    form.toggle("tie_penalizes_caller")
    form.set_decks(2)
    log = form.build().log
    assert log["players"] == ["Chandra", "Asha", "Bikash"]
    assert log["first_dealer"] == "Bikash"
    assert log["rules"] == {"max_score": 100, "tie_penalizes_caller": True}
    assert log["decks"] == 2


def test_rules_the_engine_refuses_are_reported_not_raised() -> None:
    form = NewGameForm("jhyap")
    form.add("Asha")
    form.add("Bikash")
    form.step("max_score", -2)  # the stepper stays on rules the engine takes (tests/ui/test_max_score.py)
    assert form.rules["max_score"] == 200
    form.rules["max_score"] = 198  # as a draft of an older kiosk may hold: not a multiple of 4 with halving
    with pytest.raises(FormError, match="max_score must be a multiple of 4"):
        form.build()


# -- the Jhyap round ---------------------------------------------------------------------------------


def test_round_shows_dealer_and_starter_from_the_scorer(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    flow = kiosk.jhyap
    assert (flow.number, flow.dealer, flow.starter) == (1, "Asha", "बिकास")
    assert flow.problems() == ["Pick who called Jhyap.", "No cards yet for Asha, बिकास, Chandra, Dipa."]


def test_table_scan_assigns_hands_clockwise_from_the_bottom(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    kiosk.jhyap.pick_caller("Asha")
    record_scan(kiosk, table_scan([ROUND1[p] for p in PLAYERS]))
    flow = kiosk.jhyap
    assert flow.codes() == ROUND1
    assert flow.needs_seat_confirm
    assert [games.hand_total(flow.codes()[p]) for p in PLAYERS] == [3, 29, 28, 11]


def test_two_hands_the_scan_mixed_up_can_be_swapped(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    record_scan(kiosk, table_scan([ROUND1[p] for p in PLAYERS]))
    flow = kiosk.jhyap
    flow.swap_hands("Asha", "Dipa")
    assert flow.codes()["Asha"] == ROUND1["Dipa"] and flow.codes()["Dipa"] == ROUND1["Asha"]
    assert flow.codes()["Chandra"] == ROUND1["Chandra"]
    with pytest.raises(ValueError, match="Zed"):
        flow.swap_hands("Asha", "Zed")
    with pytest.raises(ValueError, match="itself"):
        flow.swap_hands("Asha", "Asha")


def test_confirmed_seats_are_remembered_for_the_next_round(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    kiosk.jhyap.pick_caller("Asha")
    kiosk.jhyap.seat_anchor = "Dipa"  # Dipa sits nearest the camera
    record_scan(kiosk, table_scan([ROUND1[p] for p in ["Dipa", "Asha", "बिकास", "Chandra"]]))
    kiosk.confirm_seats()
    kiosk.confirm()
    kiosk.next_round()
    flow = kiosk.jhyap
    assert flow.seats_confirmed and not flow.needs_seat_confirm
    flow.pick_caller("Dipa")
    record_scan(kiosk, table_scan([ROUND2[p] for p in ["Dipa", "Asha", "बिकास", "Chandra"]]))
    assert kiosk.jhyap.codes() == ROUND2


def test_fast_path_is_pick_caller_scan_confirm(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    kiosk.jhyap.pick_caller("Asha")  # tap 1
    record_scan(kiosk, table_scan([ROUND1[p] for p in PLAYERS]))  # tap 2 (the scan)
    kiosk.confirm()  # tap 3
    assert kiosk.screen == RESULT
    assert boards.jhyap_board(kiosk.log).rows[0].name == "Asha"
    assert games.score(kiosk.log).totals == {"Asha": 0, "बिकास": 29, "Chandra": 28, "Dipa": 11}


def test_uncertain_cards_are_highlighted_until_a_player_confirms_them(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    record_scan(kiosk, table_scan([ROUND1[p] for p in PLAYERS], uncertain={"9C"}))
    flow = kiosk.jhyap
    assert flow.uncertain_left == 1
    flow.confirm_card("बिकास", 2)
    assert flow.uncertain_left == 0


def test_fixing_adding_and_removing_cards_changes_the_total(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    record_scan(kiosk, table_scan([ROUND1[p] for p in PLAYERS]))
    flow = kiosk.jhyap
    flow.set_card("बिकास", 2, "6c")  # the 9C was a 6C
    flow.add_card("बिकास", "JK")
    flow.remove_card("बिकास", 0)
    assert flow.codes()["बिकास"] == ["QH", "6C", "JK"]
    assert games.hand_total(flow.codes()["बिकास"]) == 16
    assert flow.hands["बिकास"][1].box is not None  # a fixed card keeps its box on the photo


def test_a_caller_above_the_limit_is_flagged_before_scoring(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    flow = kiosk.jhyap
    flow.pick_caller("बिकास")
    for p, cards in ROUND1.items():
        flow.type_hand(p, cards)
    assert flow.problems() == ["बिकास called with 29 in hand, over the call limit of 5."]
    with pytest.raises(KioskError, match="over the call limit"):
        kiosk.confirm()
    assert kiosk.store.game(kiosk.game.id).entries == ()


def test_a_card_the_deck_cannot_hold_twice_is_flagged_and_marked(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    flow = kiosk.jhyap
    flow.pick_caller("Asha")
    for p, cards in ROUND1.items():
        flow.type_hand(p, cards)
    flow.add_card("Dipa", "AS")
    assert "A\u2660 appears 2 times across the hands, but 1 deck holds only 1." in flow.problems()[0]
    assert {c for c in flow.codes()["Dipa"] if c in games.over_decks(flow.codes(), flow.decks)} == {"AS"}


def test_a_typo_in_a_typed_card_names_the_card(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    with pytest.raises(games.ScorerError, match="unknown card code 'ZZ'"):
        kiosk.jhyap.type_hand("Asha", ["AS", "ZZ"])


def test_result_shows_caller_penalty_halving_and_next_dealer(kiosk: Kiosk) -> None:
    start_jhyap(kiosk, max_score=100)
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "Dipa", ROUND2)
    play(
        kiosk,
        "Chandra",
        {"Asha": ["AH", "2C"], "बिकास": ["KC", "JD", "10S", "5H"], "Chandra": ["4H"], "Dipa": ["7C", "8D"]},
    )
    result = boards.jhyap_round_result(kiosk.log)
    assert result.headline == "Chandra called Jhyap and lost: 34 points (penalty)"
    kiosk.jhyap.pick_caller("Asha")
    for p, cards in {
        "Asha": ["AD"],
        "बिकास": ["9H", "8C"],
        "Chandra": ["6S", "3C"],
        "Dipa": ["10C", "4D"],
    }.items():
        kiosk.jhyap.type_hand(p, cards)
    kiosk.confirm()
    result = boards.jhyap_round_result(kiosk.log)
    notes = {line.name: line.note for line in result.lines}
    assert notes["Chandra"] == "halved to 50" and notes["बिकास"] == "OUT"
    assert result.next_text == "Next: Asha deals, Asha starts."
    board = boards.jhyap_board(kiosk.log)
    out = next(r for r in board.rows if r.name == "बिकास")
    assert out.eliminated and board.rows[-1] == out  # greyed, at the bottom
    assert next(r for r in board.rows if r.name == "Dipa").to_go == 60
    assert board.series["Chandra"] == [0, 28, 57, 91, 50]


def test_a_whole_game_ends_with_a_winner_and_stats(kiosk: Kiosk) -> None:
    gid = start_jhyap(kiosk, max_score=12)
    play(kiosk, "Asha", ROUND1)  # बिकास and Chandra go out
    kiosk.jhyap.pick_caller("Asha")
    kiosk.jhyap.type_hand("Asha", ["2S", "2D"])
    kiosk.jhyap.type_hand("Dipa", ["KH", "KD"])  # Dipa goes out too: Asha wins
    kiosk.confirm()
    record = kiosk.store.game(gid)
    assert record.status is GameStatus.FINISHED
    stats = boards.game_stats(record.log())
    assert stats.winner == record.winner == "Asha"
    assert stats.facts[0] == "2 rounds played"
    kiosk.next_round()
    assert kiosk.screen == "game_over"


def test_an_edit_that_undoes_an_elimination_reopens_a_finished_game(kiosk: Kiosk) -> None:
    gid = start_jhyap(kiosk, max_score=12)
    play(kiosk, "Asha", ROUND1)
    kiosk.jhyap.pick_caller("Asha")
    kiosk.jhyap.type_hand("Asha", ["2S", "2D"])
    kiosk.jhyap.type_hand("Dipa", ["KH", "KD"])
    kiosk.confirm()
    assert kiosk.store.game(gid).status is GameStatus.FINISHED
    kiosk.edit(1)
    kiosk.jhyap.pick_caller("Dipa")  # it was Dipa who called, holding one ace
    kiosk.jhyap.type_hand("Dipa", ["AH"])
    kiosk.confirm()
    record = kiosk.store.game(gid)
    assert record.status is GameStatus.PLAYING and record.winner is None
    assert games.score(record.log()).totals == {"Asha": 4, "बिकास": 29, "Chandra": 28, "Dipa": 11}


def test_undo_takes_back_the_last_round_and_the_next_round_starts_again(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "Dipa", ROUND2)
    kiosk.undo_last()
    assert len(kiosk.game.entries) == 1
    assert kiosk.screen == ROUND and kiosk.jhyap.number == 2


def test_editing_an_earlier_round_recomputes_every_later_one(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "Dipa", ROUND2)
    kiosk.edit(0)
    flow = kiosk.jhyap
    assert flow.caller == "Asha" and flow.codes() == ROUND1
    flow.set_card("Dipa", 0, "KC")  # Dipa really held KC 6D: 16, not 11
    kiosk.confirm()
    totals = games.score(kiosk.log).totals
    assert totals["Dipa"] == 16  # 16 + 0 (Dipa made the call in round 2)
    assert [a for a, *_ in kiosk.store.history(kiosk.game.id)] == ["add", "add", "edit"]


def test_an_edit_that_breaks_a_later_round_is_refused(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "Dipa", ROUND2)
    kiosk.edit(0)
    kiosk.jhyap.set_card("Asha", 0, "AC")  # AC is in Dipa's round-2 hand, but round 1 is its own deal
    kiosk.jhyap.set_card("Asha", 1, "3S")
    assert kiosk.jhyap.problems() == []  # different rounds may repeat cards
    kiosk.jhyap.add_card("Asha", "4C")  # Asha now totals 8: above the call limit
    assert "over the call limit" in kiosk.jhyap.problems()[0]


# -- resume ----------------------------------------------------------------------------------------


def test_a_restart_resumes_the_round_in_progress_exactly(kiosk: Kiosk, tmp_path: Path) -> None:
    gid = start_jhyap(kiosk)
    play(kiosk, "Asha", ROUND1)
    kiosk.jhyap.pick_caller("Dipa")
    record_scan(kiosk, table_scan([ROUND2[p] for p in PLAYERS], uncertain={"QD"}))
    kiosk.jhyap.set_card("Asha", 0, "3S")
    kiosk.save()
    kiosk.store.close()

    again = Kiosk(Store(tmp_path))
    assert [r.game_id for r in again.resumable()] == [gid]
    again.open(gid)
    flow = again.jhyap
    assert again.screen == ROUND
    assert flow.number == 2 and flow.caller == "Dipa"
    assert flow.codes()["Asha"] == ["3S", "2D"]
    assert flow.uncertain_left == 1
    assert flow.table_scan is not None and Path(flow.table_scan["photo"]).is_file()


def test_a_restart_after_confirming_shows_the_result_again(kiosk: Kiosk, tmp_path: Path) -> None:
    gid = start_jhyap(kiosk)
    kiosk.jhyap.pick_caller("Asha")
    for p, cards in ROUND1.items():
        kiosk.jhyap.type_hand(p, cards)
    kiosk.confirm()
    again = Kiosk(Store(tmp_path))
    again.open(gid)
    assert again.screen == RESULT
    assert again.resumable()[0].text.endswith("(after round 1)")


def test_a_restart_after_an_edit_shows_the_edited_round_again(kiosk: Kiosk, tmp_path: Path) -> None:
    gid = start_jhyap(kiosk)
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "Dipa", ROUND2)
    kiosk.edit(0)
    kiosk.confirm()
    assert (kiosk.screen, kiosk.result_position) == (RESULT, 0)
    again = Kiosk(Store(tmp_path))
    again.open(gid)
    assert (again.screen, again.result_position) == (RESULT, 0)
    assert boards.jhyap_round_result(again.log, again.result_position).number == 1


def test_a_game_whose_last_round_was_recorded_but_not_marked_over_is_finished_on_open(
    kiosk: Kiosk, tmp_path: Path
) -> None:
    gid = start_jhyap(kiosk, max_score=12)
    play(kiosk, "Asha", ROUND1)
    final = games.jhyap_entry("Asha", {"Asha": ["2S", "2D"], "Dipa": ["KH", "KD"]})
    kiosk.store.add_entry(gid, final)  # the power went before the game was marked over
    again = Kiosk(Store(tmp_path))
    assert [r.game_id for r in again.resumable()] == [gid]
    again.open(gid)
    assert again.screen == "game_over"
    assert again.store.game(gid).winner == "Asha"


def test_scans_keep_what_the_players_confirmed(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    kiosk.jhyap.pick_caller("Asha")
    record_scan(kiosk, table_scan([ROUND1[p] for p in PLAYERS], uncertain={"9C"}))
    kiosk.jhyap.set_card("बिकास", 2, "6C")
    kiosk.confirm()
    scan = kiosk.store.scans(kiosk.game.id)[0]
    assert scan.detected["cards"][4]["code"] == "9C"
    assert scan.confirmed["cards"]["बिकास"] == ["KS", "QH", "6C"]


# -- Seep --------------------------------------------------------------------------------------------


def start_seep(kiosk: Kiosk) -> int:
    form = kiosk.new_form("seep")
    for name in ["Priya", "Raj", "Sunil", "Meera"]:
        form.add(name)
    return kiosk.start(form)


def test_seep_deal_with_one_team_scanned_gives_the_other_the_rest(kiosk: Kiosk) -> None:
    start_seep(kiosk)
    flow = kiosk.seep
    flow.add_sweep("A")
    flow.add_sweep("B", "first")
    flow.type_cards("A", ["AS", "2S", "3S", "4S", "5S", "AH", "10D", "KS"])
    assert flow.problems() == []
    kiosk.confirm()
    result = boards.seep_deal_result(kiosk.log)
    assert result.lines == (("Priya & Sunil", 35, 50, 85), ("Raj & Meera", 65, 25, 90))
    assert result.lead_text == "Raj & Meera lead by 5"


def test_seep_100_point_check_names_the_missing_cards(kiosk: Kiosk) -> None:
    start_seep(kiosk)
    flow = kiosk.seep
    flow.type_cards("A", ["6S", "7S", "8S", "9S", "AD"])
    flow.type_cards("B", ["AS", "2S", "3S", "4S", "5S", "10S", "JS", "QS", "KS", "AH", "10D"])
    assert flow.missing() == ("AC",)
    assert flow.problems() and "A\u2663" in flow.problems()[0]
    flow.add_card("B", "AC")
    assert flow.problems() == []


def test_seep_doubled_card_is_marked(kiosk: Kiosk) -> None:
    start_seep(kiosk)
    kiosk.seep.type_cards("A", ["AS", "2S"])
    kiosk.seep.type_cards("B", ["AS"])
    assert kiosk.seep.doubled() == ("AS",)


def test_seep_under_minimum_loses_the_baazi_and_ending_the_game_names_the_winner(kiosk: Kiosk) -> None:
    gid = start_seep(kiosk)
    kiosk.seep.type_cards("A", ["AS", "2S", "AH"])  # 4 points: under 9
    kiosk.confirm()
    result = boards.seep_deal_result(kiosk.log)
    assert result.baazi_text == "Baazi to Raj & Meera: the other team scored under the minimum."
    kiosk.end_game()
    record = kiosk.store.game(gid)
    assert record.status is GameStatus.FINISHED and record.winner == "Raj & Meera"
    board = boards.seep_board(kiosk.log)
    assert [t.baazis for t in board.teams] == [0, 1]


def test_seep_sweeps_undo_and_unknown_team(tmp_path: Path) -> None:
    log = games.new_seep_log({"A": ["P", "S"], "B": ["R", "M"]}, {})
    flow = SeepDealFlow(log)
    flow.add_sweep("A", "last")
    flow.add_sweep("A")
    flow.undo_sweep()
    assert flow.sweep_counts("A") == {"first": 0, "normal": 0, "last": 1}
    with pytest.raises(ValueError, match="unknown team 'C'"):
        flow.add_sweep("C")
    with pytest.raises(ValueError, match="unknown sweep kind 'middle'"):
        flow.add_sweep("A", "middle")


def test_seep_deal_draft_round_trips(kiosk: Kiosk) -> None:
    start_seep(kiosk)
    kiosk.seep.add_sweep("B", "first")
    kiosk.seep.type_cards("A", ["AS"])
    data = json.loads(json.dumps(kiosk.seep.to_dict()))
    again = SeepDealFlow.from_dict(kiosk.log, data)
    assert again.sweeps == [("B", "first")] and again.codes() == {"A": ["AS"], "B": None}


# -- tonight and export --------------------------------------------------------------------------------


def test_export_writes_a_game_log_that_tabletally_replay_accepts(kiosk: Kiosk, tmp_path: Path) -> None:
    start_jhyap(kiosk)
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "Dipa", ROUND2)
    json_path, csv_path = boards.export_game(kiosk.store.game(kiosk.game.id), tmp_path / "out")
    replay = subprocess.run(
        [sys.executable, "-m", "ui.cli", "replay", str(json_path)], capture_output=True, text=True, check=True
    )
    assert json.loads(replay.stdout)["totals"] == {"Asha": 4, "बिकास": 59, "Chandra": 57, "Dipa": 11}
    assert csv_path.read_bytes().startswith(b"\xef\xbb\xbf")  # UTF-8 with a BOM: spreadsheets read Devanagari
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8-sig"))))
    assert [r["round"] for r in rows] == ["1", "2"]
    assert rows[1]["बिकास cards"] == "KH KD QS" and rows[1]["बिकास total"] == "59"
    assert rows[0]["caller_won"] == "yes"


def test_seep_csv_lists_each_deal_with_lead_and_baazi(kiosk: Kiosk) -> None:
    start_seep(kiosk)
    kiosk.seep.type_cards("A", ["AS", "2S", "AH"])
    kiosk.confirm()
    rows = list(csv.DictReader(io.StringIO(boards.rounds_csv(kiosk.log))))
    assert (
        rows[0]["A points"] == "4" and rows[0]["baazi"] == "B" and rows[0]["baazi_reason"] == "under_minimum"
    )


def test_standings_count_games_wins_and_baazis_across_the_night(kiosk: Kiosk) -> None:
    start_jhyap(kiosk, max_score=12)
    play(kiosk, "Asha", ROUND1)
    kiosk.jhyap.pick_caller("Asha")
    kiosk.jhyap.type_hand("Asha", ["2S", "2D"])
    kiosk.jhyap.type_hand("Dipa", ["KH", "KD"])
    kiosk.confirm()
    winner = kiosk.game.winner
    form = kiosk.new_form("seep")
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    kiosk.seep.type_cards("A", ["AS", "2S", "AH"])
    kiosk.confirm()
    kiosk.end_game()
    table = {s.name: s for s in boards.standings(kiosk.store.tonight())}
    assert winner == "Asha" and table["Asha"].won == 1
    assert table["Asha"].played == 2
    assert table["बिकास"].baazis == 1 and table["बिकास"].won == 1  # team B: बिकास & Dipa


# -- small parts ---------------------------------------------------------------------------------------


def test_keyboard_types_latin_with_a_capital_then_devanagari() -> None:
    kb = NameKeyboard()
    for key in ["A", "s", "h", "a", BACKSPACE, "a"]:
        kb.press(key)
    assert kb.text == "Asha"
    kb.clear()
    kb.press(SWITCH)
    for key in ["ब", "ि", "क", "ा", "स"]:
        kb.press(key)
    kb.press(DONE)
    assert kb.text == "बिकास" and kb.done


def test_keyboard_stops_at_the_maximum_length() -> None:
    kb = NameKeyboard(max_length=3)
    for key in "Abcd":
        kb.press(key)
    assert kb.text == "Abc"


def test_card_picker_needs_a_rank_and_a_suit() -> None:
    picker = CardPicker()
    assert picker.tap_rank("10") is None
    assert picker.tap_suit("H") == "10H"
    with pytest.raises(ValueError, match="unknown rank '1'"):
        picker.tap_rank("1")
    assert card_label("10H") == "10\u2665" and card_label("JK") == "Joker"


def test_scanner_reads_a_folder_camera_photo_and_keeps_the_jpeg(tmp_path: Path) -> None:
    import cv2

    photo = np.full((120, 160, 3), 90, np.uint8)
    cv2.rectangle(photo, (20, 20), (60, 80), (255, 255, 255), -1)
    cv2.imwrite(str(tmp_path / "a.jpg"), photo)
    phases: list[ScanPhase] = []
    scanner = Scanner(f"folder:{tmp_path}", model_path=tmp_path / "missing.onnx")
    result = scanner.scan_now("table", 4, phases.append)
    assert phases == [ScanPhase.CAMERA, ScanPhase.LOADING, ScanPhase.READING, ScanPhase.DONE]
    assert (result.width, result.height) == (160, 120)
    assert (jpeg := result.photo_jpeg()) is not None and jpeg[:2] == b"\xff\xd8"  # made when kept
    assert not result.camera_failed
    assert result.error is not None and "type the cards" in result.error.lower()


def test_scanner_keeps_the_photo_when_reading_it_fails(tmp_path: Path) -> None:
    import cv2

    def broken(image: np.ndarray) -> list[Detection]:
        raise RuntimeError("ONNX Runtime ran out of memory")

    photo = np.random.default_rng(2).integers(0, 255, (90, 130, 3), dtype=np.uint8)  # not blank
    cv2.imwrite(str(tmp_path / "a.jpg"), photo)
    phases: list[ScanPhase] = []
    result = Scanner(f"folder:{tmp_path}", detector=FakeDetector(broken)).scan_now("table", 2, phases.append)
    assert phases == [ScanPhase.CAMERA, ScanPhase.LOADING, ScanPhase.READING, ScanPhase.DONE]
    assert result.error == "Could not read the cards: ONNX Runtime ran out of memory. Type them instead."
    assert (result.width, result.height) == (130, 90) and not result.camera_failed
    assert result.photo_jpeg() is not None  # the photo is kept with the record
    assert result.cards == () or list(result.cards) == []


def test_a_blank_photo_is_explained_in_one_sentence(tmp_path: Path) -> None:
    """The pipeline refuses a flat photo before the model runs; the message reads as the kiosk shows it."""
    import cv2

    detector = FakeDetector([Detection("AS", 0.9, (10, 10, 30, 40))])
    cv2.imwrite(str(tmp_path / "a.jpg"), np.full((90, 130, 3), 90, np.uint8))
    result = Scanner(f"folder:{tmp_path}", detector=detector).scan_now("table", 2)
    assert detector.photos == []  # a blank photo never reaches the model
    assert result.error is not None and result.photo_jpeg() is not None
    assert result.error.startswith("Could not read the cards: the photo is blank (one flat colour")
    assert result.error.endswith("is the lens covered or the light off? Type them instead.")


def test_scanner_reports_a_missing_camera_with_a_retry_message(tmp_path: Path) -> None:
    scanner = Scanner(f"folder:{tmp_path / 'nowhere'}")
    done: list[ScanResult] = []
    assert scanner.scan("table", done.append)
    scanner.wait(10)
    assert done and done[0].camera_failed
    assert "does not exist" in (done[0].error or "") and "tap Retry" in (done[0].error or "")
    assert scanner.phase is ScanPhase.FAILED


def test_a_failed_camera_scan_leaves_the_hands_alone(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    kiosk.jhyap.type_hand("Asha", ["AS"])
    record_scan(kiosk, ScanResult(TABLE, error="The camera did not give a photo", camera_failed=True))
    assert kiosk.jhyap.codes()["Asha"] == ["AS"]
    assert kiosk.jhyap.message == "The camera did not give a photo"
    assert kiosk.jhyap.table_scan is None  # so the screen offers "Retry scan"
    assert kiosk.store.scans(kiosk.game.id) == []


def test_round_flow_draft_round_trips_through_json(kiosk: Kiosk) -> None:
    start_jhyap(kiosk)
    kiosk.jhyap.pick_caller("Chandra")
    record_scan(kiosk, table_scan([ROUND1[p] for p in PLAYERS], uncertain={"QH"}))
    data = json.loads(json.dumps(kiosk.jhyap.to_dict()))
    again = JhyapRoundFlow.from_dict(kiosk.log, data)
    assert again.codes() == kiosk.jhyap.codes() and again.caller == "Chandra"
    assert again.hands["बिकास"][1].uncertain and again.hands["बिकास"][1].alternatives == ("9S",)


def test_scanner_runs_the_vision_pipeline_and_the_round_takes_its_hands(kiosk: Kiosk, tmp_path: Path) -> None:
    """The real pipeline (pairing, hands) on detections from a fake model: 4 hands around the table."""
    import cv2

    centres = [(500, 880), (100, 500), (500, 100), (880, 500)]  # bottom, left, top, right
    hands = [ROUND1[p] for p in PLAYERS]

    def four_hands(image: np.ndarray) -> list[Detection]:
        out = []
        for (x, y), hand in zip(centres, hands, strict=True):
            for j, code in enumerate(hand):
                conf = 0.4 if code == "9C" else 0.95
                out.append(Detection(code, conf, (x + 45 * j, y, x + 45 * j + 30, y + 40)))
        return out

    photo = np.random.default_rng(1).integers(0, 255, (1000, 1000, 3), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "table.jpg"), photo)
    start_jhyap(kiosk)
    kiosk.jhyap.pick_caller("Asha")
    detector = FakeDetector(four_hands)
    scanner = Scanner(f"folder:{tmp_path}", detector=detector)
    result = scanner.scan_now(TABLE, n_hands=4)
    assert [p.shape for p in detector.photos] == [(1000, 1000, 3)]  # the camera's photo, read once
    assert result.error is None, result.error
    assert sorted(c.code for c in result.cards) == sorted(c for h in hands for c in h)
    assert len(result.groups) == 4
    record_scan(kiosk, result)
    assert kiosk.jhyap.codes() == ROUND1
    assert kiosk.jhyap.uncertain_left == 1  # the low-confidence 9C is marked for a look
    kiosk.confirm()
    assert games.score(kiosk.log).totals == {"Asha": 0, "बिकास": 29, "Chandra": 28, "Dipa": 11}


def test_a_scan_reads_no_card_more_often_than_the_packs_in_play_hold(tmp_path: Path) -> None:
    """Two aces of spades far apart in one photo: with one pack the weaker is read as its next reading."""
    import cv2

    two_aces = [
        Detection("AS", 0.9, (100, 100, 130, 140)),
        Detection("AS", 0.55, (700, 700, 730, 740), (("AC", 0.3),)),
    ]
    photo = np.random.default_rng(2).integers(0, 255, (1000, 1000, 3), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "pile.jpg"), photo)
    scanner = Scanner(f"folder:{tmp_path}", detector=FakeDetector(two_aces))
    assert [c.code for c in scanner.scan_now("A", 1).cards] == ["AS", "AS"]
    read = scanner.scan_now("A", 1, decks=SeepDealFlow.decks).cards
    assert [c.code for c in read] == ["AS", "AC"]
    assert read[1].needs_look and read[1].alternatives == ("AS",)


def test_out_above_steps_keep_a_score_the_halving_rule_accepts() -> None:
    form = NewGameForm(games.JHYAP)
    step = form.rule_step("max_score")
    for _ in range(5):
        form.step("max_score", -step)
        assert form.rules["max_score"] % 4 == 0
    assert form.rule_step("call_limit") == 1
