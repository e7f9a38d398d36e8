"""doctor's tool-list check: the offered-tool count and the tool list's size per persona,
with a warning when the bundled model's CPU reads it for more than 20 s the first time."""

from __future__ import annotations

import pytest
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from pydantic import Field

from ovos_agentic_loop._doctor import tool_list_check
from ovos_agentic_loop._tools.budget import PROMPT_TOKENS_PER_S, SLOW_READ_S
from ovos_agentic_loop.config import parse_config

pytest.importorskip("bm25s", reason="tool selection ranks with bm25s")


class LongArgs(ToolArguments):
    text: str = Field(description="a long description of what this argument holds " * 4)


class Out(ToolOutput):
    ok: bool


class ManyTools(ToolBox):
    def __init__(self, count: int) -> None:
        self.count = count
        super().__init__("many-tools", {}, None)

    def discover_tools(self) -> list[AgentTool]:
        describe = "Does one thing of the house well, described at the length real tools have. " * 3
        return [
            AgentTool(f"tool_{i}", describe, LongArgs, Out, lambda a: Out(ok=True)) for i in range(self.count)
        ]


def test_a_small_tool_list_is_ok_and_says_every_tool_is_offered(demo_tools: ToolBox) -> None:
    check = tool_list_check(parse_config({}, engine_name="t"), [demo_tools])
    assert check.level == "ok"
    assert check.detail.startswith("all 4 tools on every request; about ")


def test_a_long_tool_list_is_a_warning_with_its_read_time_and_a_fix() -> None:
    config = parse_config({"tool_selection": "all", "warm_up": False}, engine_name="t")
    check = tool_list_check(config, [ManyTools(60)])
    assert check.level == "warn"
    tokens = int(check.detail.split("about ")[1].split(" tokens")[0])
    assert tokens / PROMPT_TOKENS_PER_S > SLOW_READ_S
    assert "all 60 tools" in check.detail
    assert '"warm_up": true' in check.fix and '"tool_selection": "always"' in check.fix


def test_with_selection_the_check_counts_the_shortlist_not_the_catalog() -> None:
    every = tool_list_check(parse_config({"tool_selection": "all"}, engine_name="t"), [ManyTools(60)])
    short = tool_list_check(parse_config({"max_offered_tools": 2}, engine_name="t"), [ManyTools(60)])
    assert "at most 3 of 60 tools" in short.detail  # find_tools and two chosen per question
    tokens = [int(c.detail.split("about ")[1].split(" tokens")[0]) for c in (every, short)]
    assert tokens[1] < tokens[0] / 10
    assert short.level == "ok"
