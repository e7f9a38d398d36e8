"""At the turn's deadline, one outcome: "out of time", whichever thread notices the deadline first.

The brain bounds its own client by the time left in the turn, so its read times out at about the
moment the loop stops waiting for it. Which of the two threads wakes first must not decide what
the listener hears ("that took longer than my time limit" vs "the model server is not
answering"). A queue that lets one side win forces each ordering: the loop's wait ignoring its
timeout (the worker's failure is read first, as on a busy machine), or the worker's report held
back until the loop has given up.

A timeout names the limit that fired and the seconds actually waited; a server that refuses the
connection before the deadline is still "unavailable".
"""

from __future__ import annotations

import queue
import re
import socket
import threading
import time
import types
from collections.abc import Iterator
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin
from stalling_server import StallingServer

from ovos_agentic_loop._turn import brain_call
from ovos_agentic_loop._turn.brain_call import BrainCallTimeout, BrainHandle, call_brain
from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.errors import BrainDeadlineReached, BrainUnavailable
from ovos_agentic_loop.messages import AgentMessage, MessageRole

WORKER_FIRST = "worker first"
LOOP_FIRST = "loop first"


class ForcedOrder:
    """The brain call's hand-off queue, with the race at the deadline decided in advance.

    ``WORKER_FIRST``: the loop's wait ignores its timeout, so whatever the brain's thread reports
    (its own timeout, bounded by the same deadline) is read before the loop notices the deadline.
    ``LOOP_FIRST``: the loop's wait runs out at the deadline, and the brain's thread may report
    only after that.
    """

    def __init__(self, order: str) -> None:
        self.order = order
        self.items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.loop_gave_up = threading.Event()
        self.worker_reported = threading.Event()

    def put(self, item: Any) -> None:
        if self.order == LOOP_FIRST:
            assert self.loop_gave_up.wait(60), "the loop never stopped waiting"
        self.items.put(item)
        self.worker_reported.set()

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        if self.order == WORKER_FIRST:
            return self.items.get()  # as if this thread was not scheduled until the worker's report
        try:
            return self.items.get(timeout=timeout)
        except queue.Empty:
            self.loop_gave_up.set()
            raise


@pytest.fixture
def stalling() -> Iterator[StallingServer]:
    server = StallingServer()
    yield server
    server.close()


def forced(monkeypatch: pytest.MonkeyPatch, order: str) -> list[ForcedOrder]:
    """Every hand-off queue ``brain_call`` makes from now on is a :class:`ForcedOrder`."""
    made: list[ForcedOrder] = []

    def make() -> ForcedOrder:
        made.append(ForcedOrder(order))
        return made[-1]

    monkeypatch.setattr(brain_call, "queue", types.SimpleNamespace(SimpleQueue=make, Empty=queue.Empty))
    return made


def brain_for(url: str, **settings: Any) -> OpenAIBrain:
    brain = OpenAIBrain({"api_url": url, "timeout": 300, "max_retries": 2, "retry_backoff": 0.01, **settings})
    _ = brain.client  # built now: ``import openai`` is not part of any wait below
    return brain


def ask(text: str) -> list[AgentMessage]:
    return [AgentMessage(MessageRole.USER, text)]


