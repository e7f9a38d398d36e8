"""One turn of the loop: ask the model, run the tools it calls, feed the results back, answer.

All per-turn state lives in a :class:`Turn`, created for each ``continue_chat``
call, so one engine serves any number of sessions at once. ``Turn.run`` is a small
dispatcher: each reply is classified into one decision of a closed set
(``decisions``), the answers are judged by the table of reactions (``_rules``),
and every ending the user may hear comes from one table (``endings``). Each tool
call's typed outcome (``_tools.observations.ToolOutcome``) is kept beside its TOOL message
for the rest of the turn; nothing reads an observation's text back to learn an outcome.

``Turn.run`` is a generator: it yields the final answer's text deltas as they are
generated (when streaming) and returns the final ``AgentMessage``. The other
reasoning loops (``loops/``) use the same core through its public seam: ``ask``,
``sub_turn``, ``finish``, ``tool_outcomes``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._confirmation import Confirmation, Proposal, Reply, Verdict, cleaned, last_user_text
from ovos_agentic_loop._confirmation.pending import without_marks
from ovos_agentic_loop._confirmation.question import TOO_LARGE, declined, no_such_tool
from ovos_agentic_loop._rules.base import MakeCall, Nudge
from ovos_agentic_loop._rules.placeholder import placeholder_in
from ovos_agentic_loop._rules.table import Reactions
from ovos_agentic_loop._rules.unstated import ResultValues, unstated_message
from ovos_agentic_loop._rules.view import TurnView, latest_values
from ovos_agentic_loop._runtime.daemon_pool import DaemonPool
from ovos_agentic_loop._runtime.session_key import session_key
from ovos_agentic_loop._text.language import answer_language_line
from ovos_agentic_loop._text.protocol import (
    NATIVE_GUIDANCE,
    ParsedCall,
    ParsedReply,
    clean_answer,
    parse_reply,
    text_tool_prompt,
)
from ovos_agentic_loop._text.stream_gate import FinalAnswerGate, Speech
from ovos_agentic_loop._tools.observations import Status, ToolOutcome, held_back, not_run_again, run_calls
from ovos_agentic_loop._tools.selection import FIND_TOOLS, Shortlist, shortlist
from ovos_agentic_loop._tools.toolset import ToolSet
from ovos_agentic_loop._turn.brain_call import BrainCallTimeout, BrainHandle, call_brain
from ovos_agentic_loop._turn.decisions import (
    AskFirst,
    CarryOut,
    Correct,
    Decision,
    Finish,
    ForceAnswer,
    HandToCaller,
    Recheck,
    Remind,
    RunCalls,
)
from ovos_agentic_loop._turn.endings import (
    CUT_BY_BRAIN,
    CUT_BY_TIME,
    NO_ANSWER,
    NOT_FOUND,
    answer_of,
    forced_instruction,
    out_of_steps,
    out_of_time,
    plain_result,
)
from ovos_agentic_loop._turn.repeats import CallHistory, signature
from ovos_agentic_loop._turn.timings import TurnTimings
from ovos_agentic_loop._turn.transcript import fold_system, forced_messages, persona_instructions, rendered
from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop.errors import BrainError, BrainReplyInvalid
from ovos_agentic_loop.events import StepKind

__all__ = ["CUT_BY_BRAIN", "CUT_BY_TIME", "EMPTY_REPLY", "REPEATED_RESULT", "Gate", "Turn", "TurnSetup"]

STOP_SEQUENCES = ["\nObservation:", "Observation:"]
UNREADABLE_CALL = (
    "Your last tool call could not be read: its arguments were not valid JSON. "
    "Call the tool again with its arguments as one valid JSON object, or answer directly."
)
EMPTY_REPLY = "Your reply was empty. Make the tool call you need next, or answer from the results above."
REPEATED_RESULT = (
    "Your reply only repeated a tool result. Make the tool call you need next, or answer my question "
    "with the results above, in plain sentences."
)

#: The events that name the session key (the other kinds keep their data as it was).
_KEYED_EVENTS = frozenset({"turn_start", "model_call", "final"})


class Gate(Protocol):
    """What of a reply's streamed text a caller of :meth:`Turn.ask` lets through."""

    def feed(self, delta: str) -> str: ...


