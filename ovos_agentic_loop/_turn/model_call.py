"""THE model call of every loop, and what a turn sends with it: the transcript as the brain takes
it, the tools it offers; the warm-up that fills the prompt cache. What of a reply is said is the
turn's speaker's (``speaker``)."""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._text.language import answer_language_line
from ovos_agentic_loop._text.numbers import said_in_digits
from ovos_agentic_loop._text.protocol import parse_reply
from ovos_agentic_loop._turn.brain_call import call_brain
from ovos_agentic_loop._turn.speaker import Pass, Say
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop._turn.tool_steps import while_calls_are_written
from ovos_agentic_loop._turn.transcript import rendered
from ovos_agentic_loop.events import ModelCall
from ovos_agentic_loop.messages import CallNamed

__all__ = ["STOP_SEQUENCES", "ask_with_tools", "brain_messages", "call", "offered_specs", "warm_up"]

STOP_SEQUENCES = ["\nObservation:", "Observation:"]


def ask_with_tools(turn: TurnState, *, stream: bool) -> Generator[str, None, AgentMessage]:
    """One ReAct model call with the tools; while streaming, the final-answer part is yielded.

    A reply the table of reactions may still send back (a calculation, an unread file, a result
    not stated yet) is not spoken while it streams: it is said once no rule that holds the stream
    may apply to the text written so far (a result stated), or whole once it stands. Once the reply
    names a tool in a call it is still writing, the progress line about it is armed until the reply
    ends (``tool_steps.while_calls_are_written``)."""
    view = turn.view()
    tools = offered_specs(turn)
    with while_calls_are_written(turn) as calling:
        say = Say(
            Pass(),
            hold=turn.rules.may_apply(view),
            release=lambda written: not turn.rules.may_apply(view.with_answer(written)),
            tools=turn.setup.toolset.names,
            calling=calling,
        )
        messages = brain_messages(turn)
        return (yield from call(turn, messages, stream=stream, tools=tools, say=say, counted=True))


def call(
    turn: TurnState,
    messages: list[AgentMessage],
    *,
    stream: bool,
    tools: list[dict[str, Any]] | None,
    say: Say | None,
    counted: bool,
    stop: bool = True,
    response_format: dict[str, Any] | None = None,
) -> Generator[str, None, AgentMessage]:
    """THE model call of every loop: bounded by the turn's deadline, counted, a step event. ``say``
    (None: nothing) is how the turn's speaker speaks the reply; ``response_format``: the JSON
    schema the reply must match (the decision step)."""
    started = time.monotonic()
    utterance = turn.speaker.reply(say)
    reply: AgentMessage | None = None
    for item in _brain_stream(turn, messages, stream, tools, stop, response_format):
        if isinstance(item, AgentMessage):
            reply = item
        elif out := utterance.hear(item):
            yield out
    assert reply is not None  # call_brain always ends with the message or raises
    yield from utterance.end(lambda: _makes_calls(turn, reply))
    turn.count.used += 1 if counted else 0
    _emit_model_call(turn, reply, started, utterance.spoken_chars)
    return reply


def _brain_stream(
    turn: TurnState,
    messages: list[AgentMessage],
    stream: bool,
    tools: list[dict[str, Any]] | None,
    stop: bool,
    response_format: dict[str, Any] | None,
) -> Iterator[str | CallNamed | AgentMessage]:
    """The brain's deltas (and its native calls' names), then its message, within the turn's deadline."""
    return call_brain(
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
    )


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


def offered_specs(turn: TurnState) -> list[dict[str, Any]] | None:
    """The native tools of a model call: every tool, or this turn's shortlist; None in text mode."""
    if turn.setup.text_mode:
        return None
    if turn.offered is None:
        return turn.setup.toolset.wire_specs or None
    return turn.offered.wire_specs()


def brain_messages(turn: TurnState) -> list[AgentMessage]:
    """The transcript as this brain takes it: text-protocol form and/or system folded in, what the
    user said as the model reads it best (``_said``), and after the question what the turn tells
    the model of the earlier turns (``after_question``)."""
    language = answer_language_line(turn.lang)
    transcript = [
        _said(m.content, turn.lang, language)
        if at < turn.question_end and m.role == MessageRole.USER and m.content
        else m
        for at, m in enumerate(turn.transcript)
    ]
    if turn.after_question:  # after the question, before anything the turn adds
        transcript.insert(turn.question_end, AgentMessage(MessageRole.USER, "\n".join(turn.after_question)))
    return turn.for_brain(rendered(transcript) if turn.setup.text_mode else transcript)


def _said(text: str, lang: str | None, language: str | None) -> AgentMessage:
    """One thing the user said, as the model is sent it: its spelled numbers in digits (the bundled
    model copies digits right and reads spelled ones wrong), then the line asking for the answer
    in the session's language. The line follows each of the user's messages, not the system
    prompt, so a language costs no re-read of the tools after it (most of the prompt); and every
    earlier question keeps it, so a follow-up's prompt begins as the turn before it ended and the
    server reads only what is new."""
    text = said_in_digits(text, lang)
    return AgentMessage(MessageRole.USER, f"{text}\n\n({language})" if language else text)
