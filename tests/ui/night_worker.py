"""A scripted game night through the kiosk's logic, for the kill -9 test (tests/ui/test_game_night_kills.py).

    python tests/ui/night_worker.py DATA_DIR JOURNAL [--games N]
    python tests/ui/night_worker.py --zygote


Every action is decided from the record alone (which game, which round, what is already in the round's
draft), so a worker killed at any instant and started again carries on exactly where the record says, and
the finished night is the same whatever was killed when. After each confirmed action returns, a line
``confirmed GAME EVENTS`` (the game's number of recorded events) is appended to JOURNAL and fsynced: the
test checks that the record never holds fewer. Prints ``READY`` once imported and ``DONE`` at the end.

``--zygote`` imports what a worker needs once and then starts workers on demand, each a fork of it: a
forked worker is running in milliseconds where a new interpreter spends a good part of a second importing,
which the kill test would pay for each of its 100 lives (see ``zygote``).
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from pathlib import Path

PLAYERS = ["Asha", "Bikash", "Chandra"]
DECK = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


def intended_round(
    game_number: int, round_number: int, active: list[str]
) -> tuple[str, dict[str, list[str]]]:
    """The round the table plays: the same for the same game and round, whatever happened before."""
    rng = random.Random(game_number * 1000 + round_number)
    pile = DECK[:]
    rng.shuffle(pile)
    caller = active[rng.randrange(len(active))]
    low = [c for c in pile if c[0] in "A23"]
    hands: dict[str, list[str]] = {}
    for player in active:
        if player == caller:
            card = low[0]
            hands[player] = [card]
            pile.remove(card)
        else:
            hands[player] = [pile.pop() for _ in range(rng.randint(2, 5))]
            for card in hands[player]:
                if card in low:
                    low.remove(card)
    return caller, hands


def journal(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def main(argv: list[str]) -> int:
    data, journal_path = Path(argv[0]), Path(argv[1])
    games_wanted = int(argv[3]) if len(argv) > 3 and argv[2] == "--games" else 6
    from ui.logic.kiosk import GAME_OVER, RESULT, ROUND, Kiosk
    from ui.store import Store

    store = Store(data)
    kiosk = Kiosk(store)
    print("READY", flush=True)
    while True:
        games = store.games()
        playing = [g for g in games if g.status.value == "playing"]
        if playing:
            kiosk.open(playing[0].id)
        elif len(games) < games_wanted:
            form = kiosk.new_form("jhyap")
            for name in PLAYERS:
                form.add(name)
            form.rules["max_score"] = 100
            kiosk.start(form)
        else:
            print("DONE", flush=True)
            return 0
        game = kiosk.game
        assert game is not None
        number = [g.id for g in store.games()].index(game.id)
        while kiosk.screen != GAME_OVER:
            if kiosk.screen == RESULT:
                kiosk.next_round()
                continue
            assert kiosk.screen == ROUND
            flow = kiosk.jhyap
            caller, hands = intended_round(number, flow.number, list(flow.active))
            if flow.caller != caller:
                flow.pick_caller(caller)
                kiosk.save()
            for player in flow.active:
                if flow.codes()[player] != hands[player]:
                    flow.type_hand(player, hands[player])
                    kiosk.save()
            kiosk.confirm()
            events = len(store.history(game.id))
            journal(journal_path, f"confirmed {game.id} {events}")
            if kiosk.game is not None and kiosk.game.status.value != "playing":
                kiosk.screen = GAME_OVER
        kiosk.close()


def zygote() -> int:
    """Start workers on demand, one command a line on stdin, one answer a line on stdout: ``start DATA
    JOURNAL --games N`` forks a worker that plays the night from the record as ``main`` does (its output
    thrown away) and answers its pid; ``poll PID`` answers ``running`` or its exit status (negative: the
    signal that ended it); ``wait PID`` waits for it to end and answers the same. The record is opened by
    each worker after the fork, never by the zygote."""
    import ui.logic.kiosk  # noqa: F401 - what every worker imports, imported once here
    import ui.store  # noqa: F401

    print("READY", flush=True)
    while line := sys.stdin.readline():
        command, *args = line.split()
        if command == "start":
            pid = os.fork()
            if pid == 0:  # the worker: its own process, killed by the test like any other
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
                code = 1
                try:
                    code = main(args)
                except BaseException:  # noqa: BLE001 - said on stderr; the test sees the exit status
                    traceback.print_exc()
                finally:
                    os._exit(code)
            answer = str(pid)
        elif command in ("poll", "wait"):
            done, status = os.waitpid(int(args[0]), os.WNOHANG if command == "poll" else 0)
            answer = "running" if done == 0 else str(os.waitstatus_to_exitcode(status))
        else:
            answer = f"unknown command {command!r}"
        print(answer, flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    raise SystemExit(zygote() if sys.argv[1:] == ["--zygote"] else main(sys.argv[1:]))
