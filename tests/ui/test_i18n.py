"""The kiosk in Nepali and Hindi: complete catalogs that compile, the glossary's words in every catalog, one
digit setting for every number, the players' language kept in the record, and exports that do not change
with the language."""

from __future__ import annotations

import csv
import gettext
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from scorer.errors import ScorerError
from ui import i18n
from ui.catalogs import compile_catalog
from ui.i18n import _, ngettext, num
from ui.logic import boards, games
from ui.logic.kiosk import Kiosk
from ui.logic.rule_messages import explain
from ui.store import Store

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "ui" / "locale"
LANGS = ("ne", "hi")
PLAYERS = ["Asha", "बिकास", "Chandra", "Dipa"]
ROUND1 = {
    "Asha": ["AS", "2H"],
    "बिकास": ["KS", "QH", "9C"],
    "Chandra": ["10D", "JC", "8S"],
    "Dipa": ["5C", "6D"],
}
PLACEHOLDER = re.compile(r"\{(\w*)\}")


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """Every test leaves the kiosk speaking English with Western digits (module-wide state)."""
    yield
    i18n.set_language("en")
    i18n.set_digits(i18n.WESTERN)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The catalogs compiled from their .po files as the build compiles them (not the ones in the tree)."""
    out = tmp_path_factory.mktemp("locale")
    for lang in LANGS:
        compile_catalog(
            LOCALE / lang / "LC_MESSAGES" / "tabletally.po", out / lang / "LC_MESSAGES" / "tabletally.mo"
        )
    return out


def use(lang: str, compiled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "LOCALE_DIR", compiled)
    i18n.set_language(lang)


def source_messages() -> set[str | tuple[str, str]]:
    """Every string the kiosk's sources mark for translation, extracted as `make translations` does."""
    found: set[str | tuple[str, str]] = set()
    method_map = [("ui/**.py", "python")]
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map=method_map, keywords={"_": None, "N_": None, "ngettext": (1, 2)}
    ):
        found.add(message if isinstance(message, str) else (message[0], message[1]))
    return found


def catalog(lang: str) -> dict[str | tuple[str, str], str | tuple[str, ...]]:
    with (LOCALE / lang / "LC_MESSAGES" / "tabletally.po").open("rb") as f:
        cat = read_po(f, locale=lang)
    out: dict[str | tuple[str, str], str | tuple[str, ...]] = {}
    for m in cat:
        if m.id and "fuzzy" not in m.flags:
            key = m.id if isinstance(m.id, str) else (m.id[0], m.id[1])
            out[key] = m.string if isinstance(m.string, str) else tuple(m.string)
    return out


# -- the catalogs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_source_string_is_translated_in_every_catalog(lang: str) -> None:
    sources = source_messages()
    assert len(sources) > 150, "the extraction found too few strings: is ui/ marked?"
    translated = {k for k, v in catalog(lang).items() if (all(v) if isinstance(v, tuple) else v)}
    missing = sorted(map(str, sources - translated))
    assert missing == [], (
        f"{len(missing)} strings missing or untranslated in {lang} (make translations): {missing}"
    )


@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_every_placeholder(lang: str) -> None:
    for msgid, msgstr in catalog(lang).items():
        ids = msgid if isinstance(msgid, tuple) else (msgid,)
        strs = msgstr if isinstance(msgstr, tuple) else (msgstr,)
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        for text in strs:
            assert set(PLACEHOLDER.findall(text)) == wanted, f"{lang}: {msgid!r} -> {text!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_translations_write_no_devanagari_digits_themselves(lang: str) -> None:
    """Digits in a translation are Western: the digits setting turns them into Devanagari when chosen."""
    for msgid, msgstr in catalog(lang).items():
        for text in msgstr if isinstance(msgstr, tuple) else (msgstr,):
            assert not re.search("[\u0966-\u096f]", text), f"{lang}: {msgid!r} -> {text!r}"


