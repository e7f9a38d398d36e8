"""One step from a model's reply to a decision: the reply read (native calls or the text protocol),
an answer judged by the table of reactions, a reply's calls checked, deduplicated, held for a yes.

Deciding changes nothing (``tests/test_pure_deciding.py``): what a decision counts and the
notices it gives are its ``effects``, recorded when it is carried out (``tally``)."""

from __future__ import annotations

import uuid

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._rules.base import Decide, MakeCall, Nudge
from ovos_agentic_loop._rules.unstated import unstated_message
from ovos_agentic_loop._text.protocol import ParsedCall, ParsedReply, clean_answer, parse_reply
from ovos_agentic_loop._turn.confirming import held
from ovos_agentic_loop._turn.decisions import (
    Constrain,
    Correct,
    Decision,
    Effect,
    Finish,
    ForceAnswer,
    HandToCaller,
    Recheck,
    RunCalls,
    Tell,
    ToOffer,
    after,
    assert_never,
)
from ovos_agentic_loop._turn.repeats import signature
from ovos_agentic_loop._turn.state import TurnState

__all__ = ["EMPTY_REPLY", "REPEATED_RESULT", "UNREADABLE_CALL", "decide", "respond"]

UNREADABLE_CALL = (
    "Your last tool call could not be read: its arguments were not valid JSON. "
    "Call the tool again with its arguments as one valid JSON object, or answer directly."
)
EMPTY_REPLY = "Your reply was empty. Make the tool call you need next, or answer from the results above."
REPEATED_RESULT = (
    "Your reply only repeated a tool result. Make the tool call you need next, or answer my question "
    "with the results above, in plain sentences."
)


def decide(turn: TurnState, reply: AgentMessage) -> Decision:
    """What to do about ``reply``; ``Constrain``: it made no decision, ask for one (``deciding``)."""
    parsed = _interpret(turn, reply)
    if parsed.calls:
        return _decide_calls(turn, reply, parsed)
    if parsed.problem:  # its text is protocol: never the answer
        notice = f"unparsable reply ({parsed.problem}); asking again"
        return turn.limits.correction(parsed.correction(), notice, parsed.kept_text, ending="unparsable")
    answer = parsed.answer if parsed.answer is not None else clean_answer(reply.content)
    if not answer:
        # Asked at once for an answer without tools, the bundled model, which had just got an
        # error from the calculator, worked the sum out in its head: it is asked again first.
        message = _empty_reply_message(turn, reply)
        return turn.limits.correction(message, "empty reply; asking again", parsed.kept_text, ending="empty")
    return _judge(turn, answer, parsed)


def _judge(turn: TurnState, answer: str, parsed: ParsedReply) -> Decision:
    """The table of reactions on an answer: it stands, is sent back, or the loop makes a call."""
    # Part of this reply went out as speech already (the stream was not held for it): a rule that
    # would ask for a new answer is not asked, the voice would say a second one.
    fired = turn.rules.reaction(turn.view(answer), spoken=turn.speaker.reply_begun())
    if fired is None:
        return Finish(answer)
    kept = parsed.kept_text or answer
    match fired.response:
        case Decide(why, fallback):  # a described call: the decision step asks for a real one
            return Constrain(why, fallback, kept, effects=(fired,))
        case Nudge() | MakeCall() as response:
            return after((fired,), respond(turn, response, kept, sent=frozenset({fired.key})))
        case _:
            assert_never(fired.response)


def respond(
    turn: TurnState, response: Nudge | MakeCall, kept: str, *, sent: frozenset[str] = frozenset()
) -> Decision:
    """A rule's message sent back (``kept``: the reply as the transcript keeps it), or its call made;
    ``sent``: the rules' findings fired on the way here, not recorded yet."""
    match response:
        case Nudge(why, message):  # "call it now", "answer with the result", ...
            notice = f"the answer does not stand ({why}); asking again"
            return Correct(message, notice, kept)
        case MakeCall(why, name, arguments):
            # The call the answer described, or the read it skipped: the loop makes it, as if the
            # model had (told to, the bundled model says it will, or that it cannot).
            told = Tell(f"the answer does not stand ({why}); making the call")
            made = ParsedReply(calls=[ParsedCall(name, arguments)], kept_text="")
            loops = _decide_calls(
                turn, AgentMessage(MessageRole.ASSISTANT, ""), made, by_loop=True, sent=sent
            )
            return after((told,), loops)
        case _:
            assert_never(response)


