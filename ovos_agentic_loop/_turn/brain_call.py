"""One bounded call to the brain: plain or streamed, never waiting past the turn's deadline.

The brain runs in a worker thread that feeds a queue; the loop reads the queue with
the time left in the turn. A brain that hangs therefore costs at most the budget,
and its late reply is dropped. A brain failure becomes a :class:`BrainError` that
names the brain (unless the brain raised one already, which says more).

A brain whose ``continue_chat`` / ``stream_message`` takes a ``deadline`` keyword gets
the turn's deadline (a ``time.monotonic()`` value), so it can bound its own retries and
waits (``Retry-After``) by it instead of sleeping past the point where nobody listens.

At the deadline two threads notice the same event: the loop's wait runs out, and the brain's
client, bounded by the same deadline, times out. What the turn says must not depend on which
wakes first, so it is decided by values: a failure the brain reports as the deadline
(:class:`BrainDeadlineReached`), or any failure that happened at or after the deadline (the loop
had stopped waiting by then), is :class:`BrainCallTimeout`, exactly as the loop's own wait running
out is. Only a failure before the deadline is the brain's.
"""

from __future__ import annotations

import inspect
import queue
import time
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, ChatEngine, MessageRole
from ovos_utils.log import LOG

from ovos_agentic_loop._runtime import cancellation as cancellation
from ovos_agentic_loop._runtime.cancellation import CancelScope, TurnInterrupted
from ovos_agentic_loop._runtime.daemon_pool import shared_pool
from ovos_agentic_loop.errors import BrainDeadlineReached, BrainError, ShuttingDown
from ovos_agentic_loop.messages import CallNamed

__all__ = ["BrainCallTimeout", "BrainHandle", "call_brain"]


class BrainCallTimeout(TimeoutError):
    """The turn's time budget ran out while the brain was still answering.

    ``waited``: the seconds this call waited for the brain (None for a sub-run of a reasoning
    loop that ended on the budget); ``limit``: the setting that fired, always ``time_budget``.
    """

    limit = "time_budget"

    def __init__(self, brain: str = "", waited: float | None = None) -> None:
        spent = f" after waiting {waited:.1f} s" if waited is not None else ""
        of = f" for brain {brain!r}" if brain else ""
        super().__init__(f"the turn's time_budget ran out{spent}{of}")
        self.brain = brain
        self.waited = waited


@dataclass(frozen=True)
class _Failed:
    """What the brain's thread raised, and when (``time.monotonic()``): the value that decides
    whether it failed before the deadline (its own failure) or at it (the turn's time ran out)."""

    error: BaseException
    at: float


@dataclass(frozen=True)
class BrainHandle:
    """A brain plus what it accepts, found once when the brain is set (not on every call)."""

    engine: ChatEngine
    name: str
    supports_tools: bool
    accepts_stop: bool
    can_stream: bool
    #: The brain takes ``deadline=`` (``time.monotonic()`` seconds) and bounds its retries by it.
    accepts_deadline: bool = False
    #: The brain takes ``session_key=`` (``_runtime.session_key``) and sends it with its requests.
    accepts_session_key: bool = False
    #: The brain takes ``response_format=`` (a JSON schema the reply must match): the decision step.
    accepts_response_format: bool = False
    #: False for a brain that drops system messages (ovos-chat-openai-plugin without
    #: ``allow_system_prompts``): the loop then folds its instructions into the first user message.
    keeps_system: bool = True

    @classmethod
    def wrap(cls, engine: ChatEngine, name: str) -> BrainHandle:
        try:
            parameters = inspect.signature(engine.continue_chat).parameters
        except (TypeError, ValueError):
            parameters = {}  # type: ignore[assignment]
        return cls(
            engine=engine,
            name=name,
            supports_tools=bool(getattr(engine, "supports_tools", False)),
            accepts_stop="stop" in parameters,
            accepts_deadline="deadline" in parameters,
            accepts_session_key="session_key" in parameters,
            accepts_response_format="response_format" in parameters,
            can_stream=callable(getattr(engine, "stream_message", None)),
            keeps_system=getattr(engine, "allow_system", True) is not False,
        )

    @classmethod
    def checked(cls, engine: ChatEngine, name: str, *, native: bool, engine_name: str) -> BrainHandle:
        """:meth:`wrap`, with a warning for each thing the brain lacks that the loop then works around
        (``native``: the persona asks for native tool calls)."""
        handle = cls.wrap(engine, name)
        if not handle.keeps_system:
            LOG.warning(
                f"{engine_name}: brain {name!r} drops system messages ('allow_system_prompts' is off), "
                "so the loop puts its instructions into the first user message instead; set "
                f'"allow_system_prompts": true in the {name!r} section to give them their proper place'
            )
        if native and not handle.supports_tools:
            LOG.warning(
                f"{engine_name}: mode 'native' but brain {name!r} has no native tool calling "
                "(supports_tools is False); using the text protocol instead"
            )
        return handle


