"""The engine on a voice assistant's messagebus: its own client where the host gave none
(ovos-persona under ovos-core builds it with ``config`` only), a spoken "stop" that cancels the
pending question, the microphone reopened once the question has been played, and a yes that reaches
another persona. A stand-in bus here; the real one is in tests/real_hosts/test_ovos_core.py."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import engine_with
from ovos_bus_client.message import Message
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole
from ovos_utils.fakebus import FakeBus

from ovos_agentic_loop._confirmation import voice_bus
from ovos_agentic_loop._confirmation.pending import mark_of
from ovos_agentic_loop.events import BUS_CONFIRM_TOPIC, BUS_STEP_TOPIC
from ovos_agentic_loop.testing import ScriptedBrain, tool_call
from ovos_agentic_loop_toolboxes.filesystem import FileSystemToolBox

pytestmark = pytest.mark.needs_package("ovos_yes_no")

NOTE = {"path": "note.txt", "content": "hi"}
ASK = "write hi to note.txt"
ADDRESS = voice_bus.BusAddress("127.0.0.1", 8181, "/core", False)


def user(text: str) -> AgentMessage:
    return AgentMessage(MessageRole.USER, text)


def said(text: str) -> AgentMessage:
    return AgentMessage(MessageRole.ASSISTANT, text)


class Recording(FakeBus):
    """A bus that records what the engine emits; ``up`` says whether it ever connects."""

    def __init__(self, up: bool = True) -> None:
        super().__init__()
        self.connected_event = threading.Event()
        if up:
            self.connected_event.set()
        self.sent: list[Message] = []

    def emit(self, message: Message) -> None:
        self.sent.append(message)
        super().emit(message)

    def topics(self) -> list[str]:
        return [m.msg_type for m in self.sent]


@pytest.fixture
def own_clients(monkeypatch: pytest.MonkeyPatch) -> list[Recording]:
    """The clients the engines connect themselves (none until a turn or ``voice_bus: true`` asks)."""
    made: list[Recording] = []

    def connect(address: voice_bus.BusAddress) -> Recording:
        assert address == ADDRESS
        made.append(Recording())
        return made[-1]

    monkeypatch.setattr(voice_bus, "_CLIENTS", {})
    monkeypatch.setattr(voice_bus, "_connect", connect)
    monkeypatch.setattr(voice_bus.BusAddress, "configured", classmethod(lambda cls: ADDRESS))
    monkeypatch.setattr(voice_bus, "CONNECT_WAIT_S", 0.2)
    return made


def files(root: Path) -> FileSystemToolBox:
    return FileSystemToolBox(config={"root_path": str(root), "allow_write": True})


def asking(root: Path, brain: ScriptedBrain, **config: Any) -> Any:
    config.setdefault("confirm_tools", ["write_file"])
    return engine_with(brain, [files(root)], **config)


def on_bus(root: Path, brain: ScriptedBrain, bus: FakeBus) -> Any:
    """An engine given a bus (as a skill or PHAL builds one): the same listeners as its own bus."""
    cls = load_chat_plugin("ovos-react-loop")
    return cls(config={"confirm_tools": ["write_file"]}, brain=brain, toolboxes=[files(root)], bus=bus)


def session() -> str:
    return f"s-{uuid.uuid4().hex[:10]}"


def handle_persona_query(message: Message, engine: Any, history: list[AgentMessage]) -> str:
    """What ovos-persona does with an utterance: the engine's stream, consumed in the bus handler."""
    sess = message.context["session"]["session_id"]
    return " ".join(engine.stream_sentences(history, session_id=sess, lang=message.data.get("lang")))


def utterance(sess: str, text: str, lang: str = "en-US") -> Message:
    return Message("persona:query", {"utterance": text, "lang": lang}, {"session": {"session_id": sess}})


# -- the engine's own bus -----------------------------------------------------------------------
def test_a_turn_outside_a_bus_handler_connects_nothing(tmp_path: Path, own_clients: list[Recording]) -> None:
    """The CLI and ovos-persona-server: no bus message up the stack, no client, nothing changes."""
    engine = asking(tmp_path, ScriptedBrain(["Hello."]))
    assert engine.continue_chat([user("hello")]).content == "Hello."
    assert own_clients == []


