"""The check screens: the Jhyap round and the Seep deal, and where everyone sits.

Every hand (or team pile) and its total is on screen at once, without scrolling, at 800x480 and 720x1280:
the rows share the height the screen has, and the cards of a row shrink to its width. The photo opens full
screen at a tap, with zoom; each card is outlined in its holder's colour, a card in doubt is dashed with a
"?" badge. Tapping a card, on the photo or in a row, offers the codes the camera also saw and "to <player>"
or "to the table", each one tap. The last round's result is shown on the next round's screen until the
next photo, so "Next round" is no tap of its own.

The logic is :mod:`ui.logic.check` (rows, marks, choices) and the flows; these widgets only draw it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from kivy.core.window import Window
from kivy.metrics import dp
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.scatter import Scatter
from kivy.uix.stencilview import StencilView
from kivy.uix.widget import Widget

from ui.design import (
    DANGER_TEXT,
    MUTED,
    TEXT,
    TOUCH,
    WARN,
    font,
    holder_colour,
    landscape,
)
from ui.i18n import _, ngettext, num
from ui.logic import games
from ui.logic.card_edit import TABLE_CARDS, CardEditing, Owner
from ui.logic.check import (
    FINGER,
    CardMark,
    CheckRow,
    CheckView,
    card_choices,
    fit_chips,
    jhyap_view,
    seep_view,
)
from ui.logic.jhyap_round import JhyapRoundFlow
from ui.logic.kiosk import KioskError
from ui.logic.scan import (
    HandCard,
    card_label,
)
from ui.logic.seep_deal import SeepDealFlow
from ui.screens.base import Base
from ui.widgets.basic import AutoLbl, Btn, Lbl, Panel, Sheet, hbox, into_new_texture, split_body, vbox
from ui.widgets.cards import CardChip, CardPickerSheet, HandTyperSheet
from ui.widgets.photo import PhotoView


class ChipRow(FloatLayout):
    """The cards of one row, placed by :func:`ui.logic.check.fit_chips` whenever the row's size changes."""

    def __init__(self, chips: Sequence[CardChip], **kw: Any) -> None:
        super().__init__(**kw)
        self.chips = list(chips)
        # The widest chip as made (its text at full size), before any fitting shrinks it.
        self.natural = max([c.width for c in self.chips] + [font("m") * 2.6])
        for chip in self.chips:
            chip.size_hint = (None, None)
            self.add_widget(chip)
        self.bind(size=self._place, pos=self._place)

    def _place(self, *_: Any) -> None:
        w, h, per = fit_chips(len(self.chips), self.width, self.height, self.natural, TOUCH, dp(4))
        lines = max(1, math.ceil(len(self.chips) / per)) if self.chips else 1
        top = self.y + (self.height + lines * h + (lines - 1) * dp(4)) / 2
        for i, chip in enumerate(self.chips):
            line, col = divmod(i, per)
            chip.size = (w, h)
            # A narrower chip than its text: a smaller font, so the whole card name still shows.
            chip.font_size = min(font("m"), (w - dp(6)) / (len(chip.text) * 0.62 + 0.2))
            chip.pos = (self.x + col * (w + dp(4)), top - (line + 1) * h - line * dp(4))


class ClipArea(StencilView, FloatLayout):
    """A layout that draws nothing of its children outside itself (the zoomed photo stays in its frame)."""


class PhotoSheet(Sheet):
    """The scan photo full screen: pinch or the + and - buttons to zoom, drag to look round, tap a card."""

    def __init__(
        self, title: str, texture: Any, meta: dict[str, Any], boxes: list[Any], on_box: Callable[[Any], None]
    ):
        super().__init__(title)
        self.area = ClipArea()
        self.scatter = Scatter(do_rotation=False, scale_min=1, scale_max=6, size_hint=(None, None))
        self.view = PhotoView(show_labels=True)
        self.view.set_image(texture, meta["width"], meta["height"])
        self.view.boxes = boxes
        self.view.on_box = on_box
        self.scatter.add_widget(self.view)
        self.area.add_widget(self.scatter)
        self.area.bind(size=self._fit, pos=self._fit)
        self.body.add_widget(self.area)
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(
            Btn("\u2212", lambda: self.zoom(1 / 1.6), name="zoom-out", size_hint_x=None, width=TOUCH * 1.4)
        )
        row.add_widget(Btn("+", lambda: self.zoom(1.6), name="zoom-in", size_hint_x=None, width=TOUCH * 1.4))
        row.add_widget(Btn(_("Back"), self.dismiss, role="primary", name="photo-back"))
        self.body.add_widget(row)

    def _fit(self, *_: Any) -> None:
        self.scatter.scale = 1
        self.scatter.size = self.area.size
        self.view.size = self.area.size
        self.scatter.pos = self.area.pos

    def zoom(self, factor: float) -> None:
        from kivy.graphics.transformation import Matrix

        scale = max(1.0, min(6.0, self.scatter.scale * factor)) / self.scatter.scale
        self.scatter.apply_transform(Matrix().scale(scale, scale, scale), anchor=self.area.center)


