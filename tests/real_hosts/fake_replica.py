"""A fake OpenAI-compatible model server, run as its own process: one "replica" behind a router.

    python fake_replica.py --port P --name a [--first-token-delay 0.05] [--chunk-delay 0.01]

Stdlib only, so it starts in a fraction of a second and can be killed by its PID like a real
llama-server. Its "model" is a script that makes every turn use a tool once:

- a request whose last message is the user's: a call to the tool ``note_turn`` with the user's
  text as ``text``;
- a request whose last message is a tool result: the answer ``Noted <result>. Served by <name>.``,
  in a few streamed pieces when the request streams.

Like llama-server it watches the connection while it "reads the prompt" (``first_token_delay``)
and while it writes, and gives the request up as soon as the client has gone: ``disconnects``
counts those, and ``in_flight`` drops at once, so a test can see a caller's disconnect free the slot.
It also keeps the last prompts it served (``--slots``, least recently used first out) and
reports, as llama-server's ``timings`` do, how much of each new prompt it found already read
(``cache_n``, in characters of the request's messages and tools as JSON): what a router's
session affinity is for.

``GET /stats`` answers what it saw: requests and completions, requests per ``user`` (the
session key), the ``x-litellm-session-id`` headers, in-flight requests, disconnects, cache sums.
``POST /admin`` with ``{"first_token_delay": s, "chunk_delay": s, "fail": n, "fail_status": 503,
"retry_after": "1", "extra_sentences": n}`` changes its behaviour (``fail``: answer the next n
requests with that status and a "no slot available" error; ``extra_sentences``: a longer answer).
"""

from __future__ import annotations

import argparse
import json
import select
import socket
import threading
import time
from collections import Counter, OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOL = "note_turn"


