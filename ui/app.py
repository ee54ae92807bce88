"""The Kivy kiosk: thin screens over :class:`ui.logic.kiosk.Kiosk`.

Every screen rebuilds itself from the kiosk's state in ``refresh()``; every button calls one kiosk or flow
method and then refreshes. Scans run in the scanner's worker thread and come back through
``Clock.schedule_once``. Nothing here computes a score.
"""

from __future__ import annotations

import gc
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.metrics import dp
from kivy.uix.screenmanager import NoTransition, ScreenManager
from kivy.uix.widget import Widget

from ui.design import (
    MUTED,
    TOUCH,
    setup_theme,
)
from ui.i18n import _, num
from ui.i18n import on_change as i18n_on_change
from ui.i18n import remove_listener as i18n_remove_listener
from ui.logic import games
from ui.logic.kiosk import GAME_OVER, RESULT, ROUND, Kiosk, KioskError, ShownScan
from ui.logic.new_game import NewGameForm
from ui.logic.scan import (
    Scanner,
    ScanPhase,
    ScanResult,
    fit_for_display,
)
from ui.screens import fault as fault_screen
from ui.screens.base import Base
from ui.screens.camera_check import CameraCheckScreen, open_first_check
from ui.screens.deck import DeckScreen, apply_chosen_deck
from ui.screens.game_over import GameOverScreen
from ui.screens.home import HomeScreen
from ui.screens.jhyap_round import JhyapRoundScreen
from ui.screens.new_game import NewGameScreen
from ui.screens.nights import record_screens, story_first
from ui.screens.result import ResultScreen
from ui.screens.scores import ScoreboardScreen
from ui.screens.seats import SeatsScreen
from ui.screens.seep_deal import SeepDealScreen
from ui.screens.settings import SettingsScreen
from ui.screens.tonight import TonightScreen
from ui.share.sharing import Sharing
from ui.store import Fault, RecordFault, Store, StoreError
from ui.widgets.basic import (
    AutoLbl,
    Btn,
    Sheet,
    hbox,
    into_new_texture,
    scroller,
    vbox,
)
from ui.widgets.live_view import LiveWatch
from ui.widgets.photo import load_photo, texture_from_bgr

PROGRESS_GAP = 0.25  # seconds: a scan's step words change at most this often (each change is a frame drawn)


# -- the app -------------------------------------------------------------------------------------------


