"""The kiosk's scanner: a camera kept open and ready between scans, the detector loaded before the first
tap, the reading off the UI thread with its progress shown, and the result on screen before its photo and
reading are written to the record (never before a confirmed round is)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ui.logic.kiosk import Kiosk
from ui.logic.scan import Scanner, ScanPhase, ScanResult
from ui.store import Store
from vision.base.types import Detection
from vision.runtimes.fake import FakeDetector


def write_photos(folder: Path, widths: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    for k, width in enumerate(widths):
        photo = rng.integers(0, 255, (60, width, 3), dtype=np.uint8)  # not blank
        assert cv2.imwrite(str(folder / f"{k:02d}.png"), photo)


def fake() -> FakeDetector:
    """A detector that finds nothing, and records how often it was loaded."""
    return FakeDetector([])


def test_a_folder_camera_gives_the_next_photo_at_each_scan(tmp_path: Path) -> None:
    write_photos(tmp_path / "photos", [100, 110, 120])
    scanner = Scanner(f"folder:{tmp_path / 'photos'}", detector=fake())
    widths = [scanner.scan_now("table", 1).width for _ in range(4)]
    assert widths == [100, 110, 120, 100]
    scanner.release_camera()


def test_a_camera_that_fails_is_closed_and_opened_again_at_the_next_scan(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    write_photos(folder, [100])
    (folder / "01.jpg").write_bytes(b"\xff\xd8 not a photo")
    scanner = Scanner(f"folder:{folder}", detector=fake())
    assert scanner.scan_now("table", 1).width == 100
    failed = scanner.scan_now("table", 1)
    assert failed.camera_failed and failed.error is not None
    assert failed.error.startswith("The camera did not give a photo:") and "tap Retry" in failed.error
    assert scanner.scan_now("table", 1).width == 100  # reopened: the folder starts again
    scanner.release_camera()


def test_a_new_camera_choice_is_used_at_the_next_scan_and_the_old_camera_kept_until_it_opens(
    tmp_path: Path,
) -> None:
    write_photos(tmp_path / "one", [100, 110])
    write_photos(tmp_path / "two", [200])
    scanner = Scanner(f"folder:{tmp_path / 'one'}", detector=fake())
    assert scanner.scan_now("table", 1).width == 100
    scanner.camera_spec = f"folder:{tmp_path / 'missing'}"  # unplugged: reported, the old one kept
    assert scanner.scan_now("table", 1).camera_failed
    scanner.camera_spec = f"folder:{tmp_path / 'one'}"
    assert scanner.scan_now("table", 1).width == 110  # the same camera, its next photo
    scanner.camera_spec = f"folder:{tmp_path / 'two'}"
    assert scanner.scan_now("table", 1).width == 200
    scanner.release_camera()
    scanner.release_camera()  # closing twice is harmless


def test_warming_up_loads_the_detector_once_before_the_first_scan(tmp_path: Path) -> None:
    write_photos(tmp_path, [100])
    detector = fake()
    scanner = Scanner(f"folder:{tmp_path}", detector=detector)
    assert not scanner.ready
    scanner.warm_up(camera=True).join(10)
    assert scanner.ready and detector.loads == 1
    phases: list[ScanPhase] = []
    assert scanner.scan_now("table", 1, phases.append).width == 100
    assert phases == [ScanPhase.CAMERA, ScanPhase.READING, ScanPhase.DONE]  # no wait for the model
    assert len(detector.photos) == 1
    scanner.release_camera()


def test_a_warm_up_that_finds_no_camera_leaves_the_message_to_the_scan(tmp_path: Path) -> None:
    scanner = Scanner(f"folder:{tmp_path / 'nowhere'}", model_path=tmp_path / "missing.onnx")
    scanner.warm_up(camera=True).join(10)
    assert not scanner.ready
    result = scanner.scan_now("table", 1)
    assert result.camera_failed and "does not exist" in (result.error or "")


# -- reading off the UI thread, progress, and the result before the record ------------------------------


class Steps:
    """A detector that reads as the real one does, in steps: three looks of its model, then its corner
    reader. Each step waits until the test lets it go, so a test can look at the kiosk mid-reading."""

    model_path = Path("steps.onnx")
    loaded = True

    def __init__(self, error: Exception | None = None) -> None:
        self.gate = threading.Semaphore(0)
        self.reader = self  # its own corner reader: read() below
        self.threads: list[threading.Thread] = []
        self.error = error

    def load(self) -> Steps:
        return self

    progress: Callable[[str], None] | None = None  # told each step, as the real one tells it

    def run_model(self, image: np.ndarray) -> None:
        if self.progress is not None:
            self.progress("look")
        assert self.gate.acquire(timeout=10), "the test never let the look go"

    def read(self, image: np.ndarray, boxes: object) -> None:
        if self.progress is not None:
            self.progress("corners")
        assert self.gate.acquire(timeout=10), "the test never let the corner reader go"

    def detect(self, image: np.ndarray) -> list[Detection]:
        self.threads.append(threading.current_thread())
        for _ in range(3):
            self.run_model(image)
        self.read(image, None)
        if self.error is not None:
            raise self.error
        return [Detection("AS", 0.9, (10, 10, 30, 40)), Detection("2H", 0.9, (60, 10, 80, 40))]


class UiThread:
    """The kiosk's UI thread as the Scanner sees it: ``dispatch`` queues work, ``run_next`` runs it."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Callable[[], None]] = queue.Queue()

    def dispatch(self, fn: Callable[[], None]) -> None:
        self.queue.put(fn)

    def run_next(self) -> None:
        self.queue.get(timeout=10)()


