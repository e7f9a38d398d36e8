"""Progress speech: a turn silent for ``progress_delay`` while a tool runs says one line about the call.

The line is a ``progress`` step event (a host may speak it; under ovos-core the engine says it on
the bus in the turn's session), made from the call and its toolbox, never by the model, and never
part of the answer. A turn that answers within the delay says none.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user
from ovos_bus_client.message import Message
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_utils.fakebus import FakeBus

from ovos_agentic_loop._text.progress import GENERIC_LINES, progress_line
from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop.events import ModelCall, Progress, StepEvent, ToolCallStep, ToolResult
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, in_chunks, tool_call
from ovos_agentic_loop_toolboxes.clock import ClockToolBox
from ovos_agentic_loop_toolboxes.filesystem import FileSystemToolBox


def recorded(engine: Any) -> list[StepEvent]:
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    return events


def lines(events: list[StepEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, Progress)]


def test_a_tool_that_outlasts_the_delay_gets_one_line_and_the_answer_is_unchanged(
    demo_tools: DemoToolBox,
) -> None:
    brain = ScriptedBrain([tool_call("sleep", seconds=1.2), "Done sleeping."])
    engine = engine_with(brain, [demo_tools], progress_delay=0.3)
    events = recorded(engine)
    answer = engine.continue_chat(user("sleep 1.2 seconds"))
    assert answer.content == "Done sleeping."
    assert lines(events) == [GENERIC_LINES["en"]]  # the demo tool declares no phrase of its own
    kinds = [e.kind for e in events if isinstance(e, (ToolCallStep, Progress, ToolResult))]
    assert kinds == ["tool_call", "progress", "tool_result"]  # said while the tool ran
    # the model never saw it: nothing of it is in what the brain got on the next call
    assert all(GENERIC_LINES["en"] not in (m.content or "") for m in brain.calls[1].messages)


def test_a_turn_that_answers_within_the_delay_says_no_line(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=2, b=3), "Five."])
    engine = engine_with(brain, [demo_tools], progress_delay=30)
    events = recorded(engine)
    assert engine.continue_chat(user("2 + 3?")).content == "Five."
    assert lines(events) == []


def test_a_slow_model_before_the_call_makes_the_line_come_before_the_tool_runs(
    demo_tools: DemoToolBox,
) -> None:
    gate = threading.Event()

    def slow_call(call: BrainCall) -> Any:
        gate.wait(0.6)  # the model thinks past the delay before it asks for the tool
        return tool_call("add", a=1, b=1)

    brain = ScriptedBrain([slow_call, "Two."])
    engine = engine_with(brain, [demo_tools], progress_delay=0.2)
    events = recorded(engine)
    assert engine.continue_chat(user("1 + 1?")).content == "Two."
    kinds = [e.kind for e in events if isinstance(e, (ToolCallStep, Progress, ToolResult))]
    assert kinds == ["tool_call", "progress", "tool_result"]


def test_one_line_per_turn_however_many_tool_steps(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [tool_call("sleep", seconds=0.5), tool_call("sleep", seconds=0.5, label="y"), "Slept twice."]
    )
    engine = engine_with(brain, [demo_tools], progress_delay=0.2)
    events = recorded(engine)
    assert engine.continue_chat(user("sleep half a second twice")).content == "Slept twice."
    assert len(lines(events)) == 1


def test_switched_off_it_says_nothing(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("sleep", seconds=0.6), "Done."])
    engine = engine_with(brain, [demo_tools], progress_delay=0.1, progress_speech=False)
    events = recorded(engine)
    engine.continue_chat(user("sleep 0.6 seconds"))
    assert lines(events) == []


def test_the_streamed_answer_holds_no_progress_line(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("sleep", seconds=0.6), "I slept. Now I am awake."])
    engine = engine_with(brain, [demo_tools], progress_delay=0.1)
    events = recorded(engine)
    sentences = list(engine.stream_sentences(user("sleep 0.6 seconds")))
    assert sentences == ["I slept.", "Now I am awake."]
    assert lines(events) == [GENERIC_LINES["en"]]


def test_the_personas_template_and_the_hosts_hook_come_first(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("sleep", seconds=0.5, label="the cat"), "Done."])
    engine = engine_with(
        brain, [demo_tools], progress_delay=0.1, progress_lines={"sl*": "Napping with {label}."}
    )
    events = recorded(engine)
    engine.continue_chat(user("sleep 0.5 seconds"))
    assert lines(events) == ["Napping with the cat."]

    brain = ScriptedBrain([tool_call("sleep", seconds=0.5), "Done."])
    engine = engine_with(brain, [demo_tools], progress_delay=0.1)
    engine.progress_lines = lambda tool, arguments, lang: f"Hang on, {tool} for {arguments['seconds']} s."
    events = recorded(engine)
    engine.continue_chat(user("sleep 0.5 seconds"))
    assert lines(events) == ["Hang on, sleep for 0.5 s."]


def test_the_bundled_toolboxes_name_the_place_and_the_file(tmp_path: Path) -> None:
    clock = ClockToolBox(config={"timezone": "UTC"})
    (tmp_path / "shopping.txt").write_text("milk\n")
    files = FileSystemToolBox(config={"root_path": str(tmp_path)})
    engine = engine_with(ScriptedBrain(["x"]), [clock, files])
    toolset = engine._toolboxes.tools.current()

    def said(name: str, lang: str | None = None, **arguments: Any) -> str:
        spec = toolset.get(name)
        assert spec is not None
        return progress_line(name, arguments, spec.annotations, lang)

    assert said("get_current_datetime", timezone="Europe/London") == "Checking the time in London."
    assert said("get_current_datetime") == "Checking the time."
    assert said("convert_timezone", time="09:00", to_timezone="America/New_York") == (
        "Working out the time in New York."
    )
    assert said("read_file", path="notes/shopping.txt") == "Reading shopping.txt."
    assert said("read_file", "pt-PT", path="shopping.txt") == "A ler shopping.txt."
    assert said("read_file", "de", path="shopping.txt") == "Ich lese shopping.txt."
    assert said("list_directory", path=".") == "Looking through your files."
    assert said("read_file", "ja", path="a.txt") == "Reading a.txt."  # no Japanese phrase: English


def test_under_a_voice_assistant_the_line_is_spoken_in_the_turns_session(demo_tools: DemoToolBox) -> None:
    bus = FakeBus()
    sent: list[Message] = []
    bus.on("speak", sent.append)
    cls = load_chat_plugin("ovos-react-loop")
    brain = ScriptedBrain([tool_call("sleep", seconds=0.6), "Done."])
    engine = cls(config={"progress_delay": 0.1}, brain=brain, toolboxes=[demo_tools], bus=bus)
    session = f"s-{uuid.uuid4().hex[:8]}"
    message = Message(
        "persona:query", {"utterance": "sleep", "lang": "pt-PT"}, {"session": {"session_id": session}}
    )

    def handle_persona_query(message: Message) -> list[str]:  # ovos-persona: the stream, in the handler
        return list(engine.stream_sentences(user("sleep 0.6 seconds"), session_id=session, lang="pt-PT"))

    assert handle_persona_query(message) == ["Done."]
    assert [m.data["utterance"] for m in sent] == [GENERIC_LINES["pt"]]
    spoken = sent[0]
    assert spoken.context["session"]["session_id"] == session
    assert spoken.data["meta"]["progress"] is True and spoken.data["expect_response"] is False


def test_a_persona_template_that_is_not_one_is_refused_naming_the_key(demo_tools: DemoToolBox) -> None:
    with pytest.raises(ConfigError, match="progress_lines"):
        engine_with(ScriptedBrain(["x"]), [demo_tools], progress_lines={"sleep": "Napping {0} {"})


def test_a_hook_that_raises_is_reported_and_the_toolboxs_words_are_said(
    demo_tools: DemoToolBox, ovos_log: Any
) -> None:
    brain = ScriptedBrain([tool_call("sleep", seconds=0.5), "Done."])
    engine = engine_with(brain, [demo_tools], progress_delay=0.1)

    def broken(tool: str, arguments: Any, lang: str | None) -> str:
        raise KeyError("city")

    engine.progress_lines = broken
    events = recorded(engine)
    assert engine.continue_chat(user("sleep 0.5 seconds")).content == "Done."
    assert lines(events) == [GENERIC_LINES["en"]]
    assert any("progress_lines hook" in message and "KeyError" in message for _, message in ovos_log.records)


# --- a model that writes slowly: the line comes while it still writes its call ------------------

#: A call to ``add`` written as text, one delta at a time: the tool's name is out in the first.
SLOW_CALL = ("Action: add\n", "Action Input: ", '{"a": 2, ', '"b": 3', "}", "\n")


def slowly(events: list[StepEvent]) -> list[str]:
    """The kinds of the events that order a line against the model's replies and the tool's run."""
    kept = (Progress, ModelCall, ToolCallStep, ToolResult)
    return [e.kind for e in events if isinstance(e, kept)]


@pytest.mark.parametrize("mode", ["text", "native"])
def test_a_call_still_being_written_gets_its_line_before_the_reply_ends(
    demo_tools: DemoToolBox, mode: str
) -> None:
    """The model writes its call over about 1.5 s; the tool's name is out at once, so the line comes
    at the delay, while the reply still streams, and once: not again while the tool runs. The
    arguments are not whole yet, so the persona's template that needs them is skipped."""
    brain = ScriptedBrain([in_chunks(*SLOW_CALL), "Five."], chunk_delay=0.25)
    engine = engine_with(
        brain, [demo_tools], progress_delay=0.3, progress_lines={"add": "Adding {a} and {b}."}, mode=mode
    )
    events = recorded(engine)
    assert list(engine.stream_sentences(user("2 + 3?"))) == ["Five."]
    assert slowly(events) == ["progress", "model_call", "tool_call", "tool_result", "model_call"]
    assert lines(events) == [GENERIC_LINES["en"]]
    assert all(GENERIC_LINES["en"] not in (m.content or "") for m in brain.calls[1].messages)