def test_a_turn_inside_a_bus_handler_connects_and_the_confirm_event_reaches_the_bus(
    tmp_path: Path, own_clients: list[Recording]
) -> None:
    engine = asking(tmp_path, ScriptedBrain([tool_call("write_file", **NOTE)]))
    sess = session()
    spoken = handle_persona_query(utterance(sess, ASK), engine, [user(ASK)])
    assert mark_of(spoken)
    (client,) = own_clients
    (event,) = [m for m in client.sent if m.msg_type == BUS_CONFIRM_TOPIC]
    assert event.data["tool"] == "write_file" and event.data["session"] == sess
    kinds = [m.data["kind"] for m in client.sent if m.msg_type == BUS_STEP_TOPIC]
    assert kinds[0] == "turn_start" and "confirm" in kinds and kinds[-1] == "final"
    # one client per process, whatever the number of engines or turns
    other = asking(tmp_path, ScriptedBrain(["Hello."]))
    handle_persona_query(utterance(session(), "hello"), other, [user("hello")])
    assert len(own_clients) == 1


def test_voice_bus_false_never_connects(tmp_path: Path, own_clients: list[Recording]) -> None:
    engine = asking(tmp_path, ScriptedBrain(["Hello."]), voice_bus=False)
    assert handle_persona_query(utterance(session(), "hello"), engine, [user("hello")]) == "Hello."
    assert own_clients == []


def test_voice_bus_true_connects_at_construction(tmp_path: Path, own_clients: list[Recording]) -> None:
    asking(tmp_path, ScriptedBrain([]), voice_bus=True)
    deadline = time.monotonic() + 5
    while not own_clients and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(own_clients) == 1


def test_a_bus_that_is_down_is_a_warning_naming_it_and_the_turn_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_clients: list[Recording]
) -> None:
    def down(address: voice_bus.BusAddress) -> Recording:
        own_clients.append(Recording(up=False))
        return own_clients[-1]

    monkeypatch.setattr(voice_bus, "_connect", down)
    warnings: list[str] = []
    monkeypatch.setattr(voice_bus.LOG, "warning", lambda text, *a: warnings.append(str(text)))
    engine = asking(tmp_path, ScriptedBrain(["Hello.", "Again."]))
    assert handle_persona_query(utterance(session(), "hello"), engine, [user("hello")]) == "Hello."
    assert any("ws://127.0.0.1:8181/core" in w and "not reachable" in w for w in warnings), warnings
    assert own_clients[0].sent == []  # nothing was sent into a bus that is not there
    # said once; the next turn does not wait again
    handle_persona_query(utterance(session(), "again"), engine, [user("again")])
    assert len(own_clients) == 1, "the next turn tried to connect again"
    assert len([w for w in warnings if "not reachable" in w]) == 1


# -- stop ---------------------------------------------------------------------------------------
def first_turn(engine: Any, sess: str) -> list[AgentMessage]:
    reply = engine.continue_chat([user(ASK)], session_id=sess)
    assert mark_of(reply.content)
    return [user(ASK), said(reply.content)]


def stop(bus: FakeBus, sess: str, topic: str = "ovos.stop", data: dict[str, Any] | None = None) -> None:
    bus.emit(Message(topic, data or {}, {"session": {"session_id": sess}}))


@pytest.mark.parametrize(
    ("topic", "data"),
    [
        ("ovos.stop", {}),  # the stop pipeline's global stop
        ("stop:global", {}),
        ("stop:skill", {"skill_id": "persona.openvoiceos"}),
        ("persona.openvoiceos:stop", {"skill_id": "persona.openvoiceos"}),  # aimed at the persona pipeline
    ],
)
def test_stop_then_yes_writes_nothing_and_says_it_was_cancelled(
    tmp_path: Path, topic: str, data: dict[str, Any]
) -> None:
    bus = FakeBus()
    brain = ScriptedBrain([tool_call("write_file", **NOTE)])
    engine = on_bus(tmp_path, brain, bus)
    sess = session()
    history = first_turn(engine, sess)
    stop(bus, sess, topic, data)
    reply = engine.continue_chat([*history, user("yes")], session_id=sess)
    assert reply.content == "That was cancelled when you said stop, so I did nothing."
    assert not (tmp_path / "note.txt").exists()
    brain.assert_complete()  # no model call for it


def test_a_stop_in_another_session_or_before_the_question_cancels_nothing(tmp_path: Path) -> None:
    bus = FakeBus()
    brain = ScriptedBrain(
        [tool_call("write_file", **NOTE), "Written.", tool_call("write_file", **NOTE), "Again."]
    )
    engine = on_bus(tmp_path, brain, bus)
    sess = session()
    history = first_turn(engine, sess)
    stop(bus, session())
    assert engine.continue_chat([*history, user("yes")], session_id=sess).content == "Written."
    (tmp_path / "note.txt").unlink()
    later = session()
    stop(bus, later)
    time.sleep(0.01)
    history = first_turn(engine, later)
    assert engine.continue_chat([*history, user("yes")], session_id=later).content == "Again."
    assert (tmp_path / "note.txt").read_text() == "hi"


