"""Watching the table while a round waits for its cards: the live view's words and the automatic scan.

The round's screen shows what the camera sees, a few frames a second (the camera's small stream:
``vision.cameras``), with the seats drawn over it, and :class:`RoundWatch` feeds each frame to a
:class:`vision.table.watch.TableWatcher` told where the seats' cards lie. When every seat shows cards and the
table has held still for a second, the kiosk takes the photo and reads it as if Scan had been tapped; the
cards then wait for the players' Score (nothing is ever scored by itself).

What is watched for (:func:`watch_target`): a Jhyap round with seats, or a Seep deal's two piles, that is not
an earlier round being edited and whose cards the players have not fixed or typed (a reading then would
undo their work: they tap Scan again if they want one). A tap on Scan tells the watcher the table as it
lies was read. An automatic reading that finds fewer cards than seats (a light card back dealt face down,
say) is not shown: the round keeps waiting. "Watch the table" in Settings switches it off (on by default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ui.i18n import N_, _
from ui.logic.jhyap_round import TABLE, JhyapRoundFlow
from ui.logic.seep_deal import BOTH, SeepDealFlow

if TYPE_CHECKING:
    from ui.logic.kiosk import Kiosk
    from ui.logic.scan import ScanResult
    from ui.store import Store
    from vision.table.watch import Region, TableWatcher

WATCH_SETTING = "watch_table"  # "on" (the default) or "off"
LIVE_SECONDS = 0.25  # how often the live view takes a frame of the small stream while the round waits
WAITING = N_("Waiting for the cards")
HOLD = N_("Hold still\u2026")
READING = N_("Reading\u2026")


def watching_on(store: Store) -> bool:
    """Whether the kiosk watches the table and reads the cards by itself (Settings; on by default)."""
    return store.setting(WATCH_SETTING, "on") != "off"


def set_watching(store: Store, on: bool) -> None:
    store.set_setting(WATCH_SETTING, "on" if on else "off")


@dataclass(frozen=True)
class WatchTarget:
    """What the round on screen waits for: where the seats' cards lie (fractions of the frame), the scan
    to start when they are down (its target, hands and decks, as the Scan button would), and the seats'
    points and the table's centre (drawn over the live view)."""

    regions: tuple[Region, ...]
    target: str
    n_hands: int
    decks: int | None
    seats: tuple[tuple[float, float], ...]
    centre: tuple[float, float]


def _touched(piles: Any) -> bool:
    """Whether the players fixed or typed any card of these piles (owner -> cards or None)."""
    return any(card.fixed for cards in piles.values() if cards for card in cards)


def watch_target(kiosk: Kiosk) -> WatchTarget | None:
    """What the round on screen waits for (module docstring), or None when nothing is to be read by itself."""
    from ui.logic.kiosk import ROUND
    from vision.table.watch import seat_regions

    flow = kiosk.flow
    if kiosk.screen != ROUND or flow is None or flow.edit_position is not None:
        return None
    if isinstance(flow, JhyapRoundFlow):
        seats = flow._active_seats()  # the night's seats of the players still in
        if seats is None or _touched(flow.hands) or any(c.fixed for c in flow.table_cards):
            return None
        target, n_hands = TABLE, len(flow.active)
    elif isinstance(flow, SeepDealFlow):
        seats = flow.halves
        if _touched(flow.piles):
            return None
        target, n_hands = BOTH, 2
    else:
        return None
    regions = seat_regions(seats.seats, seats.centre, seats.middle)
    return WatchTarget(regions, target, n_hands, flow.decks, seats.seats, seats.centre)


class RoundWatch:
    """The watcher of the round on screen and the words the live view shows (:meth:`words`)."""

    def __init__(self) -> None:
        self._watcher: TableWatcher | None = None
        self._regions: tuple[tuple[float, ...], ...] | None = None
        self._words = ""
        self.auto_scan = False  # the scan in progress was started by the watcher

    def words(self) -> str:
        """What the live view says now, in the language in use ("" for nothing)."""
        return _(self._words) if self._words else ""

    def look(self, frame: Any, t: float, target: WatchTarget | None) -> bool:
        """Judge a frame of the small stream taken at ``t`` (seconds); True when the cards are to be read
        now (the caller starts the scan and then calls :meth:`reading`)."""
        from vision.table.watch import TableWatcher, WatchState

        if target is None:
            self._words = ""
            return False
        # The same table from round to round (the seats come back from the record rounded): one watcher,
        # which knows the table it read and the empty table it learnt.
        regions = tuple(tuple(round(v, 3) for v in r) for r in target.regions)
        if self._watcher is None or regions != self._regions:
            self._watcher, self._regions = TableWatcher(target.regions), regions
        look = self._watcher.feed(frame, t)
        if look.state is WatchState.HOLD:
            self._words = HOLD
        elif look.state is WatchState.WAITING:
            self._words = WAITING
        elif look.state is WatchState.READ:
            self._words = ""
        return look.scan

    def reading(self) -> None:
        """The automatic scan has begun."""
        self.auto_scan = True
        self._words = READING

    def tapped(self) -> None:
        """The players tapped a scan: the table as it lies now was read, and not to be read again by
        itself until it changes."""
        self.auto_scan = False
        if self._watcher is not None:
            self._watcher.read_now()

    def keep(self, result: ScanResult, target: WatchTarget | None) -> bool:
        """Whether a scan's result goes into the round: always for a tapped scan; for an automatic one,
        when it read at least as many cards as there are seats (else the round keeps waiting, quietly)."""
        auto, self.auto_scan = self.auto_scan, False
        self._words = ""
        if not auto:
            return True
        seats = len(target.regions) if target is not None else 1
        return not result.camera_failed and len(result.cards) >= seats
