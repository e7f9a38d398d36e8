"""``ovos-reflexion-loop``: answer with tools, judge the answer, retry with the lesson learned.

Reflexion (Shinn et al., 2023). Better than upstream's: the judgement and the
reflection are ONE call (upstream: two), the judge sees the tool results the answer
was built on (not only the answer text), an unreadable verdict accepts the answer
instead of burning calls, and every attempt counts against the turn's budget.
"""

from __future__ import annotations

from collections.abc import Generator

from ovos_plugin_manager.templates.agents import AgentMessage
from pydantic import ConfigDict, Field

from ovos_agentic_loop.events import Notice
from ovos_agentic_loop.loops._context import BudgetSpent, LoopContext, SubResult
from ovos_agentic_loop.loops._parsing import parse_verdict
from ovos_agentic_loop_settings import StrictSection

__all__ = ["Reflexion", "ReflexionSettings"]


class ReflexionSettings(StrictSection):
    model_config = ConfigDict(extra="forbid")  # strict and frozen: StrictSection

    max_reflections: int = Field(
        default=2,
        ge=1,
        le=5,
        description="Attempts at the answer (the first plus retries after a reflection).",
    )


_JUDGE = (
    "You check an assistant's answer. On the first line write SATISFACTORY if the answer is correct, "
    "complete and answers the question, else UNSATISFACTORY. If unsatisfactory, write on the next line "
    "one or two sentences on what to do differently (which tool to use, what is missing)."
)
_LESSONS = (
    "You tried this request before and your answer was judged wrong. Lessons from those attempts:\n{lessons}"
)


class Reflexion:
    name = "reflexion"

    def __init__(self, settings: ReflexionSettings) -> None:
        self.settings = settings

    def run(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]:
        lessons: list[str] = []
        last: SubResult | None = None
        try:
            for attempt in range(1, self.settings.max_reflections + 1):
                guidance = _LESSONS.format(lessons="\n".join(f"- {x}" for x in lessons)) if lessons else ""
                last = ctx.solve(ctx.question, guidance=guidance)
                if attempt == self.settings.max_reflections:
                    break  # no retry left: judging it would only spend a call
                judgement = ctx.ask(_JUDGE, self._case(ctx, last), history=False)
                verdict = parse_verdict(judgement)
                ctx.step("evaluation", judgement, attempt=attempt, accepted=verdict is not False)
                if verdict is not False:  # accepted, or a verdict the model could not write: keep it
                    break
                lesson = "\n".join(judgement.strip().splitlines()[1:]).strip() or judgement.strip()
                lessons.append(lesson)
                ctx.step("reflection", lesson, attempt=attempt)
        except BudgetSpent:
            ctx.turn.emit(Notice(message="the turn's model calls are spent; keeping the last answer"))
        if last is None:
            return (yield from ctx.gave_up())
        return (yield from ctx.answer(last.text, last.reason))

    @staticmethod
    def _case(ctx: LoopContext, result: SubResult) -> str:
        evidence = f"\n\nTool results it used:\n{result.evidence_text()}" if result.evidence else ""
        return f"Question: {ctx.question}\n\nAnswer: {result.text}{evidence}"
