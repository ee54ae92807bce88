"""The round's watching logic (ui.logic.watching): what the round on screen waits for, the live view's words,
the automatic scan once, the Settings switch, and the caller preselected after a reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.kiosk_scans import record_scan
from ui.i18n import set_language
from ui.logic.jhyap_round import TABLE
from ui.logic.kiosk import Kiosk
from ui.logic.scan import HandCard, ScanResult
from ui.logic.seep_deal import BOTH
from ui.logic.watching import (
    HOLD,
    WAITING,
    RoundWatch,
    set_watching,
    watch_target,
    watching_on,
)
from ui.store import Store
from vision.devtools.table_film import Renderer, laying_film
from vision.table.seats import layout

PLAYERS = ["Asha", "Bikash", "Chandra", "Dipa"]


@pytest.fixture
def kiosk(tmp_path: Path) -> Kiosk:
    set_language("en")
    return Kiosk(Store(tmp_path))


def start(kiosk: Kiosk, kind: str = "jhyap") -> None:
    form = kiosk.new_form(kind)
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    if kind == "jhyap":
        kiosk.set_seats(layout(4))


def test_watching_is_on_until_switched_off(kiosk: Kiosk) -> None:
    assert watching_on(kiosk.store)
    set_watching(kiosk.store, False)
    assert not watching_on(kiosk.store)
    set_watching(kiosk.store, True)
    assert watching_on(kiosk.store)


def test_a_jhyap_round_waits_for_every_seat_until_the_players_fix_a_card(kiosk: Kiosk) -> None:
    start(kiosk)
    target = watch_target(kiosk)
    assert target is not None
    assert target.target == TABLE and target.n_hands == 4 and len(target.regions) == 4
    assert target.seats == layout(4).seats
    kiosk.jhyap.type_hand("Asha", ["AS", "2H"])  # the players typed a hand: a reading would undo it
    assert watch_target(kiosk) is None


def test_no_watching_without_seats_or_while_an_earlier_round_is_edited(kiosk: Kiosk) -> None:
    form = kiosk.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    assert watch_target(kiosk) is None  # no seats yet: the kiosk asks for them first
    kiosk.set_seats(layout(4))
    flow = kiosk.jhyap
    flow.pick_caller("Asha")
    for player, cards in zip(PLAYERS, [["AS"], ["KS", "QH"], ["10D", "JC"], ["5C", "6D"]], strict=True):
        flow.type_hand(player, cards)
    kiosk.confirm()
    kiosk.next_round()
    assert watch_target(kiosk) is not None
    kiosk.edit(0)
    assert watch_target(kiosk) is None


def test_a_seep_deal_waits_for_both_piles(kiosk: Kiosk) -> None:
    start(kiosk, "seep")
    target = watch_target(kiosk)
    assert target is not None and target.target == BOTH and target.n_hands == 2 and len(target.regions) == 2


def test_the_watch_says_waiting_then_hold_still_and_scans_once(kiosk: Kiosk) -> None:
    start(kiosk)
    target = watch_target(kiosk)
    assert target is not None
    hands = [["AS", "2H"], ["KS", "QH", "9C"], ["10D", "JC", "8S"], ["5C", "6D"]]
    film = laying_film(hands, target.seats, target.centre)
    renderer = Renderer(film)
    watch = RoundWatch()
    words, scans = [], []
    for i, t in enumerate(film.times()):
        if watch.look(renderer.small(i), t, target):
            scans.append(i)
            watch.reading()
        words.append(watch.words())
    assert scans == film.expected_scans()
    assert words[0] == WAITING and HOLD in words[film.start_of("still") :]
    assert words[scans[0]] == "Reading\u2026"
    # the round's result: kept when it read a card for every seat, an empty reading quietly dropped
    assert watch.keep(ScanResult(TABLE, tuple(HandCard("AS") for _ in range(4))), target)
    watch.reading()
    assert not watch.keep(ScanResult(TABLE, ()), target)
    assert watch.words() == ""
    assert watch.keep(ScanResult(TABLE, ()), target)  # a tapped scan is always the players' to see


def test_a_reading_with_one_hand_at_the_call_limit_preselects_its_player(kiosk: Kiosk) -> None:
    start(kiosk)
    seats = layout(4).seats
    cards = []
    for (x, y), hand in zip(seats, [["AS", "2H"], ["KS", "QH"], ["10D", "JC"], ["5C", "6D"]], strict=True):
        for j, code in enumerate(hand):
            cx, cy = (0.5 + (x - 0.5) * 0.7) * 1000 + 30 * j, (0.5 + (y - 0.5) * 0.7) * 1000
            cards.append(HandCard(code, 0.9, False, (cx, cy, cx + 25, cy + 35)))
    record_scan(kiosk, ScanResult(TABLE, tuple(cards), (), 1000, 1000, jpeg=b"jpeg"))
    flow = kiosk.jhyap
    assert flow.caller == "Asha" and flow.caller_guessed  # only Asha's 3 is at or under the call limit
    assert flow.ready  # the round waits for Score alone


def test_the_table_read_for_one_round_is_not_read_again_for_the_next(kiosk: Kiosk) -> None:
    """The next round's screen opens while the scored cards still lie there (its seats come back from the
    record, rounded): the same still table is not read again; cleared and laid again, it is."""
    start(kiosk)
    first = watch_target(kiosk)
    assert first is not None
    hands = [["AS", "2H"], ["KS", "QH", "9C"], ["10D", "JC", "8S"], ["5C", "6D"]]
    film = laying_film(hands, first.seats, first.centre)
    frames = [Renderer(film).small(i) for i in range(film.length)]
    watch = RoundWatch()
    scans = [i for i, t in enumerate(film.times()) if watch.look(frames[i], t, first)]
    assert scans == film.expected_scans()
    flow = kiosk.jhyap
    flow.pick_caller("Asha")
    for player, cards in zip(PLAYERS, hands, strict=True):
        flow.type_hand(player, cards)
    kiosk.confirm()
    kiosk.next_round()
    second = watch_target(kiosk)
    assert second is not None and second.regions != first.regions  # the seats as the record keeps them
    t = film.times()[-1]
    for k in range(12):  # the scored cards still on the table
        assert not watch.look(frames[-1], t + 1 + k / 4, second)
    again = [i for i, ti in enumerate(film.times()) if watch.look(frames[i], t + 10 + ti, second)]
    assert again == film.expected_scans()  # cleared, then laid again: read once
