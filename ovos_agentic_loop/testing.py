"""A scripted fake brain for tests: no network, no model, fully deterministic.

    brain = ScriptedBrain([
        tool_call("add", a=1, b=2),           # the model asks for a tool
        "The answer is 3.",                    # then answers
    ])
    engine = load_chat_plugin("ovos-react-loop")(config={...})
    engine.set_brain(brain)
    ...
    brain.assert_complete()                    # every scripted reply was used

A reply may be a ``str`` (assistant content), an ``AgentMessage``, an exception
instance (raised from that call), a callable ``(call: BrainCall) -> str |
AgentMessage`` for replies that depend on what the loop sent, or
``in_chunks("Let me ", "check. {", ...)``: a reply a streaming call delivers in
exactly those deltas. Other replies stream in deltas of ``chunk_size`` characters
(default 4). ``chunk_delay`` (seconds, default 0) is waited before each delta of a streamed
reply: a model that writes slowly, as one on a CPU does. A streamed reply with native tool calls
then names each call (``messages.CallNamed``) and writes its arguments, a delay each, as
llama-server streams a call.
"""

from __future__ import annotations

import copy
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Union

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import AgentMessage, ChatEngine, MessageRole, ToolCall

from ovos_agentic_loop.messages import CallNamed

__all__ = [
    "BrainCall",
    "Chunked",
    "ScriptedBrain",
    "ScriptedReply",
    "in_chunks",
    "tool_call",
    "tool_calls",
]


@dataclass(frozen=True)
class Chunked:
    """A scripted reply streamed in exactly these deltas (``message`` carries any native tool calls)."""

    chunks: tuple[str, ...]
    message: AgentMessage | None = None


def in_chunks(*chunks: str, message: AgentMessage | None = None) -> Chunked:
    """A reply whose content is ``"".join(chunks)``, streamed one chunk per delta."""
    return Chunked(tuple(chunks), message)


# A type alias evaluated at runtime on Python 3.10, so typing.Union (not "|" with a string forward reference).
ScriptedReply = Union[  # noqa: UP007
    str, AgentMessage, Chunked, BaseException, Callable[["BrainCall"], Union[str, AgentMessage]]  # noqa: UP007
]


@dataclass
class BrainCall:
    """One call the loop made to the brain, as the brain received it."""

    messages: list[AgentMessage]
    tools: list[dict[str, Any]]
    stop: list[str] | None = None
    session_id: str = "default"
    streamed: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    #: The JSON schema the reply had to match (the loop's decision step), when the brain takes one.
    response_format: dict[str, Any] | None = None

    @property
    def last(self) -> AgentMessage:
        return self.messages[-1]

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.tools]


def tool_calls(*calls: tuple[str, dict[str, Any]], content: str = "") -> AgentMessage:
    """An assistant message carrying several native tool calls, in order."""
    return AgentMessage(
        role=MessageRole.ASSISTANT,
        content=content,
        tool_calls=[ToolCall(id=f"call_{uuid.uuid4().hex[:8]}", name=n, arguments=a) for n, a in calls],
    )


def tool_call(name: str, /, **arguments: Any) -> AgentMessage:
    """An assistant message carrying one native tool call."""
    return tool_calls((name, arguments))


