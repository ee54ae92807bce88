"""The kiosk's words in the players' language.

Every word a player can see goes through `_` (or `ngettext` where a count decides the form), so gettext
catalogs under `ui/locale/<lang>/LC_MESSAGES/tabletally.mo` translate it. Strings defined at import time are
marked with `N_` and translated where they are shown, so switching language redraws them too.

Numbers shown to the players go through `num` (or `digits_in` for text that already holds numbers), so one
setting decides between Western digits (0123456789, the default) and Devanagari digits (०१२३४५६७८९).

The `.po` catalogs are the source; the `.mo` files are compiled from them at build time (`make catalogs`,
and the package build), never by hand. English is the source text and needs no catalog.
"""

from __future__ import annotations

import contextlib
import gettext
import sys
from collections.abc import Callable
from pathlib import Path

DOMAIN = "tabletally"
LOCALE_DIR = Path(__file__).parent / "locale"
DEFAULT_LANGUAGE = "en"
# Each language under its own name, as its speakers write it.
LANGUAGES: dict[str, str] = {"en": "English", "ne": "नेपाली", "hi": "हिन्दी"}
WESTERN = "western"
DEVANAGARI = "devanagari"
DIGIT_STYLES = (WESTERN, DEVANAGARI)
_DEVANAGARI_DIGITS = str.maketrans("0123456789", "०१२३४५६७८९")

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = DEFAULT_LANGUAGE
_digits = WESTERN
_listeners: list[Callable[[], None]] = []


def set_language(code: str) -> None:
    """Use the catalog of `code` ("en", "ne", "hi"); English is the source text, so it needs none."""
    global _translation, _language
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r} (expected one of {', '.join(LANGUAGES)})")
    if code == DEFAULT_LANGUAGE:
        _translation = gettext.NullTranslations()
    else:
        try:
            _translation = gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[code])
        except FileNotFoundError:
            # A checkout whose catalogs were never compiled: keep working in English, and say how to fix it.
            print(
                f"tabletally: no compiled catalog for {code!r} in {LOCALE_DIR}; run `make catalogs`",
                file=sys.stderr,
            )
            _translation = gettext.NullTranslations()
    _language = code
    _changed()


def language() -> str:
    """The language in use now."""
    return _language


def set_digits(style: str) -> None:
    """Show numbers with Western (the default) or Devanagari digits."""
    global _digits
    if style not in DIGIT_STYLES:
        raise ValueError(f"unknown digits {style!r} (expected {' or '.join(DIGIT_STYLES)})")
    _digits = style
    _changed()


def digits() -> str:
    """The digit style in use now ("western" or "devanagari")."""
    return _digits


def num(value: int | float | str) -> str:
    """A number as the players read it, in the digits chosen in Settings."""
    return digits_in(str(value))


def digits_in(text: str) -> str:
    """`text` with its Western digits written in the digits chosen in Settings."""
    return text.translate(_DEVANAGARI_DIGITS) if _digits == DEVANAGARI else text


CHOICE_FILE = "language.txt"  # beside the record: "<language> <digits>"


def save_choice(folder: Path) -> None:
    """Keep a copy of the language and digits in use beside the record, so that a kiosk whose record cannot
    be opened still explains that in the players' language. Best effort: the record holds the choice."""
    with contextlib.suppress(OSError):
        (Path(folder) / CHOICE_FILE).write_text(f"{_language} {_digits}\n", encoding="utf-8")


def use_saved_choice(folder: Path) -> None:
    """Speak the language (and use the digits) last chosen on the kiosk whose record is in `folder`."""
    try:
        words = (Path(folder).expanduser() / CHOICE_FILE).read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError):
        return
    if len(words) == 2 and words[0] in LANGUAGES and words[1] in DIGIT_STYLES:
        set_language(words[0])
        set_digits(words[1])


def on_change(listener: Callable[[], None]) -> Callable[[], None]:
    """Call `listener` after every change of language or digits (the kiosk redraws its screens)."""
    _listeners.append(listener)
    return listener


def remove_listener(listener: Callable[[], None]) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def _changed() -> None:
    for listener in list(_listeners):
        listener()


def _(message: str) -> str:
    """`message` in the language in use (its own digits, such as the 200 of "Exactly 200 halves", in the
    digits chosen in Settings; the values put into its {placeholders} go through `num`)."""
    if not message:
        return message  # gettext("") is the catalog's header, never a word on screen
    return digits_in(_translation.gettext(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted phrase that the language's plural rule picks for `n`."""
    return digits_in(_translation.ngettext(singular, plural, n))


def N_(message: str) -> str:
    """Marks `message` for the catalogs without translating it yet (for module-level constants)."""
    return message
