"""Message types the loop exchanges with brains, beyond OPM's ``AgentMessage``.

OPM's ``AgentMessage`` is the contract every chat plugin speaks. A brain may return
the richer :class:`BrainReply` (a subclass, so any caller that expects an
``AgentMessage`` still works) to hand the loop usage and server timings for the
step log.

Streaming protocol (optional, duck-typed): a brain that defines

    stream_message(messages, session_id="default", lang=None, units=None,
                   tools=None, stop=None) -> Iterator[str | AgentMessage]

yields text deltas (``str``) as the model writes them and, last, exactly one
complete ``AgentMessage`` (content and any ``tool_calls``). It may also yield a
:class:`CallNamed` as soon as a native tool call's name is written, before its
arguments: a voice can then say what it is doing while the model still writes. The loop uses it to
speak the first sentence of a final answer while the rest is still generated.
A brain whose ``continue_chat`` accepts a ``stop`` keyword gets the text-protocol
stop sequences through it; one whose ``continue_chat`` and ``stream_message`` accept
``deadline`` gets the turn's deadline (``time.monotonic()`` seconds) to bound its
requests and retries by.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

__all__ = ["RAW_ARGUMENTS_KEY", "AgentMessage", "BrainReply", "CallNamed", "MessageRole", "ToolCall"]

RAW_ARGUMENTS_KEY = "__raw_arguments__"
"""When the model's argument text is not a JSON object, a brain sets ``ToolCall.arguments`` to
``{RAW_ARGUMENTS_KEY: "<the text>"}``: the loop then tells the model its arguments were not valid
JSON (instead of running the tool), and the brain sends the text back as the model wrote it."""


@dataclass
class BrainReply(AgentMessage):
    """An assistant ``AgentMessage`` with what the server said about the call.

    ``usage``: token counts as the server reported them (``prompt_tokens``,
    ``completion_tokens``, ...). ``timings``: server-side timings (llama-server's
    ``timings`` block) or ``None``. ``finish_reason``: ``stop``, ``length``,
    ``tool_calls``, ... as reported.
    """

    usage: dict[str, Any] | None = field(default=None)
    timings: dict[str, Any] | None = field(default=None)
    finish_reason: str | None = field(default=None)


@dataclass(frozen=True)
class CallNamed:
    """A streamed reply's native tool call has its name: the model is writing a call to ``name``
    (its arguments follow). Optional in the streaming protocol; a consumer that wants only text
    skips it."""

    name: str
