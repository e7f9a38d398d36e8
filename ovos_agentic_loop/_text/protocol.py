"""The text tool protocol: the compact prompt, and a parser for what small models really write.

Brains without native tool calling (and ``mode: text``) get the tools described in
the system prompt and answer in a ReAct form::

    Action: get_current_datetime
    Action Input: {"timezone": "Europe/Lisbon"}

or ``Final Answer: ...``. Small local models drift from any format, so the parser
also accepts any case and spacing, ``FINAL_ANSWER``, JSON arguments in code fences,
and a bare ``{"name": ..., "arguments": ...}`` object (alone, fenced, in a list or
in ``<tool_call>`` tags: what Qwen-style models write when a server returns no
native ``tool_calls``). Inside ``<tool_call>`` tags it also reads a call in Python
syntax, ``name('x')``, ``name(key='v', n=3)`` or ``name({"key": "v"})`` (the bundled
model writes these on llama-server's stock template): Python's parser reads it, only
literal arguments count, and positional ones fill the tool's required parameters.
Whatever the tags hold is never an answer: what is no readable call is a problem
for the loop to correct. When a reply holds an action AND an answer, the action
wins and the rest (an invented observation, a guessed answer) is dropped.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import regex

from ovos_agentic_loop._text.markup import MARKUP_CALL_OPEN, markup_calls

__all__ = [
    "MARKUP_CALL_OPEN",
    "NATIVE_GUIDANCE",
    "ParsedCall",
    "ParsedReply",
    "call_being_written",
    "clean_answer",
    "names_tool",
    "parse_reply",
    "positional_parameters",
    "render_call",
    "text_tool_prompt",
]

#: Added to the system prompt when tools are passed natively. Each clause answers a measured habit
#: of small models: arithmetic done in the head, a call described instead of made, a chain
#: answered after its first step, tools called for greetings, replies too long to speak. There is
#: no clause for chains ("get each value with its tool before calculating"): it cost 2 of 21
#: held-out tasks on the bundled model; the loop's reactions (``_rules``) handle that class instead.
NATIVE_GUIDANCE = (
    "Use a tool for every calculation, date, time, file or command; never work out numbers in your "
    "head. Call the tool, do not describe the call. Call one tool at a time when a step needs an "
    "earlier result. Greetings and general knowledge need no tool. Answer in a few short sentences."
)

_PROMPT_HEAD = """You can use these tools:
{tools}

To use a tool, reply with exactly these two lines and then stop:
Action: <tool name>
Action Input: <arguments as one JSON object>
You will get the result in a message starting with "Observation:".
When you can answer, reply with:
Final Answer: <your answer to the user, in a few short sentences>
Use a tool for every calculation, date, time, file or command; never work out numbers in your head.
Greetings and general knowledge need no tool."""

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


class DescribedTool(Protocol):
    """What the prompt reads of a tool (``_tools.spec.ToolSpec`` is one): text sits below the tools."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...


def text_tool_prompt(tools: Sequence[DescribedTool]) -> str:
    """The tool part of the system prompt: one compact entry per tool, no schema noise."""
    lines = []
    for tool in tools:
        description = " ".join(tool.description.split())
        arguments = compact_arguments(tool.parameters)
        lines.append(
            f"- {tool.name}: {description}\n  arguments: {json.dumps(arguments, ensure_ascii=False)}"
        )
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
#
# Every pattern has bounded repeats and the JSON search is one pass, so parsing is linear in the
# reply's length whatever a model writes. The stream gate (stream_gate.py) uses the same patterns
# and the same JSON search, which is what makes the streamed answer equal the parsed one.

#: Calls written as JSON are looked for in this many characters of a reply; a longer reply is prose.
MAX_CALL_SCAN_CHARS = 65_536
#: JSON nested deeper than this is never a tool call (decoding it could also exhaust the stack).
MAX_JSON_DEPTH = 24