def test_catalogs_compile_and_take_their_plural_rule_from_the_header(
    compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for lang, rule in (("ne", "(n != 1)"), ("hi", "(n > 1)")):
        with (LOCALE / lang / "LC_MESSAGES" / "tabletally.po").open("rb") as f:
            assert rule in read_po(f, locale=lang).plural_forms
        with (compiled / lang / "LC_MESSAGES" / "tabletally.mo").open("rb") as f:
            assert gettext.GNUTranslations(f).gettext("Settings") != "Settings"
    use("hi", compiled, monkeypatch)
    # Hindi's rule (CLDR: i = 0 or n = 1 is "one") takes the singular for 0 and 1, the plural from 2.
    forms = [ngettext("{n} baazi", "{n} baazis", n).format(n=n) for n in (0, 1, 2)]
    assert forms == ["0 बाज़ी", "1 बाज़ी", "2 बाज़ियाँ"]
    use("ne", compiled, monkeypatch)
    assert ngettext("{n} deal played", "{n} deals played", 1).format(n=1) == "1 डिल खेलियो"
    assert ngettext("{n} deal played", "{n} deals played", 0).format(n=0) == "0 डिल खेलिए"


def test_the_package_build_compiles_the_catalogs(tmp_path: Path) -> None:
    """`pip install .` (the Pi installer) runs ui.catalogs.BuildPy: the .mo files go into the build."""
    from setuptools import Distribution

    from ui.catalogs import BuildPy

    dist = Distribution({"name": "tabletally", "packages": [], "package_dir": {"": str(ROOT)}})
    cmd = BuildPy(dist)
    cmd.build_lib = str(tmp_path)
    cmd.packages, cmd.py_modules, cmd.package_data = [], [], {}
    cmd.ensure_finalized()
    cmd.build_lib = str(tmp_path)
    cmd.run()
    for lang in LANGS:
        mo = tmp_path / "ui" / "locale" / lang / "LC_MESSAGES" / "tabletally.mo"
        with mo.open("rb") as f:
            assert gettext.GNUTranslations(f).gettext("Scores") != "Scores"


# -- the glossary ----------------------------------------------------------------------------------------

# What names each glossary term in an English message (placeholders such as {caller} are taken out first).
TERM_PATTERNS = {
    "Jhyap": r"\bJhyap\b",
    "Seep": r"\bSeep\b",
    "baazi": r"\bbaazis?\b",
    "sweep": r"\bsweeps?\b",
    "call (verb)": r"\bcall(?:s|ed|er)?\b",
    "penalty": r"\bpenalt(?:y|ies)\b",
    "dealer": r"(?:\{dealer\} deals\b|^deals\??$|^deal\?$)",
    "deal (Seep)": r"\bdeals?\b",
    "out": r"(?-i:\bOUT\b)|\bout above\b|\bwent out\b",
    "round": r"\brounds?\b(?! table)",  # a round table is its shape
    "team": r"\bteams?\b",
    "total": r"\btotals?\b",
    "points": r"\bpoints?\b",
    "hand": r"\bhands?\b",
    "card": r"\bcards?\b",
    "joker": r"\bjokers?\b",
    "deck": r"\bdecks?\b",
    "player": r"\bplayers?\b",
    "scan": r"\bscan\w*\b",
    "undo": r"\bundo\b",
    "lead (Seep)": r"\blead\b",
    "first play, last play": r"\b(?:first|last).play\b",
}


def glossary() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """term -> (Nepali forms, Hindi forms), read from the glossary's table."""
    rows: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for line in (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("Term", "") and not cells[0].startswith("-"):
            rows[cells[0]] = tuple(tuple(f.strip() for f in cell.split("/")) for cell in cells[1:3])  # type: ignore[assignment]
    return rows


def test_the_glossary_names_every_term_the_issue_lists() -> None:
    terms = glossary()
    for term in (
        "Jhyap",
        "Seep",
        "baazi",
        "sweep",
        "caller",
        "penalty",
        "dealer",
        "out",
        "round",
        "team",
        "total",
    ):
        assert term in terms, term
    assert terms["round"] == (("राउन्ड",), ("राउंड",))  # the loanword the players say


@pytest.mark.parametrize("lang", LANGS)
def test_every_catalog_uses_the_glossary_words(lang: str) -> None:
    terms = glossary()
    column = LANGS.index(lang)
    misses = []
    for msgid, msgstr in catalog(lang).items():
        raw = msgid if isinstance(msgid, str) else msgid[1]
        english = PLACEHOLDER.sub("", raw)
        texts = msgstr if isinstance(msgstr, tuple) else (msgstr,)
        dealer = re.search(TERM_PATTERNS["dealer"], raw, re.I)
        memory_card = re.search(
            r"\bSD card\b|\bthe card\b(?! (?:model|reader))", english, re.I
        ) and not re.search(r"\bcards\b", english)
        for term, pattern in TERM_PATTERNS.items():
            if term == "deal (Seep)" and dealer:
                continue  # "X deals" is the dealer, not a Seep deal
            if term == "card" and memory_card:
                continue  # the SD card, not a playing card
            if re.search(pattern, raw if term == "dealer" else english, re.I):
                forms = terms[term][column]
                for text in texts:
                    if not any(form in text for form in forms):
                        misses.append(f"{term}: {msgid!r} -> {text!r} (expected one of {forms})")
    assert misses == []


# -- digits ----------------------------------------------------------------------------------------------


def test_digits_setting_writes_every_number_in_the_chosen_digits(
    compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert num(209) == "209"
    i18n.set_digits(i18n.DEVANAGARI)
    assert num(209) == "२०९" and num(-30) == "-३०"
    assert i18n.digits_in("20:15") == "२०:१५"
    assert _("Exactly 200 halves") == "Exactly २०० halves"  # digits inside a message follow the setting too
    use("ne", compiled, monkeypatch)
    assert _("Round {n}").format(n=num(12)) == "राउन्ड १२"
    with pytest.raises(ValueError, match="unknown digits"):
        i18n.set_digits("roman")


# -- the record, the screens' words, the exports -----------------------------------------------------------


def test_language_and_digits_are_kept_in_the_record_and_used_at_the_next_start(
    tmp_path: Path, compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(i18n, "LOCALE_DIR", compiled)
    kiosk = Kiosk(Store(tmp_path))
    assert kiosk.language() is None  # nothing chosen yet: the home screen offers the three languages
    kiosk.set_language("hi")
    kiosk.set_digits(i18n.DEVANAGARI)
    i18n.set_language("en")
    i18n.set_digits(i18n.WESTERN)
    again = Kiosk(Store(tmp_path))
    again.apply_locale()
    assert (i18n.language(), i18n.digits()) == ("hi", i18n.DEVANAGARI)
    assert _("Settings") == "सेटिंग"


def test_a_language_change_is_announced_to_the_screens(
    compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heard: list[str] = []
    listener = i18n.on_change(lambda: heard.append(i18n.language()))
    try:
        use("ne", compiled, monkeypatch)
        i18n.set_digits(i18n.DEVANAGARI)
    finally:
        i18n.remove_listener(listener)
    assert heard == ["ne", "ne"]


def play_jhyap(kiosk: Kiosk) -> None:
    form = kiosk.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    flow = kiosk.jhyap
    flow.pick_caller("Asha")
    for player, cards in ROUND1.items():
        flow.type_hand(player, cards)
    kiosk.confirm()


def test_the_round_result_reads_in_nepali_and_hindi(
    tmp_path: Path, compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kiosk = Kiosk(Store(tmp_path))
    play_jhyap(kiosk)
    use("ne", compiled, monkeypatch)
    result = boards.jhyap_round_result(kiosk.log)
    assert result.headline == "Asha को झ्याप सफल: 0 अंक"
    assert result.next_text == "अब: बिकास ले बाँड्ने, Asha ले सुरु गर्ने।"
    use("hi", compiled, monkeypatch)
    i18n.set_digits(i18n.DEVANAGARI)
    result = boards.jhyap_round_result(kiosk.log)
    assert result.headline == "Asha ने झ्याप बोला और सही निकला: ० अंक"
    assert [line.note for line in result.lines][0] == "झ्याप बोला"


def test_exports_and_replay_do_not_change_with_the_language(
    tmp_path: Path, compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kiosk = Kiosk(Store(tmp_path / "record"))
    play_jhyap(kiosk)
    record = kiosk.store.game(kiosk.game.id) if kiosk.game else None
    assert record is not None
    english_json, english_csv = (p.read_bytes() for p in boards.export_game(record, tmp_path / "en"))
    use("hi", compiled, monkeypatch)
    i18n.set_digits(i18n.DEVANAGARI)
    json_path, csv_path = boards.export_game(record, tmp_path / "hi")
    assert json_path.read_bytes() == english_json and csv_path.read_bytes() == english_csv
    assert csv_path.read_bytes().startswith(b"\xef\xbb\xbf")  # UTF-8 with a BOM, for spreadsheets
    header = next(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8-sig"))))
    assert header[:4] == ["round", "dealer", "caller", "caller_won"] and "बिकास cards" in header
    replay = subprocess.run(
        [sys.executable, "-m", "ui.cli", "replay", str(json_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(replay.stdout)["totals"] == {"Asha": 0, "बिकास": 29, "Chandra": 28, "Dipa": 11}


# -- the rules engine's refusals ---------------------------------------------------------------------------


def refusal(log: dict[str, object]) -> str:
    with pytest.raises(ScorerError) as info:
        games.score(log)
    return str(info.value)


def jhyap_log(**round_: object) -> dict[str, object]:
    return {"game": "jhyap", "players": ["Asha", "Bina"], "rounds": [round_]}


def seep_log(deal: dict[str, object]) -> dict[str, object]:
    return {"game": "seep", "teams": {"A": ["Asha", "Bina"], "B": ["Chandra", "Dipa"]}, "deals": [deal]}


def test_the_refusals_a_table_meets_are_explained_in_the_players_language(
    compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scorer's real messages (not copies of them) must match the kiosk's explanations: a scorer that
    rewords one makes this fail instead of showing English on a Nepali screen."""
    messages = {
        "call limit": refusal(jhyap_log(caller="Asha", hands={"Asha": ["KS"], "Bina": ["AS"]})),
        "decks": refusal(jhyap_log(caller="Asha", hands={"Asha": ["AS"], "Bina": ["AS"]})),
        "hand limit": refusal(jhyap_log(caller="Asha", hands={"Asha": ["AS"], "Bina": ["2S", "3S"] * 3})),
        "joker": refusal(seep_log({"captured": {"A": ["JK"]}})),
        "twice": refusal(seep_log({"captured": {"A": ["AS"], "B": ["AS"]}})),
        "missing": refusal(seep_log({"captured": {"A": ["AS"], "B": ["2S"]}})),
        "first sweeps": refusal(
            seep_log({"captured": {"A": ["AS"]}, "sweeps": [{"team": "A", "when": "first"}] * 2})
        ),
    }
    use("ne", compiled, monkeypatch)
    shown = {what: explain(text) for what, text in messages.items()}
    for what, text in shown.items():
        assert text != messages[what] and not re.search(r"\b(round|deal) \d", text), (what, text)
    assert shown["call limit"] == "Asha को झ्याप हातमा 10 हुँदा: झ्याप भन्ने सीमा 5 भन्दा बढी।"
    assert shown["decks"] == "हातहरूमा A\u2660 2 पटक छ, तर 1 गड्डीमा 1 मात्र हुन्छ।"
    assert shown["hand limit"] == "Bina को हातमा 6 पत्ती छन्, हातको सीमा 5 भन्दा बढी।"
    assert explain("something new") == "something new"  # an unknown refusal is shown as the scorer wrote it


def test_camera_and_photo_problems_are_explained_in_the_players_language(
    tmp_path: Path, compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vision layer's real messages (not copies) must match: a reworded one fails here."""
    import numpy as np

    from ui.devtools.face import technician_words
    from ui.logic.rule_messages import explain_photo
    from vision.base.photo import check_not_blank
    from vision.cameras import FolderCamera

    reasons = []
    for fail in (
        lambda: FolderCamera(tmp_path / "nowhere").open(),
        lambda: FolderCamera(tmp_path).open(),
        lambda: check_not_blank(np.full((400, 400, 3), 90, np.uint8)),
        lambda: check_not_blank(np.zeros((20, 30, 3), np.uint8)),
    ):
        with pytest.raises(Exception) as info:  # noqa: B017 - CameraError and ImageError alike
            fail()
        reasons.append(str(info.value))
    assert technician_words(reasons[0]) and technician_words(reasons[1])  # the raw reasons name the folder
    shown = [explain_photo(r) for r in reasons]
    # English keeps the vision layer's details, except a file path: no player's screen shows one (issue 62).
    assert shown[:2] == [
        "The camera's photo folder does not exist.",
        "The camera's photo folder holds no photos.",
    ]
    assert shown[2:] == reasons[2:]
    for text in shown:
        assert str(tmp_path) not in text and technician_words(text) == [], text
    for language in ("ne", "hi"):
        use(language, compiled, monkeypatch)
        shown = [explain_photo(r) for r in reasons]
        for text in shown:
            assert not re.search(r"\b(?:folder|photo|blank|pixels|images)\b", text), text
            assert str(tmp_path) not in text and technician_words(text) == [], text
    assert shown[0] == "कैमरे का फ़ोटो फ़ोल्डर मौजूद नहीं है।"
    assert shown[2] == "फ़ोटो एक ही रंग की है: क्या लेंस ढका है या रोशनी बंद है?"


def test_a_record_that_cannot_be_opened_is_explained_in_the_last_chosen_language(
    tmp_path: Path, compiled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The choice is kept in the record and, as a copy, beside it: the fault screens need it when the
    record itself will not open."""
    monkeypatch.setattr(i18n, "LOCALE_DIR", compiled)
    kiosk = Kiosk(Store(tmp_path))
    kiosk.set_language("ne")
    kiosk.set_digits(i18n.DEVANAGARI)
    i18n.set_language("en")
    i18n.set_digits(i18n.WESTERN)
    (tmp_path / "tabletally.sqlite3").write_bytes(b"not a database")
    i18n.use_saved_choice(tmp_path)
    assert (i18n.language(), i18n.digits()) == ("ne", i18n.DEVANAGARI)
    (tmp_path / i18n.CHOICE_FILE).write_text("xx yy\n", encoding="utf-8")
    i18n.set_language("en")
    i18n.use_saved_choice(tmp_path)  # a damaged copy changes nothing
    assert i18n.language() == "en"
