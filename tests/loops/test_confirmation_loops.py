"""Ask before acting in every loop: the turn that wants to write asks, whatever step of
the strategy wanted it; the yes runs the call once and answers; a no runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from loops_helpers import ALL_ENGINES, loop_with, oracle
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._confirmation.pending import mark_of, without_marks
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call
from ovos_agentic_loop_toolboxes.filesystem import FileSystemToolBox

# A yes or a no is classified by ovos-yes-no-plugin: skipped without it (a plain '.[test]' install).
pytestmark = pytest.mark.needs_package("ovos_yes_no")

NOTE = {"path": "note.txt", "content": "alpha"}
QUESTION = "Should I write 'alpha' to note.txt?"


def writer(call: BrainCall) -> str | AgentMessage:
    """Every loop's roles (the word is alpha); with tools, it writes the note until it was written."""
    if call.tools:
        if any(m.role == MessageRole.TOOL and m.name == "write_file" for m in call.messages):
            return "I wrote alpha to note.txt."
        return tool_call("write_file", **NOTE)
    return oracle(call)


def history_after(engine, question: str, reply: str) -> list[AgentMessage]:
    return [
        AgentMessage(MessageRole.USER, "Which word: alpha? Write it to note.txt."),
        AgentMessage(MessageRole.ASSISTANT, question),
        AgentMessage(MessageRole.USER, reply),
    ]


def engine_for(name: str, root: Path, brain: ScriptedBrain):
    toolbox = FileSystemToolBox(config={"root_path": str(root), "allow_write": True})
    return loop_with(name, brain, [toolbox], confirm_tools=["write_file"], max_iterations=12)


@pytest.mark.parametrize("how", ["continue_chat", "stream_sentences"])
@pytest.mark.parametrize("name", ALL_ENGINES)
def test_every_loop_asks_then_a_yes_writes_once(name: str, how: str, tmp_path: Path) -> None:
    brain = ScriptedBrain([writer] * 40)
    engine = engine_for(name, tmp_path, brain)
    question = [AgentMessage(MessageRole.USER, "Which word: alpha? Write it to note.txt.")]
    if how == "continue_chat":
        asked = engine.continue_chat(question).content
    else:
        sentences = list(engine.stream_sentences(question))
        assert [without_marks(s) for s in sentences] == [QUESTION], sentences
        asked = " ".join(sentences)
    assert without_marks(asked) == QUESTION and mark_of(asked)
    assert list(tmp_path.iterdir()) == []
    # the yes, on a second instance of the same loop
    again = engine_for(name, tmp_path, brain)
    events: list = []
    again.add_step_listener(events.append)
    history = history_after(again, asked, "yes")
    if how == "continue_chat":
        answer = again.continue_chat(history).content
    else:
        answer = " ".join(again.stream_sentences(history))
    assert (tmp_path / "note.txt").read_text() == "alpha"
    assert "alpha" in answer and not mark_of(answer)
    assert [(e.name, e.arguments) for e in events if e.kind == "tool_call"] == [("write_file", NOTE)]


@pytest.mark.parametrize("name", ALL_ENGINES)
def test_every_loop_runs_nothing_on_a_no(name: str, tmp_path: Path) -> None:
    brain = ScriptedBrain([writer] * 40)
    engine = engine_for(name, tmp_path, brain)
    asked = engine.continue_chat([AgentMessage(MessageRole.USER, "Which word: alpha? Write it to note.txt.")])
    calls = len(brain.calls)
    reply = engine.continue_chat(history_after(engine, asked.content, "no")).content
    assert reply == "Okay, I won't do that."
    assert list(tmp_path.iterdir()) == [] and len(brain.calls) == calls
