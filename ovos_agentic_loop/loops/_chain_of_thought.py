"""``ovos-chain-of-thought-loop``: reason step by step, then answer; the reasoning is never spoken.

Zero-shot chain of thought (Kojima et al., 2022). Without tools: one call that writes
its reasoning, then ``Final Answer:``; only what follows the marker is streamed. With
tools (upstream ignores them): the reasoning runs as the ReAct loop with an
instruction to work step by step and check facts and numbers with the tools, and one
last call states the answer alone, streamed. A reply without the marker costs one
more short call that extracts the answer, so the reasoning still never reaches the user.
"""

from __future__ import annotations

import re
from collections.abc import Generator

from ovos_plugin_manager.templates.agents import AgentMessage
from pydantic import ConfigDict

from ovos_agentic_loop.loops._context import LoopContext
from ovos_agentic_loop.loops._gates import MarkerGate, after_marker
from ovos_agentic_loop_settings import StrictSection

__all__ = ["ChainOfThought", "ChainOfThoughtSettings"]


class ChainOfThoughtSettings(StrictSection):
    """No keys of its own: ``system_prompt``, brain, toolboxes and budgets are the loop's."""

    model_config = ConfigDict(extra="forbid")  # strict and frozen: StrictSection


_FINAL = re.compile(r"final[ _]*answer\s*[:：]", re.IGNORECASE)

_THINK = (
    "Think the problem through step by step before answering. Write your reasoning first, then one last "
    "line:\nFinal Answer: <the answer to the user, in plain sentences>"
)
_THINK_WITH_TOOLS = (
    "Work the problem out step by step. Use the tools for every calculation, date or fact you are not "
    "certain of. When done, reply with your reasoning and the result."
)
_STATE = (
    "Below is a worked solution to the user's request. State only the final answer to the user, in one "
    "or two plain sentences, without the reasoning."
)


class ChainOfThought:
    name = "chain-of-thought"

    def __init__(self, settings: ChainOfThoughtSettings) -> None:
        self.settings = settings

    def run(self, ctx: LoopContext) -> Generator[str, None, AgentMessage]:
        if ctx.tool_names:
            worked = ctx.solve(ctx.question, guidance=_THINK_WITH_TOOLS)
            ctx.step("reasoning", worked.text)
            return (yield from self._state(ctx, worked.text))
        gate = MarkerGate(_FINAL)
        reply = yield from ctx.ask_streamed(_THINK, ctx.question, gate=gate)
        answer = after_marker(reply, _FINAL)
        marker = _FINAL.search(reply)
        ctx.step("reasoning", reply[: marker.start()].strip() if marker else reply)
        if answer and gate.spoken:
            return ctx.turn.finish(answer, "answer")
        if answer:
            return (yield from ctx.answer(answer))
        return (yield from self._state(ctx, reply))

    @staticmethod
    def _state(ctx: LoopContext, worked: str) -> Generator[str, None, AgentMessage]:
        prompt = f"Request: {ctx.question}\n\nWorked solution:\n{worked}"
        return (yield from ctx.answer_from(_STATE, prompt))
