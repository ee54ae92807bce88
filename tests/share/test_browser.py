"""The phone page in a real browser (headless Chromium from Debian's package), as a phone opens it."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.catalogs import has_catalog
from tests.share.conftest import ROUND1, ROUND2, play
from ui import i18n
from ui.devtools.browser import Chromium, find_chromium
from ui.logic import boards
from ui.logic.kiosk import Kiosk
from ui.share.server import ShareServer
from ui.store import Store

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        find_chromium() is None, reason="no chromium (Debian package chromium, deploy/dev-setup.sh)"
    ),
]

SHOWN_TOTALS = (
    "Object.fromEntries([...document.querySelectorAll('tr[data-player]')]"
    ".map(r => [r.dataset.player, Number(r.querySelector('.total').textContent)]))"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium(360, 740) as b:
        yield b


def expected_totals(kiosk: Kiosk) -> dict[str, int]:
    return {r.name: r.total for r in boards.jhyap_board(kiosk.log).rows}


def open_page(browser: Chromium, port: int) -> None:
    browser.viewport(360, 740)
    browser.open(f"http://127.0.0.1:{port}/")
    browser.wait_for("document.querySelector('#board').dataset.version")


def test_a_confirmed_round_shows_on_the_page_by_itself(
    browser: Chromium, server: ShareServer, kiosk: Kiosk
) -> None:
    open_page(browser, server.port)
    assert browser.evaluate(SHOWN_TOTALS) == {"Asha": 0, "<b>Bo</b>": 0, "बिकास": 0}
    for caller, hands in (("Asha", ROUND1), ("<b>Bo</b>", ROUND2)):
        before = browser.evaluate("document.querySelector('#board').dataset.version")
        started = time.monotonic()
        play(kiosk, caller, hands)
        browser.wait_for(f"document.querySelector('#board').dataset.version !== {before!r}", timeout=5.0)
        # Pushed, not found by a poll (every 3 s); the delay itself is measured by ui.devtools.loadtest.
        assert time.monotonic() - started < 2.5
        assert browser.evaluate(SHOWN_TOTALS) == expected_totals(kiosk)
    text = browser.text()
    assert "Last round 2" in text
    assert boards.jhyap_round_result(kiosk.log).headline in text  # the kiosk's own words for the round
    assert browser.evaluate("document.querySelector('#status').textContent") == "Live"


def test_names_are_shown_as_text_never_as_markup(
    browser: Chromium, server: ShareServer, kiosk: Kiosk
) -> None:
    play(kiosk, "Asha", ROUND1)
    open_page(browser, server.port)
    assert browser.evaluate("document.querySelectorAll('#board b').length") == 0
    assert "<b>Bo</b>" in browser.text()
    assert "बिकास" in browser.text()
    # Devanagari is drawn with the kiosk's own font, served by the kiosk.
    assert browser.wait_for("document.fonts.check('18px \"TableTally Sans\"', 'बिकास')")


def test_the_page_reconnects_by_itself_when_the_kiosk_restarts(
    browser: Chromium, store: Store, kiosk: Kiosk
) -> None:
    first = ShareServer(store, lambda: kiosk.game.id if kiosk.game else None, port=0, host="127.0.0.1")
    first.start()
    port = first.port
    open_page(browser, port)
    first.stop()  # the kiosk goes down ...
    browser.wait_for("document.querySelector('#status').classList.contains('down')", timeout=5)
    play(kiosk, "Asha", ROUND1)  # ... a round is confirmed meanwhile (on the restarted kiosk) ...
    second = ShareServer(store, lambda: kiosk.game.id if kiosk.game else None, port=port, host="127.0.0.1")
    second.start()  # ... and it is back on the same port: no one touches the phone
    try:
        browser.wait_for(
            f"(() => {{ const t = {SHOWN_TOTALS}; return t['Asha'] === 0 && t['बिकास'] === 11; }})()",
            timeout=15,
        )
        assert browser.evaluate(SHOWN_TOTALS) == expected_totals(kiosk)
        assert browser.wait_for("document.querySelector('#status').textContent === 'Live'", timeout=5)
    finally:
        second.stop()


def test_a_phone_refused_a_stream_polls_and_still_follows_the_game(
    browser: Chromium, store: Store, kiosk: Kiosk
) -> None:
    full = ShareServer(store, lambda: kiosk.game.id, port=0, host="127.0.0.1", max_clients=0)
    kiosk.listeners.append(full.notify)
    full.start()
    try:
        open_page(browser, full.port)
        play(kiosk, "Asha", ROUND1)
        browser.wait_for(f"JSON.stringify({SHOWN_TOTALS}) === JSON.stringify({expected_totals(kiosk)!r})", 10)
    finally:
        full.stop()


@pytest.mark.usefixtures("locale")
def test_the_page_writes_numbers_in_the_kiosks_digits(
    browser: Chromium, server: ShareServer, kiosk: Kiosk
) -> None:
    play(kiosk, "Asha", ROUND1)
    play(kiosk, "<b>Bo</b>", ROUND2)
    kiosk.set_digits(i18n.DEVANAGARI)
    server.notify()  # what Sharing does on a change of digits (tests/share/test_sharing.py)
    open_page(browser, server.port)
    browser.wait_for("document.querySelector('#board').dataset.version")
    shown = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('tr[data-player]')]"
        ".map(r => [r.dataset.player, r.querySelector('.total').textContent]))"
    )
    assert shown == {name: i18n.num(total) for name, total in expected_totals(kiosk).items()}
    text = browser.text()
    assert "Last round २" in text and "Out above २००" in text
    # The chart's axis, the hands, the points, the time too: no Western digit is left on the page but the
    # cards' own indices, which the kiosk also shows as printed on the cards (9♠).
    text = browser.evaluate(
        "(() => { const b = document.body.cloneNode(true);"
        " b.querySelectorAll('.chip').forEach(c => c.remove()); return b.textContent; })()"
    )
    assert not any(ch.isascii() and ch.isdigit() for ch in text), text
    labels = browser.evaluate("[...document.querySelectorAll('svg text')].map(t => t.textContent).join(' ')")
    assert labels and not any(ch.isascii() and ch.isdigit() for ch in labels)


@pytest.mark.usefixtures("locale")
@pytest.mark.skipif(not has_catalog("ne"), reason="no compiled ne catalog (make catalogs)")
def test_the_page_speaks_the_kiosks_new_language_by_itself(
    browser: Chromium, server: ShareServer, kiosk: Kiosk
) -> None:
    play(kiosk, "Asha", ROUND1)
    open_page(browser, server.port)
    assert browser.evaluate("document.documentElement.lang") == "en"
    kiosk.set_language("ne")
    server.notify()  # what Sharing does on a change of language (tests/share/test_sharing.py)
    browser.wait_for(
        "document.documentElement.lang === 'ne' && document.querySelector('#board th') !== null", 10
    )
    heads = browser.evaluate("[...document.querySelectorAll('#board th')].map(t => t.textContent)")
    assert i18n._("Total") in heads and "Total" not in heads
    assert boards.jhyap_round_result(kiosk.log).headline in browser.text()  # the kiosk's words, in Nepali
    version = browser.evaluate("document.querySelector('#board').dataset.version")
    time.sleep(1)  # loaded once, not again and again
    assert browser.evaluate("document.querySelector('#board').dataset.version") == version
    assert browser.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"


@pytest.mark.parametrize(("width", "height"), [(360, 740), (740, 360)], ids=["portrait", "landscape"])
def test_the_page_fits_a_phone_in_light_and_dark_with_only_the_kiosks_files(
    browser: Chromium, server: ShareServer, kiosk: Kiosk, width: int, height: int
) -> None:
    play(kiosk, "Asha", ROUND1)
    colours = []
    for dark in (False, True):
        browser.viewport(width, height, dark=dark)
        browser.open(f"http://127.0.0.1:{server.port}/")
        browser.wait_for("document.querySelector('#board').dataset.version")
        browser.wait_for("document.fonts.status === 'loaded'")
        assert browser.evaluate("document.documentElement.scrollWidth") <= width  # nothing runs off the side
        sizes = browser.evaluate(
            "[...document.querySelectorAll('td, p, th, li')]"
            ".map(e => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert min(sizes) >= 14  # legible at arm's length
        assert (
            browser.evaluate("parseFloat(getComputedStyle(document.querySelector('.total')).fontSize)") >= 24
        )
        colours.append(browser.evaluate("getComputedStyle(document.body).backgroundColor"))
        origins = browser.evaluate(
            "performance.getEntriesByType('resource').map(e => new URL(e.name).origin)"
            ".filter(o => o !== location.origin)"
        )
        assert origins == []  # no CDN, no outside font or script
    assert colours[0] != colours[1]
    if width > height:  # landscape: the totals and the last round side by side
        tops = browser.evaluate("[...document.querySelectorAll('.card')].slice(0, 2).map(c => c.offsetTop)")
        assert tops[0] == tops[1]
