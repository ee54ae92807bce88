"""Plain-socket HTTP for the phones' server: what a phone's browser sends, byte for byte."""

from __future__ import annotations

import json
import socket
import time
from typing import Any


def request(
    port: int, method: str = "GET", path: str = "/", headers: dict[str, str] | None = None, body: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection: (status, headers with lower-case names, body)."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return parse(data)


def parse(data: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = dechunk(body)
    return status, headers, body


def dechunk(body: bytes) -> bytes:
    out = b""
    while body:
        size_text, _, rest = body.partition(b"\r\n")
        size = int(size_text.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2 :]
    return out


class Stream:
    """A phone following /api/events: ``next_snapshot()`` waits for the next ``snapshot`` event."""

    def __init__(self, port: int, timeout: float = 10.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        self.buffer = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.head = head.decode("latin-1")

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the stream")
            self.buffer += chunk
        part, _, self.buffer = self.buffer.partition(marker)
        return part

    def next_snapshot(self) -> tuple[dict[str, Any], float]:
        """The next snapshot event's data, and time.monotonic() when it arrived."""
        text = ""
        while True:
            # Chunked framing: take whole chunks until an event (blank line) is complete.
            while "\r\n\r\n" not in text:
                size = int(self._until(b"\r\n").split(b";")[0], 16)
                if size == 0:
                    raise ConnectionError("the stream ended")
                while len(self.buffer) < size + 2:
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        raise ConnectionError("the server closed the stream")
                    self.buffer += chunk
                text += self.buffer[:size].decode()
                self.buffer = self.buffer[size + 2 :]
            event, _, text = text.partition("\r\n\r\n")
            fields: dict[str, str] = {}
            data = []
            for line in event.split("\r\n"):
                name, _, value = line.partition(": ")
                if name == "data":
                    data.append(value)
                elif name:
                    fields[name] = value
            if fields.get("event") == "snapshot":
                return json.loads("\n".join(data)), time.monotonic()

    def close(self) -> None:
        self.sock.close()