# What may precede a protocol keyword on its line: markdown, quoting, and Qwen's <tool_call> tags
# (also written <tool-call> by the bundled model on the stock template: spoken suite, held-out).
_DECOR = r"(?:[ \t>*_#]|</?tool[_-]call>){0,8}"
#: The keyword of a protocol line (after the line's decoration); group 1 names it.
LINE_KEYWORD = regex.compile(
    rf"{_DECOR}(thought|action[ _]{{0,3}}input|action|observation)[ \t*_]{{0,8}}:", regex.IGNORECASE
)
#: The final-answer marker, found anywhere; a bold marker (``**Final Answer:**``) is one marker.
FINAL_MARKER = regex.compile(
    r"[*_]{0,3}final[ _]{0,3}answer[ \t*_]{0,8}[:：](?:[*_]{1,3}(?=\s|$))?[ \t]*", regex.IGNORECASE
)
TOOL_CALL_TAG = regex.compile(r"</?tool[_-]call>", regex.IGNORECASE)
#: The opening tag of a call: nothing from it to its closing tag is ever part of an answer.
TOOL_CALL_OPEN = regex.compile(r"<tool[_-]call>", regex.IGNORECASE)
# A call in tags and what it holds (group 1); an unclosed tag runs to the end of the reply.
_TAGGED_CALL = regex.compile(r"<tool[_-]call>(.*?)(?:</tool[_-]call>|\Z)", regex.IGNORECASE | regex.DOTALL)
THINK_OPEN = regex.compile(r"<think>", regex.IGNORECASE)
THINK_CLOSE = regex.compile(r"</think>", regex.IGNORECASE)

#: Qwen-style templates show a tool's result inside this tag; a model that writes one itself is
#: inventing a result, as with an "Observation:" line (seen from the bundled model's stock template).
TOOL_RESPONSE_TAG = regex.compile(r"<tool_response>", regex.IGNORECASE)
# Where a model starts inventing a tool result: an "Observation:" line or a <tool_response> tag.
_OBSERVATION = regex.compile(
    rf"^{_DECOR}observation[ \t*_]{{0,8}}:|<tool_response>", regex.IGNORECASE | regex.MULTILINE
)
_ACTION = regex.compile(
    rf"^{_DECOR}action[ \t*_]{{0,8}}:[ \t*_`\"']{{0,8}}([A-Za-z_][\w.\-]{{0,200}})",
    regex.IGNORECASE | regex.MULTILINE,
)
# A call's tool name as soon as it is written whole (what ends it has arrived), in the forms the
# parser reads a call in: an Action line, a JSON "name" field, a ``<tool_call>name(`` call.
_CALL_NAME = regex.compile(
    rf"^{_DECOR}action[ \t*_]{{0,8}}:[ \t*_`\"']{{0,8}}(?P<name>[A-Za-z_][\w.\-]{{0,200}})(?=[^\w.\-])"
    r'|"(?:name|tool|tool_name)"[ \t\r\n]{0,8}:[ \t\r\n]{0,8}"(?P<name>[^"\\\n]{1,200})"'
    r"|<tool[_-]call>[ \t\r\n]{0,8}(?P<name>[A-Za-z_][\w.\-]{0,200})[ \t]{0,8}\(",
    regex.IGNORECASE | regex.MULTILINE,
)
#: The longest text a match of ``_CALL_NAME`` spans: a search that goes on from where the last one
#: stopped starts this far back, so a name split across two deltas is still found.
CALL_NAME_SPAN = 512
_ACTION_INPUT = regex.compile(r"action[ _]{0,3}input[ \t*_]{0,8}:", regex.IGNORECASE)
_THOUGHT = regex.compile(rf"^{_DECOR}thought[ \t*_]{{0,8}}:", regex.IGNORECASE | regex.MULTILINE)
_PROTOCOL_LINE = regex.compile(
    rf"^{_DECOR}(?:thought|action|action[ _]{{0,3}}input|observation)[ \t*_]{{0,8}}:[^\n]*",
    regex.IGNORECASE | regex.MULTILINE,
)
_FENCE = regex.compile(r"```[a-zA-Z]{0,20}\s*(.*?)```", regex.DOTALL)
_STRUCTURE = regex.compile(r'[{}\[\]"\\]')


