"""An unread file (a multi-step chain cut short): the question names a file, the answer comes without
any call of this turn touching it, and a file-reading tool is loaded. The bundled model answered
"15% of the budget" in notes.txt from the numbers it had, never opening the file. One "read it
first" message, from the same budget as the other reactions (at most one more model call)."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import ENGINES_AND_MODES, engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, in_chunks, tool_call

QUESTION = "Read notes.txt and tell me what 15% of the budget is."


@pytest.fixture
def boxes(tmp_path: Path) -> list[ToolBox]:
    (tmp_path / "notes.txt").write_text("Budget: 4200 euros.\n")
    plugins = find_toolbox_plugins()
    return [
        plugins["ovos-filesystem-tools"](config={"root_path": str(tmp_path)}),
        plugins["ovos-math-tools"](config={}),
    ]


def test_an_answer_without_reading_the_named_file_gets_the_file_read(boxes: list[ToolBox]) -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="15% of 80"),
            "15% of the budget is 12.",
            # the loop reads notes.txt itself: told to, the bundled model said it cannot read files
            tool_call("evaluate_expression", expression="15% of 4200"),
            "15% of the budget is 630.",
        ]
    )
    answer = engine_with(brain, boxes).continue_chat(user(QUESTION))
    assert answer.content == "15% of the budget is 630."
    seen = brain.calls[2]
    assert seen.last.role == MessageRole.TOOL and "Budget: 4200 euros." in seen.last.content
    made = seen.messages[-2]
    assert made.tool_calls[0].name == "read_file" and made.tool_calls[0].arguments == {"path": "notes.txt"}
    assert not any("is 12." in (m.content or "") for m in seen.messages)  # the made-up answer is gone
    brain.assert_complete()


def test_asking_for_the_read_the_loop_made_is_no_repeat_that_ends_the_turn(boxes: list[ToolBox]) -> None:
    """Stock template, spoken tune half: after the loop read scores.csv for it, the model asked
    for that same read; taken as asking again for what it was just given, the turn went to its
    answer and said the earlier wrong result (3.75). The loop's own call is the model's first."""
    read = tool_call("read_file", path="notes.txt")
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="15% of 80"),
            "15% of the budget is 12.",
            read,  # the same read the loop made: reminded, not ended
            tool_call("evaluate_expression", expression="15% of 4200"),
            "15% of the budget is 630.",
        ]
    )
    answer = engine_with(brain, boxes).continue_chat(user(QUESTION))
    assert answer.content == "15% of the budget is 630."
    assert brain.calls[3].last.content.startswith("Not run again: this exact call already succeeded")
    assert brain.calls[-1].tools  # an ordinary answer, not the forced one
    brain.assert_complete()


@pytest.mark.parametrize(
    "script",
    [
        # the file was read: the answer stands
        [tool_call("read_file", path="notes.txt"), "The budget is 4200 euros."],
        # any call naming the file counts: a search in it
        [tool_call("search_in_files", pattern="Budget", path="notes.txt"), "The budget is 4200 euros."],
    ],
)
def test_an_answer_after_touching_the_file_stands(boxes: list[ToolBox], script: list) -> None:
    brain = ScriptedBrain(list(script))
    assert engine_with(brain, boxes).continue_chat(user(QUESTION)).content == script[-1]
    brain.assert_complete()


def test_no_file_in_the_question_or_no_reader_no_message(boxes: list[ToolBox]) -> None:
    brain = ScriptedBrain(["Paris."])
    assert engine_with(brain, boxes).continue_chat(user("Capital of France?")).content == "Paris."
    brain = ScriptedBrain(["I cannot open files."])
    maths_only = [boxes[1]]
    assert engine_with(brain, maths_only).continue_chat(user(QUESTION)).content == "I cannot open files."


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_a_stream_says_only_the_answer_after_reading(
    entry_point: str, mode: str, boxes: list[ToolBox]
) -> None:
    brain = ScriptedBrain(
        [
            in_chunks("The budget ", "is unknown. ", "Sorry."),  # the loop reads notes.txt
            in_chunks("The budget ", "is 4200 euros."),
        ]
    )
    engine = engine_with(brain, boxes, entry_point, mode=mode)
    assert list(engine.stream_sentences(user("What is the budget in notes.txt?"))) == [
        "The budget is 4200 euros."
    ]


def test_a_file_named_as_speech_to_text_writes_it_is_read_too(tmp_path: Path) -> None:
    """Seen on the spoken suite: "whats the total of the amounts in expenses dot csv" answered with
    a sum of invented amounts (the calculator called, the file never read)."""
    (tmp_path / "expenses.csv").write_text("item,amount\nrent,950\npower,64.5\n")
    plugins = find_toolbox_plugins()
    boxes = [
        plugins["ovos-filesystem-tools"](config={"root_path": str(tmp_path)}),
        plugins["ovos-math-tools"](config={}),
    ]
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="100 + 250"),
            "The total of the amounts in expenses.csv is 350.",
            # the loop reads expenses.csv itself; with the amounts in front of it the model sums them
            tool_call("evaluate_expression", expression="950 + 64.5"),
            "The total is 1014.5.",
        ]
    )
    answer = engine_with(brain, boxes).continue_chat(
        user("whats the total of the amounts in expenses dot csv")
    )
    assert answer.content == "The total is 1014.5."
    made = brain.calls[2].messages[-2]
    assert made.tool_calls[0].name == "read_file" and made.tool_calls[0].arguments == {"path": "expenses.csv"}
    assert "rent,950" in brain.calls[2].last.content
    brain.assert_complete()
