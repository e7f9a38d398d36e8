"""Loading the brain and the toolboxes a persona names, loudly.

The ecosystem's worst trap is a plugin that silently serves nothing: a package name
written where an entry-point name belongs, a toolbox whose discovery raised inside
``ToolBox.__init__`` (OPM swallows it) and so has zero tools. Everything here says
so by name, with what to do about it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from ovos_plugin_manager.templates.agents import ChatEngine
from ovos_utils.log import LOG

from ovos_agentic_loop._runtime.lifecycle import BuiltToolbox, ChildWatch, close_toolboxes, tracking_children
from ovos_agentic_loop._runtime.log import ovos_logger
from ovos_agentic_loop._runtime.loop_names import LOOP_NAMES as _LOOP_ENTRY_POINTS
from ovos_agentic_loop._runtime.sections import ToolboxSection
from ovos_agentic_loop.errors import ConfigError, LoopError, PluginNotFound

__all__ = [
    "ToolboxNotLoaded",
    "installed_toolboxes",
    "load_brain",
    "load_toolbox",
    "load_toolboxes",
    "prepare_brain",
    "require_installed_brain",
]


#: Seconds a toolbox that loaded zero tools gets to close before its child processes are stopped.
ZERO_TOOLS_CLOSE_GRACE = 0.5


class _Installed(Mapping[str, Any]):
    """The plugins of one entry-point group by name, each imported only when it is looked up.

    OPM's ``find_*_plugins`` import EVERY installed plugin of the group to return one: with the
    web-search toolbox installed that is httpx for a persona that never searches, and with a
    few third-party plugins seconds of a fresh process. A plugin that fails to import raises.
    """

    def __init__(self, group: str) -> None:
        self._entry_points: dict[str, EntryPoint] = {ep.name: ep for ep in entry_points(group=group)}
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            self._loaded[name] = self._entry_points[name].load()
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entry_points)

    def __len__(self) -> int:
        return len(self._entry_points)

    def __contains__(self, name: object) -> bool:
        return name in self._entry_points


def installed_toolboxes() -> Mapping[str, Any]:
    """The installed toolbox plugins by entry-point name, each imported only when looked up."""
    return _Installed("opm.agents.toolbox")


class ToolboxNotLoaded(LoopError):
    """A toolbox that is not installed, raised while being built, or has no tools; the message says which."""


def require_installed_brain(name: str, *, engine_name: str) -> None:
    """Fail by name when the brain's entry point is not installed; reads metadata only, imports nothing."""
    installed = {ep.name for ep in entry_points(group="opm.agents.chat")}
    if name not in installed:
        raise _brain_not_found(name, installed, engine_name)
    if name in _LOOP_ENTRY_POINTS:
        raise PluginNotFound(f"{engine_name}: brain {name!r} is an agent loop itself; name a model plugin.")


def load_brain(name: str, section: dict[str, Any], *, engine_name: str) -> ChatEngine:
    """Build the chat plugin ``name`` with its persona section, or raise :class:`PluginNotFound`."""
    plugins = _Installed("opm.agents.chat")
    if name not in plugins:
        raise _brain_not_found(name, set(plugins), engine_name)
    if name in _LOOP_ENTRY_POINTS:
        raise PluginNotFound(f"{engine_name}: brain {name!r} is an agent loop itself; name a model plugin.")
    try:
        cls = plugins[name]
    except Exception as exc:  # a broken plugin package: say so, instead of calling it missing
        raise PluginNotFound(
            f"{engine_name}: brain {name!r} is installed but cannot be imported: {type(exc).__name__}: {exc}"
        ) from exc
    return cls(config=section)


def prepare_brain(brain: ChatEngine) -> None:
    """Let a brain that defers work to its first request do it now (``prepare()``, where it has one).

    ``ovos-openai-brain`` imports ``openai`` and builds its client there: half a second of a fresh
    process that the first question would otherwise wait for. Other brains have nothing to do.
    """
    prepare = getattr(brain, "prepare", None)
    if callable(prepare):
        prepare()


def _brain_not_found(name: str, installed: set[str], engine_name: str) -> PluginNotFound:
    others = ", ".join(sorted(installed - _LOOP_ENTRY_POINTS)) or "none"
    return PluginNotFound(
        f"{engine_name}: brain {name!r} is not an installed chat plugin. Installed chat plugins: {others}. "
        "'brain' takes an entry-point name (e.g. 'ovos-openai-brain' or 'ovos-chat-openai-plugin'), "
        "not a package name (e.g. not 'ovos-openai-plugin'); install the package that provides it, "
        "or run 'ovos-agentic-loop doctor <persona>'."
    )


