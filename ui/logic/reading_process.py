"""The card reader in a process of its own (:class:`ReadingProcess`): it loads the kiosk's detector once
and reads each photo the kiosk sends (in shared memory), telling each step of the reading as it goes. The
reading's Python work and the kiosk's screen then do not take turns (one interpreter lock each)."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.base.types import CardReading


def _serve(conn: Any, model_path: Path | None) -> None:
    """The reading process: load the kiosk's detector, then read each photo sent, telling each step."""
    try:
        from vision.pipeline import read_cards
        from vision.reading.detector import detector_for_runtime, reporting_steps

        detector = detector_for_runtime(model_path=model_path).load()
    except Exception as exc:  # noqa: BLE001 - the kiosk reads in its own process instead
        conn.send(("failed", str(exc)))
        return
    gc.collect()  # the loaded detector's objects are left out of later full collections (as in the kiosk)
    gc.freeze()
    conn.send(("ready", None))
    photos = _SharedPhotos()
    try:
        while True:
            try:
                request = conn.recv()
            except (EOFError, OSError):  # the kiosk is gone (even killed): so is its reader
                return
            if request is None:
                return
            photo, n_hands, decks = request
            try:
                image = photos.view(photo)
                with reporting_steps(detector, lambda name: conn.send(("step", name))):
                    reading = read_cards(image, detector, n_hands=n_hands, decks=decks)
            except Exception as exc:  # noqa: BLE001 - said to the kiosk, which shows it
                conn.send(("error", exc))
                continue
            finally:
                image = None  # the shared block is the kiosk's again once it has the answer
            conn.send(("done", reading))
    finally:
        photos.close()


class _SharedPhotos:
    """The reading process's side of the photos shared with the kiosk: a request names a block of shared
    memory, its shape and type (or, where the kiosk could not share one, carries the photo itself); the
    block is opened once and kept until the kiosk names another."""

    def __init__(self) -> None:
        self._block: Any = None

    def view(self, photo: Any) -> Any:
        """The photo as an array: a view of the shared block, or the photo sent."""
        if not isinstance(photo, tuple):
            return photo
        from multiprocessing import shared_memory

        import numpy as np

        name, shape, dtype = photo
        if self._block is None or self._block.name != name:
            self.close()
            self._block = shared_memory.SharedMemory(name=name)
        return np.ndarray(shape, np.dtype(dtype), buffer=self._block.buf)

    def close(self) -> None:
        block, self._block = self._block, None
        if block is not None:
            with contextlib.suppress(BufferError):  # a view still held: the mapping goes with the process
                block.close()


class ReadingProcess:
    """The card reader in a process of its own, holding its own detector: the reading's Python work and
    the kiosk's screen do not take turns (one interpreter lock each). Measured in the kiosk against the
    worker thread, alternating scans (docs/vision.md). Started in the background; ``read`` is used only once
    it is ready, and a process that fails or dies leaves the reading to the kiosk's own detector."""

    def __init__(self, model_path: Path | None) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # a fresh interpreter: no Kivy, no threads copied
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, model_path), name="tabletally-reader", daemon=True
        )
        self._process.start()
        child.close()
        self.state = "starting"  # then "ready", or "failed" (the kiosk reads in its own process)
        self._lock = threading.Lock()  # one reading at a time
        self._state_lock = threading.Lock()
        self._block: Any = None  # the shared memory the photos go across in (_shared)

    @property
    def ready(self) -> bool:
        """Whether the process has its detector loaded and is alive (any thread; never waits)."""
        with self._state_lock:
            if self.state == "starting" and self._conn.poll():
                try:
                    kind, _detail = self._conn.recv()
                except (EOFError, OSError):
                    kind = "failed"
                self.state = "ready" if kind == "ready" else "failed"
        return self.state == "ready" and self._process.is_alive()

    def read(
        self, image: Any, n_hands: int | None, decks: int | None, step: Callable[[str], None]
    ) -> CardReading:
        """Read ``image`` in the process, ``step`` told each step; its error raised here. The photo goes
        across in shared memory (one copy, no pickling through the pipe), or through the pipe where none
        can be made. A process that dies raises RuntimeError and is not used again."""
        with self._lock:
            try:
                self._conn.send((self._shared(image), n_hands, decks))
                while True:
                    kind, detail = self._conn.recv()
                    if kind == "step":
                        step(detail)
                    elif kind == "done":
                        return detail  # type: ignore[no-any-return]
                    else:
                        raise detail
            except (EOFError, OSError, BrokenPipeError) as exc:
                self.state = "failed"
                raise RuntimeError("the card reader stopped") from exc

    def _shared(self, image: Any) -> Any:
        """``image`` copied into the block of shared memory the process reads (made, or made anew when a
        larger photo comes), as the block's name, shape and type; the photo itself where no block can be
        made (no shared memory on this system)."""
        import numpy as np

        try:
            if self._block is None or self._block.size < image.nbytes:
                from multiprocessing import shared_memory

                self._free_block()
                self._block = shared_memory.SharedMemory(create=True, size=max(1, image.nbytes))
            np.ndarray(image.shape, image.dtype, buffer=self._block.buf)[...] = image
        except Exception:  # noqa: BLE001 - no shared memory here, or not an array: the pipe carries it
            return image
        return (self._block.name, image.shape, image.dtype.str)

    def _free_block(self) -> None:
        block, self._block = self._block, None
        if block is not None:
            with contextlib.suppress(Exception):
                block.close()
            with contextlib.suppress(Exception):
                block.unlink()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._conn.send(None)
        self._process.join(2)
        if self._process.is_alive():
            self._process.terminate()
        self.state = "failed"
        if self._lock.acquire(timeout=5):  # a reading still waiting on the dead process ends first
            try:
                self._free_block()
            finally:
                self._lock.release()
