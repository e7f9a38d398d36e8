"""``ovos-plan-execute-loop``: plan, run each step with tools, re-plan when a step fails, synthesise.

Plan-and-Solve (Wang et al., 2023). Better than upstream's: the plan is read
tolerantly (numbers, bullets, ``Step 1:``, bold) and is a step event; a plan the model
cannot write falls back to the ReAct loop on the whole question (upstream returns the
plan text as the answer); a failed step triggers a re-plan of what remains; a one-step
plan answers directly (no synthesis call); every call counts against the turn's budget.
"""

from __future__ import annotations

from collections.abc import Generator

from ovos_plugin_manager.templates.agents import AgentMessage
from pydantic import ConfigDict, Field

from ovos_agentic_loop.events import Notice
from ovos_agentic_loop.loops._context import BudgetSpent, LoopContext, SubResult
from ovos_agentic_loop.loops._parsing import parse_items
from ovos_agentic_loop_settings import StrictSection

__all__ = ["PlanExecute", "PlanExecuteSettings"]


class PlanExecuteSettings(StrictSection):
    model_config = ConfigDict(extra="forbid")  # strict and frozen: StrictSection

    max_steps: int = Field(default=4, ge=1, le=10, description="Steps of a plan that are run.")
    max_step_iterations: int = Field(
        default=3, ge=1, le=20, description="Model calls with tools one step may take."
    )
    max_replans: int = Field(default=1, ge=0, le=3, description="New plans made after a failed step.")


_PLANNER = (
    "You are planning, not answering. Break the user's request into at most {max_steps} short steps, "
    "each one small task (one lookup, one calculation, one fact). {tools}"
    "Reply ONLY with a numbered list, one step per line. A simple request needs one step."
)
_REPLANNER = (
    "You are planning, not answering. A step of the plan failed. Write a new plan for what is still "
    "needed to answer the request, at most {max_steps} steps. {tools}"
    "Reply ONLY with a numbered list, one step per line."
)
_STEP = (
    "This is one step of a larger task. Do only this step and reply with its result in one or two "
    "sentences (the numbers and facts, not the method)."
)
_SYNTHESIS = (
    "Answer the user's request from the results of the steps below. Reply with the answer only, in plain "
    "sentences, without mentioning steps or plans."
)


class PlanExecute:
    name = "plan-execute"

    def __init__(self, settings: PlanExecuteSettings) -> None:
        self.settings = settings

    def run(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]:
        s = self.settings
        done: list[tuple[str, SubResult]] = []
        try:
            steps = parse_items(ctx.ask(self._prompt(_PLANNER, ctx), ctx.question), limit=s.max_steps)
            ctx.plan(steps, revision=0)
            if not steps:  # no plan: the ReAct loop on the whole question beats guessing
                ctx.turn.emit(Notice(message="the plan could not be read; solving the request directly"))
                return (yield from self._direct(ctx))
            if len(steps) == 1:
                return (yield from self._direct(ctx))
            replans = 0
            while steps:
                step = steps.pop(0)
                result = ctx.solve(
                    self._step_task(ctx, step, done), guidance=_STEP, max_calls=s.max_step_iterations
                )
                done.append((step, result))
                ctx.step("step_result", result.text, step=step, ok=result.ok)
                if not result.ok and replans < s.max_replans and ctx.remaining >= 3:
                    replans += 1
                    prompt = f"Request: {ctx.question}\n\nResults so far:\n{_results(done)}"
                    steps = parse_items(ctx.ask(self._prompt(_REPLANNER, ctx), prompt), limit=s.max_steps)
                    ctx.plan(steps, revision=replans)
        except BudgetSpent:
            ctx.turn.emit(Notice(message="the turn's model calls are spent; answering from the steps done"))
        if not done:
            return (yield from ctx.gave_up())
        prompt = f"Request: {ctx.question}\n\nStep results:\n{_results(done)}"
        return (yield from ctx.answer_from(_SYNTHESIS, prompt, fallback=done[-1][1].text))

    def _direct(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]:
        result = ctx.solve(ctx.question)
        return (yield from ctx.answer(result.text, result.reason))

    def _prompt(self, template: str, ctx: LoopContext) -> str:
        names = ctx.tool_names
        tools = f"Tools the steps can use: {', '.join(names)}. " if names else ""
        return template.format(max_steps=self.settings.max_steps, tools=tools)

    @staticmethod
    def _step_task(ctx: LoopContext, step: str, done: list[tuple[str, SubResult]]) -> str:
        known = f"\nKnown so far:\n{_results(done)}" if done else ""
        return f"Overall request: {ctx.question}{known}\n\nThis step: {step}"


def _results(done: list[tuple[str, SubResult]]) -> str:
    return "\n".join(
        f"{i}. {step} -> {result.text or '(no result)'}" for i, (step, result) in enumerate(done, 1)
    )