def load_toolboxes(
    sources: Iterable[ToolboxSection], *, bus: Any = None, engine_name: str
) -> list[BuiltToolbox]:
    """Build each toolbox as ``cls(config=section, bus=bus)``, logging at INFO where its section came from.

    A toolbox that is missing, fails to build or has zero tools is logged as a
    WARNING with its name and the reason, and left out (and closed); the others still load.
    A section the toolbox refuses raises :class:`ConfigError` (see :func:`load_toolbox`).
    """
    sources = list(sources)
    if not sources:
        return []
    available = installed_toolboxes()
    children = ChildWatch()  # each toolbox's look after is the next one's look before
    loaded: list[BuiltToolbox] = []
    try:
        for source in sources:
            ovos_logger(__name__).info(f"{engine_name}: toolbox {source.name!r}: {source.describe()}")
            try:
                built = load_toolbox(
                    source.name,
                    source.section,
                    available=available,
                    bus=bus,
                    where=source.where(),
                    engine_name=engine_name,
                    children=children,
                )
            except ToolboxNotLoaded as exc:
                LOG.warning(f"{engine_name}: {exc} Skipped.")
                continue
            tools = built.toolbox.tools
            ovos_logger(__name__).info(
                f"{engine_name}: toolbox {source.name!r} loaded {len(tools)} tools: {', '.join(tools)}"
            )
            loaded.append(built)
    except BaseException:  # a refused section ends construction: what was built so far is closed
        close_toolboxes(loaded, engine_name=engine_name)
        raise
    return loaded


def load_toolbox(
    name: str,
    section: dict[str, Any],
    *,
    available: Mapping[str, Any] | None = None,
    bus: Any = None,
    where: str | None = None,
    engine_name: str = "ovos-agentic-loop",
    children: ChildWatch | None = None,
) -> BuiltToolbox:
    """Build one toolbox, or raise :class:`ToolboxNotLoaded` saying why (missing, failed, zero tools).

    A toolbox that refuses its section raises ``ValueError`` in its constructor (pydantic's
    ``ValidationError`` is one): that is the persona author's mistake, like a bad loop key, so it
    becomes :class:`ConfigError` naming the toolbox, not a skipped toolbox and a warning.
    A toolbox built with zero tools is closed before the error is raised: an MCP server that
    never answered must not keep running.

    ``available``: the installed toolboxes by name, when the caller already has them;
    ``where`` says where ``section`` came from (see :meth:`ToolboxSection.where`), for the messages;
    ``children``: the watch that finds the child processes the toolbox starts, when the caller builds
    several in a row (one ``/proc`` scan between two toolboxes instead of two).
    """
    if available is None:
        available = installed_toolboxes()
    try:
        cls = available.get(name)
    except Exception as exc:  # the package is installed but its module does not import
        raise ToolboxNotLoaded(f"toolbox {name!r} failed to import: {type(exc).__name__}: {exc}.") from exc
    if cls is None:
        raise ToolboxNotLoaded(
            f"toolbox {name!r} is not installed (installed toolboxes: "
            f"{', '.join(sorted(available)) or 'none'}); 'toolboxes' takes entry-point names."
        )
    try:
        toolbox, started = tracking_children(lambda: cls(config=section, bus=bus), children)
    except ValueError as exc:
        raise ConfigError(f"toolbox {name!r} refuses its section: {exc}") from exc
    except Exception as exc:  # a third-party plugin may raise anything; reported by the caller
        raise ToolboxNotLoaded(f"toolbox {name!r} failed to load: {type(exc).__name__}: {exc}.") from exc
    built = BuiltToolbox(name, toolbox, started)
    if not toolbox.tools:
        # Nothing to serve: a short grace, since its child (an MCP server that never answered) is
        # usually what close() would wait for.
        close_toolboxes([built], engine_name=engine_name, grace=ZERO_TOOLS_CLOSE_GRACE)
        given = f"section {section!r}" + (f" ({where})" if where else "")
        raise ToolboxNotLoaded(
            f"toolbox {name!r} loaded ZERO tools (its discover_tools() failed or "
            f"returned nothing; check its log lines above and its {given})."
        )
    return built
