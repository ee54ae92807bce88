"""The kiosk's design vocabulary, one home for every screen and widget: the type scale, the colours (the
players' colours among them), the spacing and the touch sizes, and the theme that makes TableTally Sans the
font.

Kivy is imported only inside the functions that need the window: the colours and sizes can be read (and
tested) without starting Kivy."""

from __future__ import annotations

from pathlib import Path

from ui.logic.check import TABLE_COLOUR

FONTS = Path(__file__).resolve().parent / "fonts"
REGULAR = FONTS / "TableTallySans-Regular.ttf"
BOLD = FONTS / "TableTallySans-Bold.ttf"

# Colours (RGBA 0-1). A dark card-table green with light text; high contrast for a room light.
BG = (0.06, 0.20, 0.14, 1)
PANEL = (0.10, 0.28, 0.20, 1)
TEXT = (0.97, 0.97, 0.95, 1)
MUTED = (0.72, 0.78, 0.74, 1)
PRIMARY = (0.95, 0.68, 0.12, 1)  # the one big action on a screen
PRIMARY_TEXT = (0.10, 0.08, 0.02, 1)
BUTTON = (0.20, 0.42, 0.32, 1)
SELECTED = (0.10, 0.42, 0.72, 1)
DANGER = (0.75, 0.20, 0.18, 1)  # a button's face, under white words
DANGER_TEXT = (1.00, 0.62, 0.58, 1)  # words that warn of a problem, on the green
WARN = (1.00, 0.55, 0.10, 1)
GOOD = (0.35, 0.80, 0.45, 1)
CARD_BG = (0.98, 0.98, 0.96, 1)
CARD_RED = (0.80, 0.10, 0.12, 1)  # hearts and diamonds on a card's face
GREY = (0.45, 0.48, 0.46, 1)  # lines and faded shapes, never words (3:1 on the green)
# The players' colours in seating order (the chart's lines, the outlines of their cards, their names). Held to
# two measures (tests/ui/test_face.py): text contrast of at least 4.5:1 on the panels, and for deuteranopia
# a CIEDE2000 difference of at least 12 between any two of them and the table's grey, after Machado et
# al.'s simulation (ui/devtools/colours.py, deutan_distance).
SERIES = [
    (1.00, 0.68, 0.35, 1),  # amber
    (0.74, 0.65, 1.00, 1),  # violet
    (0.65, 0.91, 1.00, 1),  # sky
    (1.00, 1.00, 0.00, 1),  # yellow
    (0.90, 0.64, 0.59, 1),  # salmon
]
TABLE_GREY = (0.75, 0.75, 0.75, 1)  # the table's cards

TOUCH = 56  # px: every touch target is at least this tall (>= 48 asked)
TOUCH_TILE = 50  # px: a player's name on their totals tile (a touch target, >= 48, where height is short)
DOUBT_MARK = 26  # px: the "?" disc on a card in doubt, on a chip or on the photo (>= 24 asked)

_KV = """
<Label>:
    font_script_name: 'Deva'
"""


def setup_theme() -> None:
    """Make TableTally Sans (Latin + Devanagari + suits) the default font, shaped for Devanagari."""
    from kivy.core.text import DEFAULT_FONT, LabelBase
    from kivy.core.window import Window
    from kivy.lang import Builder

    LabelBase.register(DEFAULT_FONT, str(REGULAR), fn_bold=str(BOLD))
    Builder.load_string(_KV)
    Window.clearcolor = BG


def landscape() -> bool:
    from kivy.core.window import Window

    return bool(Window.width >= Window.height)


def font(size: str = "m") -> float:
    """Font sizes in px, scaled to the shorter side of the window (480 px on the 7-inch screen)."""
    from kivy.core.window import Window

    base = min(Window.width, Window.height) / 480.0
    px = {"xs": 17, "s": 20, "m": 24, "l": 30, "xl": 40, "xxl": 56}[size]
    return max(14.0, px * min(float(base), 1.2))


# The running totals between rounds, the largest thing on those screens: 80 px type at 800x480 (digits about
# 57 px, 11 mm on a 7-inch display) and 120 px at 720x1280 (digits about 86 px), read from 1.5 m.
HERO_PX = 80


def hero_font() -> float:
    """The running totals' type size: ``HERO_PX`` scaled to the shorter side of the window."""
    from kivy.core.window import Window

    return float(HERO_PX * min(Window.width, Window.height) / 480.0)


def holder_colour(colour: int) -> tuple[float, float, float, float]:
    if colour == TABLE_COLOUR:
        return TABLE_GREY
    return SERIES[colour % len(SERIES)]


# Spacing (px at 800x480): between widgets in a row or column (GAP_S inside rows of cards), and around
# groups (GAP_L).
GAP_S = 4
GAP = 6
GAP_L = 10
