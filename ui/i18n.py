"""The kiosk's words in the players' language.

Every word a player can see goes through `_` (or `ngettext` where a count decides the form), so gettext
catalogs under `ui/locale/<lang>/LC_MESSAGES/tabletally.mo` translate it. Strings defined at import time are
marked with `N_` and translated where they are shown, so switching language redraws them too.
"""

from __future__ import annotations

import gettext
from pathlib import Path

DOMAIN = "tabletally"
LOCALE_DIR = Path(__file__).parent / "locale"
DEFAULT_LANGUAGE = "en"

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = DEFAULT_LANGUAGE


def set_language(code: str) -> None:
    """Use the catalog of `code` ("en", "ne", "hi"); English is the source text, so it needs none."""
    global _translation, _language
    if code == DEFAULT_LANGUAGE:
        _translation = gettext.NullTranslations()
    else:
        _translation = gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[code], fallback=True)
    _language = code


def language() -> str:
    """The language in use now."""
    return _language


def _(message: str) -> str:
    """`message` in the language in use."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted phrase that the language's plural rule picks for `n`."""
    return _translation.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks `message` for the catalogs without translating it yet (for module-level constants)."""
    return message
