"""``confirm_side_effects`` with a real MCP server (the ``mcp`` SDK, over stdio) through
ovos-tool-adapters' ``ovos-mcp-toolbox``. The adapter passes on a tool's name,
description and schema but not its annotations, so every MCP tool it serves counts as one that
may change something (MCP's rule for a tool that does not say readOnlyHint): each is asked about,
the one that says it is read-only too. Skipped when either package is missing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install mcp)")
pytest.importorskip("ovos_tool_adapters.mcp", reason="ovos-tool-adapters is not installed")

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._confirmation.pending import without_marks
from ovos_agentic_loop.personas import Persona, build_engine
from ovos_agentic_loop.testing import ScriptedBrain, tool_call

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "annotated_server.py"

pytestmark = pytest.mark.timeout(60)


def persona(**loop: Any) -> dict[str, Any]:
    return {
        "name": "home",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "toolboxes": ["ovos-mcp-toolbox"],
            "ovos-mcp-toolbox": {"transport": "stdio", "command": sys.executable, "args": [str(SERVER)]},
            **loop,
        },
    }


@pytest.fixture(scope="module")
def engine():
    built = build_engine(Persona("home.json", persona(confirm_side_effects=True)))
    yield built
    built.shutdown()


def say(engine: Any, brain: ScriptedBrain, history: list[AgentMessage]) -> tuple[str, list[Any]]:
    engine.set_brain(brain)
    events: list[Any] = []
    engine.add_step_listener(events.append)
    try:
        return engine.continue_chat(history).content, events
    finally:
        engine.remove_step_listener(events.append)


def test_an_mcp_tool_is_asked_about_and_a_yes_runs_it_on_the_server(engine: Any) -> None:
    (toolbox,) = engine.toolboxes
    assert sorted(toolbox.tools) == ["get_state", "turn_on", "unlock"]
    ask = [AgentMessage(MessageRole.USER, "unlock the front door")]
    question, events = say(engine, ScriptedBrain([tool_call("unlock", entity="front door")]), ask)
    assert without_marks(question) == "Should I use unlock with entity front door?"
    assert not [e for e in events if e.kind == "tool_call"]
    history = [*ask, AgentMessage(MessageRole.ASSISTANT, question), AgentMessage(MessageRole.USER, "yes")]
    brain = ScriptedBrain(["The front door is unlocked."])
    answer, events = say(engine, brain, history)
    assert answer == "The front door is unlocked."
    (result,) = [e for e in events if e.kind == "tool_result"]
    assert result.ok and "front door unlocked" in result.result  # the MCP server ran it


@pytest.mark.parametrize("tool", ["turn_on", "get_state"])
def test_tools_without_annotations_through_the_adapter_count_as_side_effects(engine: Any, tool: str) -> None:
    # get_state says readOnlyHint true on the server, but ovos-tool-adapters drops annotations
    question, _ = say(
        engine, ScriptedBrain([tool_call(tool, entity="lamp")]), [AgentMessage(MessageRole.USER, "lamp?")]
    )
    assert without_marks(question).startswith("Should I use ")


def test_without_the_policy_an_mcp_tool_runs_at_once() -> None:
    built = build_engine(Persona("home.json", persona()))
    try:
        answer, events = say(
            built,
            ScriptedBrain([tool_call("turn_on", entity="lamp"), "The lamp is on."]),
            [AgentMessage(MessageRole.USER, "lamp on")],
        )
    finally:
        built.shutdown()
    assert answer == "The lamp is on." and [e.name for e in events if e.kind == "tool_call"] == ["turn_on"]
