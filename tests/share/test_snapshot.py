"""What the phones see is the kiosk's board, of tonight only, and nothing private."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.share.conftest import PLAYERS, ROUND1, ROUND2, play
from ui import i18n
from ui.devtools.shots import sample_night
from ui.logic import boards
from ui.logic.kiosk import Kiosk
from ui.share.snapshot import snapshot
from ui.store import Store


def test_jhyap_view_is_the_boards_totals_dealer_starter_and_last_round(kiosk: Kiosk) -> None:
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "<b>Bo</b>", ROUND2)
    view = snapshot(kiosk.store, kiosk.game.id)["game"]
    board = boards.jhyap_board(kiosk.log)
    result = boards.jhyap_round_result(kiosk.log)
    players = view["jhyap"]["players"]
    assert [(p["name"], p["total"], p["to_go"], p["out"]) for p in players] == [
        (r.name, r.total, r.to_go, r.eliminated) for r in board.rows
    ]
    assert [p["name"] for p in players if p["deals"]] == [r.name for r in board.rows if r.is_dealer]
    assert [p["name"] for p in players if p["starts"]] == [r.name for r in board.rows if r.is_starter]
    last = view["jhyap"]["last"]
    assert last["number"] == 2 and last["caller"] == "<b>Bo</b>" and last["headline"] == result.headline
    assert {line["name"]: line["hand"] for line in last["lines"]} == {r.name: r.hand for r in result.lines}
    assert [c["code"] for c in last["lines"][0]["cards"]] == ROUND2["Asha"]
    assert view["jhyap"]["next"] == result.next_text
    assert view["chart"] == {"series": board.series, "limit": 200}


def test_seep_view_is_the_boards_teams_lead_and_baazis(tmp_path: Path) -> None:
    store = Store(tmp_path)
    kiosk = sample_night(store)
    seep = store.tonight()[0]
    kiosk.open(seep.id)
    view = snapshot(store, kiosk.game.id)["game"]
    board = boards.seep_board(seep.log())
    deal = boards.seep_deal_result(seep.log())
    assert view["kind"] == "seep" and view["seep"]["lead_text"] == board.lead_text
    assert [(t["name"], t["baazis"], t["leading_by"]) for t in view["seep"]["teams"]] == [
        (boards.team_name(seep.log(), t.team), t.baazis, t.leading_by) for t in board.teams
    ]
    assert sum(t["baazis"] for t in view["seep"]["teams"]) == 1  # the third deal won a baazi
    assert view["seep"]["last"]["baazi_text"] == deal.baazi_text
    assert [(x["name"], x["cards"], x["sweeps"], x["points"]) for x in view["seep"]["last"]["lines"]] == [
        tuple(line) for line in deal.lines
    ]
    store.close()


def test_tonight_lists_tonights_games_and_standings_only(tmp_path: Path) -> None:
    now = [dt.datetime(2026, 12, 4, 21, 0)]
    store = Store(tmp_path, clock=lambda: now[0])
    old = Kiosk(store)
    form = old.new_form("jhyap")
    for name in ["Yesterday", "Someone"]:
        form.add(name)
    old.start(form)
    now[0] = dt.datetime(2026, 12, 5, 20, 0)  # the next evening
    sample_night(store, jhyap_rounds=1)
    data = snapshot(store, None)
    text = json.dumps(data, ensure_ascii=False)
    assert "Yesterday" not in text
    assert [g["kind"] for g in data["tonight"]["games"]] == ["jhyap", "seep"]  # newest first
    assert [s["name"] for s in data["tonight"]["standings"]] == [
        s.name for s in boards.standings(store.tonight())
    ]
    assert data["night"] == "2026-12-05"
    assert data["game"]["kind"] == "jhyap" and data["game"]["status"] == "playing"
    store.close()


def test_no_photos_scans_or_drafts_reach_the_phones(kiosk: Kiosk) -> None:
    kiosk.store.add_scan(kiosk.game.id, 1, "table", b"\xff\xd8fake", {"cards": ["AS"]})
    play(kiosk, "Asha", ROUND1)
    text = json.dumps(snapshot(kiosk.store, kiosk.game.id))
    for private in ("photo", "scan", ".jpg", "draft", str(kiosk.store.data_dir)):
        assert private not in text


def test_without_an_open_game_the_phones_follow_tonights_game_in_play(kiosk: Kiosk) -> None:
    play(kiosk, "Asha", ROUND1)
    game_id = kiosk.game.id
    kiosk.close()
    data = snapshot(kiosk.store, None)
    assert data["game"]["id"] == game_id
    assert [p["name"] for p in data["game"]["jhyap"]["players"]] != []
    assert set(PLAYERS) == {p["name"] for p in data["game"]["jhyap"]["players"]}


@pytest.mark.usefixtures("locale")
def test_numbers_stay_numbers_and_the_digits_are_the_kiosks(kiosk: Kiosk) -> None:
    play(kiosk, "Asha", ROUND1)
    western = snapshot(kiosk.store, kiosk.game.id)
    assert western["digits"] == "0123456789"
    kiosk.set_digits(i18n.DEVANAGARI)
    devanagari = snapshot(kiosk.store, kiosk.game.id)
    assert devanagari["digits"] == "०१२३४५६७८९"
    # The page writes the numbers; the snapshot keeps them numbers, the same in either digits.
    assert devanagari["game"]["jhyap"]["players"] == western["game"]["jhyap"]["players"]
    assert devanagari["game"]["chart"] == western["game"]["chart"]
