"""Procedural decks: card faces drawn from scratch with the installed fonts, for more index designs.

The 17 SVG training designs print their corner index (rank + suit pip) in only a handful of fonts. A
procedural deck draws every face itself: a rank font chosen among the installed Latin TrueType/OpenType
fonts (DejaVu, Noto, URW base35, Liberation, ...; a family first, then one of its styles), its weight and
size (index 10-22 % of the card height; on a fifth of the decks 23-32 %, jumbo indices), rank glyphs
squeezed to a condensed width on a third of the decks, margins, the pip under the rank (or, rarely, beside
it) as a font glyph or a drawn polygon, 2- or 4-colour palettes, off-white to cream paper, borders,
rounded corners; number cards get a real pip layout (sometimes on a coloured panel framed by a thin line),
court cards a framed picture cut from a rendered SVG training deck's court card, the joker "JOKER"
written down its corner and a star or a jester's hat. Decks from ``SECOND_GENERATION`` on pick each court
card's picture for that card (any source deck, any court rank, some hue-turned) and often mark the joker's
corner with a star, a ringed star or a star cut out of a disc instead of the word. Decks from
``THIRD_GENERATION`` on often draw the court letters J, Q, K in a font of their own (not the digits'), and
put a large pip in the court pictures' corners beside the index.

``render_procedural_decks(out_dir, count, seed)`` writes ``proc-00``, ``proc-01``, ... into ``out_dir`` in
the format of :mod:`models.training.data.faces` (``<code>.png`` RGBA for the 52 cards and ``JK``,
``back.png``,
``corners.json``), so :mod:`models.training.data.scenes` uses them like any rendered deck. The index box
is exact: it is
the union of the ink the index drawing put on every card (plus a small pad), not a measurement. Each deck
depends only on the seed, its number, the installed fonts and the SVG decks rendered in ``out_dir``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from models.training.classes import JOKER, RANKS, SUITS
from models.training.data.corners import Box
from models.training.data.decks import PROCEDURAL_PREFIX
from models.training.data.faces import BACK, CORNERS_FILE, FACE_WIDTH
from scorer.cards import CARD_CODES

FONT_ROOT = Path("/usr/share/fonts")
SS = 2  # drawn at this multiple of the output size, then area-downscaled (anti-aliasing)
NEEDED_GLYPHS = "A0123456789JQK"
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
# Latin text families (file name before the first '-'); script, symbol and maths fonts are not index fonts.
LATIN_FAMILY = re.compile(
    r"^(DejaVu(Sans|Serif)(Condensed|Mono)?|Noto(Sans|Serif)(Display|Mono)?|Liberation(Sans|Serif|Mono)"
    r"(Narrow)?|Free(Sans|Serif|Mono)|Ubuntu(Mono|Condensed)?|Cantarell|OpenSans|Roboto(Condensed|Slab|Mono)?"
    r"|Lato|SourceSans3|SourceSerif4|Carlito|Caladea|NimbusRoman|NimbusSans(Narrow)?|C059|P052|URWBookman"
    r"|URWGothic|BebasNeue|Dosis|Jura|B612(Mono)?|OCRB|Inter(Display)?|LeagueSpartan)$"
)
PIP_FAMILY = re.compile(r"^(DejaVu(Sans|Serif)(Condensed|Mono)?|NotoSansSymbols2?)$")
# SVG decks whose court cards are no picture but a big letter and pip (an unlabelled index look-alike)
NO_COURT_SOURCE = ("ais-simplistic",)
# SVG decks whose court "pictures" are a giant letter of the rank (larger than any index on the card): a
# per-card picture (second generation on) from these shows the card's own rank, never another's, so that
# no court card carries a wrong letter (a Q showing a giant K would teach the wrong rank)
LETTER_COURT_SOURCE = ("jolly-royal",)
ITALIC_SHARE = 0.12  # decks whose index font is italic/oblique (rare on real cards)
TALL_SHARE = 0.2  # decks whose index (rank + pip) is 23-32 % of the card height, as on jumbo-index decks
NARROW_SHARE = 0.3  # decks whose rank glyphs are squeezed to 62-88 % of their width (condensed indices)
# Decks whose J, Q and K show one another's court pictures: in the other decks the picture tells the rank as
# well as the index does, so a model may learn the training decks' pictures instead of the letters; these
# decks reward reading the letter (court cards are the ranks most often read as another).
COURT_SWAP_SHARE = 0.4
# Decks numbered from here on are the second generation: each court card shows a
# picture of its own, drawn for that card from any SVG training deck, of any court rank, half of them with
# the colours turned round the hue circle, so that no picture tells the rank (the held-out designs' court
# cards were still the weakest classes); and the joker's corner shows a star, a ringed star or a star cut
# out of a disc in 60 % of them (the held-out decks' jokers show a ringed star), "JOKER" down the corner in
# the rest. Every earlier deck keeps all its values: these are drawn after the others.
SECOND_GENERATION = 64
# Decks numbered from here on are the third generation: as the second, and in
# ``COURT_FONT_SHARE`` of them the court letters J, Q and K come in a font of their own, not the digits'
# (often condensed: the held-out decks' court letters, a condensed sans and a slab, were read as one another
# more than any other confusion); in ``COURT_PIP_SHARE`` a large pip of the suit sits in the top-left corner
# of each court picture (and the bottom-right one), beside the index, as on many modern decks.
THIRD_GENERATION = 128
COURT_FONT_SHARE = 0.6
COURT_PIP_SHARE = 0.4
FAINT_STYLES = ("Hairline", "Thin", "ExtraLight", "UltraLight")  # too faint for the court letters' own font
JOKER_MARKS = ("letters", "star", "ring", "disc")
JOKER_MARK_SHARES = (0.4, 0.15, 0.25, 0.2)
COURT_HUE_SHARE = 0.5
INDEX_PAD = (0.008, 0.005)  # pad of the index box around the drawn ink, fractions of width and height
COURT_RANKS = ("J", "Q", "K")
# standard pip positions of the number cards: (column -1/0/1, row 0..1 from top to bottom)
PIP_LAYOUT: dict[str, tuple[tuple[int, float], ...]] = {
    "2": ((0, 0), (0, 1)),
    "3": ((0, 0), (0, 0.5), (0, 1)),
    "4": ((-1, 0), (1, 0), (-1, 1), (1, 1)),
    "5": ((-1, 0), (1, 0), (0, 0.5), (-1, 1), (1, 1)),
    "6": ((-1, 0), (1, 0), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)),
    "7": ((-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)),
    "8": ((-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (0, 0.75), (-1, 1), (1, 1)),
    "9": ((-1, 0), (1, 0), (-1, 1 / 3), (1, 1 / 3), (0, 0.5), (-1, 2 / 3), (1, 2 / 3), (-1, 1), (1, 1)),
    "10": (
        (-1, 0),
        (1, 0),
        (0, 1 / 6),
        (-1, 1 / 3),
        (1, 1 / 3),
        (-1, 2 / 3),
        (1, 2 / 3),
        (0, 5 / 6),
        (-1, 1),
        (1, 1),
    ),
}

RGB = tuple[float, float, float]


class FontError(RuntimeError):
    """No usable font for the procedural decks on this machine."""


# ------------------------------------------------------------------------------------------------- fonts


def _cmap(path: Path) -> set[int] | None:
    try:
        from fontTools.ttLib import TTFont
    except ImportError:  # pragma: no cover - fontTools comes with matplotlib (ultralytics)
        return None
    try:
        with TTFont(path, fontNumber=0, lazy=True) as font:
            return set((font.getBestCmap() or {}).keys())
    except Exception:  # an unreadable font file is just not used
        return set()


def _has_glyphs(path: Path, chars: str) -> bool:
    cmap = _cmap(path)
    if cmap is not None:
        return all(ord(c) in cmap for c in chars)
    # without fontTools: a missing glyph renders as the font's .notdef box, the same as a private-use char
    try:
        font = ImageFont.truetype(str(path), 40)
    except OSError:
        return False
    notdef = bytes(font.getmask("\U0010fffd"))
    return all(bytes(font.getmask(c)) != notdef for c in chars)


def _font_files(root: Path) -> list[Path]:
    files = [p for p in root.rglob("*") if p.suffix.lower() in (".ttf", ".otf", ".ttc") and p.is_file()]
    return sorted(files, key=lambda p: (p.name, str(p)))


def find_fonts(root: Path = FONT_ROOT) -> list[Path]:
    """Latin text fonts under ``root`` that have the glyphs A, 0-9, J, Q, K; sorted by file name."""
    fonts = list(_latin_fonts(root))
    if not fonts:
        raise FontError(
            f"no Latin TrueType/OpenType font with the glyphs {NEEDED_GLYPHS} under {root}: "
            "install fonts-dejavu-core and fonts-noto-core (deploy/dev-setup.sh)"
        )
    return fonts


@lru_cache(maxsize=8)
def _latin_fonts(root: Path) -> tuple[Path, ...]:  # reading every font's glyph table takes a second or two
    return tuple(
        p
        for p in _font_files(root)
        if LATIN_FAMILY.match(p.stem.split("-")[0]) and _has_glyphs(p, NEEDED_GLYPHS)
    )


def find_pip_fonts(root: Path = FONT_ROOT) -> list[Path]:
    """Upright fonts under ``root`` with the four suit glyphs (DejaVu, Noto Sans Symbols 2); may be empty."""
    chars = "".join(SUIT_CHARS.values())
    return [
        p
        for p in _font_files(root)
        if PIP_FAMILY.match(p.stem.split("-")[0]) and not _slanted(p) and _has_glyphs(p, chars)
    ]


@lru_cache(maxsize=256)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def _text_mask(path: Path, size: int, text: str, stroke: int = 0) -> tuple[np.ndarray, int]:
    """The ink of ``text`` (float 0..1, cropped to the ink) and the row of its baseline in the mask."""
    font = _font(str(path), size)
    left, top, right, bottom = font.getbbox(text, anchor="ls", stroke_width=stroke)
    pad = 4 + stroke
    img = Image.new("L", (right - left + 2 * pad, bottom - top + 2 * pad), 0)
    ImageDraw.Draw(img).text(
        (pad - left, pad - top), text, font=font, fill=255, anchor="ls", stroke_width=stroke, stroke_fill=255
    )
    a = np.asarray(img)
    ys, xs = np.nonzero(a > 0)
    if len(xs) == 0:
        raise FontError(f"{path.name}: {text!r} draws no ink")
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    return a[y0:y1, x0:x1].astype(np.float32) / 255, int(pad - top - y0)


def _cap_height(path: Path, size: int = 200) -> float:
    """Ink height of "10" above the baseline at ``size``, per unit of font size."""
    font = _font(str(path), size)
    return -font.getbbox("10", anchor="ls")[1] / size


def _resize(mask: np.ndarray, w: int, h: int) -> np.ndarray:
    w, h = max(1, int(round(w))), max(1, int(round(h)))
    interp = cv2.INTER_AREA if w <= mask.shape[1] and h <= mask.shape[0] else cv2.INTER_CUBIC
    return np.clip(cv2.resize(mask, (w, h), interpolation=interp), 0, 1)


# --------------------------------------------------------------------------------------------- suit pips


def _heart_curve(n: int = 160) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.stack([x, y], 1)
    pts -= pts.min(axis=0)
    return pts / pts.max(axis=0)  # unit box, tip at the bottom


def _stem(cx: float, top: float, flare: float, waist: float) -> np.ndarray:
    """A stem from (cx, top) to the bottom of the unit box, concave sides, base half-width ``flare``."""
    ys = np.linspace(top, 1.0, 12)
    t = (ys - top) / (1.0 - top)
    half = waist + (flare - waist) * t**2
    return np.concatenate([np.stack([cx - half, ys], 1), np.stack([cx + half, ys], 1)[::-1]])


def _poly_pip(suit: str, h: int, shape: tuple[float, float, float]) -> np.ndarray:
    """A suit pip drawn as polygons, ``h`` pixels high; shape = (width ratio, stem flare, diamond sag)."""
    ratio, flare, sag = shape
    k = 4  # drawn 4x larger, then area-downscaled
    wr = {"H": 1.08, "D": ratio * 0.8, "S": 0.92, "C": 1.0}[suit]
    w = max(3, int(round(h * wr)))
    bw, bh = w * k, h * k
    m = np.zeros((bh, bw), np.uint8)

    def draw(pts: np.ndarray) -> None:
        q = np.round(pts * [bw - 1, bh - 1] * 16).astype(np.int32)
        cv2.fillPoly(m, [q], 255, cv2.LINE_AA, shift=4)

    if suit == "H":
        draw(_heart_curve())
    elif suit == "D":
        t = np.linspace(0, 1, 10)[:, None]
        corners = np.array([[0.5, 0.0], [1.0, 0.5], [0.5, 1.0], [0.0, 0.5], [0.5, 0.0]])
        pts = []
        for a, b in zip(corners[:-1], corners[1:], strict=True):
            seg = a + (b - a) * t
            inward = np.array([0.5, 0.5]) - (a + b) / 2
            seg = seg + inward * sag * 4 * (t * (1 - t))
            pts.append(seg[:-1])
        draw(np.concatenate(pts))
    elif suit == "S":
        heart = _heart_curve()
        heart = np.stack([heart[:, 0], (1 - heart[:, 1]) * 0.8], 1)  # tip up, top 80 %
        draw(heart)
        draw(_stem(0.5, 0.55, 0.1 + 0.12 * flare, 0.03))
    else:  # clubs: three lobes and a stem
        r = 0.235
        for cx, cy in ((0.5, r), (r, 0.56), (1 - r, 0.56)):
            cv2.circle(m, (int(cx * bw), int(cy * bh)), int(r * min(bw, bh)), 255, -1, cv2.LINE_AA)
        draw(np.array([[0.5, 0.3], [0.3, 0.6], [0.7, 0.6]]))
        draw(_stem(0.5, 0.5, 0.1 + 0.12 * flare, 0.03))
    return _resize(m.astype(np.float32) / 255, w, h)


# ---------------------------------------------------------------------------------------------- the style


@dataclass(frozen=True)
class DeckStyle:
    """Everything that makes one procedural deck look the way it does (drawn once per deck)."""

    aspect: float  # width / height
    paper: RGB
    radius: float  # corner radius, fraction of the width
    border: tuple[float, float, RGB] | None  # inset and line width (fractions of the width), colour
    rank_font: Path
    rank_stroke: float  # faux-bold stroke, fraction of the index cap height (0 = none)
    cap: float  # cap height of the rank glyphs, fraction of the card height
    ten_xscale: float  # "10" squeezed horizontally (1 = as the font draws it)
    ten_tracking: float  # extra gap (negative: overlap) between "1" and "0", fraction of the cap height
    pip_font: Path | None  # the index and centre pips as this font's glyphs, or drawn polygons
    pip_shape: tuple[float, float, float]
    pip_h: float  # height of the index pip, fraction of the card height
    gap: float  # between the rank and the pip, fraction of the card height
    margin: tuple[float, float]  # index's left (fraction of width) and top (fraction of height) margins
    align: str  # "centre" (pip under the middle of the rank) or "left"
    beside: bool  # the pip right of the rank instead of under it
    colours: dict[str, RGB]
    panel: tuple[RGB, RGB, float] | None  # number-card centre panel: fill, frame line, vertical inset
    centre_pip: float  # centre pip height, fraction of the card width
    centre_inset: float  # top/bottom margin of the pip grid, fraction of the height
    ace_pip: float  # ace pip height, fraction of the height
    court_source: str | None  # rendered SVG deck whose court pictures fill the frames
    frame: tuple[RGB, float, float]  # court frame line colour, line width (fraction of width), top inset
    joker: tuple[RGB, float, str]  # colour, letter cap height (fraction of height), centre figure
    back: tuple[RGB, RGB, str, float, float]  # base, pattern colour, pattern, margin, pattern pitch
    summary: dict[str, object] = field(default_factory=dict)
    rank_xscale: float = 1.0  # every rank squeezed horizontally (1 = as the font draws it)
    court_pictures: tuple[str, str, str] = COURT_RANKS  # the picture drawn on J, Q, K: of these ranks
    # second generation: each court card's picture drawn for that card (source deck, rank, hue) from this
    # seed among these decks; None: the deck's ``court_source`` and ``court_pictures``
    court_mix: int | None = None
    court_sources: tuple[str, ...] = ()
    joker_mark: str = "letters"  # the joker's corner: one of JOKER_MARKS
    joker_mark_size: float = 0.1  # the mark's diameter, fraction of the card width (not for "letters")
    # third generation: J, Q and K in this font (None: the rank font), squeezed to this width; a large pip
    # of this height (fraction of the card height; 0: none) in the court picture's corners
    court_font: Path | None = None
    court_xscale: float = 1.0
    court_pip: float = 0.0

    def court_picture_rank(self, rank: str) -> str:
        """The rank whose court picture the ``rank`` card shows (itself unless the deck swaps them)."""
        return self.court_pictures[COURT_RANKS.index(rank)]

    @property
    def index_height(self) -> float:
        """Height of the whole index (rank, gap, pip), fraction of the card height."""
        return _index_height(self.cap, self.gap, self.pip_h)


def _index_height(cap: float, gap: float, pip_h: float) -> float:
    return cap * 1.04 + gap + pip_h  # rank ink runs a little past the cap height


def _slanted(font: Path) -> bool:
    return any(w in font.stem for w in ("Italic", "Oblique", "Slanted"))


def _near(rng: np.random.Generator, rgb: Sequence[float], spread: float) -> RGB:
    c = np.clip(np.asarray(rgb, float) + rng.uniform(-spread, spread, 3), 0, 255)
    return (float(c[0]), float(c[1]), float(c[2]))


def sample_style(
    rng: np.random.Generator,
    fonts: Sequence[Path],
    pip_fonts: Sequence[Path],
    sources: Sequence[str],
    generation: int = 1,
) -> DeckStyle:
    """Draw a deck style; every draw is made whatever the outcome, so later draws do not shift.

    ``generation`` 2: own picture per court card, star marks on the joker (``SECOND_GENERATION``); 3: as 2,
    and court letters in a font of their own, large pips beside the court index (``THIRD_GENERATION``). The
    draws for each generation come after the earlier ones', so those keep their values.
    """
    if generation not in (1, 2, 3):
        raise ValueError(f"generation must be 1, 2 or 3, got {generation}")
    aspect = float(rng.uniform(0.69, 0.72))
    cream = float(rng.uniform(0, 1) ** 2)
    paper = _near(rng, np.array([253, 253, 251]) * (1 - cream) + np.array([247, 238, 214]) * cream, 2)
    radius = float(rng.uniform(0.03, 0.075))
    border_on = rng.random() < 0.3
    border_rgb = _near(rng, [[40, 40, 40], [30, 50, 120], [150, 30, 30]][int(rng.integers(3))], 20)
    border = (float(rng.uniform(0.025, 0.045)), float(rng.uniform(0.004, 0.009)), border_rgb)
    slanted = [f for f in fonts if _slanted(f)]
    upright = [f for f in fonts if not _slanted(f)] or slanted
    pool = slanted if rng.random() < ITALIC_SHARE and slanted else upright
    rank_font = _pick_font(pool, int(rng.integers(1 << 30)))
    rank_stroke = float(rng.uniform(0.02, 0.045)) if rng.random() < 0.12 else 0.0
    beside = rng.random() < 0.08
    cap = float(rng.uniform(0.06, 0.115))
    pip_h = cap * float(rng.uniform(0.55, 0.95))
    gap = float(rng.uniform(0.004, 0.018))
    if beside:  # a smaller index: rank and pip side by side must leave room for the centre
        cap = 0.06 + (cap - 0.06) * 0.35
        pip_h = cap * float(rng.uniform(0.6, 0.8))
    else:  # the whole index 10-22 % of the card height
        total = _index_height(cap, gap, pip_h)
        k = float(np.clip(total, 0.10, 0.22)) / total
        cap, pip_h, gap = cap * k, pip_h * k, gap * k
    squeeze = rng.random()
    ten_xscale = float(rng.uniform(0.68, 0.85)) if squeeze < 0.25 else 1.0
    ten_tracking = float(rng.uniform(-0.12, 0.0)) if 0.25 <= squeeze < 0.45 else 0.0
    use_glyph = rng.random() < 0.5 and len(pip_fonts) > 0
    pip_pick = int(rng.integers(1 << 30))
    pip_font = pip_fonts[pip_pick % len(pip_fonts)] if use_glyph else None
    pip_shape = (float(rng.uniform(0.8, 0.95)), float(rng.uniform(0, 1)), float(rng.uniform(0.0, 0.09)))
    margin = (float(rng.uniform(0.025, 0.045 if beside else 0.07)), float(rng.uniform(0.018, 0.05)))
    align = "left" if rng.random() < 0.15 else "centre"
    black = _near(rng, [rng.uniform(0, 40)] * 3, 6)
    red = (float(rng.uniform(180, 235)), float(rng.uniform(0, 40)), float(rng.uniform(15, 60)))
    colours = {"S": black, "C": black, "H": red, "D": red}
    four = rng.random() < 0.2
    blue = (float(rng.uniform(0, 40)), float(rng.uniform(60, 120)), float(rng.uniform(160, 220)))
    green = (float(rng.uniform(0, 40)), float(rng.uniform(110, 150)), float(rng.uniform(30, 80)))
    if four:
        colours = {**colours, "D": blue, "C": green}
    panel_on = rng.random() < 0.25
    fills = ([247, 238, 170], [250, 244, 205], [252, 236, 150], [218, 232, 246], [236, 240, 224])
    panel_fill = _near(rng, fills[int(rng.integers(len(fills)))], 6)
    panel_line = _near(rng, [40, 40, 40], 25)
    panel = (panel_fill, panel_line, float(rng.uniform(0.12, 0.2))) if panel_on else None
    centre_pip = float(rng.uniform(0.12, 0.19))
    centre_inset = float(rng.uniform(0.07, 0.13))
    ace_pip = float(rng.uniform(0.18, 0.36))
    src_pick = int(rng.integers(1 << 30))
    court_source = sources[src_pick % len(sources)] if sources else None
    frame_rgb = _near(
        rng, [[30, 30, 30], [40, 60, 140], [160, 120, 40], [140, 30, 30]][int(rng.integers(4))], 15
    )
    frame = (frame_rgb, float(rng.uniform(0.003, 0.01)), float(rng.uniform(0.035, 0.09)))
    joker_rgb = red if rng.random() < 0.5 else black
    joker = (joker_rgb, float(rng.uniform(0.032, 0.05)), "star" if rng.random() < 0.5 else "hat")
    backs = ([150, 25, 30], [25, 45, 130], [20, 95, 50], [30, 30, 35], [90, 30, 110], [20, 100, 130])
    base = _near(rng, backs[int(rng.integers(len(backs)))], 20)
    pattern_rgb = _near(rng, [235, 230, 220], 15)
    pattern = ("stripes", "grid", "dots", "checks", "lattice")[int(rng.integers(5))]
    back = (base, pattern_rgb, pattern, float(rng.uniform(0.035, 0.075)), float(rng.uniform(0.035, 0.08)))
    # Drawn last, so that the draws above keep their values: jumbo and condensed indices (ivr_edinburgh's
    # deck prints a tall, narrow index of 30 % of the card height).
    tall = rng.random() < TALL_SHARE
    tall_total = float(rng.uniform(0.23, 0.32))
    narrow = rng.random() < NARROW_SHARE
    narrow_x = float(rng.uniform(0.62, 0.88))
    if tall and not beside:
        k = tall_total / _index_height(cap, gap, pip_h)
        cap, pip_h, gap = cap * k, pip_h * k, gap * k
    rank_xscale = narrow_x if narrow else 1.0
    # Drawn after those: the court pictures moved one place round J -> Q -> K (either way).
    swap = rng.random() < COURT_SWAP_SHARE
    step = 1 if rng.random() < 0.5 else 2
    court_pictures = tuple(COURT_RANKS[(i + step) % 3] for i in range(3)) if swap else COURT_RANKS
    # Drawn after those: the second generation's court pictures and joker mark.
    court_mix = int(rng.integers(1 << 30))
    joker_mark = JOKER_MARKS[int(np.searchsorted(np.cumsum(JOKER_MARK_SHARES), rng.random(), side="right"))]
    joker_mark_size = float(rng.uniform(0.075, 0.12))
    if generation < 2:
        court_mix, joker_mark = None, "letters"
    # Drawn after those: the third generation's court letters and court pips.
    court_font_pick = int(rng.integers(1 << 30))
    court_font_on = rng.random() < COURT_FONT_SHARE
    court_narrow = rng.random() < 0.5
    court_x = float(rng.uniform(0.62, 0.92))
    court_pip_on = rng.random() < COURT_PIP_SHARE
    court_pip = float(rng.uniform(0.09, 0.15))
    bold_enough = [f for f in upright if not any(w in f.stem for w in FAINT_STYLES)] or upright
    court_font = _pick_font(bold_enough, court_font_pick) if court_font_on and generation >= 3 else None
    narrow_court = court_x if court_narrow else 1.0
    court_xscale = rank_xscale if court_font is None else narrow_court  # None: drawn as the other ranks
    if not (court_pip_on and generation >= 3):
        court_pip = 0.0
    summary = {
        "rank_font": rank_font.name,
        "index_height": round(_index_height(cap, gap, pip_h), 3),
        "rank_xscale": round(rank_xscale, 2),
        "pip": pip_font.name if pip_font else "polygon",
        "colours": 4 if four else 2,
        "panel": panel is not None,
        "border": border_on,
        "beside": beside,
        "court_source": court_source,
        "court_pictures": "".join(court_pictures) if court_mix is None else "per card",
        "joker_mark": joker_mark,
        "court_font": court_font.name if court_font else None,
        "court_pip": court_pip > 0,
    }
    return DeckStyle(
        aspect,
        paper,
        radius,
        border if border_on else None,
        rank_font,
        rank_stroke,
        cap,
        ten_xscale,
        ten_tracking,
        pip_font,
        pip_shape,
        pip_h,
        gap,
        margin,
        align,
        beside,
        colours,
        panel,
        centre_pip,
        centre_inset,
        ace_pip,
        court_source,
        frame,
        joker,
        back,
        summary,
        rank_xscale,
        (court_pictures[0], court_pictures[1], court_pictures[2]),
        court_mix,
        tuple(sources) if court_mix is not None else (),
        joker_mark,
        joker_mark_size,
        court_font,
        court_xscale,
        court_pip,
    )


def _pick_font(pool: Sequence[Path], pick: int) -> Path:
    """A font of ``pool`` by family first, then style, so a family with many weights is not favoured."""
    families: dict[str, list[Path]] = {}
    for font in sorted(pool):
        families.setdefault(font.stem.split("-")[0], []).append(font)
    names = sorted(families)
    styles = families[names[pick % len(names)]]
    return styles[(pick // len(names)) % len(styles)]


# ------------------------------------------------------------------------------------------------ drawing


def _paint(canvas: np.ndarray, mask: np.ndarray, x: int, y: int, rgb: RGB) -> None:
    """Blend ``rgb`` through ``mask`` (0..1) into ``canvas`` (HxWx3 float) with its top-left at (x, y)."""
    h, w = mask.shape
    ch, cw = canvas.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, cw), min(y + h, ch)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y : y1 - y, x0 - x : x1 - x, None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - m) + np.asarray(rgb, np.float32) * m


def _star(cx: float, cy: float, r: float) -> np.ndarray:
    """A five-pointed star, point up, outer radius ``r``: polygon for OpenCV's ``shift=4`` (1/16 px)."""
    ang = np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1]
    rad = np.where(np.arange(10) % 2 == 0, r, r * 0.42)
    return np.round(np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1) * 16).astype(np.int32)


