"""One turn of the loop: ask the model, run the tools it calls, feed the results back, answer.

All per-turn state lives in a :class:`Turn` (its fields: ``state.TurnState``), created for each
``continue_chat`` call, so one engine serves any number of sessions at once. ``Turn.run`` is a
small dispatcher: each reply becomes one decision of a closed set (``decisions``, read by
``reading``; the answers judged by the table of reactions, ``_rules``), and each decision is
carried out by one job of its own module: ``tool_steps``, ``confirming``, ``deciding``, ``forced``
and ``closing``, over THE model call (``model_call``); deciding changes nothing, and what a decision
counted is recorded as it is carried out (``tally``). The turn speaks through its ``speaker``.
Every ending the user may hear comes from one table (``endings``). Each tool call's typed outcome
(``_tools.observations.ToolOutcome``) is kept beside its TOOL message for the rest of the turn;
nothing reads an observation's text back.

``Turn.run`` is a generator: it yields the final answer's text deltas as they are
generated (when streaming) and returns the final ``AgentMessage``. The other
reasoning loops (``loops/``) use the same core through its public seam: ``ask``,
``sub_turn``, ``finish``, ``tool_outcomes``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import replace

from ovos_plugin_manager.templates.agents import AgentMessage, ToolCall

from ovos_agentic_loop._confirmation import Verdict
from ovos_agentic_loop._confirmation.pending import without_marks
from ovos_agentic_loop._runtime.cancellation import TurnInterrupted
from ovos_agentic_loop._tools.observations import Status, ToolOutcome
from ovos_agentic_loop._turn import closing, confirming, deciding, model_call, tally, tool_steps
from ovos_agentic_loop._turn.brain_call import BrainCallTimeout
from ovos_agentic_loop._turn.decisions import (
    AskFirst,
    CarryOut,
    Constrain,
    Correct,
    Decision,
    Finish,
    ForceAnswer,
    HandToCaller,
    Recheck,
    Remind,
    RunCalls,
    assert_never,
)
from ovos_agentic_loop._turn.endings import CUT_BY_BRAIN, CUT_BY_TIME, out_of_time
from ovos_agentic_loop._turn.forced import forced_answer
from ovos_agentic_loop._turn.reading import UNREADABLE_CALL, decide
from ovos_agentic_loop._turn.speaker import Gate, Say
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop.errors import BrainError, BrainReplyInvalid
from ovos_agentic_loop.events import ConfirmStep, Notice, StepEvent, TurnStart

__all__ = ["Turn"]


class Turn(TurnState):
    """One turn: its state (``TurnState``), the dispatcher, and the seam of the other loops."""

    # -- the dispatcher ---------------------------------------------------------------
    def run(self, stream: bool = False) -> Generator[str, None, AgentMessage]:
        shortlisted = {"offered": [t.name for t in self.offered.tools()]} if self.offered else {}
        self.emit(TurnStart(mode=self.mode, tools=self.setup.toolset.names, data=shortlisted))
        try:
            tool_steps.read_again(self)
            self._make_first_calls()
            decision = yield from self._next(stream)
            while True:
                tally.record(self, decision)  # what deciding counted, recorded as it is carried out
                match decision:
                    case Finish(answer, reason):
                        return closing.finish(self, answer, reason)
                    case HandToCaller(calls):
                        return closing.hand_to_caller(self, calls)
                    case ForceAnswer(reason, notice):
                        if notice:
                            self.emit(Notice(message=notice))
                        return (yield from forced_answer(self, reason, stream))
                    case Correct(message, notice, kept):
                        tool_steps.correct(self, message, notice, kept)
                    case Remind(calls, text):
                        tool_steps.remind(self, calls, text)
                    case Recheck(calls, message, text, held):
                        tool_steps.recheck(self, calls, message, text, held)
                    case RunCalls(calls, text):
                        tool_steps.run_tools(self, calls, text)
                    case AskFirst(proposal):
                        return confirming.ask_first(self, proposal)
                    case CarryOut(call):
                        tool_steps.run_tools(self, [call], "")
                    case Constrain():  # no decision in the reply: ask for one, constrained
                        decision = yield from deciding.constrained(self, decision)
                        continue
                    case _:
                        assert_never(decision)
                decision = yield from self._next(stream)
        except (TurnInterrupted, BrainCallTimeout, BrainError) as exc:
            return self._cut_off(exc)

    def _make_first_calls(self) -> None:
        """The last turn's call made again for a follow-up (``first_calls``): the model answers with
        its result in front of it."""
        if self.first_calls:
            made = [c.arguments for c in self.first_calls]
            self.emit(Notice(message=f"made again for a follow-up: {made}"))
            tool_steps.run_tools(self, list(self.first_calls), "")

    def _cut_off(self, exc: TurnInterrupted | BrainCallTimeout | BrainError) -> AgentMessage:
        """How a turn ends that could not finish: the user interrupted it (nothing more is said,
        what was said stands), its time ran out, or the model's reply broke off."""
        if isinstance(exc, TurnInterrupted):
            return closing.interrupted(self)
        if isinstance(exc, BrainCallTimeout):
            if closing.answer_begun(self):
                return closing.cut_short(self, "time_budget", CUT_BY_TIME)
            return closing.finish(self, out_of_time(self.setup.config.time_budget), "time_budget")
        if not closing.answer_begun(self):  # no answer said yet: the caller's fallback can still answer
            raise exc
        self.emit(Notice(message=f"the model's reply broke off: {exc}"))
        return closing.cut_short(self, "stream_cut", CUT_BY_BRAIN)

    def _next(self, stream: bool) -> Generator[str, None, Decision]:
        """One model call with tools, and what to do about its reply."""
        if (opening := confirming.answer_to_question(self)) is not None:
            return opening
        if self.iterations >= self.setup.config.max_iterations:
            return ForceAnswer("max_iterations")
        try:
            reply = yield from model_call.ask_with_tools(self, stream=stream)
        except BrainReplyInvalid as exc:  # the server could not read the model's tool call
            if self.limits.corrections_spent:
                return ForceAnswer("unparsable")
            self.count.used += 1
            return self.limits.correction(
                UNREADABLE_CALL, f"the server could not read the model's reply: {exc}"
            )
        return decide(self, reply)

    # -- the seam for the engine and the other reasoning loops (ovos_agentic_loop.loops) ----------
    def warm_up(self) -> None:
        """Get this turn's system prompt and tools into the brain's prompt cache; no tool runs."""
        model_call.warm_up(self)

    def unspoken(self, final: AgentMessage) -> str:
        """What a stream still has to say once the turn is over: the rest of its final answer."""
        return self.speaker.rest(final.content or "")

    def ask(
        self, messages: list[AgentMessage], *, stream: bool, gate: Gate | None = None
    ) -> Generator[str, None, AgentMessage]:
        """One plain model call (no tools, no protocol) of this turn, counted on its budget; while
        streaming, what ``gate`` lets through (then the turn's own gate) is yielded."""
        return (
            yield from model_call.call(
                self,
                messages,
                stream=stream,
                tools=None,
                say=Say(gate) if gate is not None else None,
                counted=True,
                stop=False,
            )
        )

    def finish(self, answer: str, reason: str) -> AgentMessage:
        """End the turn with ``answer`` (the ``final`` event)."""
        return closing.finish(self, answer, reason)

    def tool_outcomes(self) -> list[ToolOutcome]:
        """The outcomes of the tool calls this turn ran, in order (reminders left out)."""
        return [o for o in self.outcomes.values() if o.status is not Status.NOT_RUN_AGAIN]

    def sub_turn(
        self,
        incoming: list[AgentMessage],
        *,
        emit: Callable[[StepEvent], None],
        max_iterations: int,
    ) -> Turn:
        """A ReAct run inside this turn: the same brain, tools, deadline, call budget and limits; its own
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
            progress_voice=self.progress_voice,  # one listener: the turn's lines, not each sub-run's
            interrupt=self.interrupt,
            every_call_counts=True,
            session_key=self.session_key,
            asker=self.asker,
            shared_limits=self.limits,
        )

    def carry_out(self, call: ToolCall) -> ToolOutcome:
        """Run ``call`` (a pending call a GUI said yes to on the bus) with this turn's tool steps."""
        confirmed = ConfirmStep(
            tool=call.name,
            arguments=call.arguments,
            id=call.id[len("call_") :],
            decision="yes",
            data={"source": "bus"},
        )
        self.emit(confirmed)
        tool_steps.run_tools(self, [call], "")
        return self.outcomes[len(self.transcript) - 1]

    def answers_question(self) -> bool:
        """True when the user's message says yes or no to the question of the message before it
        (the loop then lets :meth:`run` carry it out). A query: see :meth:`drop_question`."""
        return self.opening is not None and self.opening.verdict is not Verdict.OTHER

    def drop_question(self) -> None:
        """A reply that is neither yes nor no to the pending question drops it (never run later)."""
        if self.opening is not None and self.opening.verdict is Verdict.OTHER:
            confirming.answer_to_question(self)

    def asked(self, message: AgentMessage) -> AgentMessage:
        """End the turn with a sub-run's question (``message`` holds its mark)."""
        content = message.content or ""
        return closing.finish(self, without_marks(content), "confirm", content=content)

    def progress(self, message: str) -> None:
        """Tell a waiting user what takes the time (a ``notice`` step with ``progress``: True)."""
        self.emit(Notice(message=message, progress=True))
