"""The tools one turn offers the model: the persona's toolboxes plus the caller's tools.

The persona's toolboxes are merged once (the first toolbox wins a name collision)
and converted once with the static ``ToolBox.tools_to_openai_spec``; the merged
view is rebuilt only when a toolbox's tool names change (the SKILL.md toolbox
grows tools when skill files appear). Caller tools (ovos-persona-server passes the
API caller's OpenAI tool dicts) are added per turn by :class:`CallerTools`; a persona
tool wins a name collision with them and the caller's duplicate never reaches the model.

The caller-tools policy: the persona's ``toolboxes`` list is the authority for tools
run on this side. The request's client tools (OpenAI dicts) are offered and their
calls relayed back to the caller. Toolboxes the caller hands over are NOT offered
unless the loop section sets ``caller_toolboxes: true``: ToolBox objects in ``tools=``,
and dicts naming a tool of an installed toolbox plugin (ovos-persona-server 0.18
adds every installed toolbox's tools to the request's, as dicts). Each is logged
once per engine, not per call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_utils.log import LOG

from ovos_agentic_loop._text.protocol import positional_parameters
from ovos_agentic_loop._tools.spec import RoleKind, ToolRole, ToolSpec
from ovos_agentic_loop_settings import TOOL_ANNOTATIONS_KEY

__all__ = [
    "AmountConverter",
    "CallerTools",
    "PersonaTools",
    "ToolSet",
    "WarnOnce",
    "installed_toolbox_tool_names",
    "slim_schema",
]


@dataclass(frozen=True)
class AmountConverter:
    """A tool that converts an amount (``amount``) from a unit (``unit``) to another (``target``)."""

    name: str
    amount: str
    unit: str
    target: str


def _typed(schema: object, kinds: tuple[str, ...]) -> bool:
    return isinstance(schema, dict) and schema.get("type") in kinds


@dataclass(frozen=True)
class ToolSet:
    """An immutable view of the tools of one turn."""

    tools: tuple[ToolSpec, ...]  # persona tools first, then caller tools
    owners: dict[str, ToolBox]  # persona tool name -> the toolbox that runs it
    caller_names: frozenset[str]  # names the caller runs (returned to it as tool_calls)

    @cached_property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    @cached_property
    def schemas(self) -> dict[str, dict[str, Any]]:
        """Tool name -> JSON schema of its arguments."""
        return {t.name: t.parameters for t in self.tools}

    @cached_property
    def wire_specs(self) -> list[dict[str, Any]]:
        """The tools as OpenAI tool dicts, for the brain (built once per tool set)."""
        return [t.wire() for t in self.tools]

    @cached_property
    def positional(self) -> dict[str, list[str]]:
        """Tool name -> the parameters positional arguments fill (``name('x')`` written by a model)."""
        return positional_parameters(self.schemas)

    def get(self, name: str | None) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)

    def with_role(self, kind: RoleKind) -> tuple[ToolSpec, ToolRole] | None:
        """The first tool whose toolbox declared it ``kind``, with its role."""
        for tool in self.tools:
            role = tool.role
            if role is not None and role.kind == kind:
                return tool, role
        return None

    @cached_property
    def amount_converter(self) -> AmountConverter | None:
        """The tool declared a converter that takes an amount (a number-typed argument, and one
        other required text argument besides its target: the unit the amount is in): the clock's
        converters take a time and a zone, no amount."""
        for tool in self.tools:
            role = tool.role
            if role is None or role.kind != "converter":
                continue
            amounts = [n for n, p in tool.properties.items() if _typed(p, ("number", "integer"))]
            units = [
                n
                for n in tool.required
                if n != role.argument and n not in amounts and _typed(tool.properties.get(n), ("string",))
            ]
            if len(amounts) == 1 and len(units) == 1:
                return AmountConverter(tool.name, amounts[0], units[0], role.argument)
        return None

    def with_caller_tools(
        self, tools: Any, *, engine_name: str, warn: Callable[[str, str], None] | None = None
    ) -> ToolSet:
        """This set plus the caller's tools (ToolBoxes or OpenAI dicts), persona tools winning.

        ``warn(key, message)`` reports a dropped tool (default: a warning every time).
        """
        caller_specs = ToolBox.normalize_tools(tools)
        if not caller_specs:
            return self
        report = warn or (lambda _key, message: LOG.warning(f"{engine_name}: {message}"))
        kept: list[ToolSpec] = []
        seen = set(self.owners)
        for spec in caller_specs:
            tool = ToolSpec.from_openai(spec)
            if tool is None:
                report(f"nameless:{spec!r}", f"a caller tool without a function name was ignored: {spec!r}")
                continue
            if tool.name in seen:
                owner = self.owners.get(tool.name)
                who = f"persona toolbox {owner.toolbox_id!r}" if owner else "another caller tool"
                report(
                    f"dup:{tool.name}", f"caller tool {tool.name!r} dropped: {who} already provides that name"
                )
                continue
            seen.add(tool.name)
            kept.append(tool)
        return ToolSet(
            tools=self.tools + tuple(kept),
            owners=self.owners,
            caller_names=frozenset(t.name for t in kept),
        )


class WarnOnce:
    """Logs each distinct warning once per engine: a caller that sends the same tools on every
    call (ovos-persona-server does) must not fill the log with the same lines per model call."""

    def __init__(self, engine_name: str) -> None:
        self._engine_name = engine_name
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, key: str, message: str) -> None:
        with self._lock:
            if key in self._seen:
                return
            self._seen.add(key)
        LOG.warning(f"{self._engine_name}: {message}")


class CallerTools:
    """The caller-tools policy of one engine (see the module docstring); immutable but for its log."""

    def __init__(self, *, accept_toolboxes: bool, engine_name: str) -> None:
        self.accept_toolboxes = accept_toolboxes
        self.engine_name = engine_name
        self.warn = WarnOnce(engine_name)

    def add_to(self, toolset: ToolSet, tools: Any) -> ToolSet:
        """``toolset`` plus the caller's tools that this policy offers."""
        offered = tools if self.accept_toolboxes else self._client_tools_only(toolset, tools)
        return toolset.with_caller_tools(offered, engine_name=self.engine_name, warn=self.warn)

    def _client_tools_only(self, toolset: ToolSet, tools: Any) -> list[dict[str, Any]]:
        items = tools if isinstance(tools, (list, tuple)) else [tools]
        specs: list[dict[str, Any]] = []
        for item in items:
            if isinstance(item, ToolBox):
                self.warn(
                    f"toolbox:{item.toolbox_id}",
                    f"toolbox {item.toolbox_id!r} passed by the caller is ignored: this persona's "
                    "'toolboxes' list decides which toolboxes run here (set 'caller_toolboxes': true "
                    "in the loop section to offer a caller's toolboxes)",
                )
            elif isinstance(item, dict):
                specs.append(item)
            else:
                self.warn(
                    f"type:{type(item).__name__}",
                    f"a caller tool of type {type(item).__name__} "
                    "is ignored: tools are OpenAI tool dicts or ToolBox objects",
                )
        foreign = installed_toolbox_tool_names() - set(toolset.owners) if specs else frozenset()
        client: list[dict[str, Any]] = []
        for spec in specs:
            tool = ToolSpec.from_openai(spec)
            name = tool.name if tool is not None else ""
            # ovos-persona-server renames two installed tools of one name to "<toolbox_id>__<name>".
            if name in foreign or name.partition("__")[2] in foreign:
                self.warn(
                    f"installed:{name}",
                    f"caller tool {name!r} is ignored: it is a tool of an installed toolbox plugin that "
                    "this persona does not list (ovos-persona-server offers every installed toolbox); "
                    "add the toolbox to 'toolboxes', or set 'caller_toolboxes': true to offer it",
                )
                continue
            client.append(spec)
        return client


