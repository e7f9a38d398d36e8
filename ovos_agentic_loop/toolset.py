"""The tools one turn offers the model: the persona's toolboxes plus the caller's tools.

The persona's toolboxes are merged once (the first toolbox wins a name collision)
and converted once with the static ``ToolBox.tools_to_openai_spec``; the merged
view is rebuilt only when a toolbox's tool names change (the SKILL.md toolbox
grows tools when skill files appear). Caller tools (ovos-persona-server passes the
API caller's OpenAI tool dicts) are added per turn; a persona tool wins a name
collision with them and the caller's duplicate never reaches the model.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_utils.log import LOG

__all__ = ["PersonaTools", "ToolSet", "slim_schema"]


@dataclass(frozen=True)
class ToolSet:
    """An immutable view of the tools of one turn."""

    specs: list[dict[str, Any]]  # OpenAI tool specs: persona tools first, then caller tools
    owners: dict[str, ToolBox]  # persona tool name -> the toolbox that runs it
    schemas: dict[str, dict[str, Any]]  # tool name -> JSON schema of its arguments
    caller_names: frozenset[str]  # names the caller runs (returned to it as tool_calls)

    @property
    def names(self) -> list[str]:
        return [s["function"]["name"] for s in self.specs]

    def with_caller_tools(self, tools: Any, *, engine_name: str) -> ToolSet:
        """This set plus the caller's tools (ToolBoxes or OpenAI dicts), persona tools winning."""
        caller_specs = ToolBox.normalize_tools(tools)
        if not caller_specs:
            return self
        kept: list[dict[str, Any]] = []
        seen = set(self.owners)
        for spec in caller_specs:
            function = spec.get("function") or {}
            name = function.get("name")
            if not isinstance(name, str) or not name:
                LOG.warning(f"{engine_name}: a caller tool without a function name was ignored: {spec!r}")
                continue
            if name in seen:
                owner = self.owners.get(name)
                who = f"persona toolbox {owner.toolbox_id!r}" if owner else "another caller tool"
                LOG.warning(f"{engine_name}: caller tool {name!r} dropped: {who} already provides that name")
                continue
            seen.add(name)
            kept.append(spec)
        schemas = dict(self.schemas)
        for spec in kept:
            schemas[spec["function"]["name"]] = spec["function"].get("parameters") or {}
        return ToolSet(
            specs=self.specs + kept,
            owners=self.owners,
            schemas=schemas,
            caller_names=frozenset(s["function"]["name"] for s in kept),
        )


class PersonaTools:
    """The merged tools of the persona's toolboxes, rebuilt only when their names or descriptions change."""

    def __init__(self, toolboxes: list[ToolBox], *, engine_name: str) -> None:
        self.toolboxes = list(toolboxes)
        self._engine_name = engine_name
        self._lock = threading.Lock()
        self._fingerprint: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] | None = None
        self._toolset = ToolSet(specs=[], owners={}, schemas={}, caller_names=frozenset())

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
        specs = [_slim_spec(spec) for spec in ToolBox.tools_to_openai_spec(merged)]
        schemas = {s["function"]["name"]: s["function"]["parameters"] for s in specs}
        return ToolSet(specs=specs, owners=owners, schemas=schemas, caller_names=frozenset())


def _slim_spec(spec: dict[str, Any]) -> dict[str, Any]:
    function = dict(spec["function"])
    function["parameters"] = slim_schema(function.get("parameters") or {"type": "object", "properties": {}})
    return {**spec, "function": function}


def slim_schema(schema: Any) -> Any:
    """A JSON schema without what only costs prompt tokens: pydantic's ``title`` on every level,
    and ``anyOf: [X, null]`` + ``default: null`` for an optional argument (absent means null)."""
    if isinstance(schema, list):
        return [slim_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: slim_schema(v) for k, v in schema.items() if k != "title"}
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
