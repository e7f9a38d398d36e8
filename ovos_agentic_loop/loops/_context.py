"""The seam between a reasoning loop (a strategy) and the one turn core.

A strategy decides WHAT to ask: a plan, a critique, a sub-question. The core, through
:class:`LoopContext`, does everything else for it, the same way for every loop:

- ``ask``: one plain model call (no tools) under the turn's deadline, counted against
  ``max_iterations``, with a step event; while streaming, only what a gate lets through
  is yielded.
- ``solve``: the ReAct loop itself (tools from the persona's toolboxes, the one function
  that turns tool failures into observations, repetition and correction rules) as a
  sub-run with its own transcript, sharing the turn's deadline and call budget.
- ``answer`` / ``answer_from``: the final answer, as the ``final`` event; only this text
  is ever returned or spoken.

Budgets bound the whole turn: every model call of every sub-step counts against
``max_iterations``; when they are spent, ``ask``/``solve`` raise :class:`BudgetSpent` and
the strategy answers from what it has (``answer_from`` may make one last call, as the
ReAct loop's forced answer does). The turn's ``time_budget`` is one deadline for all calls.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._tools.observations import ToolOutcome
from ovos_agentic_loop._turn.brain_call import BrainCallTimeout
from ovos_agentic_loop._turn.endings import NO_ANSWER, answer_of, out_of_steps, out_of_time
from ovos_agentic_loop._turn.speaker import Gate, Pass
from ovos_agentic_loop._turn.transcript import conversation
from ovos_agentic_loop._turn.turn import Turn
from ovos_agentic_loop.events import Final, Plan, StepEvent, StrategyStep, TurnStart

__all__ = ["AskedFirst", "BudgetSpent", "LoopContext", "Strategy", "SubResult", "drive"]


@dataclass(frozen=True)
class SubResult:
    """What a ReAct sub-run gave: its answer, how it ended, and the tool results it saw."""

    text: str
    reason: str  # "answer", or why the sub-run was cut short: "max_iterations", "repetition", ...
    evidence: list[str] = field(default_factory=list)  # "name({args}) returned: ..." lines
    failures: int = 0  # tool calls that failed

    @property
    def ok(self) -> bool:
        """An answer of its own, not one forced by a limit, and not only failed tools behind it."""
        return self.reason == "answer" and bool(self.text) and not (self.failures and not self.succeeded)

    @property
    def succeeded(self) -> int:
        return len(self.evidence) - self.failures

    def evidence_text(self) -> str:
        return "\n".join(f"- {line}" for line in self.evidence)


class BudgetSpent(Exception):
    """The turn's ``max_iterations`` model calls are used up: answer from what is known."""


class AskedFirst(Exception):
    """A sub-run wants to make a call that needs the user's yes: the turn ends with its question,
    whatever step of the strategy it came from (nothing of the strategy runs on without the yes)."""

    def __init__(self, message: AgentMessage) -> None:
        super().__init__(message.content)
        self.message = message


class Strategy(Protocol):
    """What a reasoning loop provides: its name and one generator over a :class:`LoopContext`
    that yields the final answer's spoken deltas and returns the final message."""

    name: str

    def run(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]: ...


def drive(strategy: Strategy, turn: Turn, *, stream: bool) -> Generator[str, None, AgentMessage]:
    """Run ``strategy`` over ``turn``: the turn's start event, its time budget and spent budgets.

    A yes or a no to the question of the message before is the turn core's (every loop carries it
    out alike: the call runs once, then a ReAct run answers); a question asked by a sub-run ends
    the turn."""
    if turn.answers_question():
        return (yield from turn.run(stream=stream))
    turn.drop_question()  # neither yes nor no: an ordinary message for the strategy
    ctx = LoopContext(turn, stream=stream, loop=strategy.name)
    setup = turn.setup
    turn.emit(
        TurnStart(mode="text" if setup.text_mode else "native", tools=setup.toolset.names, loop=ctx.loop)
    )
    try:
        return (yield from strategy.run(ctx))
    except BrainCallTimeout:
        return (yield from ctx.answer(out_of_time(setup.config.time_budget), "time_budget"))
    except BudgetSpent:  # a strategy that did not handle it itself: nothing usable was gathered
        return (yield from ctx.gave_up())
    except AskedFirst as asked:
        return turn.asked(asked.message)


