"""The Jhyap round's check screen (see :mod:`ui.screens.round_base`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.metrics import dp
from kivy.uix.widget import Widget

from ui.design import GAP, MUTED, TOUCH, font, holder_colour, landscape
from ui.i18n import _, num
from ui.logic import boards, games
from ui.logic.card_edit import TABLE_CARDS, Owner
from ui.logic.check import (
    CheckRow,
    CheckView,
    jhyap_view,
)
from ui.logic.jhyap_round import TABLE
from ui.screens.base import short
from ui.screens.round_base import RoundScreen, hands_grid
from ui.widgets.basic import AutoLbl, Btn, Lbl, Panel, Sheet, hbox, vbox
from ui.widgets.totals import totals_board


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
        busy = self.app.scanner.busy
        if self.between_rounds(view):
            self.build_totals(root, view, busy)
            return
        left = vbox(spacing=dp(6))
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
        # Scan and Seats beside Score round, under the hands: the photo keeps the left column's height.
        bottom = hbox(size_hint_y=None, height=TOUCH)
        scan = None
        if flow.edit_position is None:
            retry = bool(flow.message) and flow.table_scan is None
            label = _("Retry scan") if retry else (_("Scan again") if flow.table_scan else _("Scan table"))
            scan = Btn(
                label,
                lambda: self.app.scan(TABLE, len(flow.active), flow.decks),
                name="scan-table",
                role="normal" if flow.table_scan else "primary",
                font_size=font("s"),
                size_hint_x=0.7,
            )
            scan.disabled = busy
            bottom.add_widget(scan)
            bottom.add_widget(self.seats_button(0.45))
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
        bottom.add_widget(confirm)
        right.add_widget(bottom)
        self.layout_body(root, left, right)
        if not busy:
            self.keep_scan_parts(left, status, scan, confirm)

    def seats_button(self, width: float) -> Widget:
        """The quiet "Seats" button (the seat map), ``width`` its share of its row."""
        return Btn(
            _("Seats"),
            self.app.show_seats,
            name="seats",
            role="quiet",
            size_hint_x=width,
            font_size=font("s"),
        )

    def between_rounds(self, view: CheckView) -> bool:
        """Before this round's photo (no hand read or typed yet, not an edit): the totals are the screen."""
        flow = self.kiosk.jhyap
        return view.photo is None and flow.edit_position is None and not any(flow.hands.values())

    def build_totals(self, root: Any, view: CheckView, busy: bool) -> None:
        """Between rounds: every player's running total, big, with who deals and starts, the distance to
        going out and the last round's points; under it the last round in a line, and Scan table. Tapping
        a name makes that player the caller; tapping a total opens the hand's menu (type it, scan it)."""
        flow = self.kiosk.jhyap
        log = self.kiosk.log
        board = totals_board(
            boards.total_tiles(log), flow.active, flow.caller, self.pick_caller, self.owner_menu
        )
        live = self.app.live.view(beside=True)  # what the camera sees, the seats over it (or a space)
        root.add_widget(self.app.live.beside(board))  # landscape: the live view beside the totals
        root.add_widget(live)
        left = vbox(spacing=dp(GAP), size_hint_y=None)
        if busy:
            left.add_widget(self.app.scan_status())
            left.add_widget(Widget())
        elif self.kiosk.game is not None and self.kiosk.game.entries:
            result = boards.jhyap_round_result(log)
            what = _("Round {n}: {what}").format(n=num(result.number), what=result.headline)
            left.add_widget(AutoLbl(what, "s" if landscape() else "m", bold=True))
        else:
            left.add_widget(
                AutoLbl(
                    _("Lay every hand face up in front of its player, then scan the table."), "s", color=MUTED
                )
            )
        text, colour = self.status(view)
        status = AutoLbl(text, "xs" if landscape() else "s", color=colour)
        left.add_widget(status)
        scan_row = hbox(size_hint_y=None, height=TOUCH)
        retry = bool(flow.message) and flow.table_scan is None
        scan = Btn(
            _("Retry scan") if retry else _("Scan table"),
            lambda: self.app.scan(TABLE, len(flow.active), flow.decks),
            name="scan-table",
            role="primary",
            font_size=font("l"),
        )
        scan.disabled = busy
        scan_row.add_widget(scan)
        scan_row.add_widget(self.seats_button(0.3))
        if self.kiosk.game is not None and self.kiosk.game.entries:  # the last round: undo it, or see it
            scan_row.add_widget(
                Btn(_("Undo"), self.undo, role="quiet", name="undo", size_hint_x=0.3, font_size=font("s"))
            )
            scan_row.add_widget(
                Btn(
                    _("Details"),
                    lambda: self.app.go("result"),
                    role="quiet",
                    name="details",
                    size_hint_x=0.35,
                    font_size=font("s"),
                )
            )
        left.add_widget(scan_row)
        left.bind(minimum_height=left.setter("height"))
        root.add_widget(left)
        if not busy:
            self.keep_scan_parts(left, status, scan, None)

    def status(self, view: CheckView) -> tuple[str, Any]:
        flow = self.kiosk.jhyap
        problems = flow.problems()
        if flow.edit_position is not None:
            ready = _("{caller} called. Save the round?").format(caller=flow.caller) if flow.caller else ""
        else:
            ready = _("{caller} called. Score the round?").format(caller=flow.caller) if flow.caller else ""
        if flow.caller_guessed and not problems:
            ready = _("{caller} called? Tap another name if not, then score.").format(caller=flow.caller)
        text, colour = self.status_line(view, problems, ready)
        return short(text, 160), colour

    def name_button(self, row: CheckRow, i: int) -> Widget:
        if row.owner is TABLE_CARDS:
            return self.table_name(row)
        b = self.row_name_button(
            row.title,
            lambda p=row.owner: self.pick_caller(p),
            name=f"caller-{i}",
            role="selected" if row.is_caller else "quiet",
            font_size=self.name_font(),
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
            grid = hands_grid(len(others))
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
