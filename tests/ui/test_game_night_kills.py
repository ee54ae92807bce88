"""kill -9 at random moments of a scripted game night, at least 100 times: no confirmed action is ever lost,
every restart opens each game where its record says, and the finished night is exactly the night played
without a single kill. (The kiosk's logic and record in a subprocess; the real Kivy kiosk's kill test is
in test_kiosk_headless.py.)"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ui.logic.kiosk import Kiosk
from ui.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]
WORKER = Path(__file__).resolve().parent / "night_worker.py"
KILLS = 100
GAMES = 60


class Lives:
    """The killed night's workers, each a fork of one zygote that imported the kiosk's logic once
    (night_worker.py --zygote): a life is its own process, killed with SIGKILL like a fresh one, without
    a new interpreter's imports each time."""

    def __init__(self) -> None:
        self.zygote = subprocess.Popen(
            [sys.executable, str(WORKER), "--zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.ask("") == "READY"

    def ask(self, command: str) -> str:
        assert self.zygote.stdin is not None and self.zygote.stdout is not None
        if command:
            self.zygote.stdin.write(command + "\n")
            self.zygote.stdin.flush()
        answer = self.zygote.stdout.readline().strip()
        assert answer, f"the zygote ended (status {self.zygote.poll()})"
        return answer

    def start(self, data: Path, journal: Path) -> int:
        return int(self.ask(f"start {data} {journal} --games {GAMES}"))

    def poll(self, pid: int) -> int | None:
        answer = self.ask(f"poll {pid}")
        return None if answer == "running" else int(answer)

    def wait(self, pid: int) -> int:
        return int(self.ask(f"wait {pid}"))

    def close(self) -> None:
        assert self.zygote.stdin is not None
        self.zygote.stdin.close()
        self.zygote.wait(timeout=30)


def lines(journal: Path) -> int:
    """How many confirmed actions the worker has journalled."""
    return len(journal.read_text(encoding="utf-8").splitlines()) if journal.exists() else 0


def night(data: Path) -> list[tuple[object, ...]]:
    store = Store(data)
    try:
        return [(g.id, g.kind, g.entries, g.status, g.winner) for g in store.games()]
    finally:
        store.close()


def test_a_game_night_killed_100_times_loses_nothing_and_ends_the_same(tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    began = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            str(WORKER),
            str(reference),
            str(tmp_path / "reference.journal"),
            "--games",
            str(GAMES),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "DONE" in done.stdout
    # After its first confirmed action, each life lasts a random share of one action's time in the
    # uninterrupted night: the kills land anywhere in an action (mid-write included), and 100 lives stay
    # well inside the night on a fast machine and a loaded one alike.
    longest = (time.perf_counter() - began) / max(1, lines(tmp_path / "reference.journal"))

    data, journal = tmp_path / "killed", tmp_path / "killed.journal"
    rng = random.Random(52)
    kills = 0
    lives = Lives()
    while kills < KILLS:
        before = lines(journal)
        pid = lives.start(data, journal)
        # Each life confirms at least one action before its kill lands, at a random moment after it: the
        # kills spread over the whole night however loaded the machine is.
        deadline = time.monotonic() + 60
        while lines(journal) == before and lives.poll(pid) is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, longest))
        if lives.poll(pid) is not None:  # the night was over before this kill
            break
        os.kill(pid, signal.SIGKILL)
        lives.wait(pid)
        kills += 1
        # Nothing confirmed is lost: every confirmed action the worker saw return is in the record.
        confirmed: dict[int, int] = {}
        for line in journal.read_text(encoding="utf-8").splitlines() if journal.exists() else []:
            _, game_text, events_text = line.split()
            confirmed[int(game_text)] = max(confirmed.get(int(game_text), 0), int(events_text))
        con = sqlite3.connect(data / "tabletally.sqlite3")
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.close()
        store = Store(data)
        for game_id, events in confirmed.items():
            assert len(store.history(game_id)) >= events, (
                f"kill {kills}: game {game_id} lost a confirmed action"
            )
        # Every game reopens where its record says (the draft's caller and hands, when there is one).
        kiosk = Kiosk(store)
        for record in store.unfinished():
            kiosk.open(record.id)
            draft = store.draft(record.id)
            if draft is not None and kiosk.flow is not None and draft.state.get("flow"):
                assert kiosk.jhyap.caller == draft.state["flow"].get("caller")
        store.close()
    lives.close()
    assert kills >= KILLS, f"the night ended after {kills} kills: make it longer"
    during = lines(journal)
    assert during >= KILLS  # actions confirmed while being killed: at least one a life

    finish = subprocess.run(
        [sys.executable, str(WORKER), str(data), str(journal), "--games", str(GAMES)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "DONE" in finish.stdout
    assert night(data) == night(reference)
    print(
        f"{kills} kills; {during} rounds confirmed between kills, none lost; the finished night is identical"
    )