def parse_reply(
    text: str,
    tool_names: list[str] | None = None,
    parameters: Mapping[str, Sequence[str]] | None = None,
) -> ParsedReply:
    """Interpret one model reply. ``tool_names`` lets a loosely written name match a real tool;
    ``parameters`` (tool name -> the parameters positional arguments fill, see
    :func:`positional_parameters`) lets ``<tool_call>name('x')</tool_call>`` map ``'x'``."""
    text = strip_think(text or "")
    lead = len(text) - len(text.lstrip())  # the call search is bounded in the reply's own positions
    text = text[lead:]
    # Everything from an invented "Observation:" or <tool_response> on is the model talking to itself.
    cut = _OBSERVATION.search(text)
    kept = (text[: cut.start()] if cut else text).rstrip()
    names = tool_names or []

    if cut is not None and cut.start() == 0 and cut.group().lower() == "<tool_response>":
        misnamed = _misnamed_call(text, names)
        if misnamed:
            return ParsedReply(calls=misnamed, kept_text="")
    calls, problem = _react_calls(kept, names)
    if not calls and problem is None:
        calls, problem = _written_calls(kept[: max(0, MAX_CALL_SCAN_CHARS - lead)], names, parameters or {})
    if not calls and problem is None:
        calls, problem = _markup(kept[: max(0, MAX_CALL_SCAN_CHARS - lead)], names)
    if calls:
        return ParsedReply(calls=calls, kept_text=kept)
    if problem:
        return ParsedReply(problem=problem, kept_text=kept)

    final = FINAL_MARKER.search(kept)
    if final:
        return ParsedReply(answer=_clean(kept[final.end() :]), kept_text=kept)
    if _THOUGHT.search(kept) and not _clean(kept):
        return ParsedReply(problem="a Thought with no Action and no Final Answer", kept_text=kept)
    if _looks_like_broken_call(kept):
        return ParsedReply(
            problem="a tool call that is not valid JSON with 'name' and 'arguments'", kept_text=kept
        )
    return ParsedReply(answer=_clean(kept), kept_text=kept)


def names_tool(text: str, name: str) -> bool:
    """``text`` names the tool ``name`` in prose: as written (``read_file``, a name no word is: with
    an underscore, a dot or inner capitals), or a plain word (``search``) only when backticked or
    called a tool/function, since a plain word also occurs in ordinary answers."""
    word = re.escape(name)
    if re.search(r"[_.]", name) or re.search(r"[a-z][A-Z]", name):
        return re.search(rf"(?<![\w-]){word}(?![\w-])", text) is not None
    marked = rf"`{word}(?:\(\))?`|\b{word}\s+(?:tool|function)\b|\b(?:tool|function)\s+[\"']?{word}\b"
    return re.search(marked, text, re.IGNORECASE) is not None


def call_being_written(text: str, names: Sequence[str], start: int = 0) -> str | None:
    """The first of ``names`` (the offered tools) that a call in ``text``, a reply still being
    written, is to: by an Action line, a JSON call's ``"name"``, or ``<tool_call>name(``, looked for
    from ``start``. None while no call names one of them (a name only half written names none)."""
    for match in _CALL_NAME.finditer(text, start):
        name = _match_name(match.group("name"), list(names))
        if name in names:
            return name
    return None


def clean_answer(text: str) -> str:
    """The user-facing part of a reply: protocol lines, markers and call JSON removed.

    Text after the first ``Final Answer:`` marker is the answer; later markers, protocol lines
    (their text, not their line break), ``<tool_call>`` tags and ``<think>`` blocks are dropped,
    runs of three or more line breaks become two, and the ends are stripped.
    """
    text = strip_think(text or "")
    final = FINAL_MARKER.search(text)
    return _clean(text[final.end() :] if final else text)


def _clean(text: str) -> str:
    cut = _OBSERVATION.search(text)
    if cut:
        text = text[: cut.start()]
    # What tags hold is a call, never an answer (parse_reply reads it; clean_answer's callers must
    # not speak it either); a stray closing tag is dropped below. A call written as markup runs
    # to the end of the reply.
    markup = MARKUP_CALL_OPEN.search(text)
    if markup:
        text = text[: markup.start()]
    text = _TAGGED_CALL.sub("", text)
    text = _PROTOCOL_LINE.sub("", text)
    text = FINAL_MARKER.sub("", text)
    text = TOOL_CALL_TAG.sub("", text)
    return collapse_breaks(text).strip()


def collapse_breaks(text: str) -> str:
    """Three or more line breaks in a row become two (a paragraph break)."""
    return re.sub(r"\n{3,}", "\n\n", text)


def strip_think(text: str) -> str:
    """``text`` without ``<think>...</think>`` blocks; an unclosed block runs to the end (it is
    the model still thinking, never an answer)."""
    parts: list[str] = []
    pos = 0
    while True:
        opened = THINK_OPEN.search(text, pos)
        if opened is None:
            parts.append(text[pos:])
            return "".join(parts)
        parts.append(text[pos : opened.start()])
        closed = THINK_CLOSE.search(text, opened.end())
        if closed is None:
            return "".join(parts)
        pos = closed.end()


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
        fenced = _FENCE.match(raw)
        if fenced:
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


