"""The kiosk's scoreboard for phones: a small read-only web server inside the kiosk process.

Starlette serves the page, a JSON snapshot of tonight (with an ETag, so a phone can poll cheaply) and a
server-sent-event stream that pushes a new snapshot after every confirmed action; uvicorn (its h11
protocol) runs it in a background thread with its own event loop, so the kiosk's UI thread never waits
for a phone. :class:`ShareServer` is what the kiosk holds: ``start`` (twice does nothing), ``stop`` (the
port closes at once), ``notify`` (something changed; thread-safe and cheap).

Bounds: at most ``max_clients`` live streams (the next gets 503 and polls instead), a stream whose phone
stops reading is dropped after ``SEND_TIMEOUT_S``, request heads over ``MAX_HEAD_BYTES`` get 431, a
request head not complete within ``HEAD_TIMEOUT_S`` (slow-loris) is cut off, idle keep-alive connections
close after 5 s, only peers on loopback or the private ranges of a home network are served, and only
requests whose Host is the kiosk's own name or address (:class:`KioskNames`; any other gets 400).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import ipaddress
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h11
import uvicorn
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from ui.i18n import _, language
from ui.share import DEFAULT_PORT, EVERY_ADDRESS, ShareError, labels
from ui.share.net import is_local_address, lan_addresses, page_url
from ui.share.sharing import ENV_ADDRESS
from ui.share.snapshot import snapshot
from ui.store import Store

MAX_CLIENTS = 32
SEND_TIMEOUT_S = 5.0
HEAD_TIMEOUT_S = 10.0
MAX_HEAD_BYTES = 8 * 1024
KEEP_ALIVE_S = 5
PING_S = 15.0
RETRY_MS = 2000
DEBOUNCE_S = 0.1  # a confirmed round is drawn on the kiosk first; the phones get it a moment later
STATIC = Path(__file__).parent / "static"
FONTS = Path(__file__).resolve().parents[1] / "fonts"
FONT_FILES = {"regular": "TableTallySans-Regular.ttf", "bold": "TableTallySans-Bold.ttf"}
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-resource-policy": "same-origin",
}
log = logging.getLogger("tabletally.share")


# -- the state every connection reads ---------------------------------------------------------------


class Hub:
    """The current snapshot and its version, on the server's event loop (not thread-safe by design: the
    kiosk reaches it only through ``loop.call_soon_threadsafe``)."""

    def __init__(self, build: Callable[[], dict[str, Any]], max_clients: int) -> None:
        self.build = build
        self.max_clients = max_clients
        self.boot = secrets.token_hex(4)  # a restarted kiosk's version 1 is not the old version 1
        self.version = 0
        self.payload = b"{}"
        self.digest = ""
        self.clients = 0
        self.delivered = 0
        self.dropped = 0
        self.closing = False
        self.changed = asyncio.Event()
        self._pending: asyncio.TimerHandle | None = None

    @property
    def etag(self) -> str:
        return f'"{self.boot}-{self.version}"'

    def refresh(self) -> None:
        """Rebuild the snapshot; a new version (and a push) only when what the phones see changed."""
        self._pending = None
        try:
            data = self.build()
        except Exception:  # noqa: BLE001 - a bad read must not stop the server; the next change retries
            log.exception("building the phones' snapshot failed")
            return
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
        digest = hashlib.sha256(body).hexdigest()
        if digest == self.digest:
            return
        self.digest = digest
        self.version += 1
        data["version"] = self.etag.strip('"')
        self.payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        self._wake()

    def schedule_refresh(self, delay: float) -> None:
        if self._pending is None and not self.closing:
            self._pending = asyncio.get_running_loop().call_later(delay, self.refresh)

    def close(self) -> None:
        self.closing = True
        self._wake()

    def _wake(self) -> None:
        event, self.changed = self.changed, asyncio.Event()
        event.set()


# -- the app ----------------------------------------------------------------------------------------


def _page(request: Request) -> Response:
    words = labels.translated()
    data = json.dumps(words, ensure_ascii=False)
    # JSON inside <script>: nothing in it may close the element or start markup.
    data = data.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    html = html.replace("{{LANG}}", language()).replace("{{LABELS}}", data)
    html = html.replace("{{TITLE}}", _escape(words["title"])).replace(
        "{{NEEDS_JS}}", _escape(words["needs_js"])
    )
    return HTMLResponse(html, headers={"cache-control": "no-cache"})


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _file(path: Path, media_type: str, max_age: int) -> Callable[[Request], Response]:
    def endpoint(request: Request) -> Response:
        return FileResponse(path, media_type=media_type, headers={"cache-control": f"max-age={max_age}"})

    return endpoint


class Snapshot:
    """GET /api/snapshot: tonight as JSON; 304 when the phone already has this version."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hub = self.hub
        headers = {"etag": hub.etag, "cache-control": "no-cache"}
        if Request(scope).headers.get("if-none-match") == hub.etag:
            response: Response = Response(status_code=304, headers=headers)
        else:
            response = Response(hub.payload, media_type="application/json", headers=headers)
        await response(scope, receive, send)


