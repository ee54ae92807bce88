"""Headless Chromium (Debian's ``chromium`` package) driven over the Chrome DevTools Protocol: opens the phone
page the way a phone does, reads what it shows and takes screenshots. Used by tests/share and ``make demo``;
the kiosk itself never starts a browser.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


class BrowserError(RuntimeError):
    pass


def find_chromium() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Chromium:
    """One headless browser with one page. ``with Chromium() as b: b.open(url); b.text()``."""

    def __init__(self, width: int = 360, height: int = 740, timeout: float = 30.0) -> None:
        self.width, self.height = width, height
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._proc: subprocess.Popen[bytes] | None = None
        self._profile: str | None = None
        self._ws: Any = None
        self._stack = contextlib.ExitStack()
        self.console: list[str] = []

    def __enter__(self) -> Chromium:
        exe = find_chromium()
        if exe is None:
            raise BrowserError("no chromium on PATH (Debian package chromium)")
        self._profile = tempfile.mkdtemp(prefix="tabletally-chromium-")
        self._proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port = self._devtools_port()
            page = self._page_target(port)
            from websockets.sync.client import connect

            self._ws = self._stack.enter_context(
                connect(page, max_size=64 * 1024 * 1024, open_timeout=self.timeout)
            )
            self.call("Page.enable")
            self.call("Runtime.enable")
            self.viewport(self.width, self.height)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._ws is not None:
            with contextlib.suppress(Exception):
                self._stack.close()
            self._ws = None
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)
            self._proc = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    def _devtools_port(self) -> int:
        assert self._profile is not None and self._proc is not None
        marker = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise BrowserError(f"chromium exited at start (status {self._proc.returncode})")
            with contextlib.suppress(OSError, ValueError, IndexError):
                return int(marker.read_text().splitlines()[0])
            time.sleep(0.05)
        raise BrowserError("chromium did not open its DevTools port")

    def _page_target(self, port: int) -> str:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
                    targets = json.loads(response.read())
                for target in targets:
                    if target.get("type") == "page":
                        return str(target["webSocketDebuggerUrl"])
            time.sleep(0.05)
        raise BrowserError("chromium shows no page target")

    # -- the protocol -----------------------------------------------------------------------------------
    def call(self, method: str, **params: Any) -> dict[str, Any]:
        call_id = next(self._ids)
        self._ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"{method}: no answer in {self.timeout:.0f} s")
            message = json.loads(self._ws.recv(timeout=left))
            if message.get("method") == "Runtime.consoleAPICalled":
                args = message["params"].get("args", [])
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
            elif message.get("method") == "Runtime.exceptionThrown":
                details = message["params"]["exceptionDetails"]
                self.console.append(
                    "exception: " + str(details.get("exception", {}).get("description", details))
                )
            if message.get("id") == call_id:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))

    def viewport(self, width: int, height: int, dark: bool = False) -> None:
        self.width, self.height = width, height
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=True,
            screenOrientation={
                "type": "portraitPrimary" if height >= width else "landscapePrimary",
                "angle": 0 if height >= width else 90,
            },
        )
        self.call(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}],
        )

    def open(self, url: str) -> None:
        """Go to ``url`` and wait until its own document has loaded (not the one being left: a navigation
        answers before the new document replaces the old, which may itself be complete)."""
        self.evaluate("window.__leaving = true")
        self.call("Page.navigate", url=url)
        self.wait_for("!window.__leaving && document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float | None = None) -> Any:
        """Evaluate ``expression`` until it is truthy; its value, or BrowserError after ``timeout``.

        While the page navigates (a reload it starts itself, a new URL) the document being built may not
        have its elements yet, or the evaluation's context may be torn down under it: an error then is
        "not yet", and the last one is reported if the time runs out."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        error: BrowserError | None = None
        while True:
            try:
                value = self.evaluate(expression)
                error = None
            except BrowserError as exc:
                value, error = None, exc
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(
                    f"still false after {limit} s: {expression}" + (f" ({error})" if error else "")
                )
            time.sleep(0.05)

    def text(self) -> str:
        return str(self.evaluate("document.body.innerText"))

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path
