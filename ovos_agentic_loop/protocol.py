"""The text tool protocol: the compact prompt, and a parser for what small models really write.

Brains without native tool calling (and ``mode: text``) get the tools described in
the system prompt and answer in a ReAct form::

    Action: get_current_datetime
    Action Input: {"timezone": "Europe/Lisbon"}

or ``Final Answer: ...``. Small local models drift from any format, so the parser
also accepts any case and spacing, ``FINAL_ANSWER``, JSON arguments in code fences,
and a bare ``{"name": ..., "arguments": ...}`` object (alone, fenced, in a list or
in ``<tool_call>`` tags: what Qwen-style models write when a server returns no
native ``tool_calls``). When a reply holds an action AND an answer, the action
wins and the rest (an invented observation, a guessed answer) is dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "NATIVE_GUIDANCE",
    "ParsedCall",
    "ParsedReply",
    "clean_answer",
    "parse_reply",
    "render_call",
    "text_tool_prompt",
]

#: One line added to the system prompt when tools are passed natively: small models
#: otherwise call tools for greetings or keep calling after they have the result.
NATIVE_GUIDANCE = (
    "Call a tool only when it helps answer; after the tool results, answer the user in plain sentences."
)

_PROMPT_HEAD = """You can use these tools:
{tools}

To use a tool, reply with exactly these two lines and then stop:
Action: <tool name>
Action Input: <arguments as one JSON object>
You will get the result in a message starting with "Observation:".
When you can answer, reply with:
Final Answer: <your answer to the user, in plain sentences>
Use a tool only when it helps; for greetings and general knowledge answer directly."""

_CORRECTION = (
    "Your reply did not follow the format ({problem}). Reply either with\n"
    "Action: <tool name>\nAction Input: <JSON object>\nor with\nFinal Answer: <answer>"
)


@dataclass(frozen=True)
class ParsedCall:
    name: str
    arguments: dict[str, Any]


@dataclass
class ParsedReply:
    """What a reply means: tool calls to run, a final answer, or a format problem."""

    calls: list[ParsedCall] = field(default_factory=list)
    answer: str | None = None
    problem: str | None = None
    #: The reply text up to where the model started inventing (kept in the transcript).
    kept_text: str = ""

    def correction(self) -> str:
        return _CORRECTION.format(problem=self.problem or "no action and no final answer")


# --- the prompt ------------------------------------------------------------------


def text_tool_prompt(specs: list[dict[str, Any]]) -> str:
    """The tool part of the system prompt: one compact entry per tool, no schema noise."""
    lines = []
    for spec in specs:
        function = spec.get("function", {})
        name = function.get("name", "")
        description = " ".join(str(function.get("description", "")).split())
        arguments = compact_arguments(function.get("parameters") or {})
        lines.append(f"- {name}: {description}\n  arguments: {json.dumps(arguments, ensure_ascii=False)}")
    return _PROMPT_HEAD.format(tools="\n".join(lines))


def compact_arguments(schema: dict[str, Any]) -> dict[str, str]:
    """``{"arg": "type, optional (default X): description"}`` from a JSON schema."""
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    defs: dict[str, Any] = schema.get("$defs") or {}
    out: dict[str, str] = {}
    for name, prop in properties.items():
        prop = _resolve(prop, defs)
        parts = [_type_of(prop, defs)]
        if name not in required:
            default = prop.get("default")
            parts.append("optional" if default is None else f"optional (default {json.dumps(default)})")
        text = ", ".join(parts)
        description = " ".join(str(prop.get("description", "")).split())
        out[name] = f"{text}: {description}" if description else text
    return out


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**defs.get(ref.rsplit("/", 1)[-1], {}), **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


def _type_of(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + "|".join(json.dumps(v) for v in prop["enum"])
    if "anyOf" in prop:
        kinds = [_type_of(_resolve(p, defs), defs) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(dict.fromkeys(kinds)) or "any"
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type_of(_resolve(prop.get('items') or {}, defs), defs)}"
    return str(kind)


def render_call(name: str, arguments: dict[str, Any]) -> str:
    """A call in the protocol's own form (for history written by a native brain or a caller)."""
    return f"Action: {name}\nAction Input: {json.dumps(arguments, ensure_ascii=False)}"


# --- the parser ------------------------------------------------------------------

