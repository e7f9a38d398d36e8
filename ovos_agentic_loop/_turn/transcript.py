"""A turn's messages as a brain takes them.

The transcript is always kept in native form (assistant ``tool_calls`` + TOOL messages); for a
brain that speaks the text protocol it is rendered into ``Action:`` / ``Observation:`` text just
before each call, and for a brain that drops system messages the system text is folded into the
first user message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._text.protocol import render_call
from ovos_agentic_loop._tools.observations import Status, ToolOutcome

__all__ = ["conversation", "fold_system", "forced_messages", "persona_instructions", "rendered"]


def persona_instructions(incoming: Sequence[AgentMessage], system_prompt: str | None) -> list[str]:
    """The caller's system messages plus the persona's ``system_prompt`` (once)."""
    parts = [m.content for m in incoming if m.role == MessageRole.SYSTEM and m.content]
    persona = (system_prompt or "").strip()
    if persona and not any(persona in p for p in parts):
        parts.insert(0, persona)
    return parts


def conversation(messages: Sequence[AgentMessage]) -> list[AgentMessage]:
    """The user's and assistant's plain text messages (no tool calls, no results)."""
    return [
        m
        for m in messages
        if m.role in (MessageRole.USER, MessageRole.ASSISTANT) and not m.tool_calls and m.content
    ]


def forced_messages(
    persona: list[str],
    incoming: Sequence[AgentMessage],
    transcript: Sequence[AgentMessage],
    outcomes: Mapping[int, ToolOutcome],
    instruction: str,
) -> list[AgentMessage]:
    """The last call of a turn without tools: the conversation, then the tool results as plain
    text. Small models shown their own tool-call history keep writing calls even when told not
    to; shown the results as a note, they answer."""
    calls = {c.id: c for m in transcript if m.tool_calls for c in m.tool_calls}
    results: dict[str, str] = {}  # the same call made twice is listed once
    for at, message in enumerate(transcript):
        outcome = outcomes.get(at)
        if message.role != MessageRole.TOOL or (
            outcome is not None and outcome.status is Status.NOT_RUN_AGAIN
        ):
            continue  # a reminder holds no result
        call = outcome.call if outcome is not None else calls.get(message.tool_call_id or "")
        if call is None:
            continue
        arguments = json.dumps(call.arguments, ensure_ascii=False, default=str)
        results[f"- {call.name}({arguments}) returned: "] = message.content
    note = "".join(f"{head}{body}\n" for head, body in results.items())
    text = (f"Results of the tools you called:\n{note}\n" if note else "") + instruction
    messages = [AgentMessage(MessageRole.SYSTEM, "\n\n".join(persona))] if persona else []
    return [*messages, *conversation(incoming), AgentMessage(MessageRole.USER, text)]


def rendered(transcript: Sequence[AgentMessage]) -> list[AgentMessage]:
    """The transcript in text-protocol form, for a brain without native tool calling."""
    out: list[AgentMessage] = []
    for message in transcript:
        if message.role == MessageRole.ASSISTANT and message.tool_calls:
            text = message.content or "\n".join(render_call(c.name, c.arguments) for c in message.tool_calls)
            out.append(AgentMessage(MessageRole.ASSISTANT, text))
        elif message.role == MessageRole.TOOL:
            observation = f"Observation: {message.content}"
            if out and out[-1].role == MessageRole.USER and out[-1].content.startswith("Observation"):
                out[-1] = AgentMessage(MessageRole.USER, f"{out[-1].content}\n{observation}")
            else:
                out.append(AgentMessage(MessageRole.USER, observation))
        else:
            out.append(message)
    return out


def fold_system(messages: list[AgentMessage]) -> list[AgentMessage]:
    """For a brain that would drop it: the system message goes into the first user message."""
    if not messages or messages[0].role != MessageRole.SYSTEM:
        return messages
    system, rest = messages[0].content, list(messages[1:])
    for i, message in enumerate(rest):
        if message.role == MessageRole.USER:
            rest[i] = AgentMessage(MessageRole.USER, f"{system}\n\n---\n\n{message.content}")
            return rest
    return [AgentMessage(MessageRole.USER, system), *rest]