class ScriptedBrain(ChatEngine):
    """A ``ChatEngine`` that answers from a script and records every call.

    Thread-safe: concurrent sessions take replies in the order they call. Running
    out of replies fails the test loudly instead of inventing an answer.
    """

    def __init__(
        self,
        replies: Iterable[ScriptedReply] = (),
        *,
        supports_tools: bool = True,
        accepts_stop: bool = True,
        config: dict[str, Any] | None = None,
        chunk_size: int = 4,
        accepts_response_format: bool = False,
        chunk_delay: float = 0.0,
    ) -> None:
        super().__init__(config=config or {})
        if chunk_size < 1:
            raise ValueError(f"ScriptedBrain: chunk_size must be at least 1, got {chunk_size}")
        if chunk_delay < 0:
            raise ValueError(f"ScriptedBrain: chunk_delay must not be negative, got {chunk_delay}")
        self.chunk_size = chunk_size
        self.chunk_delay = chunk_delay
        self.supports_tools = supports_tools
        self.accepts_stop = accepts_stop
        self._replies: list[ScriptedReply] = list(replies)
        self.calls: list[BrainCall] = []
        self._lock = threading.Lock()
        if not accepts_stop:
            # Like many third-party plugins: no `stop` parameter at all (the loop inspects the signature).
            self.continue_chat = self._continue_chat_without_stop  # type: ignore[method-assign,assignment]
        elif accepts_response_format:
            # Like ovos-openai-brain: it takes ``response_format``, so the loop's decision step can
            # constrain a reply (the script then gives the JSON the schema admits).
            self.continue_chat = self._continue_chat_constrained  # type: ignore[method-assign]

    # -- script -------------------------------------------------------------
    def add(self, *replies: ScriptedReply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._replies)

    def assert_complete(self) -> None:
        """Fail when scripted replies were never asked for."""
        if self._replies:
            raise AssertionError(
                f"ScriptedBrain: {len(self._replies)} scripted replies unused: {self._replies!r}"
            )

    def _next(self, call: BrainCall) -> AgentMessage:
        return self._next_streamed(call)[0]

    def _next_streamed(self, call: BrainCall) -> tuple[AgentMessage, list[str] | None]:
        """The next reply, and its deltas when the script gave them (``in_chunks``)."""
        with self._lock:
            self.calls.append(call)
            if not self._replies:
                raise AssertionError(
                    f"ScriptedBrain ran out of replies on call {len(self.calls)}; last message: {call.last!r}"
                )
            reply = self._replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Chunked):
            content = "".join(reply.chunks)
            if reply.message is None:
                return AgentMessage(role=MessageRole.ASSISTANT, content=content), list(reply.chunks)
            message = copy.copy(reply.message)
            message.content = content
            return message, list(reply.chunks)
        if callable(reply):
            reply = reply(call)
        if isinstance(reply, str):
            return AgentMessage(role=MessageRole.ASSISTANT, content=reply), None
        return reply, None

    def _record(
        self, messages: list[AgentMessage], tools: Any, stop: list[str] | None, **kw: Any
    ) -> BrainCall:
        specs = ToolBox.normalize_tools(tools) if tools else []
        return BrainCall(messages=copy.deepcopy(list(messages)), tools=specs, stop=stop, **kw)

    # -- ChatEngine -----------------------------------------------------------
    def continue_chat(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
        stop: list[str] | None = None,
    ) -> AgentMessage:
        return self._next(self._record(messages, tools, stop, session_id=session_id))

    def _continue_chat_without_stop(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
    ) -> AgentMessage:
        return self._next(self._record(messages, tools, None, session_id=session_id))

    def _continue_chat_constrained(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
        stop: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> AgentMessage:
        call = self._record(messages, tools, stop, session_id=session_id, response_format=response_format)
        return self._next(call)

    def stream_message(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
        stop: list[str] | None = None,
    ) -> Iterator[str | CallNamed | AgentMessage]:
        """The streaming protocol of ``ovos_agentic_loop.messages``: deltas, then the message."""
        call = self._record(messages, tools, stop, session_id=session_id, streamed=True)
        message, chunks = self._next_streamed(call)
        if chunks is None:
            text, size = message.content or "", self.chunk_size
            chunks = [text[i : i + size] for i in range(0, len(text), size)]
        for chunk in chunks:
            if self.chunk_delay:
                time.sleep(self.chunk_delay)  # a model writing slowly
            yield chunk
        for tool_call in message.tool_calls or []:  # native calls: each named, then its arguments written
            if self.chunk_delay:
                time.sleep(self.chunk_delay)
            yield CallNamed(tool_call.name)
            if self.chunk_delay:
                time.sleep(self.chunk_delay)
        yield message
