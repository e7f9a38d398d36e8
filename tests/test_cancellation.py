"""Requests the loop gives up on are cancelled: the server sees the connection close at once.

A llama-server cancels a task when its client closes the connection (tests/real proves that
on the real server); here a raw socket server that never answers, or answers slowly, records
when each connection was closed by the client, and how many requests arrived (a cancelled
request must not be retried).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin
from stalling_server import StallingServer

from ovos_agentic_loop._runtime.cancellation import CancelScope, active, current, run_in
from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.messages import AgentMessage, MessageRole


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
    answer = engine.continue_chat(ask("hello?"))
    assert "time limit of 1 seconds" in answer.content
    assert stalling.connections, "the request never reached the server"
    stalling.wait_closed(timeout=30)  # by the client: this server never answers nor closes
    time.sleep(0.3)
    assert len(stalling.connections) == 1, "a cancelled request was sent again"


def test_a_listener_that_stops_reading_closes_the_stream(stalling: StallingServer) -> None:
    stalling.delay, stalling.sse = 0.2, 50  # "Word0. Word1. ..." one sentence every 0.2 s
    engine = loop_engine(stalling.url)
    sentences = engine.stream_sentences(ask("count slowly"))
    first = next(sentences)
    assert first.startswith("Word0")
    sentences.close()  # the user interrupted the speech
    stalling.wait_closed(timeout=30)  # the stream of 50 sentences was closed by the client


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
    answer = engine.continue_chat(ask("hello?"))
    assert "time limit" in answer.content
    assert notices[0] == {"message": "reading the tool list, first time only...", "progress": True}
    # the warm-up the turn stopped waiting for was cancelled, not left running on the server...
    stalling.wait_closed(0, timeout=30)
    assert engine.warmed_up.wait(10)
    # ...and it spent the turn's one budget: no time was left for a request of the turn's own.
    assert len(stalling.connections) == 1
