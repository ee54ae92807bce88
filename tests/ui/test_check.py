"""The check screen's logic: seats give hands, the table's cards, one-tap fixes and moves, the preselected
caller, Seep's one photo of both piles, and the card edits both games share (ui.logic.card_edit)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.ui.kiosk_scans import record_scan
from ui.logic.card_edit import TABLE_CARDS
from ui.logic.check import TABLE_COLOUR, card_choices, fit_chips, jhyap_view, seep_view
from ui.logic.jhyap_round import TABLE
from ui.logic.kiosk import Kiosk, KioskError
from ui.logic.scan import HandCard, ScanResult
from ui.logic.seep_deal import BOTH
from ui.store import Store
from vision.table.seats import layout

PLAYERS = ["Asha", "बिकास", "Chandra", "Dipa"]
# Where each seat's hand lies in a 1000 x 1000 photo with the kiosk at the bottom: bottom-left, top-left,
# top-right, bottom-right (vision.table.seats.layout(4)).
SPOTS = [(230, 770), (230, 230), (770, 230), (770, 770)]


@pytest.fixture
def kiosk(tmp_path: Path) -> Kiosk:
    return Kiosk(Store(tmp_path))


def start(kiosk: Kiosk, kind: str = "jhyap") -> None:
    form = kiosk.new_form(kind)
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)


def table_photo(
    hands: list[list[str]], middle: Sequence[str] = (), doubtful: Sequence[str] = ()
) -> ScanResult:
    """The cards of each seat's hand in front of that seat, the middle cards at the centre."""
    cards = []
    for (x, y), hand in zip(SPOTS, hands, strict=True):
        for j, code in enumerate(hand):
            cards.append(
                HandCard(code, 0.9, code in doubtful, (x + 30 * j, y, x + 30 * j + 40, y + 56), ("9S", code))
            )
    for j, code in enumerate(middle):
        cards.append(HandCard(code, 0.9, False, (480 + 10 * j, 470, 520 + 10 * j, 526)))
    return ScanResult(TABLE, tuple(cards), (tuple(range(len(cards))),), 1000, 1000, jpeg=b"jpeg")


def test_with_seats_each_card_goes_to_the_player_in_front_of_it_and_the_middle_to_the_table(
    kiosk: Kiosk,
) -> None:
    start(kiosk)
    assert kiosk.seats_needed
    kiosk.set_seats(layout(4, "round", "bottom"))
    assert not kiosk.seats_needed
    # One cluster for the whole photo (the old grouping would give it all to one player): seats split it.
    record_scan(
        kiosk, table_photo([["AS", "2H"], ["KS", "QH", "9C"], ["10D", "JC"], ["5C", "6D"]], ["7H", "8H"])
    )
    flow = kiosk.jhyap
    assert flow.codes() == {
        "Asha": ["AS", "2H"],
        "बिकास": ["KS", "QH", "9C"],
        "Chandra": ["10D", "JC"],
        "Dipa": ["5C", "6D"],
    }
    assert [c.code for c in flow.table_cards] == ["7H", "8H"]
    assert not flow.needs_seat_confirm
    view = jhyap_view(flow)
    assert [r.title for r in view.rows] == [*PLAYERS, "Table"]
    assert view.rows[-1].total is None and view.rows[-1].colour == TABLE_COLOUR  # shown, not scored
    assert [r.total for r in view.rows[:4]] == [3, 29, 20, 11]


def test_the_only_hand_at_or_under_the_call_limit_is_preselected_as_the_caller(kiosk: Kiosk) -> None:
    start(kiosk)
    kiosk.set_seats(layout(4))
    record_scan(kiosk, table_photo([["AS", "2H"], ["KS", "QH"], ["10D", "JC"], ["5C", "6D"]]))
    flow = kiosk.jhyap
    assert flow.caller == "Asha" and flow.caller_guessed
    assert flow.ready  # scan, then score: two taps
    flow.pick_caller("Dipa")
    assert not flow.caller_guessed
    # Two hands under the limit: nobody is guessed.
    record_scan(kiosk, table_photo([["AS", "2H"], ["AC", "3H"], ["10D", "JC"], ["5C", "6D"]]))
    assert kiosk.jhyap.caller == "Dipa"  # a caller the players picked stays


