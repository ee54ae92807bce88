"""The Seep deal's sweep buttons hold a deal's physical limits, as the scorer states them: both teams
together sweep at most on every other play (24 of a deal's 48), the first and the last play once, and only
a team that took cards can have swept. A refusal at scoring is told in the players' words."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scorer import POINT_CARDS
from tests.ui.headless import ROOT, headless_env, result_line
from ui.logic import games
from ui.logic.rule_messages import explain
from ui.logic.scan import HandCard
from ui.logic.seep_deal import SeepDealFlow


def seep_deal() -> SeepDealFlow:
    return SeepDealFlow(games.new_seep_log({"A": ["Asha", "Chandra"], "B": ["Bikash", "Dipa"]}, {}))


def test_no_sweep_button_once_half_the_plays_have_swept() -> None:
    flow = seep_deal()
    for n in range(24):
        assert flow.can_sweep("A" if n % 2 else "B")
        flow.add_sweep("A" if n % 2 else "B")
    assert not any(flow.can_sweep(team, kind) for team in "AB" for kind in games.SWEEP_KINDS)
    flow.undo_sweep()
    assert flow.can_sweep("A") and flow.can_sweep("B", "last")


def test_the_first_and_the_last_play_sweep_once_whichever_team() -> None:
    flow = seep_deal()
    flow.add_sweep("A", "first")
    assert not flow.can_sweep("A", "first") and not flow.can_sweep("B", "first")
    assert flow.can_sweep("B", "last")
    flow.add_sweep("B", "last")
    assert not flow.can_sweep("A", "last") and flow.can_sweep("A", "normal")


def test_a_team_whose_pile_is_empty_cannot_have_swept() -> None:
    flow = seep_deal()
    flow.add_sweep("A")
    flow.captured["A"] = []  # A's pile read: no card
    flow.captured["B"] = [HandCard(code=c.code) for c in sorted(POINT_CARDS)]
    assert not flow.can_sweep("A") and flow.can_sweep("B")
    assert flow.problems() == ["Team A has a sweep but took no cards: a sweep takes the cards on the table."]
    flow.undo_sweep()
    assert flow.problems() == []


def test_an_old_deal_with_too_many_sweeps_is_told_in_the_players_words() -> None:
    message = (
        "deal 2: 25 sweeps (team A 13, team B 12), but a deal has at most 24: a sweep empties the table, so "
        "the next play cannot sweep, and a deal has 48 plays"
    )
    assert explain(message) == "25 sweeps in one deal, but at most 24 fit: after a sweep the table is empty."


SCREEN = """
import json, sys
from pathlib import Path
from ui.commands.kiosk import configure_kivy
configure_kivy((800, 480))
from kivy.clock import Clock
from kivy.core.window import Window
from ui.app import TableTallyApp
from ui.logic import games
from ui.logic.kiosk import Kiosk
from ui.store import Store
from ui.widgets.basic import Btn
store = Store(Path(sys.argv[1]))
Kiosk(store).set_language("en")
game = store.create_game("seep", games.new_seep_log({"A": ["Asha", "Chandra"], "B": ["Bikash", "Dipa"]}, {}))
app = TableTallyApp(store, camera="demo")
seen = {}
def buttons():
    stack, found = list(Window.children), {}
    while stack:
        w = stack.pop()
        if isinstance(w, Btn) and str(w.name).startswith("sweep-"):
            found[w.name] = not w.disabled
        stack.extend(w.children)
    return found
def look(_dt):
    app.open_game(game)
    seen["screen"] = app.current
    flow = app.kiosk.seep
    flow.add_sweep("A", "first")
    app.refresh()
    seen["after_first"] = buttons()
    for n in range(23):
        flow.add_sweep("B" if n % 2 else "A")
    app.refresh()
    seen["after_24"] = buttons()
    app.stop()
Clock.schedule_once(lambda _dt: Clock.schedule_once(look, 0.5), 0.5)
app.run()
app.scanner.settle()
print("SEEN " + json.dumps(seen))
"""


def test_the_deal_screens_sweep_buttons_follow_the_limits(tmp_path: Path) -> None:
    """The real (headless) kiosk: after a first-play sweep no first-play button is on; after 24 sweeps no
    sweep button is on."""
    proc = subprocess.run(
        [sys.executable, "-c", SCREEN, str(tmp_path / "data")],
        cwd=ROOT,
        env=headless_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    seen = result_line(proc.stdout, "SEEN ")
    assert seen["screen"] == "seep_deal", proc.stderr[-2000:]
    on = seen["after_first"]
    assert on["sweep-A"] and on["sweep-B"] and on["sweep-last-A"]
    assert not on["sweep-first-A"] and not on["sweep-first-B"]
    assert len(seen["after_24"]) == 6 and not any(seen["after_24"].values())
