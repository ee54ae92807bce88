"""The Seep deal's check screen: the sweeps, and one photo of both teams' piles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.metrics import dp
from kivy.uix.widget import Widget

from ui.design import (
    DANGER_TEXT,
    MUTED,
    TOUCH,
    WARN,
    font,
    holder_colour,
    landscape,
)
from ui.i18n import _, ngettext, num
from ui.logic import boards, games
from ui.logic.card_edit import TABLE_CARDS, Owner
from ui.logic.check import (
    CheckRow,
    CheckView,
    seep_view,
)
from ui.logic.scan import card_label
from ui.logic.seep_deal import BOTH, SeepDealFlow
from ui.screens.base import short
from ui.screens.round_base import RoundScreen
from ui.widgets.basic import AutoLbl, Btn, Lbl, Panel, Sheet, hbox, vbox
from ui.widgets.totals import teams_board


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
        elif not counted and flow.edit_position is None and log["deals"]:
            left.add_widget(teams_board(boards.team_tiles(log), boards.board(log).lead_text))
            left.add_widget(self.app.live.view())  # what the camera sees, the halves over it (or a space)
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
            left.add_widget(self.app.live.view())
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
            if last is not None:  # the lead is on the left, big: here the way back to the last deal
                right.add_widget(self.undo_and_details())
            right.add_widget(Widget())
        problems = flow.problems()
        text, colour = self.status(view)
        status = AutoLbl(text, "s" if not landscape() else "xs", color=colour)
        left.add_widget(status)
        # Scan and Swap sides: under the photo at 800x480 (the photo is as wide as its column anyway), under
        # the piles at 720x1280 (the photo keeps the height that makes it the screen's width).
        (left if landscape() else right).add_widget(scan_row)
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
        if missing and not flow.jokers():  # a joker in a pile is said first (it may be the missing card)
            cards = " ".join(card_label(c) for c in missing)
            text, colour = _("Missing point cards: {cards}").format(cards=cards), DANGER_TEXT
        elif flow.both_scanned and not problems and not flow.message:
            text, colour = self.status_line(view, problems, _("All 100 points found. Score the deal?"))
        else:
            text, colour = self.status_line(view, problems, _("Score the deal?"))
        return short(text, 150), colour

    def sweep_row(self, flow: SeepDealFlow, team: str, k: int) -> Widget:
        counts = flow.sweep_counts(team)
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(
            Btn(
                _("First play {n}").format(n=num(counts["first"])),
                lambda: self.sweep(team, "first"),
                name=f"sweep-first-{team}",
                role="selected" if counts["first"] else "normal",
                font_size=font("s"),
            )
        )
        row.add_widget(
            Btn(
                _("Sweep {n}").format(n=num(flow.sweep_total(team))),
                lambda: self.sweep(team, "normal"),
                name=f"sweep-{team}",
                role="selected" if flow.sweep_total(team) else "normal",  # a count above 0 looks chosen
                font_size=font("s"),
            )
        )
        row.add_widget(
            Btn(
                _("Last play {n}").format(n=num(counts["last"])),
                lambda: self.sweep(team, "last"),
                name=f"sweep-last-{team}",
                role="selected" if counts["last"] else "normal",
                font_size=font("s"),
            )
        )
        for button, kind in zip(reversed(row.children), games.SWEEP_KINDS, strict=True):
            button.disabled = not flow.can_sweep(team, kind)  # a sweep the deal's plays cannot hold
        return row

    def name_button(self, row: CheckRow, i: int) -> Widget:
        if row.owner is TABLE_CARDS:
            return self.table_name(row)
        sweeps = self.kiosk.seep.sweep_total(str(row.owner))
        text = row.title + "\n" + ngettext("{n} sweep", "{n} sweeps", sweeps).format(n=num(sweeps))
        b = self.row_name_button(
            text,
            lambda o=row.owner: self.owner_menu(o),
            name=f"team-{row.owner}",
            role="quiet",
            font_size=font("xs") if landscape() else font("s"),  # two names and the sweeps: a narrow column
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