class RoundScreen(Base):
    """What the Jhyap round and Seep deal screens share: the rows, the photo, the card menu, scoring."""

    flow_kind = ""
    # The widgets a scan changes, kept by build: the left column, what it shows above the status line, the
    # status line, the scan button, the confirm button (None before a build, and once a scan has used them).
    _scan_parts: tuple[Any, list[Widget], Any, Any, Any] | None = None

    def refresh(self) -> None:
        self._scan_parts = None
        super().refresh()

    def keep_scan_parts(self, left: Any, status: Any, scan: Any, confirm: Any) -> None:
        """Keep what :meth:`show_scanning` changes (``status`` already in ``left``)."""
        top_down = list(reversed(left.children))
        head = top_down[: top_down.index(status)]
        self._scan_parts = (left, head, status, scan, confirm)

    def show_scanning(self) -> bool:
        """A scan has begun: show it in the screen as built, as a rebuild would (the scan's words in place
        of the photo or the hint, the status line without the last message, scanning and scoring off)."""
        if self._scan_parts is None or not self.app.scanner.busy:
            return False
        left, head, status, scan, confirm = self._scan_parts
        self._scan_parts = None
        text, colour = self.status(self.view())
        for widget in head:
            left.remove_widget(widget)
        left.add_widget(self.app.scan_status(), index=len(left.children))
        left.add_widget(Widget(), index=len(left.children) - 1)
        # Each widget whose words are drawn anew goes into a new texture (a rebuilt screen's would too).
        if (status.text, list(status.color)) != (text, list(colour)):
            into_new_texture(status)
            status.text, status.color = text, colour
        for button in (scan, confirm):
            if button is not None and not button.disabled:
                into_new_texture(button)
                button.disabled = True
        return True

    def status(self, view: CheckView) -> tuple[str, Any]:  # pragma: no cover - per game
        """The status line's words (shortened) and colour."""
        raise NotImplementedError

    @property
    def flow(self) -> JhyapRoundFlow | SeepDealFlow:
        return self.kiosk.jhyap if self.flow_kind == games.JHYAP else self.kiosk.seep

    def view(self) -> CheckView:
        flow = self.flow
        return jhyap_view(flow) if isinstance(flow, JhyapRoundFlow) else seep_view(flow)

    def _changed(self) -> None:
        self.kiosk.save()
        self.refresh()

    # -- the photo ----------------------------------------------------------------------------------
    def photo_boxes(self, view: CheckView) -> list[Any]:
        out = []
        for m in view.marks:
            state = "uncertain" if m.doubtful else ("flagged" if m.flagged else "ok")
            out.append(((m.owner, m.index), m.box, m.label, state, holder_colour(m.colour)))
        return out

    def photo_widget(self, view: CheckView) -> PhotoView:
        photo = PhotoView(show_labels=False)
        meta = view.photo
        if meta is not None:
            photo.set_image(self.app.photo_for(meta), meta["width"], meta["height"])
            photo.boxes = self.photo_boxes(view)
            photo.on_box = lambda key: self.tap_card(key[0], key[1])
            photo.on_photo = self.open_photo
        return photo

    def open_photo(self) -> None:
        view = self.view()
        meta = view.photo
        if meta is None:
            return
        sheet: PhotoSheet

        def tap(key: Any) -> None:
            sheet.dismiss()
            self.tap_card(key[0], key[1])

        sheet = PhotoSheet(
            _("The photo: tap a card to fix it"),
            self.app.photo_for(meta),
            meta,
            self.photo_boxes(view),
            tap,
        )
        self.app.open_sheet(sheet)

    # -- the rows -------------------------------------------------------------------------------------
    def rows_widget(self, view: CheckView, name_button: Callable[[CheckRow, int], Widget]) -> Any:
        """Every row at once: they share the height (no scrolling), a row whose cards need more lines to
        stay a fingertip wide getting a bigger share."""

        box = vbox(spacing=dp(4))
        # The cards' width in a row: the window less the photo column, the name and the total.
        # (landscape: the photo's column takes PHOTO_SHARE of the width beside this one)
        column = (Window.width - dp(20)) / (1 + PHOTO_SHARE) if landscape() else Window.width - dp(12)
        chips_w = column - self.name_width() - self.total_width() - dp(22)
        for i, row in enumerate(view.rows):
            widget = self.row_widget(row, i, name_button)
            per_line = max(1, int((chips_w + dp(4)) // (FINGER + dp(4))))
            widget.size_hint_y = max(1, math.ceil(len(row.cards) / per_line))
            box.add_widget(widget)
        return box

    def name_width(self) -> float:
        return float(dp(104) if landscape() else dp(190))

    def total_width(self) -> float:
        """The hand total's column: five cards of a hand still fit one line beside it at 800x480."""
        return float(dp(64) if landscape() else dp(72))

    def name_font(self) -> float:
        """A name at the head of its row: a little smaller in landscape, where its column is narrow."""
        return font("s") if landscape() else font("m")

    def table_name(self, row: CheckRow) -> Widget:
        """The table's row name: a label in the table's colour (the table calls nothing, owns no menu)."""
        return Lbl(
            row.title,
            "m",
            bold=True,
            color=holder_colour(row.colour),
            size_hint_x=None,
            width=self.name_width(),
        )

    def row_name_button(self, text: str, on_press: Callable[[], None], **style: Any) -> Any:
        """A player's or team's name at the head of its row: the name column's width, the row's height,
        the text wrapped inside it."""
        width = self.name_width()
        b = Btn(text, on_press, size_hint_x=None, size_hint_y=1, width=width, **style)
        b.text_size = (width - dp(8), None)
        return b

    def undo_and_details(self) -> Widget:
        """Under the last result on this round's screen: undo it, or open its details."""
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(Btn(_("Undo"), self.undo, role="quiet", name="undo", font_size=font("s")))
        row.add_widget(
            Btn(
                _("Details"), lambda: self.app.go("result"), role="quiet", name="details", font_size=font("s")
            )
        )
        return row

    def row_widget(self, row: CheckRow, i: int, name_button: Callable[[CheckRow, int], Widget]) -> Any:
        panel = Panel(orientation="horizontal", padding=(dp(4), dp(2), dp(6), dp(2)), spacing=dp(6))
        panel.add_widget(name_button(row, i))
        chips = [
            CardChip(
                _chip_card(m),
                (lambda o=row.owner, j=m.index: self.tap_card(o, j)),
                outline=holder_colour(m.colour),
                name=f"card-{i}-{m.index}",
            )
            for m in row.cards
        ]
        for chip, m in zip(chips, row.cards, strict=True):
            chip.flagged = m.flagged
        if chips or row.owner is TABLE_CARDS:
            panel.add_widget(ChipRow(chips))
        else:
            panel.add_widget(Lbl(self.row_note(row), "s", color=MUTED))
        if row.owner is TABLE_CARDS:
            width = self.total_width()
            total = Lbl(_("not scored"), "xs", halign="center", color=MUTED, size_hint_x=None, width=width)
        else:
            total = Btn(
                "" if row.total is None else num(row.total),
                lambda o=row.owner: self.owner_menu(o),
                name=f"total-{i}",
                role="quiet",
                font_size=font("xl"),
                bold=True,
                size_hint_x=None,
                size_hint_y=1,
                width=self.total_width(),
            )
        panel.add_widget(total)
        return panel

    # -- one card ---------------------------------------------------------------------------------------
    def tap_card(self, owner: Owner, index: int) -> None:
        """A card's one-tap menu: it is right, it is one of the codes the camera also saw, it belongs to
        another player or the table; or pick any card, or remove it."""
        flow: CardEditing = self.flow
        view = self.view()
        choices = card_choices(flow, view, owner, index)
        m = choices.mark
        who = _("the table") if owner is TABLE_CARDS else view.row(owner).title
        title = _("{card} in {who}'s cards").format(card=m.label, who=who)
        if m.doubtful:
            title = _("{card}? The camera was not sure.").format(card=m.label)
        sheet = Sheet(title)

        def do(action: Callable[[], object]) -> Callable[[], None]:
            def run() -> None:
                sheet.dismiss()
                action()
                self._changed()

            return run

        sheet.body.add_widget(AutoLbl(_("It is:"), "s", color=MUTED))
        codes = hbox(size_hint_y=None, height=TOUCH)
        codes.add_widget(
            Btn(
                _("{card}, right").format(card=m.label),
                do(lambda: flow.confirm_card(owner, index)),
                role="primary" if m.doubtful else "normal",
                name="keep",
            )
        )
        for alt in choices.alternatives:
            codes.add_widget(
                Btn(card_label(alt), do(lambda a=alt: flow.set_card(owner, index, a)), name=f"alt-{alt}")
            )
        codes.add_widget(Btn(_("Other card"), lambda: self._pick(sheet, owner, index), name="other-card"))
        sheet.body.add_widget(codes)
        sheet.body.add_widget(AutoLbl(_("It belongs to:"), "s", color=MUTED))
        grid = hands_grid(len(choices.move_to))
        for k, (to, text) in enumerate(choices.move_to):
            colour: Sequence[float] = TEXT if to is TABLE_CARDS else holder_colour(view.row(to).colour)
            b: Any = Btn(
                text,
                do(lambda t=to: flow.move_card(owner, index, t)),
                name=f"move-{k}",
                role="quiet",  # the player's colour on the panel's face (4.5:1 and more)
            )
            b.color = colour
            grid.add_widget(b)
        sheet.body.add_widget(grid)
        sheet.body.add_widget(Widget())
        bottom = hbox(size_hint_y=None, height=TOUCH)
        bottom.add_widget(
            Btn(_("Remove card"), do(lambda: flow.remove_card(owner, index)), role="danger", name="remove")
        )
        bottom.add_widget(Btn(_("Cancel"), sheet.dismiss, role="quiet", name="cancel"))
        sheet.body.add_widget(bottom)
        self.app.open_sheet(sheet)

    def _pick(self, sheet: Sheet, owner: Owner, index: int) -> None:
        sheet.dismiss()
        flow: CardEditing = self.flow
        card = flow.card(owner, index)

        def pick(code: str) -> None:
            flow.set_card(owner, index, code)
            self._changed()

        self.app.open_sheet(CardPickerSheet(_("Which card is it?"), card, pick))

    def add_card(self, owner: Owner) -> None:
        flow: CardEditing = self.flow

        def add(code: str) -> None:
            flow.add_card(owner, code)
            self._changed()

        who = self.view().row(owner).title
        self.app.open_sheet(CardPickerSheet(_("{who}: add a card").format(who=who), None, add))

    def type_cards(self, owner: str) -> None:
        flow: CardEditing = self.flow
        codes = [c.code for c in flow.piles.get(owner) or []]

        def done(cs: list[str]) -> None:
            flow.type_cards(owner, cs)
            self._changed()

        who = self.view().row(owner).title
        self.app.open_sheet(HandTyperSheet(_("Type {who}'s cards").format(who=who), codes, done))

    def owner_menu(self, owner: Owner) -> None:  # pragma: no cover - per game
        raise NotImplementedError

    def row_note(self, row: CheckRow) -> str:
        """What a row without cards says (the game's screens show the last result there)."""
        return ""

    # -- scoring ------------------------------------------------------------------------------------------
    def score(self) -> None:
        """Score the round; the next round's screen then shows its result (no "Next round" tap)."""
        flow = self.flow
        flow.confirm_all()
        editing = flow.edit_position is not None
        try:
            self.kiosk.confirm()
        except KioskError as exc:
            flow.message = str(exc)
            self.refresh()
            return
        game = self.kiosk.game
        if editing or game is None or game.status.value != "playing":
            self.app.go("result")
            return
        self.kiosk.next_round()
        self.app.go("round")

    def cancel_edit(self) -> None:
        self.kiosk.cancel_edit()
        self.app.go("result" if self.kiosk.game and self.kiosk.game.entries else "round")

    def status_line(self, view: CheckView, problems: list[str], ready_text: str) -> tuple[str, Any]:
        flow = self.flow
        if flow.message and not self.app.scanner.busy:
            return flow.message, WARN
        if problems:
            return problems[0], DANGER_TEXT if view.photo is not None else MUTED
        if view.doubtful:
            text = ngettext(
                "{n} card marked ? : tap it to check, or score as read.",
                "{n} cards marked ? : tap them to check, or score as read.",
                view.doubtful,
            ).format(n=num(view.doubtful))
            return text, WARN
        return ready_text, TEXT

    def layout_body(self, root: Any, left: Widget, right: Widget) -> None:
        root.add_widget(split_body(left, right, sized=left, wide=PHOTO_SHARE, tall=1.1))


# The photo's column against the hands' (1) at 800x480: the photo at least 320 px wide, five cards of a hand
# on one line beside it.
PHOTO_SHARE = 0.72


def _chip_card(m: CardMark) -> HandCard:
    return HandCard(m.code, uncertain=m.doubtful, box=m.box)


def hands_grid(n: int) -> Any:

    cols = 3 if landscape() else 2
    rows = max(1, math.ceil(n / cols))
    return GridLayout(cols=cols, spacing=dp(6), size_hint_y=None, height=rows * TOUCH + (rows - 1) * dp(6))


# -- the Jhyap round ------------------------------------------------------------------------------------