_OBSERVATION = re.compile(r"^[ \t>*_#]*observation[ \t*_]*:", re.IGNORECASE | re.MULTILINE)
_ACTION = re.compile(
    r"^[ \t>*_#]*action[ \t*_]*:[ \t*_`\"']*([A-Za-z_][\w.\-]*)", re.IGNORECASE | re.MULTILINE
)
_ACTION_INPUT = re.compile(r"action[ _]*input[ \t*_]*:", re.IGNORECASE)
_FINAL = re.compile(r"final[ _]*answer[ \t*_]*[:：][ \t]*", re.IGNORECASE)
_THOUGHT = re.compile(r"^[ \t>*_#]*thought[ \t*_]*:", re.IGNORECASE | re.MULTILINE)
_PROTOCOL_LINE = re.compile(
    r"^[ \t>*_#]*(thought|action|action[ _]*input|observation)[ \t*_]*:.*$", re.IGNORECASE | re.MULTILINE
)
_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)
_TOOL_CALL_TAG = re.compile(r"</?tool_call>", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def parse_reply(text: str, tool_names: list[str] | None = None) -> ParsedReply:
    """Interpret one model reply. ``tool_names`` lets a loosely written name match a real tool."""
    text = _THINK.sub("", text or "")
    # Everything from an invented "Observation:" on is the model talking to itself.
    cut = _OBSERVATION.search(text)
    kept = text[: cut.start()].rstrip() if cut else text.strip()
    names = tool_names or []

    calls, problem = _react_calls(kept, names)
    if not calls and problem is None:
        calls = _json_calls(kept, names)
    if calls:
        return ParsedReply(calls=calls, kept_text=kept)
    if problem:
        return ParsedReply(problem=problem, kept_text=kept)

    final = _FINAL.search(kept)
    if final:
        return ParsedReply(answer=clean_answer(kept[final.end() :]), kept_text=kept)
    if _THOUGHT.search(kept) and not clean_answer(kept):
        return ParsedReply(problem="a Thought with no Action and no Final Answer", kept_text=kept)
    if _looks_like_broken_call(kept):
        return ParsedReply(
            problem="a tool call that is not valid JSON with 'name' and 'arguments'", kept_text=kept
        )
    return ParsedReply(answer=clean_answer(kept), kept_text=kept)


def clean_answer(text: str) -> str:
    """The user-facing part of a reply: protocol lines, markers and call JSON removed."""
    text = _THINK.sub("", text or "")
    final = _FINAL.search(text)
    if final:
        text = text[final.end() :]
    cut = _OBSERVATION.search(text)
    if cut:
        text = text[: cut.start()]
    text = _PROTOCOL_LINE.sub("", text)
    text = _TOOL_CALL_TAG.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _react_calls(text: str, names: list[str]) -> tuple[list[ParsedCall], str | None]:
    calls: list[ParsedCall] = []
    matches = list(_ACTION.finditer(text))
    for i, match in enumerate(matches):
        name = _match_name(match.group(1), names)
        segment_end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        segment = text[match.end() : segment_end]
        input_marker = _ACTION_INPUT.search(segment)
        if input_marker is None:
            calls.append(ParsedCall(name, {}))
            continue
        raw = segment[input_marker.end() :].strip()
        fenced = _FENCE.search(raw)
        if fenced and raw.startswith("`"):
            raw = fenced.group(1)
        arguments = _first_json_object(raw)
        if arguments is None:
            stripped = raw.strip().strip("`").strip()
            if stripped in ("", "{}", "none", "None", "null"):
                arguments = {}
            else:
                return [], f"the Action Input of {name!r} is not a JSON object"
        calls.append(ParsedCall(name, arguments))
    return calls, None


def _json_calls(text: str, names: list[str]) -> list[ParsedCall]:
    """Calls written as bare JSON objects: ``{"name": ..., "arguments": {...}}`` and variants."""
    calls: list[ParsedCall] = []
    for value in _json_values(_TOOL_CALL_TAG.sub("\n", text)):
        for item in value if isinstance(value, list) else [value]:
            call = _as_call(item, names)
            if call is not None:
                calls.append(call)
    return calls


def _as_call(item: Any, names: list[str]) -> ParsedCall | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # {"type": "function", "function": {...}}
        item = item["function"]
    name = item.get("name", item.get("tool", item.get("tool_name")))
    if not isinstance(name, str) or not name:
        return None
    arguments: Any = None
    for key in ("arguments", "parameters", "args", "tool_input", "input"):
        if key in item:
            arguments = item[key]
            break
    else:
        if set(item) - {"name", "tool", "tool_name"}:
            return None  # a JSON answer that merely has a "name" field
        arguments = {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None
    return ParsedCall(_match_name(name, names), arguments)


def _match_name(raw: str, names: list[str]) -> str:
    name = raw.strip().strip("`'\"*").removesuffix("()").strip()
    if name in names or not names:
        return name
    lowered = {n.lower(): n for n in names}
    return lowered.get(name.lower(), name)


def _json_values(text: str) -> list[Any]:
    """Every top-level JSON object or array in ``text`` (fenced or bare), in order."""
    values: list[Any] = []
    decoder = json.JSONDecoder()
    i = 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                i += 1
                continue
            values.append(value)
            i = end
        else:
            i += 1
    return values


def _first_json_object(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _looks_like_broken_call(text: str) -> bool:
    stripped = _TOOL_CALL_TAG.sub("", text).strip().strip("`").removeprefix("json").strip()
    if not stripped.startswith("{") or re.search(r"[\"']name[\"']\s*:", stripped) is None:
        return False
    return not _json_values(stripped)  # valid JSON that is not a call is an answer, not a broken call
