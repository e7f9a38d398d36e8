"""Small helpers for the engine tests: build an engine through its entry point."""

from __future__ import annotations

from typing import Any

from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.testing import ScriptedBrain


def user(text: str) -> list[AgentMessage]:
    return [AgentMessage(role=MessageRole.USER, content=text)]


def engine_with(
    brain: ScriptedBrain, toolboxes: list | None = None, entry_point: str = "ovos-react-loop", **config: Any
):
    cls = load_chat_plugin(entry_point)
    assert cls is not None, f"{entry_point} is not installed"
    return cls(config=config, brain=brain, toolboxes=toolboxes or [])
