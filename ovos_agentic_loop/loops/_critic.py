"""``ovos-critic-loop``: draft with tools, critique the draft, verify the doubts with tools, revise.

CRITIC (Gou et al., 2023). Better than upstream's: the draft itself may use tools
(upstream drafts from memory), the critic sees the tool results behind the draft,
doubts are checked by the full ReAct loop (upstream passes a claim as a plain string
to a tool by name), the revision stops as soon as the critic accepts or a revision
changes nothing, and every round counts against the turn's budget.
"""

from __future__ import annotations

import re
from collections.abc import Generator

from ovos_plugin_manager.templates.agents import AgentMessage
from pydantic import ConfigDict, Field

from ovos_agentic_loop._text.protocol import clean_answer
from ovos_agentic_loop.events import Notice
from ovos_agentic_loop.loops._context import BudgetSpent, LoopContext
from ovos_agentic_loop.loops._parsing import parse_items, parse_verdict
from ovos_agentic_loop_settings import StrictSection

__all__ = ["Critic", "CriticSettings"]


class CriticSettings(StrictSection):
    model_config = ConfigDict(extra="forbid")  # strict and frozen: StrictSection

    max_critique_rounds: int = Field(
        default=2, ge=0, le=5, description="Critique and revise rounds after the draft."
    )
    verify_with_tools: bool = Field(
        default=True, description="Check the critic's doubts with the persona's tools before revising."
    )


_VERIFIED = re.compile(r"^\W*verified\b", re.IGNORECASE)
_CRITIQUE = (
    "You check a draft answer against the question and the tool results. If it is correct and complete, "
    "reply with the single word VERIFIED. Otherwise list each problem on its own line starting with "
    "'- ' (a wrong number, a missing part, a claim to check)."
)
_VERIFY = "Check these doubts about an answer with the tools and report the correct facts briefly."
_REVISE = (
    "Rewrite the draft answer so that it fixes the problems, using the checked facts. Reply with the "
    "answer to the user only, in plain sentences."
)


class Critic:
    name = "critic"

    def __init__(self, settings: CriticSettings) -> None:
        self.settings = settings

    def run(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]:
        s = self.settings
        draft = ctx.solve(ctx.question)
        current, evidence = draft.text, list(draft.evidence)
        try:
            for round_ in range(1, s.max_critique_rounds + 1):
                case = self._case(ctx, current, evidence)
                critique = ctx.ask(_CRITIQUE, case, history=False)
                problems = [] if _VERIFIED.match(critique) else parse_items(critique, limit=5)
                accepted = _VERIFIED.match(critique) is not None or (
                    not problems and parse_verdict(critique) is not False
                )
                ctx.step("critique", critique, round=round_, accepted=accepted)
                if accepted:
                    break
                doubts = "\n".join(f"- {p}" for p in problems) or critique.strip()
                checked = ""
                if s.verify_with_tools and ctx.tool_names:
                    verification = ctx.solve(
                        f"Question: {ctx.question}\nDraft answer: {current}\nDoubts:\n{doubts}",
                        guidance=_VERIFY,
                    )
                    evidence += verification.evidence
                    checked = f"\n\nChecked facts: {verification.text}"
                revised = clean_answer(
                    ctx.ask(_REVISE, f"{case}\n\nProblems:\n{doubts}{checked}", history=False)
                )
                ctx.step("revision", revised, round=round_)
                if not revised or revised.strip() == current.strip():
                    break  # the critic cannot move it further
                current = revised
        except BudgetSpent:
            ctx.turn.emit(Notice(message="the turn's model calls are spent; keeping the latest answer"))
        return (yield from ctx.answer(current, draft.reason if current == draft.text else "answer"))

    @staticmethod
    def _case(ctx: LoopContext, answer: str, evidence: list[str]) -> str:
        facts = "\n".join(f"- {line}" for line in evidence)
        facts = f"\n\nTool results:\n{facts}" if facts else ""
        return f"Question: {ctx.question}\n\nDraft answer: {answer}{facts}"