class Events:
    """GET /api/events: server-sent events, one ``snapshot`` event now and one after each change."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hub = self.hub
        if hub.clients >= hub.max_clients or hub.closing:
            busy = PlainTextResponse(
                _("Too many phones are following the scores; this one checks every few seconds instead.")
                + "\n",
                status_code=503,
                headers={"retry-after": "10", "cache-control": "no-store"},
            )
            await busy(scope, receive, send)
            return
        hub.clients += 1
        try:
            response = EventSourceResponse(
                self._stream(),
                ping=PING_S,
                send_timeout=SEND_TIMEOUT_S,
                headers={"cache-control": "no-store", "x-accel-buffering": "no"},
            )
            await response(scope, receive, send)
        except Exception as exc:  # noqa: BLE001 - a phone that stopped reading: drop it, keep serving
            hub.dropped += 1
            log.info("dropped a phone's stream: %s", type(exc).__name__)
        finally:
            hub.clients -= 1

    async def _stream(self) -> AsyncIterator[ServerSentEvent]:
        hub = self.hub
        sent = -1
        first = True
        while not hub.closing:
            if sent == hub.version:
                await hub.changed.wait()
                continue
            sent = hub.version
            event = ServerSentEvent(
                data=hub.payload.decode(),
                event="snapshot",
                id=hub.etag.strip('"'),
                retry=RETRY_MS if first else None,
            )
            first = False
            hub.delivered += 1
            yield event


class Headers:
    """Adds the security headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.extra = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *self.extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-._")


def host_name(host: str) -> str | None:
    """The name in a Host header (``name``, ``name:port``, ``[v6]:port``), lower-case, without the port or
    a final dot; None when it is not one."""
    host = host.strip().lower()
    if host.startswith("["):
        name, close, rest = host[1:].partition("]")
        if not close or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return name if name and all(c in "0123456789abcdef:.%" or c.isalnum() for c in name) else None
    name, colon, port = host.partition(":")
    if colon and not port.isdigit():
        return None
    name = name.rstrip(".")
    return name if name and all(c in _NAME_CHARACTERS for c in name) else None


