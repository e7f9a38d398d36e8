"""Acting on a decision that touches the transcript: a corrective message, calls answered without
running (a reminder, what to check), and the tool calls run, each outcome beside its TOOL message;
and the progress line about a call, armed while it runs or while the model still writes it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._memory.records import kept_result
from ovos_agentic_loop._runtime.cancellation import TurnInterrupted
from ovos_agentic_loop._text.progress import progress_line
from ovos_agentic_loop._text.protocol import parse_reply
from ovos_agentic_loop._tools.observations import ToolLimit, ToolOutcome, held_back, not_run_again, run_calls
from ovos_agentic_loop._tools.selection import FIND_TOOLS
from ovos_agentic_loop._turn.covered import COVERED, covered
from ovos_agentic_loop._turn.progress import while_tools_run
from ovos_agentic_loop._turn.speaker import Calling
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop.events import Notice, Progress, ToolCallStep, ToolResult

__all__ = [
    "READ_AGAIN",
    "correct",
    "read_again",
    "recheck",
    "remind",
    "run_tools",
    "while_calls_are_written",
]


def read_again(turn: TurnState) -> None:
    """The files the conversation's earlier turns read (its reader tool's remembered calls) are read
    again before the model is asked: a file is a fact that can change ("I changed the list, how many
    things are on it now" was answered from the old list, the model never reading it again). A
    result that changed replaces the remembered one, and is also this turn's first call, after the
    question, with the model told so (``after_question``): told only, with the new result in place
    far above, the stock template still counted the old list. One that did not change stays as it
    was, byte for byte, so the server's prompt cache still holds the conversation."""
    found = turn.setup.toolset.with_role("reader") if turn.earlier_calls else None
    if found is None:
        return
    asked = turn.transcript[: turn.question_end]
    reads = {
        c.id: c
        for m in asked
        if m.role == MessageRole.ASSISTANT
        for c in m.tool_calls or []
        if c.id in turn.earlier_calls and c.name == found[0].name
    }
    results = {at: reads[m.tool_call_id] for at, m in enumerate(asked) if m.tool_call_id in reads}
    changed: list[ToolOutcome] = []
    for (at, call), outcome in zip(results.items(), _execute(turn, list(results.values())), strict=True):
        now = kept_result(outcome.observation)
        if now != turn.transcript[at].content:
            turn.emit(Notice(message=f"read again, changed since: {call.name} {call.arguments}"))
            turn.transcript[at] = replace(turn.transcript[at], content=now)
            fresh = ToolCall(
                id=f"{READ_AGAIN_ID}{len(changed)}", name=call.name, arguments=dict(call.arguments)
            )
            changed.append(replace(outcome, call=fresh))
    if not changed:
        return
    paths = [c.call.arguments.get(found[1].argument, "") for c in changed]
    named = ", ".join(dict.fromkeys(str(p) for p in paths if p)) or "a file"
    turn.after_question.append(READ_AGAIN.format(files=named, tool=found[0].name))
    turn.transcript.append(AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[c.call for c in changed]))
    for outcome in changed:  # a call of this turn like any other: hosts and logs see it made
        _announce(turn, outcome.call)
        _report(turn, outcome)
        turn.add_result(replace(outcome, note=turn.history.record(outcome)))
    # an earlier turn's call, refreshed: the rules read it as a result the conversation holds, not
    # as a call the model made for this question (an answer said again word for word is still one)
    turn.earlier_calls = turn.earlier_calls | {c.call.id for c in changed}


#: Told after the question when a file an earlier turn read has changed since.
READ_AGAIN = (
    "Note: {files} changed since it was read earlier in this conversation; it was read again for this "
    "question ({tool}, below). Answer from what it holds now, not from the earlier answers."
)
#: The ids of the calls that read a changed file again, made by the loop.
READ_AGAIN_ID = "call_read_again_"


def correct(turn: TurnState, message: str, notice: str, kept: str | None) -> None:
    turn.emit(Notice(message=notice))
    if kept is not None:
        turn.transcript.append(AgentMessage(MessageRole.ASSISTANT, kept))
    turn.transcript.append(AgentMessage(MessageRole.USER, message))


def remind(turn: TurnState, calls: list[ToolCall], text: str) -> None:
    """Answer calls that all repeat calls which succeeded this turn without running them."""
    turn.emit(Notice(message=f"not run again (results already given): {[c.name for c in calls]}"))
    turn.transcript.append(AgentMessage(MessageRole.ASSISTANT, text, tool_calls=calls))
    for call in calls:
        turn.add_result(not_run_again(call, turn.history.result_of(call)))


def recheck(turn: TurnState, calls: list[ToolCall], message: str, text: str, held: frozenset[int]) -> None:
    """Answer the calls of a reply that ``held`` names (their positions) with what to check in them,
    without running them; the reply's other calls run (asked for 50 sums, one with a number
    nobody said holds back that one, not the 49 others)."""
    kept_back = [c.name for i, c in enumerate(calls) if i in held]
    turn.emit(Notice(message=f"not run, to be checked: {kept_back}: {message}"))
    turn.transcript.append(AgentMessage(MessageRole.ASSISTANT, text, tool_calls=calls))
    ran = iter(_run(turn, [c for i, c in enumerate(calls) if i not in held]))
    for i, call in enumerate(calls):
        turn.add_result(held_back(call, message) if i in held else next(ran))


