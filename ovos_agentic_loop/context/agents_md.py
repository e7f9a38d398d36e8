"""ovos-agents-md-context-plugin: a persona's system prompt built from AGENTS.md files.

An OPM ``AgentContextManager`` (group ``opm.agents.memory``) with upstream's entry point, module
path and keys. Two ways to use it:

- as the persona's memory (ovos-persona's ``"memory_module": "ovos-agents-md-context-plugin"``,
  its section under that name): ovos-persona calls :meth:`build_conversation_context`, which
  returns the system message, the session's recent history and the new utterance; the loop
  puts that system message into its own, before the tool instructions;
- named in the loop's ``context_plugins`` key: the loop reads :attr:`system_prompt` when the
  persona loads (see :mod:`ovos_agentic_loop.context.loop_context`).

Files are found by :mod:`~ovos_agentic_loop.context.discovery` (working folder, configured
sources, installed packages; most specific first) and combined within ``max_chars``: a less
specific file is the one cut. A file that cannot be read, is not UTF-8 text or is binary is
skipped with a WARNING naming it. The prompt is rebuilt when a file changes.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

from ovos_plugin_manager.templates.agents import AgentContextManager, AgentMessage, MessageRole
from ovos_utils.log import LOG
from pydantic import ConfigDict, Field

from ovos_agentic_loop.context import discovery
from ovos_agentic_loop_settings import StrictSection, config_errors, require_mapping

__all__ = ["PLUGIN_ID", "AgentsMDContextManager", "AgentsMDSettings", "select_sections"]

PLUGIN_ID = "ovos-agents-md-context-plugin"
_MAX_FILE_BYTES = 1_000_000  # a larger file is not an instruction file; only its start is read
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


class AgentsMDSettings(StrictSection):
    """The plugin's section (strict and frozen: StrictSection). Upstream's keys first, then this project's."""

    model_config = ConfigDict(extra="allow")

    agents_md_sources: list[str] = Field(
        default_factory=lambda: [discovery.AUTO],
        description="AGENTS.md files or folders holding one; 'auto' adds those installed packages ship. "
        "Default: ['auto'].",
    )
    include_sections: list[str] = Field(
        default_factory=list,
        description="Keep only sections whose heading contains one of these (any case), with their "
        "subsections. Default: [] (whole files).",
    )
    system_prompt_prefix: str = Field(default="", description="Text put before the AGENTS.md text.")
    system_prompt: str = Field(default="", description="The persona's own instructions, put first.")
    working_folder: str | None = Field(
        default=".",
        description="Folder whose AGENTS.md (and its parents' up to the repository root) comes first; "
        "'.' is the process's working folder, null turns it off. Default: '.'.",
    )
    max_chars: int = Field(
        default=8000,
        ge=200,
        le=200_000,
        description="Characters of AGENTS.md text in the prompt. Default: 8000.",
    )
    max_history: int = Field(
        default=5,
        ge=0,
        le=1000,
        description="Messages of history kept per session. Default: 5 (as ovos-persona).",
    )


