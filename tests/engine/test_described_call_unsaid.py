"""What a voice says of a reply that describes a call: nothing. The call is the loop's to make, and
its answer is the one said ("To find which of your notes mentions the dentist, you can use the
search_in_files function with the pattern dentist." was spoken before the notes were searched)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop.testing import ScriptedBrain, in_chunks, tool_call, tool_calls

DESCRIBED = (
    "To find which of your notes mentions the dentist, you can use the search_in_files function "
    'with the pattern "dentist". It searches every file.'
)
ANSWER = "Your tuesday note mentions the dentist."


@pytest.fixture
def files(tmp_path: Path) -> ToolBox:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "tuesday.txt").write_text("dentist at 3pm\n")
    return find_toolbox_plugins()["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})


def test_a_described_call_is_not_said_and_its_call_is_answered_once(files: ToolBox) -> None:
    brain = ScriptedBrain([in_chunks(*re.findall(r"\S+\s*", DESCRIBED)), ANSWER])
    spoken = list(
        engine_with(brain, [files]).stream_sentences(user("which of my notes mentions the dentist"))
    )
    assert spoken == [ANSWER]
    searched = [m for m in brain.calls[1].messages if m.tool_calls]
    assert searched and searched[-1].tool_calls[0].name == "search_in_files"


def test_talk_that_names_a_tool_before_its_call_is_not_said_other_talk_is(files: ToolBox) -> None:
    search = ("search_in_files", {"pattern": "dentist", "path": "notes"})
    brain = ScriptedBrain(
        [
            tool_calls(search, content="I will use the search_in_files function to look for it."),
            tool_calls(("list_directory", {"path": "notes"}), content="Let me check the notes folder."),
            ANSWER,
        ]
    )
    spoken = list(
        engine_with(brain, [files]).stream_sentences(user("which of my notes mentions the dentist"))
    )
    assert spoken == ["Let me check the notes folder.", ANSWER]


def test_an_answer_whose_first_sentence_names_no_tool_is_said_as_it_comes(files: ToolBox) -> None:
    brain = ScriptedBrain([tool_call("search_in_files", pattern="dentist", path="notes"), ANSWER])
    engine = engine_with(brain, [files])
    tokens = list(engine.stream_tokens(user("which of my notes mentions the dentist")))
    assert "".join(tokens) == ANSWER


def test_in_the_text_protocol_talk_is_read_apart_from_the_call_it_names(files: ToolBox) -> None:
    """The call itself names its tool ("Action: read_file"): the talk before it is still said
    (the reply arrives whole, so it is held to its end)."""
    talk = 'Let me read it.\nAction: read_file\nAction Input: {"path": "notes/tuesday.txt"}'
    brain = ScriptedBrain([in_chunks(talk), ANSWER])
    engine = engine_with(brain, [files], "ovos-react-loop", mode="text")
    spoken = list(engine.stream_sentences(user("which of my notes mentions the dentist")))
    assert spoken == ["Let me read it.", ANSWER]
