"""The chart of running totals per round or deal."""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from ui.design import (
    DANGER,
    MUTED,
    PANEL,
    SERIES,
    font,
)
from ui.i18n import _, num


class Chart(Widget):
    """Totals round by round: one line per player (or team), with an optional limit line."""

    series = ObjectProperty({})
    limit = NumericProperty(0)
    x_unit = StringProperty("round")  # what one step along the bottom is: "round" (Jhyap) or "deal" (Seep)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._labels: list[Label] = []
        self.bind(pos=self.redraw, size=self.redraw, series=self.redraw, limit=self.redraw)

    def redraw(self, *_args: Any) -> None:
        for lbl in self._labels:
            self.remove_widget(lbl)
        self._labels = []
        self.canvas.clear()
        series: dict[str, list[int]] = dict(self.series)
        if not series:
            return
        n = max(len(v) for v in series.values())
        top = max([self.limit] + [max(v) for v in series.values() if v] + [1])
        marks = [0, self.limit] if self.limit else [0, top]
        # Room on the left for the widest number, below for the axis word (both a line of small text high).
        line = font("xs") * 1.5
        pad_l = max(dp(30), max(len(num(v)) for v in marks) * font("xs") * 0.62 + dp(10))
        pad_b, pad_t = line + dp(4), line / 2
        x0, y0 = self.x + pad_l, self.y + pad_b
        w, h = max(1.0, self.width - pad_l - dp(8)), max(1.0, self.height - pad_b - pad_t)

        def pt(i: int, v: float) -> tuple[float, float]:
            return x0 + (i / max(1, n - 1)) * w, y0 + (v / top) * h

        with self.canvas:
            Color(*PANEL)
            Rectangle(pos=self.pos, size=self.size)
            Color(*MUTED)
            Line(points=[x0, y0, x0 + w, y0], width=1)
            Line(points=[x0, y0, x0, y0 + h], width=1)
            if self.limit:
                Color(*DANGER)
                Line(
                    points=[x0, pt(0, self.limit)[1], x0 + w, pt(0, self.limit)[1]],
                    width=1.2,
                    dash_length=6,
                    dash_offset=4,
                )
            for i, (_name, values) in enumerate(series.items()):
                Color(*SERIES[i % len(SERIES)])
                pts: list[float] = []
                for j, v in enumerate(values):
                    pts += pt(j, v)
                if len(pts) >= 4:
                    Line(points=pts, width=dp(2))
                else:
                    Line(circle=(pts[0], pts[1], dp(3)), width=dp(2))
        for value in marks:
            lbl = Label(
                text=num(value),
                font_size=font("xs"),
                color=MUTED,
                size_hint=(None, None),
                size=(pad_l - dp(4), line),
                pos=(self.x, pt(0, value)[1] - line / 2),
                halign="right",
            )
            lbl.text_size = lbl.size
            self.add_widget(lbl)
            self._labels.append(lbl)
        lbl = Label(
            text=(_("deal {n}") if self.x_unit == "deal" else _("round {n}")).format(n=num(n - 1))
            if n > 1
            else "",
            font_size=font("xs"),
            color=MUTED,
            size_hint=(None, None),
            size=(dp(120), line),
            pos=(x0 + w - dp(120), self.y + dp(2)),
            halign="right",
        )
        lbl.text_size = lbl.size
        self.add_widget(lbl)
        self._labels.append(lbl)