def run_tools(turn: TurnState, calls: list[ToolCall], text: str) -> None:
    """Run the reply's ``calls``; when this turn's results now cover each part of a question that
    asks several things, the last one says so (``covered``)."""
    turn.transcript.append(AgentMessage(MessageRole.ASSISTANT, text, tool_calls=calls))
    outcomes = _run(turn, calls)
    if outcomes and not outcomes[-1].note:
        made = [o for o in [*turn.outcomes.values(), *outcomes] if o.call.id not in turn.earlier_calls]
        if covered(turn.asker or "", turn.lang, made):
            outcomes[-1] = replace(outcomes[-1], note=COVERED)
    for outcome in outcomes:
        turn.add_result(outcome)


def _announce(turn: TurnState, call: ToolCall) -> None:
    owner = turn.setup.toolset.owners.get(call.name)
    turn.emit(
        ToolCallStep(
            name=call.name,
            arguments=call.arguments,
            call_id=call.id,
            owner=owner.toolbox_id if owner is not None else "unknown",
        )
    )


def _report(turn: TurnState, outcome: ToolOutcome) -> None:
    turn.emit(
        ToolResult(
            name=outcome.call.name,
            call_id=outcome.call.id,
            ok=outcome.ok,
            duration_s=round(outcome.duration_s, 4),
            result=outcome.observation if outcome.ok else None,
            error=outcome.error,
        )
    )


def _run(turn: TurnState, calls: list[ToolCall]) -> list[ToolOutcome]:
    """Run ``calls`` with their step events; their outcomes, each noted by the turn's history."""
    for call in calls:
        _announce(turn, call)
    outcomes = []
    delay = _progress_delay(turn) if calls else None
    say = lambda: _say_progress(turn, calls[0].name, calls[0].arguments)  # noqa: E731 - said only with calls
    with while_tools_run(turn.progress_voice, delay, say):
        executed = _execute(turn, calls) if calls else []
    for outcome in executed:
        _report(turn, outcome)
        outcomes.append(replace(outcome, note=turn.history.record(outcome)))
    if turn.interrupt.cancelled:  # the user said stop while they ran: the turn ends here
        raise TurnInterrupted()
    return outcomes


@contextmanager
def while_calls_are_written(turn: TurnState) -> Iterator[Calling | None]:
    """Around a model call with tools: the verb its speaker tells of a call being written (the
    tool's name, the reply so far), which arms the progress line about that call; None when
    progress speech is off. The line is disarmed when the reply ends: a reply that is an answer
    says none, and the calls a reply makes arm it again as they run, due at the same moment."""
    delay = _progress_delay(turn)
    if delay is None:
        yield None
        return

    def calling(name: str, written: Callable[[], str]) -> None:
        turn.progress_voice.arm(delay, lambda: _say_progress(turn, name, _arguments(turn, name, written())))

    try:
        yield calling
    finally:
        turn.progress_voice.disarm()


def _progress_delay(turn: TurnState) -> float | None:
    cfg = turn.setup.config
    return cfg.progress_delay if cfg.progress_speech else None


def _arguments(turn: TurnState, name: str, written: str) -> dict[str, Any]:
    """The arguments of the call to ``name`` in ``written`` (a reply still being written) as far as
    they can be read: none until the call's JSON is whole, and the line is then the tool's own."""
    toolset = turn.setup.toolset
    calls = parse_reply(written, toolset.names, toolset.positional).calls
    return next((c.arguments for c in calls if c.name == name), {})


def _say_progress(turn: TurnState, name: str, arguments: Any) -> None:
    """The progress line about a call to ``name`` (``_text.progress``), as a step event a host may speak."""
    spec = turn.setup.toolset.get(name)
    line = progress_line(
        name,
        arguments if isinstance(arguments, dict) else {},
        spec.annotations if spec is not None else None,
        turn.lang,
        persona_lines=turn.setup.config.progress_lines,
        hook=turn.setup.progress_hook,
    )
    turn.emit(Progress(text=line, lang=turn.lang, tool=name))


def _execute(turn: TurnState, calls: list[ToolCall]) -> list[ToolOutcome]:
    """The outcomes of ``calls``, in order: the toolboxes' calls run concurrently, and a
    ``find_tools`` call of a turn with a shortlist is answered by the shortlist."""
    cfg = turn.setup.config
    offered = turn.offered
    found = {id(c): offered.find(c) for c in calls if offered is not None and c.name == FIND_TOOLS}
    left = turn.deadline - time.monotonic()
    # Which limit bounds the calls is decided here, once: a timeout then names it, whichever fires.
    limit: ToolLimit = "tool_timeout" if cfg.tool_timeout <= left else "time_budget"
    timeout = cfg.tool_timeout if limit == "tool_timeout" else left
    ran = run_calls(
        [c for c in calls if id(c) not in found],
        turn.setup.toolset,
        turn.setup.executor,
        timeout=max(0.01, timeout),
        limit=limit,
        max_chars=cfg.max_observation_chars,
        which=turn.setup.which,
        max_parallel=cfg.max_parallel_tools,
        interrupt=turn.interrupt,
    )
    rest = iter(ran)
    return [found[id(c)] if id(c) in found else next(rest) for c in calls]
