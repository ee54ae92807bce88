"""A scan put into the kiosk's round in one go, for the tests of the kiosk's logic.

The app does the same in three steps across two threads (ui.app: :meth:`Kiosk.show_scan` on the kiosk's
thread, :meth:`Kiosk.keep_scan` on a thread of its own, :meth:`Kiosk.scan_kept` back on the kiosk's
thread); here they run one after the other, as if the keeping thread had finished at once.
"""

from __future__ import annotations

from ui.logic.kiosk import Kiosk
from ui.logic.scan import ScanResult


def record_scan(kiosk: Kiosk, result: ScanResult) -> None:
    """Keep the scan (photo + what was read) and put its cards into the round, all at once; a scan without
    a photo (the camera's message on the round) only saves the draft, as the app does."""
    shown = kiosk.show_scan(result)
    if shown is None:
        kiosk.save()
        return
    kiosk.keep_scan(shown)
    kiosk.scan_kept(shown)
