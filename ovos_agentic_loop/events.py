"""Step events: what the loop did, for logs, the messagebus and progress UIs.

Every step of a turn (a model call, a tool call with its arguments, its result or
error, the final answer) becomes one :class:`StepEvent`. The engine logs each one,
emits it on the messagebus as ``ovos.agentic_loop.step`` when it has a bus, and
hands it to every listener registered with ``engine.add_step_listener``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["BUS_STEP_TOPIC", "StepEvent", "StepKind", "StepListener"]

BUS_STEP_TOPIC = "ovos.agentic_loop.step"

StepKind = Literal[
    "turn_start",  # data: mode, tools (names)
    "model_call",  # data: iteration, duration_s, tool_calls (names), usage, timings, chars
    "tool_call",  # data: name, arguments, call_id, owner (toolbox id or "caller")
    "tool_result",  # data: name, call_id, ok, duration_s, result (JSON text, maybe cut) or error
    "notice",  # data: message (repetition, unparsable reply, budget, ...)
    "final",  # data: answer, iterations, duration_s, reason
]


@dataclass
class StepEvent:
    """One step of one turn. ``data`` keys per kind are listed on :data:`StepKind`."""

    kind: StepKind
    session_id: str
    data: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


StepListener = Callable[[StepEvent], None]
