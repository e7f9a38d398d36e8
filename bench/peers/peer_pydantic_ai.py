"""pydantic-ai: an ``Agent`` on ``OpenAIChatModel`` (chat completions), plain tools.

It calls the tools of one turn concurrently (sync tools go to a thread).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolSpec, main
from openai import AsyncOpenAI
from pydantic_ai import Agent, Tool
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits


def _agent(job: dict[str, Any], tool: ToolSpec | None) -> Agent:
    client = AsyncOpenAI(base_url=job["base_url"], api_key="bench", max_retries=0)
    model = OpenAIChatModel(job["model"], provider=OpenAIProvider(openai_client=client))
    tools = []
    if tool:
        func = tool.func

        def bench_tool(text: str) -> str:
            return func(text)

        bench_tool.__name__ = tool.name
        bench_tool.__doc__ = f"{tool.doc}\n\nArgs:\n    text: {tool.arg_doc}"
        tools.append(Tool(bench_tool, takes_ctx=False))
    return Agent(model, tools=tools)


LIMITS = UsageLimits(request_limit=100)


def build(job: dict[str, Any], tool: ToolSpec | None):
    agent = _agent(job, tool)

    def run(prompt: str) -> str:
        return str(agent.run_sync(prompt, usage_limits=LIMITS).output)

    return run


def build_stream(job: dict[str, Any], tool: ToolSpec | None):
    agent = _agent(job, tool)

    def stream(prompt: str):
        result = agent.run_stream_sync(prompt, usage_limits=LIMITS)
        yield from result.stream_text(delta=True)

    return stream


if __name__ == "__main__":
    main(build, build_stream)
