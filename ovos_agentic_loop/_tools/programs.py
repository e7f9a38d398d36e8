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


def is_program(name: str, tools: ToolSet, which: ProgramLookup) -> bool:
    """True when ``name`` is a program the command runner may run: one of the programs its
    toolbox allows, or (with no such list) one ``which`` finds (this machine's PATH)."""
    if not re.fullmatch(r"[A-Za-z][\w.+-]*", name) or name.lower() in NOT_PROGRAM_WORDS:
        return False
    runner = tools.with_role("runner")
    if runner is None:
        return False
    allowed = runner[1].programs
    if allowed is not None:
        return name in allowed
    return which(name) is not None


def unknown_tool_hint(name: str, arguments: Any, tools: ToolSet, which: ProgramLookup) -> str:
    """For an unknown tool named like a program or a calculator function: how to make the call
    with the tool that has it; else ""."""
    return _program_hint(name, arguments, tools, which) or _function_hint(name, arguments, tools)


def _program_hint(name: str, arguments: Any, tools: ToolSet, which: ProgramLookup) -> str:
    runner = tools.with_role("runner")
    if runner is None or not is_program(name, tools, which):
        return ""
    (spec, role) = runner
    values = arguments.values() if isinstance(arguments, dict) else []
    words = [str(v) for v in values if isinstance(v, (str, int, float)) and str(v).strip()]
    example = json.dumps({role.argument: " ".join([name, *words])}, ensure_ascii=False)
    return f" {name!r} is a program, not a tool: run it with {spec.name}, arguments {example}."


def _function_hint(name: str, arguments: Any, tools: ToolSet) -> str:
    """``mean`` called as a tool while the calculator's toolbox lists ``mean`` among its functions."""
    calculator = tools.with_role("calculator")
    if calculator is None or name not in calculator[1].functions:
        return ""
    (spec, role) = calculator
    inside = ", ".join(leaves(arguments)) or "..."
    example = json.dumps({role.argument: f"{name}({inside})"}, ensure_ascii=False)
    return f" {name!r} is a function of {spec.name}, not a tool: call {spec.name} with {example}."
