"""A file name where the calculator wants numbers (``mean(scores.csv)``): the loop runs the call as
written, and the calculator's own error, which says to read the values first, is what the model
sees. No rule rewrites such a call with the file's numbers."""

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


def test_a_file_name_as_an_operand_gets_the_calculators_own_error(boxes: list[ToolBox]) -> None:
    brain = ScriptedBrain(
        [tool_call("evaluate_expression", expression="mean(scores.csv)"), "I could not read it."]
    )
    engine_with(brain, boxes).continue_chat(user("whats the average score in scores dot csv"))
    error = brain.calls[1].last
    assert error.role == MessageRole.TOOL and "is not a number" in error.content
    brain.assert_complete()
