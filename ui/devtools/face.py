"""What the demo measures of the kiosk's face on every screenshot: each visible label (its words, type size,
box, colours and their contrast), the drawn height of the running totals' digits, the photo's width on the
check screen, and any technician's word on a player's screen.

The technician's words (:func:`technician_words`) are those no player screen may show, in any language: a
file path, a command-line flag, an environment variable, "px", "model", "ONNX", "NCNN", "engine",
"database" (and their Nepali and Hindi spellings). Only the technician's page in Settings may.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ui.devtools.colours import blend, contrast

# Screens where technician's words belong (the "For the technician" page).
TECHNICIAN_SCREENS = {"technician"}

_WORDS = re.compile(
    r"(?i)(?<![\w])(px|model|models|onnx|ncnn|engine|database|databases)(?![\w])"
    r"|मोडेल|मोडल|मॉडल|डेटाबेस|डाटाबेस|इन्जिन|इञ्जिन|इंजन|इंजिन|पिक्सेल|पिक्सल"
)
_PATH = re.compile(
    r"(?:^|[\s(\"':])(?:~|\.{1,2})?/[\w.\-]+/[\w.\-/]*|[A-Za-z]:\\|\b[\w\-]+\.(?:sqlite3|db|onnx|json|csv|jpg|py)\b"
)
_FLAG = re.compile(r"(?:^|\s)--[a-z][a-z\-]+")
_ENV = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b")


def technician_words(text: str) -> list[str]:
    """The technician's words in ``text``: paths, flags, environment variables and the words above."""
    found = [m.group(0).strip() for m in _WORDS.finditer(text)]
    found += [m.group(0).strip(" (\"'") for m in _PATH.finditer(text)]
    found += [m.group(0).strip() for m in _FLAG.finditer(text)]
    found += [m.group(0) for m in _ENV.finditer(text)]
    return found


def _colour(value: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in value)


def background_of(widget: Any, default: Sequence[float]) -> tuple[float, ...]:
    """The colour behind a widget's text: its own button face, else the nearest panel, tile or button it
    lies on, else the window's."""
    from kivy.uix.button import Button

    w = widget
    while w is not None and w is not w.parent:
        if isinstance(w, Button) and w.background_normal == "":
            return _colour(w.background_color)
        bg = getattr(w, "bg", None) or getattr(w, "bg_colour", None)
        if bg is not None:
            return _colour(bg)
        w = w.parent
    return _colour(default)


def visible_labels(driver_widgets: Iterator[Any]) -> Iterator[Any]:
    """The labels on the window's topmost layer (an open sheet hides the screen under it)."""
    from kivy.core.window import Window
    from kivy.uix.label import Label
    from kivy.uix.modalview import ModalView

    sheets = [w for w in Window.children if isinstance(w, ModalView)]
    roots = sheets[:1] if sheets else list(Window.children)
    stack = list(roots)
    while stack:
        w = stack.pop()
        stack.extend(w.children)
        if not isinstance(w, Label) or w.opacity == 0 or not str(w.text).strip():
            continue
        x1, y1 = w.to_window(w.x, w.y)
        x2, y2 = w.to_window(w.right, w.top)
        if x2 <= 0 or y2 <= 0 or x1 >= Window.width or y1 >= Window.height or w.width < 2 or w.height < 2:
            continue
        # Inside a scroll view: only what is scrolled into its window shows.
        parent, hidden = w.parent, False
        while parent is not None and parent is not parent.parent:
            from kivy.uix.scrollview import ScrollView

            if isinstance(parent, ScrollView):
                px1, py1 = parent.to_window(parent.x, parent.y)
                px2, py2 = parent.to_window(parent.right, parent.top)
                hidden = y2 <= py1 or y1 >= py2
                break
            parent = parent.parent
        if not hidden:
            yield w


def label_entry(w: Any, shot: str, screen: str) -> dict[str, Any]:
    """One texts.json entry: the label's words, type size, box (x, y from the top left, width, height),
    its text and background colours and their WCAG contrast."""
    from kivy.core.window import Window

    from ui.design import BG

    x1, y1 = w.to_window(w.x, w.y)
    x2, y2 = w.to_window(w.right, w.top)
    bg = background_of(w, BG)
    fg = _colour(w.disabled_color if w.disabled else w.color)
    seen = blend(fg, bg)
    return {
        "shot": shot,
        "screen": screen,
        "text": str(w.text),
        "font_px": round(float(w.font_size), 1),
        "box": [round(x1), round(Window.height - y2), round(x2 - x1), round(y2 - y1)],
        "fg": [round(c, 3) for c in seen],
        "bg": [round(c, 3) for c in bg[:3]],
        "contrast": round(contrast(seen, bg), 2),
        "disabled": bool(w.disabled),
    }


def glyph_height(widget: Any) -> int | None:
    """The height in pixels of what a label's texture draws (its rows with any ink), or None without one.
    A label's texture is drawn at its own size, so this is the digits' height on screen."""
    texture = getattr(widget, "texture", None)
    if texture is None:
        return None
    width, height = texture.size
    pixels = texture.pixels  # RGBA, rows bottom-up
    rows = [r for r in range(height) if any(pixels[(r * width + c) * 4 + 3] > 128 for c in range(0, width))]
    return (rows[-1] - rows[0] + 1) if rows else None


def photo_width(view: Any) -> float:
    """How wide the photo is drawn in a photo view, in pixels."""
    scale, _ox, _oy = view._fit()
    return float(view.photo_size[0] * scale)
