"""How a turn ends: the ``final`` event with its answer, a streamed answer cut short with a sentence
that says so, and the caller's tool calls handed back."""

from __future__ import annotations

import time

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop.events import Final, Notice

__all__ = ["answer_begun", "cut_short", "finish", "hand_to_caller", "interrupted"]


def finish(turn: TurnState, answer: str, reason: str, *, content: str | None = None) -> AgentMessage:
    """The ``final`` event with ``answer``; the message holds ``content`` (the question with its
    mark) where given, else ``answer``."""
    turn.ending = reason
    turn.emit(
        Final(
            answer=answer,
            reason=reason,
            iterations=turn.count.used,
            duration_s=round(time.monotonic() - turn.started, 4),
            rules=list(turn.limits.nudges.fired),
        )
    )
    return AgentMessage(MessageRole.ASSISTANT, answer if content is None else content)


def answer_begun(turn: TurnState) -> bool:
    """True once part of the current reply's answer went out to a listener."""
    return bool(turn.speaker.spoken())


def cut_short(turn: TurnState, reason: str, note: str) -> AgentMessage:
    """A streamed answer that cannot be finished ends with a sentence that says so, never silently.

    The final answer is what was said plus the note; the stream speaks what it adds to what
    was said (``Speaker.rest``): the note.
    """
    part = turn.speaker.spoken()
    said = part.rstrip()
    turn.emit(Notice(message=f"the streamed answer was cut short ({reason}) after {len(said)} chars"))
    # A line break ends the sentence being spoken; "…" marks one that was cut mid-way.
    tail = "\n" if not said or said.endswith((".", "!", "?", "…")) else "…\n"
    return finish(turn, f"{part}{tail}{note}", reason)


def interrupted(turn: TurnState) -> AgentMessage:
    """The user interrupted the turn: its answer is what was already said (nothing, before the
    answer began), and nothing more is said; the ``final`` event's reason is ``stopped``."""
    return finish(turn, turn.speaker.spoken(), "stopped")


def hand_to_caller(turn: TurnState, calls: list[ToolCall]) -> AgentMessage:
    turn.ending = "caller_tools"
    turn.emit(
        Final(answer="", reason="caller_tools", calls=[c.name for c in calls], iterations=turn.count.used)
    )
    return AgentMessage(MessageRole.ASSISTANT, "", tool_calls=calls)