class AgentsMDContextManager(AgentContextManager):
    """Builds the system prompt from AGENTS.md files; keeps a short history per session.

    Args:
        config: the plugin's section (see :class:`AgentsMDSettings`); a wrong type raises ``ValueError``.
        extra_paths: more AGENTS.md files, after the configured ones (upstream's argument).
    """

    plugin_id = PLUGIN_ID

    def __init__(self, config: dict[str, Any] | None = None, extra_paths: list[str] | None = None) -> None:
        super().__init__(config=config)
        self.settings = _parse(config)
        self._extra_paths = [str(p) for p in extra_paths or []]
        self._sessions: dict[str, list[AgentMessage]] = {}
        self._lock = threading.Lock()
        self._package_files: list[Path] | None = None
        self._warned: set[str] = set()
        self._cache: tuple[tuple[tuple[str, int, int], ...], str] | None = None

    # -- the system prompt ---------------------------------------------------------------------
    @property
    def system_prompt(self) -> str:
        """The persona's prompt, the prefix, then the AGENTS.md text (rebuilt when a file changes)."""
        with self._lock:
            files = self.files()
            signature = tuple(_stamp(p) for p in files)
            if self._cache is None or self._cache[0] != signature:
                self._cache = (signature, self._build(files))
            return self._cache[1]

    def invalidate_cache(self) -> None:
        """Rebuild the prompt on next access and look for installed packages' files again."""
        with self._lock:
            self._cache = None
            self._package_files = None

    def files(self) -> list[Path]:
        """The AGENTS.md files in use, most specific first, each once."""
        s = self.settings
        found: list[Path] = []
        if s.working_folder is not None:
            found += discovery.working_folder_files(Path(os.path.expanduser(s.working_folder)))
        configured, missing = discovery.configured_files([*s.agents_md_sources, *self._extra_paths])
        found += configured
        for source in set(missing) - self._warned:
            self._warned.add(source)
            LOG.warning(
                f"{PLUGIN_ID}: AGENTS.md source {source!r} is neither a file nor a folder holding one"
            )
        if discovery.AUTO in s.agents_md_sources:
            if self._package_files is None:
                self._package_files = discovery.package_files()
            found += self._package_files
        unique: dict[Path, None] = {}
        for path in found:
            unique.setdefault(path.resolve(), None)
        return list(unique)

    def _build(self, files: list[Path]) -> str:
        s = self.settings
        head = [part.strip() for part in (s.system_prompt, s.system_prompt_prefix) if part.strip()]
        budget = s.max_chars
        blocks: list[str] = []
        for index, path in enumerate(files):
            text = _read(path)
            if text is not None and s.include_sections:
                text = select_sections(text, s.include_sections)
            if not text:
                continue
            block = f"# AGENTS.md ({path})\n\n{text}"
            if len(block) > budget:
                left = [str(p) for p in files[index + 1 :]]
                LOG.info(
                    f"{PLUGIN_ID}: max_chars ({s.max_chars}) reached: {path} cut"
                    + (f"; left out: {', '.join(left)}" if left else "")
                )
                if budget > 200:
                    blocks.append(_cut(block, budget))
                break
            blocks.append(block)
            budget -= len(block) + 2
        return "\n\n".join(head + blocks)

    # -- the AgentContextManager contract ------------------------------------------------------
    def get_history(self, session_id: str) -> list[AgentMessage]:
        with self._lock:
            return list(self._sessions.get(session_id, []))

    def update_history(self, new_messages: list[AgentMessage], session_id: str) -> None:
        with self._lock:
            history = self._sessions.setdefault(session_id, [])
            history.extend(new_messages)
            if len(history) > self.settings.max_history:
                del history[: len(history) - self.settings.max_history]

    def build_conversation_context(self, utterance: str, session_id: str) -> list[AgentMessage]:
        """The system message (when there is a prompt), recent history, then ``utterance``."""
        history = self.get_history(session_id)
        # A window cut between a question and its answer starts with an answer; a question that got
        # no answer (the assistant did something silently) is not repeated.
        while history and history[0].role != MessageRole.USER:
            history.pop(0)
        while history and history[-1].role == MessageRole.USER:
            history.pop()
        prompt = self.system_prompt
        messages = [AgentMessage(MessageRole.SYSTEM, prompt)] if prompt else []
        return [*messages, *history, AgentMessage(MessageRole.USER, utterance)]


def select_sections(text: str, wanted: list[str]) -> str:
    """The sections whose heading contains one of ``wanted`` (any case), each with its subsections.

    Headings inside fenced code blocks (a ``# comment`` in a shell example) are not headings.
    """
    needles = [w.lower() for w in wanted if w.strip()]
    kept: list[str] = []
    keep_level: int | None = None
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            if keep_level is not None and level <= keep_level:
                keep_level = None
            if keep_level is None and any(n in heading.group(2).lower() for n in needles):
                keep_level = level
        if keep_level is not None:
            kept.append(line)
    return "\n".join(kept).strip()


def _parse(config: dict[str, Any] | None) -> AgentsMDSettings:
    with config_errors(PLUGIN_ID, ValueError):
        settings = AgentsMDSettings.model_validate(require_mapping(config, what="its config section"))
    for key in settings.model_extra or {}:
        if key not in ("enabled", "lang"):
            known = ", ".join(AgentsMDSettings.model_fields)
            LOG.warning(f"{PLUGIN_ID}: unknown config key {key!r} is ignored (known keys: {known})")
    return settings


def _read(path: Path) -> str | None:
    """The file's text, or None (with a WARNING naming it) when it is not readable UTF-8 text."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_FILE_BYTES + 1)
    except OSError as exc:
        LOG.warning(f"{PLUGIN_ID}: skipped {path}: cannot be read ({exc.strerror or exc})")
        return None
    if len(data) > _MAX_FILE_BYTES:
        LOG.warning(f"{PLUGIN_ID}: {path} is larger than {_MAX_FILE_BYTES} bytes; only its start is used")
        data = data[:_MAX_FILE_BYTES]
        while data and (data[-1] & 0xC0) == 0x80:  # do not end inside a multi-byte character
            data = data[:-1]
        data = data[:-1] if data and data[-1] >= 0xC0 else data
    if b"\x00" in data:
        LOG.warning(f"{PLUGIN_ID}: skipped {path}: it is binary, not text")
        return None
    try:
        return data.decode("utf-8-sig").strip()
    except UnicodeDecodeError as exc:
        LOG.warning(f"{PLUGIN_ID}: skipped {path}: not UTF-8 text ({exc.reason} at byte {exc.start})")
        return None


def _stamp(path: Path) -> tuple[str, int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (str(path), -1, -1)
    return (str(path), stat.st_mtime_ns, stat.st_size)


def _cut(block: str, budget: int) -> str:
    note = "\n[... cut: max_chars reached]"
    room = max(0, budget - len(note))
    head = block[:room]
    if "\n" in head[room // 2 :]:
        head = head[: head.rfind("\n")]
    return head + note
