"""A template slot where a value belongs ("Your user name is <user-name>."): what counts as one, and
the forced answer holding one, which becomes an honest "could not find out" instead of a slot read
aloud.

From the spoken suite: "whats my user name on this computer" -> the clock was called, then "Your
user name is <user-name>."."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop._text.slots import placeholder_in
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


@pytest.fixture
def boxes(tmp_path: Path) -> list[ToolBox]:
    plugins = find_toolbox_plugins()
    return [
        plugins["ovos-clock-tools"](config={"timezone": "UTC"}),
        plugins["ovos-shell-tools"](config={"allow_shell": True, "root_path": str(tmp_path)}),
    ]


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("Your user name is <user-name>.", "<user-name>"),
        ("The computer is called [hostname].", "[hostname]"),
        ("It is {time} now.", "{time}"),
        ("Hello [your name]!", "[your name]"),
        ("Log in as YOUR_USERNAME.", "YOUR_USERNAME"),
        ("It is [YourUsername].", "[YourUsername]"),
        ("I wrote <tool_call> by mistake", None),
        ('The shopping list is [milk, eggs] and {"a": 1}', None),
        ("2 < 3 and 5 > 4", None),
    ],
)
def test_what_counts_as_a_slot(text: str, slot: str | None) -> None:
    assert placeholder_in(text) == slot


def test_a_forced_answer_with_a_placeholder_says_it_could_not_find_out(boxes: list[ToolBox]) -> None:
    """From the spoken suite: the clock called three times for a user name, then the forced answer
    "Your user name on this computer is [YourUsername]."."""
    now = tool_call("get_current_datetime", timezone="UTC")
    brain = ScriptedBrain([now, now, "Your user name on this computer is [YourUsername]."])
    answer = engine_with(brain, boxes).continue_chat(user("whats my user name on this computer"))
    assert brain.calls[-1].tools == []  # it was the forced answer
    assert answer.content == "I'm sorry, I could not find that out."
    brain.assert_complete()
