"""A raw HTTP server on 127.0.0.1 that reads a request and never answers (or answers slowly).

It records when the client closed each connection and how many requests arrived, so a test can
assert that a request the loop gave up on was closed and not sent again.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Connection", "StallingServer"]


@dataclass
class Connection:
    body: dict[str, Any]
    arrived: float
    closed: float | None = None


@dataclass
class StallingServer:
    """Reads one request per connection, then answers after ``delay`` (never, by default).

    ``sse`` > 0: streams that many ``data:`` chunks of one word each, ``delay`` apart.
    """

    delay: float = 3600.0
    sse: int = 0
    connections: list[Connection] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        while len(rest) < length:
            rest += conn.recv(65536)
        record = Connection(json.loads(rest), time.monotonic())
        self.connections.append(record)
        conn.settimeout(0.02)
        if self.sse:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
        sent = 0
        next_at = time.monotonic() + self.delay
        while True:  # watch for the client closing, as llama-server does
            try:
                if conn.recv(1) == b"":
                    record.closed = time.monotonic()
                    return
            except TimeoutError:
                pass
            except OSError:
                record.closed = time.monotonic()
                return
            if self.sse and time.monotonic() >= next_at and sent < self.sse:
                delta = {
                    "choices": [{"index": 0, "delta": {"content": f"Word{sent}. "}, "finish_reason": None}]
                }
                try:
                    conn.sendall(f"data: {json.dumps(delta)}\n\n".encode())
                except OSError:
                    record.closed = time.monotonic()
                    return
                sent += 1
                next_at = time.monotonic() + self.delay

    def close(self) -> None:
        self.sock.close()

    def wait_closed(self, index: int = 0, timeout: float = 5.0) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.connections) > index and self.connections[index].closed is not None:
                return self.connections[index].closed  # type: ignore[return-value]
            time.sleep(0.01)
        raise AssertionError(f"connection {index} was not closed by the client within {timeout} s")
