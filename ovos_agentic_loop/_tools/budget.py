"""What a persona's tool list costs each request: how many tools it offers and how long the bundled
model's CPU takes to read them (``doctor`` shows it, and warns when the first read is slow)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ovos_agentic_loop._tools.selection import FIND_TOOLS_SPEC, selects
from ovos_agentic_loop._tools.spec import ToolSpec
from ovos_agentic_loop._tools.toolset import ToolSet
from ovos_agentic_loop.config import LoopConfig

__all__ = ["CHARS_PER_TOKEN", "PROMPT_TOKENS_PER_S", "SLOW_READ_S", "ToolBudget", "tool_budget"]

#: Prompt tokens a second the bundled model reads on the project's 2-core CPU (llama-bench pp512,
#: two threads: 39.9; README, "First contact"). A faster machine reads more: the warning is for this one.
PROMPT_TOKENS_PER_S = 40.0
#: Characters of tool JSON per token of the bundled model's tokenizer (Qwen2.5): the 15 tools of
#: local-assistant are 7,623 characters and about 2,150 tokens of its first request.
CHARS_PER_TOKEN = 3.5
#: A tool list read for longer than this before the first word is a wait a user notices.
SLOW_READ_S = 20.0


@dataclass(frozen=True)
class ToolBudget:
    tools: int  # the persona's tools
    offered: int  # the most tools one request offers
    selects: bool  # whether a turn offers a shortlist (``tool_selection``)
    tokens: int  # the largest tool list one request sends, estimated

    @property
    def read_s(self) -> float:
        """Seconds the bundled model takes to read that tool list the first time (no prompt cache)."""
        return self.tokens / PROMPT_TOKENS_PER_S

    @property
    def slow(self) -> bool:
        return self.read_s > SLOW_READ_S


def tool_budget(config: LoopConfig, toolset: ToolSet) -> ToolBudget:
    """The cost of the largest tool list a request of this persona can send: every tool, or with a
    shortlist ``find_tools``, the always-offered tools and the ``max_offered_tools`` largest others."""
    if not selects(config, toolset):
        return ToolBudget(len(toolset.tools), len(toolset.tools), False, _tokens(toolset.tools))
    always = [t for name in config.always_offered_tools if (t := toolset.get(name)) is not None]
    others = sorted((t for t in toolset.tools if t not in always), key=lambda t: -len(_json(t)))
    offered = [*always, FIND_TOOLS_SPEC, *others[: config.max_offered_tools]]
    return ToolBudget(len(toolset.tools), len(offered), True, _tokens(offered))


def _json(tool: ToolSpec) -> str:
    return json.dumps(tool.wire(), ensure_ascii=False)


def _tokens(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> int:
    return round(sum(len(_json(t)) for t in tools) / CHARS_PER_TOKEN)
