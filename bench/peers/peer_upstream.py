"""Upstream ``ovos-agentic-loop`` 0.2.5a1 with ``ovos-chat-openai-plugin`` as its brain.

``engine`` picks the path: ``ovos-react-loop`` reads only text (the ReAct
``Action:`` / ``FINAL_ANSWER:`` protocol, tool schemas in the system prompt);
``ovos-native-toolcall-loop`` uses native ``tool_calls`` because this brain has
``supports_tools = True``. The brain drops system messages unless
``allow_system_prompts`` is on, which would hide upstream's ReAct prompt (and all
tool schemas) from the model, so it is on here, as any working setup needs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolSpec, main
from _ovos import make_engine, runner, streamer

BRAIN = "ovos-chat-openai-plugin"


def _section(job: dict[str, Any]) -> dict[str, Any]:
    return {
        "api_url": job["base_url"],
        "key": "bench",
        "model": job["model"],
        "allow_system_prompts": True,
        "max_tokens": job.get("max_tokens", 512),
        "temperature": job.get("temperature", 0.2),
    }


def build(job: dict[str, Any], tool: ToolSpec | None):
    return runner(make_engine(job, tool, BRAIN, _section(job)), stream=bool(job.get("stream")))


def build_stream(job: dict[str, Any], tool: ToolSpec | None):
    return streamer(make_engine(job, tool, BRAIN, _section(job)))


if __name__ == "__main__":
    main(build, build_stream)
