"""Persona file -> loop section -> brain + toolboxes: the one path the runtime, the CLI and doctor share.

    find_persona("researcher")          a path, ./personas/<name>.json, or a persona shipped in the package
      -> Persona.handler, .handler_section   the first handler and its section, as ovos-persona passes it
      -> loop_plan(handler, section, persona=data)
                                        for one of this project's loops: the parsed LoopConfig, the brain's
                                        name and section, each toolbox's name, section and where it came from
      -> build_engine(persona)          the handler built the way ovos-persona builds it (and, for our
                                        loops, given the whole persona so top-level sections are found)

The engine reads its brain and toolboxes through :class:`~ovos_agentic_loop.config.LoopPlan` too, so
``doctor`` checks exactly the names, sections and defaults the engine will use, and cannot drift from it.

A toolbox's section is looked for inside the loop's section first, then at the persona's top level
(the shape ovos-tool-adapters' README and ovos-persona-server's tool bridges use). The top level is
only visible where the whole persona is known: ``build_engine`` (the CLI), ``doctor``, and code that
passes ``persona=`` to the engine. ovos-persona (and so ovos-persona-server's chat) builds a handler
as ``cls(config=persona[handler])``: there the loop sees only its own section, and says so.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from ovos_agentic_loop._runtime.sections import SectionOrigin, ToolboxSection
from ovos_agentic_loop.config import LOOP_ENTRY_POINTS, LoopPlan, Mode, parse_config
from ovos_agentic_loop.errors import LoopError, PluginNotFound

__all__ = [
    "SHIPPED_PACKAGE",
    "LoopPlan",
    "Persona",
    "PersonaError",
    "SectionOrigin",
    "ToolboxSection",
    "build_engine",
    "find_persona",
    "loop_class",
    "loop_plan",
    "shipped_personas",
    "with_model_url",
]

#: Where the repository folder ``personas/`` is installed (pyproject ``package-dir``).
SHIPPED_PACKAGE = "ovos_agentic_loop.shipped_personas"


class PersonaError(LoopError):
    """A persona that cannot be found or read; the message says where it looked or what is wrong."""


@dataclass(frozen=True)
class Persona:
    """A persona as ovos-persona reads it: a name, ``handlers`` in fallback order, one section per handler."""

    source: str  # a file path, or "shipped:<name>" for one read from the package
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.data.get("name") or "?")

    @property
    def handler(self) -> str:
        """The first handler: the one ``chat`` and ``doctor`` use."""
        handlers = self.data.get("handlers") or self.data.get("solvers") or [""]
        return str(handlers[0])

    @property
    def handler_section(self) -> dict[str, Any]:
        """The handler's config exactly as ovos-persona passes it (``{"enabled": True}`` when absent)."""
        section = self.data.get(self.handler)
        return section if section is not None else {"enabled": True}


def shipped_personas() -> dict[str, Traversable]:
    """The personas shipped inside the package, by name (file name without ``.json``)."""
    root = resources.files(SHIPPED_PACKAGE)
    return {
        entry.name.removesuffix(".json"): entry
        for entry in root.iterdir()
        if entry.name.endswith(".json") and entry.is_file()
    }


def find_persona(name_or_path: str, *, cwd: Path | None = None) -> Persona:
    """A persona JSON path, else ``personas/<name>.json`` under ``cwd``, else a shipped persona by name."""
    direct = Path(name_or_path).expanduser()
    if direct.is_file():
        return _parse(direct.read_text(encoding="utf-8"), str(direct))
    name = name_or_path.removesuffix(".json")
    local = (cwd or Path.cwd()) / "personas" / f"{name}.json"
    if local.is_file():
        return _parse(local.read_text(encoding="utf-8"), str(local))
    shipped = shipped_personas()
    if name in shipped:
        return _parse(shipped[name].read_text(encoding="utf-8"), f"shipped:{name}")
    raise PersonaError(
        f"persona {name_or_path!r} not found: not a file, no {local}, and not a shipped persona "
        f"(shipped: {', '.join(sorted(shipped)) or 'none'})"
    )


