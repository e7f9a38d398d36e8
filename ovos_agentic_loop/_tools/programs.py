"""A program or a calculator function used as a tool name (``ls``, ``mean``).

The unknown-tool observation (``_observations.observation_for_error``) says how to make
the call with the tool that has it, instead of only listing tool names, which small
models read as "give up".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ovos_agentic_loop._text.values import leaves
from ovos_agentic_loop._tools.toolset import ToolSet

__all__ = ["NOT_PROGRAM_WORDS", "ProgramLookup", "is_program", "unknown_tool_hint"]

#: Where a program is installed, or None (``shutil.which``; injected so that no rule reads PATH itself).
ProgramLookup = Callable[[str], str | None]

# Words that follow "use" in ordinary answers and must never count as a program name.
NOT_PROGRAM_WORDS = frozenset(
    {"a", "an", "the", "it", "this", "that", "these", "those", "your", "my", "our", "some", "any"}
)
# The calculator's own list of what it knows ("Functions: sqrt, root(x, n), ..., mean, median").
_FUNCTIONS = re.compile(r"\bfunctions?:(.*)", re.IGNORECASE | re.DOTALL)


def _description(tools: ToolSet, name: str | None) -> str:
    tool = tools.get(name)
    return tool.description if tool is not None else ""


def is_program(name: str, tools: ToolSet, which: ProgramLookup) -> bool:
    """True when ``name`` is a program the command tool may run: listed in its description, or
    (with no such list) found by ``which`` (this machine's PATH)."""
    if not re.fullmatch(r"[A-Za-z][\w.+-]*", name) or name.lower() in NOT_PROGRAM_WORDS:
        return False
    description = _description(tools, tools.requiring("command"))
    listed = re.search(r"allowed programs?:\s*([^.]+)", description, re.IGNORECASE)
    if listed:
        return name in {p.strip() for p in listed.group(1).split(",")}
    return which(name) is not None


def unknown_tool_hint(name: str, arguments: Any, tools: ToolSet, which: ProgramLookup) -> str:
    """For an unknown tool named like a program or a calculator function: how to make the call
    with the tool that has it; else ""."""
    return _program_hint(name, arguments, tools, which) or _function_hint(name, arguments, tools)


def _program_hint(name: str, arguments: Any, tools: ToolSet, which: ProgramLookup) -> str:
    runner = tools.requiring("command")
    if runner is None or not is_program(name, tools, which):
        return ""
    values = arguments.values() if isinstance(arguments, dict) else []
    words = [str(v) for v in values if isinstance(v, (str, int, float)) and str(v).strip()]
    example = json.dumps({"command": " ".join([name, *words])}, ensure_ascii=False)
    return f" {name!r} is a program, not a tool: run it with {runner}, arguments {example}."


def _function_hint(name: str, arguments: Any, tools: ToolSet) -> str:
    """``mean`` called as a tool while the calculator lists ``mean`` among its functions."""
    calculator = tools.requiring("expression")
    if calculator is None or not re.fullmatch(r"[A-Za-z]\w{1,30}", name):
        return ""
    listed = _FUNCTIONS.search(_description(tools, calculator))
    # an item of the list ("..., max of numbers"), or written as a call ("root(x, n)"); not any word
    item = rf"(?:^|[,:;])\s*{re.escape(name)}\b|(?<![\w.]){re.escape(name)}\("
    if listed is None or not re.search(item, listed.group(1)):
        return ""
    inside = ", ".join(leaves(arguments)) or "..."
    example = json.dumps({"expression": f"{name}({inside})"}, ensure_ascii=False)
    return f" {name!r} is a function of {calculator}, not a tool: call {calculator} with {example}."