def test_the_reading_runs_off_the_ui_thread_and_its_result_comes_back_through_dispatch(
    tmp_path: Path,
) -> None:
    write_photos(tmp_path, [100])
    ui, detector = UiThread(), Steps()
    scanner = Scanner(f"folder:{tmp_path}", dispatch=ui.dispatch, detector=detector)
    done: list[ScanResult] = []
    assert scanner.scan("table", done.append, 1)  # returns at once: the reading waits for the gate
    assert scanner.busy and not done
    for _ in range(4):
        detector.gate.release()
    scanner.wait(10)
    assert detector.threads and detector.threads[0] is not threading.main_thread()
    assert not done  # the result waits in the UI thread's queue
    while not done:
        ui.run_next()
    assert [c.code for c in done[0].cards] == ["AS", "2H"]
    scanner.release_camera()


def test_a_slow_reading_shows_each_step_while_the_ui_thread_stays_free(tmp_path: Path) -> None:
    write_photos(tmp_path, [100])
    ui, detector = UiThread(), Steps()
    scanner = Scanner(f"folder:{tmp_path}", dispatch=ui.dispatch, detector=detector)
    scanner.warm_up().join(10)
    shown: list[tuple[str, str]] = []

    def progress(phase: ScanPhase) -> None:  # what the kiosk's labels show, updated in place
        shown.append((scanner.status_text(), scanner.step_text()))

    assert scanner.scan("table", lambda result: None, 1, progress)
    steps = []
    for _ in range(4):
        # The UI thread runs the progress it is sent while the reading is stuck in a look of the model.
        while not shown or shown[-1][1] in steps or not shown[-1][1]:
            ui.run_next()
        assert scanner.busy and shown[-1][0] == "Reading the cards..."
        steps.append(shown[-1][1])
        detector.gate.release()
    assert steps == [
        "Looking at the whole photo",
        "Looking closer: 1 more view",
        "Looking closer: 2 more views",
        "Checking each card",
    ]
    scanner.wait(10)
    assert scanner.phase is ScanPhase.DONE and scanner.step_text() == ""
    scanner.phase = ScanPhase.IDLE
    assert scanner.status_text() == ""
    assert detector.progress is None  # told no more once the reading is done
    scanner.release_camera()


def test_the_photo_is_read_only_once_the_screen_has_drawn_the_reading_s_words(tmp_path: Path) -> None:
    write_photos(tmp_path, [100])
    ui, detector = UiThread(), Steps()
    frames: list[Callable[[], None]] = []  # what waits for the next frame drawn
    scanner = Scanner(
        f"folder:{tmp_path}",
        dispatch=ui.dispatch,
        detector=detector,
        after_frame=frames.append,
    )
    scanner.warm_up().join(10)
    shown: list[str] = []
    assert scanner.scan("table", lambda result: None, 1, lambda phase: shown.append(scanner.status_text()))
    deadline = time.monotonic() + 10
    while not frames and time.monotonic() < deadline:
        time.sleep(0.005)
    assert frames and not detector.threads  # the photo waits for the frame that shows the words
    while "Reading the cards..." not in shown:
        ui.run_next()
    frames[0]()  # that frame is drawn: the reading begins
    while not detector.threads and time.monotonic() < deadline:
        time.sleep(0.005)
    assert detector.threads
    for _ in range(4):
        detector.gate.release()
    scanner.wait(10)
    assert scanner.phase is ScanPhase.DONE
    scanner.release_camera()


