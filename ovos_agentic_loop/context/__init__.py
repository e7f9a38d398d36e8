"""Context plugins: ``ovos-agents-md-context-plugin`` and the loop's ``context_plugins`` key."""

from __future__ import annotations

from ovos_agentic_loop.context.agents_md import AgentsMDContextManager, AgentsMDSettings
from ovos_agentic_loop.context.loop_context import context_prompt, with_context

__all__ = ["AgentsMDContextManager", "AgentsMDSettings", "context_prompt", "with_context"]
