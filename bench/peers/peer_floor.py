"""The floor: a hand-written tool loop on the raw ``openai`` client, nothing else.

About the least work any agent loop can do per step: one request, run the
requested tools (concurrently when there are several), append, repeat.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolSpec, main
from openai import OpenAI


def _spec(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.doc,
            "parameters": {
                "type": "object",
                "properties": {tool.arg: {"type": "string", "description": tool.arg_doc}},
                "required": [tool.arg],
            },
        },
    }


def _setup(job: dict[str, Any], tool: ToolSpec | None):
    client = OpenAI(base_url=job["base_url"], api_key="bench", max_retries=0)
    tools = [_spec(tool)] if tool else []
    funcs = {tool.name: tool.func} if tool else {}
    pool = ThreadPoolExecutor(max_workers=8)

    def call(tc: Any) -> str:
        try:
            return str(funcs[tc.function.name](**json.loads(tc.function.arguments or "{}")))
        except Exception as exc:  # noqa: BLE001 - the model sees the error
            return f"error: {exc}"

    return client, tools, pool, call


def build(job: dict[str, Any], tool: ToolSpec | None):
    client, tools, pool, call = _setup(job, tool)
    extra = {"tools": tools} if tools else {}

    def run(prompt: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        while True:
            reply = client.chat.completions.create(model=job["model"], messages=messages, **extra)
            msg = reply.choices[0].message
            if not msg.tool_calls:
                return msg.content or ""
            messages.append(msg.model_dump(exclude_none=True))
            results = (
                list(pool.map(call, msg.tool_calls)) if len(msg.tool_calls) > 1 else [call(msg.tool_calls[0])]
            )
            for tc, result in zip(msg.tool_calls, results, strict=True):
                messages.append({"role": "tool", "tool_call_id": tc.id, "content": result})

    return run


def build_stream(job: dict[str, Any], tool: ToolSpec | None):
    client, tools, _pool, call = _setup(job, tool)
    extra = {"tools": tools} if tools else {}

    def stream(prompt: str):
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        while True:
            calls: dict[int, dict[str, Any]] = {}
            for chunk in client.chat.completions.create(
                model=job["model"], messages=messages, stream=True, **extra
            ):
                if not chunk.choices:
                    continue
                delta = chunk.choices[0].delta
                if delta.content:
                    yield delta.content
                for tc in delta.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] = tc.id or slot["id"]
                    if tc.function:
                        slot["name"] += tc.function.name or ""
                        slot["arguments"] += tc.function.arguments or ""
            if not calls:
                return
            messages.append(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": c["id"],
                            "type": "function",
                            "function": {"name": c["name"], "arguments": c["arguments"]},
                        }
                        for c in calls.values()
                    ],
                }
            )
            for c in calls.values():

                class _TC:  # the shape call() reads
                    id = c["id"]

                    class function:
                        name = c["name"]
                        arguments = c["arguments"]

                messages.append({"role": "tool", "tool_call_id": c["id"], "content": call(_TC)})

    return stream


if __name__ == "__main__":
    main(build, build_stream)