def test_a_screen_that_draws_no_frame_holds_the_reading_back_only_briefly(tmp_path: Path) -> None:
    from ui.logic.scan import SCREEN_WAIT

    write_photos(tmp_path, [100])
    scanner = Scanner(f"folder:{tmp_path}", detector=fake(), after_frame=lambda fn: None)
    begun = time.monotonic()
    result = scanner.scan_now("table", 1)
    assert result.error is None and result.width == 100
    assert SCREEN_WAIT <= time.monotonic() - begun < SCREEN_WAIT + 5
    scanner.release_camera()


# A kiosk with a Jhyap game of four, its first round confirmed.
PLAYERS = ["Asha", "Bikas", "Chandra", "Dipa"]
ROUND1 = {"Asha": ["AS", "2H"], "Bikas": ["KS", "QH"], "Chandra": ["10D", "JC"], "Dipa": ["5C", "6D"]}


def night(tmp_path: Path) -> Kiosk:
    kiosk = Kiosk(Store(tmp_path / "record"))
    form = kiosk.new_form("jhyap")
    for name in PLAYERS:
        form.add(name)
    kiosk.start(form)
    kiosk.jhyap.pick_caller("Asha")
    for player, cards in ROUND1.items():
        kiosk.jhyap.type_hand(player, cards)
    kiosk.confirm()
    kiosk.next_round()
    return kiosk


def scanned(tmp_path: Path, detector: Steps, target: str = "Asha") -> ScanResult:
    """A scan of ``target``'s hand by the kiosk's scanner (folder camera, ``detector``)."""
    write_photos(tmp_path / "photos", [100])
    scanner = Scanner(f"folder:{tmp_path / 'photos'}", detector=detector)
    for _ in range(4):
        detector.gate.release()
    result = scanner.scan_now(target, 1)
    scanner.release_camera()
    return result


def test_the_result_is_shown_before_its_photo_and_reading_are_written(tmp_path: Path) -> None:
    kiosk = night(tmp_path)
    result = scanned(tmp_path, Steps())
    assert result.jpeg is None  # no JPEG made before the result is on screen
    shown = kiosk.show_scan(result)
    assert shown is not None
    assert kiosk.jhyap.codes()["Asha"] == ["AS", "2H"]  # on screen now
    assert kiosk.store.scans(shown.game_id) == []  # nothing written yet
    kiosk.keep_scan(shown)  # the kiosk's keeping thread
    (record,) = kiosk.store.scans(shown.game_id)
    assert record.photo is not None and record.photo.read_bytes()[:2] == b"\xff\xd8"
    assert [c["code"] for c in record.detected["cards"]] == ["AS", "2H"]
    kiosk.scan_kept(shown)  # back on the UI thread: the round knows its scan
    assert kiosk.jhyap.player_scans["Asha"]["scan_id"] == record.id
    draft = kiosk.store.draft(shown.game_id)
    assert draft is not None and draft.state["flow"]["player_scans"]["Asha"]["scan_id"] == record.id


def test_a_kiosk_stopped_between_showing_a_scan_and_writing_it_loses_no_confirmed_round(
    tmp_path: Path,
) -> None:
    kiosk = night(tmp_path)
    game_id = kiosk.game.id if kiosk.game else 0
    assert kiosk.show_scan(scanned(tmp_path, Steps())) is not None
    # The power goes: nothing more of this kiosk runs. The record, opened again, has every round.
    reopened = Kiosk(Store(tmp_path / "record"))
    reopened.open(game_id)
    assert reopened.game is not None and len(reopened.game.entries) == 1
    assert reopened.store.scans(game_id) == []  # only the scan on screen was lost
    assert reopened.jhyap.number == 2 and reopened.jhyap.hands.get("Asha") is None