class Replica:
    def __init__(
        self, name: str, first_token_delay: float, chunk_delay: float, slots: int, parallel: int
    ) -> None:
        self.name = name
        #: How many requests it computes at once (llama-server's slots); the others wait their turn.
        self.computing = threading.BoundedSemaphore(parallel)
        self.first_token_delay = first_token_delay
        self.chunk_delay = chunk_delay
        self.slots = slots
        self.lock = threading.Lock()
        self.requests = 0
        self.completed = 0
        self.in_flight = 0
        self.disconnects = 0
        self.by_user: Counter[str] = Counter()
        self.by_header: Counter[str] = Counter()
        self.fail = 0
        self.extra_sentences = 0
        self.fail_status = 503
        self.retry_after = "1"
        self.cache: OrderedDict[str, None] = OrderedDict()
        self.prompt_chars = 0
        self.cached_chars = 0

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "name": self.name,
                "requests": self.requests,
                "completed": self.completed,
                "in_flight": self.in_flight,
                "disconnects": self.disconnects,
                "by_user": dict(self.by_user),
                "by_header": dict(self.by_header),
                "prompt_chars": self.prompt_chars,
                "cached_chars": self.cached_chars,
            }

    def read_prompt(self, prompt: str) -> int:
        """Characters of ``prompt`` found in a slot (the longest common prefix); the slot is kept."""
        with self.lock:
            best = max((_common_prefix(prompt, seen) for seen in self.cache), default=0)
            self.cache[prompt] = None
            self.cache.move_to_end(prompt)
            while len(self.cache) > self.slots:
                self.cache.popitem(last=False)
            self.prompt_chars += len(prompt)
            self.cached_chars += best
            return best


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # binary search on prefix equality: linear compare per probe, done in C
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def reply_for(body: dict[str, Any], name: str, extra_sentences: int = 0) -> tuple[str, list[dict[str, Any]]]:
    """The scripted model: (text, tool calls) for this request."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        more = "".join(f" This is sentence {n} of a long answer." for n in range(1, extra_sentences + 1))
        return f"Noted {last.get('content', '')}. Served by {name}.{more}", []
    text = str(last.get("content") or "")
    call = {
        "id": f"call_{abs(hash((text, len(messages)))) % 10**10}",
        "type": "function",
        "function": {"name": TOOL, "arguments": json.dumps({"text": text})},
    }
    return "", [call]


def make_handler(replica: Replica) -> type[BaseHTTPRequestHandler]:  # noqa: C901 - sums its class's methods
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/stats"):
                self._json(200, replica.stats())
            elif self.path.startswith("/health"):
                self._json(200, {"status": "ok"})
            else:
                self._json(200, {"object": "list", "data": [{"id": "local", "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path.startswith("/admin"):
                with replica.lock:
                    for key in (
                        "first_token_delay",
                        "chunk_delay",
                        "fail",
                        "fail_status",
                        "retry_after",
                        "extra_sentences",
                    ):
                        if key in body:
                            setattr(replica, key, body[key])
                self._json(200, replica.stats())
                return
            with replica.lock:
                replica.requests += 1
                replica.by_user[str(body.get("user"))] += 1
                replica.by_header[str(self.headers.get("x-litellm-session-id"))] += 1
                failing = replica.fail > 0
                if failing:
                    replica.fail -= 1
                replica.in_flight += 1
            try:
                if failing:
                    error = {"error": {"message": "no slot available", "type": "unavailable_error"}}
                    self._json(replica.fail_status, error, {"Retry-After": str(replica.retry_after)})
                    return
                with replica.computing:
                    self._answer(body)
            except (BrokenPipeError, ConnectionResetError, _ClientGone):
                with replica.lock:
                    replica.disconnects += 1
                self.close_connection = True
            finally:
                with replica.lock:
                    replica.in_flight -= 1

        def _answer(self, body: dict[str, Any]) -> None:
            prompt = json.dumps([body.get("messages"), body.get("tools")], sort_keys=True)
            cached = replica.read_prompt(prompt)
            if body.get("stream"):  # llama-server sends the headers at once, then reads the prompt
                self._start_stream()
            self._wait(replica.first_token_delay)
            text, calls = reply_for(body, replica.name, replica.extra_sentences)
            timings = {"cache_n": cached // 4, "prompt_n": (len(prompt) - cached) // 4}
            usage = {
                "prompt_tokens": len(prompt) // 4,
                "completion_tokens": 8,
                "total_tokens": len(prompt) // 4 + 8,
                "prompt_tokens_details": {"cached_tokens": cached // 4},  # as llama-server reports it
            }
            finish = "tool_calls" if calls else "stop"
            if not body.get("stream"):
                message: dict[str, Any] = {"role": "assistant", "content": text}
                if calls:
                    message["tool_calls"] = calls
                choice = {"index": 0, "message": message, "finish_reason": finish}
                self._json(200, _completion(choices=[choice], usage=usage, timings=timings))
            else:
                self._stream(text, calls, finish, usage, timings)
            with replica.lock:
                replica.completed += 1

        def _stream(
            self,
            text: str,
            calls: list[dict[str, Any]],
            finish: str,
            usage: dict[str, Any],
            timings: dict[str, Any],
        ) -> None:
            pieces: list[dict[str, Any]] = [{"content": word} for word in _pieces(text)]
            if calls:
                pieces.append({"tool_calls": [{"index": i, **call} for i, call in enumerate(calls)]})
            for delta in pieces:
                self._event({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
                self._wait(replica.chunk_delay)
            self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "timings": timings})
            self._event({"choices": [], "usage": usage})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def _start_stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            self.close_connection = True

        def _event(self, chunk: dict[str, Any]) -> None:
            data = json.dumps(_completion(object="chat.completion.chunk", **chunk))
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        def _wait(self, seconds: float) -> None:
            """Sleep, watching the connection: a client that closed it ends the request (llama-server)."""
            end = time.monotonic() + seconds
            while (left := end - time.monotonic()) > 0:
                readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
                if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                    raise _ClientGone()

        def _json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

    return Handler


class _ClientGone(Exception):
    pass


def _pieces(text: str) -> list[str]:
    words = text.split(" ")
    return [w if i == 0 else " " + w for i, w in enumerate(words) if w or i == 0] if text else []


def _completion(**fields: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "local", **fields}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--first-token-delay", type=float, default=0.05)
    parser.add_argument("--chunk-delay", type=float, default=0.01)
    parser.add_argument("--slots", type=int, default=4, help="prompts kept for the prefix cache")
    parser.add_argument("--parallel", type=int, default=64, help="requests computed at once; others wait")
    args = parser.parse_args()
    replica = Replica(args.name, args.first_token_delay, args.chunk_delay, args.slots, args.parallel)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(replica))
    server.daemon_threads = True
    server.request_queue_size = 128
    print(f"fake replica {args.name} on 127.0.0.1:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