def call_until_deadline(brain: OpenAIBrain, seconds: float, *, stream: bool = False) -> BaseException:
    handle = BrainHandle.wrap(brain, "ovos-openai-brain")
    try:
        for _ in call_brain(
            handle,
            ask("hello?"),
            deadline=time.monotonic() + seconds,
            stream=stream,
            tools=None,
            stop=None,
            session_id="deadline",
            lang=None,
            units=None,
        ):
            pass
    except BaseException as exc:  # noqa: BLE001 - what the call ended with is the subject here
        return exc
    raise AssertionError("the call to a server that never answers returned")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_the_deadline_is_the_outcome_in_both_orderings(
    stalling: StallingServer, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    outcomes, ended_after = {}, {}
    for order in (WORKER_FIRST, LOOP_FIRST):
        made = forced(monkeypatch, order)
        asked = time.monotonic()
        outcomes[order] = call_until_deadline(brain_for(stalling.url), 0.5, stream=stream)
        ended_after[order] = time.monotonic() - asked
        if order == WORKER_FIRST:
            # The brain's own bounded client gave up, and that report was the one the loop read.
            assert made[0].worker_reported.is_set() and not made[0].loop_gave_up.is_set()
            assert isinstance(outcomes[order].__cause__, BrainDeadlineReached)
        else:
            assert made[0].loop_gave_up.is_set()
    for order, outcome in outcomes.items():
        assert type(outcome) is BrainCallTimeout, f"{order}: {type(outcome).__name__}: {outcome}"
        assert outcome.limit == "time_budget"
        # decided at the deadline, never before it; ``waited`` counts from the request, which began
        # a moment after the deadline was set
        assert (
            ended_after[order] >= 0.5
            and outcome.waited is not None
            and 0 < outcome.waited <= ended_after[order]
        )
        assert "time_budget" in str(outcome) and "'ovos-openai-brain'" in str(outcome)


def test_a_turn_at_its_deadline_says_the_same_in_both_orderings(
    stalling: StallingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the public contract: the listener hears "out of time" either way, never "server down"."""
    cls = load_chat_plugin("ovos-react-loop")
    answers = {}
    for order in (WORKER_FIRST, LOOP_FIRST):
        forced(monkeypatch, order)
        engine = cls(config={"time_budget": 1.0}, brain=brain_for(stalling.url))
        answers[order] = engine.continue_chat(ask("hello?")).content
    assert answers[WORKER_FIRST] == answers[LOOP_FIRST]
    assert answers[LOOP_FIRST] == "I'm sorry, that took longer than my time limit of 1 seconds."


def test_a_failure_reported_after_the_deadline_is_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A brain of another project, not bounded by the deadline, fails once the deadline has passed:
    the loop had stopped waiting by then, so the turn ran out of time; it was not the brain."""

    class LateFailingBrain:
        def continue_chat(self, messages: list[AgentMessage], **kwargs: Any) -> AgentMessage:
            time.sleep(0.3)
            raise ConnectionError("connection reset")

    forced(monkeypatch, WORKER_FIRST)
    handle = BrainHandle.wrap(LateFailingBrain(), "late-brain")  # type: ignore[arg-type]
    with pytest.raises(BrainCallTimeout, match="'late-brain'"):
        for _ in call_brain(
            handle,
            ask("hi"),
            deadline=time.monotonic() + 0.1,
            stream=False,
            tools=None,
            stop=None,
            session_id="s",
            lang=None,
            units=None,
        ):
            pass


def test_a_server_that_refuses_before_the_deadline_is_unavailable() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    outcome = call_until_deadline(brain_for(f"http://127.0.0.1:{port}/v1", max_retries=0), 30)
    assert type(outcome) is BrainUnavailable
    assert "Cannot reach the model server" in str(outcome)


def test_the_brains_own_timeout_names_its_limit_and_the_seconds_waited(stalling: StallingServer) -> None:
    """Without a turn deadline (a host calling the brain directly) the brain's `timeout` fires."""
    brain = brain_for(stalling.url, timeout=0.5, max_retries=0)
    with pytest.raises(BrainUnavailable) as raised:
        brain.continue_chat(ask("hello?"))
    message = str(raised.value)
    assert "did not answer within 0.5 s (config `timeout`" in message
    assert re.search(r"waited \d+\.\d+ s", message), message
    assert not isinstance(raised.value, BrainDeadlineReached)


def test_the_brain_called_with_a_deadline_says_the_deadline_came(stalling: StallingServer) -> None:
    brain = brain_for(stalling.url)
    asked = time.monotonic()
    with pytest.raises(BrainDeadlineReached) as raised:
        brain.continue_chat(ask("hello?"), deadline=asked + 0.5)
    ended_after = time.monotonic() - asked
    assert "deadline" in str(raised.value) and "300 s" not in str(raised.value)
    assert ended_after >= 0.5 and 0 < raised.value.waited <= ended_after  # counted from its request