def test_confirming_a_round_waits_for_its_scan_being_written_and_confirms_it(tmp_path: Path) -> None:
    kiosk = night(tmp_path)
    shown = kiosk.show_scan(scanned(tmp_path, Steps()))
    assert shown is not None
    writing = threading.Event()
    add_scan = kiosk.store.add_scan

    def slow_add_scan(*args: Any) -> Any:
        writing.set()
        time.sleep(0.2)  # a slow disk
        return add_scan(*args)

    kiosk.store.add_scan = slow_add_scan  # type: ignore[method-assign,assignment]
    keeping = threading.Thread(target=kiosk.keep_scan, args=(shown,))
    keeping.start()
    assert writing.wait(10)
    kiosk.jhyap.pick_caller("Asha")
    for player, cards in ROUND1.items():
        if player != "Asha":
            kiosk.jhyap.type_hand(player, cards)
    kiosk.confirm()  # while the scan is still being written
    keeping.join(10)
    (record,) = kiosk.store.scans(shown.game_id)  # written once
    assert record.confirmed is not None and record.confirmed["target"] == "Asha"
    assert kiosk.game is not None and len(kiosk.game.entries) == 2


def test_a_failing_reading_still_shows_the_clear_message_and_keeps_the_photo(tmp_path: Path) -> None:
    kiosk = night(tmp_path)
    result = scanned(tmp_path, Steps(RuntimeError("ONNX Runtime ran out of memory")))
    assert result.error == "Could not read the cards: ONNX Runtime ran out of memory. Type them instead."
    shown = kiosk.show_scan(result)
    assert shown is not None and kiosk.jhyap.message == result.error
    kiosk.keep_scan(shown)
    kiosk.scan_kept(shown)
    (record,) = kiosk.store.scans(shown.game_id)
    assert record.photo is not None and record.photo.is_file()  # nothing lost: the players type the cards
    assert kiosk.game is not None and len(kiosk.game.entries) == 1


def test_the_photo_is_fitted_for_the_screen_while_the_model_reads(tmp_path: Path) -> None:
    write_photos(tmp_path, [2560, 100])
    scanner = Scanner(f"folder:{tmp_path}", detector=fake())
    large, small = scanner.scan_now("table", 1), scanner.scan_now("table", 1)
    assert large.image.shape[:2] == (60, 2560) and large.preview.shape[:2] == (30, 1280)
    assert small.preview is small.image  # no larger than the screen shows: not copied
    scanner.release_camera()


DEMO = Path(__file__).resolve().parents[2] / "vision" / "demo"


def test_the_reading_process_reads_as_the_kiosk_does_and_a_dead_one_leaves_the_reading_to_the_kiosk(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "round6.jpg").write_bytes((DEMO / "round6.jpg").read_bytes())
    scanner = Scanner(f"folder:{folder}")
    scanner.warm_up().join(60)
    deadline = time.monotonic() + 60
    while not scanner.reader_ready and time.monotonic() < deadline:
        time.sleep(0.05)
    assert scanner.reader_ready
    from vision.reading.detector import CardDetector

    detector = scanner.loaded_detector()
    assert isinstance(detector, CardDetector)
    own: list[tuple[int, ...]] = []  # the passes of the kiosk's own detector
    run_model = detector.run_model

    def counted(letterboxed: np.ndarray) -> np.ndarray:
        own.append(letterboxed.shape)
        return run_model(letterboxed)

    detector.run_model = counted  # type: ignore[method-assign]
    phases: list[ScanPhase] = []
    in_process = scanner.scan_now("Asha", 1, phases.append)
    assert scanner.looks >= 1  # the steps came across
    assert not own  # the kiosk's own detector did not read: the reading process did
    assert scanner._reader is not None
    scanner._reader._process.kill()  # the reader dies: the kiosk reads the next photo itself
    scanner._reader._process.join(10)
    here = scanner.scan_now("Asha", 1)
    assert own  # with its own detector
    assert here.error is None and [c.code for c in here.cards] == [c.code for c in in_process.cards]
    assert in_process.cards and not scanner.reader_ready
    block = scanner._reader._block  # the photo went across in shared memory, freed with the process
    assert block is not None and block.size >= in_process.image.nbytes
    scanner.settle()
    assert not Path("/dev/shm", block.name.lstrip("/")).exists()
    scanner.release_camera()