class _Pass:
    """The gate of a reply whose every part may be an answer: the turn's own gate alone decides."""

    def feed(self, delta: str) -> str:
        return delta


@dataclass(frozen=True)
class TurnSetup:
    """What a turn needs from the engine; nothing here changes during the turn."""

    engine_name: str
    config: LoopConfig
    brain: BrainHandle
    toolset: ToolSet
    text_mode: bool
    executor: DaemonPool
    emit: Callable[[StepKind, str, dict[str, Any]], None]
    #: Which calls wait for the user's yes, and the key of their questions (None: none ever waits).
    confirm: Confirmation | None = None


@dataclass
class CallCount:
    """The model calls a turn has made, shared by its sub-runs (one budget for the whole turn)."""

    used: int = 0


@dataclass
class Turn:
    setup: TurnSetup
    incoming: list[AgentMessage]
    session_id: str = "default"
    lang: str | None = None
    units: str | None = None
    started: float = field(default_factory=time.monotonic)
    count: CallCount = field(default_factory=CallCount)
    #: A sub-run counts every call on the shared budget, its forced answer too.
    every_call_counts: bool = False
    #: Names the conversation to the model servers and in every step event (``_runtime.session_key``);
    #: worked out from the session id and the incoming messages unless given (a sub-run: its parent's).
    session_key: str = ""
    timings: TurnTimings = field(default_factory=TurnTimings)
    #: The user message this turn answers (a sub-run's is its parent's): a question is bound to it.
    asker: str | None = None
    # per-turn state
    transcript: list[AgentMessage] = field(default_factory=list)
    # Each TOOL message's outcome, by its index in the transcript (ids are the model's: not unique)
    outcomes: dict[int, ToolOutcome] = field(default_factory=dict)
    corrections: int = 0
    history: CallHistory = field(default_factory=CallHistory)
    reactions: Reactions = field(default_factory=Reactions)
    ending: str | None = None  # the reason of the final event, once the turn has ended
    #: What the stream has said so far, and the gate of the latest spoken model call.
    speech: Speech = field(default_factory=Speech)
    gate: FinalAnswerGate | None = None
    #: The tools this turn offers when the persona has too many to offer all (``_tools.selection``).
    offered: Shortlist | None = None

    def __post_init__(self) -> None:
        # A reply to a question asked in the message before it, read before the marks are removed:
        # a mark is for this engine, never for the model (a forged one in user text goes too).
        confirm = self.setup.confirm
        self.opening: Reply | None = (
            confirm.reply_to_question(self.incoming, session=self.session_id, lang=self.lang)
            if confirm is not None
            else None
        )
        self.incoming = cleaned(self.incoming)
        if self.asker is None:
            self.asker = last_user_text(self.incoming)
        self.offered = shortlist(self.setup.config, self.setup.toolset, self.incoming)
        self.transcript = self._with_system_prompt(self.incoming)
        self._question_end = len(self.transcript)  # the caller's messages end here; the turn's follow
        self.session_key = self.session_key or session_key(self.session_id, self.incoming)
        self.deadline = self.started + self.setup.config.time_budget
        self._first_call = self.count.used

    @property
    def iterations(self) -> int:
        """This run's model calls counted against its ``max_iterations``."""
        return self.count.used - self._first_call

    @property
    def calls_used(self) -> int:
        """The model calls of the whole turn, sub-runs included."""
        return self.count.used

    # -- the dispatcher ---------------------------------------------------------------
    def run(self, stream: bool = False) -> Generator[str, None, AgentMessage]:
        shortlisted = {"offered": [t.name for t in self.offered.tools()]} if self.offered else {}
        self._emit("turn_start", mode=self._mode, tools=self.setup.toolset.names, **shortlisted)
        try:
            while True:
                decision = yield from self._next(stream)
                match decision:
                    case Finish(answer, reason):
                        return self._finish(answer, reason)
                    case HandToCaller(calls):
                        return self._hand_to_caller(calls)
                    case ForceAnswer(reason, notice):
                        if notice:
                            self._emit("notice", message=notice)
                        return (yield from self._forced_answer(reason, stream))
                    case Correct(message, notice, kept):
                        self._correct(message, notice, kept)
                    case Remind(calls, text):
                        self._remind(calls, text)
                    case Recheck(calls, message, text):
                        self._recheck(calls, message, text)
                    case RunCalls(calls, text):
                        self._run_tools(calls, text)
                    case AskFirst(proposal):
                        return self._ask_first(proposal)
                    case CarryOut(call):
                        self._run_tools([call], "")
        except BrainCallTimeout:
            if self._answer_begun():
                return self._cut_short("time_budget", CUT_BY_TIME)
            return self._finish(out_of_time(self.setup.config.time_budget), "time_budget")
        except BrainError as exc:
            if not self._answer_begun():  # no answer said yet: the caller's fallback can still answer
                raise
            self._emit("notice", message=f"the model's reply broke off: {exc}")
            return self._cut_short("stream_cut", CUT_BY_BRAIN)

    def _next(self, stream: bool) -> Generator[str, None, Decision]:
        """One model call with tools, and what to do about its reply."""
        if (opening := self._answer_to_question()) is not None:
            return opening
        if self.iterations >= self.setup.config.max_iterations:
            return ForceAnswer("max_iterations")
        try:
            reply = yield from self._ask(stream=stream)
        except BrainReplyInvalid as exc:  # the server could not read the model's tool call
            if self.corrections >= self.setup.config.max_corrections:
                return ForceAnswer("unparsable")
            self.count.used += 1
            return self._correction(UNREADABLE_CALL, f"the server could not read the model's reply: {exc}")
        return self._decide(reply)

    # -- classifying a reply ----------------------------------------------------------
    def _decide(self, reply: AgentMessage) -> Decision:
        parsed = self._interpret(reply)
        if parsed.calls:
            return self._decide_calls(reply, parsed)
        if parsed.problem:  # its text is protocol: never the answer
            notice = f"unparsable reply ({parsed.problem}); asking again"
            return self._correction(parsed.correction(), notice, parsed.kept_text, ending="unparsable")
        answer = parsed.answer if parsed.answer is not None else clean_answer(reply.content)
        if not answer:
            # Asked at once for an answer without tools, the bundled model, which had just got an
            # error from the calculator, worked the sum out in its head: it is asked again first.
            message = self._empty_reply_message(reply)
            return self._correction(message, "empty reply; asking again", parsed.kept_text, ending="empty")
        return self._judge(answer, parsed)

    def _correction(
        self, message: str, notice: str, kept: str | None = None, *, ending: str = "unparsable"
    ) -> Decision:
        """A corrective message while this turn's ``max_corrections`` last; then the forced answer."""
        if self.corrections >= self.setup.config.max_corrections:
            return ForceAnswer(ending)
        self.corrections += 1
        return Correct(message, notice, kept)

    def _judge(self, answer: str, parsed: ParsedReply) -> Decision:
        """The table of reactions on an answer: it stands, is sent back, or the loop makes a call."""
        response = self.reactions.react(self.view(answer))
        match response:
            case None:
                return Finish(answer)
            case Nudge(why, message):  # "call it now", "answer with the result", ...
                notice = f"the answer does not stand ({why}); asking again"
                return Correct(message, notice, parsed.kept_text or answer)
            case MakeCall(why, name, arguments):
                # The call the answer described, or the read it skipped: the loop makes it, as if the
                # model had (told to, the bundled model says it will, or that it cannot).
                self._emit("notice", message=f"the answer does not stand ({why}); making the call")
                made = ParsedReply(calls=[ParsedCall(name, arguments)], kept_text="")
                return self._decide_calls(AgentMessage(MessageRole.ASSISTANT, ""), made, by_loop=True)
        raise AssertionError(f"unknown reaction response {response!r}")

    def _decide_calls(self, reply: AgentMessage, parsed: ParsedReply, *, by_loop: bool = False) -> Decision:
        toolset = self.setup.toolset
        calls = self._as_tool_calls(reply, parsed)
        caller_calls = [c for c in calls if c.name in toolset.caller_names]
        # one call written twice in a reply (in call syntax, then as JSON) runs once
        own_calls = _once([c for c in calls if c.name not in toolset.caller_names])
        self._offer_called(own_calls)
        if caller_calls and not own_calls:
            return HandToCaller(caller_calls)
        if caller_calls:  # mixed: run ours now; the model asks for the caller's again later
            self._emit("notice", message=f"caller tool calls deferred: {[c.name for c in caller_calls]}")
        # The text protocol keeps what the model wrote (up to the invented rest); native keeps it clean.
        text = parsed.kept_text if self.setup.text_mode else ""
        held = self.reactions.check_calls(self.view(), own_calls)
        if held is not None:
            return Recheck(own_calls, held, text)
        repeated = self.history.decide(own_calls, text, by_loop=by_loop)
        if repeated is not None:
            return repeated
        return self._held(own_calls) or RunCalls(own_calls, text)

    # -- asking before acting (``_confirmation``) ------------------------------------------
    def _held(self, calls: list[ToolCall]) -> Decision | None:
        """AskFirst for the first call that needs the user's yes; none of the reply's calls runs
        (the model makes the others again after the answer, with the pending call's result)."""
        confirm, toolset = self.setup.confirm, self.setup.toolset
        if confirm is None:
            return None
        owners = toolset.owners
        held = next(
            (
                c
                for c in calls
                if confirm.needs_yes(toolset.get(c.name), getattr(owners.get(c.name), "config", None))
            ),
            None,
        )
        if held is None:
            return None
        proposal = confirm.propose(held, lang=self.lang, session=self.session_id, user_text=self.asker or "")
        if proposal is None:
            return self._correction(TOO_LARGE, f"{held.name}: arguments too large to hold for a confirmation")
        others = [c.name for c in calls if c is not held]
        if others:
            self._emit("notice", message=f"not run before the user answers the question: {others}")
        return AskFirst(proposal)

    def _answer_to_question(self) -> Decision | None:
        """At the turn's start, what the user's reply to the pending call decides (once)."""
        reply, self.opening = self.opening, None
        if reply is None or self.setup.confirm is None:
            return None
        pending = reply.pending
        decided = self.setup.confirm.claim(pending)
        verdict = reply.verdict if decided else Verdict.OTHER
        self._emit(
            "confirm", tool=pending.tool, arguments=pending.arguments, id=pending.id, decision=verdict.value
        )
        if not decided:
            self._emit("notice", message="that question was already answered; the reply is a new message")
        if verdict is Verdict.NO:
            return Finish(declined(self.lang), "declined")
        if verdict is Verdict.OTHER:
            return None  # dropped: never run later (the next turn's preceding message is not the question)
        if self.setup.toolset.get(pending.tool) is None or pending.tool in self.setup.toolset.caller_names:
            return Finish(no_such_tool(pending.tool, self.lang), "declined")
        return CarryOut(reply.call)

    def _ask_first(self, proposal: Proposal) -> AgentMessage:
        pending = proposal.pending
        self._emit(
            "confirm",
            tool=pending.tool,
            arguments=pending.arguments,
            id=pending.id,
            decision="asked",
            question=proposal.question,
            token=proposal.token,
        )
        return self._finish(proposal.question, "confirm", content=proposal.spoken)

    def view(self, answer: str = "") -> TurnView:
        """The turn as the reactions see it (read-only), with ``answer`` under judgement."""
        setup = self.setup
        return TurnView(setup.toolset, self.transcript, self.outcomes, setup.text_mode, answer, self.lang)

    def _interpret(self, reply: AgentMessage) -> ParsedReply:
        if reply.tool_calls:
            calls = [
                ParsedCall(c.name, c.arguments if isinstance(c.arguments, dict) else {})
                for c in reply.tool_calls
            ]
            return ParsedReply(calls=calls, kept_text=reply.content or "")
        toolset = self.setup.toolset
        # The parameter names map the positional arguments of a call written as name('x').
        return parse_reply(reply.content or "", toolset.names, toolset.positional)

    def _as_tool_calls(self, reply: AgentMessage, parsed: ParsedReply) -> list[ToolCall]:
        if reply.tool_calls:
            return list(reply.tool_calls)
        return [
            ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=c.name, arguments=c.arguments)
            for c in parsed.calls
        ]

    def _empty_reply_message(self, reply: AgentMessage) -> str:
        """What to say to an empty reply. Right after a tool result the bundled model sometimes
        writes nothing, and told so, announces the call it just made: the result is quoted. A
        reply that only invented a result is "empty" too; told its reply was empty, the model
        asked what results were meant."""
        values = self.view().last_values()
        if values:
            return unstated_message("; ".join(values))
        return REPEATED_RESULT if (reply.content or "").strip() else EMPTY_REPLY

    # -- acting on a decision -----------------------------------------------------------
    def _correct(self, message: str, notice: str, kept: str | None) -> None:
        self._emit("notice", message=notice)
        if kept is not None:
            self.transcript.append(AgentMessage(MessageRole.ASSISTANT, kept))
        self.transcript.append(AgentMessage(MessageRole.USER, message))

    def _remind(self, calls: list[ToolCall], text: str) -> None:
        """Answer calls that all repeat calls which succeeded this turn without running them."""
        self._emit("notice", message=f"not run again (results already given): {[c.name for c in calls]}")
        self.transcript.append(AgentMessage(MessageRole.ASSISTANT, text, tool_calls=calls))
        for call in calls:
            self._add_result(not_run_again(call, self.history.result_of(call)))

    def _recheck(self, calls: list[ToolCall], message: str, text: str) -> None:
        """Answer a reply's calls with what to check in them, without running any."""
        self._emit("notice", message=f"not run, to be checked: {[c.name for c in calls]}: {message}")
        self.transcript.append(AgentMessage(MessageRole.ASSISTANT, text, tool_calls=calls))
        for call in calls:
            self._add_result(held_back(call, message))

    def _run_tools(self, calls: list[ToolCall], text: str) -> None:
        self.transcript.append(AgentMessage(MessageRole.ASSISTANT, text, tool_calls=calls))
        for call in calls:
            owner = self.setup.toolset.owners.get(call.name)
            self._emit(
                "tool_call",
                name=call.name,
                arguments=call.arguments,
                call_id=call.id,
                owner=owner.toolbox_id if owner is not None else "unknown",
            )
        for outcome in self._execute(calls):
            self._emit(
                "tool_result",
                name=outcome.call.name,
                call_id=outcome.call.id,
                ok=outcome.ok,
                duration_s=round(outcome.duration_s, 4),
                result=outcome.observation if outcome.ok else None,
                error=outcome.error,
            )
            self._add_result(replace(outcome, note=self.history.record(outcome)))

    def _execute(self, calls: list[ToolCall]) -> list[ToolOutcome]:
        """The outcomes of ``calls``, in order: the toolboxes' calls run concurrently, and a
        ``find_tools`` call of a turn with a shortlist is answered by the shortlist."""
        cfg = self.setup.config
        offered = self.offered
        found = {id(c): offered.find(c) for c in calls if offered is not None and c.name == FIND_TOOLS}
        ran = run_calls(
            [c for c in calls if id(c) not in found],
            self.setup.toolset,
            self.setup.executor,
            timeout=max(0.01, min(cfg.tool_timeout, self.deadline - time.monotonic())),
            max_chars=cfg.max_observation_chars,
            max_parallel=cfg.max_parallel_tools,
        )
        rest = iter(ran)
        return [found[id(c)] if id(c) in found else next(rest) for c in calls]

    def _offer_called(self, calls: list[ToolCall]) -> None:
        """The second pass of a shortlist: a tool the model called by name that exists but was not
        offered runs, and is offered from now on (its schema is then in the request)."""
        added = self.offered.offer(c.name for c in calls) if self.offered is not None else []
        if added:
            self._emit("notice", message=f"called outside the shortlist, now offered: {added}")

    def _add_result(self, outcome: ToolOutcome) -> None:
        """The TOOL message of ``outcome``, with the outcome kept beside it."""
        self.outcomes[len(self.transcript)] = outcome
        call = outcome.call
        self.transcript.append(
            AgentMessage(MessageRole.TOOL, outcome.text, tool_call_id=call.id, name=call.name)
        )

    def _forced_answer(self, reason: str, stream: bool) -> Generator[str, None, AgentMessage]:
        """One last call without tools, asking for the best answer from what is known."""
        self._emit("notice", message=f"forcing a final answer: {reason}")
        instruction = forced_instruction(reason, self.setup.config.max_iterations)
        messages = forced_messages(
            self.persona_instructions(), self.incoming, self.transcript, self.outcomes, instruction
        )
        reply = yield from self._call(
            self.for_brain(messages),
            stream=stream,
            tools=None,
            gate=_Pass(),
            counted=self.every_call_counts,
        )
        answer = answer_of(reply.content or "", self.setup.toolset.names)
        return self._finish(self._grounded(answer, reason), reason)

    def _grounded(self, answer: str, reason: str) -> str:
        """A forced answer that is no answer, or holds a number the results contradict (a wrong or
        mangled value), gets the latest results said plainly: the user hears the result, not a
        guess or only an apology. An answer without numbers ("Shakespeare wrote it.") stands; one
        with a slot where its value belongs ("[YourUsername]") is an honest "could not find out"."""
        view = self.view()
        texts = latest_values(view)
        values = ResultValues.of(texts)
        if placeholder_in(answer):
            self._emit("notice", message="the forced answer holds a placeholder for its value")
            return NOT_FOUND
        if not answer:
            apology = (
                out_of_steps(self.setup.config.max_iterations) if reason == "max_iterations" else NO_ANSWER
            )
            return apology if values is None else f"{apology} {plain_result(texts)}"
        if values is not None and values.contradicted_by(answer, view.known_numbers, self.lang):
            self._emit("notice", message="the forced answer contradicts the results; the loop says them")
            return f"{answer} {plain_result(texts)}"
        return answer

    # -- model calls --------------------------------------------------------------------
    def _ask(self, *, stream: bool) -> Generator[str, None, AgentMessage]:
        """One ReAct model call with the tools; while streaming, the final-answer part is yielded.

        A reply the table of reactions may still send back (a calculation, an unread file) is
        not spoken while it streams: it is said whole once it stands."""
        hold = self.reactions.may_apply(self.view())
        return (
            yield from self._call(
                self._brain_messages(),
                stream=stream,
                tools=self._offered_specs(),
                gate=_Pass(),
                counted=True,
                hold=hold,
            )
        )

    def _call(
        self,
        messages: list[AgentMessage],
        *,
        stream: bool,
        tools: list[dict[str, Any]] | None,
        gate: Gate | None,
        counted: bool,
        stop: bool = True,
        hold: bool = False,
    ) -> Generator[str, None, AgentMessage]:
        """THE model call of every loop: bounded by the turn's deadline, counted, a step event.

        ``gate`` decides what of the streamed text may be said, before the turn's own gate (protocol
        is never spoken); None says nothing and leaves the turn's gate as it was. ``hold``: this
        reply is the turn's to speak, but only once the turn is over (``unspoken``)."""
        started = time.monotonic()
        speaker = FinalAnswerGate(self.speech)
        if gate is not None:
            self.gate = speaker
        reply: AgentMessage | None = None
        for item in call_brain(
            self.setup.brain,
            messages,
            deadline=self.deadline,
            stream=stream,
            tools=tools,
            stop=STOP_SEQUENCES if stop and self.setup.text_mode else None,
            session_id=self.session_id,
            session_key=self.session_key,
            lang=self.lang,
            units=self.units,
        ):
            if not isinstance(item, str):
                reply = item
            elif gate is not None and not hold and (out := speaker.feed(gate.feed(item))):
                yield out
        # the reply is over: say what only waited for more text
        if gate is not None and not hold and (out := speaker.close()):
            yield out
        assert reply is not None  # call_brain always ends with the message or raises
        self.count.used += 1 if counted else 0
        self._emit_model_call(reply, started, speaker.passed_chars)
        return reply

    def _emit_model_call(self, reply: AgentMessage, started: float, streamed_chars: int) -> None:
        self._emit(
            "model_call",
            iteration=self.count.used,
            duration_s=round(time.monotonic() - started, 4),
            tool_calls=[c.name for c in reply.tool_calls or []],
            chars=len(reply.content or ""),
            usage=getattr(reply, "usage", None),
            timings=getattr(reply, "timings", None),
            streamed_chars=streamed_chars,
        )

    def warm_up(self) -> None:
        """Get this turn's system prompt and tools into the brain's prompt cache; no tool runs.

        A brain with ``prefill`` (``ovos-openai-brain``) reads the prompt and writes no answer;
        another brain gets one ordinary call whose (short) reply is ignored.
        """
        text_mode = self.setup.text_mode
        tools = self._offered_specs()
        stop = STOP_SEQUENCES if text_mode else None
        prefill = getattr(self.setup.brain.engine, "prefill", None)
        if callable(prefill):
            prefill(self._brain_messages(), session_id=self.session_id, tools=tools, stop=stop)
            return
        for _ in call_brain(
            self.setup.brain,
            self._brain_messages(),
            deadline=self.deadline,
            stream=False,
            tools=tools,
            stop=stop,
            session_id=self.session_id,
            lang=None,
            units=None,
        ):
            pass

    def unspoken(self, final: AgentMessage) -> str:
        """What a stream still has to say once the turn is over: the rest of its final answer."""
        gate = self.gate if self.gate is not None else FinalAnswerGate(self.speech)
        return gate.finish(final.content or "")

    # -- the seam for the other reasoning loops (ovos_agentic_loop.loops) -------------
    def ask(
        self, messages: list[AgentMessage], *, stream: bool, gate: Gate | None = None
    ) -> Generator[str, None, AgentMessage]:
        """One plain model call (no tools, no protocol) of this turn, counted on its budget; while
        streaming, what ``gate`` lets through (then the turn's own gate) is yielded."""
        return (
            yield from self._call(messages, stream=stream, tools=None, gate=gate, counted=True, stop=False)
        )

    def emit(self, kind: StepKind, **data: Any) -> None:
        """A step event of this turn (its session), to the engine's log, bus and listeners."""
        self._emit(kind, **data)

    def finish(self, answer: str, reason: str) -> AgentMessage:
        """End the turn with ``answer`` (the ``final`` event)."""
        return self._finish(answer, reason)

    def persona_instructions(self) -> list[str]:
        """The caller's and persona's instructions, then (for a session in another language than
        English) the line asking for the answer in it: the system prompt of the calls without
        tools (the forced answer, the other loops' steps) starts here."""
        parts = persona_instructions(self.incoming, self.setup.config.system_prompt)
        language = answer_language_line(self.lang)
        return [*parts, language] if language else parts

    def for_brain(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """``messages`` as this brain takes them (the system message folded in for one that drops it)."""
        return messages if self.setup.brain.keeps_system else fold_system(messages)

    def tool_outcomes(self) -> list[ToolOutcome]:
        """The outcomes of the tool calls this turn ran, in order (reminders left out)."""
        return [o for o in self.outcomes.values() if o.status is not Status.NOT_RUN_AGAIN]

    def sub_turn(
        self,
        incoming: list[AgentMessage],
        *,
        emit: Callable[[StepKind, str, dict[str, Any]], None],
        max_iterations: int,
    ) -> Turn:
        """A ReAct run inside this turn: the same brain, tools, deadline and call budget; its own
        transcript, at most ``max_iterations`` model calls with tools, and its events through ``emit``."""
        config = self.setup.config.model_copy(update={"max_iterations": max_iterations})
        return Turn(
            replace(self.setup, config=config, emit=emit),
            incoming,
            session_id=self.session_id,
            lang=self.lang,
            units=self.units,
            started=self.started,
            count=self.count,
            every_call_counts=True,
            session_key=self.session_key,
            asker=self.asker,
        )

    def carry_out(self, call: ToolCall) -> ToolOutcome:
        """Run ``call`` (a pending call a GUI said yes to on the bus) with this turn's tool steps."""
        self._run_tools([call], "")
        return self.outcomes[len(self.transcript) - 1]

    def answers_question(self) -> bool:
        """True when the user's message says yes or no to the question of the message before it
        (the loop then lets :meth:`run` carry it out); a reply that is neither drops the question."""
        if self.opening is None:
            return False
        if self.opening.verdict is Verdict.OTHER:
            self._answer_to_question()
            return False
        return True

    def asked(self, message: AgentMessage) -> AgentMessage:
        """End the turn with a sub-run's question (``message`` holds its mark)."""
        return self._finish(without_marks(message.content or ""), "confirm", content=message.content or "")

    def progress(self, message: str) -> None:
        """Tell a waiting user what takes the time (a ``notice`` step with ``progress``: True)."""
        self._emit("notice", message=message, progress=True)

    # -- endings --------------------------------------------------------------------
    def _finish(self, answer: str, reason: str, *, content: str | None = None) -> AgentMessage:
        """The ``final`` event with ``answer``; the message holds ``content`` (the question with its
        mark) where given, else ``answer``."""
        self.ending = reason
        self._emit(
            "final",
            answer=answer,
            reason=reason,
            iterations=self.count.used,
            duration_s=round(time.monotonic() - self.started, 4),
        )
        return AgentMessage(MessageRole.ASSISTANT, answer if content is None else content)

    def _answer_begun(self) -> bool:
        """True once part of the current reply's answer went out to a listener."""
        return self.gate is not None and bool(self.gate.part)

    def _cut_short(self, reason: str, note: str) -> AgentMessage:
        """A streamed answer that cannot be finished ends with a sentence that says so, never silently.

        The final answer is what was said plus the note; the stream speaks what it adds to what
        was said (``unspoken``): the note.
        """
        part = self.gate.part if self.gate is not None else ""
        said = part.rstrip()
        self._emit("notice", message=f"the streamed answer was cut short ({reason}) after {len(said)} chars")
        # A line break ends the sentence being spoken; "…" marks one that was cut mid-way.
        tail = "\n" if not said or said.endswith((".", "!", "?", "…")) else "…\n"
        return self._finish(f"{part}{tail}{note}", reason)

    def _hand_to_caller(self, calls: list[ToolCall]) -> AgentMessage:
        self.ending = "caller_tools"
        self._emit(
            "final",
            answer="",
            reason="caller_tools",
            calls=[c.name for c in calls],
            iterations=self.count.used,
        )
        return AgentMessage(MessageRole.ASSISTANT, "", tool_calls=calls)

    # -- helpers --------------------------------------------------------------------
    @property
    def _mode(self) -> str:
        return "text" if self.setup.text_mode else "native"

    def _emit(self, kind: StepKind, **data: Any) -> None:
        self.timings.observe(kind, data)
        if kind == "final":
            data["timings"] = self.timings.summary(time.monotonic() - self.started)
        if kind in _KEYED_EVENTS:
            data["session_key"] = self.session_key
        self.setup.emit(kind, self.session_id, data)

    def _with_system_prompt(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """One leading system message: the persona's instructions, then the tool protocol. The
        answer's language is not in it (see ``_brain_messages``): the tool list after it stays in
        the server's prompt cache whatever language a session speaks."""
        parts = persona_instructions(self.incoming, self.setup.config.system_prompt)
        toolset = self.setup.toolset
        if toolset.tools:
            offered = self.offered.tools() if self.offered is not None else toolset.tools
            parts.append(text_tool_prompt(offered) if self.setup.text_mode else NATIVE_GUIDANCE)
        rest = [m for m in messages if m.role != MessageRole.SYSTEM]
        return ([AgentMessage(MessageRole.SYSTEM, "\n\n".join(parts))] if parts else []) + rest

    def _offered_specs(self) -> list[dict[str, Any]] | None:
        """The native tools of a model call: every tool, or this turn's shortlist; None in text mode."""
        if self.setup.text_mode:
            return None
        if self.offered is None:
            return self.setup.toolset.wire_specs or None
        return self.offered.wire_specs()

    def _brain_messages(self) -> list[AgentMessage]:
        """The transcript as this brain takes it: text-protocol form and/or system folded in, and
        the user's question followed by the line asking for the answer in its language (after the
        system prompt and tools, so a language costs no re-read of them: 76 s on 2 cores)."""
        transcript = list(self.transcript)
        language = answer_language_line(self.lang)
        asked = max((i for i, m in enumerate(transcript) if m.role == MessageRole.USER), default=None)
        if language and asked is not None and asked < self._question_end:
            question = transcript[asked]
            transcript[asked] = AgentMessage(MessageRole.USER, f"{question.content}\n\n({language})")
        return self.for_brain(rendered(transcript) if self.setup.text_mode else transcript)


def _once(calls: list[ToolCall]) -> list[ToolCall]:
    """``calls`` without repeats of an identical call, in order."""
    unique: dict[str, ToolCall] = {}
    for call in calls:
        unique.setdefault(signature(call), call)
    return list(unique.values())