def _written_calls(
    text: str, names: list[str], parameters: Mapping[str, Sequence[str]]
) -> tuple[list[ParsedCall], str | None]:
    """Calls written as JSON (bare, fenced, in tags) or as ``name(...)`` in ``<tool_call>`` tags,
    in the order written. Tags whose content is no call make a problem only when no call is found:
    the readable calls run, and that content is still never the answer."""
    calls: list[ParsedCall] = []
    problem: str | None = None
    pos = 0
    for tagged in _TAGGED_CALL.finditer(text):
        calls += _json_calls(text[pos : tagged.start()], names)
        pos = tagged.end()
        inside = tagged.group(1)
        found = _json_calls(inside, names)
        if found or not inside.strip():
            calls += found
            continue
        call = _syntax_call(inside, names, parameters)
        if isinstance(call, ParsedCall):
            calls.append(call)
        elif problem is None:
            problem = call
    calls += _json_calls(text[pos:], names)
    return calls, None if calls else problem


_RESPONSE_BLOCK = regex.compile(
    r"<tool_response>(.*?)(?:</tool_response>|\Z)", regex.IGNORECASE | regex.DOTALL
)


def _markup(text: str, names: list[str]) -> tuple[list[ParsedCall], str | None]:
    """A call written as markup (see ``markup``): run when it names an available tool, a
    format problem when it names none; never an answer either way."""
    opening = MARKUP_CALL_OPEN.search(text)
    if opening is None:
        return [], None
    found = markup_calls(text[opening.start() :], names, _match_name, _first_json_object)
    if found:
        return [ParsedCall(name, arguments) for name, arguments in found], None
    return [], "a tool call written as markup that names none of the tools"


def _misnamed_call(text: str, names: list[str]) -> list[ParsedCall]:
    """A reply that opens with ``<tool_response>`` holding a call to an available tool, as JSON
    with its arguments: the bundled model on its stock template wrote its call in the tag of a
    result. An invented result (anything else in the tag) is no call, and stays cut."""
    block = _RESPONSE_BLOCK.match(text[:MAX_CALL_SCAN_CHARS])
    if block is None:
        return []
    found = _json_calls(block.group(1), names)
    return found if found and all(c.name in names for c in found) else []


def _syntax_call(text: str, names: list[str], parameters: Mapping[str, Sequence[str]]) -> ParsedCall | str:
    """The call ``name('x', key=3)`` or ``name({...})`` in ``text``, or the problem with it.

    Python's own parser reads it; only a plain call of a name with literal arguments counts,
    so nothing is ever evaluated."""
    source = _unfenced(text)
    if source.startswith(("{", "[")):
        return "a tool call that is not valid JSON with 'name' and 'arguments'"
    unreadable = "a tool call in <tool_call> tags that could not be read"
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # ValueError: a NUL character
        return unreadable
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return unreadable
    name = _match_name(node.func.id, names)
    if names and name not in names:
        return f"a tool call to {name!r}, which is not one of the tools"
    arguments = _call_arguments(node, parameters.get(name, ()))
    if arguments is None:
        return f"a tool call of {name!r} whose arguments could not be read"
    return ParsedCall(name, arguments)


def _unfenced(text: str) -> str:
    text = text.strip()
    fenced = _FENCE.match(text)
    return (fenced.group(1) if fenced else text).strip().strip("`").strip()


def _call_arguments(node: ast.Call, positional: Sequence[str]) -> dict[str, Any] | None:
    """The arguments of ``node`` by parameter name, or None when they cannot be mapped.

    A JSON object as the only argument is the arguments themselves; positional arguments fill
    ``positional`` (the required parameters, in order) and keywords name theirs."""
    if any(isinstance(arg, ast.Starred) for arg in node.args) or any(k.arg is None for k in node.keywords):
        return None  # *args / **kwargs: not a literal call
    try:
        values = [_literal(arg) for arg in node.args]
        named = {str(k.arg): _literal(k.value) for k in node.keywords}
    except ValueError:
        return None
    if len(values) == 1 and not named and isinstance(values[0], dict):
        return values[0]
    if len(values) > len(positional) or set(positional[: len(values)]) & set(named):
        return None  # more positional arguments than parameters, or one argument given twice
    return {**dict(zip(positional, values, strict=False)), **named}


def _literal(node: ast.expr) -> Any:
    """The JSON value a literal argument node stands for; ValueError for anything else."""
    try:
        value = ast.literal_eval(node)
        # Python-only values (sets, bytes, complex numbers) are not arguments; tuples become lists.
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, MemoryError, RecursionError) as exc:
        raise ValueError("not a JSON literal") from exc


