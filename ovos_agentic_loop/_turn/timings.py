"""Where one turn's time went, summed from its own step events (for the ``final`` event).

An operator running several replicas wants, per turn, how long it took, how much of that was
the model and how much the tools, and how many requests it made: enough to tell a slow replica
from a slow tool without a tracing system. Everything is read from the events the turn emits
anyway, so no step needs a timer of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ovos_agentic_loop.events import ModelCall, StepEvent, ToolResult

__all__ = ["TurnTimings"]


@dataclass
class TurnTimings:
    """Running sums over a turn's ``model_call`` and ``tool_result`` events."""

    model_s: float = 0.0
    tools_s: float = 0.0  # summed over calls: calls that ran in parallel overlap
    model_calls: int = 0
    tool_calls: int = 0

    def observe(self, event: StepEvent) -> None:
        if isinstance(event, ModelCall):
            self.model_calls += 1
            self.model_s += event.duration_s
        elif isinstance(event, ToolResult):
            self.tool_calls += 1
            self.tools_s += event.duration_s

    def summary(self, total_s: float) -> dict[str, Any]:
        """The ``timings`` of a ``final`` event: seconds (4 decimals) and counts."""
        return {
            "total_s": round(total_s, 4),
            "model_s": round(self.model_s, 4),
            "tools_s": round(self.tools_s, 4),
            "model_calls": self.model_calls,
            "tool_calls": self.tool_calls,
        }