def test_stop_then_yes_in_portuguese(tmp_path: Path) -> None:
    bus = FakeBus()
    brain = ScriptedBrain([tool_call("write_file", **NOTE)])
    engine = on_bus(tmp_path, brain, bus)
    sess = session()
    reply = engine.continue_chat([user("escreve hi em note.txt")], session_id=sess, lang="pt-PT")
    stop(bus, sess, "persona.openvoiceos:stop")
    history = [user("escreve hi em note.txt"), said(reply.content), user("sim")]
    again = engine.continue_chat(history, session_id=sess, lang="pt-PT")
    assert again.content == "Isso foi cancelado quando disseste parar, por isso não fiz nada."
    assert not (tmp_path / "note.txt").exists()


# -- the microphone -----------------------------------------------------------------------------
def test_the_microphone_reopens_once_the_question_has_been_played(tmp_path: Path) -> None:
    """ovos-persona speaks the question without expect_response; once the audio service says the
    session's output ended after it, the engine emits mycroft.mic.listen in that speak's context."""
    bus = Recording()
    brain = ScriptedBrain([tool_call("write_file", **NOTE)])
    engine = on_bus(tmp_path, brain, bus)
    sess, elsewhere = session(), session()
    context = {"session": {"session_id": sess}, "destination": ["audio"]}
    question = engine.continue_chat([user(ASK)], session_id=sess).content
    ended = Message("ovos.audio.output.ended", {}, context)
    bus.emit(ended)  # an earlier answer's playback: the question was not spoken yet
    bus.emit(Message("ovos.utterance.speak", {"utterance": question}, context))
    bus.emit(Message("ovos.audio.output.ended", {}, {"session": {"session_id": elsewhere}}))
    assert "mycroft.mic.listen" not in bus.topics()
    bus.emit(ended)
    (listen,) = [m for m in bus.sent if m.msg_type == "mycroft.mic.listen"]
    assert listen.context["session"]["session_id"] == sess
    bus.emit(ended)  # once per question
    assert bus.topics().count("mycroft.mic.listen") == 1


def test_no_microphone_for_a_question_stopped_before_it_was_played(tmp_path: Path) -> None:
    bus = Recording()
    brain = ScriptedBrain([tool_call("write_file", **NOTE)])
    engine = on_bus(tmp_path, brain, bus)
    sess = session()
    context = {"session": {"session_id": sess}}
    question = engine.continue_chat([user(ASK)], session_id=sess).content
    bus.emit(Message("ovos.utterance.speak", {"utterance": question}, context))
    stop(bus, sess)
    bus.emit(Message("ovos.audio.output.ended", {}, context))
    assert "mycroft.mic.listen" not in bus.topics()


# -- another persona --------------------------------------------------------------------------
def test_a_yes_that_reaches_another_persona_runs_nothing_there_and_says_why(
    tmp_path: Path, own_clients: list[Recording]
) -> None:
    """ovos-persona keeps one memory per persona: the other persona gets a bare "yes". Under the
    process's one key the two personas' sections tell them apart."""
    tessa = asking(tmp_path, ScriptedBrain([tool_call("write_file", **NOTE)]), system_prompt="You are Tessa.")
    nova_brain = ScriptedBrain(["What can I do for you?"])
    nova = asking(tmp_path, nova_brain, system_prompt="You are Nova.")
    sess = session()
    first_turn(tessa, sess)
    said = handle_persona_query(utterance(sess, "yes"), nova, [user("yes")])
    assert said == "Another assistant asked that question, so I did nothing here."
    assert not (tmp_path / "note.txt").exists() and nova_brain.calls == []
    # Nova has spoken since: the next yes is Nova's own conversation
    assert handle_persona_query(utterance(sess, "yes"), nova, [user("yes")]) == "What can I do for you?"


def test_a_text_host_keeps_a_bare_yes_to_its_own_model(tmp_path: Path) -> None:
    """ovos-persona-server or the CLI (no bus message up the stack): clients send whole conversations,
    and many may share one session id, so another engine's question there refuses nothing."""
    tessa = asking(tmp_path, ScriptedBrain([tool_call("write_file", **NOTE)]), system_prompt="You are Tessa.")
    nova = asking(tmp_path, ScriptedBrain(["Yes to what?"]), system_prompt="You are Nova.")
    first_turn(tessa, "default")
    assert nova.continue_chat([user("yes")], session_id="default").content == "Yes to what?"
    assert not (tmp_path / "note.txt").exists()


def test_a_bare_yes_is_an_ordinary_message_when_no_one_asked(
    tmp_path: Path, own_clients: list[Recording]
) -> None:
    brain = ScriptedBrain(["Yes to what?"])
    engine = asking(tmp_path, brain)
    sess = session()
    assert handle_persona_query(utterance(sess, "yes"), engine, [user("yes")]) == "Yes to what?"
