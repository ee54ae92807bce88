"""Screenshots of the phone page in a real browser (headless Chromium): 360x740 and 740x360, light and dark.

    python -m ui.devtools.shots --out screenshots/phone   # `make demo` runs it after the kiosk screenshots

It plays a short night through the kiosk's own logic (a Seep game of three deals, then a Jhyap game of three
rounds still being played, names in Latin and Devanagari), serves it on loopback and photographs the page.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from ui.devtools.browser import Chromium, find_chromium
from ui.devtools.demo_data import PLAYERS, ROUNDS
from ui.logic.kiosk import Kiosk
from ui.share.server import ShareServer
from ui.store import Store

JHYAP_ROUNDS = ROUNDS[:3]  # the scripted demo's first three rounds
SEEP_DEALS: list[tuple[dict[str, list[str] | None], list[tuple[str, str]]]] = [
    ({"A": ["AS", "2S", "3S", "4S", "5S", "AH", "10D", "KS"], "B": None}, [("A", "normal"), ("B", "first")]),
    ({"A": ["6S", "7S", "8S", "9S", "AD"], "B": None}, [("B", "normal"), ("B", "last")]),
    ({"A": ["AS", "2S", "3S", "AC"], "B": None}, [("B", "normal")]),
]


def play_jhyap_round(kiosk: Kiosk, caller: str, hands: dict[str, list[str]]) -> None:
    """One round entered as the players would on the kiosk: the caller, each hand typed, confirm."""
    flow = kiosk.jhyap
    flow.pick_caller(caller)
    for player, cards in hands.items():
        if player in flow.active:
            flow.type_hand(player, cards)
    kiosk.confirm()
    kiosk.next_round()


def sample_night(store: Store, jhyap_rounds: int = len(JHYAP_ROUNDS)) -> Kiosk:
    """A Seep game of three deals (ended), then a Jhyap game with ``jhyap_rounds`` rounds, left open."""
    kiosk = Kiosk(store)
    form = kiosk.new_form("seep")
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    for captured, sweeps in SEEP_DEALS:
        flow = kiosk.seep
        for team, when in sweeps:
            flow.add_sweep(team, when)
        for team, cards in captured.items():
            if cards is not None:
                flow.type_cards(team, cards)
        kiosk.confirm()
        kiosk.next_round()
    kiosk.end_game()
    form = kiosk.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    for caller, hands in JHYAP_ROUNDS[:jhyap_rounds]:
        play_jhyap_round(kiosk, caller, hands)
    return kiosk


SIZES = {"portrait": (360, 740), "landscape": (740, 360)}


def take(out: Path) -> list[Path]:
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="tabletally-phone-") as folder:
        store = Store(Path(folder))
        kiosk = sample_night(store)
        server = ShareServer(store, lambda: kiosk.game.id if kiosk.game else None, port=0, host="127.0.0.1")
        kiosk.listeners.append(server.notify)
        server.start()
        url = f"http://127.0.0.1:{server.port}/"
        try:
            with Chromium() as browser:
                for size, (w, h) in SIZES.items():
                    for dark in (False, True):
                        browser.viewport(w, h, dark=dark)
                        browser.open(url)
                        browser.wait_for("document.querySelector('#board').dataset.version")
                        browser.wait_for("document.fonts.status === 'loaded'")
                        name = f"jhyap-{size}-{'dark' if dark else 'light'}.png"
                        written.append(browser.screenshot(out / name))
                browser.viewport(*SIZES["portrait"])
                browser.open(url)
                browser.wait_for("document.querySelector('#board').dataset.version")
                written.append(browser.screenshot(out / "jhyap-portrait-whole-page.png", full_page=True))
                # The Seep game, as the phones see it once it is open on the kiosk again.
                seep_id = store.tonight()[0].id
                kiosk.open(seep_id)
                browser.wait_for("document.querySelector('.teams') !== null", timeout=5)
                written.append(browser.screenshot(out / "seep-portrait-light-whole-page.png", full_page=True))
                browser.viewport(*SIZES["landscape"], dark=True)
                browser.open(url)
                browser.wait_for("document.querySelector('#board').dataset.version")
                written.append(browser.screenshot(out / "seep-landscape-dark.png"))
                if browser.console:
                    print("browser console: " + " | ".join(browser.console), file=sys.stderr)
        finally:
            server.stop()
            store.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.devtools.shots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots/phone"))
    parser.add_argument("--language", default="en", help="language of the page's words (en, ne, hi)")
    parser.add_argument(
        "--digits", default="western", choices=("western", "devanagari"), help="the kiosk's digits setting"
    )
    args = parser.parse_args(argv)
    from ui.i18n import set_digits, set_language

    set_language(args.language)  # the server puts the page's words in this language
    set_digits(args.digits)  # and the page writes its numbers in these digits
    if find_chromium() is None:
        print(
            "ui.devtools.shots: no chromium here (Debian package chromium): no phone screenshots",
            file=sys.stderr,
        )
        return 1
    for path in take(args.out):
        print(f"STEP screenshot {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
