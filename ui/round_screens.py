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

from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.metrics import dp
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.scatter import Scatter
from kivy.uix.stencilview import StencilView
from kivy.uix.widget import Widget

from ui.app import Base, _short
from ui.i18n import _, ngettext, num
from ui.logic import boards, games
from ui.logic.card_edit import TABLE_CARDS, CardEditing, Owner
from ui.logic.check import (
    FINGER,
    TABLE_COLOUR,
    CardMark,
    CheckRow,
    CheckView,
    card_choices,
    fit_chips,
    jhyap_view,
    seep_view,
)
from ui.logic.jhyap_round import TABLE, JhyapRoundFlow
from ui.logic.kiosk import KioskError
from ui.logic.scan import HandCard, card_label
from ui.logic.seep_deal import BOTH, SeepDealFlow
from ui.widgets import (
    DANGER,
    MUTED,
    PANEL,
    SERIES,
    TEXT,
    TOUCH,
    WARN,
    AutoLbl,
    Btn,
    CardChip,
    CardPickerSheet,
    HandTyperSheet,
    Lbl,
    Panel,
    PhotoView,
    Sheet,
    font,
    hbox,
    into_new_texture,
    landscape,
    split_body,
    vbox,
)
from vision.seats import SIDES, from_taps, layout


def holder_colour(colour: int) -> tuple[float, float, float, float]:
    if colour == TABLE_COLOUR:
        return (0.75, 0.75, 0.75, 1)
    return SERIES[colour % len(SERIES)]


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
        from kivy.core.window import Window

        box = vbox(spacing=dp(4))
        # The cards' width in a row: the window less the photo column, the name and the total.
        chips_w = Window.width * (0.7 if landscape() else 1.0) - self.name_width() - dp(72) - dp(40)
        for i, row in enumerate(view.rows):
            widget = self.row_widget(row, i, name_button)
            per_line = max(1, int(chips_w // (FINGER + dp(4))))
            widget.size_hint_y = max(1, math.ceil(len(row.cards) / per_line))
            box.add_widget(widget)
        return box

    def name_width(self) -> float:
        return float(dp(120) if landscape() else dp(190))

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
            total = Lbl(_("not scored"), "xs", halign="center", color=MUTED, size_hint_x=None, width=dp(72))
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
                width=dp(72),
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
        grid = _grid(len(choices.move_to))
        for k, (to, text) in enumerate(choices.move_to):
            colour: Sequence[float] = TEXT if to is TABLE_CARDS else holder_colour(view.row(to).colour)
            b: Any = Btn(
                text, do(lambda t=to: flow.move_card(owner, index, t)), name=f"move-{k}", color=colour
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
            return problems[0], DANGER if view.photo is not None else MUTED
        if view.doubtful:
            text = ngettext(
                "{n} card marked ? : tap it to check, or score as read.",
                "{n} cards marked ? : tap them to check, or score as read.",
                view.doubtful,
            ).format(n=num(view.doubtful))
            return text, WARN
        return ready_text, TEXT

    def layout_body(self, root: Any, left: Widget, right: Widget) -> None:
        root.add_widget(split_body(left, right, sized=left, wide=0.34, tall=0.62))


def _chip_card(m: CardMark) -> HandCard:
    return HandCard(m.code, uncertain=m.doubtful, box=m.box)


def _grid(n: int) -> Any:
    from kivy.uix.gridlayout import GridLayout

    cols = 3 if landscape() else 2
    rows = max(1, math.ceil(n / cols))
    return GridLayout(cols=cols, spacing=dp(6), size_hint_y=None, height=rows * TOUCH + (rows - 1) * dp(6))


# -- the Jhyap round ------------------------------------------------------------------------------------


class JhyapRoundScreen(RoundScreen):
    flow_kind = games.JHYAP

    def build(self, root: Any) -> None:
        flow = self.kiosk.jhyap
        view = jhyap_view(flow)
        if flow.edit_position is not None:
            title = _("Editing round {n}").format(n=num(flow.number))
            back = (_("Cancel"), self.cancel_edit)
        else:
            title = _("Round {n}").format(n=num(flow.number))
            back = (_("Home"), self.app.go_home)
        bar = self.top_bar(title, back=back, scores=True)
        if flow.edit_position is None and flow.dealer:
            bar.children[1].size_hint_x = 0.55
            bar.add_widget(
                Lbl(
                    _("{dealer} deals, {starter} starts").format(dealer=flow.dealer, starter=flow.starter),
                    "s" if landscape() else "xs",
                    halign="right",
                ),
                index=1,
            )
        root.add_widget(bar)
        left = vbox(spacing=dp(6))
        busy = self.app.scanner.busy
        if busy:
            left.add_widget(self.app.scan_status())
            left.add_widget(Widget())
        elif view.photo is not None:
            left.add_widget(self.photo_widget(view))
        elif flow.edit_position is not None:
            left.add_widget(
                AutoLbl(
                    _("Tap a card to fix it, or a total to type a hand again; then save."), "m", color=MUTED
                )
            )
            left.add_widget(Widget())
        elif self.kiosk.game is not None and self.kiosk.game.entries:
            left.add_widget(self.last_result())
        else:
            left.add_widget(
                AutoLbl(
                    _("Lay every hand face up in front of its player, then scan the table."), "m", color=MUTED
                )
            )
            left.add_widget(Widget())
        problems = flow.problems()
        text, colour = self.status(view)
        status = AutoLbl(text, "s" if not landscape() else "xs", color=colour)
        left.add_widget(status)
        scan = None
        if flow.edit_position is None:
            scan_row = hbox(size_hint_y=None, height=TOUCH)
            retry = bool(flow.message) and flow.table_scan is None
            label = _("Retry scan") if retry else (_("Scan again") if flow.table_scan else _("Scan table"))
            scan = Btn(
                label,
                lambda: self.app.scan(TABLE, len(flow.active), flow.decks),
                name="scan-table",
                role="normal" if flow.table_scan else "primary",
                font_size=font("s"),
            )
            scan.disabled = busy
            scan_row.add_widget(scan)
            scan_row.add_widget(
                Btn(
                    _("Seats"),
                    self.app.show_seats,
                    name="seats",
                    role="quiet",
                    size_hint_x=0.5,
                    font_size=font("s"),
                )
            )
            left.add_widget(scan_row)
        right = vbox(spacing=dp(6))
        right.add_widget(self.rows_widget(view, self.name_button))
        confirm = Btn(
            _("Score round") if flow.edit_position is None else _("Save round"),
            self.score,
            role="primary",
            name="confirm",
            font_size=font("l"),
        )
        confirm.disabled = bool(problems) or busy
        right.add_widget(confirm)
        self.layout_body(root, left, right)
        if not busy:
            self.keep_scan_parts(left, status, scan, confirm)

    def status(self, view: CheckView) -> tuple[str, Any]:
        flow = self.kiosk.jhyap
        problems = flow.problems()
        ready = _("{caller} called. Score the round?").format(caller=flow.caller) if flow.caller else ""
        if flow.caller_guessed and not problems:
            ready = _("{caller} called? Tap another name if not, then score.").format(caller=flow.caller)
        text, colour = self.status_line(view, problems, ready)
        return _short(text, 160), colour

    def name_button(self, row: CheckRow, i: int) -> Widget:
        if row.owner is TABLE_CARDS:
            return self.table_name(row)
        b = self.row_name_button(
            row.title,
            lambda p=row.owner: self.pick_caller(p),
            name=f"caller-{i}",
            role="selected" if row.is_caller else "quiet",
            font_size=font("m"),
            bold=row.is_caller,
        )
        if not row.is_caller:
            b.color = holder_colour(row.colour)
        return b

    def last_result(self) -> Widget:
        """The last round's result, on this round's screen until the photo is taken."""
        log = self.kiosk.log
        result = boards.jhyap_round_result(log)
        box = Panel(orientation="vertical", padding=dp(6), spacing=dp(2))
        box.add_widget(
            AutoLbl(_("Round {n}: {what}").format(n=num(result.number), what=result.headline), "s", bold=True)
        )
        box.add_widget(Widget())
        box.add_widget(self.undo_and_details())
        return box

    def row_note(self, row: CheckRow) -> str:
        """Before the photo: the player's result in the last round, "+29 = 58" (or out)."""
        flow = self.kiosk.jhyap
        if flow.edit_position is not None or flow.table_scan is not None or not self.kiosk.log["rounds"]:
            return ""
        result = boards.jhyap_round_result(self.kiosk.log)
        line = next((x for x in result.lines if x.name == row.owner), None)
        if line is None or line.points is None:
            return ""
        text = _("last round +{points} = {total}").format(points=num(line.points), total=num(line.total))
        return f"{text} ({line.note})" if line.note else text

    def _swap(self, player: str, other: str) -> None:
        self.kiosk.jhyap.swap_hands(player, other)
        self._changed()

    def pick_caller(self, player: str) -> None:
        self.kiosk.jhyap.pick_caller(player)
        self._changed()

    def owner_menu(self, owner: Owner) -> None:
        """A hand's menu (its total tapped): type it, scan it alone, give it all to another player."""
        assert isinstance(owner, str)
        flow = self.kiosk.jhyap
        sheet = Sheet(_("{player}'s hand").format(player=owner))

        def then(action: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                sheet.dismiss()
                action()

            return run

        sheet.body.add_widget(Btn(_("Add a card"), then(lambda: self.add_card(owner)), name="menu-add"))
        sheet.body.add_widget(
            Btn(_("Type the cards"), then(lambda: self.type_cards(owner)), name="menu-type")
        )
        sheet.body.add_widget(
            Btn(
                _("Scan this hand alone"), then(lambda: self.app.scan(owner, 1, flow.decks)), name="menu-scan"
            )
        )
        others = [p for p in flow.active if p != owner]
        if flow.hands.get(owner):
            grid = _grid(len(others))
            for k, other in enumerate(others):
                grid.add_widget(
                    Btn(
                        _("Swap with {player}").format(player=other),
                        then(lambda o=other: self._swap(owner, o)),
                        name=f"swap-{k}",
                        font_size=font("s"),
                    )
                )
            sheet.body.add_widget(grid)
        sheet.body.add_widget(Widget())
        sheet.body.add_widget(Btn(_("Back"), sheet.dismiss, role="quiet", name="menu-back"))
        self.app.open_sheet(sheet)


# -- the Seep deal ----------------------------------------------------------------------------------------


class SeepDealScreen(RoundScreen):
    flow_kind = games.SEEP

    def build(self, root: Any) -> None:
        flow = self.kiosk.seep
        view = seep_view(flow)
        log = self.kiosk.log
        if flow.edit_position is not None:
            bar = self.top_bar(
                _("Editing deal {n}").format(n=num(flow.number)),
                back=(_("Cancel"), self.cancel_edit),
                scores=True,
            )
        else:
            bar = self.top_bar(
                _("Deal {n}").format(n=num(flow.number)), back=(_("Home"), self.app.go_home), scores=True
            )
            bar.children[1].size_hint_x = 0.5
            dealer = boards.seep_dealer(log, flow.number)
            bar.add_widget(Lbl(_("{dealer} deals").format(dealer=dealer), "s", halign="right"), index=1)
        root.add_widget(bar)
        busy = self.app.scanner.busy
        counted = view.photo is not None or any(c is not None for c in flow.captured.values())
        left = vbox(spacing=dp(6))
        right = vbox(spacing=dp(6))
        # Left: the photo once the piles are read; before, the last deal's result (or how to play it).
        if busy:
            left.add_widget(self.app.scan_status())
            left.add_widget(Widget())
        elif view.photo is not None:
            left.add_widget(self.photo_widget(view))
        elif not counted:
            first, second = (" & ".join(m) for m in flow.teams.values())
            left.add_widget(
                AutoLbl(
                    _(
                        "Tap each sweep as it happens. At the end: {near}'s pile on the near half of the "
                        "table, {far}'s on the far half, then scan."
                    ).format(near=first, far=second),
                    "s",
                    color=MUTED,
                )
            )
            left.add_widget(Widget())
        else:
            left.add_widget(Widget())
        scan_row = hbox(size_hint_y=None, height=TOUCH)
        scan = Btn(
            _("Scan again") if BOTH in flow.scans else _("Scan piles"),
            lambda: self.app.scan(BOTH, 2, flow.decks),
            name="scan-both",
            role="normal" if flow.both_scanned else "primary",
            font_size=font("s"),
        )
        scan.disabled = busy
        scan.size_hint_x = 1.3
        scan_row.add_widget(scan)
        scan_row.add_widget(
            Btn(_("Swap sides"), self.swap_halves, name="swap-halves", role="quiet", font_size=font("s"))
        )
        left.add_widget(scan_row)
        # Right: the sweeps during play, big; the piles once they are read.
        if counted:
            right.add_widget(self.rows_widget(view, self.name_button))
        else:
            last = boards.seep_deal_result(log) if flow.edit_position is None and log["deals"] else None
            for k, team in enumerate(flow.teams):
                header = " & ".join(flow.teams[team])
                if last is not None:
                    header = _("{team}: {points} last deal").format(team=header, points=num(last.lines[k][3]))
                right.add_widget(AutoLbl(header, "m", bold=True, color=holder_colour(k)))
                right.add_widget(self.sweep_row(flow, team, k))
            if last is not None:
                right.add_widget(self.last_result())
            right.add_widget(Widget())
        problems = flow.problems()
        text, colour = self.status(view)
        status = AutoLbl(text, "s" if not landscape() else "xs", color=colour)
        left.add_widget(status, index=1)
        bottom = hbox(size_hint_y=None, height=TOUCH)
        undo = Btn(_("Undo sweep"), self.undo_sweep, role="quiet", name="undo-sweep", font_size=font("s"))
        undo.disabled = not flow.sweeps
        bottom.add_widget(undo)
        confirm = Btn(
            _("Score deal") if flow.edit_position is None else _("Save deal"),
            self.score,
            role="primary",
            name="confirm",
            size_hint_x=1.8,
            font_size=font("l"),
        )
        confirm.disabled = bool(problems) or busy
        bottom.add_widget(confirm)
        right.add_widget(bottom)
        self.layout_body(root, left, right)
        if not busy:
            self.keep_scan_parts(left, status, scan, confirm)

    def status(self, view: CheckView) -> tuple[str, Any]:
        flow = self.kiosk.seep
        problems = flow.problems()
        missing = flow.missing()
        if missing:
            cards = " ".join(card_label(c) for c in missing)
            text, colour = _("Missing point cards: {cards}").format(cards=cards), DANGER
        elif flow.both_scanned and not problems and not flow.message:
            text, colour = self.status_line(view, problems, _("All 100 points found. Score the deal?"))
        else:
            text, colour = self.status_line(view, problems, _("Score the deal?"))
        return _short(text, 150), colour

    def sweep_row(self, flow: SeepDealFlow, team: str, k: int) -> Widget:
        counts = flow.sweep_counts(team)
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(
            Btn(
                _("First play {n}").format(n=num(counts["first"])),
                lambda: self.sweep(team, "first"),
                name=f"sweep-first-{team}",
                font_size=font("s"),
            )
        )
        row.add_widget(
            Btn(
                _("Sweep {n}").format(n=num(counts["normal"])),
                lambda: self.sweep(team, "normal"),
                name=f"sweep-{team}",
                role="warn",
                font_size=font("s"),
            )
        )
        row.add_widget(
            Btn(
                _("Last play {n}").format(n=num(counts["last"])),
                lambda: self.sweep(team, "last"),
                name=f"sweep-last-{team}",
                font_size=font("s"),
            )
        )
        return row

    def name_button(self, row: CheckRow, i: int) -> Widget:
        if row.owner is TABLE_CARDS:
            return self.table_name(row)
        sweeps = sum(self.kiosk.seep.sweep_counts(str(row.owner)).values())
        text = row.title + "\n" + ngettext("{n} sweep", "{n} sweeps", sweeps).format(n=num(sweeps))
        b = self.row_name_button(
            text,
            lambda o=row.owner: self.owner_menu(o),
            name=f"team-{row.owner}",
            role="quiet",
            font_size=font("s"),
        )
        b.color = holder_colour(row.colour)
        return b

    def last_result(self) -> Widget:
        result = boards.seep_deal_result(self.kiosk.log)
        box = Panel(orientation="vertical", padding=dp(6), spacing=dp(2), size_hint_y=None)
        box.bind(minimum_height=box.setter("height"))
        lead = _("Deal {n}: {lead}").format(n=num(result.number), lead=result.lead_text)
        box.add_widget(AutoLbl(lead, "s", bold=True))
        if result.baazi_text:
            box.add_widget(AutoLbl(result.baazi_text, "s", color=WARN))
        box.add_widget(self.undo_and_details())
        return box

    def row_note(self, row: CheckRow) -> str:
        if row.owner is not TABLE_CARDS and not row.entered:
            return _("Not counted: gets every point card the other team did not take.")
        return ""

    def owner_menu(self, owner: Owner) -> None:
        assert isinstance(owner, str)
        flow = self.kiosk.seep
        sheet = Sheet(_("Team {team}: {names}").format(team=owner, names=" & ".join(flow.teams[owner])))

        def then(action: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                sheet.dismiss()
                action()

            return run

        sweeps = hbox(size_hint_y=None, height=TOUCH)
        for kind, text in (
            ("first", _("+ first-play sweep")),
            ("normal", _("+ sweep")),
            ("last", _("+ last-play sweep")),
        ):
            sweeps.add_widget(
                Btn(
                    text,
                    then(lambda k=kind: self.sweep(owner, k)),
                    name=f"menu-sweep-{kind}",
                    font_size=font("s"),
                )
            )
        sheet.body.add_widget(sweeps)
        sheet.body.add_widget(Btn(_("Add a card"), then(lambda: self.add_card(owner)), name="menu-add"))
        sheet.body.add_widget(
            Btn(_("Type the point cards"), then(lambda: self.type_cards(owner)), name="menu-type")
        )
        sheet.body.add_widget(
            Btn(
                _("Scan this pile alone"), then(lambda: self.app.scan(owner, 1, flow.decks)), name="menu-scan"
            )
        )
        if flow.captured.get(owner) is not None:
            sheet.body.add_widget(
                Btn(
                    _("Not counted: the other team's cards decide"),
                    then(lambda: self._clear(owner)),
                    name="menu-clear",
                    font_size=font("s"),
                )
            )
        sheet.body.add_widget(Widget())
        sheet.body.add_widget(Btn(_("Back"), sheet.dismiss, role="quiet", name="menu-back"))
        self.app.open_sheet(sheet)

    def _clear(self, team: str) -> None:
        self.kiosk.seep.clear_team(team)
        self._changed()

    def sweep(self, team: str, when: str) -> None:
        self.kiosk.seep.add_sweep(team, when)
        self._changed()

    def undo_sweep(self) -> None:
        self.kiosk.seep.undo_sweep()
        self._changed()

    def swap_halves(self) -> None:
        self.kiosk.swap_halves()
        self.refresh()


# -- where everyone sits --------------------------------------------------------------------------------


class SeatView(Widget):
    """The table as the camera sees it (the last photo, or a plain table), with a numbered, coloured dot
    per seat. In tap mode each tap places the next seat."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.photo = PhotoView()
        self.add_widget(self.photo)
        self.seats: list[tuple[float, float]] = []
        self.names: list[str] = []
        self.on_tap: Callable[[float, float], None] | None = None
        self.shape = "round"
        self._tags: list[Widget] = []
        self.bind(pos=self.redraw, size=self.redraw)

    def show(
        self,
        texture: Any,
        width: int,
        height: int,
        seats: Sequence[tuple[float, float]],
        names: Sequence[str],
    ) -> None:
        self.photo.set_image(texture, width, height)
        if texture is None:
            self.photo.message = ""
        self.seats, self.names = list(seats), list(names)
        self.redraw()

    def redraw(self, *_: Any) -> None:
        self.photo.pos, self.photo.size = self.pos, self.size
        for t in self._tags:
            self.remove_widget(t)
        self._tags = []
        self.canvas.after.clear()
        scale, ox, oy = self.photo._fit()
        w, h = self.photo.photo_size
        r = dp(14)
        with self.canvas.after:
            if self.photo._texture is None:
                Color(*PANEL)
                table = Ellipse if self.shape == "round" else Rectangle
                table(
                    pos=(ox + w * scale * 0.2, oy + h * scale * 0.2), size=(w * scale * 0.6, h * scale * 0.6)
                )
            for i, (sx, sy) in enumerate(self.seats):
                x, y = ox + sx * w * scale, oy + (1 - sy) * h * scale
                Color(*holder_colour(i))
                Ellipse(pos=(x - r, y - r), size=(2 * r, 2 * r))
                Color(0, 0, 0, 1)
                Line(circle=(x, y, r), width=dp(1.5))
        for i, (sx, sy) in enumerate(self.seats):
            name = self.names[i] if i < len(self.names) else str(i + 1)
            x, y = ox + sx * w * scale, oy + (1 - sy) * h * scale
            tag = Lbl(name, "s", bold=True, color=holder_colour(i), halign="center", size_hint=(None, None))
            tag.texture_update()
            tag.size = (tag.texture_size[0] + dp(10), font("s") * 1.5)
            tag.pos = (
                min(max(self.x, x - tag.width / 2), self.right - tag.width),
                y + r if y + r + tag.height < self.top else y - r - tag.height,
            )
            with tag.canvas.before:
                Color(0, 0, 0, 0.7)
                Rectangle(pos=tag.pos, size=tag.size)
            self.add_widget(tag)
            self._tags.append(tag)

    def on_touch_down(self, touch: Any) -> bool:
        if self.on_tap is None or not self.collide_point(*touch.pos):
            return bool(super().on_touch_down(touch))
        scale, ox, oy = self.photo._fit()
        w, h = self.photo.photo_size
        if not w or not h:
            return True
        fx, fy = (touch.x - ox) / (w * scale), 1 - (touch.y - oy) / (h * scale)
        if 0 <= fx <= 1 and 0 <= fy <= 1:
            self.on_tap(fx, fy)
        return True


class SeatsScreen(Base):
    """Where everyone sits, as the camera sees it: choose a layout (round or square table, the kiosk's side)
    or tap each player's seat on the photo. Kept for the night; the round screen's "Seats" redoes it."""

    shape = "round"
    side = "bottom"
    taps: list[tuple[float, float]] | None = None  # the seats tapped so far, in tap mode
    live: tuple[Any, int, int] | None = None  # a photo taken on this screen (texture, width, height)
    note = ""

    def start(self) -> None:
        self.shape, self.side, self.taps, self.live, self.note = "round", "bottom", None, None, ""

    def build(self, root: Any) -> None:
        players = list(self.kiosk.log["players"])
        bar = self.top_bar(_("Where does everyone sit?"), back=(_("Back"), self.back))
        root.add_widget(bar)
        view = SeatView()
        texture, width, height = self._photo()
        if self.taps is not None:
            seats = list(self.taps)
            view.on_tap = self.tap
        else:
            seats = list(layout(len(players), self.shape, self.side).seats)
        view.shape = self.shape
        view.show(texture, width, height, seats, players)
        side = vbox(spacing=dp(6))
        if self.taps is not None:
            k = len(self.taps)
            hint = (
                _("Tap where {name} sits.").format(name=players[k])
                if k < len(players)
                else _("All seats tapped.")
            )
            side.add_widget(
                AutoLbl(hint, "m", bold=True, color=holder_colour(k) if k < len(players) else TEXT)
            )
            if self.note:
                side.add_widget(AutoLbl(self.note, "s", color=WARN))
            side.add_widget(Btn(_("Take a photo"), self.take_photo, name="seats-photo"))
            side.add_widget(Btn(_("Start over"), self.tap_mode, name="seats-again", role="quiet"))
            side.add_widget(Btn(_("Use a layout"), self.layout_mode, name="seats-layout", role="quiet"))
        else:
            side.add_widget(
                AutoLbl(
                    _("Seated clockwise as the camera sees the table, in the game's order."), "s", color=MUTED
                )
            )
            shapes = hbox(size_hint_y=None, height=TOUCH)
            for shape, text in (("round", _("Round table")), ("square", _("Square table"))):
                shapes.add_widget(
                    Btn(
                        text,
                        lambda s=shape: self.set_shape(s),
                        role="selected" if self.shape == shape else "normal",
                        name=f"seats-{shape}",
                        font_size=font("s"),
                    )
                )
            side.add_widget(shapes)
            words = {
                "bottom": _("Kiosk: near side"),
                "left": _("Kiosk: left side"),
                "top": _("Kiosk: far side"),
                "right": _("Kiosk: right side"),
            }
            side.add_widget(Btn(words[self.side], self.turn, name="seats-turn", font_size=font("s")))
            side.add_widget(
                Btn(_("Tap the seats on the photo"), self.tap_mode, name="seats-tap", font_size=font("s"))
            )
        side.add_widget(Widget())
        done = Btn(_("These are the seats"), self.done, role="primary", name="seats-done")
        done.disabled = self.taps is not None and len(self.taps) < len(players)
        side.add_widget(done)
        root.add_widget(split_body(view, side, sized=side, wide=0.42, tall=0.45))

    def take_photo(self) -> None:
        """A photo of the table now (players sitting round it) to tap the seats on."""
        from ui.widgets import texture_from_bgr

        def done(result: Any) -> None:
            if result.camera_failed or result.image is None:
                self.note = result.error or _("The camera gave no photo.")
            else:
                self.live = (texture_from_bgr(result.image), int(result.width), int(result.height))
                self.note = ""
            self.refresh()

        self.note = _("Taking the photo...")
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.app.scanner.scan("seats", done, 1, None)
        self.refresh()

    def _photo(self) -> tuple[Any, int, int]:
        """A photo taken here, else the last scan photo of this game (the table as the camera sees it), else
        a plain table."""
        if self.live is not None:
            return self.live
        flow = self.kiosk.flow
        meta = getattr(flow, "table_scan", None) if flow is not None else None
        if meta and meta.get("photo"):
            return self.app.photo_cache(meta["photo"]), int(meta["width"]), int(meta["height"])
        return None, 4, 3

    def set_shape(self, shape: str) -> None:
        self.shape = shape
        self.refresh()

    def turn(self) -> None:
        self.side = SIDES[(SIDES.index(self.side) + 1) % len(SIDES)]
        self.refresh()

    def tap_mode(self) -> None:
        self.taps = []
        self.refresh()

    def layout_mode(self) -> None:
        self.taps = None
        self.refresh()

    def tap(self, x: float, y: float) -> None:
        assert self.taps is not None
        if len(self.taps) < len(self.kiosk.log["players"]):
            self.taps.append((x, y))
        self.refresh()

    def done(self) -> None:
        players = self.kiosk.log["players"]
        try:
            seats = (
                from_taps(self.taps) if self.taps is not None else layout(len(players), self.shape, self.side)
            )
            self.kiosk.set_seats(seats)
        except (ValueError, KioskError) as exc:
            self.app.confirm_sheet(str(exc), _("Start over"), self.tap_mode)
            return
        self.app.go("round")

    def back(self) -> None:
        if self.kiosk.seats_needed:
            self.app.go_home()
        else:
            self.app.go("round")
