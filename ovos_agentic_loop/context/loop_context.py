"""The loop's ``context_plugins`` key: context plugins whose system prompt joins the persona's.

ovos-persona hands a persona's ``memory_module`` output to the loop as a system message, which
the loop already merges into its own. A persona that wants AGENTS.md (or any other
``opm.agents.memory`` plugin's prompt) without making it its memory names it in the loop's
section instead::

    "ovos-react-loop": {"context_plugins": ["ovos-agents-md-context-plugin"],
                        "ovos-agents-md-context-plugin": {"agents_md_sources": ["~/notes"]}}

Each plugin is built with its own section and its ``system_prompt`` read once, when the persona
loads. A plugin that is missing or fails is a WARNING naming it; the persona still loads.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from ovos_utils.log import LOG

from ovos_agentic_loop.config import LoopConfig

__all__ = ["MEMORY_GROUP", "context_prompt", "with_context"]

MEMORY_GROUP = "opm.agents.memory"


def context_prompt(names: list[str], sections: dict[str, dict[str, Any]], *, engine_name: str) -> str:
    """The system prompts of the named context plugins, in the order named, joined by blank lines."""
    if not names:
        return ""
    available = {ep.name: ep for ep in entry_points(group=MEMORY_GROUP)}
    parts: list[str] = []
    for name in names:
        entry = available.get(name)
        if entry is None:
            LOG.warning(
                f"{engine_name}: context plugin {name!r} is not installed (installed {MEMORY_GROUP} plugins: "
                f"{', '.join(sorted(available)) or 'none'}); 'context_plugins' takes entry-point names. "
                "Skipped."
            )
            continue
        try:
            plugin = entry.load()(config=sections.get(name, {}))
            prompt = str(plugin.system_prompt or "").strip()
        except Exception as exc:  # noqa: BLE001 - a third-party plugin may raise anything; reported
            LOG.warning(
                f"{engine_name}: context plugin {name!r} failed: {type(exc).__name__}: {exc}. Skipped."
            )
            continue
        if not prompt:
            LOG.warning(
                f"{engine_name}: context plugin {name!r} gave an empty system prompt (no files found?)"
            )
            continue
        LOG.info(
            f"{engine_name}: context plugin {name!r} added {len(prompt)} characters to the system prompt"
        )
        parts.append(prompt)
    return "\n\n".join(parts)


def with_context(settings: LoopConfig, *, engine_name: str) -> LoopConfig:
    """``settings`` whose ``system_prompt`` also holds the ``context_plugins``' prompts, after its own."""
    sections = {name: settings.plugin_section(name) for name in settings.context_plugins}
    extra = context_prompt(settings.context_plugins, sections, engine_name=engine_name)
    if not extra:
        return settings
    prompt = "\n\n".join(p for p in ((settings.system_prompt or "").strip(), extra) if p)
    return settings.model_copy(update={"system_prompt": prompt})
