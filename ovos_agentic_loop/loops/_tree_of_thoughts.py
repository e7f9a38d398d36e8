"""``ovos-tree-of-thoughts-loop``: a few candidate thoughts per level, scored, the best kept; then
the best line of thought is carried out with tools.

Tree of Thoughts, beam search (Yao et al., 2023). Better than upstream's: each branch
asks for all its candidates in ONE call (upstream: one call per candidate) and each
level scores all candidates in ONE call (upstream: one call per candidate), so a level
costs ``beam + 1`` calls instead of ``2 x beam x branches``; the search is bounded by
``max_depth``, ``beam_width`` and the turn's budget; the chosen line of thought is then
carried out by the ReAct loop with the persona's tools (upstream's thoughts never use
tools) and only that answer is spoken.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass

from ovos_plugin_manager.templates.agents import AgentMessage
from pydantic import ConfigDict, Field

from ovos_agentic_loop._text.protocol import clean_answer
from ovos_agentic_loop.events import Notice
from ovos_agentic_loop.loops._context import BudgetSpent, LoopContext
from ovos_agentic_loop.loops._parsing import parse_items, parse_scores
from ovos_agentic_loop_settings import StrictSection

__all__ = ["TreeOfThoughts", "TreeOfThoughtsSettings"]


class TreeOfThoughtsSettings(StrictSection):
    model_config = ConfigDict(extra="forbid")  # strict and frozen: StrictSection

    n_branches: int = Field(
        default=3, ge=1, le=5, description="Candidate thoughts proposed per branch and level."
    )
    beam_width: int = Field(default=2, ge=1, le=4, description="Best candidates kept at each level.")
    max_depth: int = Field(default=2, ge=1, le=5, description="Levels of thoughts before the answer.")


_ANSWERED = re.compile(r"\banswer\s*[:：]", re.IGNORECASE)
_PROPOSE = (
    "You explore ways to solve a problem. Propose {n} different possible next steps of reasoning, as a "
    "numbered list, one or two sentences each. A step that reaches the answer ends with 'ANSWER: <answer>'."
)
_SCORE = (
    "Rate how much each candidate step helps to reach a correct answer, from 0 (wrong or useless) to 10 "
    "(clearly right). Reply with one line per candidate: '<number>: <score>'."
)
_CARRY_OUT = (
    "A promising way to solve this, worked out before:\n{path}\n"
    "Follow it, check facts and numbers with the tools, then answer."
)
_CONCLUDE = (
    "Below is a line of reasoning about the user's request. Give the final answer to the user, in plain "
    "sentences, without the reasoning."
)


@dataclass(frozen=True)
class _Branch:
    thoughts: tuple[str, ...] = ()
    score: float = 0.0

    def text(self) -> str:
        return "\n".join(f"{i}. {t}" for i, t in enumerate(self.thoughts, 1)) or "(none yet)"


class TreeOfThoughts:
    name = "tree-of-thoughts"

    def __init__(self, settings: TreeOfThoughtsSettings) -> None:
        self.settings = settings

    def run(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]:
        s = self.settings
        beam = [_Branch()]
        try:
            for depth in range(1, s.max_depth + 1):
                candidates = [
                    _Branch((*branch.thoughts, thought))
                    for branch in beam
                    for thought in self._propose(ctx, branch)
                ]
                if not candidates:
                    break
                beam = self._keep_best(ctx, candidates, depth)
                if _ANSWERED.search(beam[0].thoughts[-1]):
                    break
        except BudgetSpent:
            ctx.turn.emit(
                Notice(message="the turn's model calls are spent; going with the best thought so far")
            )
        best = beam[0]
        if ctx.tool_names and ctx.remaining >= 2:
            path = best.text()
            result = ctx.solve(ctx.question, guidance=_CARRY_OUT.format(path=path) if best.thoughts else "")
            return (yield from ctx.answer(result.text, result.reason))
        prompt = f"Request: {ctx.question}\n\nReasoning:\n{best.text()}"
        return (yield from ctx.answer_from(_CONCLUDE, prompt))

    def _propose(self, ctx: LoopContext, branch: _Branch) -> list[str]:
        n = self.settings.n_branches
        prompt = f"Problem: {ctx.question}\n\nReasoning so far:\n{branch.text()}"
        reply = ctx.ask(_PROPOSE.format(n=n), prompt, history=False)
        thoughts = parse_items(reply, limit=n)
        if not thoughts:  # one paragraph instead of a list: it is one thought
            thought = clean_answer(reply)
            thoughts = [thought] if thought else []
        return thoughts

    def _keep_best(self, ctx: LoopContext, candidates: list[_Branch], depth: int) -> list[_Branch]:
        width = self.settings.beam_width
        if len(candidates) <= 1:
            return candidates
        listing = "\n".join(f"{i}. {c.thoughts[-1]}" for i, c in enumerate(candidates, 1))
        reply = ctx.ask(_SCORE, f"Problem: {ctx.question}\n\nCandidate steps:\n{listing}", history=False)
        scores = parse_scores(reply, len(candidates))
        if scores is None:  # unreadable: keep the proposal order (the model's own preference)
            scores = [float(len(candidates) - i) for i in range(len(candidates))]
        scored = [_Branch(c.thoughts, score) for c, score in zip(candidates, scores, strict=True)]
        # sorted() is stable: equal scores keep the proposal order
        kept = sorted(scored, key=lambda b: b.score, reverse=True)[:width]
        ctx.step("scores", reply, depth=depth, scores=scores, kept=[b.thoughts[-1] for b in kept])
        return kept