def _parse(text: str, source: str) -> Persona:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PersonaError(f"{source}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise PersonaError(f"{source}: a persona is a JSON object, got {type(data).__name__}")
    handlers = data.get("handlers") or data.get("solvers")
    if handlers is None and isinstance(data.get("chat_module"), str):
        raise PersonaError(_chat_module_hint(source, data))
    if not isinstance(handlers, list) or not handlers or not all(isinstance(h, str) for h in handlers):
        raise PersonaError(f"{source}: a persona needs a non-empty 'handlers' list of chat plugin names")
    if handlers[0] in LOOP_ENTRY_POINTS and "toolboxes" in data:
        raise PersonaError(
            f"{source}: 'toolboxes' at the persona's top level is not read: ovos-persona passes the "
            f"loop only its own section, so write it inside the {handlers[0]!r} section "
            f"({json.dumps({handlers[0]: {'toolboxes': ['...']}})[1:-1]}); the toolboxes' own sections "
            "may stay at the top level"
        )
    return Persona(source=source, data=data)


def _chat_module_hint(source: str, data: dict[str, Any]) -> str:
    """What to write instead of ovos-tool-adapters' shape (``chat_module``, top-level ``toolboxes``)."""
    handler = data["chat_module"]
    text = (
        f"{source}: 'chat_module' is not read by ovos-persona, which runs the chat plugins listed in "
        f"'handlers': write " + json.dumps({"handlers": [handler]})[1:-1]
    )
    if "toolboxes" in data:
        inside = json.dumps({handler: {"toolboxes": ["..."]}})[1:-1]
        text += f", and put 'toolboxes' inside the {handler!r} section ({inside})"
    return text


def loop_class(handler: str) -> type | None:
    """The engine class of ``handler`` when it is one of this project's loops, else ``None``."""
    from ovos_plugin_manager.agents import load_chat_plugin

    from ovos_agentic_loop.engine import AgentLoopEngine  # lazy: importing personas stays cheap

    cls = load_chat_plugin(handler)  # None when not installed; an import error propagates
    return cls if isinstance(cls, type) and issubclass(cls, AgentLoopEngine) else None


def loop_plan(
    handler: str, section: dict[str, Any] | None, *, persona: dict[str, Any] | None = None
) -> LoopPlan | None:
    """What the loop ``handler`` will load from ``section``; ``None`` when ``handler`` is not one of ours.

    ``persona``: the whole persona JSON, where toolbox sections are looked for after the loop's section.
    Raises :class:`~ovos_agentic_loop.errors.ConfigError` for a bad section, as the engine would,
    and whatever importing an installed but broken ``handler`` raises.
    """
    cls = loop_class(handler)
    if cls is None:
        return None
    default_mode: Mode = getattr(cls, "default_mode", "auto")
    # A loop's own keys (max_steps, ...) are not LoopConfig's: the engine class takes them out.
    core_section = getattr(cls, "core_section", None)
    if core_section is not None:
        section = core_section(section)
    settings = parse_config(section, engine_name=handler, default_mode=default_mode)
    return LoopPlan.from_settings(handler, settings, persona)


def with_model_url(persona: Persona, url: str) -> Persona:
    """``persona`` with its first handler's brain pointed at ``url`` (its section's ``api_url``):
    the shipped personas ask 127.0.0.1:8091, and a server started on another port is reached by
    ``chat --model-url`` without copying and editing the JSON."""
    data = copy.deepcopy(persona.data)
    section = data.get(persona.handler)
    brain = section.get("brain") if isinstance(section, dict) else None
    if not isinstance(section, dict) or not isinstance(brain, str) or not brain:
        raise PersonaError(
            f"{persona.source}: --model-url needs a brain to point at it, and handler "
            f'{persona.handler!r} names none (set "brain" in its section)'
        )
    brain_section = section.setdefault(brain, {})
    if not isinstance(brain_section, dict):
        raise PersonaError(f"{persona.source}: the {brain!r} section is not a JSON object")
    brain_section["api_url"] = url
    return Persona(persona.source, data)


def build_engine(persona: Persona) -> Any:
    """The persona's first handler, built the way ovos-persona builds it.

    One of this project's loops also gets the whole persona, so toolbox sections at its top level are found.
    """
    from ovos_plugin_manager.agents import find_chat_plugins, load_chat_plugin

    from ovos_agentic_loop.engine import AgentLoopEngine

    cls = load_chat_plugin(persona.handler)
    if cls is None:
        installed = ", ".join(sorted(find_chat_plugins())) or "none"
        raise PluginNotFound(
            f"chat plugin {persona.handler!r} is not installed (installed: {installed}); "
            f"run 'ovos-agentic-loop doctor {persona.source}'"
        )
    if isinstance(cls, type) and issubclass(cls, AgentLoopEngine):
        return cls(config=persona.handler_section, persona=persona.data)
    return cls(config=persona.handler_section)
