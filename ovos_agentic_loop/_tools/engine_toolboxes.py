"""An engine's toolboxes: those it built from the persona (it closes them) and those handed in by
its caller (the caller's to close), merged into the tools a turn offers (``PersonaTools``)."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop._runtime.lifecycle import BuiltToolbox, close_toolboxes
from ovos_agentic_loop._tools.toolset import PersonaTools

__all__ = ["EngineToolboxes"]


class EngineToolboxes:
    """``built`` first, then ``handed_in``; a tool already offered wins a name collision."""

    def __init__(self, built: list[BuiltToolbox], handed_in: Iterable[ToolBox], *, engine_name: str) -> None:
        self._engine_name = engine_name
        self._lock = threading.Lock()
        self.built = built  # what the engine must close; see shut_down()
        self.tools = PersonaTools([*(b.toolbox for b in built), *handed_in], engine_name=engine_name)

    def replace(self, toolboxes: Iterable[ToolBox]) -> None:
        """Offer ``toolboxes`` instead (the built ones no longer offered are closed)."""
        toolboxes = list(toolboxes)
        kept = {id(toolbox) for toolbox in toolboxes}
        with self._lock:
            dropped = [b for b in self.built if id(b.toolbox) not in kept]
            self.built = [b for b in self.built if id(b.toolbox) in kept]
            self.tools = PersonaTools(toolboxes, engine_name=self._engine_name)
        close_toolboxes(dropped, engine_name=self._engine_name)

    def add(self, toolboxes: Iterable[ToolBox]) -> None:
        """Offer ``toolboxes`` after the current ones."""
        with self._lock:
            self.tools = PersonaTools([*self.tools.toolboxes, *toolboxes], engine_name=self._engine_name)

    def shut_down(self) -> None:
        """Close every toolbox built here; idempotent. Their tools are no longer offered."""
        with self._lock:
            built, self.built = self.built, []
            mine = {id(b.toolbox) for b in built}
            kept = [toolbox for toolbox in self.tools.toolboxes if id(toolbox) not in mine]
            self.tools = PersonaTools(kept, engine_name=self._engine_name)
        close_toolboxes(built, engine_name=self._engine_name)
