"""Tool calls a small model writes as markup of its own invention.

On its stock chat template the bundled model sometimes writes a call as XML instead of the
template's ``<tool_call>`` JSON::

    <tools> <function name="evaluate_expression"> <arguments> {"expression": "15% of 2350"}
    </arguments> </function> </tools>

Any such markup is protocol: from its opening tag on, nothing of the reply is ever spoken
(the stream gate holds at :data:`MARKUP_CALL_OPEN`, the parser cuts the answer there), and
when it names an available tool with readable arguments it is run as the call it is.
Patterns are bounded and the scan is linear in the reply's length.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import regex

__all__ = ["MARKUP_CALL_OPEN", "markup_calls"]

#: Where a call written as markup begins: ``<tools>``, ``<tool name=...>``, ``<function ...>``,
#: ``<function=...>``, ``<function_call>``, ``<invoke ...>``, ``<tool_use>``.
MARKUP_CALL_OPEN = regex.compile(
    r"<(?:tools?|functions?|function_call|invoke|tool_use)(?=[\s>=/])", regex.IGNORECASE
)
# The tool a piece of markup calls: a name attribute, <function=NAME>, or a <name> element.
_NAME = regex.compile(
    r"<(?:function|invoke|tool|tool_use|function_call)\s+name\s*=\s*[\"']?([\w.\-]{1,200})"
    r"|<function\s*=\s*[\"']?([\w.\-]{1,200})"
    r"|<(?:name|tool_name|function_name)>\s*([\w.\-]{1,200})\s*</",
    regex.IGNORECASE,
)
# An argument as markup: <parameter name="k">v</parameter>, or <k>v</k>.
_PARAMETER = regex.compile(
    r"<parameter\s+name\s*=\s*[\"']?([\w.\-]{1,100})[\"']?\s*>([^<]{0,4000})</parameter>"
    r"|<([A-Za-z_][\w\-]{0,100})>([^<]{0,4000})</\3\s*>",
    regex.IGNORECASE,
)
#: Elements that are the markup's own structure, never an argument.
_STRUCTURE = frozenset(
    {
        "tools",
        "tool",
        "functions",
        "function",
        "function_call",
        "invoke",
        "tool_use",
        "arguments",
        "parameters",
        "args",
        "name",
        "tool_name",
        "function_name",
        "tool_call",
    }
)


def markup_calls(
    text: str,
    names: list[str],
    match_name: Callable[[str, list[str]], str],
    first_json_object: Callable[[str], dict[str, Any] | None],
) -> list[tuple[str, dict[str, Any]]]:
    """The calls of available tools that ``text`` (from a markup opening tag on) writes, as
    (tool, arguments), in order; [] when none can be read."""
    found = list(_NAME.finditer(text))
    calls: list[tuple[str, dict[str, Any]]] = []
    for i, match in enumerate(found):
        name = match_name(next(g for g in match.groups() if g), names)
        if name not in names:
            continue
        segment = text[match.end() : found[i + 1].start() if i + 1 < len(found) else len(text)]
        arguments = first_json_object(segment)
        calls.append((name, arguments if arguments is not None else _parameters(segment)))
    return calls


def _parameters(segment: str) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for match in _PARAMETER.finditer(segment):
        key = match.group(1) or match.group(3)
        raw = (match.group(2) if match.group(1) else match.group(4)).strip()
        if key.lower() in _STRUCTURE:
            continue
        arguments[key] = _value(raw)
    return arguments


def _value(raw: str) -> Any:
    """A number or a literal written in markup as itself; anything else is text."""
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else raw
