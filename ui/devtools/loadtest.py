"""Load test of the phones' scoreboard on loopback: many phones follow the live stream while the kiosk
confirms rounds, and the kiosk's own tap-to-result is timed with and without phones connected, in one run.

    python -m ui.devtools.loadtest                          # 32 phones for 60 s, a round every second
    python -m ui.devtools.loadtest --clients 8 --seconds 5  # a quick look

This process is the kiosk: its record, its :class:`~ui.logic.kiosk.Kiosk` and the real server in its
background thread. The phones are a second process (asyncio, one connection each, reading the server-sent
events as a browser does), so their work does not count as the kiosk's. Each round is confirmed on this
process's main thread as the kiosk's UI thread does it; "tap to result" is that call plus the result
screen's data (the scorer's round result and board), without Kivy's drawing.

It prints: events delivered (of those expected), the delay from each confirmation to each phone (median,
95th percentile, longest), phones dropped, the kiosk process's memory, and tap-to-result with no phones
against ``--busy-clients`` phones (alternating blocks of rounds, so the machine's load drifts over both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

PLAYERS = ["Asha", "बिकास", "Chandra", "Dipa", "Esha"]
HANDS = [["2C", "3D"], ["2H", "3S"], ["2D", "3C"], ["2S", "3H"], ["4C", "4D"]]  # one per seat; the caller: AS


# -- the phones (second process) ------------------------------------------------------------------------


async def _phone(port: int, arrivals: list[tuple[int, int, float]], stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        writer.close()
        return
    text = ""
    try:
        while not stop.is_set():
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                break
            text += (await reader.readexactly(size + 2))[:-2].decode()
            while "\r\n\r\n" in text:
                event, _, text = text.partition("\r\n\r\n")
                data = [line[6:] for line in event.split("\r\n") if line.startswith("data: ")]
                if "event: snapshot" in event and data:
                    game = json.loads("\n".join(data)).get("game") or {}
                    arrivals.append((int(game.get("id", 0)), int(game.get("entries", 0)), time.monotonic()))
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _phones(port: int, count: int, control: Connection) -> list[list[tuple[int, int, float]]]:
    stop = asyncio.Event()
    arrivals: list[list[tuple[int, int, float]]] = [[] for _ in range(count)]
    tasks = [asyncio.create_task(_phone(port, arrivals[i], stop)) for i in range(count)]
    await asyncio.get_running_loop().run_in_executor(None, control.recv)  # "stop"
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return arrivals


def _phones_process(port: int, count: int, control: Connection) -> None:
    arrivals = asyncio.run(_phones(port, count, control))
    control.send(arrivals)


class Phones:
    """``count`` phones in a child process; ``stop()`` returns every phone's (game, entries, arrival)."""

    def __init__(self, port: int, count: int) -> None:
        here, there = multiprocessing.get_context("spawn").Pipe()
        self.control = here
        self.process = multiprocessing.get_context("spawn").Process(
            target=_phones_process, args=(port, count, there), daemon=True
        )
        self.process.start()

    def stop(self) -> list[list[tuple[int, int, float]]]:
        self.control.send("stop")
        arrivals: list[list[tuple[int, int, float]]] = self.control.recv()
        self.process.join(10)
        return arrivals


# -- the kiosk (this process) ------------------------------------------------------------------------------


def rss_mib() -> tuple[float, float]:
    """This process's resident memory now and at its peak, in MiB (Linux /proc)."""
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


