"""AgentMessage <-> OpenAI chat wire format, both ways. Nothing here does I/O."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from ovos_agentic_loop.messages import RAW_ARGUMENTS_KEY, AgentMessage, MessageRole, ToolCall

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "ToolCallAccumulator",
    "describe_body",
    "drop_none",
    "parse_arguments",
    "session_headers",
    "to_wire",
    "tool_call_from_wire",
]

_HTML_TITLE = re.compile(r"<title[^>]*>([^<]{0,200})", re.IGNORECASE)
_LOOKS_HTML = re.compile(r"<!doctype html|<html|<head|<body", re.IGNORECASE)

# llama.cpp chat templates know system/user/assistant/tool only; "developer" is
# OpenAI's newer name for the same thing, so it goes out as "system".
_WIRE_ROLE = {MessageRole.DEVELOPER: "system"}


def _role(message: AgentMessage) -> str:
    role = MessageRole(message.role)
    return _WIRE_ROLE.get(role, str(role.value))


def _encode_arguments(arguments: dict[str, Any]) -> str:
    if set(arguments) == {RAW_ARGUMENTS_KEY}:
        return str(arguments[RAW_ARGUMENTS_KEY])  # echo back exactly what the model wrote
    return json.dumps(arguments, ensure_ascii=False)


def to_wire(message: AgentMessage) -> dict[str, Any]:
    """One ``AgentMessage`` as an OpenAI chat message dict (system messages untouched)."""
    wire: dict[str, Any] = {"role": _role(message), "content": message.content or ""}
    if message.tool_calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _encode_arguments(call.arguments or {})},
            }
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        wire["tool_call_id"] = message.tool_call_id
    if message.name is not None and MessageRole(message.role) == MessageRole.TOOL:
        wire["name"] = message.name
    return wire


def session_headers(key: str, header: str) -> dict[str, str]:
    """The request headers that name the session (none when ``header`` is empty)."""
    return {header: key} if header else {}


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """Arguments text from the wire as a dict; malformed text is kept under :data:`RAW_ARGUMENTS_KEY`."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return {RAW_ARGUMENTS_KEY: raw}
    return parsed if isinstance(parsed, dict) else {RAW_ARGUMENTS_KEY: raw}


def describe_body(text: str, limit: int = 160, *, quote: bool = True) -> str:
    """What a server sent instead of what was expected, in a few words for an error message:
    an HTML page by its title, anything else by its first ``limit`` characters (quoted)."""
    head = text[:65536]  # enough to find a title; a huge body is not scanned
    if _LOOKS_HTML.search(head):
        title = _HTML_TITLE.search(head)
        name = " ".join(title.group(1).split()) if title else ""
        return f"an HTML page titled {name!r}" if name else "an HTML page"
    flat = " ".join(head[: limit * 4].split())
    if not flat:
        return "an empty body"
    brief = flat[:limit] + ("..." if len(flat) > limit or len(text) > limit * 4 else "")
    return repr(brief) if quote else brief


def drop_none(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` without its ``None`` members, nested objects too (``usage`` as the server sent it).

    Raises ``TypeError`` for anything but a JSON object: the reply then has the wrong shape.
    """
    if not isinstance(value, dict):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return {k: drop_none(v) if isinstance(v, dict) else v for k, v in value.items() if v is not None}


def _new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def tool_call_from_wire(call: dict[str, Any]) -> ToolCall:
    """An OpenAI ``tool_calls`` entry (a JSON object) as an OPM ``ToolCall``.

    Raises ``AttributeError`` / ``TypeError`` for an entry of another shape.
    """
    function = call.get("function") or {}
    call_id, name, arguments = call.get("id"), function.get("name"), function.get("arguments")
    return ToolCall(id=call_id or _new_call_id(), name=name or "", arguments=parse_arguments(arguments))


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class ToolCallAccumulator:
    """Reassembles tool calls from streamed deltas (keyed by their ``index``)."""

    _calls: dict[int, _PartialCall] = field(default_factory=dict)
    _announced: int = 0  # how many calls' names ``new_names`` has given

    def add(self, delta_calls: list[dict[str, Any]] | None) -> None:
        """Add the ``tool_calls`` of one streamed delta (JSON objects, as the server sent them)."""
        for position, delta in enumerate(delta_calls or []):
            index = delta.get("index")
            partial = self._calls.setdefault(position if index is None else index, _PartialCall())
            if delta.get("id"):
                partial.id = delta["id"]
            function = delta.get("function")
            if function:
                # The name arrives whole in the first delta; some servers repeat it later.
                if function.get("name") and not partial.name:
                    partial.name = function["name"]
                if function.get("arguments"):
                    partial.arguments.append(function["arguments"])

    @property
    def pending(self) -> int:
        """How many calls have started arriving."""
        return len(self._calls)

    def new_names(self) -> list[str]:
        """The names of the calls named since the last ask, in order: a call is known by its name
        before its arguments are written."""
        named = [p.name for _, p in sorted(self._calls.items()) if p.name]
        fresh, self._announced = named[self._announced :], max(self._announced, len(named))
        return fresh

    def calls(self) -> list[ToolCall]:
        return [
            ToolCall(
                id=partial.id or _new_call_id(),
                name=partial.name,
                arguments=parse_arguments("".join(partial.arguments)),
            )
            for _, partial in sorted(self._calls.items())
        ]
