"""A scripted OpenAI-compatible server on 127.0.0.1 that answers instantly.

Every benchmark run uses its own ``model`` name; the server looks the name up in
its table of :class:`Script` objects, so several runs (and several frameworks) can
share one server at the same time. A script is "N turns of tool calls, then a final
text"; the turn index is counted per model name and restarts whenever a request
carries no assistant message (a new conversation), so one script serves any
number of repeated runs.

How the reply is shaped follows what the client asked for:

- the request has ``tools``  -> native ``tool_calls`` (the tool name is taken from the
  script, or else the first tool offered that is not ``final_answer``);
- no ``tools``                -> the ReAct text form
  (``Thought:`` / ``Action:`` / ``Action Input:``, then ``FINAL_ANSWER:``);
- a client that offers a ``final_answer`` tool (smolagents) gets its final answer as
  a call to that tool, since that is how it ends a run;
- ``"stream": true``          -> server-sent events, with ``token_delay`` seconds
  between the words of a final answer (tool-call turns are sent at once).

Latency matters more than anything here: the socket has TCP_NODELAY, and every
reply (headers and body) leaves in a single write, so no Nagle / delayed-ACK stall
(~40 ms) hides in the numbers. HTTP/1.1 keep-alive with Content-Length throughout;
streamed replies are built up front so their length is known, then written piece
by piece.

:class:`CountingProxy` is the same server in front of a real llama-server for the
task-success figure: it forwards every request and counts calls per model name.

Stdlib only.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["CountingProxy", "Script", "ScriptedServer"]

FINAL_ANSWER_TOKEN = "FINAL_ANSWER:"


@dataclass
class Script:
    """What one benchmark run's model says.

    ``steps``: turns that request tools before the final answer. ``calls_per_turn``:
    tool calls in each of those turns (3 for the parallel-calls figure).
    ``tool``/``arguments``: the call to request (``tool=None`` picks the first tool
    offered). ``final``: the final answer text. ``token_delay``: seconds between
    words of a streamed final answer (and the same total before a non-streamed one).
    ``record``: keep every request body (for the prompt-size figure).
    ``text_tool_format``: template of a text-protocol tool turn.
    """

    steps: int = 1
    calls_per_turn: int = 1
    tool: str | None = None
    # String values may use {turn} and {i}: distinct calls, so no loop mistakes them for repetitions.
    arguments: dict[str, Any] = field(default_factory=lambda: {"text": "item {turn}.{i}"})
    final: str = "All done."
    token_delay: float = 0.0
    record: bool = False
    text_tool_format: str = "Thought: I need the tool.\nAction: {tool}\nAction Input: {args}"
    text_final_format: str = "Thought: I have the answer.\n" + FINAL_ANSWER_TOKEN + " {final}"
    # Run state (guarded by the server lock).
    turn: int = 0
    requests: int = 0
    bodies: list[dict[str, Any]] = field(default_factory=list)


def _new_conversation(messages: list[dict[str, Any]]) -> bool:
    return not any(m.get("role") == "assistant" for m in messages)


def _tool_names(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        fn = tool.get("function") or {}
        if fn.get("name"):
            names.append(fn["name"])
    return names


def _arguments(script: Script, turn: int, i: int) -> str:
    return json.dumps(
        {k: v.format(turn=turn, i=i) if isinstance(v, str) else v for k, v in script.arguments.items()}
    )


def _words(text: str) -> list[str]:
    """Split into word pieces that concatenate back to ``text`` (one SSE delta each)."""
    pieces, start = [], 0
    for i, ch in enumerate(text):
        if ch == " " and i > start:
            pieces.append(text[start:i])
            start = i
    pieces.append(text[start:])
    return [p for p in pieces if p]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing -------------------------------------------------------------
    def _head(self, status: int, ctype: str, length: int) -> bytes:
        reason = {200: "OK", 404: "Not Found", 400: "Bad Request", 502: "Bad Gateway"}.get(status, "OK")
        return (
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {length}\r\n"
            "Connection: keep-alive\r\n\r\n"
        ).encode()

    def _send_json(self, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.wfile.write(self._head(status, "application/json", len(body)) + body)

    def _read_body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        return json.loads(raw or b"{}")

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        elif self.path.rstrip("/").endswith("/health"):
            self._send_json(200, {"status": "ok"})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._read_body()
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        self.server.app.chat(self, self._read_body())


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    app: Any

    def handle_error(self, request: Any, client_address: Any) -> None:
        # An adapter process that exits closes its keep-alive connection: not an error of the run.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class _BaseApp:
    """Runs a ThreadingHTTPServer on 127.0.0.1 in a daemon thread."""

    def __init__(self, port: int = 0) -> None:
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.app = self
        self._thread: threading.Thread | None = None
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> _BaseApp:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> _BaseApp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def chat(self, handler: _Handler, body: dict[str, Any]) -> None:
        raise NotImplementedError


class ScriptedServer(_BaseApp):
    """The scripted OpenAI-compatible server. ``add(model, Script(...))`` before a run."""

    def __init__(self, port: int = 0) -> None:
        super().__init__(port)
        self.scripts: dict[str, Script] = {}
        #: Copied for any model name without a script of its own (None: such requests get a 404).
        self.default: Script | None = None

    def add(self, model: str, script: Script) -> Script:
        with self.lock:
            self.scripts[model] = script
        return script

    # -- the reply ---------------------------------------------------------------
    def _decide(self, body: dict[str, Any]) -> tuple[Script | None, int]:
        model = str(body.get("model", ""))
        messages = body.get("messages") or []
        with self.lock:
            script = self.scripts.get(model)
            if script is None and self.default is not None:
                script = self.scripts[model] = dataclasses.replace(self.default, bodies=[])
            if script is None:
                return None, 0
            if _new_conversation(messages):
                script.turn = 0
            turn = script.turn
            script.turn += 1
            script.requests += 1
            if script.record:
                script.bodies.append(body)
        return script, turn

    def chat(self, handler: _Handler, body: dict[str, Any]) -> None:
        script, turn = self._decide(body)
        if script is None:
            handler._send_json(404, {"error": {"message": f"no script for model {body.get('model')!r}"}})
            return
        offered = _tool_names(body)
        native = bool(offered)
        content: str | None
        tool_calls: list[dict[str, Any]] = []
        if turn < script.steps:
            tool = script.tool or next((n for n in offered if n != "final_answer"), "missing_tool")
            if native:
                content = None
                tool_calls = [
                    {
                        "id": f"call_{turn}_{i}",
                        "type": "function",
                        "function": {"name": tool, "arguments": _arguments(script, turn, i)},
                    }
                    for i in range(script.calls_per_turn)
                ]
            else:
                content = script.text_tool_format.format(tool=tool, args=_arguments(script, turn, 0))
        elif native and "final_answer" in offered:
            content = None
            tool_calls = [
                {
                    "id": f"call_{turn}_final",
                    "type": "function",
                    "function": {"name": "final_answer", "arguments": json.dumps({"answer": script.final})},
                }
            ]
        elif native:
            content = script.final
        else:
            content = script.text_final_format.format(final=script.final)
        model = body.get("model", "")
        if body.get("stream"):
            self._stream(handler, model, content, tool_calls, script.token_delay)
            return
        if content and script.token_delay:
            time.sleep(script.token_delay * len(_words(content)))
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        prompt_chars = len(json.dumps(body.get("messages"))) + len(json.dumps(body.get("tools") or []))
        handler._send_json(
            200,
            {
                "id": f"chatcmpl-{turn}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
                ],
                "usage": {
                    "prompt_tokens": prompt_chars // 4,
                    "completion_tokens": len(content or "") // 4 + 1,
                    "total_tokens": prompt_chars // 4 + len(content or "") // 4 + 1,
                },
            },
        )

    def _stream(
        self,
        handler: _Handler,
        model: str,
        content: str | None,
        tool_calls: list[dict[str, Any]],
        delay: float,
    ) -> None:
        created = int(time.time())

        def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
            chunk = {
                "id": "chatcmpl-stream",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return b"data: " + json.dumps(chunk).encode() + b"\n\n"

        pieces: list[bytes] = [event({"role": "assistant", "content": ""})]
        paced_from = len(pieces)
        if tool_calls:
            pieces.append(
                event(
                    {
                        "tool_calls": [
                            {"index": i, "id": tc["id"], "type": "function", "function": tc["function"]}
                            for i, tc in enumerate(tool_calls)
                        ]
                    }
                )
            )
        else:
            pieces.extend(event({"content": word}) for word in _words(content or ""))
        pieces.append(event({}, "tool_calls" if tool_calls else "stop"))
        pieces.append(b"data: [DONE]\n\n")
        total = sum(len(p) for p in pieces)
        out = handler.wfile
        out.write(handler._head(200, "text/event-stream", total) + b"".join(pieces[:paced_from]))
        for piece in pieces[paced_from:]:
            if delay and not tool_calls and piece is not pieces[-1]:
                time.sleep(delay)
            out.write(piece)


class CountingProxy(_BaseApp):
    """Forwards chat requests to a real server, counting calls and timing them per model name.

    The target (llama-server) serves one model whatever the name says, so each run
    can use its own ``model`` name as a counter key.
    """

    def __init__(self, target_base_url: str, port: int = 0, timeout: float = 600.0) -> None:
        super().__init__(port)
        parsed = urllib.parse.urlsplit(target_base_url)
        self._host, self._port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self._prefix = parsed.path.rstrip("/")
        self._timeout = timeout
        self.calls: dict[str, int] = {}
        self.prompt_tokens: dict[str, int] = {}
        self.bodies: dict[str, list[dict[str, Any]]] = {}
        self._open: dict[str, set[http.client.HTTPConnection]] = {}  # model -> requests in flight
        self._cancelled: set[str] = set()
        #: Pass a streamed reply on as it arrives (figure 10 times the first sentence); by default it
        #: is relayed whole, once complete (the task figures measure answers, not latency).
        self.relay_streams = False

    @staticmethod
    def _relay(handler: _Handler, resp: http.client.HTTPResponse) -> bytes:
        """Send ``resp``'s body on to the client chunk by chunk as it arrives; returns all of it."""
        ctype = resp.getheader("Content-Type") or "text/event-stream"
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nTransfer-Encoding: chunked\r\n\r\n"
        handler.wfile.write(head.encode())
        received = []
        while chunk := resp.read1(65536):
            received.append(chunk)
            handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
        return b"".join(received)

    def cancel(self, model: str) -> int:
        """Drop ``model``'s requests in flight and refuse its later ones; returns how many were dropped.

        For a run the bench killed (a task past its timeout): closing the connection makes
        llama-server stop that request at its next batch, instead of computing a reply nobody
        reads while the next task's request waits behind it.
        """
        with self.lock:
            self._cancelled.add(model)
            conns = list(self._open.get(model, ()))
        for conn in conns:
            try:
                if conn.sock is not None:
                    conn.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked reading the reply
            except OSError:
                pass
        return len(conns)

    def chat(self, handler: _Handler, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        with self.lock:
            self.calls[model] = self.calls.get(model, 0) + 1
            self.bodies.setdefault(model, []).append(body)
        conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        try:
            conn.connect()
            with self.lock:  # registered under the lock: a cancel() either sees it or came before
                if model in self._cancelled:
                    raise ConnectionAbortedError("cancelled by the bench")
                self._open.setdefault(model, set()).add(conn)
            conn.request(
                "POST",
                self._prefix + "/chat/completions",
                json.dumps(body),
                {"Content-Type": "application/json"},
            )
            resp = conn.getresponse()
            if self.relay_streams and body.get("stream") and resp.status == 200:
                data = self._relay(handler, resp)
                self._record(model, body, resp.status, data)
                return
            data = resp.read()
        except (OSError, http.client.HTTPException) as exc:
            error = json.dumps({"error": {"message": f"proxy: {exc}"}}).encode()
            _write_quietly(handler, handler._head(502, "application/json", len(error)) + error)
            return
        finally:
            with self.lock:
                self._open.get(model, set()).discard(conn)
            conn.close()
        if resp.status == 200 and not body.get("stream"):
            try:
                usage = json.loads(data).get("usage") or {}
                with self.lock:
                    self.prompt_tokens[model] = self.prompt_tokens.get(model, 0) + int(
                        usage.get("prompt_tokens", 0)
                    )
            except (ValueError, TypeError):
                pass
        self._record(model, body, resp.status, data)
        ctype = resp.getheader("Content-Type") or "application/json"
        # A streamed reply is relayed whole: the task figure measures success, not latency.
        _write_quietly(handler, handler._head(resp.status, ctype, len(data)) + data)

    def _record(self, model: str, body: dict[str, Any], status: int, data: bytes) -> None:
        """With BENCH_TRANSCRIPTS=DIR, each exchange is appended to DIR/<model>.jsonl: the request
        and the reply as sent, so a failed task can be read call by call after the run."""
        folder = os.environ.get("BENCH_TRANSCRIPTS")
        if not folder:
            return
        Path(folder).mkdir(parents=True, exist_ok=True)  # a folder named for this run: made on first use
        line = json.dumps({"request": body, "status": status, "reply": data.decode("utf-8", "replace")})
        with self.lock, open(Path(folder) / f"{model}.jsonl", "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def _write_quietly(handler: _Handler, reply: bytes) -> None:
    """A client the bench killed is gone: its reply has nowhere to go, and that is no error."""
    try:
        handler.wfile.write(reply)
    except OSError:
        handler.close_connection = True


if __name__ == "__main__":  # a manual check: python bench/scripted_server.py
    import sys

    srv = ScriptedServer(int(sys.argv[1]) if len(sys.argv) > 1 else 8765).start()
    srv.add("demo", Script(steps=2))
    print("serving", srv.base_url, "model 'demo' (2 tool turns then a final answer); Ctrl-C to stop")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
