"""One remembered turn: the user's words, the tool calls that ran with their results, the answer
as delivered; as JSON for the stores that keep it outside this process."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._runtime.log import ovos_logger
from ovos_agentic_loop._tools.observations import ToolOutcome

LOG = ovos_logger(__name__)


__all__ = [
    "MAX_RESULT_CHARS",
    "RememberedCall",
    "RememberedTurn",
    "dumps",
    "kept_result",
    "loads",
    "ran_calls",
]

#: A remembered result longer than this is cut: the earlier turns go into every later prompt, and
#: on a CPU each of their tokens is read again whenever the server's prompt cache lost them.
MAX_RESULT_CHARS = 1500


def kept_result(observation: str) -> str:
    """A tool result as the memory keeps it: cut at :data:`MAX_RESULT_CHARS`."""
    return observation if len(observation) <= MAX_RESULT_CHARS else observation[:MAX_RESULT_CHARS] + "…"


@dataclass(frozen=True)
class RememberedCall:
    """A tool call that ran and returned a result. ``step``: which reply of its turn made it (the
    calls of one reply are put back as one assistant message, as they were made)."""

    id: str
    name: str
    arguments: dict[str, Any]
    result: str
    step: int = 0

    def as_call(self) -> ToolCall:
        return ToolCall(id=self.id, name=self.name, arguments=dict(self.arguments))


@dataclass(frozen=True)
class RememberedTurn:
    """A turn of the conversation as the loop saw it: ``ended`` is wall-clock time (``time.time``),
    which replicas on other machines share."""

    question: str
    calls: tuple[RememberedCall, ...]
    answer: str
    ended: float

    def messages(self) -> list[AgentMessage]:
        """The turn's calls and results as a native transcript: one assistant message with the calls
        of each reply, then a TOOL message per call (``_turn.transcript`` renders them for a brain
        that speaks the text protocol, as it renders the turn's own)."""
        out: list[AgentMessage] = []
        steps = sorted({c.step for c in self.calls})
        for step in steps:
            calls = [c for c in self.calls if c.step == step]
            out.append(AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[c.as_call() for c in calls]))
            out += [AgentMessage(MessageRole.TOOL, c.result, tool_call_id=c.id, name=c.name) for c in calls]
        return out


def ran_calls(
    transcript: Sequence[AgentMessage], outcomes: Mapping[int, ToolOutcome], *, id_prefix: str
) -> tuple[RememberedCall, ...]:
    """The calls of a turn that returned a result, in order: failed, refused and repeated calls
    hold nothing a follow-up may refer to, and a call that waited for a yes never ran, so it is
    never put back where a later turn could take it for done."""
    calls: list[RememberedCall] = []
    step = -1
    for at, message in enumerate(transcript):
        if message.role == MessageRole.ASSISTANT and message.tool_calls:
            step += 1
        outcome = outcomes.get(at)
        if outcome is None or not outcome.ok:
            continue
        result = kept_result(outcome.observation)
        call = outcome.call
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        calls.append(RememberedCall(f"{id_prefix}{len(calls)}", call.name, dict(arguments), result, step))
    return tuple(calls)


def dumps(turns: Sequence[RememberedTurn]) -> str:
    return json.dumps(
        [
            {
                "question": t.question,
                "answer": t.answer,
                "ended": t.ended,
                "calls": [
                    {"id": c.id, "name": c.name, "arguments": c.arguments, "result": c.result, "step": c.step}
                    for c in t.calls
                ],
            }
            for t in turns
        ],
        ensure_ascii=False,
        default=str,
    )


def loads(text: str) -> list[RememberedTurn]:
    """The turns of ``text``; a record this version cannot read is dropped (a store written by
    another version, or damaged): the conversation then starts afresh, never with half a turn."""
    try:
        raw = json.loads(text)
        return [
            RememberedTurn(
                question=str(t["question"]),
                answer=str(t["answer"]),
                ended=float(t["ended"]),
                calls=tuple(
                    RememberedCall(
                        id=str(c["id"]),
                        name=str(c["name"]),
                        arguments=dict(c["arguments"]),
                        result=str(c["result"]),
                        step=int(c.get("step", 0)),
                    )
                    for c in t["calls"]
                ),
            )
            for t in raw
        ]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        LOG.warning(
            f"conversation memory: a stored conversation could not be read ({exc!r}); it starts afresh"
        )
        return []
