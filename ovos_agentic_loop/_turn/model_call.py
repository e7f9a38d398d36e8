"""THE model call of every loop, and what a turn sends with it: the transcript as the brain takes
it, the tools it offers, the stream's gates; the warm-up that fills the prompt cache."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import Any, Protocol

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._text.language import answer_language_line
from ovos_agentic_loop._text.protocol import parse_reply
from ovos_agentic_loop._text.stream_gate import MAX_STREAMED_CHARS, FinalAnswerGate
from ovos_agentic_loop._turn.brain_call import call_brain
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop._turn.transcript import rendered
from ovos_agentic_loop.events import ModelCall

__all__ = ["STOP_SEQUENCES", "Gate", "Pass", "ask_with_tools", "call", "unspoken", "warm_up"]

STOP_SEQUENCES = ["\nObservation:", "Observation:"]


class Gate(Protocol):
    """What of a reply's streamed text a caller of :meth:`Turn.ask` lets through."""

    def feed(self, delta: str) -> str: ...


class Pass:
    """The gate of a reply whose every part may be an answer: the turn's own gate alone decides."""

    def feed(self, delta: str) -> str:
        return delta


def ask_with_tools(turn: TurnState, *, stream: bool) -> Generator[str, None, AgentMessage]:
    """One ReAct model call with the tools; while streaming, the final-answer part is yielded.

    A reply the table of reactions may still send back (a calculation, an unread file, a result
    not stated yet) is not spoken while it streams: it is said once no rule that holds the stream
    may apply to the text written so far (a result stated), or whole once it stands."""
    view = turn.view()
    hold = turn.rules.may_apply(view)
    return (
        yield from call(
            turn,
            brain_messages(turn),
            stream=stream,
            tools=offered_specs(turn),
            gate=Pass(),
            counted=True,
            hold=hold,
            release=lambda written: not turn.rules.may_apply(view.with_answer(written)),
        )
    )


def call(
    turn: TurnState,
    messages: list[AgentMessage],
    *,
    stream: bool,
    tools: list[dict[str, Any]] | None,
    gate: Gate | None,
    counted: bool,
    stop: bool = True,
    hold: bool = False,
    release: Callable[[str], bool] | None = None,
    response_format: dict[str, Any] | None = None,
) -> Generator[str, None, AgentMessage]:
    """THE model call of every loop: bounded by the turn's deadline, counted, a step event.

    ``gate`` decides what of the streamed text may be said, before the turn's own gate (protocol
    is never spoken); None says nothing and leaves the turn's gate as it was. ``hold``: this
    reply is the turn's to speak, but only once the turn is over (``unspoken``), or once ``release``
    says so of the reply written so far (its deltas then go through the gates as if never held).
    ``response_format``: the JSON schema the reply must match (the decision step)."""
    started = time.monotonic()
    speaker = FinalAnswerGate(turn.speech)
    if gate is not None:
        turn.gate = speaker
    reply: AgentMessage | None = None
    written = ""  # the reply so far, while it is held and may be released
    for item in call_brain(
        turn.setup.brain,
        messages,
        deadline=turn.deadline,
        stream=stream,
        tools=tools,
        stop=STOP_SEQUENCES if stop and turn.setup.text_mode else None,
        session_id=turn.session_id,
        session_key=turn.session_key,
        interrupt=turn.interrupt,
        lang=turn.lang,
        units=turn.units,
        response_format=response_format,
    ):
        if not isinstance(item, str):
            reply = item
        elif gate is not None and hold:
            if release is not None and len(written) < MAX_STREAMED_CHARS:
                written += item
                if release(written):  # the rules that held it can no longer apply: say it so far
                    hold = False
                    if out := speaker.feed(gate.feed(written)):
                        yield out
        elif gate is not None and (out := speaker.feed(gate.feed(item))):
            yield out
    assert reply is not None  # call_brain always ends with the message or raises
    if gate is not None and hold and written:
        if _makes_calls(turn, reply):  # a held reply that calls: its talk is said, as if never held
            hold = False
            if out := speaker.feed(gate.feed(written)):
                yield out
        else:  # said by ``unspoken`` if the reply stands as the answer; dropped if it is sent back
            speaker.held = written
    # the reply is over: say what only waited for more text
    if gate is not None and not hold and (out := speaker.close()):
        yield out
    turn.count.used += 1 if counted else 0
    _emit_model_call(turn, reply, started, speaker.passed_chars)
    return reply


def _makes_calls(turn: TurnState, reply: AgentMessage) -> bool:
    """Whether ``reply`` calls tools (native calls, or calls the text protocol's parser finds)."""
    if reply.tool_calls:
        return True
    toolset = turn.setup.toolset
    return bool(parse_reply(reply.content or "", toolset.names, toolset.positional).calls)


def _emit_model_call(turn: TurnState, reply: AgentMessage, started: float, streamed_chars: int) -> None:
    turn.emit(
        ModelCall(
            iteration=turn.count.used,
            duration_s=round(time.monotonic() - started, 4),
            tool_calls=[c.name for c in reply.tool_calls or []],
            chars=len(reply.content or ""),
            usage=getattr(reply, "usage", None),
            timings=getattr(reply, "timings", None),
            streamed_chars=streamed_chars,
        )
    )


def warm_up(turn: TurnState) -> None:
    """Get this turn's system prompt and tools into the brain's prompt cache; no tool runs.

    A brain with ``prefill`` (``ovos-openai-brain``) reads the prompt and writes no answer;
    another brain gets one ordinary call whose (short) reply is ignored.
    """
    tools = offered_specs(turn)
    stop = STOP_SEQUENCES if turn.setup.text_mode else None
    prefill = getattr(turn.setup.brain.engine, "prefill", None)
    if callable(prefill):
        prefill(brain_messages(turn), session_id=turn.session_id, tools=tools, stop=stop)
        return
    for _ in call_brain(
        turn.setup.brain,
        brain_messages(turn),
        deadline=turn.deadline,
        stream=False,
        tools=tools,
        stop=stop,
        session_id=turn.session_id,
        lang=None,
        units=None,
    ):
        pass


def unspoken(turn: TurnState, final: AgentMessage) -> str:
    """What a stream still has to say once the turn is over: the rest of its final answer."""
    gate = turn.gate if turn.gate is not None else FinalAnswerGate(turn.speech)
    return gate.finish(final.content or "")


def offered_specs(turn: TurnState) -> list[dict[str, Any]] | None:
    """The native tools of a model call: every tool, or this turn's shortlist; None in text mode."""
    if turn.setup.text_mode:
        return None
    if turn.offered is None:
        return turn.setup.toolset.wire_specs or None
    return turn.offered.wire_specs()


def brain_messages(turn: TurnState) -> list[AgentMessage]:
    """The transcript as this brain takes it: text-protocol form and/or system folded in, and
    the user's question followed by the line asking for the answer in its language (after the
    system prompt and tools, so a language costs no re-read of them: they are most of the prompt)."""
    transcript = list(turn.transcript)
    language = answer_language_line(turn.lang)
    asked = max((i for i, m in enumerate(transcript) if m.role == MessageRole.USER), default=None)
    if language and asked is not None and asked < turn.question_end:
        question = transcript[asked]
        transcript[asked] = AgentMessage(MessageRole.USER, f"{question.content}\n\n({language})")
    return turn.for_brain(rendered(transcript) if turn.setup.text_mode else transcript)