_installed_names: frozenset[str] | None = None
_installed_lock = threading.Lock()


def installed_toolbox_tool_names() -> frozenset[str]:
    """The tool names of every installed toolbox plugin, built with its defaults; once per process.

    Only used when a caller passes tool dicts, to recognise the installed toolboxes' tools that
    ovos-persona-server mixes into the request's client tools. A plugin that fails to build
    contributes nothing (it could not have been offered by the server either).
    """
    global _installed_names
    if _installed_names is None:
        with _installed_lock:
            if _installed_names is None:
                from ovos_plugin_manager.persona import find_toolbox_plugins

                names: set[str] = set()
                for entry_point, cls in find_toolbox_plugins().items():
                    try:
                        names.update(cls(config={}, bus=None).tools)
                    except Exception as exc:  # noqa: BLE001 - a third-party plugin may raise anything
                        LOG.debug(f"toolbox {entry_point!r} could not be built with defaults: {exc}")
                _installed_names = frozenset(names)
    return _installed_names


class PersonaTools:
    """The merged tools of the persona's toolboxes, rebuilt only when their names or descriptions change."""

    def __init__(self, toolboxes: list[ToolBox], *, engine_name: str) -> None:
        self.toolboxes = list(toolboxes)
        self._engine_name = engine_name
        self._lock = threading.Lock()
        self._fingerprint: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] | None = None
        self._toolset = ToolSet(tools=(), owners={}, caller_names=frozenset())

    def current(self) -> ToolSet:
        """The merged tool set; cheap when nothing changed (a tuple of names is compared)."""
        # Names and descriptions: a SKILL.md edit changes a description without changing a name.
        fingerprint = tuple(
            (tb.toolbox_id, tuple((t.name, t.description) for t in tb.tools.values()))
            for tb in self.toolboxes
        )
        if fingerprint == self._fingerprint:
            return self._toolset
        with self._lock:
            if fingerprint != self._fingerprint:
                self._toolset = self._merge()
                self._fingerprint = fingerprint
            return self._toolset

    def _merge(self) -> ToolSet:
        merged: list[dict[str, Any]] = []
        owners: dict[str, ToolBox] = {}
        for toolbox in self.toolboxes:
            for tool in toolbox.tool_json_list:
                name = str(tool["name"])
                if name in owners:
                    LOG.warning(
                        f"{self._engine_name}: tool {name!r} of toolbox {toolbox.toolbox_id!r} is ignored: "
                        f"toolbox {owners[name].toolbox_id!r} already provides it (the first toolbox wins)"
                    )
                    continue
                owners[name] = toolbox
                merged.append(tool)
        # OPM's own conversion (the static ToolBox.tools_to_openai_spec) is the toolbox's edge.
        found = (ToolSpec.from_openai(spec) for spec in ToolBox.tools_to_openai_spec(merged))
        tools = [replace(tool, given=None) for tool in found if tool is not None]
        return ToolSet(
            tools=tuple(_slim(tool) for tool in tools),
            owners=owners,
            caller_names=frozenset(),
        )


