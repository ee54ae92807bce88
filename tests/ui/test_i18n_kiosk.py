"""The live kiosk switched to Nepali and to Hindi: every screen redraws in the new language, with no English
left apart from the glossary's loanwords (none are written in Latin letters) and the players' names.

The walk (tests/ui/i18n_walk.py) runs the real Kivy app headless in a subprocess, so this is marked slow.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

from tests.catalogs import has_catalog
from tests.ui.headless import ROOT, headless_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
NAMES = {"Asha", "Chandra", "Dipa", "Priya", "Raj", "Sunil", "Meera"}
# Latin that is not English: the product's name, the language's own name on its button, units and formats.
NOT_ENGLISH = {"TableTally", "English", "KB", "MB", "SD", "USB", "Pi", "JSON", "CSV", "Aa", "ABC", "x"}
# Commands the players are told to type on the Pi.
NOT_ENGLISH |= {"sudo", "chown", "tabletally", "doctor"}


def english_words(text: str) -> list[str]:
    """Latin words in a label that are not a player's name, a team letter or card index (one letter), a
    path, an option or an environment variable name, or a name from NOT_ENGLISH."""
    words = []
    text = re.sub(r"--\S+ \S+", "", text)  # an option and its value: "--camera demo"
    for token in text.split():
        if "/" in token or token.startswith("--") or "_" in token:
            continue
        for word in re.findall(r"[A-Za-z]+", token):
            if len(word) > 1 and word not in NAMES and word not in NOT_ENGLISH:
                words.append(word)
    return words


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    assert has_catalog("ne") and has_catalog("hi"), "the catalogs are not compiled: run make catalogs"
    tmp = tmp_path_factory.mktemp("walk")
    out = tmp / "seen.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "ui" / "i18n_walk.py"), str(tmp / "data"), str(out)],
        cwd=ROOT,
        env=headless_env(tmp),
        capture_output=True,
        text=True,
        timeout=500,
    )
    assert out.exists(), proc.stderr[-3000:]
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert proc.returncode == 0 and data["ok"], (
        data.get("error") or data.get("screen_errors") or proc.stderr[-3000:]
    )
    return data["seen"]  # type: ignore[no-any-return]


def test_the_home_screen_offers_the_languages_until_one_is_chosen(seen: dict[str, Any]) -> None:
    assert {"English", "नेपाली", "हिन्दी"} <= set(seen["en/home"])
    assert "हिन्दी" not in seen["ne/home"]  # chosen (in Settings): the home screen has its room back


def test_switching_language_redraws_the_screen_on_show_at_once(seen: dict[str, Any]) -> None:
    assert "Settings" in seen["ne/settings-before-switch"]
    assert "सेटिङ" in seen["ne/settings-after-switch"] and "Settings" not in seen["ne/settings-after-switch"]
    assert "सेटिंग" in seen["hi/settings-after-switch"] and "सेटिङ" not in seen["hi/settings-after-switch"]


@pytest.mark.parametrize("lang", ["ne", "hi"])
def test_every_screen_in_nepali_and_hindi_has_no_english_left(seen: dict[str, Any], lang: str) -> None:
    screens = {k: v for k, v in seen.items() if k.startswith(f"{lang}/") and "before-switch" not in k}
    assert len(screens) >= 15
    english = {
        f"{screen}: {text!r}": english_words(text)
        for screen, texts in screens.items()
        for text in texts
        if english_words(text)
    }
    assert english == {}
    # The same screens in English do show English, so the check can see it.
    assert any(english_words(t) for t in seen["en/jhyap_round"])


def test_devanagari_digits_reach_every_screen(seen: dict[str, Any]) -> None:
    screens = {k: v for k, v in seen.items() if k.startswith("hi-devanagari/")}
    assert len(screens) >= 15
    for screen in ("hi-devanagari/jhyap_result", "hi-devanagari/jhyap_scores", "hi-devanagari/tonight"):
        assert re.search("[\u0966-\u096f]", " ".join(screens[screen])), screen
    western = {}
    for screen, texts in screens.items():
        for text in texts:
            if text == "0 1 2 3":
                continue  # the Western choice on the digits switch shows itself
            # Card indices keep the figures printed on the cards; paths are the file system's.
            shown = " ".join(t for t in text.split() if "/" not in t)
            shown = re.sub(r"\b(?:10|[2-9])[\u2660-\u2667]", "", shown)
            if re.search("[0-9]", shown):
                western[f"{screen}: {text!r}"] = shown
    assert western == {}


@pytest.mark.parametrize("lang", ["en", "ne", "hi"])
def test_no_player_screen_shows_a_technician_s_word(seen: dict[str, Any], lang: str) -> None:
    """No path, flag, environment variable, "px", "model", "ONNX", "NCNN", "engine" or "database" on any
    screen the walk shows (the technician's page in Settings is not one of them)."""
    from ui.devtools.face import technician_words

    # The walk shows a camera whose photo folder is gone: the players are told, and no path is shown.
    folder = {"en": "photo folder", "ne": "फोटो फोल्डर", "hi": "फ़ोटो फ़ोल्डर"}[lang]
    assert any(folder in text for text in seen[f"{lang}/camera_failed"]), seen[f"{lang}/camera_failed"]
    found = {
        f"{key}: {text!r}": technician_words(text)
        for key, texts in seen.items()
        if key.split("/")[0] == lang
        for text in texts
        if technician_words(text)
    }
    assert found == {}
