"""A short run of the load test (`python -m ui.devtools.loadtest` runs the full minute with 32 phones)."""

from __future__ import annotations

import pytest

from ui.devtools.loadtest import report, run

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_every_phone_gets_every_round_quickly_without_slowing_the_kiosk() -> None:
    result = run(clients=8, seconds=4.0, every=0.5, busy_clients=4, tap_rounds=4)
    assert result["all_connected"] and result["connected"] == 8
    assert result["rounds"] >= 4
    assert result["events_delivered"] == result["events_expected"] == 8 * result["rounds"]
    assert result["dropped"] == 0
    assert result["delay_ms"]["p95"] < 1000
    assert result["memory_mib"]["end"] - result["memory_mib"]["before_server"] < 64
    text = report(result)
    assert "events delivered: " in text and "tap to result: no phones median" in text
