"""Which calls wait for the user's yes: the loop's keys, the toolbox's own ``confirm``, annotations.

A call of a persona tool needs a yes when any of these says so:

- ``confirm_tools`` (loop section): its name matches one of the names or shell-style patterns;
- the toolbox's ``confirm`` (its own section): ``true`` for all its tools, or a list of names or
  patterns. Our toolboxes publish it in their tools' annotations, so it travels with the toolbox
  into any host; for another toolbox the loop reads it from the section the toolbox was built with;
- ``confirm_side_effects`` (loop section) and the tool may change something: its annotations do not
  say ``readOnlyHint: true``, or say ``destructiveHint: true`` (MCP's rule: a tool that says
  nothing is not read-only).

Calls of the caller's own tools are never held: the caller runs them, and decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from ovos_agentic_loop._tools.spec import ToolSpec

__all__ = ["ConfirmPolicy", "has_side_effects"]


def has_side_effects(annotations: Mapping[str, Any]) -> bool:
    """MCP's reading of a tool's annotations: not read-only unless it says so."""
    return annotations.get("readOnlyHint") is not True or annotations.get("destructiveHint") is True


def _matches(name: str, patterns: Any) -> bool:
    if patterns is True:
        return True
    if isinstance(patterns, (list, tuple)):
        return any(isinstance(p, str) and fnmatchcase(name, p) for p in patterns)
    return False


@dataclass(frozen=True)
class ConfirmPolicy:
    """The loop section's part of the policy; the toolboxes add theirs per tool."""

    tools: tuple[str, ...] = ()
    side_effects: bool = False

    @property
    def configured(self) -> bool:
        return bool(self.tools) or self.side_effects

    def needs_yes(self, tool: ToolSpec, owner_config: Any) -> bool:
        """True when a call of ``tool`` (a persona tool; ``owner_config``: its toolbox's section)
        may run only after the user's yes."""
        if _matches(tool.name, list(self.tools)):
            return True
        if _matches(tool.name, tool.annotations.get("confirm")):
            return True
        # (a whole persona handed to a toolbox by persona-server holds no toolbox policy)
        own = isinstance(owner_config, Mapping) and "handlers" not in owner_config
        if own and _matches(tool.name, owner_config.get("confirm")):
            return True
        return self.side_effects and has_side_effects(tool.annotations)