def test_two_low_hands_preselect_nobody(kiosk: Kiosk) -> None:
    start(kiosk)
    kiosk.set_seats(layout(4))
    record_scan(kiosk, table_photo([["AS", "2H"], ["AC", "3H"], ["10D", "JC"], ["5C", "6D"]]))
    assert kiosk.jhyap.caller is None


def test_a_tapped_card_offers_its_alternatives_and_every_other_holder_and_moves_in_one_tap(
    kiosk: Kiosk,
) -> None:
    start(kiosk)
    kiosk.set_seats(layout(4))
    record_scan(
        kiosk, table_photo([["AS", "2H"], ["KS", "QH", "9C"], ["10D", "JC"], ["5C", "6D"]], ["7H"], ["9C"])
    )
    flow = kiosk.jhyap
    view = jhyap_view(flow)
    assert view.doubtful == 1 and view.row("बिकास").cards[2].doubtful
    choices = card_choices(flow, view, "बिकास", 2)
    assert choices.alternatives == ("9S",)
    assert [o for o, _ in choices.move_to] == ["Asha", "Chandra", "Dipa", TABLE_CARDS]
    flow.move_card("बिकास", 2, "Chandra")  # one tap: the 9C lay nearer Chandra's hand
    assert flow.codes()["Chandra"] == ["10D", "JC", "9C"]
    assert (flow.hands["Chandra"] or [])[2].needs_look  # moving a card does not confirm what it is
    flow.move_card(TABLE_CARDS, 0, "Dipa")  # the table's 7H was Dipa's
    assert flow.codes()["Dipa"] == ["5C", "6D", "7H"] and flow.table_cards == []
    flow.move_card("Asha", 0, TABLE_CARDS)
    assert [c.code for c in flow.table_cards] == ["AS"]
    table_choices = card_choices(flow, jhyap_view(flow), TABLE_CARDS, 0)
    assert TABLE_CARDS not in [o for o, _ in table_choices.move_to]
    with pytest.raises(ValueError, match="Zed"):
        flow.move_card("Asha", 0, "Zed")


def test_both_games_edit_cards_through_one_home(kiosk: Kiosk) -> None:
    start(kiosk)
    jhyap = kiosk.jhyap
    jhyap.type_hand("Asha", ["AS", "9C"])
    jhyap.set_card("Asha", 1, "6c")
    jhyap.add_card("Asha", "JK")
    assert jhyap.remove_card("Asha", 0).code == "AS"
    assert jhyap.codes()["Asha"] == ["6C", "JK"]
    with pytest.raises(ValueError, match="no card 5"):
        jhyap.set_card("Asha", 4, "AS")
    kiosk.close()
    start(kiosk, "seep")
    seep = kiosk.seep
    seep.type_cards("A", ["AS", "2S"])
    seep.set_card("A", 1, "3s")
    seep.add_card("A", "10D")
    seep.remove_card("A", 0)
    seep.move_card("A", 0, "B")
    assert seep.codes() == {"A": ["10D"], "B": ["3S"]}
    with pytest.raises(ValueError, match="unknown team 'C'"):
        seep.add_card("C", "AS")


