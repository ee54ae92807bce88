"""The phones' page shows tonight's story, the kiosk's own sentences, in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.share.conftest import ROUND1, ROUND2, play
from ui.devtools.browser import Chromium, find_chromium
from ui.logic.kiosk import Kiosk
from ui.share.server import ShareServer
from ui.share.snapshot import tonight_story

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        find_chromium() is None, reason="no chromium (Debian package chromium, deploy/dev-setup.sh)"
    ),
]

STORY = "[...document.querySelectorAll('#story li')].map(li => li.textContent)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium(360, 740) as b:
        yield b


def test_tonights_story_follows_the_game_on_the_page(
    browser: Chromium, server: ShareServer, kiosk: Kiosk
) -> None:
    browser.open(f"http://127.0.0.1:{server.port}/")
    browser.wait_for("document.querySelector('#board').dataset.version")
    assert browser.evaluate(STORY) == ["No game was won."]  # a game begun, no round yet: nobody won
    play(kiosk, "Asha", ROUND1)
    before = browser.evaluate("document.querySelector('#board').dataset.version")
    play(kiosk, "<b>Bo</b>", ROUND2)
    browser.wait_for(f"document.querySelector('#board').dataset.version !== {before!r}", timeout=5.0)
    shown = browser.evaluate(STORY)
    assert shown == tonight_story(kiosk.store, kiosk.store.tonight())
    assert any(line.startswith("Best call: ") for line in shown)
    assert browser.evaluate("document.querySelectorAll('#story b').length") == 0  # names as text
