"""One turn of the loop: ask the model, run the tools it calls, feed the results back, answer.

All per-turn state lives in a :class:`Turn`, created for each ``continue_chat``
call, so one engine serves any number of sessions at once. The transcript is
always kept in native form (assistant ``tool_calls`` + TOOL messages); for a brain
that speaks the text protocol it is rendered into ``Action:`` / ``Observation:``
text just before each call.

``Turn.run`` is a generator: it yields the final answer's text deltas as they are
generated (when streaming) and returns the final ``AgentMessage``.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._brain_call import BrainCallTimeout, BrainHandle, call_brain
from ovos_agentic_loop._daemon_pool import DaemonPool
from ovos_agentic_loop._nudges import Nudges, last_results, may_be_nudged, unstated_message
from ovos_agentic_loop._observations import ToolOutcome, run_calls
from ovos_agentic_loop._protocol import (
    NATIVE_GUIDANCE,
    ParsedCall,
    ParsedReply,
    clean_answer,
    parse_reply,
    positional_parameters,
    render_call,
    text_tool_prompt,
)
from ovos_agentic_loop._stream_gate import FinalAnswerGate, Speech
from ovos_agentic_loop._toolset import ToolSet
from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop.errors import BrainError, BrainReplyInvalid
from ovos_agentic_loop.events import StepKind

__all__ = ["Turn", "TurnSetup"]

STOP_SEQUENCES = ["\nObservation:", "Observation:"]
NO_ANSWER = "I'm sorry, I could not come up with an answer to that."
UNREADABLE_CALL = (
    "Your last tool call could not be read: its arguments were not valid JSON. "
    "Call the tool again with its arguments as one valid JSON object, or answer directly."
)
EMPTY_REPLY = "Your reply was empty. Make the tool call you need next, or answer from the results above."
REPEATED_RESULT = (
    "Your reply only repeated a tool result. Make the tool call you need next, or answer my question "
    "with the results above, in plain sentences."
)
REPEATS_ALLOWED = 2  # the third identical call is refused and the turn ends
REMINDER = (
    "Not run again: this exact call already succeeded, its result is above. Use it now: answer, "
    "or call a different tool for what is still missing."
)
# A call identical to one that already SUCCEEDED this turn is not run again: its result is in the
# transcript. The first time, the model is told so (the bundled model sometimes re-reads a listing
# before acting on it, and then goes on right); the second time, the turn goes to its answer (it
# also re-asks the first of two tools after the second: a loop, 10 s a call on 2 cores).
# Said after a streamed answer that cannot be finished: a listener must not mistake half an answer
# for a whole one (see ``Turn._cut_short``).
CUT_BY_TIME = "I'm sorry, I ran out of time, so that answer is incomplete."
CUT_BY_BRAIN = "I'm sorry, I lost the connection to the model, so that answer is incomplete."


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


@dataclass
class Turn:
    setup: TurnSetup
    incoming: list[AgentMessage]
    session_id: str = "default"
    lang: str | None = None
    units: str | None = None
    # per-turn state
    transcript: list[AgentMessage] = field(default_factory=list)
    iterations: int = 0
    corrections: int = 0
    call_counts: Counter[str] = field(default_factory=Counter)
    succeeded: set[str] = field(default_factory=set)  # signatures of calls that ran without error
    reminded: bool = False  # a repeat of a succeeded call was already answered with a reminder
    nudges: Nudges = field(default_factory=Nudges)
    started: float = field(default_factory=time.monotonic)
    #: What the stream has said so far, and the gate of the latest model call (see stream_gate).
    speech: Speech = field(default_factory=Speech)
    gate: FinalAnswerGate | None = None

    def __post_init__(self) -> None:
        self.transcript = self._with_system_prompt(self.incoming)
        self.deadline = self.started + self.setup.config.time_budget

    # -- the loop -------------------------------------------------------------------
    def run(self, stream: bool = False) -> Generator[str, None, AgentMessage]:
        cfg, toolset = self.setup.config, self.setup.toolset
        self._emit("turn_start", mode="text" if self.setup.text_mode else "native", tools=toolset.names)
        try:
            while True:
                if self.iterations >= cfg.max_iterations:
                    return (yield from self._forced_answer("max_iterations", stream))
                try:
                    reply = yield from self._ask(stream=stream, with_tools=True)
                except BrainReplyInvalid as exc:  # the server could not read the model's tool call
                    if self.corrections >= cfg.max_corrections:
                        return (yield from self._forced_answer("unparsable", stream))
                    self.corrections += 1
                    self.iterations += 1
                    self._emit("notice", message=f"the server could not read the model's reply: {exc}")
                    self.transcript.append(AgentMessage(MessageRole.USER, UNREADABLE_CALL))
                    continue
                parsed = self._interpret(reply)
                if not parsed.calls and not parsed.problem:
                    answer = parsed.answer if parsed.answer is not None else clean_answer(reply.content)
                    if not answer and self.corrections < cfg.max_corrections:
                        # Asked at once for an answer without tools, the bundled model, which had
                        # just got an error from the calculator, worked the sum out in its head.
                        self.corrections += 1
                        self._emit("notice", message="empty reply; asking again")
                        self.transcript.append(AgentMessage(MessageRole.ASSISTANT, parsed.kept_text))
                        self.transcript.append(
                            AgentMessage(MessageRole.USER, self._empty_reply_message(reply))
                        )
                        continue
                    if not answer:
                        return (yield from self._forced_answer("empty", stream))
                    reaction = self.nudges.react(
                        answer, toolset.specs, self.transcript, text_mode=self.setup.text_mode
                    )
                    if reaction is None:
                        return self._finish(answer, "answer")
                    if reaction.message is not None:  # "call it now", "answer with the result", ...
                        self._emit(
                            "notice", message=f"the answer does not stand ({reaction.why}); asking again"
                        )
                        self.transcript.append(
                            AgentMessage(MessageRole.ASSISTANT, parsed.kept_text or answer)
                        )
                        self.transcript.append(AgentMessage(MessageRole.USER, reaction.message))
                        continue
                    # The call the answer described, or the read it skipped: the loop makes it, as if
                    # the model had (told to, the bundled model says it will, or that it cannot).
                    assert reaction.call is not None
                    self._emit(
                        "notice", message=f"the answer does not stand ({reaction.why}); making the call"
                    )
                    parsed = ParsedReply(calls=[ParsedCall(*reaction.call)], kept_text="")
                    reply = AgentMessage(MessageRole.ASSISTANT, "")
                if parsed.calls:
                    calls = self._as_tool_calls(reply, parsed)
                    caller_calls = [c for c in calls if c.name in toolset.caller_names]
                    # one call written twice in a reply (in call syntax, then as JSON) runs once
                    own_calls = _once([c for c in calls if c.name not in toolset.caller_names])
                    if caller_calls and not own_calls:
                        return self._hand_to_caller(caller_calls)
                    if caller_calls:  # mixed: run ours now; the model asks for the caller's again later
                        self._emit(
                            "notice", message=f"caller tool calls deferred: {[c.name for c in caller_calls]}"
                        )
                    if own_calls and all(_signature(c) in self.succeeded for c in own_calls):
                        if self.reminded:
                            self._emit("notice", message="the model asked again for results it has")
                            return (yield from self._forced_answer("repetition", stream))
                        self._remind_results(parsed, own_calls)
                        continue
                    if self._repeated_too_often(own_calls):
                        return (yield from self._forced_answer("repetition", stream))
                    self._run_tools(parsed, own_calls)
                    continue
                # its text is protocol: never the answer
                if self.corrections >= cfg.max_corrections:
                    return (yield from self._forced_answer("unparsable", stream))
                self.corrections += 1
                self._emit("notice", message=f"unparsable reply ({parsed.problem}); asking again")
                self.transcript.append(AgentMessage(MessageRole.ASSISTANT, parsed.kept_text))
                self.transcript.append(AgentMessage(MessageRole.USER, parsed.correction()))
        except BrainCallTimeout:
            if self._answer_begun():
                return self._cut_short("time_budget", CUT_BY_TIME)
            return self._finish(
                f"I'm sorry, that took longer than my time limit of {cfg.time_budget:g} seconds.",
                "time_budget",
            )
        except BrainError as exc:
            if not self._answer_begun():  # no answer said yet: the caller's fallback can still answer
                raise
            self._emit("notice", message=f"the model's reply broke off: {exc}")
            return self._cut_short("stream_cut", CUT_BY_BRAIN)

    def warm_up(self) -> None:
        """Get this turn's system prompt and tools into the brain's prompt cache; no tool runs.

        A brain with ``prefill`` (``ovos-openai-brain``) reads the prompt and writes no answer;
        another brain gets one ordinary call whose (short) reply is ignored.
        """
        text_mode = self.setup.text_mode
        prefill = getattr(self.setup.brain.engine, "prefill", None)
        if callable(prefill):
            prefill(
                self._brain_messages(),
                session_id=self.session_id,
                tools=None if text_mode else self.setup.toolset.specs or None,
                stop=STOP_SEQUENCES if text_mode else None,
            )
            return
        for _ in call_brain(
            self.setup.brain,
            self._brain_messages(),
            deadline=self.deadline,
            stream=False,
            tools=None if text_mode else self.setup.toolset.specs or None,
            stop=STOP_SEQUENCES if text_mode else None,
            session_id=self.session_id,
            lang=None,
            units=None,
        ):
            pass

    def _ask(
        self, *, stream: bool, with_tools: bool, messages: list[AgentMessage] | None = None
    ) -> Generator[str, None, AgentMessage]:
        """One model call; while streaming, the final-answer part of the reply is yielded."""
        text_mode = self.setup.text_mode
        specs = self.setup.toolset.specs if with_tools and not text_mode else None
        started = time.monotonic()
        gate = self.gate = FinalAnswerGate(self.speech)
        # A reply the loop may still send back for a calculation is not spoken while it streams:
        # it is said whole once it stands (see _nudges.may_be_nudged).
        hold = with_tools and may_be_nudged(self.nudges, self.setup.toolset.specs, self.transcript)
        reply: AgentMessage | None = None
        for item in call_brain(
            self.setup.brain,
            messages if messages is not None else self._brain_messages(),
            deadline=self.deadline,
            stream=stream,
            tools=specs,
            stop=STOP_SEQUENCES if text_mode else None,
            session_id=self.session_id,
            lang=self.lang,
            units=self.units,
        ):
            if isinstance(item, str):
                out = "" if hold else gate.feed(item)
                if out:
                    yield out
            else:
                reply = item
        out = "" if hold else gate.close()  # the reply is over: say what only waited for more text
        if out:
            yield out
        assert reply is not None  # call_brain always ends with the message or raises
        if with_tools:
            self.iterations += 1
        self._emit(
            "model_call",
            iteration=self.iterations,
            duration_s=round(time.monotonic() - started, 4),
            tool_calls=[c.name for c in reply.tool_calls or []],
            chars=len(reply.content or ""),
            usage=getattr(reply, "usage", None),
            timings=getattr(reply, "timings", None),
            streamed_chars=gate.passed_chars,
        )
        return reply

    def _interpret(self, reply: AgentMessage) -> ParsedReply:
        if reply.tool_calls:
            calls = [
                ParsedCall(c.name, c.arguments if isinstance(c.arguments, dict) else {})
                for c in reply.tool_calls
            ]
            return ParsedReply(calls=calls, kept_text=reply.content or "")
        toolset = self.setup.toolset
        # The parameter names map the positional arguments of a call written as name('x').
        return parse_reply(reply.content or "", toolset.names, positional_parameters(toolset.schemas))

    def _as_tool_calls(self, reply: AgentMessage, parsed: ParsedReply) -> list[ToolCall]:
        if reply.tool_calls:
            return list(reply.tool_calls)
        return [
            ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=c.name, arguments=c.arguments)
            for c in parsed.calls
        ]

    def _remind_results(self, parsed: ParsedReply, calls: list[ToolCall]) -> None:
        """Answer calls that all repeat calls which succeeded this turn without running them."""
        self.reminded = True
        self._emit("notice", message=f"not run again (results already given): {[c.name for c in calls]}")
        content = parsed.kept_text if self.setup.text_mode else ""
        self.transcript.append(AgentMessage(MessageRole.ASSISTANT, content, tool_calls=calls))
        for call in calls:
            self.transcript.append(
                AgentMessage(MessageRole.TOOL, REMINDER, tool_call_id=call.id, name=call.name)
            )

    def _run_tools(self, parsed: ParsedReply, calls: list[ToolCall]) -> None:
        # The text protocol keeps what the model wrote (up to the invented rest); native keeps it clean.
        content = parsed.kept_text if self.setup.text_mode else ""
        self.transcript.append(AgentMessage(MessageRole.ASSISTANT, content, tool_calls=calls))
        for call in calls:
            self._emit(
                "tool_call",
                name=call.name,
                arguments=call.arguments,
                call_id=call.id,
                owner=self._owner(call),
            )
        cfg = self.setup.config
        timeout = max(0.01, min(cfg.tool_timeout, self.deadline - time.monotonic()))
        outcomes = run_calls(
            calls,
            self.setup.toolset,
            self.setup.executor,
            timeout=timeout,
            max_chars=cfg.max_observation_chars,
            max_parallel=cfg.max_parallel_tools,
        )
        for outcome in outcomes:
            if outcome.ok:
                self.succeeded.add(_signature(outcome.call))
            observation = outcome.observation + self._repeat_note(outcome)
            self._emit(
                "tool_result",
                name=outcome.call.name,
                call_id=outcome.call.id,
                ok=outcome.ok,
                duration_s=round(outcome.duration_s, 4),
                result=outcome.observation if outcome.ok else None,
                error=outcome.error,
            )
            self.transcript.append(
                AgentMessage(
                    MessageRole.TOOL, observation, tool_call_id=outcome.call.id, name=outcome.call.name
                )
            )

    def _forced_answer(self, reason: str, stream: bool) -> Generator[str, None, AgentMessage]:
        """One last call without tools, asking for the best answer from what is known."""
        why = {
            "max_iterations": f"You have used all {self.setup.config.max_iterations} tool steps.",
            "repetition": "You keep making the same tool call; its result will not change.",
            "empty": "Your last reply was empty.",
            "unparsable": "Your last replies were not in the expected form.",
        }[reason]
        self._emit("notice", message=f"forcing a final answer: {reason}")
        instruction = (
            f"{why} Do not call any tool now. Give your final answer to the user's last message, "
            "in plain sentences, from what you know and the tool results above."
        )
        reply = yield from self._ask(
            stream=stream, with_tools=False, messages=self._forced_messages(instruction)
        )
        parsed = parse_reply(reply.content or "", self.setup.toolset.names)
        answer = parsed.answer if parsed.answer is not None and not parsed.calls else ""
        if not answer:
            answer = (
                f"I'm sorry, I could not finish that within {self.setup.config.max_iterations} steps."
                if reason == "max_iterations"
                else NO_ANSWER
            )
        return self._finish(answer, reason)

    def unspoken(self, final: AgentMessage) -> str:
        """What a stream still has to say once the turn is over: the rest of its final answer."""
        gate = self.gate if self.gate is not None else FinalAnswerGate(self.speech)
        return gate.finish(final.content or "")

    # -- the seam for the other reasoning loops (ovos_agentic_loop.loops) -------------
    def emit(self, kind: StepKind, **data: Any) -> None:
        """A step event of this turn (its session), to the engine's log, bus and listeners."""
        self._emit(kind, **data)

    def finish(self, answer: str, reason: str) -> AgentMessage:
        """End the turn with ``answer`` (the ``final`` event)."""
        return self._finish(answer, reason)

    def persona_instructions(self) -> list[str]:
        return self._persona_instructions()

    def for_brain(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """``messages`` as this brain takes them (the system message folded in for one that drops it)."""
        return messages if self.setup.brain.keeps_system else _fold_system(messages)

    def sub_turn(
        self,
        incoming: list[AgentMessage],
        *,
        emit: Callable[[StepKind, str, dict[str, Any]], None],
        max_iterations: int,
    ) -> Turn:
        """A ReAct run inside this turn: the same brain, tools and deadline; its own transcript,
        at most ``max_iterations`` model calls with tools, and its events through ``emit``."""
        config = self.setup.config.model_copy(update={"max_iterations": max_iterations})
        return Turn(
            replace(self.setup, config=config, emit=emit),
            incoming,
            session_id=self.session_id,
            lang=self.lang,
            units=self.units,
            started=self.started,
        )

    # -- endings --------------------------------------------------------------------
    def _finish(self, answer: str, reason: str) -> AgentMessage:
        self._emit(
            "final",
            answer=answer,
            reason=reason,
            iterations=self.iterations,
            duration_s=round(time.monotonic() - self.started, 4),
        )
        return AgentMessage(MessageRole.ASSISTANT, answer)

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
        self._emit(
            "final",
            answer="",
            reason="caller_tools",
            calls=[c.name for c in calls],
            iterations=self.iterations,
        )
        return AgentMessage(MessageRole.ASSISTANT, "", tool_calls=calls)

    # -- helpers --------------------------------------------------------------------
    def _repeated_too_often(self, calls: list[ToolCall]) -> bool:
        for call in calls:
            self.call_counts[_signature(call)] += 1
        worst = max((self.call_counts[_signature(c)] for c in calls), default=0)
        if worst > REPEATS_ALLOWED:
            self._emit("notice", message=f"the same call was requested {worst} times; ending the turn")
            return True
        return False

    def _empty_reply_message(self, reply: AgentMessage) -> str:
        """What to say to an empty reply. Right after a tool result the bundled model sometimes
        writes nothing, and told so, announces the call it just made: the result is quoted. A
        reply that only invented a result is "empty" too; told its reply was empty, the model
        asked what results were meant."""
        values = last_results(self.transcript[:-1])  # before the empty reply just appended
        if values is not None:
            return unstated_message(values)
        return REPEATED_RESULT if (reply.content or "").strip() else EMPTY_REPLY

    def _repeat_note(self, outcome: ToolOutcome) -> str:
        if self.call_counts[_signature(outcome.call)] < REPEATS_ALLOWED:
            return ""
        if not outcome.ok:  # "use this result" would tell the model to give up on a fixable call
            return "\n(Note: this exact call failed before; change its arguments as the error says.)"
        return "\n(Note: you already made this exact call; use this result instead of calling again.)"

    def _owner(self, call: ToolCall) -> str:
        toolbox = self.setup.toolset.owners.get(call.name)
        return toolbox.toolbox_id if toolbox is not None else "unknown"

    def _emit(self, kind: StepKind, **data: Any) -> None:
        self.setup.emit(kind, self.session_id, data)

    def progress(self, message: str) -> None:
        """Tell a waiting user what takes the time (a ``notice`` step with ``progress``: True)."""
        self._emit("notice", message=message, progress=True)

    def _persona_instructions(self) -> list[str]:
        """The caller's system messages plus the persona's ``system_prompt`` (once)."""
        parts = [m.content for m in self.incoming if m.role == MessageRole.SYSTEM and m.content]
        persona = (self.setup.config.system_prompt or "").strip()
        if persona and not any(persona in p for p in parts):
            parts.insert(0, persona)
        return parts

    def _with_system_prompt(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """One leading system message: the persona's instructions, then the tool protocol."""
        parts = self._persona_instructions()
        toolset = self.setup.toolset
        if toolset.specs:
            parts.append(text_tool_prompt(toolset.specs) if self.setup.text_mode else NATIVE_GUIDANCE)
        rest = [m for m in messages if m.role != MessageRole.SYSTEM]
        return ([AgentMessage(MessageRole.SYSTEM, "\n\n".join(parts))] if parts else []) + rest

    def _forced_messages(self, instruction: str) -> list[AgentMessage]:
        """The last call of a turn without tools: the conversation, then the tool results as plain
        text. Small models shown their own tool-call history keep writing calls even when told not
        to; shown the results as a note, they answer."""
        calls = {c.id: c for m in self.transcript if m.tool_calls for c in m.tool_calls}
        results: dict[str, str] = {}  # the same call made twice is listed once
        for message in self.transcript:
            call = calls.get(message.tool_call_id or "") if message.role == MessageRole.TOOL else None
            if call is not None and message.content != REMINDER:  # a reminder holds no result
                arguments = json.dumps(call.arguments, ensure_ascii=False, default=str)
                results[f"- {call.name}({arguments}) returned: "] = message.content
        note = "".join(f"{head}{body}\n" for head, body in results.items())
        text = (f"Results of the tools you called:\n{note}\n" if note else "") + instruction
        persona = self._persona_instructions()
        conversation = [
            m
            for m in self.incoming
            if m.role in (MessageRole.USER, MessageRole.ASSISTANT) and not m.tool_calls and m.content
        ]
        messages = [AgentMessage(MessageRole.SYSTEM, "\n\n".join(persona))] if persona else []
        messages += [*conversation, AgentMessage(MessageRole.USER, text)]
        return messages if self.setup.brain.keeps_system else _fold_system(messages)

    def _brain_messages(self) -> list[AgentMessage]:
        """The transcript as this brain takes it: text-protocol form and/or system folded in."""
        messages = self._rendered() if self.setup.text_mode else list(self.transcript)
        return messages if self.setup.brain.keeps_system else _fold_system(messages)

    def _rendered(self) -> list[AgentMessage]:
        """The transcript in text-protocol form, for a brain without native tool calling."""
        out: list[AgentMessage] = []
        for message in self.transcript:
            if message.role == MessageRole.ASSISTANT and message.tool_calls:
                text = message.content or "\n".join(
                    render_call(c.name, c.arguments) for c in message.tool_calls
                )
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


def _fold_system(messages: list[AgentMessage]) -> list[AgentMessage]:
    """For a brain that would drop it: the system message goes into the first user message."""
    if not messages or messages[0].role != MessageRole.SYSTEM:
        return messages
    system, rest = messages[0].content, list(messages[1:])
    for i, message in enumerate(rest):
        if message.role == MessageRole.USER:
            rest[i] = AgentMessage(MessageRole.USER, f"{system}\n\n---\n\n{message.content}")
            return rest
    return [AgentMessage(MessageRole.USER, system), *rest]


def _once(calls: list[ToolCall]) -> list[ToolCall]:
    """``calls`` without repeats of an identical call, in order."""
    unique: dict[str, ToolCall] = {}
    for call in calls:
        unique.setdefault(_signature(call), call)
    return list(unique.values())


def _signature(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)
