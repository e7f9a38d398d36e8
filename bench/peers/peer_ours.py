"""This project: ``ovos-react-loop`` with its own brain ``ovos-openai-brain``.

With a brain that has native tool calling, ``ovos-react-loop`` (mode ``auto``)
uses native ``tool_calls`` and runs several calls of one reply concurrently.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolSpec, main
from _ovos import make_engine, runner, streamer

BRAIN = "ovos-openai-brain"


def _section(job: dict[str, Any]) -> dict[str, Any]:
    return {
        "api_url": job["base_url"],
        "key": "bench",
        "model": job["model"],
        "max_tokens": job.get("max_tokens", 512),
        "temperature": job.get("temperature", 0.2),
        "max_retries": 0,
        # The brain's read timeout; the task suite raises it so a loaded machine does not fail tasks.
        **({"timeout": job["request_timeout"]} if job.get("request_timeout") else {}),
    }


def build(job: dict[str, Any], tool: ToolSpec | None):
    return runner(make_engine(job, tool, BRAIN, _section(job)), stream=bool(job.get("stream")))


def build_stream(job: dict[str, Any], tool: ToolSpec | None):
    return streamer(make_engine(job, tool, BRAIN, _section(job)))


if __name__ == "__main__":
    main(build, build_stream)
