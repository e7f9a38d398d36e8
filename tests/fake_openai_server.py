"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted replies, recorded requests.

Each scripted reply is one of:
- a dict: sent as a 200 JSON chat completion body;
- ``(status, dict)`` or ``(status, dict, headers)``: that status, JSON body and extra headers
  (e.g. ``{"Retry-After": "2"}``);
- ``Stream(chunks, delay, done=True)``: server-sent events, one ``data:`` line per chunk (a dict
  as JSON, a str verbatim), with a pause between chunks so a test can see the client yield
  before the end; ``done=False`` closes the connection without ``data: [DONE]`` (a cut stream);
- ``Raw(status, body, content_type, headers, delay)``: any HTTP answer, byte for byte (an HTML
  error page, malformed JSON), after ``delay`` seconds;
- a callable ``(request_body) -> reply``, e.g. :func:`answer` (streamed or not, as asked).

``requests`` holds every request body, ``headers`` its HTTP headers (names in lower case),
``received_at`` the ``time.monotonic()`` of each.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Stream:
    chunks: list[dict[str, Any] | str]
    delay: float = 0.0
    sent_at: list[float] = field(default_factory=list)
    done: bool = True  # False: the connection closes after the chunks, without ``data: [DONE]``


@dataclass
class Raw:
    status: int = 200
    body: str | bytes = ""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(
    content: str = "", tool_calls: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    """A chat completion body as llama-server sends it."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "local",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        **extra,
    }


def chunk(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "local",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def answer(content: str = "", tool_calls: list[dict[str, Any]] | None = None) -> Any:
    """A reply in whichever form the request asks for: a ``Stream`` or a completion body."""

    def reply(body: dict[str, Any]) -> Any:
        if not body.get("stream"):
            return completion(content, tool_calls)
        deltas = [{"index": i, **call} for i, call in enumerate(tool_calls or [])]
        chunks = [chunk(part) for part in content.split(" ") if part] if content else []
        chunks = [chunk(" " + c["choices"][0]["delta"]["content"]) if i else c for i, c in enumerate(chunks)]
        if deltas:
            chunks.append(chunk(tool_calls=deltas))
        chunks.append(chunk(finish="tool_calls" if tool_calls else "stop"))
        return Stream(chunks)

    return reply


class FakeOpenAIServer:
    def __init__(self) -> None:
        self.replies: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.received_at: list[float] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def setup(self) -> None:
                super().setup()
                # Small SSE writes must leave at once, not wait for Nagle's algorithm.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._json(200, {"status": "ok"} if self.path == "/health" else {"data": [{"id": "local"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                fake.received_at.append(time.monotonic())
                fake.requests.append(body)
                fake.headers.append({name.lower(): value for name, value in self.headers.items()})
                reply = fake.replies.pop(0) if fake.replies else (500, {"error": {"message": "script empty"}})
                if callable(reply):
                    reply = reply(body)
                if isinstance(reply, Stream):
                    self._stream(reply)
                elif isinstance(reply, Raw):
                    time.sleep(reply.delay)
                    self._send(reply.status, reply.body, reply.content_type, reply.headers)
                elif isinstance(reply, tuple):
                    self._json(*reply)
                else:
                    self._json(200, reply)

            def _json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._send(status, json.dumps(body), "application/json", headers or {})

            def _send(
                self, status: int, body: str | bytes, content_type: str, headers: dict[str, str]
            ) -> None:
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
                    self.wfile.write(data)

            def _stream(self, stream: Stream) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for item in stream.chunks:
                        line = item if isinstance(item, str) else json.dumps(item)
                        self.wfile.write(f"data: {line}\n\n".encode())
                        self.wfile.flush()
                        stream.sent_at.append(time.monotonic())
                        time.sleep(stream.delay)
                    if stream.done:
                        self.wfile.write(b"data: [DONE]\n\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing left to send

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server
