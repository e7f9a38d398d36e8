"""A file name where its numbers belong (``mean(scores.csv)``): the calculator refuses it with its
own error, which says to read the values first. The loop's rule that sent back such a call
with the file's numbers was removed: on the held-out halves it never fired (bench figure 12)."""

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
