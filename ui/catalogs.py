"""Compiling the kiosk's gettext catalogs (`.po` -> `.mo`) with Babel, at build time.

`make catalogs` runs `pybabel compile`; a package build (`pip install .`, as the Pi installer does) runs
:class:`BuildPy`, which compiles the same catalogs into the build so an installed kiosk has its `.mo` files.
Babel is needed only to build, never at run time (the kiosk reads `.mo` files with the stdlib's gettext).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from setuptools.command.build_py import build_py  # type: ignore[import-untyped]

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "tabletally"


def compile_catalog(po: Path, mo: Path) -> None:
    """Compile one `.po` catalog into `mo`; fuzzy entries are left out (they read as untranslated)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name, domain=DOMAIN)
    mo.parent.mkdir(parents=True, exist_ok=True)
    with mo.open("wb") as f:
        write_mo(f, catalog, use_fuzzy=False)


class BuildPy(build_py):  # type: ignore[misc]  # setuptools' commands are untyped
    """setuptools' build_py, plus the compiled catalogs placed beside their `.po` files in the build."""

    def run(self) -> None:
        super().run()
        source = Path(__file__).resolve().parent / "locale"
        for po in sorted(source.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
            target = Path(self.build_lib) / "ui" / po.relative_to(source.parent).with_suffix(".mo")
            compile_catalog(po, target)

    def get_outputs(self, *args: Any, **kw: Any) -> list[str]:
        source = Path(__file__).resolve().parent / "locale"
        mos = [
            str(Path(self.build_lib) / "ui" / po.relative_to(source.parent).with_suffix(".mo"))
            for po in sorted(source.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
        ]
        return list(super().get_outputs(*args, **kw)) + mos
