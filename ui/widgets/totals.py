"""The running totals as the hero of the screens between rounds: one tile per player (Jhyap) with the total
in ``hero_font`` and, smaller, the distance to going out, the last round's points and who deals or starts;
for Seep the running lead and each team's baazis as big. The words come from :mod:`ui.logic.boards`.

Every big total is a widget with ``hero_total = True`` (the demo measures its drawn digits)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.widget import Widget

from ui.design import (
    GAP,
    MUTED,
    PANEL,
    TEXT,
    TOUCH,
    TOUCH_TILE,
    WARN,
    font,
    hero_font,
    holder_colour,
    landscape,
)
from ui.i18n import _, num
from ui.logic.boards import TeamTile, TotalTile, tile_notes
from ui.widgets.basic import Btn, Lbl, hbox, vbox


class Tile(BoxLayout):
    """A panel framed in its player's colour, thick when the player is near going out."""

    bg_colour = PANEL

    def __init__(self, frame: Sequence[float], thick: bool = False, **kw: Any) -> None:
        kw.setdefault("padding", dp(4))
        kw.setdefault("spacing", dp(2))
        super().__init__(**kw)
        self.frame = frame
        self.thick = thick
        with self.canvas.before:
            Color(*PANEL)
            self._rect = Rectangle()
        with self.canvas.after:  # over the children: a name button does not hide the frame's top
            self._frame_colour = Color(*frame)
            self._line = Line(width=dp(4) if thick else dp(1.5))
        self.bind(pos=self._redraw, size=self._redraw)

    def _redraw(self, *_: Any) -> None:
        self._rect.pos, self._rect.size = self.pos, self.size
        inset = self._line.width
        self._line.rectangle = (
            self.x + inset,
            self.y + inset,
            self.width - 2 * inset,
            self.height - 2 * inset,
        )


DIGIT_EM = 0.6  # a bold digit's advance in TableTally Sans, in em (0.572), with a margin


def big_number(
    text: str, on_tap: Callable[[], None] | None = None, name: str = "", size: float = 0.0, **kw: Any
) -> Any:
    """A running total at hero size (or ``size``): a flat button when tapping it does something, else a
    label."""
    size = size or hero_font()
    kw.setdefault("size_hint_y", None)
    kw.setdefault("height", hero_font() * 1.5)  # the font's whole line (Devanagari's marks above and below)
    if on_tap is not None:
        widget: Any = Btn(text, on_tap, role="quiet", name=name, font_size=size, bold=True, **kw)
    else:
        widget = Lbl(text, "m", halign="center", font_size=size, bold=True, **kw)
    widget.hero_total = True
    return widget


def words(text: str, size: str = "s", lines: int = 1, **kw: Any) -> Lbl:
    """Small centred words of a known number of lines (a fixed height, so tiles line up)."""
    kw.setdefault("halign", "center")
    return Lbl(text, size, size_hint_y=None, height=font(size) * 1.5 * lines, **kw)


def total_tile(
    tile: TotalTile,
    index: int | None,
    caller: str | None,
    on_name: Callable[[str], None] | None,
    on_total: Callable[[str], None] | None,
    size: float = 0.0,
) -> Widget:
    """One player's tile (its total in type ``size``, default ``hero_font``); ``index`` is the player's
    place among those still in (None once out), naming
    the name button ``caller-N`` and the total ``total-N`` as the round's rows do. Near going out: a thick
    frame and the distance in the warning colour, and in portrait the words."""
    out = tile.out_round is not None
    colour = holder_colour(tile.colour)
    wide = landscape()
    box = Tile(WARN if tile.near_out else colour, thick=tile.near_out, orientation="vertical")
    name: Any
    if on_name is not None and index is not None:
        chosen = tile.name == caller
        name = Btn(
            tile.name,
            lambda p=tile.name: on_name(p),
            role="selected" if chosen else "quiet",
            name=f"caller-{index}",
            bold=True,
            font_size=font("m"),
            height=TOUCH_TILE,
        )
        if not chosen:
            name.color = colour
    else:
        name = words(tile.name, "m", bold=True, color=MUTED if out else colour)
        name.height = TOUCH_TILE
    total = big_number(
        num(tile.total),
        (lambda p=tile.name: on_total(p)) if on_total is not None and index is not None else None,
        name=f"total-{index}",
        color=MUTED if out else TEXT,
        size=size,
    )
    notes = tile_notes(tile, short=wide)
    note_size = "xs" if wide else "s"
    colour_first = WARN if tile.near_out else (MUTED if out else TEXT)
    first = words(notes[0], note_size, bold=tile.near_out, color=colour_first)
    second = words(notes[1] if len(notes) > 1 else "", note_size, color=TEXT)
    if wide:
        for widget in (name, total, first, second):
            box.add_widget(widget)
        return box
    box.orientation = "horizontal"
    side = vbox(spacing=dp(2))
    side.add_widget(name)
    side.add_widget(first)
    side.add_widget(second)
    if tile.near_out:
        side.add_widget(words(_("Near going out"), bold=True, color=WARN))
    side.add_widget(Widget())
    box.add_widget(side)
    total.size_hint_x = 0.8
    box.add_widget(total)
    return box


