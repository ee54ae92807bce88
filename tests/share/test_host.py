"""The phones' page answers only to the kiosk's own names, over real sockets: its addresses, its hostname
and <hostname>.local, localhost, and the name set for the QR code. Any other Host gets 400 and nothing of
the scoreboard (a page elsewhere that points its own name at the kiosk, DNS rebinding, reads nothing)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.share.conftest import ROUND1, play
from tests.share.helpers import parse
from ui.logic.kiosk import Kiosk
from ui.share import EVERY_ADDRESS
from ui.share.net import lan_addresses
from ui.share.server import SECURITY_HEADERS, KioskNames, ShareServer, host_name
from ui.store import Store

HOSTNAME = socket.gethostname()


def ask(port: int, host: str | None, path: str = "/api/snapshot", to: str = "127.0.0.1") -> tuple[int, bytes]:
    """One GET with this Host header (None: none, as HTTP/1.0 allows) on a fresh connection to ``to``."""
    version = "HTTP/1.1" if host is not None else "HTTP/1.0"
    lines = [f"GET {path} {version}", "Connection: close"]
    if host is not None:
        lines.append(f"Host: {host}")
    with socket.create_connection((to, port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status, headers, body = parse(data)
    if status == 400:
        assert all(headers.get(k) == v for k, v in SECURITY_HEADERS.items())
    return status, body


@pytest.fixture
def played(server: ShareServer, kiosk: Kiosk) -> Iterator[ShareServer]:
    play(kiosk, "Asha", ROUND1)
    yield server


def test_the_kiosks_own_names_and_addresses_are_served(played: ShareServer) -> None:
    port = played.port
    for host in (
        "127.0.0.1",
        f"127.0.0.1:{port}",
        "localhost",
        f"LOCALHOST:{port}",
        HOSTNAME,
        f"{HOSTNAME}:{port}",
        f"{HOSTNAME.split('.')[0].upper()}.local:{port}",
        f"{HOSTNAME}.",  # a name may end in the root's dot
        "[::1]",
        f"[::1]:{port}",
    ):
        status, body = ask(port, host)
        assert status == 200 and b"Asha" in body, host


@pytest.mark.parametrize(
    "host",
    [
        "evil.example.com",
        "evil.example.com:{port}",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "{hostname}.evil.example",
        "8.8.8.8",
        "192.168.254.254",  # an address on a home network, but not this kiosk's
        "",
        "localhost:http",
        "[::1",
        "local host",
        None,  # no Host at all (HTTP/1.0)
    ],
)
def test_any_other_host_gets_400_and_nothing_of_the_scoreboard(played: ShareServer, host: str | None) -> None:
    if host is not None:
        host = host.format(port=played.port, hostname=HOSTNAME)
        if host == "192.168.254.254" and host in lan_addresses():
            pytest.skip("this machine has that address")
    for path in ("/", "/api/snapshot", "/api/events", "/app.js", "/nowhere"):
        status, body = ask(played.port, host, path)
        assert status == 400, (host, path)
        assert b"Asha" not in body and b"own name or address" in body
    assert played.stats()["clients"] == 0  # no stream was opened for it


def test_the_name_set_for_the_qr_code_is_served(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETALLY_SHARE_ADDRESS", "TableTally.local")
    server = ShareServer(store, port=0, host="127.0.0.1")
    server.start()
    try:
        assert ask(server.port, f"tabletally.local:{server.port}")[0] == 200
        assert ask(server.port, "other.local")[0] == 400
    finally:
        server.stop()


def test_the_address_a_phone_reached_is_served(store: Store) -> None:
    """On every address (as the kiosk listens), a phone on the home network that opens the kiosk's address
    is served, and the same request naming another address is not."""
    found = lan_addresses()
    if not found:
        pytest.skip("this machine is on no private network")
    server = ShareServer(store, port=0, host=EVERY_ADDRESS)
    server.start()
    try:
        address = found[0]
        assert ask(server.port, f"{address}:{server.port}", to=address)[0] == 200
        others = [a for a in ("10.254.254.254", "172.31.254.254", "192.168.254.254") if a not in found]
        assert ask(server.port, others[0], to=address)[0] == 400
    finally:
        server.stop()


def test_the_address_a_request_came_in_on_is_the_kiosks() -> None:
    """The check itself, for a kiosk reached on its home-network address (IPv4, or IPv4 on the dual-stack
    socket, as ::ffff:a.b.c.d)."""
    names = KioskNames(lambda scope, receive, send: None, frozenset({"localhost"}))  # type: ignore[arg-type,return-value]
    for server in (("192.168.1.20", 8088), ("::ffff:192.168.1.20", 8088)):
        scope = {"type": "http", "server": server}
        assert names.allowed("192.168.1.20:8088", scope) and names.allowed("[::ffff:192.168.1.20]", scope)
        assert not names.allowed("192.168.1.21:8088", scope) and not names.allowed("evil.example", scope)
    assert names.allowed("127.0.0.1", {"type": "http", "server": ("192.168.1.20", 8088)})


def test_host_names_are_read_as_a_browser_writes_them() -> None:
    assert host_name("Kiosk.Local.:8088") == "kiosk.local"
    assert host_name("[FE80::1]:8088") == "fe80::1"
    assert host_name("10.0.0.5") == "10.0.0.5"
    for bad in ("", ":8088", "a b", "x:y", "[::1]x", "[::1]:", "évil.example"):
        assert host_name(bad) is None, bad
