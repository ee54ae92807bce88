"""Words that fit, in every language the kiosk speaks: the scripted demo walks every screen at 800x480
and 720x1280 and checks that each label shows its whole text in its box
(ui.devtools.demo_driver.text_fit_problem).

English runs with the demo test (test_kiosk_headless); this runs the same walk in each other language
whose catalog is compiled (`make catalogs`), and is skipped for one that is not.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.catalogs import has_catalog
from tests.ui.headless import DemoWalk
from ui.i18n import DEFAULT_LANGUAGE, LANGUAGES

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1000)]
OTHER_LANGUAGES = [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]


@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_every_label_of_every_screen_fits_its_box(
    demo_walk: Callable[[str, str], DemoWalk], language: str, size: str
) -> None:
    if not has_catalog(language):
        pytest.skip(f"no compiled {language} catalog (make catalogs)")
    result = demo_walk(language, size).result()  # the walk every test of this language and size shares
    assert result["cut_text"] == [], "text cut, shortened or running out of its box"