def test_the_line_reads_the_calls_arguments_once_they_are_written(demo_tools: DemoToolBox) -> None:
    """The call is whole after 0.5 s and the reply goes on to 1.5 s: the line at 0.8 s names them."""
    written = in_chunks("Action: add\n", 'Action Input: {"a": 2, "b": 3}', "\n", " ", " ", " ")
    brain = ScriptedBrain([written, "Five."], chunk_delay=0.25)
    template = {"add": "Adding {a} and {b}."}
    engine = engine_with(brain, [demo_tools], progress_delay=0.8, progress_lines=template)
    events = recorded(engine)
    assert list(engine.stream_sentences(user("2 + 3?"))) == ["Five."]
    assert slowly(events)[:2] == ["progress", "model_call"]
    assert lines(events) == ["Adding 2 and 3."]


def test_a_slow_reply_that_is_an_answer_gets_no_line(demo_tools: DemoToolBox) -> None:
    """An answer written over about 2 s, past the delay, that even names a tool: no line, during the
    reply or after it."""
    answer = "Final Answer: I would add them, and add says five."
    brain = ScriptedBrain([answer], chunk_delay=0.15, chunk_size=6)
    engine = engine_with(brain, [demo_tools], progress_delay=0.3)
    events = recorded(engine)
    assert list(engine.stream_sentences(user("2 + 3?"))) == ["I would add them, and add says five."]
    assert lines(events) == []


def test_a_native_call_gets_its_line_once_it_is_named_before_its_arguments_are_written(
    demo_tools: DemoToolBox,
) -> None:
    """llama-server streams a native call's name first and its arguments after: the line comes
    when the name is out (the turn silent past the delay), before the reply ends, and once."""
    brain = ScriptedBrain([tool_call("add", a=2, b=3), "Five."], chunk_delay=0.5)
    engine = engine_with(brain, [demo_tools], progress_delay=0.2, mode="native")
    events = recorded(engine)
    assert list(engine.stream_sentences(user("2 + 3?"))) == ["Five."]
    assert slowly(events) == ["progress", "model_call", "tool_call", "tool_result", "model_call"]
    assert len(lines(events)) == 1