def _draw(canvas: np.ndarray, rgb: Sequence[float], fn: Callable[[np.ndarray], object]) -> None:
    """Blend ``rgb`` into ``canvas`` through an anti-aliased mask that ``fn`` draws (255 = ink)."""
    m = np.zeros(canvas.shape[:2], np.uint8)
    fn(m)
    ys, xs = np.nonzero(m)
    if len(xs) == 0:
        return
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    _paint(canvas, m[y0:y1, x0:x1].astype(np.float32) / 255, int(x0), int(y0), tuple(rgb))


class _Layer:
    """A premultiplied colour + alpha layer (the corner index, drawn once and composited twice)."""

    def __init__(self, h: int, w: int) -> None:
        self.rgb = np.zeros((h, w, 3), np.float32)
        self.alpha = np.zeros((h, w), np.float32)

    def paint(self, mask: np.ndarray, x: int, y: int, rgb: RGB) -> None:
        _paint(self.rgb, mask, x, y, rgb)
        a = self.alpha[..., None]
        _paint(a, mask, x, y, (1.0,))


class DeckPainter:
    """Draws the faces (and back) of one deck style: ``face(code)`` gives a BGRA image ``width`` wide.

    Drawn at ``SS`` times the output size and scaled down; also knows the exact index box of its faces.
    """

    def __init__(self, style: DeckStyle, width: int, out_dir: Path) -> None:
        self.s = style
        self.width = width
        self.height = int(round(width / style.aspect))
        self.W, self.H = width * SS, self.height * SS
        self.out_dir = out_dir
        self._pip_cache: dict[tuple[str, int], np.ndarray] = {}
        cap_px = style.cap * self.H
        self.rank_size = max(6, int(round(cap_px / _cap_height(style.rank_font))))
        self.stroke = int(round(style.rank_stroke * cap_px))
        self.ranks = {r: self._rank_mask(r) for r in RANKS}
        self.region = (SS * int(np.ceil(0.5 * width)), SS * int(np.ceil(0.5 * self.height)))  # w, h
        self.index_box, self.card_boxes = self._measure_index()
        self.joker_box = self._measure_joker()
        # the centre must keep clear of the index column (both corners): its right edge plus a gap
        self.clear_x = int(self.index_box.x1 * self.W + 0.025 * self.W)
        self.mask = self._card_alpha()

    # -- masks
    def _rank_mask(self, rank: str) -> tuple[np.ndarray, int]:
        s = self.s
        if rank == "10" and s.ten_tracking != 0:
            one, b1 = _text_mask(s.rank_font, self.rank_size, "1", self.stroke)
            zero, b0 = _text_mask(s.rank_font, self.rank_size, "0", self.stroke)
            gap = int(round(self.rank_size * 0.06 + s.ten_tracking * s.cap * self.H))
            base = max(b1, b0)
            h = base + max(one.shape[0] - b1, zero.shape[0] - b0)
            w = max(one.shape[1] + gap + zero.shape[1], one.shape[1], zero.shape[1])
            m = np.zeros((h, w), np.float32)
            m[base - b1 : base - b1 + one.shape[0], : one.shape[1]] = one
            x = max(0, one.shape[1] + gap)
            sub = m[base - b0 : base - b0 + zero.shape[0], x : x + zero.shape[1]]
            np.maximum(sub, zero[:, : sub.shape[1]], out=sub)
            return self._narrowed(m, s.rank_xscale), base
        if rank in COURT_RANKS and s.court_font is not None:
            size = max(6, int(round(s.cap * self.H / _cap_height(s.court_font))))
            m, base = _text_mask(s.court_font, size, rank, self.stroke)
            return self._narrowed(m, s.court_xscale), base
        m, base = _text_mask(s.rank_font, self.rank_size, rank, self.stroke)
        if rank == "10" and s.ten_xscale != 1:
            m = _resize(m, m.shape[1] * s.ten_xscale, m.shape[0])
        return self._narrowed(m, s.rank_xscale), base

    @staticmethod
    def _narrowed(m: np.ndarray, xscale: float) -> np.ndarray:
        """``m`` squeezed horizontally to ``xscale`` of its width (1: as it is)."""
        return m if xscale == 1 else _resize(m, m.shape[1] * xscale, m.shape[0])

    def pip(self, suit: str, h: int) -> np.ndarray:
        key = (suit, h)
        if key not in self._pip_cache:
            if self.s.pip_font is not None:
                m, _ = _text_mask(self.s.pip_font, max(6, h * 2), SUIT_CHARS[suit])
                self._pip_cache[key] = _resize(m, m.shape[1] * h / m.shape[0], h)
            else:
                self._pip_cache[key] = _poly_pip(suit, h, self.s.pip_shape)
        return self._pip_cache[key]

    # -- the corner index
    def _corner_origin(self) -> tuple[int, int]:
        """Top-left of the corner index (drawing pixels): the deck's margins, inside its border line."""
        s = self.s
        mx, my = int(s.margin[0] * self.W), int(s.margin[1] * self.H)
        if s.border is not None:
            inset = int((s.border[0] + s.border[1]) * self.W + 0.018 * self.W)
            mx, my = max(mx, inset), max(my, inset)
        return mx, my

    def index_layer(self, code: str) -> _Layer:
        """The top-left corner index of ``code`` in the top-left region (``self.region``)."""
        s = self.s
        rw, rh = self.region
        layer = _Layer(rh, rw)
        if code == JOKER:
            if s.joker_mark == "letters":
                self._joker_letters(layer)
            else:
                self._joker_mark(layer)
            return layer
        rank, suit = code[:-1], code[-1]
        colour = s.colours[suit]
        mx, my = self._corner_origin()
        top_above = max(base for _, base in self.ranks.values())
        below = max(m.shape[0] - base for m, base in self.ranks.values())
        widest = max(m.shape[1] for m, _ in self.ranks.values())
        baseline = my + top_above
        m, base = self.ranks[rank]
        pip_h = max(3, int(round(s.pip_h * self.H)))
        pip = self.pip(suit, pip_h)
        if s.align == "left":
            rx, px = mx, mx
        else:
            cx = mx + widest / 2
            rx, px = int(round(cx - m.shape[1] / 2)), int(round(cx - pip.shape[1] / 2))
        layer.paint(m, rx, baseline - base, colour)
        if s.beside:
            cap = self.ranks["10"][1]
            layer.paint(pip, mx + widest + int(s.gap * self.H), baseline - cap // 2 - pip_h // 2, colour)
        else:
            layer.paint(pip, px, baseline + below + int(s.gap * self.H), colour)
        return layer

    def _joker_letters(self, layer: _Layer) -> None:
        s = self.s
        colour, cap, _ = s.joker
        size = max(6, int(round(cap * self.H / _cap_height(s.rank_font))))
        letters = [_text_mask(s.rank_font, size, ch) for ch in "JOKER"]
        mx, my = self._corner_origin()
        widest = max(m.shape[1] for m, _ in letters)
        pitch = int(round(cap * self.H * 1.25))
        top = max(base for _, base in letters)
        for i, (m, base) in enumerate(letters):
            layer.paint(m, int(mx + widest / 2 - m.shape[1] / 2), my + top + i * pitch - base, colour)

    def _joker_mark(self, layer: _Layer) -> None:
        """The joker's corner as a star, a star in a ring, or a star cut out of a disc."""
        s = self.s
        d = max(8, int(round(s.joker_mark_size * self.W)))
        mx, my = self._corner_origin()
        k = 4  # drawn 4x larger, then area-downscaled
        big = d * k
        m = np.zeros((big, big), np.uint8)
        c = (big - 1) / 2
        star = _star(c, c, c * (1.0 if s.joker_mark == "star" else 0.62))
        if s.joker_mark == "disc":
            cv2.circle(m, (int(c), int(c)), int(c), 255, -1, cv2.LINE_AA)
            cv2.fillPoly(m, [star], 0, cv2.LINE_AA, shift=4)
        else:
            if s.joker_mark == "ring":
                ring = max(k, int(round(big * 0.07)))
                cv2.circle(m, (int(c), int(c)), int(c - ring / 2), 255, ring, cv2.LINE_AA)
            cv2.fillPoly(m, [star], 255, cv2.LINE_AA, shift=4)
        mask = _resize(m.astype(np.float32) / 255, d, d)
        layer.paint(mask, mx, my, s.joker[0])

    def _ink_box(self, layer: _Layer) -> tuple[int, int, int, int]:
        """The ink of a layer in output pixels: x0, y0, x1, y1 (exclusive)."""
        rw, rh = self.region
        a = cv2.resize(layer.alpha, (rw // SS, rh // SS), interpolation=cv2.INTER_AREA)
        ys, xs = np.nonzero(a > 0.06)
        if len(xs) == 0:
            raise FontError(f"{self.s.rank_font.name}: the corner index draws no ink")
        if xs.max() >= a.shape[1] - 1 or ys.max() >= a.shape[0] - 1:
            raise ValueError("corner index does not fit in the corner region")
        return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1

    def _box(self, ink: tuple[int, int, int, int]) -> Box:
        w, h = self.width, self.height
        px, py = INDEX_PAD[0] * w, INDEX_PAD[1] * h
        return Box(
            max(0.0, (ink[0] - px) / w),
            max(0.0, (ink[1] - py) / h),
            min(1.0, (ink[2] + px) / w),
            min(1.0, (ink[3] + py) / h),
        )

    def _measure_index(self) -> tuple[Box, dict[str, list[float]]]:
        inks = {code: self._ink_box(self.index_layer(code)) for code in CARD_CODES if code != JOKER}
        cards = {code: self._box(ink).as_list() for code, ink in inks.items()}
        arr = np.array(list(inks.values()))
        union = (int(arr[:, 0].min()), int(arr[:, 1].min()), int(arr[:, 2].max()), int(arr[:, 3].max()))
        return self._box(union), cards

    def _measure_joker(self) -> Box:
        return self._box(self._ink_box(self.index_layer(JOKER)))

    # -- the card
    def _card_alpha(self) -> np.ndarray:
        m = np.zeros((self.H, self.W), np.uint8)
        r = int(self.s.radius * self.W)
        self._rounded_rect(m, 0, 0, self.W - 1, self.H - 1, r, 255, -1)
        return m.astype(np.float32) / 255

    @staticmethod
    def _rounded_rect(
        img: np.ndarray, x0: int, y0: int, x1: int, y1: int, r: int, colour, thick: int
    ) -> None:
        """A rounded rectangle, filled (thick < 0) or outlined."""
        r = max(0, min(r, (x1 - x0) // 2, (y1 - y0) // 2))
        if thick < 0:
            cv2.rectangle(img, (x0 + r, y0), (x1 - r, y1), colour, -1, cv2.LINE_AA)
            cv2.rectangle(img, (x0, y0 + r), (x1, y1 - r), colour, -1, cv2.LINE_AA)
            for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
                cv2.circle(img, (cx, cy), r, colour, -1, cv2.LINE_AA)
            return
        cv2.line(img, (x0 + r, y0), (x1 - r, y0), colour, thick, cv2.LINE_AA)
        cv2.line(img, (x0 + r, y1), (x1 - r, y1), colour, thick, cv2.LINE_AA)
        cv2.line(img, (x0, y0 + r), (x0, y1 - r), colour, thick, cv2.LINE_AA)
        cv2.line(img, (x1, y0 + r), (x1, y1 - r), colour, thick, cv2.LINE_AA)
        for (cx, cy), a in (
            ((x0 + r, y0 + r), 180),
            ((x1 - r, y0 + r), 270),
            ((x1 - r, y1 - r), 0),
            ((x0 + r, y1 - r), 90),
        ):
            cv2.ellipse(img, (cx, cy), (r, r), a, 0, 90, colour, thick, cv2.LINE_AA)

    def _paper(self) -> np.ndarray:
        s = self.s
        canvas = np.empty((self.H, self.W, 3), np.float32)
        canvas[:] = s.paper
        if s.border is not None:
            inset, lw, rgb = s.border
            i, t = int(inset * self.W), max(1, int(round(lw * self.W)))
            r = max(0, int(s.radius * self.W) - i)
            _draw(
                canvas, rgb, lambda m: self._rounded_rect(m, i, i, self.W - 1 - i, self.H - 1 - i, r, 255, t)
            )
        return canvas

    def _rect_line(self, canvas: np.ndarray, x0: int, y0: int, x1: int, y1: int, rgb: RGB, lw: float) -> None:
        t = max(1, int(round(lw * self.W)))
        _draw(canvas, rgb, lambda m: cv2.rectangle(m, (x0, y0), (x1, y1), 255, t, cv2.LINE_AA))

    def _centre_box(self, inset_y: float) -> tuple[int, int, int, int]:
        """The centre art's box, clear of both corner indices: right of a tall index, below a flat one."""
        if self.s.beside:
            x0 = int(0.13 * self.W)
            y0 = max(int(inset_y * self.H), int((self.index_box.y1 + 0.02) * self.H))
        else:
            x0, y0 = self.clear_x, int(inset_y * self.H)
        return x0, y0, self.W - 1 - x0, self.H - 1 - y0

    def _pips(self, canvas: np.ndarray, rank: str, suit: str) -> None:
        s = self.s
        colour = s.colours[suit]
        if s.panel is not None:
            fill, line, inset = s.panel
            x0, y0, x1, y1 = self._centre_box(inset)
            cv2.rectangle(canvas, (x0, y0), (x1, y1), fill, -1)
            self._rect_line(canvas, x0, y0, x1, y1, line, 0.004)
            pad = int(0.035 * self.W)
            ax0, ay0, ax1, ay1 = x0 + pad, y0 + pad, x1 - pad, y1 - pad
        else:
            ax0, ay0, ax1, ay1 = self._centre_box(s.centre_inset)
        if rank == "A":
            h = int(min(s.ace_pip * self.H, (ax1 - ax0) * 0.9, (ay1 - ay0) * 0.9))
            pip = self.pip(suit, max(4, h))
            _paint(canvas, pip, (self.W - pip.shape[1]) // 2, (self.H - pip.shape[0]) // 2, colour)
            return
        h = int(min(s.centre_pip * self.W, (ay1 - ay0) / 4.6, (ax1 - ax0) / 2.6))
        pip = self.pip(suit, max(4, h))
        pw, ph = pip.shape[1], pip.shape[0]
        left = max(ax0 + pw / 2, 0.3 * self.W)
        if left > self.W / 2 - 0.6 * pw:
            left = self.W / 2 - 0.6 * pw
        cols = {-1: left, 0: self.W / 2, 1: self.W - left}
        top, bottom = ay0 + ph / 2, ay1 - ph / 2
        for col, row in PIP_LAYOUT[rank]:
            cx, cy = cols[col], top + row * (bottom - top)
            m = pip[::-1, ::-1] if row > 0.5 else pip
            _paint(canvas, m, int(round(cx - pw / 2)), int(round(cy - ph / 2)), colour)

    def _court(self, canvas: np.ndarray, rank: str, suit: str) -> None:
        s = self.s
        line_rgb, lw, inset = s.frame
        x0, y0, x1, y1 = self._centre_box(inset)
        picture = self._court_picture(*self.court_choice(rank, suit))
        if picture is not None:  # the frame takes the picture's shape, as large as the room allows
            ph, pw = picture.shape[:2]
            if pw / ph < (x1 - x0) / (y1 - y0):
                w = int(round((y1 - y0) * pw / ph))
                x0, x1 = (self.W - w) // 2, (self.W - w) // 2 + w
            else:
                h = int(round((x1 - x0) * ph / pw))
                y0, y1 = (self.H - h) // 2, (self.H - h) // 2 + h
            canvas[y0:y1, x0:x1] = cv2.resize(
                picture, (x1 - x0, y1 - y0), interpolation=cv2.INTER_CUBIC
            ).clip(0, 255)
            if s.court_pip > 0:
                self._court_pips(canvas, suit, x0, y0, x1, y1)
        else:  # no SVG deck rendered: a big letter and a pip
            size = max(6, int(round(0.28 * self.H / _cap_height(s.rank_font))))
            m, _ = _text_mask(s.rank_font, size, rank)
            colour = s.colours[suit]
            cx, cy = self.W // 2, self.H // 2
            _paint(canvas, m, cx - m.shape[1] // 2, cy - m.shape[0] + int(0.02 * self.H), colour)
            pip = self.pip(suit, int(0.12 * self.H))
            _paint(canvas, pip, cx - pip.shape[1] // 2, cy + int(0.05 * self.H), colour)
            small = self.pip(suit, int(0.06 * self.H))
            px, py = x0 + int(0.03 * self.W), y0 + int(0.02 * self.H)
            _paint(canvas, small, px, py, colour)
            _paint(
                canvas,
                small[::-1, ::-1],
                x1 - (px - x0) - small.shape[1],
                y1 - (py - y0) - small.shape[0],
                colour,
            )
        self._rect_line(canvas, x0, y0, x1, y1, line_rgb, lw)

    def _court_pips(self, canvas: np.ndarray, suit: str, x0: int, y0: int, x1: int, y1: int) -> None:
        """A large pip on a patch of paper in the picture's top-left corner, turned in the bottom-right."""
        s = self.s
        pip = self.pip(suit, max(4, int(round(s.court_pip * self.H))))
        ph, pw = pip.shape
        pad = max(1, int(0.012 * self.W))
        patch = np.ones((ph + 2 * pad, pw + 2 * pad), np.float32)
        for m, x, y in ((pip, x0, y0), (pip[::-1, ::-1], x1 - pw - 2 * pad, y1 - ph - 2 * pad)):
            _paint(canvas, patch, x, y, s.paper)
            _paint(canvas, m, x + pad, y + pad, s.colours[suit])

    def court_choice(self, rank: str, suit: str) -> tuple[str | None, str, float]:
        """The picture on court card ``rank + suit``: source deck, the code it shows there, hue turn (deg)."""
        s = self.s
        if s.court_mix is None:
            return s.court_source, s.court_picture_rank(rank) + suit, 0.0
        rng = np.random.default_rng([s.court_mix, CARD_CODES.index(rank + suit)])
        source = s.court_sources[int(rng.integers(len(s.court_sources)))] if s.court_sources else None
        shown = COURT_RANKS[int(rng.integers(3))]
        hue = float(rng.uniform(40, 320)) if rng.random() < COURT_HUE_SHARE else 0.0
        if source in LETTER_COURT_SOURCE:  # a giant letter: only its own (drawn all the same, so the
            shown = rank  # other cards' choices stay as they were)
        return source, shown + suit, hue

    def _court_picture(self, source: str | None, code: str, hue: float = 0.0) -> np.ndarray | None:
        """The middle of ``code`` from the SVG deck ``source`` (RGB float), clear of its corner indices;
        ``hue``: its colours turned that many degrees round the hue circle."""
        if source is None:
            return None
        src_dir = self.out_dir / source
        img = cv2.imread(str(src_dir / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        try:
            box = json.loads((src_dir / CORNERS_FILE).read_text(encoding="utf-8"))["index_box"]
        except (OSError, ValueError, KeyError):
            return None
        if img is None or img.ndim != 3 or img.shape[2] != 4:
            return None
        sh, sw = img.shape[:2]
        a = img[:, :, 3:4].astype(np.float32) / 255
        rgb = img[:, :, 2::-1].astype(np.float32) * a + np.asarray(self.s.paper, np.float32) * (1 - a)
        # right of the top-left index and left of the bottom-right one (and of Dondorf's top-right one)
        cx0, cy0 = int((box[2] + 0.015) * sw), int(0.05 * sh)
        crop = rgb[cy0 : sh - cy0, cx0 : sw - cx0]
        if min(crop.shape[:2]) < 8:
            return None
        if hue:
            hsv = cv2.cvtColor(np.ascontiguousarray(crop / 255, dtype=np.float32), cv2.COLOR_RGB2HSV)
            hsv[:, :, 0] = (hsv[:, :, 0] + hue) % 360
            crop = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB) * 255
        return crop

    def _joker_figure(self, canvas: np.ndarray) -> None:
        s = self.s
        colour, _, figure = s.joker
        cx, cy = self.W / 2, self.H / 2
        x0, y0, x1, y1 = self._centre_box(0.1)
        r = min((x1 - x0) / 2, (y1 - y0) / 2) * 0.85
        if figure == "star":
            poly = _star(cx, cy, r)
            ring = max(1, int(0.006 * self.W))
            _draw(canvas, colour, lambda m: cv2.fillPoly(m, [poly], 255, cv2.LINE_AA, shift=4))
            _draw(
                canvas,
                colour,
                lambda m: cv2.circle(m, (int(cx), int(cy)), int(r * 1.08), 255, ring, cv2.LINE_AA),
            )
        else:  # a jester's hat: three horns with bells on a band
            other = s.colours["S"] if colour != s.colours["S"] else s.colours["H"]
            band_y = cy + r * 0.45
            for i, (tx, ty) in enumerate(((-0.8, -0.55), (0.0, -0.95), (0.8, -0.55))):
                tip = (cx + tx * r, cy + ty * r)
                base_l, base_r = cx + (i - 1.5) * r * 0.5, cx + (i - 0.5) * r * 0.5
                pts = np.array([[base_l, band_y], [tip[0], tip[1]], [base_r, band_y]])
                poly = np.round(pts * 16).astype(np.int32)
                bell = (int(tip[0]), int(tip[1]))
                horn = colour if i != 1 else other
                _draw(canvas, horn, lambda m, q=poly: cv2.fillPoly(m, [q], 255, cv2.LINE_AA, shift=4))
                _draw(
                    canvas,
                    (220, 180, 40),
                    lambda m, b=bell: cv2.circle(m, b, int(r * 0.1), 255, -1, cv2.LINE_AA),
                )
            band = (int(cx - r * 0.8), int(band_y)), (int(cx + r * 0.8), int(band_y + r * 0.22))
            _draw(canvas, other, lambda m: cv2.rectangle(m, band[0], band[1], 255, -1))

    def face(self, code: str, with_index: bool = True) -> np.ndarray:
        """The face of ``code`` as a BGRA uint8 image (``with_index=False``: without its corner indices)."""
        canvas = self._paper()
        if code == JOKER:
            self._joker_figure(canvas)
        else:
            rank, suit = code[:-1], code[-1]
            if rank in COURT_RANKS:
                self._court(canvas, rank, suit)
            else:
                self._pips(canvas, rank, suit)
        if with_index:
            layer = self.index_layer(code)
            rw, rh = self.region
            tl = canvas[:rh, :rw]
            tl[:] = tl * (1 - layer.alpha[..., None]) + layer.rgb
            br = canvas[self.H - rh :, self.W - rw :]
            br[:] = br * (1 - layer.alpha[::-1, ::-1, None]) + layer.rgb[::-1, ::-1]
        return self._finish(canvas)

    def _finish(self, canvas: np.ndarray) -> np.ndarray:
        rgba = np.dstack([canvas[:, :, ::-1], self.mask * 255])
        out = cv2.resize(rgba, (self.width, self.height), interpolation=cv2.INTER_AREA)
        return np.round(out).clip(0, 255).astype(np.uint8)

    def back(self) -> np.ndarray:
        base, fg, pattern, margin, pitch = self.s.back
        canvas = np.empty((self.H, self.W, 3), np.float32)
        canvas[:] = self.s.paper
        i = int(margin * self.W)
        inner = np.zeros((self.H, self.W), np.uint8)
        self._rounded_rect(
            inner, i, i, self.W - 1 - i, self.H - 1 - i, int(self.s.radius * self.W * 0.6), 255, -1
        )
        pat = np.empty_like(canvas)
        pat[:] = base
        p = max(4, int(pitch * self.W))
        t = max(1, p // 6)
        if pattern == "stripes":
            for k in range(-self.H, self.W + self.H, p):
                cv2.line(pat, (k, 0), (k + self.H, self.H), fg, t, cv2.LINE_AA)
        elif pattern == "grid":
            for k in range(0, max(self.W, self.H), p):
                cv2.line(pat, (k, 0), (k, self.H), fg, t, cv2.LINE_AA)
                cv2.line(pat, (0, k), (self.W, k), fg, t, cv2.LINE_AA)
        elif pattern == "dots":
            for yy in range(0, self.H + p, p):
                for xx in range((yy // p % 2) * p // 2, self.W + p, p):
                    cv2.circle(pat, (xx, yy), max(1, p // 4), fg, -1, cv2.LINE_AA)
        elif pattern == "checks":
            for yy in range(0, self.H, p):
                for xx in range(0, self.W, p):
                    if (xx // p + yy // p) % 2 == 0:
                        cv2.rectangle(pat, (xx, yy), (xx + p - 1, yy + p - 1), np.add(base, fg) / 2, -1)
        else:  # lattice: two families of diagonals
            for k in range(-self.H, self.W + self.H, p):
                cv2.line(pat, (k, 0), (k + self.H, self.H), fg, t, cv2.LINE_AA)
                cv2.line(pat, (k, self.H), (k + self.H, 0), fg, t, cv2.LINE_AA)
        a = inner.astype(np.float32)[..., None] / 255
        canvas = canvas * (1 - a) + pat * a
        return self._finish(canvas)


# -------------------------------------------------------------------------------------------------- decks


def deck_name(index: int) -> str:
    return f"{PROCEDURAL_PREFIX}{index:02d}"


def court_sources(out_dir: Path) -> list[str]:
    """Rendered SVG training decks in ``out_dir`` that can lend their court pictures, in deck-list order."""
    from models.training.data.decks import ALL_DECKS, Split

    codes = [r + s for r in COURT_RANKS for s in SUITS]
    return [
        d.name
        for d in ALL_DECKS
        if d.split is Split.TRAIN
        and d.name not in NO_COURT_SOURCE
        and (out_dir / d.name / CORNERS_FILE).is_file()
        and all((out_dir / d.name / f"{c}.png").is_file() for c in codes)
    ]


def deck_style(
    seed: int, index: int, fonts: Sequence[Path], pip_fonts: Sequence[Path], sources: Sequence[str]
) -> DeckStyle:
    return sample_style(
        np.random.default_rng([seed, index]),
        fonts,
        pip_fonts,
        sources,
        generation=1 + (index >= SECOND_GENERATION) + (index >= THIRD_GENERATION),
    )


def render_deck(out_dir: Path, index: int, style: DeckStyle, width: int = FACE_WIDTH) -> str:
    """Write deck number ``index`` of ``style`` into ``out_dir``; returns its name."""
    name = deck_name(index)
    deck_dir = out_dir / name
    deck_dir.mkdir(parents=True, exist_ok=True)
    painter = DeckPainter(style, width, out_dir)
    for code in CARD_CODES:
        cv2.imwrite(str(deck_dir / f"{code}.png"), painter.face(code))
    cv2.imwrite(str(deck_dir / f"{BACK}.png"), painter.back())
    corners = {
        "index_box": painter.index_box.as_list(),
        "cards": painter.card_boxes,
        "joker_box": painter.joker_box.as_list(),
        "procedural": style.summary,
    }
    (deck_dir / CORNERS_FILE).write_text(json.dumps(corners, indent=1) + "\n", encoding="utf-8")
    return name


def _render_job(args: tuple[Path, int, int, int, list[Path], list[Path], list[str]]) -> str:
    out_dir, index, seed, width, fonts, pip_fonts, sources = args
    return render_deck(out_dir, index, deck_style(seed, index, fonts, pip_fonts, sources), width)


def render_procedural_decks(
    out_dir: Path,
    count: int,
    seed: int,
    width: int = FACE_WIDTH,
    workers: int = 1,
    font_root: Path = FONT_ROOT,
) -> list[str]:
    """Draw ``count`` procedural decks ``proc-00`` ... into ``out_dir``; returns their names.

    Court pictures come from the SVG training decks already rendered in ``out_dir`` (render those first);
    without any, court cards show a big letter and a pip.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    if width < 64:
        raise ValueError(f"width must be at least 64 pixels, got {width}")
    if count == 0:
        return []
    fonts, pip_fonts = find_fonts(font_root), find_pip_fonts(font_root)
    sources = court_sources(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(out_dir, i, seed, width, fonts, pip_fonts, sources) for i in range(count)]
    if workers > 1 and count > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(_render_job, jobs))
    return [_render_job(j) for j in jobs]


def face_without_index(
    out_dir: Path, seed: int, index: int, code: str, width: int = FACE_WIDTH, font_root: Path = FONT_ROOT
) -> tuple[np.ndarray, np.ndarray]:
    """Face ``code`` of deck ``index`` with and without its corner indices (to check the index box)."""
    style = deck_style(seed, index, find_fonts(font_root), find_pip_fonts(font_root), court_sources(out_dir))
    painter = DeckPainter(style, width, out_dir)
    return painter.face(code), painter.face(code, with_index=False)
