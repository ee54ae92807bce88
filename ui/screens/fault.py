"""The screen players see when the record's disk or file fails, in the running kiosk and at start.

The words and actions are :class:`ui.logic.faults.FaultFlow`'s; this module only draws them. In the running
kiosk, :func:`install` makes every record fault raised by a tap, a screen or a clock callback (Kivy's
``ExceptionManager``) show this screen instead of ending the app. At start, when the record cannot be
opened, :class:`FaultApp` is the whole app: the kiosk shows why instead of exiting, so that systemd never
restarts it in a loop behind a black screen. Restarting after a fix re-executes the same command.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.base import ExceptionHandler, ExceptionManager
from kivy.clock import Clock
from kivy.metrics import dp
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager

from ui.design import setup_theme
from ui.logic.faults import Action, FaultFlow, action_label
from ui.store import RecordFault, StoreError, fault_of
from ui.widgets.basic import AutoLbl, Btn, Lbl, Panel, hbox, scroller, vbox

if TYPE_CHECKING:
    from ui.app import TableTallyApp

FAULT = "fault"
_ROLES = {Action.CONFIRM_FRESH: "danger", Action.CANCEL: "quiet"}


def restart_process() -> None:  # pragma: no cover - replaces the process
    """Start the kiosk again with the same command line (a fresh look at the record)."""
    argv = list(getattr(sys, "orig_argv", [])) or [sys.executable, *sys.argv]
    os.execv(sys.executable, [sys.executable, *argv[1:]])


def as_store_error(exc: BaseException) -> StoreError | None:
    """``exc`` as the StoreError the fault screen explains, or None when it is not about the record."""
    if isinstance(exc, StoreError):
        return exc
    fault = fault_of(exc)
    if fault is None:
        return None
    filename = getattr(exc, "filename", None)
    return RecordFault(fault, Path(filename or "."), str(exc))


class FaultView(Panel):
    """Title, sentences, the outcome of the last action, and one button per action."""

    def __init__(self, flow: FaultFlow, on_done: Callable[[FaultFlow], None], **kw: Any) -> None:
        super().__init__(orientation="vertical", padding=dp(16), spacing=dp(10), **kw)
        self.flow = flow
        self.on_done = on_done
        self.rebuild()

    def rebuild(self) -> None:
        self.clear_widgets()
        problem = self.flow.problem
        self.add_widget(Lbl(problem.title, "l", bold=True, size_hint_y=None, height=dp(44)))
        body = vbox(size_hint_y=None, spacing=dp(8))
        body.bind(minimum_height=body.setter("height"))
        for line in problem.lines:
            body.add_widget(AutoLbl(line, "m"))
        if self.flow.outcome:
            body.add_widget(AutoLbl(self.flow.outcome, "m", bold=True))
        if self.flow.question:
            body.add_widget(AutoLbl(self.flow.question, "m", bold=True))
        self.add_widget(scroller(body))
        row = hbox(size_hint_y=None, height=dp(60))
        for action in self.flow.actions:
            role = _ROLES.get(action, "primary" if action is self.flow.actions[0] else "normal")
            row.add_widget(
                Btn(
                    action_label(action),
                    lambda a=action: self.tap(a),
                    role=role,
                    name=f"fault-{action.value}",
                )
            )
        self.add_widget(row)

    def tap(self, action: Action) -> None:
        try:
            done = self.flow.act(action)
        except StoreError as exc:  # the fix itself failed (e.g. the folder is read-only too): say so
            traceback.print_exception(exc)  # the journal keeps the details; the players get sentences
            self.flow.fix_failed(exc)
            done = False
        if done:
            self.on_done(self.flow)
        else:
            self.rebuild()


class FaultScreen(Screen):
    def show(self, flow: FaultFlow, on_done: Callable[[FaultFlow], None]) -> None:
        self.clear_widgets()
        self.add_widget(FaultView(flow, on_done))


class _Handler(ExceptionHandler):
    def __init__(self, app: TableTallyApp) -> None:
        super().__init__()
        self.app = app

    def handle_exception(self, inst: BaseException) -> Any:
        error = as_store_error(inst)
        if error is None:
            return ExceptionManager.RAISE
        traceback.print_exception(inst)  # the journal keeps the details; the players get sentences
        Clock.schedule_once(lambda _dt: show_fault(self.app, error), 0)
        return ExceptionManager.PASS


def install(app: TableTallyApp) -> None:
    """Show the fault screen for every record fault in the running kiosk (instead of ending the app)."""
    ExceptionManager.add_handler(_Handler(app))


def show_fault(app: TableTallyApp, error: StoreError, note: str | None = None) -> None:
    """Put the fault screen up in the running kiosk."""
    flow = FaultFlow(error, app.store.data_dir, store=app.store)
    flow.outcome = note
    screen = next((s for s in app.sm.screens if s.name == FAULT), None)
    if screen is None:
        screen = FaultScreen(name=FAULT)
        app.sm.add_widget(screen)
    assert isinstance(screen, FaultScreen)
    if app.sheet is not None:
        app.sheet.dismiss()

    def done(flow: FaultFlow) -> None:
        if flow.set_aside_as is not None:  # the record was closed and renamed: start on a fresh one
            restart_process()
        elif app.kiosk.game is not None:
            app.show_game()
        else:
            app.go("home")

    screen.show(flow, done)
    app.sm.current = FAULT


class FaultApp(App):
    """The whole app when the record cannot be opened at start: the problem, its fix, and a restart."""

    title = "TableTally"

    def __init__(
        self, error: StoreError, data_dir: Path, restart: Callable[[], None] = restart_process, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.flow = FaultFlow(error, data_dir)
        self.restart = restart

    def build(self) -> ScreenManager:
        setup_theme()
        sm = ScreenManager(transition=NoTransition())
        screen = FaultScreen(name=FAULT)
        sm.add_widget(screen)
        screen.show(self.flow, lambda _flow: self.restart())
        return sm