@dataclass
class Table:
    """Jhyap games one after the other, ``rounds_per_game`` rounds each (a game night's usual length; the
    scorer replays the whole game for every result, so longer games cost more with or without phones),
    the caller going round the table."""

    kiosk: Any
    rounds_per_game: int = 15
    confirmed: dict[tuple[int, int], float] = field(default_factory=dict)
    turn: int = 0

    def start(self) -> None:
        form = self.kiosk.new_form("jhyap")
        for name in PLAYERS:
            form.add(name)
        self.kiosk.start(form)

    def round(self) -> float:
        """Confirm one round as the kiosk does; returns the tap-to-result time in seconds."""
        from ui.logic import boards
        from ui.store import GameStatus

        kiosk = self.kiosk
        game = kiosk.game
        if game is None or game.status is not GameStatus.PLAYING or len(game.entries) >= self.rounds_per_game:
            if game is not None and game.status is GameStatus.PLAYING:
                kiosk.end_game()
            self.start()
        flow = kiosk.jhyap
        active = list(flow.active)
        caller = active[self.turn % len(active)]
        self.turn += 1
        flow.pick_caller(caller)
        for player in active:
            flow.type_hand(player, ["AS"] if player == caller else HANDS[PLAYERS.index(player)])
        tapped = time.monotonic()
        kiosk.confirm()  # the scorer, the record, and (now) the phones told
        boards.jhyap_round_result(kiosk.log)
        boards.jhyap_board(kiosk.log)  # what the result and scores screens show
        took = time.monotonic() - tapped
        self.confirmed[(kiosk.game.id, len(kiosk.game.entries))] = tapped
        kiosk.next_round()
        return took


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(
    clients: int = 32, seconds: float = 60.0, every: float = 1.0, busy_clients: int = 20, tap_rounds: int = 20
) -> dict[str, Any]:
    from ui.logic.kiosk import Kiosk
    from ui.store import Store

    out: dict[str, Any] = {"clients": clients, "seconds": seconds, "every_s": every}
    with tempfile.TemporaryDirectory(prefix="tabletally-loadtest-") as folder:
        store = Store(Path(folder))
        kiosk = Kiosk(store)
        table = Table(kiosk)
        table.start()
        rss_before, _ = rss_mib()  # the kiosk's logic loaded, the web server not yet imported
        from ui.share.server import ShareServer, wait_for

        server = ShareServer(store, lambda: kiosk.game.id if kiosk.game else None, port=0, host="127.0.0.1")
        kiosk.listeners.append(server.notify)
        server.start()
        try:
            # 1. tap to result: blocks of rounds with no phones and with `busy_clients` phones, alternating.
            taps: dict[str, list[float]] = {"none": [], "busy": []}
            block = max(1, tap_rounds // 2)
            for _ in range(2):
                for label in ("none", "busy"):
                    phones = Phones(server.port, busy_clients) if label == "busy" else None
                    if phones is not None:
                        wait_for(lambda: server.stats()["clients"] == busy_clients, 30)
                    for _ in range(block):
                        taps[label].append(table.round())
                        time.sleep(0.25)  # the phones get the round before the next tap
                    if phones is not None:
                        phones.stop()
                        wait_for(lambda: server.stats()["clients"] == 0, 10)
            out["tap_to_result_ms"] = {
                label: {
                    "median": round(statistics.median(v) * 1000, 2),
                    "p90": round(_pct(v, 0.9) * 1000, 2),
                    "rounds": len(v),
                }
                for label, v in taps.items()
            }
            out["tap_busy_phones"] = busy_clients
            # 2. the load: `clients` phones for `seconds`, a round every `every` seconds.
            delivered_before = server.stats()["delivered"]
            phones = Phones(server.port, clients)
            connected = wait_for(lambda: server.stats()["clients"] == clients, 30)
            out["connected"] = server.stats()["clients"]
            rss_connected, _ = rss_mib()
            table.confirmed.clear()
            load_taps: list[float] = []
            started = time.monotonic()
            while time.monotonic() - started < seconds:
                load_taps.append(table.round())
                time.sleep(max(0.0, every - load_taps[-1]))
            time.sleep(1.5)  # the last round's events are on their way
            arrivals = phones.stop()
            rss_end, rss_peak = rss_mib()
            stats = server.stats()
        finally:
            server.stop()
            store.close()
    delays = []
    missing = 0
    for phone in arrivals:
        seen = {(game, entries): at for game, entries, at in phone}
        for key, tapped in table.confirmed.items():
            if key in seen:
                delays.append(seen[key] - tapped)
            else:
                missing += 1
    expected = clients * len(table.confirmed)
    out.update(
        all_connected=connected,
        rounds=len(table.confirmed),
        events_expected=expected,
        events_delivered=expected - missing,
        events_sent_by_server=stats["delivered"] - delivered_before,
        dropped=stats["dropped"],
        delay_ms={
            "median": round(statistics.median(delays) * 1000, 1) if delays else None,
            "p95": round(_pct(delays, 0.95) * 1000, 1) if delays else None,
            "longest": round(max(delays) * 1000, 1) if delays else None,
        },
        tap_to_result_under_load_ms={
            "median": round(statistics.median(load_taps) * 1000, 2),
            "p90": round(_pct(load_taps, 0.9) * 1000, 2),
        },
        memory_mib={
            "before_server": round(rss_before, 1),
            "phones_connected": round(rss_connected, 1),
            "end": round(rss_end, 1),
            "peak": round(rss_peak, 1),
        },
    )
    return out


def report(result: dict[str, Any]) -> str:
    t = result["tap_to_result_ms"]
    ratio = t["busy"]["median"] / t["none"]["median"] if t["none"]["median"] else float("nan")
    m = result["memory_mib"]
    d = result["delay_ms"]
    lines = [
        f"phones: {result['connected']} of {result['clients']} connected; {result['rounds']} rounds in "
        f"{result['seconds']:.0f} s (one every {result['every_s']} s)",
        f"events delivered: {result['events_delivered']} of {result['events_expected']} "
        f"(server sent {result['events_sent_by_server']}); phones dropped: {result['dropped']}",
        f"delay confirm -> phone: median {d['median']} ms, p95 {d['p95']} ms, longest {d['longest']} ms",
        f"kiosk memory (RSS): {m['before_server']} MiB before the server, {m['phones_connected']} MiB with "
        f"the phones connected, {m['end']} MiB at the end, peak {m['peak']} MiB",
        f"tap to result: no phones median {t['none']['median']} ms (p90 {t['none']['p90']}), "
        f"{result['tap_busy_phones']} phones median {t['busy']['median']} ms (p90 {t['busy']['p90']}): "
        f"ratio {ratio:.2f}; during the load ({result['clients']} phones) median "
        f"{result['tap_to_result_under_load_ms']['median']} ms",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ui.devtools.loadtest", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--clients", type=int, default=32, help="phones during the load (default 32)")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the load (default 60)")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between rounds (default 1)")
    parser.add_argument("--busy-clients", type=int, default=20, help="phones for the tap-to-result timing")
    parser.add_argument("--tap-rounds", type=int, default=20, help="rounds timed per condition (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    result = run(args.clients, args.seconds, args.every, args.busy_clients, args.tap_rounds)
    print(json.dumps(result, ensure_ascii=False) if args.json else report(result))
    ok = result["events_delivered"] == result["events_expected"] and result["all_connected"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