def tiles_height(n: int) -> float:
    """The height the tiles of ``n`` players take (landscape: one row; portrait: one tile each)."""
    landscape_tile = TOUCH_TILE + hero_font() * 1.5 + font("xs") * 3 + dp(10)
    if landscape():
        return float(landscape_tile)
    portrait_tile = max(hero_font() * 1.5, TOUCH + font("s") * 4.5) + dp(10)
    return float(n * portrait_tile + (n - 1) * dp(GAP))


def totals_board(
    tiles: Sequence[TotalTile],
    active: Sequence[str],
    caller: str | None = None,
    on_name: Callable[[str], None] | None = None,
    on_total: Callable[[str], None] | None = None,
) -> Widget:
    """Every player's tile: side by side in landscape, one under another in portrait, at the height they
    need (:func:`tiles_height`)."""
    cols = len(tiles) if landscape() else 1
    grid = GridLayout(cols=max(1, cols), spacing=dp(GAP), size_hint_y=None, height=tiles_height(len(tiles)))
    size = hero_font()
    if landscape():  # five tiles of three digits: the type a little smaller, so no total wraps
        from kivy.core.window import Window

        width = (Window.width - dp(12) - (cols - 1) * dp(GAP)) / max(1, cols) - dp(16)
        digits = max(len(num(t.total)) for t in tiles) if tiles else 1
        size = min(size, width / (digits * DIGIT_EM))
    for tile in tiles:
        index = active.index(tile.name) if tile.name in active else None
        grid.add_widget(total_tile(tile, index, caller, on_name, on_total, size))
    return grid


def teams_board(tiles: Sequence[TeamTile], lead_text: str) -> Widget:
    """Seep between deals: the running lead (who is ahead, by how much) and the teams' baazis, as big: side
    by side in landscape, one above the other in portrait. Each team's baazis are in its colour, as its
    name is beside its sweeps."""
    wide = landscape()
    ahead = next((k for k, t in enumerate(tiles) if t.lead), None)
    lead = Tile(holder_colour(ahead) if ahead is not None else MUTED, orientation="vertical")
    lead.add_widget(words(lead_text, "xs", lines=2, bold=True))
    lead.add_widget(big_number(num(max(t.lead for t in tiles))))
    baazis = Tile(MUTED, orientation="vertical")
    baazis.add_widget(words(_("Baazis"), "xs", lines=2, bold=True))
    counts = hbox(size_hint_y=None, height=hero_font() * 1.5, spacing=0)
    for k, t in enumerate(tiles):
        if k:
            colon = Lbl(":", "m", halign="center", font_size=hero_font(), bold=True, size_hint_x=0.5)
            counts.add_widget(colon)
        counts.add_widget(big_number(num(t.baazis), color=holder_colour(k), size_hint_y=1))
    baazis.add_widget(counts)
    box = hbox(spacing=dp(GAP), size_hint_y=None) if wide else vbox(spacing=dp(GAP), size_hint_y=None)
    for tile in (lead, baazis):
        tile.size_hint_y = None
        tile.height = font("xs") * 3 + hero_font() * 1.5 + dp(8)
        box.add_widget(tile)
    box.height = lead.height if wide else 2 * lead.height + dp(GAP)
    return box
