"""Requests the loop gives up on are cancelled: the server sees the connection close at once.

A llama-server cancels a task when its client closes the connection (tests/real proves that
on the real server); here a raw socket server that never answers, or answers slowly, records
when each connection was closed by the client, and how many requests arrived (a cancelled
request must not be retried).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin

from ovos_agentic_loop._runtime.cancellation import CancelScope, active, current, run_in
from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.messages import AgentMessage, MessageRole


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


@pytest.fixture
def stalling() -> Iterator[StallingServer]:
    server = StallingServer()
    yield server
    server.close()


def loop_engine(url: str, **config: Any) -> Any:
    """The loop on ``ovos-openai-brain``, its client built (``import openai`` takes a second under load)."""
    cls = load_chat_plugin("ovos-react-loop")
    brain = OpenAIBrain({"api_url": url, "timeout": 60, "max_retries": 2, "retry_backoff": 0.01})
    _ = brain.client
    return cls(config=config, brain=brain)


def ask(text: str) -> list[AgentMessage]:
    return [AgentMessage(MessageRole.USER, text)]


# -- the scope --------------------------------------------------------------------
def test_cancel_runs_each_hook_once_and_late_hooks_at_once() -> None:
    scope, calls = CancelScope(), []
    scope.on_cancel("a", lambda: calls.append("a"))
    scope.on_cancel("a", lambda: calls.append("a2"))  # same key: replaces
    scope.cancel()
    scope.cancel()
    assert calls == ["a2"]
    scope.on_cancel("b", lambda: calls.append("b"))
    assert calls == ["a2", "b"] and scope.cancelled


def test_a_failing_hook_does_not_stop_the_others() -> None:
    scope, calls = CancelScope(), []
    scope.on_cancel("bad", lambda: 1 / 0)
    scope.on_cancel("good", lambda: calls.append("good"))
    scope.cancel()
    assert calls == ["good"]


def test_the_scope_is_current_only_inside_its_block_and_thread() -> None:
    scope, seen = CancelScope(), []
    assert current() is None
    with active(scope):
        assert current() is scope
        other = threading.Thread(target=lambda: seen.append(current()))
        other.start()
        other.join()
    assert current() is None and seen == [None]
    run_in(scope, lambda: seen.append(current()))()
    assert seen[-1] is scope


# -- abandoned requests close their connection ---------------------------------------
def test_a_turn_over_its_budget_closes_the_request_and_does_not_retry(stalling: StallingServer) -> None:
    engine = loop_engine(stalling.url, time_budget=1.0)
    started = time.monotonic()
    answer = engine.continue_chat(ask("hello?"))
    ended = time.monotonic()
    assert "time limit of 1 seconds" in answer.content
    assert ended - started < 2.0
    assert stalling.connections, "the request never reached the server"
    closed = stalling.wait_closed()
    assert closed - ended < 0.5, "the server kept the abandoned request for longer than half a second"
    time.sleep(0.3)
    assert len(stalling.connections) == 1, "a cancelled request was sent again"


def test_a_listener_that_stops_reading_closes_the_stream(stalling: StallingServer) -> None:
    stalling.delay, stalling.sse = 0.2, 50  # "Word0. Word1. ..." one sentence every 0.2 s
    engine = loop_engine(stalling.url)
    sentences = engine.stream_sentences(ask("count slowly"))
    first = next(sentences)
    assert first.startswith("Word0")
    stopped = time.monotonic()
    sentences.close()  # the user interrupted the speech
    assert stalling.wait_closed() - stopped < 0.5


def test_a_finished_request_is_not_cancelled() -> None:
    from fake_openai_server import FakeOpenAIServer, answer

    with FakeOpenAIServer() as fake:
        fake.replies = [answer("Fine."), answer("Again.")]
        brain = OpenAIBrain({"api_url": fake.url})
        engine = load_chat_plugin("ovos-react-loop")(config={}, brain=brain)
        assert engine.continue_chat(ask("one")).content == "Fine."
        # the kept-alive connection of the first call still works for the second
        assert engine.continue_chat(ask("two")).content == "Again."


# -- the warm-up ------------------------------------------------------------------------
def test_warm_up_reads_the_prompt_without_writing_an_answer() -> None:
    from fake_openai_server import FakeOpenAIServer, answer

    with FakeOpenAIServer() as fake:
        fake.replies = [answer("O"), answer("Hi.")]
        engine = loop_engine(
            fake.url, warm_up=True, system_prompt="You are Ada.", toolboxes=["ovos-clock-tools"]
        )
        assert engine.warmed_up.wait(10)
        warm = fake.requests[0]
        assert warm["max_tokens"] == 1 and not warm.get("stream")
        assert warm["messages"][0]["content"].startswith("You are Ada.")
        assert [t["function"]["name"] for t in warm["tools"]]
        assert engine.continue_chat(ask("hi")).content == "Hi."
        first = fake.requests[1]
        assert first["messages"][0] == warm["messages"][0] and first["tools"] == warm["tools"]


def test_a_turn_waiting_for_the_warm_up_says_so_and_spends_one_budget(stalling: StallingServer) -> None:
    engine = loop_engine(stalling.url, warm_up=True, time_budget=1.0)
    notices: list[dict[str, Any]] = []
    engine.add_step_listener(lambda e: notices.append(e.data) if e.kind == "notice" else None)
    started = time.monotonic()
    answer = engine.continue_chat(ask("hello?"))
    took = time.monotonic() - started
    assert "time limit" in answer.content
    assert took < 1.8, f"waiting for the warm-up and the turn took {took:.1f} s: the budget was charged twice"
    assert notices[0] == {"message": "reading the tool list, first time only...", "progress": True}
    # the warm-up the turn stopped waiting for was cancelled, not left running on the server
    assert stalling.wait_closed(0) - started < 1.8
    assert engine.warmed_up.wait(2)
