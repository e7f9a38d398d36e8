"""Figure 9's adapter: one BFCL entry, answered by the bare model or by an OVOS loop.

    python bfcl_peer.py '<job json>'     # prints BENCH_RESULT {"ok", "calls", "answer", "samples"}

``side`` picks who answers, with the same tools (the entry's function docs) on the same server:

- ``bare``: one request with the raw ``openai`` client (the ``floor`` venv); its calls are the
  reply's native ``tool_calls``, as BFCL's function-calling handlers read them.
- ``ours`` / ``upstream``: ``load_chat_plugin(engine)`` with the project's brain (``ours`` venv) or
  upstream's (``upstream`` venv), the function docs turned into the tools of a throwaway OPM
  ``ToolBox``; its calls are every call the loop executed, in order (recorded at
  ``ToolBox.call_tool``). A call returns a stub ("done") and changes nothing.

Stdlib only at import: each side imports its own framework, in its own venv.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit

STUB_RESULT = "done"

# BFCL's parameter types are Python's; a JSON-schema API wants its own names.
_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


def tool_name(name: str) -> str:
    """A BFCL function name as an OpenAI-style tool name (``math.factorial`` -> ``math_factorial``)."""
    return name.replace(".", "_")


def to_schema(node: Any) -> Any:
    """A BFCL parameter description as JSON schema: its types renamed, ``any`` left untyped,
    BFCL's own ``optional`` flag dropped (``required`` says it)."""
    if isinstance(node, list):
        return [to_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "optional":
            continue
        if key == "type" and isinstance(value, str):
            if value == "any":
                continue
            out[key] = _TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: to_schema(prop) for name, prop in value.items()}
        else:
            out[key] = to_schema(value)
    return out


def openai_tools(functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool_name(f["name"]),
                "description": f.get("description", ""),
                "parameters": to_schema(f.get("parameters") or {"type": "object", "properties": {}}),
            },
        }
        for f in functions
    ]


def messages_of(entry: dict[str, Any]) -> list[dict[str, str]]:
    """The entry's single turn (the categories of figure 9 have one): its system and user messages."""
    return [{"role": m["role"], "content": m["content"]} for m in entry["question"][0]]


# --- bare: one request ------------------------------------------------------------------------------


Answered = tuple[list[dict[str, Any]], str, float]  # calls, final text, seconds to answer


def run_bare(job: dict[str, Any]) -> Answered:
    from openai import OpenAI

    client = OpenAI(base_url=job["base_url"], api_key="bench", timeout=job.get("request_timeout", 600))
    t0 = time.perf_counter()
    reply = client.chat.completions.create(
        model=job["model"],
        messages=messages_of(job["entry"]),  # type: ignore[arg-type]
        tools=openai_tools(job["entry"]["function"]),  # type: ignore[arg-type]
        max_tokens=job.get("max_tokens", 512),
        temperature=job.get("temperature", 0.2),
    )
    seconds = time.perf_counter() - t0
    message = reply.choices[0].message
    calls = []
    for call in message.tool_calls or []:
        function = getattr(call, "function", None)  # a function call (llama-server sends no other kind)
        if function is None:
            continue
        try:
            arguments: Any = json.loads(function.arguments or "{}")
        except ValueError:
            arguments = function.arguments  # scored as not a call BFCL can read
        calls.append({"name": function.name, "arguments": arguments})
    return calls, message.content or "", seconds


# --- an OVOS loop: the function docs as a throwaway toolbox ------------------------------------------


def bfcl_toolbox(functions: list[dict[str, Any]]):
    from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
    from pydantic import ConfigDict

    class StubOutput(ToolOutput):
        result: str

    def arguments_model(name: str, schema: dict[str, Any]) -> type[ToolArguments]:
        """Arguments of any shape (the checker judges them, not pydantic), described by the
        function's own schema: what the engine sends the model as the tool's parameters."""

        class Arguments(ToolArguments):
            model_config = ConfigDict(extra="allow")

            @classmethod
            def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
                return schema

        Arguments.__name__ = f"{name}_arguments"
        return Arguments

    class BfclToolBox(ToolBox):
        def __init__(self) -> None:
            super().__init__(toolbox_id="bfcl-functions")

        def discover_tools(self) -> list[AgentTool]:
            tools = []
            for spec in openai_tools(functions):
                fn = spec["function"]
                tools.append(
                    AgentTool(
                        name=fn["name"],
                        description=fn["description"],
                        argument_schema=arguments_model(fn["name"], fn["parameters"]),
                        output_schema=StubOutput,
                        tool_call=lambda args: StubOutput(result=STUB_RESULT),
                    )
                )
            return tools

    return BfclToolBox()


def run_loop(job: dict[str, Any]) -> Answered:
    from _ovos import make_engine, record_calls
    from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

    if job["side"] == "ours":
        import peer_ours as side
    else:
        import peer_upstream as side  # type: ignore[no-redef]
    # No bundled toolbox: the entry's functions are the only tools offered.
    job = {**job, "toolboxes": [], "engine_extra": {**(job.get("engine_extra") or {}), "toolboxes": []}}
    engine = make_engine(job, None, side.BRAIN, side._section(job))
    engine.load_toolboxes([bfcl_toolbox(job["entry"]["function"])])
    calls = record_calls(engine)
    roles = {"system": MessageRole.SYSTEM, "user": MessageRole.USER, "assistant": MessageRole.ASSISTANT}
    messages = [AgentMessage(role=roles[m["role"]], content=m["content"]) for m in messages_of(job["entry"])]
    t0 = time.perf_counter()
    reply = engine.continue_chat(messages)
    seconds = time.perf_counter() - t0
    return [{"name": c["tool"], "arguments": c["arguments"]} for c in calls], reply.content or "", seconds


def main() -> None:
    job = json.loads(sys.argv[1])
    try:
        # Seconds to answer: the request, or the loop's turn; not the process start or the imports.
        calls, answer, seconds = run_bare(job) if job["side"] == "bare" else run_loop(job)
        emit("BENCH_RESULT", {"ok": True, "calls": calls, "answer": answer, "samples": [seconds]})
    except Exception as exc:  # noqa: BLE001 - the orchestrator reports any adapter failure by name
        emit(
            "BENCH_RESULT",
            {"ok": False, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()},
        )


if __name__ == "__main__":
    main()
