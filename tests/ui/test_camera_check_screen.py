"""The camera check screen on the real (headless) kiosk: opened from Settings, the live view of the folder
camera, Check reads the photo, and every word fits at 800x480 and 720x1280 in each language."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.headless import demo_result, run_demo
from ui.i18n import DEFAULT_LANGUAGE, LANGUAGES, has_catalog

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_camera_check_reads_a_photo_and_its_words_fit(tmp_path: Path, language: str, size: str) -> None:
    if language != DEFAULT_LANGUAGE and not has_catalog(language):
        pytest.skip(f"no compiled {language} catalog (make catalogs)")
    shots = tmp_path / "shots"
    proc = run_demo(
        tmp_path, "--script", "camera-check", "--out", str(shots), "--size", size, "--language", language
    )
    result = demo_result(proc)
    assert "STEP camera check done" in proc.stdout
    assert result["cut_text"] == [] and result["small_targets"] == []
    names = sorted(p.name for p in (shots / size).glob("*.png"))
    assert names == ["01-camera-check-live.png", "02-camera-check-result.png"]