_DONE = object()
_INTERRUPTED = object()


def _pass_shutdown(future: Future[None], items: queue.SimpleQueue[Any]) -> None:
    # ``work`` reports its own outcome through ``items``; only a future failed by the pool's
    # exit handling (the work never ran, or still runs) has something left to tell.
    if not future.cancelled() and isinstance(future.exception(), ShuttingDown):
        items.put(future.exception())


def call_brain(
    brain: BrainHandle, messages: list[AgentMessage], **options: Any
) -> Iterator[str | CallNamed | AgentMessage]:
    """Yield text deltas and each native call's name (``CallNamed``) when streaming, and, last,
    the complete reply message.

    A call the loop stops waiting for (its deadline passed, the caller stopped reading, the user
    interrupted the turn: ``interrupt``) is cancelled: a brain that supports it closes the
    request, and the server stops computing it.
    """
    scope = CancelScope()
    finished = False
    try:
        for item in _call_brain(brain, messages, scope=scope, **options):
            finished = isinstance(item, AgentMessage)  # the reply message comes last
            yield item
    finally:
        if not finished:
            scope.cancel()


def _call_brain(
    brain: BrainHandle,
    messages: list[AgentMessage],
    *,
    scope: CancelScope,
    deadline: float,
    stream: bool,
    tools: list[dict[str, Any]] | None,
    stop: list[str] | None,
    session_id: str,
    lang: str | None,
    units: str | None,
    session_key: str | None = None,
    response_format: dict[str, Any] | None = None,
    interrupt: CancelScope | None = None,
) -> Iterator[str | CallNamed | AgentMessage]:
    kwargs: dict[str, Any] = {"session_id": session_id, "lang": lang, "units": units}
    if response_format is not None and brain.accepts_response_format:
        kwargs["response_format"] = response_format
    if session_key and brain.accepts_session_key:
        kwargs["session_key"] = session_key
    if tools:
        kwargs["tools"] = tools
    if stop and brain.accepts_stop:
        kwargs["stop"] = stop
    if brain.accepts_deadline:
        kwargs["deadline"] = deadline
    # SimpleQueue: the C queue; Queue's Python-level Condition costs more on every hand-off, per step.
    items: queue.SimpleQueue[Any] = queue.SimpleQueue()
    streaming = stream and brain.can_stream

    def work() -> None:
        try:
            if streaming:
                for item in brain.engine.stream_message(messages, **kwargs):
                    items.put(item)
            else:
                items.put(brain.engine.continue_chat(messages, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the loop's thread, which raises it
            items.put(_Failed(exc, time.monotonic()))
        items.put(_DONE)

    # A call the loop stopped waiting for finishes in the background (its thread is a daemon).
    # At interpreter exit the pool fails the future: that must wake this wait too.
    future = shared_pool().submit(cancellation.run_in(scope, work))
    future.add_done_callback(lambda done: _pass_shutdown(done, items))
    if interrupt is not None:  # the user's stop wakes this wait as a reply would
        interrupt.on_cancel(items, lambda: items.put(_INTERRUPTED))
    try:
        yield from _replies(brain, items, deadline)
    finally:
        if interrupt is not None:
            interrupt.forget(items)


def _replies(
    brain: BrainHandle, items: queue.SimpleQueue[Any], deadline: float
) -> Iterator[str | CallNamed | AgentMessage]:
    """What the brain's thread hands over, until its reply: the deadline and an interruption decide
    by what is read, never by which thread woke first."""
    reply: AgentMessage | None = None
    started = time.monotonic()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BrainCallTimeout(brain.name, time.monotonic() - started)
        try:
            item = items.get(timeout=remaining)
        except queue.Empty:
            raise BrainCallTimeout(brain.name, time.monotonic() - started) from None
        if item is _DONE:
            break
        if item is _INTERRUPTED:
            raise TurnInterrupted()
        if isinstance(item, _Failed):
            error = item.error
            if isinstance(error, BrainDeadlineReached) or (
                item.at >= deadline and not isinstance(error, ShuttingDown)
            ):
                raise BrainCallTimeout(brain.name, item.at - started) from error
            if isinstance(error, (BrainError, ShuttingDown)):
                raise error
            raise BrainError(f"brain {brain.name!r} failed: {type(error).__name__}: {error}") from error
        if isinstance(item, ShuttingDown):  # the pool's exit handling (``_pass_shutdown``)
            raise item
        if isinstance(item, AgentMessage):
            reply = item
        elif isinstance(item, CallNamed) or (isinstance(item, str) and item):
            yield item
    if reply is None:
        raise BrainError(f"brain {brain.name!r} returned no message")
    if reply.role != MessageRole.ASSISTANT:
        reply.role = MessageRole.ASSISTANT
    yield reply