def test_seep_reads_both_piles_in_one_photo_one_per_half_and_checks_the_100_points(kiosk: Kiosk) -> None:
    start(kiosk, "seep")
    near = ["AS", "2S", "3S", "4S", "5S", "AH", "10D", "KS"]  # on the kiosk's half: team A
    far = ["6S", "7S", "8S", "9S", "10S", "JS", "QS", "AD"]  # team B, AC missing
    cards = [HandCard(c, 0.9, False, (100 + 60 * i, 700, 140 + 60 * i, 756)) for i, c in enumerate(near)]
    cards += [HandCard(c, 0.9, False, (100 + 60 * i, 200, 140 + 60 * i, 256)) for i, c in enumerate(far)]
    record_scan(kiosk, ScanResult(BOTH, tuple(cards), (), 1000, 1000, jpeg=b"jpeg"))
    flow = kiosk.seep
    assert flow.codes() == {"A": near, "B": far}
    assert flow.missing() == ("AC",)  # the 100-point check on every deal, from one photo
    view = seep_view(flow)
    assert [r.total for r in view.rows] == [15 + 1 + 6 + 13, 6 + 7 + 8 + 9 + 10 + 11 + 12 + 1]
    kiosk.swap_halves()  # the piles lay the other way round
    assert kiosk.seep.codes() == {"A": far, "B": near}
    assert kiosk.seep.halves.seats[0][1] < 0.5  # kept for the next photo


def test_seats_are_kept_for_the_night_and_refused_when_they_do_not_fit(kiosk: Kiosk) -> None:
    start(kiosk)
    with pytest.raises(KioskError, match="3 seats for 4 players"):
        kiosk.set_seats(layout(3))
    kiosk.set_seats(layout(4, "square", "left"))
    first = kiosk.seat_map()
    kiosk.close()
    start(kiosk)  # the next game of the night with as many players sits the same way
    assert not kiosk.seats_needed and kiosk.seat_map() == first
    assert kiosk.jhyap.seat_map == first


def test_the_round_draft_keeps_the_table_cards_seats_and_guessed_caller(kiosk: Kiosk, tmp_path: Path) -> None:
    start(kiosk)
    kiosk.set_seats(layout(4))
    record_scan(kiosk, table_photo([["AS", "2H"], ["KS", "QH"], ["10D", "JC"], ["5C", "6D"]], ["7H"]))
    again = Kiosk(Store(tmp_path))
    assert kiosk.game is not None
    again.open(kiosk.game.id)
    flow = again.jhyap
    assert [c.code for c in flow.table_cards] == ["7H"]
    assert flow.caller == "Asha" and flow.caller_guessed and flow.seated


def test_every_card_of_a_hand_fits_its_row_without_scrolling() -> None:
    # Five cards in a landscape row (about 330 px beside the name and total): one line, no shrinking.
    assert fit_chips(5, 330, 60, 62) == (62, 56, 5)
    # Seven in a row with room for one line: narrower chips, all on it.
    w, h, per = fit_chips(7, 330, 60, 62)
    assert per == 7 and 7 * w + 6 * 4 <= 330 and w < 62
    # Seven in a taller row: two lines of fingertip-wide chips.
    w, h, per = fit_chips(7, 330, 100, 62)
    assert per == 4 and w >= 48 and 2 * h + 4 <= 100
    # A Seep pile of 17 point cards in a taller row: two lines of finger-sized chips.
    w, h, per = fit_chips(17, 330, 120, 62)
    assert per * 2 >= 17 and w >= 30 and h >= 40
    # No room at all: as narrow as it takes, on one line, nothing hidden.
    w, h, per = fit_chips(30, 330, 50, 62)
    assert per == 30 and w * 30 <= 330


def test_a_joker_in_a_seep_photo_is_shown_and_refused_not_a_crash(kiosk: Kiosk) -> None:
    start(kiosk, "seep")
    cards = (
        HandCard("JK", 0.9, False, (100, 700, 140, 756)),
        HandCard("AS", 0.9, False, (100, 200, 140, 256)),
    )
    record_scan(kiosk, ScanResult(BOTH, cards, (), 1000, 1000, jpeg=b"jpeg"))
    view = seep_view(kiosk.seep)
    assert view.rows[0].total is None and view.rows[1].total == 1
    assert "joker" in kiosk.seep.problems()[0].lower()
