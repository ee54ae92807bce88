"""Words that fit, in every language the kiosk speaks: the scripted demo walks every screen at 800x480 and
720x1280 and checks that each label shows its whole text in its box (ui.demo.text_fit_problem).

English runs with the demo test (test_kiosk_headless); this runs the same walk in each other language
whose catalog is compiled (`make catalogs`), and is skipped for one that is not.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui.test_kiosk_headless import ROOT, demo_env, result_line
from ui.i18n import DEFAULT_LANGUAGE, LANGUAGES, has_catalog

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1000)]
OTHER_LANGUAGES = [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]


@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_every_label_of_every_screen_fits_its_box(tmp_path: Path, language: str, size: str) -> None:
    if not has_catalog(language):
        pytest.skip(f"no compiled {language} catalog (make catalogs)")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ui.demo",
            "--out",
            str(tmp_path / "shots"),
            "--size",
            size,
            "--language",
            language,
        ],
        cwd=ROOT,
        env=demo_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=900,
    )
    result = result_line(proc.stdout)
    assert proc.returncode == 0, result.get("error") or proc.stderr[-3000:]
    assert result["cut_text"] == [], "text cut, shortened or running out of its box"
