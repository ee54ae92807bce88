"""A kiosk with tonight's games and the phones' server on loopback (a free port)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ui import i18n
from ui.logic.kiosk import Kiosk
from ui.share.server import ShareServer
from ui.store import Store

PLAYERS = ["Asha", "<b>Bo</b>", "बिकास"]


@pytest.fixture
def locale() -> Iterator[None]:
    """A test that changes the kiosk's language or digits leaves English and Western digits behind."""
    yield
    i18n.set_language(i18n.DEFAULT_LANGUAGE)
    i18n.set_digits(i18n.WESTERN)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "data")
    yield s
    s.close()


@pytest.fixture
def kiosk(store: Store) -> Kiosk:
    """A Jhyap game of three players (one name is HTML, one Devanagari), no round yet."""
    k = Kiosk(store)
    form = k.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    k.start(form)
    return k


@pytest.fixture
def server(store: Store, kiosk: Kiosk) -> Iterator[ShareServer]:
    s = ShareServer(
        store, lambda: kiosk.game.id if kiosk.game else None, port=0, host="127.0.0.1", debounce=0.05
    )
    kiosk.listeners.append(s.notify)
    s.start()
    yield s
    s.stop()


def play(kiosk: Kiosk, caller: str, hands: dict[str, list[str]]) -> None:
    flow = kiosk.jhyap
    flow.pick_caller(caller)
    for player, cards in hands.items():
        flow.type_hand(player, cards)
    kiosk.confirm()
    kiosk.next_round()


ROUND1 = {"Asha": ["AS", "2H"], "<b>Bo</b>": ["KS", "QH"], "बिकास": ["5C", "6D"]}  # Asha calls at 3
ROUND2 = {"Asha": ["9S", "9H"], "<b>Bo</b>": ["AC"], "बिकास": ["KD", "QD"]}  # Bo calls at 1