def _slim(tool: ToolSpec) -> ToolSpec:
    """The tool as the model sees it; its annotations (our toolboxes put them in the argument
    schema, the one field OPM's tool definitions carry everywhere) are kept beside it."""
    parameters = dict(tool.parameters or {"type": "object", "properties": {}})
    annotations = parameters.pop(TOOL_ANNOTATIONS_KEY, None)
    return replace(
        tool,
        parameters=slim_schema(parameters),
        annotations=dict(annotations) if isinstance(annotations, dict) else {},
    )


#: Schema keywords the model does not need to write a good call: pydantic's ``title`` on every level,
#: and bounds the toolbox enforces itself (a call out of bounds gets an observation naming the field).
#: Measured on the task suite: removing them cost no task (bench/README.md, "Small-model accuracy").
_PROMPT_ONLY_KEYWORDS = frozenset(
    {
        "title",
        "additionalProperties",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
    }
)


def slim_schema(schema: Any) -> Any:
    """A JSON schema without what only costs prompt tokens: the keywords above, and
    ``anyOf: [X, null]`` + ``default: null`` for an optional argument (absent means null)."""
    if isinstance(schema, list):
        return [slim_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: slim_schema(v) for k, v in schema.items() if k not in _PROMPT_ONLY_KEYWORDS}
    if "properties" in schema and isinstance(schema["properties"], dict):
        # "title" may also be a real argument name: only schema keywords are dropped above.
        out["properties"] = {name: slim_schema(prop) for name, prop in schema["properties"].items()}
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (kept,) = [o for o in options if o != {"type": "null"}]
        out.pop("anyOf")
        if out.get("default", "absent") is None:
            out.pop("default")
        out = {**kept, **out} if isinstance(kept, dict) else out
    return out
