"""Scanning cards: the photo taken in a worker thread, read in a process of its own; progress and result.

A :class:`Scanner` takes a photo with the configured camera, reads the cards with the vision pipeline and
hands back a :class:`ScanResult` through ``dispatch`` (in the kiosk, ``Clock.schedule_once`` onto the UI
thread). A camera that fails gives a result with a clear message and nothing else, so the screen can offer a
retry; a missing card model still returns the photo, so the players can type the cards beside it.

Nothing slow waits for the tap: :meth:`Scanner.warm_up` loads the detector (and, when a game starts, opens
the camera, which then stays open and ready) in the background, and starts the reading process
(:class:`ReadingProcess`). A scan runs in a worker thread that takes the photo and has it read in that
process (or, with a taught deck or no process, by the detector in this one); the model runtime uses at most
two threads (the detector's ``threads``), so on the Pi's four cores the UI keeps two. While it reads, the
reading tells how far it has come (:meth:`Scanner.step_text`: each look of the model, the corner reader),
which the screen shows in place, without being rebuilt. The result carries the photo as taken; its JPEG
for the record is made only when the scan is kept (:meth:`ScanResult.photo_jpeg`), after the result is on
screen.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ui.i18n import N_, _, ngettext, num
from ui.logic.card_words import JOKER as JOKER
from ui.logic.card_words import SUIT_SIGNS as SUIT_SIGNS
from ui.logic.card_words import card_label as card_label
from ui.logic.reading_process import ReadingProcess
from ui.logic.rule_messages import explain_photo

# What a scan gives (ui.logic.scanned), named here too for the screens and flows that take it from the scan.
from ui.logic.scanned import PICKER_RANKS as PICKER_RANKS
from ui.logic.scanned import PICKER_SUITS as PICKER_SUITS
from ui.logic.scanned import RED_SUITS as RED_SUITS
from ui.logic.scanned import Box as Box
from ui.logic.scanned import CardPicker as CardPicker
from ui.logic.scanned import HandCard as HandCard
from ui.logic.scanned import ScanResult as ScanResult
from ui.logic.scanned import fit_for_display as fit_for_display
from ui.logic.scanned import normalize_code as normalize_code
from ui.logic.scanned import reading_to_scan as reading_to_scan

if TYPE_CHECKING:  # vision (numpy, ONNX Runtime) is imported when the detector loads, not at start-up
    from vision.cameras import Camera
    from vision.runtimes.protocols import Detector

SCREEN_WAIT = 0.25  # at most this long (s) a photo waits for the screen to draw the reading's words


class ScanPhase(Enum):
    IDLE = "idle"
    LOADING = "loading"
    CAMERA = "camera"
    READING = "reading"
    DONE = "done"
    FAILED = "failed"


PHASE_TEXT = {
    ScanPhase.IDLE: "",
    ScanPhase.LOADING: N_("Getting the card reader ready..."),
    ScanPhase.CAMERA: N_("Taking the photo..."),
    ScanPhase.READING: N_("Reading the cards..."),
    ScanPhase.DONE: N_("Done"),
    ScanPhase.FAILED: N_("Scan failed"),
}


class Scanner:
    """Runs camera + detector off the UI thread. ``dispatch(fn)`` runs ``fn`` on the UI thread.

    ``camera_spec`` is what ``vision.cameras.open_camera`` accepts. The camera is opened at the first scan
    (or by :meth:`warm_up`) and kept open and ready between scans, so a photo is taken at once and a folder
    of photos gives the next one each time; :meth:`release_camera` closes it (the game is over, the kiosk
    closes). A camera that fails is closed and opened again at the next scan. A new ``camera_spec`` (a
    choice in Settings) takes effect at the next scan; the camera in use is kept until the new one opens.

    ``detector`` is the :class:`vision.runtimes.protocols.Detector` to read with (tests give a
    :class:`vision.runtimes.fake.FakeDetector`); by default the ONNX Runtime detector on ``model_path``.
    """

    def __init__(
        self,
        camera_spec: str = "auto",
        model_path: Path | None = None,
        dispatch: Callable[[Callable[[], None]], None] | None = None,
        detector: Detector | None = None,
        after_frame: Callable[[Callable[[], None]], None] | None = None,
        camera: Camera | None = None,
    ) -> None:
        self.camera_spec = camera_spec
        self._given_camera = camera  # used instead of opening camera_spec (the demo's scripted table)
        self.model_path = model_path
        self._given_detector = detector  # e.g. a vision.runtimes.fake.FakeDetector; else the model_path one
        self.deck_loader: Callable[[Any], Any] | None = None  # detector -> a taught deck (Settings), or None
        self.deck_error: str | None = None  # why the chosen deck could not be used (the standard reading is)
        self.dispatch = dispatch or (lambda fn: fn())
        # after_frame(fn): fn runs on the UI thread once the screen has drawn what it was sent before (the
        # kiosk: after the next frame); by default as soon as dispatch runs it.
        self.after_frame = after_frame or self.dispatch
        self.phase = ScanPhase.IDLE
        self._detector: Detector | None = None
        self._detector_error: str | None = None
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()
        self._camera_lock = threading.Lock()
        self._camera: Camera | None = None  # the open camera, kept between scans
        self._camera_for = ""  # the spec it was opened for
        self._thread: threading.Thread | None = None
        self._warming: threading.Thread | None = None
        self._reader: ReadingProcess | None = None  # the reading process (the kiosk's model, no taught deck)
        self.camera_name = ""
        self.last_times: dict[str, float] = {}  # the last scan's milliseconds (scan_now)
        self.last_marks: dict[str, float] = {}  # the last scan's moments (time.perf_counter, scan_now)
        self.looks = 0  # passes of the model so far in the reading in progress
        self.reading_corners = False  # the corner reader is reading the corners found

    @property
    def busy(self) -> bool:
        return self.phase in (ScanPhase.CAMERA, ScanPhase.READING)

    def _set_phase(self, phase: ScanPhase, on_progress: Callable[[ScanPhase], None] | None) -> None:
        self.phase = phase
        if on_progress is not None:
            self.dispatch(lambda: on_progress(phase))

    def _load_detector(self) -> Detector | None:
        """The detector, loaded on first use in the worker thread; None (and a message) without a model.
        A failed load is tried again at the next scan, so a model copied in later is picked up."""
        with self._model_lock:
            if self._detector is None:
                try:
                    from vision.reading.detector import detector_for_runtime

                    given = self._given_detector  # else ONNX Runtime, or NCNN by $TABLETALLY_RUNTIME
                    self._detector = (given or detector_for_runtime(model_path=self.model_path)).load()
                    self._detector_error = None
                    self._apply_deck()
                except Exception as exc:  # noqa: BLE001 - any failure: no model, so the players type the cards
                    self._detector_error = _model_message(exc)
        return self._detector

    @property
    def camera(self) -> Camera | None:
        """The camera kept open between scans (None before the first scan and after a release)."""
        return self._camera

    def status_text(self) -> str:
        """What the screen says while a scan is in progress (the phase), in the language in use; "" idle."""
        text = PHASE_TEXT[self.phase]
        return _(text) if text else ""  # gettext("") would give the catalog's header

    def step_text(self) -> str:
        """How far the reading in progress has come ("" before it reads): the model's looks at the photo,
        or the corner reader checking each card."""
        if self.phase is not ScanPhase.READING or not (self.looks or self.reading_corners):
            return ""
        if self.reading_corners:
            return _("Checking each card")
        if self.looks == 1:
            return _("Looking at the whole photo")
        more = self.looks - 1
        return ngettext("Looking closer: {n} more view", "Looking closer: {n} more views", more).format(
            n=num(more)
        )

    @property
    def ready(self) -> bool:
        """Whether the detector is loaded (a scan now does not wait for the model)."""
        return self._detector is not None

    @property
    def reader_ready(self) -> bool:
        """Whether scans are read in the reading process (started by :meth:`warm_up` for the kiosk's
        model; a taught deck is read here, in the kiosk's own process)."""
        return self._reader is not None and self.deck_loader is None and self._reader.ready

    def warm_up(self, camera: bool = False) -> threading.Thread:
        """Load the detector in a background thread of reading priority (and with ``camera``, open the
        camera and let it settle and focus: when a game starts), so the first scan waits for neither. A
        failure is only remembered: the next scan reports it. Returns the thread (tests join it)."""

        if self._reader is None and self._given_detector is None and self.model_path_exists():
            self._reader = ReadingProcess(self.model_path)

        def work() -> None:
            self._load_detector()
            if camera:
                with contextlib.suppress(Exception), self._camera_lock:
                    self._kept_camera()

        thread = threading.Thread(target=work, name="tabletally-warm-up", daemon=True)
        self._warming = thread
        thread.start()
        return thread

    def model_path_exists(self) -> bool:
        """Whether the kiosk's model file is there (else no reading process is started for it)."""
        from vision.runtimes.model_files import model_from_env

        return (self.model_path or model_from_env()).is_file()

    def use_deck(self, loader: Callable[[Any], Any] | None) -> None:
        """Read with a taught deck from the next scan on: ``loader(detector)`` gives it (a
        :class:`vision.deck.memory.DeckMemory`); None for the standard reading. Applied now when the
        detector is loaded, else when it loads."""
        self.deck_loader = loader
        if self._detector is not None:
            with self._model_lock:
                self._apply_deck()

    def _apply_deck(self) -> None:
        """Give the loaded detector the chosen deck (call with ``_model_lock`` held); a deck that cannot be
        loaded leaves the standard reading and says why in ``deck_error``."""
        from vision.deck.memory import use_deck

        self.deck_error = None
        try:
            use_deck(self._detector, None if self.deck_loader is None else self.deck_loader(self._detector))
        except Exception as exc:  # noqa: BLE001 - a damaged or unknown deck: read as standard, say so
            self.deck_error = str(exc)
            with contextlib.suppress(Exception):
                use_deck(self._detector, None)

    def loaded_detector(self) -> Detector | None:
        """The detector, loaded now if it is not yet (call off the UI thread); None without a model."""
        return self._load_detector()

    def photo(self) -> Any:
        """A photo from the kept camera (call off the UI thread); the camera's error when it fails."""
        return self._capture()[0]

    def frame(self) -> Any:
        """A small BGR frame of what the kept camera sees now (its small stream, ``Camera.preview``: on the
        Pi the running camera's lores stream), for the live view and the table watcher. Call off the UI
        thread; the camera's error when it fails (it is then opened again next time)."""
        with self._camera_lock:
            camera = self._kept_camera()
            try:
                return camera.preview()
            except Exception:
                self._camera, self._camera_for = None, ""
                with contextlib.suppress(Exception):
                    camera.close()
                raise

    def release_camera(self) -> None:
        """Close the kept camera (the game is over, or the kiosk closes); the next scan opens it again."""
        with self._camera_lock:
            camera, self._camera, self._camera_for = self._camera, None, ""
        if camera is not None:
            with contextlib.suppress(Exception):
                camera.close()

    def scan_now(
        self,
        target: str,
        n_hands: int | None = None,
        on_progress: Callable[[ScanPhase], None] | None = None,
        decks: int | None = None,
    ) -> ScanResult:
        """Take a photo and read it, in the calling thread. ``decks``: the packs in play, so that no card is
        read more often than they hold (``vision.pipeline.read_cards``). ``on_progress`` gets each new
        phase, and the reading phase again at each step of the reading (:meth:`step_text` says it).
        ``last_times`` then holds the scan's milliseconds: ``capture`` (the photo, decoded), ``read``
        (photo to cards) and ``worker`` (all of it); ``last_marks`` the moments (``time.perf_counter``)
        it began, had the photo, handed it to the reading (once the screen showed the reading's words:
        :attr:`after_frame`) and had read it."""
        begun = time.perf_counter()
        self.last_times = {}
        self.last_marks = {"begun": begun}
        self.looks, self.reading_corners = 0, False
        self._set_phase(ScanPhase.CAMERA, on_progress)
        try:
            image, camera = self._capture()
            self.last_marks["captured"] = time.perf_counter()
            self.last_times["capture"] = (self.last_marks["captured"] - begun) * 1000
        except Exception as exc:  # noqa: BLE001 - a camera can fail in any way; the players get a retry
            self._set_phase(ScanPhase.FAILED, on_progress)
            return ScanResult(target=target, error=_camera_message(exc), camera_failed=True)
        # The photo fitted for the screen on a thread of its own while the screen draws and the model
        # reads (a 12 MP still's resize on a Pi would otherwise come after the reading, before the result).
        fitted: list[Any] = []
        fitting = threading.Thread(target=lambda: fitted.append(fit_for_display(image)), daemon=True)
        fitting.start()

        def with_preview(result: ScanResult) -> ScanResult:
            fitting.join()
            return ScanResult(**{**result.__dict__, "preview": fitted[0] if fitted else None})

        if not self.ready:
            self._set_phase(ScanPhase.LOADING, on_progress)
        detector = self._load_detector()
        self._set_phase(ScanPhase.READING, on_progress)

        def photo_only(error: str | None) -> ScanResult:
            """The photo without a reading (no model, or reading failed): the players type the cards."""
            self._set_phase(ScanPhase.DONE, on_progress)
            return with_preview(
                ScanResult(
                    target=target,
                    width=int(image.shape[1]),
                    height=int(image.shape[0]),
                    image=image,
                    camera=camera,
                    error=error,
                )
            )

        if detector is None:
            return photo_only(self._detector_error)
        from vision.base.photo import has_colour

        colour = has_colour(image)  # while the screen draws the reading's words, not after the reading
        self._wait_for_screen()
        self.last_marks["handed"] = time.perf_counter()
        try:
            from vision.pipeline import read_cards
            from vision.reading.detector import reporting_steps
            from vision.reading.rules import LOOK_STEP

            def step(name: str) -> None:
                """A step of the reading began (on this thread): count it, and let the screen say so."""
                if name == LOOK_STEP:
                    self.looks += 1
                self.reading_corners = name != LOOK_STEP
                if on_progress is not None:
                    self.dispatch(lambda: on_progress(ScanPhase.READING))

            started = time.perf_counter()
            reader = self._reader
            if reader is not None and self.reader_ready:
                try:
                    reading = reader.read(image, n_hands, decks, step)
                except RuntimeError:  # the process died: read here, as without one
                    with reporting_steps(detector, step):
                        reading = read_cards(image, detector, n_hands=n_hands, decks=decks)
            else:
                with reporting_steps(detector, step):
                    reading = read_cards(image, detector, n_hands=n_hands, decks=decks)
            result = reading_to_scan(target, reading, image, camera)
            if not result.ms:
                result = ScanResult(**{**result.__dict__, "ms": (time.perf_counter() - started) * 1000})
        except Exception as exc:  # noqa: BLE001 - keep the photo; the players can type the cards
            return photo_only(_reading_message(exc))
        if not colour and not result.error:  # red suits read as black ones: say so
            result = ScanResult(**{**result.__dict__, "error": no_colour_message()})
        result = with_preview(result)
        self.last_marks["read"] = time.perf_counter()
        self.last_times.update(read=result.ms, worker=(self.last_marks["read"] - begun) * 1000)
        self._set_phase(ScanPhase.DONE, on_progress)
        return result

    def _wait_for_screen(self) -> None:
        """Let the screen draw what it was sent (the reading's words) before the photo is read: drawn during
        the reading, that frame would take a core the reading waits for. At most ``SCREEN_WAIT``."""
        drawn = threading.Event()
        self.after_frame(drawn.set)
        drawn.wait(SCREEN_WAIT)

    def scan(
        self,
        target: str,
        on_done: Callable[[ScanResult], None],
        n_hands: int | None = None,
        on_progress: Callable[[ScanPhase], None] | None = None,
        decks: int | None = None,
    ) -> bool:
        """Start a scan in a worker thread; ``on_done`` gets the result on the UI thread. False if busy."""
        with self._lock:
            if self.busy:
                return False
            self.phase = ScanPhase.CAMERA

        def work() -> None:
            result = self.scan_now(target, n_hands, on_progress, decks)
            self.dispatch(lambda: on_done(result))

        self._thread = threading.Thread(target=work, name="tabletally-scan", daemon=True)
        self._thread.start()
        return True

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def settle(self, timeout: float = 30.0) -> None:
        """Wait for the model's loading and the scan in progress to end (the kiosk is closing): a runtime
        still loading on a thread when the process exits aborts it."""
        for thread in (self._warming, self._thread):
            if thread is not None:
                thread.join(timeout)
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _kept_camera(self) -> Camera:
        """The open camera for ``camera_spec`` (call with ``_camera_lock`` held): the kept one, else newly
        opened; the one it replaces is closed once the new one is open."""
        spec = self.camera_spec
        if self._given_camera is not None:
            self._camera, self.camera_name = self._given_camera, self._given_camera.name
            return self._given_camera
        if self._camera is None or self._camera_for != spec:
            from vision.cameras import open_camera

            camera, reason = open_camera(spec)
            old, self._camera, self._camera_for = self._camera, camera, spec
            self.camera_name = str(getattr(camera, "name", reason))
            if old is not None:
                with contextlib.suppress(Exception):
                    old.close()
        return self._camera

    def _capture(self) -> tuple[Any, str]:
        with self._camera_lock:
            camera = self._kept_camera()
            try:
                image = camera.capture()
            except Exception:
                self._camera, self._camera_for = None, ""
                with contextlib.suppress(Exception):
                    camera.close()
                raise
        return image, self.camera_name


def _sentence(exc: BaseException) -> str:
    """An error's text as one sentence: the vision layer's "photo: " prefix dropped, a full stop added."""
    text = explain_photo(str(exc).strip().removeprefix("photo: ")) or type(exc).__name__
    return text if text.endswith((".", "?", "!", "\u0964")) else text + "."  # \u0964: the danda (ne, hi)


def _camera_message(exc: BaseException) -> str:
    return _(
        "The camera did not give a photo: {reason} Check the camera and tap Retry, or type the cards."
    ).format(reason=_sentence(exc))


def _reading_message(exc: BaseException) -> str:
    return _("Could not read the cards: {reason} Type them instead.").format(reason=_sentence(exc))


def no_colour_message() -> str:
    return _(
        "This photo has no colour, so hearts and diamonds cannot be told from spades and clubs. Check every "
        "red card, or set the camera to colour."
    )


def _model_message(exc: BaseException) -> str:
    """A sentence for the players; the runtime's own text (ONNX Runtime's, a path) goes to the log only."""
    import sys

    print(f"tabletally: the card model did not load: {exc}", file=sys.stderr)
    if isinstance(exc, FileNotFoundError) or "not found" in str(exc):
        return _("No card model yet: type the cards (or tap them on the photo to fix them).")
    return _(
        "The card model is damaged or not a TableTally model, so photos cannot be read. Type the cards "
        "instead; tabletally doctor says how to fix the model."
    )
