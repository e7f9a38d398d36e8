"""Loading the brain and the toolboxes a persona names, loudly.

The ecosystem's worst trap is a plugin that silently serves nothing: a package name
written where an entry-point name belongs, a toolbox whose discovery raised inside
``ToolBox.__init__`` (OPM swallows it) and so has zero tools. Everything here says
so by name, with what to do about it.
"""

from __future__ import annotations

from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import ChatEngine
from ovos_utils.log import LOG

from ovos_agentic_loop.errors import PluginNotFound

__all__ = ["load_brain", "load_toolboxes"]


def load_brain(name: str, section: dict[str, Any], *, engine_name: str) -> ChatEngine:
    """Build the chat plugin ``name`` with its persona section, or raise :class:`PluginNotFound`."""
    from ovos_plugin_manager.agents import find_chat_plugins

    plugins = find_chat_plugins()
    cls = plugins.get(name)
    if cls is None:
        installed = ", ".join(sorted(p for p in plugins if p not in _LOOP_ENTRY_POINTS)) or "none"
        raise PluginNotFound(
            f"{engine_name}: brain {name!r} is not an installed chat plugin. Installed chat plugins: "
            f"{installed}. 'brain' takes an entry-point name (e.g. 'ovos-openai-brain' or "
            f"'ovos-chat-openai-plugin'), not a package name (e.g. not 'ovos-openai-plugin'); "
            f"install the package that provides it, or run 'ovos-agentic-loop doctor <persona>'."
        )
    if name in _LOOP_ENTRY_POINTS:
        raise PluginNotFound(f"{engine_name}: brain {name!r} is an agent loop itself; name a model plugin.")
    return cls(config=section)


_LOOP_ENTRY_POINTS = frozenset({"ovos-react-loop", "ovos-native-toolcall-loop"})


def load_toolboxes(
    names: list[str], sections: dict[str, dict[str, Any]], *, bus: Any = None, engine_name: str
) -> list[ToolBox]:
    """Build each named toolbox as ``cls(config=section, bus=bus)``.

    A toolbox that is missing, fails to build or has zero tools is logged as a
    WARNING with its name and the reason, and left out; the others still load.
    """
    if not names:
        return []
    from ovos_plugin_manager.persona import find_toolbox_plugins

    available = find_toolbox_plugins()
    loaded: list[ToolBox] = []
    for name in names:
        cls = available.get(name)
        if cls is None:
            LOG.warning(
                f"{engine_name}: toolbox {name!r} is not installed (installed toolboxes: "
                f"{', '.join(sorted(available)) or 'none'}); 'toolboxes' takes entry-point names. Skipped."
            )
            continue
        try:
            toolbox = cls(config=sections.get(name, {}), bus=bus)
        except Exception as exc:  # a third-party plugin may raise anything; we report it and go on
            LOG.warning(f"{engine_name}: toolbox {name!r} failed to load: {type(exc).__name__}: {exc}. Skipped.")
            continue
        if not toolbox.tools:
            LOG.warning(
                f"{engine_name}: toolbox {name!r} loaded ZERO tools (its discover_tools() failed or "
                f"returned nothing; check its config section {sections.get(name, {})!r}). Skipped."
            )
            continue
        LOG.info(f"{engine_name}: toolbox {name!r} loaded {len(toolbox.tools)} tools: {', '.join(toolbox.tools)}")
        loaded.append(toolbox)
    return loaded
