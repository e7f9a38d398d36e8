"""smolagents: a ``ToolCallingAgent`` (native tool calls) on ``OpenAIServerModel``.

smolagents ends a run with a call to its own ``final_answer`` tool; the scripted
server answers that way when the tool is offered. It runs several tool calls of
one turn in a thread pool.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolSpec, main
from smolagents import OpenAIServerModel, Tool, ToolCallingAgent


def _tool(spec: ToolSpec) -> Tool:
    class _BenchTool(Tool):
        name = spec.name
        description = spec.doc
        inputs = {spec.arg: {"type": "string", "description": spec.arg_doc}}  # noqa: RUF012
        output_type = "string"

        def forward(self, text: str) -> str:
            return spec.func(text)

    return _BenchTool()


def build(job: dict[str, Any], tool: ToolSpec | None):
    model = OpenAIServerModel(
        model_id=job["model"], api_base=job["base_url"], api_key="bench", client_kwargs={"max_retries": 0}
    )
    agent = ToolCallingAgent(
        tools=[_tool(tool)] if tool else [], model=model, verbosity_level=-1, max_steps=40
    )

    def run(prompt: str) -> str:
        return str(agent.run(prompt))

    return run


if __name__ == "__main__":
    main(build)
