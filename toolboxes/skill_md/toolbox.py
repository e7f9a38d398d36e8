"""ovos-skill-md-toolbox: SKILL.md folders as tools, with progressive disclosure.

Tools:

- ``list_skills()``: every skill's name, description and the tools its scripts provide.
- ``load_skill(skill)``: a skill's instructions (the SKILL.md body) and its file list. The
  catalog of skill names and descriptions is in this tool's description, so the model can pick
  a skill without a round trip; the full text costs context only when loaded.
- ``read_skill_file(skill, path)``: a reference file inside that skill's folder; paths leaving
  the folder, through '..' or a symbolic link, are refused.
- one tool per script of an executable (OpenSage) skill, named after the skill (``text-stats`` ->
  ``text_stats``; ``<skill>_<script>`` when a skill has several scripts), with the arguments of
  its ``## Parameters``. See ``scripts.py`` for how arguments reach argv.

Config keys (defaults in brackets):

- ``skills_paths`` [[]], ``extra_skill_md_paths`` [[]], ``user_skills_path`` [XDG data dir],
  ``use_entry_points`` [true], ``enabled_skills`` ["all"]: see ``discovery.py``.
- ``refresh_interval`` [2.0]: seconds between checks of the skill folders for changes.
- ``allow_scripts`` [true]: offer executable skills' scripts as tools.
- ``root_path`` [null = a fresh temporary folder per call]: the scripts' working folder.
- ``default_timeout`` [20] when a skill has no ``## Timeout``; ``max_timeout`` [25] caps it. Keep
  ``max_timeout`` below the loop's ``tool_timeout`` (30 by default): only this toolbox can kill a
  script, and the loop stops waiting at ``tool_timeout``.
- ``env_allowlist`` [[]], ``max_output_bytes`` [32768], ``max_memory_mb`` [2048],
  ``max_file_size_mb`` [256], ``max_processes`` [null], ``sandbox`` [true], ``require_sandbox``
  [false], ``allow_network`` [false]: as for ovos-shell-tools. In the Landlock sandbox a script
  reads its skill folder and the system folders, and writes only its working folder and temp folder.
- ``install_deps`` [false]: run a skill's ``deps/install.sh`` (once, before its first script
  run) with ``deps_timeout`` [300] seconds; its output is logged.
- ``max_file_chars`` [20000]: cap on instructions and files returned to the model.

``should_run_in_sandbox`` is reported by ``list_skills`` but no container is started: scripts run
on this machine under the constraints above. Every key is type-checked strictly and unknown keys
are logged by name. Upstream's inner-LLM routing (``set_brain`` and a
``brain`` key) is not needed here; both are accepted and ignored.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolOutput
from ovos_utils.log import LOG
from pydantic import ConfigDict, Field

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError
from ovos_agentic_loop_toolboxes._core.folders import RootFolder
from ovos_agentic_loop_toolboxes._core.paths import Sandbox, open_regular_file
from ovos_agentic_loop_toolboxes._core.process import kill_active_runs
from ovos_agentic_loop_toolboxes._core.settings import (
    MAX_PATH_CHARS,
    MAX_SHORT_CHARS,
    ProcessSettings,
    max_chars,
    parse_settings,
)
from ovos_agentic_loop_toolboxes._core.toolbox import BundledToolBox
from ovos_agentic_loop_toolboxes.skill_md.discovery import (
    SkillCatalog,
    SkillRoot,
    entry_point_roots,
    example_skill_names,
    user_skills_dir,
)
from ovos_agentic_loop_toolboxes.skill_md.parser import Skill
from ovos_agentic_loop_toolboxes.skill_md.scripts import (
    ScriptSettings,
    SkillScriptOutput,
    args_model,
    run_script,
)

__all__ = ["SkillMDSettings", "SkillMDToolBox"]

TOOLBOX_ID = "ovos-skill-md-toolbox"
FIXED_TOOLS = ("list_skills", "load_skill", "read_skill_file")
_MAX_FILES_LISTED = 50


class SkillMDSettings(ProcessSettings):
    """The ``ovos-skill-md-toolbox`` section (see the module docstring for every key)."""

    # Upstream's inner LLM: accepted, not needed (skill tools are called by the loop directly).
    ignored_keys: ClassVar[frozenset[str]] = frozenset({"enabled", "brain"})

    skills_paths: str | list[str] = Field(default_factory=list, description="Folders of skills.")
    extra_skill_md_paths: str | list[str] = Field(default_factory=list, description="Skills loaded always.")
    user_skills_path: str | None = Field(default_factory=user_skills_dir, description="null: none.")
    use_entry_points: bool = Field(True, description="Load skills that installed packages ship.")
    enabled_skills: str | list[str] | None = Field("all", description="'all', null (none) or names.")
    refresh_interval: float = Field(2.0, ge=0, description="Seconds between checks for changed skills.")
    allow_scripts: bool = Field(True, description="Offer executable skills' scripts as tools.")
    root_path: str | None = Field(None, description="Scripts' working folder; null: a temp folder per call.")
    default_timeout: float = Field(20.0, gt=0, description="Seconds when a skill sets no ## Timeout.")
    install_deps: bool = Field(False, description="Run a skill's deps/install.sh before its first run.")
    deps_timeout: float = Field(300.0, gt=0, description="Seconds deps/install.sh may take.")
    max_file_chars: int = Field(20000, ge=1000, description="Cap on text returned to the model.")


_SkillName = Annotated[str, max_chars(MAX_SHORT_CHARS, "skill", "give a skill name as listed")]


class _Args(ToolArguments):
    model_config = ConfigDict(extra="forbid")


class ListSkillsArgs(_Args):
    pass


class LoadSkillArgs(_Args):
    skill: _SkillName = Field(..., description="Skill name, as listed.")


class ReadSkillFileArgs(_Args):
    skill: _SkillName = Field(..., description="Skill name, as listed.")
    path: Annotated[str, max_chars(MAX_PATH_CHARS, "path", "give a path as listed by load_skill")] = Field(
        ..., description="File path inside the skill folder, as listed by load_skill."
    )


class SkillSummary(ToolOutput):
    name: str
    description: str
    tools: list[str] = Field(default_factory=list, description="Tools that run this skill's scripts.")
    sandbox: str | None = Field(None, description="should_run_in_sandbox from the skill, if any.")


class ListSkillsOutput(ToolOutput):
    skills: list[SkillSummary]


class LoadSkillOutput(ToolOutput):
    skill: str
    instructions: str = Field(..., description="Follow these instructions.")
    files: list[str] = Field(..., description="Files you can open with read_skill_file.")
    tools: list[str] = Field(..., description="Tools that run this skill's scripts.")
    truncated: bool = False


class ReadSkillFileOutput(ToolOutput):
    skill: str
    path: str
    content: str
    truncated: bool = False


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "skill"


class SkillMDToolBox(BundledToolBox):
    """Skills from SKILL.md folders; see the module docstring for tools and config."""

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        settings = parse_settings(SkillMDSettings, TOOLBOX_ID, config)
        self.settings = settings
        # Everything discover_tools needs is set before super().__init__, which calls it and
        # swallows its errors (the toolbox would silently have no tools).
        self._lock = threading.RLock()
        self._tools: dict[str, AgentTool] = {}
        self._built_version = -1
        self._skills: dict[str, Skill] = {}
        self._script_tool_names: dict[str, list[str]] = {}
        self.allow_scripts = settings.allow_scripts
        self.max_file_chars = settings.max_file_chars
        self.script_settings = _script_settings(settings)
        self.catalog = SkillCatalog(
            lambda: _roots(settings),
            enabled=settings.enabled_skills,
            refresh_interval=settings.refresh_interval,
        )
        super().__init__(TOOLBOX_ID, config, bus)

    def why_no_tools(self) -> str:
        """Where skills were looked for, and what to change (the constructor logs it at WARNING)."""
        if self.settings.enabled_skills is None:
            return "enabled_skills is null; list skill names or set it to 'all'"
        looked = ", ".join(f"{r.path} ({r.origin})" for r in _roots(self.settings)) or "nowhere"
        return (
            f"no enabled skill found (looked in: {looked}); put a folder with a SKILL.md in one of them "
            "or in skills_paths, or name the bundled examples in enabled_skills "
            f"(e.g. {example_skill_names()})"
        )

    def stop_calls(self, thread_id: int) -> int:
        """Kill the scripts a call running in thread ``thread_id`` started (see ShellToolBox.stop_calls)."""
        return kill_active_runs(thread_id)

    def has_side_effects(self, name: str) -> bool:
        """A script of an executable skill runs a program; the instructions are only read."""
        return any(name in names for names in self._script_tool_names.values())

    def diagnostics(self) -> list[str]:
        """Status lines for ``doctor``: scripts on or off, their kill deadline and the kernel sandbox."""
        if not self.allow_scripts:
            return ["skill scripts: OFF (allow_scripts is false)"]
        s = self.script_settings
        return [
            f"skill scripts: ON; killed after at most {s.max_timeout:g} s "
            "(keep the loop's tool_timeout above that)",
            s.policy.kernel.status(),
        ]

    # ``tools`` is a property so every reader (the engine, call_tool, the bus) sees skills that were
    # added or edited since the last look; the check is throttled by refresh_interval.
    @property
    def tools(self) -> dict[str, AgentTool]:
        with self._lock:
            self.catalog.skills()
            if self.catalog.version != self._built_version:
                self._tools = {t.name: t for t in self.discover_tools()}
            return self._tools

    @tools.setter
    def tools(self, value: dict[str, AgentTool]) -> None:
        with self._lock:
            self._tools = value

    def set_brain(self, brain: Any) -> None:
        """Upstream hands its skill toolbox an inner LLM; skills here run without one."""
        LOG.debug(f"{TOOLBOX_ID}: set_brain ignored; skill tools are called directly by the loop")

    # -- tool list ----------------------------------------------------------
    def discover_tools(self) -> list[AgentTool]:
        with self._lock:
            skills = self.catalog.skills()
            self._built_version = self.catalog.version
            self._skills = {s.name: s for s in skills}
            self._script_tool_names = {}
            if not skills:
                return []
            tools = [
                AgentTool("list_skills", "List the available skills.", ListSkillsArgs, ListSkillsOutput,
                          self.list_skills),
                AgentTool("load_skill", self._load_description(skills), LoadSkillArgs, LoadSkillOutput,
                          self.load_skill),
                AgentTool("read_skill_file", "Read a file of a loaded skill (reference, example, script).",
                          ReadSkillFileArgs, ReadSkillFileOutput, self.read_skill_file),
            ]  # fmt: skip
            if self.allow_scripts:
                tools += self._script_tools(skills)
            return tools

    def _load_description(self, skills: list[Skill]) -> str:
        lines = ["Load a skill's instructions before doing its task. Skills:"]
        for skill in skills:
            description = (
                skill.description if len(skill.description) <= 160 else skill.description[:157] + "..."
            )
            lines.append(f"- {skill.name}: {description}")
        return "\n".join(lines)

    def _script_tools(self, skills: list[Skill]) -> list[AgentTool]:
        tools: list[AgentTool] = []
        taken = set(FIXED_TOOLS)
        for skill in skills:
            if not skill.executable or skill.param_error:
                continue
            for script in skill.scripts:
                name = slug(skill.name)
                if len(skill.scripts) > 1:
                    name = f"{name}_{slug(os.path.splitext(os.path.basename(script))[0])}"
                name = name[:64]
                if name in taken:
                    LOG.warning(f"{TOOLBOX_ID}: tool name {name!r} of {skill.path} is taken; script skipped")
                    continue
                taken.add(name)
                self._script_tool_names.setdefault(skill.name, []).append(name)
                tools.append(
                    AgentTool(
                        name=name,
                        description=skill.description,
                        argument_schema=args_model(skill, name),
                        output_schema=SkillScriptOutput,
                        tool_call=self._script_caller(skill, script, name),
                    )
                )
        return tools

    def _script_caller(self, skill: Skill, script: str, name: str) -> Callable[[Any], Any]:
        def call(args: Any) -> Any:
            # Only what the model set: a default read from prose is documentation, not an argument.
            values = {key[2:]: getattr(args, key) for key in args.model_fields_set if key.startswith("p_")}
            return run_script(skill, script, name, values, self.script_settings)

        return call

    # -- fixed tools --------------------------------------------------------
    def _skill(self, name: str) -> Skill:
        skill = self._skills.get(name) or next(
            (s for s in self._skills.values() if slug(s.name) == slug(name)), None
        )
        if skill is None:
            known = ", ".join(self._skills) or "none"
            raise ToolCallError(f"there is no skill named {name!r}; available skills: {known}")
        return skill

    def list_skills(self, args: ListSkillsArgs) -> ListSkillsOutput:
        tools_by_skill = self._tools_by_skill()
        return ListSkillsOutput(
            skills=[
                SkillSummary(name=s.name, description=s.description, tools=tools_by_skill.get(s.name, []),
                             sandbox=s.sandbox)
                for s in self._skills.values()
            ]
        )  # fmt: skip

    def _tools_by_skill(self) -> dict[str, list[str]]:
        return self._script_tool_names

    def load_skill(self, args: LoadSkillArgs) -> LoadSkillOutput:
        skill = self._skill(args.skill)
        body = skill.body
        return LoadSkillOutput(
            skill=skill.name,
            instructions=body[: self.max_file_chars],
            files=_list_files(skill.folder),
            tools=self._tools_by_skill().get(skill.name, []),
            truncated=len(body) > self.max_file_chars,
        )

    def read_skill_file(self, args: ReadSkillFileArgs) -> ReadSkillFileOutput:
        skill = self._skill(args.skill)
        rel, data = _read_inside(skill.folder, args.path, self.max_file_chars * 4)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolCallError(f"{args.path!r} is not a text file; read another file") from None
        return ReadSkillFileOutput(
            skill=skill.name,
            path=rel,
            content=text[: self.max_file_chars],
            truncated=len(text) > self.max_file_chars,
        )


def _roots(settings: SkillMDSettings) -> list[SkillRoot]:
    roots = [SkillRoot(os.path.expanduser(p), "skills_paths") for p in _as_list(settings.skills_paths)]
    for p in _as_list(settings.extra_skill_md_paths):
        path = os.path.expanduser(p)
        roots.append(SkillRoot(path, "extra_skill_md_paths", single=os.path.isfile(path), always=True))
    if settings.user_skills_path:
        roots.append(SkillRoot(os.path.expanduser(settings.user_skills_path), "user skills folder"))
    if settings.use_entry_points:
        roots += entry_point_roots()
    return roots


def _as_list(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _script_settings(settings: SkillMDSettings) -> ScriptSettings:
    # Unset: a fresh temp folder per call (never the host's working folder); set: checked like every root.
    root = RootFolder(TOOLBOX_ID, settings.root_path).path if settings.root_path else None
    return ScriptSettings(
        root_path=root,
        default_timeout=settings.default_timeout,
        max_timeout=settings.max_timeout,
        install_deps=settings.install_deps,
        deps_timeout=settings.deps_timeout,
        policy=settings.run_policy(TOOLBOX_ID, starts_programs=settings.allow_scripts),
    )


def _list_files(folder: str) -> list[str]:
    files: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "deps")
        )
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if (name == "SKILL.md" and dirpath == folder) or os.path.islink(full) or name.startswith("."):
                continue
            files.append(os.path.relpath(full, folder).replace(os.sep, "/"))
            if len(files) >= _MAX_FILES_LISTED:
                return files
    return files


def _read_inside(folder: str, path: str, limit: int) -> tuple[str, bytes]:
    """Read up to ``limit`` bytes of ``path`` inside ``folder``, confined by the one path rule."""
    cleaned = path.strip().replace("\\", "/")
    if not cleaned or cleaned in (".", "/"):
        raise ToolCallError("give a file path as listed by load_skill, e.g. 'reference/notes.md'")
    try:
        target = Sandbox(folder).resolve(cleaned, "path")
    except (PermissionError, ValueError):
        raise ToolCallError(
            f"{path!r} is outside the skill folder (or goes through a link out of it); "
            "use a path as listed by load_skill"
        ) from None
    if not os.path.isfile(target.real):
        raise ToolCallError(f"{path!r} does not exist in skill folder; use a path as listed by load_skill")
    try:
        # The resolved path is opened component by component with O_NOFOLLOW from a descriptor of
        # the folder: a link swapped in after the check fails the open instead of leading out, and
        # a FIFO swapped in for the file is refused without blocking.
        with Sandbox(folder).open_dir(target.parts[:-1]) as dir_fd:
            fd = open_regular_file(dir_fd, target.parts[-1])
    except OSError as exc:
        raise ToolCallError(f"{path!r} cannot be read ({exc}); read another file") from exc
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit)
    return target.rel, data
