"""openai-agents: an ``Agent`` on ``OpenAIChatCompletionsModel`` (chat completions API).

Tracing is disabled (it would try to export to the network). Sync tools run in a
thread, several calls of one turn concurrently. One event loop for the whole run,
so the async HTTP client keeps its connections.
"""

from __future__ import annotations

import asyncio
import queue
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolSpec, main
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI
from openai.types.responses import ResponseTextDeltaEvent

set_tracing_disabled(True)


def _agent(job: dict[str, Any], tool: ToolSpec | None) -> Agent:
    client = AsyncOpenAI(base_url=job["base_url"], api_key="bench", max_retries=0)
    tools = []
    if tool:
        func = tool.func

        def bench_tool(text: str) -> str:
            return func(text)

        tools.append(function_tool(bench_tool, name_override=tool.name, description_override=tool.doc))
    return Agent(
        name="bench",
        instructions="You are a helpful assistant.",
        tools=tools,
        model=OpenAIChatCompletionsModel(model=job["model"], openai_client=client),
    )


def build(job: dict[str, Any], tool: ToolSpec | None):
    agent = _agent(job, tool)
    loop = asyncio.new_event_loop()

    def run(prompt: str) -> str:
        return str(loop.run_until_complete(Runner.run(agent, prompt, max_turns=50)).final_output)

    return run


def build_stream(job: dict[str, Any], tool: ToolSpec | None):
    agent = _agent(job, tool)
    loop = asyncio.new_event_loop()

    def stream(prompt: str):
        # run_streamed needs a running loop: pump it in a thread, hand deltas over a queue.
        deltas: queue.Queue[Any] = queue.Queue()

        async def pump() -> None:
            try:
                result = Runner.run_streamed(agent, prompt, max_turns=50)
                async for event in result.stream_events():
                    if event.type == "raw_response_event" and isinstance(event.data, ResponseTextDeltaEvent):
                        deltas.put(event.data.delta)
            except Exception as exc:  # noqa: BLE001 - re-raised in the caller's thread
                deltas.put(exc)
            deltas.put(None)

        worker = threading.Thread(target=loop.run_until_complete, args=(pump(),))
        worker.start()
        while (item := deltas.get()) is not None:
            if isinstance(item, Exception):
                raise item
            yield item
        worker.join()

    return stream


if __name__ == "__main__":
    main(build, build_stream)
