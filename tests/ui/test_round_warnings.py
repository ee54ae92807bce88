"""What the round and deal screens warn of, one truth each: every hand over the hand limit named, a team's
sweeps counted the same on its buttons and its pile's row, a joker in a Seep pile marked and said, and a
reason ending in a danda not given a second full stop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from scorer import POINT_CARDS
from ui import i18n
from ui.logic import games
from ui.logic.check import seep_view
from ui.logic.jhyap_round import JhyapRoundFlow
from ui.logic.scan import HandCard, _camera_message
from ui.logic.seep_deal import SeepDealFlow
from vision.cameras import CameraError

LOCALE = Path(__file__).resolve().parents[2] / "ui" / "locale"


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    i18n.set_language("en")


def jhyap_round(hands: dict[str, list[str]], caller: str) -> JhyapRoundFlow:
    flow = JhyapRoundFlow(games.new_jhyap_log(list(hands), None, None, {}))
    for player, codes in hands.items():
        flow.type_cards(player, codes)
    flow.pick_caller(caller)
    return flow


def seep_deal() -> SeepDealFlow:
    return SeepDealFlow(games.new_seep_log({"A": ["Asha", "Chandra"], "B": ["Bikash", "Dipa"]}, {}))


def test_every_hand_over_the_hand_limit_is_named() -> None:
    six_spades = ["AS", "2S", "3S", "4S", "5S", "6S"]
    six_hearts = ["AH", "2H", "3H", "4H", "5H", "6H"]
    flow = jhyap_round(
        {"Asha": six_spades, "Bikash": ["KS"], "Chandra": ["KH"], "Dipa": six_hearts}, "Bikash"
    )
    problem = flow.problems()[0]
    assert problem.startswith("These hands hold more than the hand limit of 5: Asha 6 cards, Dipa 6 cards.")
    # One hand over: the sentence the scorer's refusal is told in, naming that hand.
    flow = jhyap_round({"Asha": six_spades, "Bikash": ["KS"], "Chandra": ["KH"]}, "Bikash")
    assert flow.problems()[0].startswith("Asha's hand holds 6 cards, over the hand limit of 5.")


def test_a_teams_sweeps_are_one_count() -> None:
    flow = seep_deal()
    flow.add_sweep("B", "first")
    assert flow.sweep_counts("B") == {"first": 1, "normal": 0, "last": 0}
    assert flow.sweep_total("B") == 1 and flow.sweep_total("A") == 0
    flow.add_sweep("B", "normal")
    flow.add_sweep("B", "last")
    assert flow.sweep_total("B") == 3
    entry = flow.entry()
    assert sum(1 for s in entry["sweeps"] if s["team"] == "B") == flow.sweep_total("B")


def test_a_joker_in_a_seep_pile_is_marked_and_said_even_with_a_point_card_missing() -> None:
    flow = seep_deal()
    points = [c.code for c in sorted(POINT_CARDS)]
    # The camera read the six of spades as a joker: both piles scanned, a point card missing.
    flow.captured["A"] = [HandCard(code=c) for c in points[:5]] + [HandCard(code="JK")]
    flow.captured["B"] = [HandCard(code=c) for c in points[6:]]
    assert flow.jokers() == ("A",)
    assert flow.missing() == (points[5],)
    assert flow.problems() == ["Team A has a joker, but Seep is played without jokers."]
    marks = seep_view(flow).row("A").cards
    assert [m.code for m in marks if m.flagged] == ["JK"]
    flow.set_card("A", 5, points[5])  # fixed: nothing flagged, nothing to say
    assert flow.jokers() == () and flow.problems() == []
    assert not any(m.flagged for m in seep_view(flow).row("A").cards)


@pytest.mark.parametrize("lang", ["ne", "hi"])
def test_the_camera_failed_line_has_one_full_stop_in_nepali_and_hindi(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    po = LOCALE / lang / "LC_MESSAGES" / "tabletally.po"
    mo = tmp_path / lang / "LC_MESSAGES" / "tabletally.mo"
    mo.parent.mkdir(parents=True)
    with po.open("rb") as src, mo.open("wb") as out:
        write_mo(out, read_po(src))
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.set_language(lang)
    line = _camera_message(CameraError("photo folder /nonexistent/camera does not exist"))
    assert "\u0964." not in line and ".." not in line, line
    assert "\u0964" in line  # the reason was translated, and ends in the danda
