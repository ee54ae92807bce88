"""Rebuild TableTally Sans from the Debian font packages (developers only; the kiosk ships the result).

TableTally Sans = Noto Sans (Latin, Latin-1, punctuation) + Noto Sans Devanagari (with its shaping tables)
+ the card suits and a few symbols from DejaVu Sans (scaled to 1000 units per em), so that one font renders
player names in Latin or Devanagari script and the suit signs. Kivy's SDL2 text provider has no per-glyph
font fallback, which is why the fallback is built into the font itself.

    python -m ui.fonts.build    # needs fonts-noto-core and fonts-dejavu-core, and fontTools
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

NOTO = Path("/usr/share/fonts/truetype/noto")
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
HERE = Path(__file__).resolve().parent
FAMILY = "TableTally Sans"

LATIN = [*range(0x20, 0x250), *range(0x2000, 0x2070), 0x20B9, 0x2212, 0x00D7, 0x2022]
SYMBOLS = [
    *range(0x2660, 0x2668),
    0x2713,
    0x2714,
    0x2715,
    0x2716,
    0x2605,
    0x25B2,
    0x25BC,
    0x25C0,
    0x25B6,
    0x21B6,
    0x21BA,
    0x232B,
    0x2190,
    0x2191,
    0x2192,
    0x2193,
]


def _subset(path: Path, unicodes: list[int], out: Path, upem: int | None = None) -> None:
    from fontTools import subset
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.scaleUpem import scale_upem

    font = TTFont(str(path))
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes)
    subsetter.subset(font)
    if upem:
        scale_upem(font, upem)
    font.save(str(out))


def build(style: str, dejavu_file: str, out_dir: Path = HERE) -> Path:
    from fontTools import merge

    with tempfile.TemporaryDirectory() as tmp:
        latin, symbols = Path(tmp, "latin.ttf"), Path(tmp, "symbols.ttf")
        _subset(NOTO / f"NotoSans-{style}.ttf", LATIN, latin)
        _subset(DEJAVU / dejavu_file, SYMBOLS, symbols, upem=1000)
        font = merge.Merger().merge([str(latin), str(NOTO / f"NotoSansDevanagari-{style}.ttf"), str(symbols)])
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID in (4,):
            names.setName(f"{FAMILY} {style}", 4, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName(f"TableTallySans-{style}", 6, record.platformID, record.platEncID, record.langID)
    out = out_dir / f"TableTallySans-{style}.ttf"
    font.save(str(out))
    return out


def main() -> int:
    for style, dejavu in (("Regular", "DejaVuSans.ttf"), ("Bold", "DejaVuSans-Bold.ttf")):
        print(build(style, dejavu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