def _decide_calls(
    turn: TurnState,
    reply: AgentMessage,
    parsed: ParsedReply,
    *,
    by_loop: bool = False,
    sent: frozenset[str] = frozenset(),
) -> Decision:
    toolset = turn.setup.toolset
    calls = _as_tool_calls(reply, parsed)
    caller_calls = [c for c in calls if c.name in toolset.caller_names]
    # one call written twice in a reply (in call syntax, then as JSON) runs once
    own_calls = _once([c for c in calls if c.name not in toolset.caller_names])
    # the second pass of a shortlist: a tool called by name that exists is offered from now on
    counted: tuple[Effect, ...] = (
        (ToOffer(tuple(c.name for c in own_calls)),) if turn.offered is not None else ()
    )
    if caller_calls and not own_calls:
        return HandToCaller(caller_calls, effects=counted)
    if caller_calls:  # mixed: run ours now; the model asks for the caller's again later
        counted += (Tell(f"caller tool calls deferred: {[c.name for c in caller_calls]}"),)
    # The text protocol keeps what the model wrote (up to the invented rest); native keeps it clean.
    text = parsed.kept_text if turn.setup.text_mode else ""
    checked = turn.rules.calls_held(turn.view(), own_calls, sent=sent)
    if checked is not None and checked.refused:
        # made again unchanged, a value from nowhere still: answered without the calls
        notice = f"not run, made again with a value nobody gave: {[c.name for c in own_calls]}"
        return ForceAnswer("ungrounded", notice=notice, effects=counted)
    if checked is not None and checked.instead is not None:
        # the held calls replaced by the loop's own (the conversion as the user said it); the rest run
        made = checked.instead
        instead = ToolCall(
            id=f"call_instead_{len(turn.transcript)}", name=made.name, arguments=made.arguments
        )
        rest = [c for i, c in enumerate(own_calls) if i not in checked.positions]
        replaced = [own_calls[i].name for i in sorted(checked.positions)]
        told = Tell(f"not run ({made.why}): {replaced}; the loop calls {made.name}")
        return RunCalls([instead, *rest], text, effects=(*counted, checked.fired, told))
    if checked is not None:
        return Recheck(own_calls, checked.message, text, checked.positions, effects=(*counted, checked.fired))
    repeated, asked = turn.history.judge(own_calls, text, by_loop=by_loop)
    counted += (asked,)
    if repeated is not None:
        return after(counted, repeated)
    return after(counted, held(turn, own_calls) or RunCalls(own_calls, text))


def _interpret(turn: TurnState, reply: AgentMessage) -> ParsedReply:
    if reply.tool_calls:
        calls = [
            ParsedCall(c.name, c.arguments if isinstance(c.arguments, dict) else {}) for c in reply.tool_calls
        ]
        return ParsedReply(calls=calls, kept_text=reply.content or "")
    toolset = turn.setup.toolset
    # The parameter names map the positional arguments of a call written as name('x').
    return parse_reply(reply.content or "", toolset.names, toolset.positional)


def _as_tool_calls(reply: AgentMessage, parsed: ParsedReply) -> list[ToolCall]:
    if reply.tool_calls:
        return list(reply.tool_calls)
    return [
        ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=c.name, arguments=c.arguments) for c in parsed.calls
    ]


def _empty_reply_message(turn: TurnState, reply: AgentMessage) -> str:
    """What to say to an empty reply. Right after a tool result the bundled model sometimes
    writes nothing, and told so, announces the call it just made: the result is quoted. A
    reply that only invented a result is "empty" too; told its reply was empty, the model
    asked what results were meant."""
    values = turn.view().last_values()
    if values:
        return unstated_message("; ".join(values))
    return REPEATED_RESULT if (reply.content or "").strip() else EMPTY_REPLY


def _once(calls: list[ToolCall]) -> list[ToolCall]:
    """``calls`` without repeats of an identical call, in order."""
    unique: dict[str, ToolCall] = {}
    for call in calls:
        unique.setdefault(signature(call), call)
    return list(unique.values())