def own_names(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The names the kiosk answers to: ``localhost``, this machine's hostname and ``<hostname>.local``,
    and the name set in ``TABLETALLY_SHARE_ADDRESS`` (the one the QR code shows first)."""
    environ = os.environ if environ is None else environ
    hostname = socket.gethostname().lower().rstrip(".")
    names = {"localhost", hostname, f"{hostname.split('.')[0]}.local"}
    chosen = host_name(environ.get(ENV_ADDRESS, ""))
    if chosen:
        names.add(chosen)
    return frozenset(names)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class KioskNames:
    """Serves a request only when its Host is the kiosk's own: one of :func:`own_names`, or one of its
    addresses (loopback, or the address the request came in on). Any other Host gets 400: a web page
    elsewhere that points its own name at the kiosk (DNS rebinding) cannot read the scoreboard."""

    def __init__(self, app: ASGIApp, names: frozenset[str]) -> None:
        self.app = app
        self.names = names

    def allowed(self, host: str, scope: Scope) -> bool:
        name = host_name(host)
        if name is None:
            return False
        if name in self.names:
            return True
        address = _address(name)
        if address is None:
            return False
        server = scope.get("server")
        return address.is_loopback or (server is not None and address == _address(str(server[0])))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            hosts = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"]
            if len(hosts) != 1 or not self.allowed(hosts[0], scope):
                refused = PlainTextResponse(
                    _("This scoreboard answers only to the kiosk's own name or address.") + "\n",
                    status_code=400,
                    headers={"cache-control": "no-store"},
                )
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(hub: Hub, names: frozenset[str] | None = None) -> ASGIApp:
    """The read-only routes: every one is GET (and HEAD); anything else is 405, unknown paths 404; a Host
    that is not the kiosk's own (``names``, default :func:`own_names`, or its address) 400."""
    get = ["GET"]
    routes = [
        Route("/", _page, methods=get),
        Route("/app.js", _file(STATIC / "app.js", "text/javascript; charset=utf-8", 300), methods=get),
        Route("/style.css", _file(STATIC / "style.css", "text/css; charset=utf-8", 300), methods=get),
        *(
            Route(f"/fonts/{key}.ttf", _file(FONTS / name, "font/ttf", 86400), methods=get)
            for key, name in FONT_FILES.items()
        ),
        Route("/api/snapshot", Snapshot(hub), methods=get),
        Route("/api/events", Events(hub), methods=get),
    ]
    return Headers(KioskNames(Starlette(routes=routes), own_names() if names is None else names))


# -- the protocol: uvicorn's h11, with a deadline for the request head and local peers only -------------


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, plus: a request head must arrive within ``HEAD_TIMEOUT_S`` (uvicorn itself
    waits forever for a first request: the slow-loris attack), and peers outside the home network are
    disconnected before anything is read."""

    head_timeout = HEAD_TIMEOUT_S
    max_head = MAX_HEAD_BYTES

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head = b""
        if self.client is not None and not is_local_address(self.client[0]):
            transport.close()
            return
        self._arm_head_timer()

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        # h11 limits only a head still incomplete in its buffer; one that arrives whole in a single read
        # would pass at any size. Count the bytes of every head here, before h11 sees them.
        if self.conn.their_state is h11.IDLE:
            self._head = (self._head + data)[: self.max_head + 4]
            if b"\r\n\r\n" in self._head:
                self._head = b""
            elif len(self._head) > self.max_head:
                self._refuse_head()
                return
        super().data_received(data)

    def _refuse_head(self) -> None:
        body = b"Request header fields too large\n"
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        self._cancel_head_timer()
        self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:
            self._cancel_head_timer()  # the head arrived (or the connection is done)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm_head_timer()  # the next request on this connection gets the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)


# -- the kiosk's handle ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShareInfo:
    port: int
    urls: tuple[str, ...]  # what phones open, the default route's network first; empty: on no network


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or ShareError saying plainly why not (port in use, no permission).

    ``EVERY_ADDRESS`` listens on IPv6 and IPv4 alike (IPv4 peers arrive as ``::ffff:a.b.c.d``, which
    :func:`is_local_address` reads as IPv4), and on IPv4 alone where the system has no IPv6.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError:
        if host != EVERY_ADDRESS:
            raise
        return bind("0.0.0.0", port)  # no IPv6 in this system
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if host == EVERY_ADDRESS:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if host == EVERY_ADDRESS and exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
            return bind("0.0.0.0", port)  # IPv6 switched off
        if exc.errno == errno.EADDRINUSE:
            raise ShareError(
                _(
                    "Port {port} is already used by another program. Stop that program, or choose another "
                    "port: tabletally kiosk --share-port {other}, or TABLETALLY_SHARE_PORT={other} in "
                    "/etc/tabletally/local.env on the Pi."
                ).format(port=port, other=port + 1 if port < 65535 else 8089)
            ) from exc
        if exc.errno == errno.EACCES:
            raise ShareError(
                _("Port {port} needs more rights than the kiosk has: choose a port above 1023.").format(
                    port=port
                )
            ) from exc
        raise ShareError(_("Cannot open port {port}: {error}").format(port=port, error=exc.strerror)) from exc
    sock.setblocking(False)
    return sock


class ShareServer:
    """The web server in its own thread; the kiosk calls ``start`` and ``stop`` (both idempotent)."""

    def __init__(
        self,
        store: Store,
        open_game: Callable[[], int | None] = lambda: None,
        port: int = DEFAULT_PORT,
        host: str = EVERY_ADDRESS,
        max_clients: int = MAX_CLIENTS,
        debounce: float = DEBOUNCE_S,
    ) -> None:
        self.store = store
        self.open_game = open_game
        self.port = port
        self.host = host
        self.max_clients = max_clients
        self.debounce = debounce
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self.hub: Hub | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def info(self) -> ShareInfo:
        return ShareInfo(self.port, tuple(page_url(a, self.port) for a in lan_addresses()))

    def start(self) -> ShareInfo:
        with self._lock:
            if self.running:
                return self.info()
            sock = bind(self.host, self.port)
            self.port = sock.getsockname()[1]  # port 0: the one the system chose
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def build() -> dict[str, Any]:
                return snapshot(self.store, self.open_game())

            def run() -> None:
                asyncio.set_event_loop(loop)
                hub = Hub(build, self.max_clients)
                hub.refresh()
                self.hub = hub
                config = uvicorn.Config(
                    create_app(hub),
                    http=GuardedH11Protocol,
                    lifespan="off",
                    log_config=None,
                    log_level="warning",
                    access_log=False,
                    server_header=False,
                    h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                    timeout_keep_alive=KEEP_ALIVE_S,
                    timeout_graceful_shutdown=2,
                    limit_concurrency=self.max_clients * 2 + 8,
                )
                server = uvicorn.Server(config)
                self._server = server
                loop.call_soon(ready.set)
                try:
                    loop.run_until_complete(server.serve(sockets=[sock]))
                except BaseException:  # noqa: BLE001 - the kiosk goes on without sharing
                    log.exception("the phones' web server stopped")
                finally:
                    sock.close()
                    with contextlib.suppress(Exception):
                        # sse-starlette's shutdown watcher and any stream left: cancelled, not abandoned.
                        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
                        for task in pending:
                            task.cancel()
                        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                        loop.run_until_complete(loop.shutdown_asyncgens())
                    loop.close()

            self._loop = loop
            self._thread = threading.Thread(target=run, name="tabletally-share", daemon=True)
            self._thread.start()
            if not ready.wait(10):
                raise ShareError(_("The phones' web server did not start."))
            return self.info()

    def stop(self, timeout: float = 5.0) -> None:
        """Close the port now and end every phone's stream (they reconnect when sharing is back on)."""
        with self._lock:
            thread, loop, server, hub = self._thread, self._loop, self._server, self.hub
            if thread is None or loop is None or server is None:
                return

            def close_now() -> None:
                if hub is not None:
                    hub.close()
                for listener in getattr(server, "servers", []):
                    listener.close()  # the port closes here, before the streams wind down
                server.should_exit = True

            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(close_now)
            thread.join(timeout)
            self._thread = self._loop = self._server = None
            self.hub = None

    def notify(self) -> None:
        """Something the phones show may have changed (call from any thread; returns at once)."""
        loop, hub = self._loop, self.hub
        if loop is None or hub is None:
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(hub.schedule_refresh, self.debounce)

    def stats(self) -> dict[str, int]:
        hub = self.hub
        if hub is None:
            return {"clients": 0, "delivered": 0, "dropped": 0, "version": 0}
        return {
            "clients": hub.clients,
            "delivered": hub.delivered,
            "dropped": hub.dropped,
            "version": hub.version,
        }


def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.02) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds pass (for tests and the load test)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
