"""The base every kiosk screen builds on: it rebuilds from the kiosk's state in ``refresh()``. The screens
know the app only as a type (no import of ``ui.app`` at run time: the app imports the screens)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.metrics import dp
from kivy.uix.screenmanager import Screen

from ui.design import TOUCH
from ui.i18n import _
from ui.logic.kiosk import Kiosk
from ui.widgets.basic import Btn, Lbl, hbox, vbox

if TYPE_CHECKING:
    from ui.app import TableTallyApp


def short(text: str, n: int = 120) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


class Base(Screen):
    """A screen that rebuilds from the kiosk state."""

    def __init__(self, app: TableTallyApp, **kw: Any) -> None:
        super().__init__(**kw)
        self.app = app

    @property
    def kiosk(self) -> Kiosk:
        return self.app.kiosk

    def refresh(self) -> None:
        self.clear_widgets()
        root = vbox(padding=dp(6), spacing=dp(6))
        self.build(root)
        self.add_widget(root)

    def build(self, root: Any) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def show_scanning(self) -> bool:
        """Show the scan just begun in the screen as built, without a rebuild; False where this screen
        cannot (it is rebuilt instead)."""
        return False

    def undo(self) -> None:
        """Ask, then take back the last round (the result and scores screens offer it)."""
        self.app.confirm_sheet(
            _("Undo the last round? Its cards stay in the record's history."), _("Undo"), self._undo
        )

    def _undo(self) -> None:
        self.kiosk.undo_last()
        self.app.show_game()

    def top_bar(
        self, title: str, back: tuple[str, Callable[[], None]] | None = None, scores: bool = False
    ) -> Any:
        bar = hbox(size_hint_y=None, height=TOUCH)
        if back is not None:
            bar.add_widget(Btn(back[0], back[1], role="quiet", name="back", size_hint_x=None, width=dp(110)))
        bar.add_widget(Lbl(title, "l", bold=True, shorten=True, shorten_from="right"))
        if scores:
            bar.add_widget(
                Btn(_("Scores"), self.app.show_scores, name="scores", size_hint_x=None, width=dp(120))
            )
        return bar
