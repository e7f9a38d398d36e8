"""ovos-agentic-loop: a ReAct / native tool-calling agent loop for OpenVoiceOS personas.

The public names below are imported on first use (PEP 562), so importing one submodule
(OPM loads ``ovos_agentic_loop.brain`` for every chat-plugin lookup) costs no more than that.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "AgentLoopEngine",
    "BrainError",
    "BrainReply",
    "ConfigError",
    "LoopConfig",
    "NativeToolCallEngine",
    "OpenAIBrain",
    "PluginNotFound",
    "ReActLoopEngine",
    "ScriptedBrain",
    "StepEvent",
    "function_toolbox",
    "toolbox_from_functions",
]

_WHERE = {
    "AgentLoopEngine": "engine",
    "NativeToolCallEngine": "engine",
    "ReActLoopEngine": "engine",
    "LoopConfig": "config",
    "BrainError": "errors",
    "ConfigError": "errors",
    "PluginNotFound": "errors",
    "BrainReply": "messages",
    "StepEvent": "events",
    "OpenAIBrain": "brain",
    "ScriptedBrain": "testing",
    "function_toolbox": "function_tools",
    "toolbox_from_functions": "function_tools",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'ovos_agentic_loop' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ovos_agentic_loop.{module}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)
