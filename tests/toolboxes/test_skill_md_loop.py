"""A full loop turn: the model loads a skill, runs its script, and answers from the result."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

pytest.importorskip("ovos_agentic_loop.engine")

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call
from ovos_agentic_loop_toolboxes.skill_md import EXAMPLES_DIR

SKILL_CONFIG = {"skills_paths": [EXAMPLES_DIR], "user_skills_path": None, "use_entry_points": False}


def make_engine(brain: ScriptedBrain) -> Any:
    cls = load_chat_plugin("ovos-react-loop")
    assert cls is not None
    engine = cls(config={"toolboxes": ["ovos-skill-md-toolbox"], "ovos-skill-md-toolbox": SKILL_CONFIG})
    engine.set_brain(brain)
    return engine


def tool_results(call: BrainCall) -> list[AgentMessage]:
    return [m for m in call.messages if m.role == MessageRole.TOOL]


def answer_from_stats(call: BrainCall) -> str:
    stats = json.loads(tool_results(call)[-1].content)["result"]
    return f"Your text has {stats['words']} words; the most frequent is {stats['top_words'][0][0]!r}."


def test_loop_loads_a_skill_and_runs_its_script() -> None:
    brain = ScriptedBrain(
        [
            tool_call("load_skill", skill="text-stats"),
            tool_call("text_stats", text="the cat and the hat", top=1),
            answer_from_stats,
        ]
    )
    engine = make_engine(brain)

    answer = engine.continue_chat([AgentMessage(role=MessageRole.USER, content="count the words of: ...")])

    assert answer.content == "Your text has 5 words; the most frequent is 'the'."
    brain.assert_complete()
    first = brain.calls[0]
    assert {"load_skill", "read_skill_file", "list_skills", "text_stats"} <= set(first.tool_names)
    load_spec = next(t for t in first.tools if t["function"]["name"] == "load_skill")
    assert "- kitchen-conversions: Scale a recipe" in load_spec["function"]["description"]
    loaded = json.loads(tool_results(brain.calls[1])[-1].content)
    assert loaded["skill"] == "text-stats" and loaded["tools"] == ["text_stats"]
    assert "## Parameters" in loaded["instructions"]
    ran = json.loads(tool_results(brain.calls[2])[-1].content)
    assert ran["result"]["top_words"] == [["the", 2]]


def test_loop_shows_the_model_why_a_call_was_refused() -> None:
    brain = ScriptedBrain([tool_call("text_stats", text="--help"), "I could not count that."])
    engine = make_engine(brain)

    answer = engine.continue_chat([AgentMessage(role=MessageRole.USER, content="count: --help")])

    assert answer.content == "I could not count that."
    observation = tool_results(brain.calls[1])[-1].content
    assert "may not start with '-'" in observation
