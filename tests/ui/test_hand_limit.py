"""A sixth card in a Jhyap hand: the kiosk marks the card most likely not held and asks before scoring."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.kiosk_scans import record_scan
from ui.logic.check import jhyap_view
from ui.logic.jhyap_round import TABLE
from ui.logic.kiosk import Kiosk, KioskError
from ui.logic.scan import HandCard, ScanResult
from ui.store import Store

PLAYERS = ["Asha", "Bikash", "Chandra"]


@pytest.fixture
def kiosk(tmp_path: Path) -> Kiosk:
    kiosk = Kiosk(Store(tmp_path))
    form = kiosk.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    return kiosk


def scan_for(player: str, codes: list[str], confidences: list[float]) -> ScanResult:
    cards = tuple(
        HandCard(code, conf, conf < 0.5, (40 * i, 0, 40 * i + 30, 50))
        for i, (code, conf) in enumerate(zip(codes, confidences, strict=True))
    )
    return ScanResult(player, cards, (tuple(range(len(cards))),), 400, 100, jpeg=b"jpeg")


def test_a_sixth_card_is_marked_and_the_round_waits_for_the_players(kiosk: Kiosk) -> None:
    flow = kiosk.jhyap
    flow.mode = TABLE
    record_scan(
        kiosk, scan_for("Asha", ["AS", "2S", "3S", "4S", "KH", "5S"], [0.9, 0.9, 0.9, 0.9, 0.35, 0.9])
    )
    flow = kiosk.jhyap
    flow.type_hand("Bikash", ["AH"])
    flow.type_hand("Chandra", ["KD", "QD"])
    flow.pick_caller("Bikash")

    assert flow.extra_cards("Asha") == {4}  # the king the camera was least sure of
    marks = jhyap_view(flow).row("Asha").cards
    assert [m.flagged for m in marks] == [False, False, False, False, True, False]
    problems = flow.problems()
    assert problems[0].startswith("Asha's hand holds 6 cards, over the hand limit of 5. Is a card from the")
    assert "Remove the marked card" in problems[0]
    with pytest.raises(KioskError, match="hand limit"):
        kiosk.confirm()
    assert kiosk.game is not None and not kiosk.store.game(kiosk.game.id).entries  # nothing scored

    flow.remove_card("Asha", 4)
    assert flow.extra_cards("Asha") == frozenset()
    assert flow.problems() == []
    kiosk.confirm()
    assert len(kiosk.store.game(kiosk.game.id).entries) == 1


def test_with_all_cards_equally_sure_the_last_read_is_marked(kiosk: Kiosk) -> None:
    flow = kiosk.jhyap
    flow.type_hand("Asha", ["AS", "2S", "3S", "4S", "5S", "6S", "7S"])
    assert flow.extra_cards("Asha") == {5, 6}


def test_a_house_limit_of_six_takes_six_cards(tmp_path: Path) -> None:
    kiosk = Kiosk(Store(tmp_path))
    form = kiosk.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    assert "hand_limit" in [f.name for f in form.fields]
    form.rules["hand_limit"] = 6
    kiosk.start(form)
    flow = kiosk.jhyap
    flow.type_hand("Asha", ["AS", "2S", "3S", "4S", "5S", "6S"])
    flow.type_hand("Bikash", ["AH"])
    flow.type_hand("Chandra", ["KD"])
    flow.pick_caller("Bikash")
    assert flow.extra_cards("Asha") == frozenset()
    assert flow.problems() == []