def positional_parameters(schemas: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """Tool name -> the parameters that positional arguments of a call fill, in order.

    ``schemas`` maps each tool to the JSON schema of its arguments. Positional arguments fill
    the required parameters in the schema's order; a tool with none required but a single
    parameter takes one positional argument for it.
    """
    out: dict[str, list[str]] = {}
    for name, schema in schemas.items():
        # A caller's tool may come with any schema at all: what is not one maps nothing.
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        required = schema.get("required") if isinstance(schema, Mapping) else None
        names = [p for p in properties if isinstance(p, str)] if isinstance(properties, Mapping) else []
        filled = [p for p in names if isinstance(required, list) and p in required]
        out[name] = filled or (names if len(names) == 1 else [])
    return out


def _json_calls(text: str, names: list[str]) -> list[ParsedCall]:
    """Calls written as bare JSON objects: ``{"name": ..., "arguments": {...}}`` and variants."""
    calls: list[ParsedCall] = []
    for value in json_values(text):
        for item in value if isinstance(value, list) else [value]:
            call = _as_call(item, names)
            if call is not None:
                calls.append(call)
    return calls


def holds_call(text: str) -> bool:
    """Whether ``text`` (a closed bracket region of a reply) holds a JSON tool call."""
    return bool(_json_calls(text, []))


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
        arguments = _decode(arguments) if arguments.strip() else {}
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


@dataclass
class _Region:
    """A closed bracket pair ``text[start:end]`` and the candidate regions directly inside it."""

    start: int
    end: int = -1
    children: list[_Region] = field(default_factory=list)
    too_deep: bool = False


def json_values(text: str) -> list[Any]:
    """Every top-level JSON object or array in ``text`` (fenced or bare), in order.

    One pass pairs the brackets (quotes count only inside brackets: prose has stray ones); then
    each outermost pair is decoded, and where that fails, the pairs directly inside it. A pair
    nested deeper than ``MAX_JSON_DEPTH`` is never decoded, so the work is linear and bounded.
    """
    values: list[Any] = []
    for region in bracket_regions(text):
        values.extend(_decode_region(text, region))
    return values


def bracket_regions(text: str) -> list[_Region]:
    """The outermost closed, not-too-deep bracket pairs of ``text`` (with their inner pairs)."""
    top: list[_Region] = []
    stack: list[_Region] = []
    in_string = False
    skip_to = -1  # the character after a backslash inside a string is not structure
    for match in _STRUCTURE.finditer(text):
        at, char = match.start(), match.group()
        if at < skip_to:
            continue
        if in_string:
            if char == "\\":
                skip_to = at + 2
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = bool(stack)
        elif char in "{[":
            stack.append(_Region(at))
            if len(stack) > MAX_JSON_DEPTH:
                # Every open pair contains this too-deep one. Marked pairs always sit at the bottom of
                # the stack, so marking stops at the first marked one: each pair is marked once.
                for open_region in reversed(stack):
                    if open_region.too_deep:
                        break
                    open_region.too_deep = True
        elif char in "}]" and stack:
            region = stack.pop()
            region.end = at + 1
            # A too-deep pair is never decoded; the candidates inside it move up a level.
            found = region.children if region.too_deep else [region]
            (stack[-1].children if stack else top).extend(found)
    # An opening bracket that never closes is not JSON; the closed pairs inside it still count.
    for region in stack:
        top.extend(region.children)
    top.sort(key=lambda r: r.start)
    return top


def _decode_region(text: str, region: _Region) -> list[Any]:
    try:
        return [json.loads(text[region.start : region.end])]
    except ValueError:  # JSONDecodeError, or a number too long to convert
        return [value for child in region.children for value in _decode_region(text, child)]


def _decode(text: str) -> Any:
    """The one JSON value ``text`` holds, or None; never raises, whatever the nesting."""
    regions = bracket_regions(text)
    if len(regions) != 1 or text[: regions[0].start].strip() or text[regions[0].end :].strip():
        return None
    try:
        return json.loads(text[regions[0].start : regions[0].end])
    except ValueError:
        return None


def _first_json_object(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    if start < 0:
        return None
    text = text[start:]
    for region in bracket_regions(text):
        if region.start == 0:
            try:
                value = json.loads(text[: region.end])
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _looks_like_broken_call(text: str) -> bool:
    stripped = TOOL_CALL_TAG.sub("", text).strip().strip("`").removeprefix("json").strip()
    if not stripped.startswith("{") or re.search(r"[\"']name[\"']\s*:", stripped) is None:
        return False
    return not json_values(stripped)  # valid JSON that is not a call is an answer, not a broken call
