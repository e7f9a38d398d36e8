"""The README's example persona sections (shipped as ``ops-assistant`` and ``researcher``) load and
run as written, with scripted brains: a brain with its own section, a missing toolbox named in the
log, and two toolboxes offered as one tool list."""

from __future__ import annotations

import json

import pytest
from engine_helpers import user
from ovos_plugin_manager.agents import load_chat_plugin

from ovos_agentic_loop.testing import ScriptedBrain, tool_call

pytestmark = pytest.mark.needs_package("ovos_openai_plugin")  # both personas name ovos-chat-openai-plugin

OPS_ASSISTANT = {
    "name": "OpsAssistant",
    "handlers": ["ovos-react-loop"],
    "ovos-react-loop": {
        "brain": "ovos-chat-openai-plugin",
        "ovos-chat-openai-plugin": {"api_url": "http://localhost:8081/v1"},
        "toolboxes": ["my-ops-tools"],
    },
}
RESEARCHER = {
    "name": "researcher",
    "handlers": ["ovos-react-loop"],
    "ovos-react-loop": {
        "brain": "ovos-chat-openai-plugin",
        "toolboxes": ["ovos-math-tools", "ovos-clock-tools"],
    },
}


def build(persona: dict):
    handler = persona["handlers"][0]
    return load_chat_plugin(handler)(config=persona[handler])


def test_ops_assistant_loads_its_brain_with_its_section_and_names_the_missing_toolbox(ovos_log) -> None:
    engine = build(OPS_ASSISTANT)

    brain = engine.brain
    assert type(brain).__module__.startswith("ovos_openai_plugin")
    assert brain.config["api_url"] == "http://localhost:8081/v1"
    assert any("'my-ops-tools' is not installed" in w for w in ovos_log.at("warning"))

    engine.set_brain(ScriptedBrain(["All systems nominal."]))
    assert engine.continue_chat(user("status?")).content == "All systems nominal."


def test_researcher_uses_math_and_clock_tools_as_one_list() -> None:
    engine = build(RESEARCHER)
    scripted = ScriptedBrain(
        [tool_call("evaluate_expression", expression="2**64"), "2 to the 64th is 18446744073709551616."]
    )
    engine.set_brain(scripted)

    answer = engine.continue_chat(user("what is 2 to the 64th?"))

    assert answer.content == "2 to the 64th is 18446744073709551616."
    names = scripted.calls[0].tool_names
    assert "evaluate_expression" in names and "get_current_datetime" in names
    assert len(names) == len(set(names))
    observation = scripted.calls[1].last.content
    assert "18446744073709551616" in observation
    json.loads(observation)  # rendered as JSON
    scripted.assert_complete()
