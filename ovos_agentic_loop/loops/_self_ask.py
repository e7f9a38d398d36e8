"""``ovos-self-ask-loop``: simpler follow-up questions, each answered with tools, then the answer.

Self-Ask (Press et al., 2022). Better than upstream's: a follow-up is answered by the
full ReAct loop with the persona's tools (upstream sends the sub-question as the
query string of the first tool whose name looks like a search); a reply that writes
a follow-up AND a final answer is a follow-up (the model guessed the answer before
it had it); a repeated follow-up ends the asking; the final answer is streamed, and
nothing before its marker (the decomposition) is ever spoken.
"""

from __future__ import annotations

import re
from collections.abc import Generator

from ovos_plugin_manager.templates.agents import AgentMessage
from pydantic import ConfigDict, Field

from ovos_agentic_loop._text.protocol import clean_answer
from ovos_agentic_loop.events import Notice
from ovos_agentic_loop.loops._context import BudgetSpent, LoopContext
from ovos_agentic_loop.loops._gates import MarkerGate, after_marker
from ovos_agentic_loop_settings import StrictSection

__all__ = ["SelfAsk", "SelfAskSettings"]


class SelfAskSettings(StrictSection):
    model_config = ConfigDict(extra="forbid")  # strict and frozen: StrictSection

    max_follow_ups: int = Field(default=3, ge=0, le=8, description="Follow-up questions asked per turn.")


_FINAL = re.compile(r"so\s+the\s+final\s+answer\s+is\s*[:：]", re.IGNORECASE)
_FOLLOW_UP = re.compile(r"follow[\s-]*up\s*[:：]\s*(?P<q>[^\n]+)", re.IGNORECASE)

_DECIDE = (
    "Answer the question by first asking simpler follow-up questions, one at a time; each is answered "
    "for you{tools}. Reply with exactly ONE line:\n"
    "Follow up: <one simple question>\n"
    "or, when the answers below are enough:\n"
    "So the final answer is: <the answer to the user, in plain sentences>"
)
_SYNTHESIS = (
    "Answer the question from the intermediate answers below. Reply with the answer only, in plain sentences."
)


class SelfAsk:
    name = "self-ask"

    def __init__(self, settings: SelfAskSettings) -> None:
        self.settings = settings

    def run(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]:
        tools = " with tools" if ctx.tool_names else ""
        instruction = _DECIDE.format(tools=tools)
        asked: list[tuple[str, str]] = []
        try:
            while True:
                prompt = self._prompt(ctx, asked)
                # Only the text after the final marker is spoken; a follow-up before it shuts the gate.
                gate = MarkerGate(_FINAL, blocker=_FOLLOW_UP)
                reply = yield from ctx.ask_streamed(instruction, prompt, gate=gate)
                follow_up, marker = _FOLLOW_UP.search(reply), _FINAL.search(reply)
                if marker is not None and (follow_up is None or marker.start() < follow_up.start()):
                    text = after_marker(reply, _FINAL)
                    if not text:
                        break
                    if gate.spoken:  # the answer went out while it was written
                        return ctx.turn.finish(text, "answer")
                    return (yield from ctx.answer(text))
                if follow_up is None:
                    # Neither form (a small model talking about what it would do): before any follow-up,
                    # the question itself goes to the ReAct loop; after some, their answers are enough.
                    if asked or not ctx.tool_names:
                        text = clean_answer(reply)
                        if not text:
                            break
                        return (yield from ctx.answer(text))
                    question = ctx.question
                else:
                    question = follow_up.group("q").strip()
                if len(asked) >= self.settings.max_follow_ups:
                    break
                if any(question.lower() == q.lower() for q, _ in asked):
                    ctx.turn.emit(Notice(message=f"follow-up asked twice ({question!r}); answering now"))
                    break
                result = ctx.solve(question)
                asked.append((question, result.text))
                ctx.step("intermediate_answer", result.text, question=question)
        except BudgetSpent:
            ctx.turn.emit(Notice(message="the turn's model calls are spent; answering from what is known"))
        fallback = asked[-1][1] if asked else ""
        return (yield from ctx.answer_from(_SYNTHESIS, self._prompt(ctx, asked), fallback=fallback))

    @staticmethod
    def _prompt(ctx: LoopContext, asked: list[tuple[str, str]]) -> str:
        lines = [f"Question: {ctx.question}"]
        for question, answer in asked:
            lines += [f"Follow up: {question}", f"Intermediate answer: {answer}"]
        return "\n".join(lines)
