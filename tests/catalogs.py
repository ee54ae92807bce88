"""Whether a language's compiled catalog is in the checkout, for the tests that need the kiosk to speak it.

The `.mo` files are built, not kept in git: `make catalogs` (which `make test` runs first) compiles them,
and the package build compiles them into what the Pi installs. A test run straight after a clone, without
`make catalogs`, skips those tests (tests/ui/test_i18n_kiosk.py fails instead and says to compile them).
"""

from __future__ import annotations

from ui.i18n import DEFAULT_LANGUAGE, DOMAIN, LOCALE_DIR


def has_catalog(code: str) -> bool:
    """Whether the compiled catalog of `code` is there (English needs none)."""
    return code == DEFAULT_LANGUAGE or (LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file()
