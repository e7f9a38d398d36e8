"""One answer per turn once speech has started: what a voice heard is never followed by
a second answer to the same question.

The case: after a yes the model answers a write with "I saved hi to note.txt successfully." while
the result holds ``bytes_written: 2``. Were that judged "the result is not stated" and asked again,
the voice would speak both answers. So a successful write is its own result (the typed outcome of a
tool that changes something, not words of the answer, decides), and a rule that judges an answer
either holds the stream (the unstated result) or is not asked once part of the reply was spoken.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import ENGINES_AND_MODES, engine_with, user
from hypothesis import given, settings
from hypothesis import strategies as st
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._rules.unstated import UNSTATED_RESULT
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._tools.observations import Status, ToolOutcome
from ovos_agentic_loop._tools.toolset import PersonaTools
from ovos_agentic_loop.testing import ScriptedBrain, in_chunks, tool_call
from ovos_agentic_loop_toolboxes.filesystem import FileSystemToolBox


@pytest.fixture
def files(tmp_path: Path) -> ToolBox:
    return FileSystemToolBox(config={"root_path": str(tmp_path), "allow_write": True})


@pytest.fixture(scope="module")
def maths() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_a_successful_write_said_as_done_is_the_one_answer(
    entry_point: str, mode: str, files: ToolBox, tmp_path: Path
) -> None:
    brain = ScriptedBrain(
        [
            tool_call("write_file", path="note.txt", content="hi"),
            "I saved hi to note.txt successfully.",
            "I wrote 2 bytes to note.txt.",  # what the loop's second question got: never asked now
        ]
    )
    engine = engine_with(brain, [files], entry_point, mode=mode)
    spoken = list(engine.stream_sentences(user("Write hi to note.txt")))
    assert spoken == ["I saved hi to note.txt successfully."]
    assert (tmp_path / "note.txt").read_text() == "hi"
    assert len(brain.calls) == 2


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_a_narrated_result_is_corrected_before_it_is_spoken(
    entry_point: str, mode: str, maths: ToolBox
) -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="15% of 240"),
            "This is the result of the calculation.",
            "15% of 240 is 36.",
        ]
    )
    engine = engine_with(brain, [maths], entry_point, mode=mode)
    assert list(engine.stream_sentences(user("What is 15% of 240?"))) == ["15% of 240 is 36."]
    brain.assert_complete()


def test_an_answer_already_spoken_is_not_sent_back(files: ToolBox) -> None:
    """An answer with a flaw found only once it streamed (a slot where a value belongs, after a
    first sentence that said something of its own) is not sent back once part of it was spoken:
    the voice said it, and a second answer would follow it. (Said first, the slot is held and
    sent back: tests/engine/test_unstated_result.py.)"""
    brain = ScriptedBrain(
        [
            in_chunks("Sure, I can tell you. ", "Your user name is ", "[YourUsername]", ". Anything else?"),
            "Your user name is ana.",  # the corrected answer: a second one, never asked for now
        ]
    )
    engine = engine_with(brain, [files])
    spoken = list(engine.stream_sentences(user("What is my user name?")))
    # as a voice reads it
    assert spoken == ["Sure, I can tell you.", "Your user name is YourUsername.", "Anything else?"]
    assert len(brain.calls) == 1


class SlowBrain(ScriptedBrain):
    """A brain that writes one delta every ``DELTA_S`` seconds, as a model on a CPU does."""

    def stream_message(self, *args: Any, **kwargs: Any) -> Iterator[str | AgentMessage]:
        for item in super().stream_message(*args, **kwargs):
            if isinstance(item, str):
                time.sleep(DELTA_S)
            yield item


DELTA_S = 0.02
# Ten deltas each: the result stated in the first sentence, or in the last.
STATED_FIRST = [
    "36 is ",
    "15% of ",
    "240. ",
    "I used ",
    "the ",
    "calculator ",
    "for ",
    "it, ",
    "as ",
    "asked.",
]
STATED_LAST = [
    "I used ",
    "the ",
    "calculator ",
    "for ",
    "it, ",
    "as asked. ",
    "15% of ",
    "240 ",
    "is ",
    "36.",
]


def first_and_last(brain: ScriptedBrain, toolbox: ToolBox) -> tuple[float, float, list[str]]:
    engine = engine_with(brain, [toolbox])
    started = time.monotonic()
    sentences = engine.stream_sentences(user("What is 15% of 240?"))
    first = next(sentences)
    waited = time.monotonic() - started
    spoken = [first, *sentences]
    return waited, time.monotonic() - started, spoken


def test_what_holding_the_stream_costs_the_first_sentence(maths: ToolBox) -> None:
    """An answer after a result is held until a result is stated: stated first, the first sentence
    comes three deltas in, as it did unheld; stated last, it waits for the whole reply (ten deltas,
    20 ms apart). Held or not, one answer is spoken."""
    calculate = tool_call("evaluate_expression", expression="15% of 240")
    waited, total, spoken = first_and_last(SlowBrain([calculate, in_chunks(*STATED_FIRST)]), maths)
    assert spoken == ["36 is 15% of 240.", "I used the calculator for it, as asked."]
    assert waited < total - 4 * DELTA_S, (waited, total)  # spoken while the rest is written
    waited_late, total_late, spoken = first_and_last(SlowBrain([calculate, in_chunks(*STATED_LAST)]), maths)
    assert spoken == ["I used the calculator for it, as asked.", "15% of 240 is 36."]
    assert waited_late >= len(STATED_LAST) * DELTA_S * 0.9, (waited_late, total_late)  # all written first
    print(
        f"first sentence: result stated first {waited:.3f} s of {total:.3f} s; "
        f"stated last (held) {waited_late:.3f} s of {total_late:.3f} s"
    )


NARRATIONS = [
    "This is the result of the calculation.",
    "The command executed successfully.",
    "I used the calculator. It is 352.5.",
    "352.5 is the result.",
    "The result is 3525 or so.",
    "The result was returned as 352.",
    "It is 352.50, the output of the tool.",
]


@settings(max_examples=200, deadline=None)
@given(answer=st.sampled_from(NARRATIONS) | st.text(alphabet="35.2 resultofth", max_size=40))
def test_the_stream_is_released_only_when_the_rule_can_no_longer_apply(maths: ToolBox, answer: str) -> None:
    """``may_apply`` on the text written so far (what releases a held stream) is True at every
    prefix of an answer the rule will send back: no narration is ever spoken and then corrected."""
    toolset = PersonaTools([maths], engine_name="t").current()
    call = ToolCall(id="c1", name="evaluate_expression", arguments={"expression": "15% of 2350"})
    output = {"expression": "15% of 2350", "read_as": None, "result": "352.5"}
    outcome = ToolOutcome(call, Status.OK, json.dumps(output), 0.0, output=output)
    transcript = [
        AgentMessage(MessageRole.USER, "What is 15% of 2350?"),
        AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[call]),
        AgentMessage(MessageRole.TOOL, outcome.text, tool_call_id="c1"),
    ]
    view = TurnView(toolset, transcript, {2: outcome}, text_mode=False)
    if UNSTATED_RESULT.detect(view.with_answer(answer)) is None:
        return
    assert UNSTATED_RESULT.may_apply is not None
    for cut in range(len(answer) + 1):
        assert UNSTATED_RESULT.may_apply(view.with_answer(answer[:cut])), (answer, answer[:cut])
