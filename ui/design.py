"""The kiosk's design vocabulary, one home for every screen and widget: the type scale, the colours (the
players' colours among them), the spacing and the touch sizes, and the theme that makes TableTally Sans the
font."""

from __future__ import annotations

from pathlib import Path

from kivy.core.text import DEFAULT_FONT, LabelBase
from kivy.core.window import Window
from kivy.lang import Builder

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
SELECTED = (0.16, 0.55, 0.85, 1)
DANGER = (0.80, 0.25, 0.22, 1)
WARN = (1.00, 0.55, 0.10, 1)
GOOD = (0.35, 0.80, 0.45, 1)
CARD_BG = (0.98, 0.98, 0.96, 1)
GREY = (0.45, 0.48, 0.46, 1)
SERIES = [
    (0.95, 0.68, 0.12, 1),
    (0.35, 0.75, 0.95, 1),
    (0.95, 0.45, 0.55, 1),
    (0.55, 0.90, 0.45, 1),
    (0.80, 0.60, 0.95, 1),
]

TOUCH = 56  # px: every touch target is at least this tall (>= 48 asked)

_KV = """
<Label>:
    font_script_name: 'Deva'
"""


def setup_theme() -> None:
    """Make TableTally Sans (Latin + Devanagari + suits) the default font, shaped for Devanagari."""
    LabelBase.register(DEFAULT_FONT, str(REGULAR), fn_bold=str(BOLD))
    Builder.load_string(_KV)
    Window.clearcolor = BG


def landscape() -> bool:
    return bool(Window.width >= Window.height)


def font(size: str = "m") -> float:
    """Font sizes in px, scaled to the shorter side of the window (480 px on the 7-inch screen)."""
    base = min(Window.width, Window.height) / 480.0
    px = {"xs": 17, "s": 20, "m": 24, "l": 30, "xl": 40, "xxl": 56}[size]
    return max(14.0, px * min(float(base), 1.2))


def holder_colour(colour: int) -> tuple[float, float, float, float]:
    if colour == TABLE_COLOUR:
        return (0.75, 0.75, 0.75, 1)
    return SERIES[colour % len(SERIES)]


# Spacing (px at 800x480): between widgets in a row or column, and inside a panel.
GAP_S = 4
GAP = 6
GAP_L = 10