class LoopContext:
    """One turn as a strategy sees it. Per-turn state only: a new context for every turn."""

    def __init__(self, turn: Turn, *, stream: bool, loop: str) -> None:
        self.turn = turn
        self.stream = stream
        self.loop = loop
        users = [m for m in turn.incoming if m.role == MessageRole.USER]
        self.question = users[-1].content if users else ""
        # Earlier turns of the conversation, as plain text messages (context for follow-ups).
        last_user = max((i for i, m in enumerate(turn.incoming) if m.role == MessageRole.USER), default=-1)
        self.history = conversation(turn.incoming[: max(last_user, 0)])

    # -- what the strategy may look at ------------------------------------------------
    @property
    def calls(self) -> int:
        """Model calls of this turn so far, sub-runs included."""
        return self.turn.calls_used

    @property
    def max_calls(self) -> int:
        return self.turn.setup.config.max_iterations

    @property
    def remaining(self) -> int:
        """Model calls left in the turn's budget (the last answer call is not counted)."""
        return self.max_calls - self.calls

    @property
    def tool_names(self) -> list[str]:
        return list(self.turn.setup.toolset.names)

    def step(self, phase: str, text: str, **data: Any) -> None:
        """A ``strategy_step`` event: a critique, a score, a sub-answer."""
        self.turn.emit(StrategyStep(loop=self.loop, phase=phase, text=text, data=data))

    def plan(self, steps: list[str], revision: int) -> None:
        """A ``plan`` event."""
        self.turn.emit(Plan(steps=list(steps), revision=revision))

    # -- primitives ---------------------------------------------------------------------
    def ask(self, instruction: str, prompt: str, *, history: bool = True) -> str:
        """One plain model call: ``instruction`` as system (after the persona's), ``prompt`` as user.

        Raises :class:`BudgetSpent` when the turn has no calls left.
        """
        return _drain(self._call(self._messages(instruction, prompt, history), gate=None, stream=False))

    def ask_streamed(
        self, instruction: str, prompt: str, *, gate: Gate, history: bool = True
    ) -> Generator[str, None, str]:
        """As :meth:`ask`; while streaming, yields what ``gate`` lets through (the final-answer part)."""
        return (yield from self._call(self._messages(instruction, prompt, history), gate=gate, stream=True))

    def solve(self, task: str, *, guidance: str = "", max_calls: int | None = None) -> SubResult:
        """The ReAct loop with the persona's tools on ``task``, as a sub-run of this turn.

        Its model calls count against the turn's budget (at most ``max_calls`` of them with
        tools, and one more for its own forced answer); it shares the deadline. Returns its
        answer (never protocol), how it ended and the tool results it saw. Raises
        :class:`BudgetSpent` when fewer than two calls are left, :class:`BrainCallTimeout`
        when the time budget ran out inside it.
        """
        if self.remaining < 2:
            raise BudgetSpent()
        limit = self.remaining - 1  # one call stays free for the sub-run's own forced answer
        if max_calls is not None:
            limit = max(1, min(limit, max_calls))
        # The caller's system messages, then the loop's guidance; the sub-run adds the persona's
        # system_prompt and the tool protocol to them, as for any turn.
        incoming = [m for m in self.turn.incoming if m.role == MessageRole.SYSTEM and m.content]
        if guidance:
            incoming.append(AgentMessage(MessageRole.SYSTEM, guidance))
        incoming += [*self.history, AgentMessage(MessageRole.USER, task)]
        loop = self.loop
        emit = self.turn.setup.emit

        def relay(event: StepEvent) -> None:
            if isinstance(event, TurnStart):
                return  # the turn started once, with this loop's name
            if isinstance(event, Final):  # the sub-run's answer is a step of this loop, not the turn's end
                extra = {"task": task, "reason": event.reason}
                event = StrategyStep(
                    session_id=event.session_id, loop=loop, phase="sub_answer", text=event.answer, data=extra
                )
            emit(event)

        sub = self.turn.sub_turn(incoming, emit=relay, max_iterations=limit)
        result = _drain(sub.run(stream=False))
        if sub.ending == "time_budget":
            raise BrainCallTimeout()
        if sub.ending == "confirm":
            raise AskedFirst(result)
        outcomes = sub.tool_outcomes()
        failures = sum(1 for o in outcomes if not o.ok)
        evidence = [_evidence(o) for o in outcomes]
        return SubResult(result.content or "", sub.ending or "answer", evidence, failures)

    def answer(self, text: str, reason: str = "answer") -> Generator[str, None, AgentMessage]:
        """Finish the turn with ``text``, already known whole (the engine's stream speaks it)."""
        if not text.strip():
            text, reason = NO_ANSWER, "no_answer"
        # The engine's stream says what the turn's gate has not said yet (``Turn.unspoken``): all of it.
        return self.turn.finish(text, reason)
        yield  # a generator like every step of a strategy

    def answer_from(
        self, instruction: str, prompt: str, *, reason: str = "answer", fallback: str = ""
    ) -> Generator[str, None, AgentMessage]:
        """One last model call writes the final answer, streamed as it is written.

        Allowed even when the budget is spent (as the ReAct loop's forced answer). A reply
        that is protocol, not an answer, gives ``fallback`` (or a plain apology).
        """
        messages = self._messages(instruction, prompt, history=True)
        reply = yield from self._call(messages, gate=Pass(), stream=self.stream, budgeted=False)  # all answer
        text = answer_of(reply, self.tool_names)
        if text:
            return self.turn.finish(text, reason)  # already spoken while it was written
        return (yield from self.answer(fallback or NO_ANSWER, "no_answer"))

    def gave_up(self) -> Generator[str, None, AgentMessage]:
        """The turn's calls are spent and nothing usable was gathered."""
        return (yield from self.answer(out_of_steps(self.max_calls), "max_iterations"))

    # -- internals ----------------------------------------------------------------------
    def _messages(self, instruction: str, prompt: str, history: bool) -> list[AgentMessage]:
        system = "\n\n".join([*self.turn.persona_instructions(), instruction.strip()]).strip()
        messages = [AgentMessage(MessageRole.SYSTEM, system)] if system else []
        if history:
            messages += self.history
        messages.append(AgentMessage(MessageRole.USER, prompt))
        return self.turn.for_brain(messages)

    def _call(
        self, messages: list[AgentMessage], *, gate: Gate | None, stream: bool, budgeted: bool = True
    ) -> Generator[str, None, str]:
        """One model call through the core (``Turn.ask``): what ``gate`` lets through (the answer
        part of this reply) then goes through the turn's own gate, as any reply's text does."""
        if budgeted and self.remaining < 1:
            raise BudgetSpent()
        reply = yield from self.turn.ask(messages, stream=stream, gate=gate)
        return reply.content or ""


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _evidence(outcome: ToolOutcome) -> str:
    """A tool result as a line of evidence for the strategy's later calls."""
    call = f"{outcome.call.name}({json.dumps(outcome.call.arguments, default=str)})"
    if outcome.ok:
        return f"{call} returned: {_short(outcome.observation)}"
    return f"{call} failed: {_short(str(outcome.error))}"


def _drain(run: Iterator[Any] | Generator[Any, None, Any]) -> Any:
    """Run a turn generator to its end without speaking; its return value."""
    while True:
        try:
            next(run)
        except StopIteration as done:
            return done.value
