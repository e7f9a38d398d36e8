"""Barge-in: a spoken "stop" or the wake word while a turn runs ends the turn, not only the speech.

On the bus a voice assistant's stop (``ovos.stop`` and its legacy names) or the listener starting
to record (the wake word) interrupts the turns running in that session: a tool call not started
yet never starts (its side effect does not happen), a running one is abandoned (stopped where
its toolbox can), the model request is closed on the server, and the turn ends saying nothing
more. A stop in another session, or one said before the turn began, changes nothing.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ovos_bus_client.message import Message
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from ovos_utils.fakebus import FakeBus
from stalling_server import StallingServer

from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.events import Final, StepEvent, ToolCallStep
from ovos_agentic_loop.messages import AgentMessage, MessageRole
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call, tool_calls
from ovos_agentic_loop_toolboxes.filesystem import FileSystemToolBox


class WaitArgs(ToolArguments):
    label: str = "x"


class WaitOut(ToolOutput):
    label: str


class Waiting(ToolBox):
    """``wait_for_release``: runs until the test releases it (never, unless the test says so)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        super().__init__("waiting")

    def _wait(self, args: WaitArgs) -> WaitOut:
        self.started.set()
        self.release.wait(30)
        return WaitOut(label=args.label)

    def discover_tools(self) -> list[AgentTool]:
        return [AgentTool("wait_for_release", "Waits.", WaitArgs, WaitOut, self._wait)]


def user(text: str) -> list[AgentMessage]:
    return [AgentMessage(MessageRole.USER, text)]


def said_in(session: str, topic: str) -> Message:
    return Message(topic, {}, {"session": {"session_id": session}})


@pytest.fixture
def waiting() -> Iterator[Waiting]:
    box = Waiting()
    yield box
    box.release.set()


def engine_on(bus: FakeBus, brain: Any, toolboxes: list[ToolBox], **config: Any) -> Any:
    cls = load_chat_plugin("ovos-react-loop")
    return cls(config={"progress_speech": False, **config}, brain=brain, toolboxes=toolboxes, bus=bus)


def finals(engine: Any) -> list[Final]:
    events: list[Final] = []
    engine.add_step_listener(lambda e: events.append(e) if isinstance(e, Final) else None)
    return events


def when(started: threading.Event, then: Any) -> threading.Thread:
    def act() -> None:
        assert started.wait(30), "the turn never got there"
        then()

    thread = threading.Thread(target=act, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("topic", ["ovos.stop", "mycroft.stop", "recognizer_loop:record_begin"])
def test_a_stop_while_a_tool_runs_ends_the_turn_without_waiting_for_the_tool(
    waiting: Waiting, topic: str
) -> None:
    bus = FakeBus()
    brain = ScriptedBrain([tool_call("wait_for_release"), "never asked for"])
    engine = engine_on(bus, brain, [waiting])
    ended = finals(engine)
    session = f"s-{uuid.uuid4().hex[:8]}"
    when(waiting.started, lambda: bus.emit(said_in(session, topic)))
    sentences = list(engine.stream_sentences(user("wait"), session_id=session))
    assert not waiting.release.is_set()  # the turn ended while the tool still ran
    assert sentences == []  # nothing more was said
    assert [f.reason for f in ended] == ["stopped"]
    assert len(brain.calls) == 1  # no model call after the stop


def test_a_call_not_started_at_the_stop_never_runs(waiting: Waiting, tmp_path: Path) -> None:
    bus = FakeBus()
    files = FileSystemToolBox(config={"root_path": str(tmp_path), "allow_write": True})
    reply = tool_calls(("wait_for_release", {}), ("write_file", {"path": "note.txt", "content": "hi"}))
    brain = ScriptedBrain([reply, "never asked for"])
    engine = engine_on(bus, brain, [waiting, files], max_parallel_tools=1)  # the write waits its turn
    session = f"s-{uuid.uuid4().hex[:8]}"
    when(waiting.started, lambda: bus.emit(said_in(session, "ovos.stop")))
    answer = engine.continue_chat(user("wait, then write hi to note.txt"), session_id=session)
    waiting.release.set()
    assert answer.content == ""
    assert not (tmp_path / "note.txt").exists(), "a side effect started after the user said stop"


def test_a_stop_while_the_model_writes_closes_the_request_on_the_server() -> None:
    server = StallingServer()  # reads the request, never answers
    try:
        bus = FakeBus()
        brain = OpenAIBrain({"api_url": server.url, "timeout": 60, "max_retries": 2})
        _ = brain.client
        engine = engine_on(bus, brain, [])
        session = f"s-{uuid.uuid4().hex[:8]}"
        arrived = threading.Event()

        def stop_once_asked() -> None:
            while not server.connections:
                arrived.wait(0.01)
            bus.emit(said_in(session, "ovos.stop"))

        threading.Thread(target=stop_once_asked, daemon=True).start()
        ended = finals(engine)
        assert list(engine.stream_sentences(user("hello?"), session_id=session)) == []
        assert [f.reason for f in ended] == ["stopped"]
        server.wait_closed(timeout=30)  # by the client: this server never closes it
        assert len(server.connections) == 1  # and it was not sent again
    finally:
        server.close()


def test_a_stop_in_another_session_or_before_the_turn_changes_nothing(waiting: Waiting) -> None:
    bus = FakeBus()
    session = f"s-{uuid.uuid4().hex[:8]}"
    bus.emit(said_in(session, "ovos.stop"))  # before the turn began

    def released(call: BrainCall) -> Any:
        return tool_call("wait_for_release")

    brain = ScriptedBrain([released, "Released."])
    engine = engine_on(bus, brain, [waiting])
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)

    def elsewhere_then_release() -> None:
        bus.emit(said_in("another-session", "ovos.stop"))
        waiting.release.set()

    when(waiting.started, elsewhere_then_release)
    assert engine.continue_chat(user("wait"), session_id=session).content == "Released."
    assert [e.reason for e in events if isinstance(e, Final)] == ["answer"]
    assert [e.name for e in events if isinstance(e, ToolCallStep)] == ["wait_for_release"]


