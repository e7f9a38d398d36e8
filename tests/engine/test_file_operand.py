"""A file name where its numbers belong (issue 21, spoken suite's tune half): asked "whats the
average score in scores dot csv", the bundled model read the file, then called the calculator
with ``mean(scores.csv)`` again and again; the forced answer guessed 79.8. A calculator call
naming a file this turn has read is not run: the model gets that file's numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, tool_call

SCORES = "name,score\nana,72\nben,85\ncarla,91\ndavid,64\neva,88\n"


@pytest.fixture
def boxes(tmp_path: Path) -> list[ToolBox]:
    (tmp_path / "scores.csv").write_text(SCORES)
    plugins = find_toolbox_plugins()
    return [
        plugins["ovos-filesystem-tools"](config={"root_path": str(tmp_path)}),
        plugins["ovos-math-tools"](config={}),
    ]


def test_a_calculation_on_a_file_read_this_turn_gets_the_files_numbers(boxes: list[ToolBox]) -> None:
    brain = ScriptedBrain(
        [
            tool_call("read_file", path="scores.csv"),
            tool_call("evaluate_expression", expression="mean(scores.csv)"),
            tool_call("evaluate_expression", expression="mean([72, 85, 91, 64, 88])"),
            "The average score is 80.",
        ]
    )
    answer = engine_with(brain, boxes).continue_chat(user("whats the average score in scores dot csv"))
    assert answer.content == "The average score is 80."
    held = brain.calls[2].last
    assert held.role == MessageRole.TOOL and held.content.startswith("Not run: scores.csv names the file")
    assert "The numbers in scores.csv are: 72, 85, 91, 64, 88." in held.content
    ran = brain.calls[3].last
    assert ran.role == MessageRole.TOOL and '"result": "80"' in ran.content
    brain.assert_complete()


def test_a_column_written_after_the_files_name_gets_the_files_numbers(tmp_path: Path) -> None:
    """The tune half again: ``sum(expenses.amount)`` after reading expenses.csv, then 1406.75."""
    (tmp_path / "expenses.csv").write_text("item,amount\nrent,950\npower,64.5\nwater,31.25\ninternet,39.99\n")
    plugins = find_toolbox_plugins()
    boxes = [
        plugins["ovos-filesystem-tools"](config={"root_path": str(tmp_path)}),
        plugins["ovos-math-tools"](config={}),
    ]
    brain = ScriptedBrain(
        [
            tool_call("read_file", path="expenses.csv"),
            tool_call("evaluate_expression", expression="sum(expenses.amount)"),
            tool_call("evaluate_expression", expression="950 + 64.5 + 31.25 + 39.99"),
            "1085.74.",
        ]
    )
    engine_with(brain, boxes).continue_chat(user("whats the total of the amounts in expenses dot csv"))
    held = brain.calls[2].last.content
    assert held.startswith("Not run: expenses.amount names the file expenses.csv")
    assert "The numbers in expenses.csv are: 950, 64.5, 31.25, 39.99." in held
    assert '"result": "1085.74"' in brain.calls[3].last.content
    brain.assert_complete()


def test_a_file_not_read_yet_is_left_to_the_calculators_own_error(boxes: list[ToolBox]) -> None:
    brain = ScriptedBrain(
        [tool_call("evaluate_expression", expression="mean(scores.csv)"), "I could not read it."]
    )
    engine_with(brain, boxes).continue_chat(user("whats the average score in scores dot csv"))
    error = brain.calls[1].last
    assert error.role == MessageRole.TOOL and "is not a number" in error.content
    brain.assert_complete()


def test_a_decimal_number_is_no_file_name(boxes: list[ToolBox]) -> None:
    brain = ScriptedBrain(
        [
            tool_call("read_file", path="scores.csv"),
            tool_call("evaluate_expression", expression="(72 + 85 + 91 + 64 + 88) / 5.0"),
            "80.",
        ]
    )
    engine_with(brain, boxes).continue_chat(user("whats the average score in scores dot csv"))
    assert '"result": "80"' in brain.calls[2].last.content
    brain.assert_complete()
