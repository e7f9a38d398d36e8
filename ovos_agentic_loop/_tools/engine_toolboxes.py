"""An engine's toolboxes: those it built from the persona (it closes them) and those handed in by
its caller (the caller's to close), merged into the tools a turn offers (``PersonaTools``)."""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Iterable
from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop._runtime.lifecycle import BuiltToolbox, close_toolboxes
from ovos_agentic_loop._runtime.loading import load_toolboxes
from ovos_agentic_loop._runtime.sections import ToolboxSection
from ovos_agentic_loop._tools.toolset import PersonaTools

__all__ = ["EngineToolboxes"]

#: Toolboxes an engine built and nobody shut down yet: shut down at interpreter exit.
_LIVE: weakref.WeakSet[EngineToolboxes] = weakref.WeakSet()


@atexit.register
def _shut_down_live() -> None:
    for toolboxes in list(_LIVE):
        toolboxes.shut_down()


class EngineToolboxes:
    """``built`` first, then ``handed_in``; a tool already offered wins a name collision."""

    def __init__(self, built: list[BuiltToolbox], handed_in: Iterable[ToolBox], *, engine_name: str) -> None:
        self._engine_name = engine_name
        self._lock = threading.Lock()
        self.built = built  # what the engine must close; see shut_down()
        self.tools = PersonaTools([*(b.toolbox for b in built), *handed_in], engine_name=engine_name)
        if built:
            _LIVE.add(self)

    @classmethod
    def load(
        cls,
        sources: Iterable[ToolboxSection] | None,
        handed_in: Iterable[ToolBox],
        *,
        bus: Any,
        engine_name: str,
    ) -> EngineToolboxes:
        """The toolboxes of ``sources`` (the persona's sections; None: build none), then ``handed_in``."""
        built = load_toolboxes(sources, bus=bus, engine_name=engine_name) if sources is not None else []
        return cls(built, handed_in, engine_name=engine_name)

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
        _LIVE.discard(self)
        with self._lock:
            built, self.built = self.built, []
            mine = {id(b.toolbox) for b in built}
            kept = [toolbox for toolbox in self.tools.toolboxes if id(toolbox) not in mine]
            self.tools = PersonaTools(kept, engine_name=self._engine_name)
        close_toolboxes(built, engine_name=self._engine_name)