def test_the_personas_own_stop_while_the_answer_is_spoken_is_left_to_the_host() -> None:
    """A stop aimed at the persona pipeline while the answer is spoken: ovos-persona stops the speech
    and stops reading the stream, which closes the model request; the loop does not end the turn
    under it (the host answers the stop as the one that stopped)."""
    server = StallingServer(delay=0.2, sse=20)  # "Word0. Word1. ..." one sentence every 0.2 s
    try:
        bus = FakeBus()
        brain = OpenAIBrain({"api_url": server.url, "timeout": 60})
        _ = brain.client
        engine = engine_on(bus, brain, [])
        session = f"s-{uuid.uuid4().hex[:8]}"
        sentences = engine.stream_sentences(user("count slowly"), session_id=session)
        heard = [next(sentences)]
        bus.emit(said_in(session, "persona.openvoiceos:stop"))  # the first sentence is being spoken
        heard += [next(sentences), next(sentences)]  # a host that reads on gets more: not cut under it
        sentences.close()  # the host stops reading: that closes the model request
        assert heard == ["Word0.", "Word1.", "Word2."]
        server.wait_closed(timeout=30)
    finally:
        server.close()


class StoppedMidSentence(ScriptedBrain):
    """Streams one sentence and the start of the next, then the user says stop (on ``bus``), then
    the rest: what was written before the stop and not yet a sentence is never said."""

    def __init__(self, bus: FakeBus, session: str) -> None:
        super().__init__(["First one is here. Second one is not."])
        self.bus, self.session = bus, session

    def stream_message(self, *args: Any, **kwargs: Any) -> Iterator[str | AgentMessage]:
        for item in super().stream_message(*args, **kwargs):
            yield item
            if item == "First one is here. Sec":  # the first chunk (``chunk_size``)
                self.bus.emit(said_in(self.session, "ovos.stop"))


def test_a_stop_mid_sentence_says_no_half_sentence() -> None:
    bus = FakeBus()
    session = f"s-{uuid.uuid4().hex[:8]}"
    brain = StoppedMidSentence(bus, session)
    brain.chunk_size = len("First one is here. Sec")
    engine = engine_on(bus, brain, [])
    ended = finals(engine)
    sentences = list(engine.stream_sentences(user("tell me two things"), session_id=session))
    assert sentences == ["First one is here."]
    assert [f.reason for f in ended] == ["stopped"]
