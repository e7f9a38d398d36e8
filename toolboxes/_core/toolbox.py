"""The base of every bundled toolbox: failures that keep their reason, and a toolbox that says so when empty.

Every host reaches a tool through OPM's ``ToolBox.call_tool``: our loop, ovos-PHAL-plugin-tools
(``ovos.tools.invoke``), OPM's own bus handler (``ovos.persona.tools.*.call``), ovos-persona-server's
UTCP (``POST /tools/{name}``) and MCP bridges. OPM wraps a tool's exception as ``RuntimeError: Tool
execution failed for '<tool>' in ToolBox '<id>'`` (or ``ValueError: Tool input validation failed
...``) and the hosts pass only ``str(exc)`` on, so a caller never learned WHY ("path outside the
allowed folder", "run_command is disabled"). :meth:`BundledToolBox.call_tool` keeps OPM's exception
type and its opening words (so the UTCP bridge still answers 422 for bad input and 500 for a
failure) and appends the reason; it has the same ``__cause__`` as OPM's wrapper, so the loop's
observation finds the original exception where it did. Each failure is logged here as ONE line, at
INFO for a refusal the caller can fix and WARNING for anything else (the traceback at DEBUG).

Each tool's definition (``tool_json_list``) also says what the tool does, in MCP's annotation words
(``readOnlyHint``, ``destructiveHint``) and the section's ``confirm`` policy, under
``TOOL_ANNOTATIONS_KEY`` of its argument schema: the one field OPM carries to every host, so a loop
that asks before side effects learns it without importing this package.
"""

from __future__ import annotations

from contextlib import nullcontext
from fnmatch import fnmatchcase
from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolBox, ToolOutput
from ovos_utils.log import LOG
from pydantic import ValidationError

from ovos_agentic_loop_settings import TOOL_ANNOTATIONS_KEY, TOOL_PROGRESS_KEY, TOOL_ROLE_KEY
from ovos_agentic_loop_toolboxes._core.errors import ToolCallError
from ovos_agentic_loop_toolboxes._core.language import reading_in
from ovos_agentic_loop_toolboxes._core.progress import PHRASES

__all__ = ["BundledToolBox", "failure_reason"]

_MAX_LOGGED_CHARS = 500


class BundledToolBox(ToolBox):
    """OPM's ToolBox with readable failures and a WARNING when it serves no tools."""

    #: The languages its arguments' words are read in (``_core.language``); () reads none.
    langs: tuple[str, ...] = ()

    def __init__(self, toolbox_id: str, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        super().__init__(toolbox_id, config, bus)
        # In someone else's host nothing else may say it: ovos-PHAL-plugin-tools logs a toolbox's
        # tools at DEBUG only, persona-server not at all.
        if not self.tools:
            LOG.warning(f"{toolbox_id}: serves ZERO tools: {self.why_no_tools()}")

    def why_no_tools(self) -> str:
        """What to change so the toolbox serves tools (overridden where the reason is known)."""
        return "check its config section"

    def has_side_effects(self, name: str) -> bool:
        """True for a tool that changes something (a file, a process): overridden where one does."""
        return False

    def role(self, name: str) -> dict[str, Any] | None:
        """The role tool ``name`` plays for a loop's rules (``TOOL_ROLE_KEY``), or None: overridden
        by the calculator, the file reader and the command runner."""
        return None

    def progress_phrases(self, name: str) -> dict[str, list[str]] | None:
        """What a voice says while tool ``name`` runs, per language (``_core.progress``); None: the
        loop's plain "One moment."."""
        return PHRASES.get(name)

    def annotations(self, name: str) -> dict[str, Any]:
        """What tool ``name`` does, for a loop's confirmation policy (see the module docstring), the
        role it plays where it has one, and what a voice says while it runs."""
        changes = self.has_side_effects(name)
        settings = getattr(self, "settings", None)
        confirm = getattr(settings, "confirm", False)
        asks = confirm is True or (isinstance(confirm, list) and any(fnmatchcase(name, p) for p in confirm))
        notes: dict[str, Any] = {"readOnlyHint": not changes, "destructiveHint": changes, "confirm": asks}
        role = self.role(name)
        if role is not None:
            notes[TOOL_ROLE_KEY] = role
        phrases = self.progress_phrases(name)
        if phrases:
            notes[TOOL_PROGRESS_KEY] = phrases
        return notes

    @property
    def tool_json_list(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = super().tool_json_list
        for tool in tools:
            schema = tool.get("argument_schema")
            if isinstance(schema, dict):
                schema[TOOL_ANNOTATIONS_KEY] = self.annotations(str(tool["name"]))
        return tools

    def call_tool(self, name: str, tool_kwargs: Any) -> ToolOutput:
        try:
            # Argument validators that read words ("minus five") read them in this toolbox's languages.
            with reading_in(self.langs) if self.langs else nullcontext():
                return super().call_tool(name, tool_kwargs)
        except (RuntimeError, ValueError) as exc:
            reason = failure_reason(exc)
            # None: OPM's own refusal (unknown tool, wrong argument type), which already says why.
            if reason is None or type(exc) not in (RuntimeError, ValueError):
                raise
            _log_failure(self.toolbox_id, name, exc, reason)
            # The same type and cause as OPM's wrapper, which this replaces: readers of __cause__
            # (the loop's observation, tests, hosts) find what they found before.
            raise type(exc)(f"{exc}: {reason}") from exc.__cause__


def failure_reason(exc: BaseException) -> str | None:
    """Why a wrapped call failed, from the root of ``exc``'s cause chain; None when nothing is wrapped."""
    root = exc
    while root.__cause__ is not None:
        root = root.__cause__
    if root is exc:
        return None
    if isinstance(root, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}" for err in root.errors()
        )
    if isinstance(root, ToolCallError):
        return str(root)
    return f"{type(root).__name__}: {root}"


def _log_failure(toolbox_id: str, tool: str, exc: BaseException, reason: str) -> None:
    line = " ".join(reason.split())
    if len(line) > _MAX_LOGGED_CHARS:
        line = line[:_MAX_LOGGED_CHARS] + "..."
    root = exc
    while root.__cause__ is not None:
        root = root.__cause__
    if isinstance(root, (ToolCallError, ValidationError)):
        LOG.info(f"{toolbox_id}: {tool} refused: {line}")
        return
    LOG.warning(f"{toolbox_id}: {tool} failed: {line}")
    LOG.debug(f"{toolbox_id}: {tool} traceback", exc_info=root)