class TableTallyApp(App):
    title = "TableTally"

    def __init__(
        self,
        store: Store,
        camera: str | None = None,
        model_path: Path | None = None,
        share: bool = False,
        share_port: int | None = None,
        **kw: Any,
    ):
        super().__init__(**kw)
        self.store = store
        self.camera_override = camera
        self.model_path = model_path
        self.kiosk = Kiosk(store)
        self.sheet: Sheet | None = None
        self._photos: dict[str, Any] = {}
        self._scores_from = "round"
        self.scan_pending = False  # a scan was started and its result is not on screen yet
        self.scan_started = 0.0
        self.scan_seconds = 0.0  # the last scan, from the tap to its result on screen (the demo prints it)
        self.scan_marks: dict[str, float] = {}  # the last scan's moments (time.perf_counter; the demo)
        self._status: tuple[Any, Any] | None = None  # the scan's phase and step labels on screen
        self._progress_shown = 0.0  # when the scan's words last changed (time.perf_counter)
        self._progress_due = False  # a change of its step words is waiting for PROGRESS_GAP to pass
        self._collector_held = False  # the collector is off from a scan's tap until it is shown and kept
        self._drawn_words: tuple[str, str] | None = None  # the scan's words in the last frame drawn
        self._watching_frames = 0  # the on_flip binding that keeps _drawn_words while a scan is on
        self._fresh: tuple[dict[str, Any], Any] | None = None  # the scan just shown and its photo texture
        self.screen_errors: list[str] = []  # screens that failed to build (the kiosk went home instead)
        self.scanner = Scanner(
            self.camera_spec(), model_path, dispatch=self._dispatch, after_frame=self._after_frame
        )
        self.live = LiveWatch(self)  # the round screen's live view and the automatic scan
        self.share_forced = share  # tabletally kiosk --share
        self.sharing = Sharing(self.kiosk, port=share_port)

    @staticmethod
    def _dispatch(fn: Callable[[], None]) -> None:
        Clock.schedule_once(lambda _dt: fn(), 0)

    def _after_frame(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the UI thread once what was dispatched before it is on screen (from any thread):
        at once when the last frame drawn already showed the scan's words as they are now, else after the
        next frame (one is drawn even when nothing changed)."""
        bound: list[int] = []

        def done(*_: Any) -> None:
            if bound:
                Window.unbind_uid("on_flip", bound.pop())
                fn()

        def arm(_dt: float) -> None:
            if self._status is not None and self._scan_words() == self._drawn_words:
                fn()
                return
            bound.append(Window.fbind("on_flip", done))
            Window.canvas.ask_update()

        Clock.schedule_once(arm, 0)

    def _scan_words(self) -> tuple[str, str] | None:
        """The scan's phase and step words on screen now (None without them)."""
        return None if self._status is None else (self._status[0].text, self._status[1].text)

    def _words_drawn(self, *_: Any) -> None:
        """A frame was drawn while a scan is on: the words it showed."""
        self._drawn_words = self._scan_words()

    def camera_spec(self) -> str:
        return self.camera_override or self.kiosk.camera_spec()

    # language and digits: kept in the record; a change redraws the screen on show (every screen rebuilds
    # from the kiosk state when it is shown, in the language in use then)
    def set_language(self, code: str) -> None:
        first = self.kiosk.language() is None
        self.kiosk.set_language(code)
        if first and getattr(self, "sm", None) is not None and self.current == "home":
            open_first_check(self)  # first start: the language chosen, then the camera placed right

    def set_digits(self, style: str) -> None:
        self.kiosk.set_digits(style)

    def _locale_changed(self) -> None:
        if getattr(self, "sm", None) is not None:
            self.refresh()

    def build(self) -> ScreenManager:
        setup_theme()
        self.kiosk.apply_locale()
        i18n_on_change(self._locale_changed)
        apply_chosen_deck(self)
        self.sm = ScreenManager(transition=NoTransition())
        self.screens: dict[str, Base] = {
            "home": HomeScreen(self, name="home"),
            "new_game": NewGameScreen(self, name="new_game"),
            "jhyap_round": JhyapRoundScreen(self, name="jhyap_round"),
            "seep_deal": SeepDealScreen(self, name="seep_deal"),
            "seats": SeatsScreen(self, name="seats"),
            "result": ResultScreen(self, name="result"),
            "scores": ScoreboardScreen(self, name="scores"),
            "game_over": GameOverScreen(self, name="game_over"),
            "tonight": TonightScreen(self, name="tonight"),
            "settings": SettingsScreen(self, name="settings"),
            "deck": DeckScreen(self, name="deck"),
            "camera_check": CameraCheckScreen(self, name="camera_check"),
        }
        self.screens.update(record_screens(self))  # players, nights, a night's story
        for screen in self.screens.values():
            self.sm.add_widget(screen)
        Window.bind(size=lambda *_: Clock.schedule_once(lambda _dt: self.refresh(), 0))
        Clock.schedule_once(lambda _dt: self.start_screen(open_first_check), 0)
        warming = self.scanner.warm_up()  # the card model loads while the players choose a game
        Clock.schedule_once(lambda _dt: self._settle_memory(warming), 0.5)
        self.sharing.start_at_launch(forced=self.share_forced)  # the phones' scoreboard, when switched on
        fault_screen.install(self)  # a record fault in any tap or screen shows the fault screen, not a crash
        return self.sm

    def _settle_memory(self, warming: threading.Thread) -> None:
        """Once start-up has made its objects (the screens, the detector loaded in the background): one
        collection, then those objects are frozen out of the collector's full passes. Without it each full
        pass walks them all again, holding the interpreter, every few rebuilds and often in the middle of
        showing a scan's result; now it walks only what was made since."""
        if warming.is_alive():
            Clock.schedule_once(lambda _dt: self._settle_memory(warming), 0.5)
            return
        gc.collect()
        gc.freeze()

    def start_screen(self, open_first_check: Callable[[TableTallyApp], bool]) -> None:
        """Home; on first start (a language chosen, the camera never checked) the camera check, once."""
        if not open_first_check(self):
            self.go("home")

    # navigation
    @property
    def current(self) -> str:
        return str(self.sm.current)

    def go(self, name: str) -> None:
        if name == "round":
            name = "jhyap_round" if self.kiosk.kind == games.JHYAP else "seep_deal"
        self.sm.current = name
        self.refresh()

    def refresh(self) -> None:
        screen = self.screens.get(self.sm.current)
        if screen is None:
            return
        try:
            screen.refresh()
        except Exception as exc:  # noqa: BLE001 - never leave the players on a broken screen
            traceback.print_exc()
            store_error = fault_screen.as_store_error(exc)
            if store_error is not None:  # the record failed: say what happened and what to do
                fault_screen.show_fault(self, store_error)
                return
            self.screen_errors.append(f"{self.sm.current}: {traceback.format_exc(limit=3)}")
            self.sm.current = "home"
            self.screens["home"].refresh()

    def go_home(self) -> None:
        self.kiosk.close()
        self.scanner.release_camera()
        self.go("home")

    def new_game(self, kind: str) -> None:
        if not story_first(self, lambda: self.edit_form(self.kiosk.new_form(kind))):  # last night's story
            self.edit_form(self.kiosk.new_form(kind))

    def edit_form(self, form: NewGameForm) -> None:
        screen = self.screens["new_game"]
        assert isinstance(screen, NewGameScreen)
        screen.form = form
        screen.error = ""
        self.go("new_game")

    def open_game(self, game_id: int) -> None:
        self.kiosk.open(game_id)
        self.show_game()

    def show_seats(self) -> None:
        """Where everyone sits (asked when a Jhyap game starts without the night's seats; redone at will)."""
        screen = self.screens["seats"]
        assert isinstance(screen, SeatsScreen)
        screen.start()
        self.go("seats")

    def show_game(self) -> None:
        if self.kiosk.screen == GAME_OVER:
            self.scanner.release_camera()
        else:  # a game is on: the camera opens, settles and focuses now, and stays ready between rounds
            self.scanner.warm_up(camera=True)
        if self.kiosk.screen == ROUND and self.kiosk.seats_needed:
            self.show_seats()
        elif self.kiosk.screen == RESULT:
            self.go("result")
        elif self.kiosk.screen == GAME_OVER:
            self.go("game_over")
        elif self.kiosk.screen == ROUND:
            self.go("round")
        else:
            self.go("home")

    def show_scores(self) -> None:
        self._scores_from = self.current
        self.go("scores")

    def back_from_scores(self) -> None:
        self.go(self._scores_from if self._scores_from != "scores" else "round")

    def open_sheet(self, sheet: Sheet) -> None:
        self.sheet = sheet
        sheet.bind(on_dismiss=lambda *_: setattr(self, "sheet", None))
        sheet.open(animation=False)

    def confirm_sheet(self, question: str, yes: str, action: Callable[[], None]) -> None:
        sheet = Sheet(question)

        def do() -> None:
            sheet.dismiss()
            action()

        sheet.body.add_widget(Widget())
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(Btn(_("Cancel"), sheet.dismiss, role="quiet", name="sheet-no"))
        row.add_widget(Btn(yes, do, role="danger", name="sheet-yes"))
        sheet.body.add_widget(row)
        self.open_sheet(sheet)

    def edit_menu(self) -> None:
        game = self.kiosk.game
        assert game is not None
        log = game.log()
        jhyap = game.kind == games.JHYAP
        sheet = Sheet(
            _("Edit which round? Every later one is recomputed.")
            if jhyap
            else _("Edit which deal? Every later one is recomputed.")
        )
        items = vbox(size_hint_y=None)
        rounds = games.jhyap_state(log).rounds if jhyap else ()
        deals = () if jhyap else games.seep_state(log).deals
        for i in range(len(game.entries)):
            if game.kind == games.JHYAP:
                r = rounds[i]
                text = (
                    _("Round {n}: {caller} called (made it)")
                    if r.caller_won
                    else _("Round {n}: {caller} called (penalty)")
                ).format(n=num(i + 1), caller=r.caller)
            else:
                d = deals[i]
                points = ", ".join(f"{t} {num(p)}" for t, p in d.points.items())
                text = _("Deal {n}: {points}").format(n=num(i + 1), points=points)
            items.add_widget(Btn(text, lambda i=i: self._edit(sheet, i), name=f"edit-{i}", halign="left"))
        sheet.body.add_widget(scroller(items))
        sheet.body.add_widget(Btn(_("Cancel"), sheet.dismiss, role="quiet", name="edit-cancel"))
        self.open_sheet(sheet)

    def _edit(self, sheet: Sheet, position: int) -> None:
        sheet.dismiss()
        self.kiosk.edit(position)
        self.go("round")

    def end_game(self) -> None:
        kind = self.kiosk.kind
        question = (
            _("End this Seep game now? The team with more baazis wins.")
            if kind == games.SEEP
            else _("Stop this Jhyap game without a winner?")
        )
        self.confirm_sheet(question, _("End game") if kind == games.SEEP else _("Stop game"), self._end)

    def _end(self) -> None:
        self.kiosk.end_game()
        self.scanner.release_camera()
        self.go("game_over")

    # scanning
    def scan(self, target: str, n_hands: int | None, decks: int | None = None, auto: bool = False) -> None:
        """Start a scan: the screen shows it in progress, and the reading runs in the reading process (or
        a worker thread) while this thread does as little as it can: the photo is handed over once the
        screen is drawn (:meth:`Scanner.scan_now`), the words change in place at most every
        ``PROGRESS_GAP``, and the garbage collector is held until the result is shown and kept. A full
        pass of the collector over the screens rebuilt since the last one holds this thread for as long
        as a good part of the reading, and in the middle of it the reading waits for the core it takes;
        it runs after the scan instead (:meth:`_release_collector`)."""
        self.scanner.camera_spec = self.camera_spec()
        self.scan_started = time.perf_counter()
        self.scan_marks = {"tapped": self.scan_started}
        held = self._collector_held
        if not held:
            gc.disable()
            self._collector_held = True
        started = self.scanner.scan(target, self._scanned, n_hands, self._scan_progress, decks)
        if not started:
            if not held:
                self._collector_held = False
                gc.enable()
            return
        self.scan_pending = True
        self.live.began(auto)  # a tap: the table as it lies was read (auto: the live view's watcher began it)
        self._progress_shown = time.perf_counter()
        self._drawn_words = None
        if not self._watching_frames:
            self._watching_frames = Window.fbind("on_flip", self._words_drawn)
        # The round's screen shows the scan in the widgets it has (a rebuild at the tap is work on this
        # thread, and a whole new screen for the renderer to draw, while the photo waits for that frame).
        screen = self.screens.get(self.sm.current)
        try:
            shown = screen is not None and screen.show_scanning()
        except Exception:  # noqa: BLE001 - the screen is rebuilt instead, as before
            traceback.print_exc()
            shown = False
        if not shown:
            self.refresh()

    def _release_collector(self) -> None:
        """A scan is over (shown and kept, or failed): the collector on again, and its full pass over what
        the scan's screens left run now, while the players look at the result (skipped when a new scan
        has begun: that one's end runs it)."""
        if not self._collector_held or self.scan_pending:
            return
        self._collector_held = False
        gc.enable()

        def collect(_dt: float) -> None:
            if not self._collector_held:
                begun = time.perf_counter()
                gc.collect()
                self.scan_marks["collected_ms"] = (time.perf_counter() - begun) * 1000

        Clock.schedule_once(collect, 0)

    def scan_status(self) -> Widget:
        """The words a screen shows while a scan is in progress: the phase, and below it how far the
        reading has come. They change in place as the scan goes on (a rebuilt screen would be work on
        the UI thread that the reading waits for)."""
        box = vbox(size_hint_y=None, spacing=dp(4))
        phase = AutoLbl(self.scanner.status_text(), "l", halign="center")
        step = AutoLbl(self.scanner.step_text(), "m", halign="center", color=MUTED)
        box.add_widget(phase)
        box.add_widget(step)
        box.bind(minimum_height=box.setter("height"))
        self._status = (phase, step)
        # Once more just before this screen is first drawn: a photo taken while the screen was being built
        # shows "Reading" in that frame, not in one more frame drawn as the reading begins.
        Clock.schedule_once(lambda _dt: self._scan_progress(self.scanner.phase), -1)
        return box

    def _scan_progress(self, phase: ScanPhase) -> None:
        """Show a scan's new phase in the labels on screen at once (no rebuild), and the reading's new step
        at most every ``PROGRESS_GAP`` (the latest then): each change is a frame drawn while it reads."""
        if self._status is None or not self.scanner.busy:
            return
        status, step = self._status
        now = time.perf_counter()
        # New words go into new textures: one the last frame drew would first wait for that frame.
        if status.text != self.scanner.status_text():
            into_new_texture(status)
            status.text = self.scanner.status_text()
        elif self._progress_shown + PROGRESS_GAP > now:
            if not self._progress_due:
                self._progress_due = True
                Clock.schedule_once(self._progress_later, self._progress_shown + PROGRESS_GAP - now)
            return
        if step.text != self.scanner.step_text():
            into_new_texture(step)
            step.text = self.scanner.step_text()
        self._progress_shown = now

    def _progress_later(self, _dt: float) -> None:
        self._progress_due = False
        self._scan_progress(ScanPhase.READING)

    def _scanned(self, result: ScanResult) -> None:
        """A scan's result: its cards go into the round and on screen first; its photo and reading are
        written to the record right after, off this thread (:meth:`Kiosk.keep_scan`), and tied to the
        round when written (confirming the round waits for that)."""
        self.scan_pending = False
        self._status = None
        if self._watching_frames:
            Window.unbind_uid("on_flip", self._watching_frames)
            self._watching_frames = 0
        self.scan_marks["result"] = time.perf_counter()
        if self.kiosk.flow is None:
            self._release_collector()
            return
        if not self.live.keep(result):  # an automatic reading that found too few cards (cards face down,
            self._release_collector()  # say): the round keeps waiting, quietly
            self.refresh()
            return
        shown: ShownScan | None = None
        try:
            shown = self.kiosk.show_scan(result)
        except (ValueError, KioskError) as exc:
            self.kiosk.flow.message = str(exc)
        if shown is not None and result.image is not None:
            preview = result.preview if result.preview is not None else fit_for_display(result.image)
            self._fresh = (shown.meta, texture_from_bgr(preview))
        self.refresh()
        self.scan_marks["shown"] = time.perf_counter()
        self.scan_seconds = self.scan_marks["shown"] - self.scan_started  # tap to the result on screen
        if shown is None:
            try:
                self.kiosk.save()  # the camera's message, or a scan that could not be put in the round
            finally:
                self._release_collector()
            return
        threading.Thread(target=self._keep, args=(shown,), name="tabletally-keep", daemon=True).start()

    def _keep(self, shown: ShownScan) -> None:
        """On the keeping thread: the scan's photo and reading to the record, then back to the UI thread."""
        self.kiosk.keep_scan(shown)
        self.scan_marks["kept"] = time.perf_counter()
        self._dispatch(lambda: self._kept(shown))

    def _kept(self, shown: ShownScan) -> None:
        try:
            self.kiosk.scan_kept(shown)  # raises a fault of the record: the fault screen shows it
        finally:
            self._release_collector()
        if shown.photo_dropped:  # the disk is full: the cards were kept, the photo was not
            fault_screen.show_fault(
                self,
                RecordFault(Fault.FULL, self.store.photos_dir, "no room for the scan photo"),
                _("This scan's cards were kept; its photo was not."),
            )

    def photo_for(self, meta: dict[str, Any]) -> Any:
        """The photo texture of a scan the round holds (``meta``: its note in the round): the one just
        taken from memory, else from its file (:meth:`photo_cache`)."""
        if self._fresh is not None and self._fresh[0] is meta:
            return self._fresh[1]
        return self.photo_cache(meta.get("photo"))

    def photo_cache(self, path: str | None) -> Any:
        """The scan photo as a GPU texture, kept for the last photo only (the Pi has little memory), so that
        a tap that redraws the round does not decode and upload the photo again."""
        if not path:
            return None
        if path not in self._photos:
            image = load_photo(path)
            self._photos = {path: texture_from_bgr(image) if image is not None else None}
            self._fresh = None
        return self._photos[path]

    def on_stop(self) -> None:
        self.live.stop()
        self.sharing.turn_off()
        i18n_remove_listener(self._locale_changed)
        self.scanner.settle()
        self.scanner.release_camera()
        if self._collector_held:
            self._collector_held = False
            gc.enable()
        try:
            self.kiosk.finish_keeping()  # a scan on screen is written before the record closes
            self.kiosk.save()
        except StoreError:  # stopping on a full or read-only disk: the last confirmed action is already safe
            traceback.print_exc()
