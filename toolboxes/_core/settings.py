"""Strict settings for every toolbox section, the process limits shared by shell and skill
scripts, and the length bounds on model-supplied text.

Persona JSON is written by hand, so a toolbox section is parsed ONCE into a pydantic model in
strict mode: ``"allow_shell": "false"`` is an error naming the key (``bool("false")`` would be
True), ``"max_timeout": "30"`` too. Unknown keys are logged by name (a typo such as
``allow_shel`` would otherwise silently leave the shell off). :func:`parse_settings` must run
BEFORE ``ToolBox.__init__``, which swallows exceptions raised while discovering tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from ovos_utils.log import LOG
from pydantic import AfterValidator, ConfigDict, Field

from ovos_agentic_loop_settings import StrictSection, config_errors, require_mapping
from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError
from ovos_agentic_loop_toolboxes._core.kernel import KernelSandbox
from ovos_agentic_loop_toolboxes._core.paths import MAX_PATH_CHARS
from ovos_agentic_loop_toolboxes._core.process import DEFAULT_ENV_NAMES, Limits, warn_dangerous_env_names
from ovos_agentic_loop_toolboxes._core.runner import RunPolicy

__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_PATH_CHARS",
    "MAX_PATTERN_CHARS",
    "MAX_SHORT_CHARS",
    "ProcessSettings",
    "ToolboxSettings",
    "max_chars",
    "parse_settings",
]

# Bounds on model-supplied text, checked before any work (a multi-megabyte command once kept the
# shell busy for over 20 s). Paths: MAX_PATH_CHARS in ``paths`` (Linux's PATH_MAX).
MAX_COMMAND_CHARS = 8192
MAX_PATTERN_CHARS = 1000
MAX_SHORT_CHARS = 200  # Time zones, dates, unit names, skill names.


class ToolboxSettings(StrictSection):
    """Base of every toolbox's settings: strict types, frozen (the shared base), unknown keys warned
    by name."""

    model_config = ConfigDict(extra="allow")

    confirm: bool | list[str] = Field(
        default=False,
        description="Ask the user before a tool of this toolbox runs: true for every tool, or a list of "
        "tool names or shell-style patterns. Read by loops that ask first (ovos-react-loop and the "
        "other loops of ovos-agentic-loop), published in each tool's annotations. Default: false.",
    )

    # Keys other implementations (upstream ovos-agentic-loop, OPM loaders) put in a section and
    # that mean nothing here: accepted without a warning.
    ignored_keys: ClassVar[frozenset[str]] = frozenset({"enabled"})


S = TypeVar("S", bound=ToolboxSettings)


def parse_settings(model: type[S], toolbox_id: str, config: Any) -> S:
    """``config`` parsed into ``model``; a :class:`ToolboxConfigError` naming the key otherwise."""
    config = _own_section(toolbox_id, config)
    with config_errors(toolbox_id, ToolboxConfigError):
        settings = model.model_validate(require_mapping(config, what="its config section"))
    unknown = sorted(set(settings.model_extra or {}) - model.ignored_keys)
    if unknown:
        known = ", ".join(sorted(model.model_fields))
        LOG.warning(f"{toolbox_id}: unknown config keys {unknown} are ignored (known keys: {known})")
    return settings


def _own_section(toolbox_id: str, config: Any) -> Any:
    """The toolbox's section when a host handed over a whole persona instead.

    ovos-persona-server builds a toolbox with the persona's top-level section of that name and,
    when there is none, with the whole persona JSON (its ``handlers``, ``name``, ...). Our section
    is then looked for at the top level, then inside each handler's section, as the loop does.
    """
    if not isinstance(config, Mapping) or not isinstance(config.get("handlers"), list):
        return config
    persona = str(config.get("name") or "a persona")
    places = [(config, "its top level")] + [
        (config.get(h), f"the {h!r} section") for h in config["handlers"] if isinstance(h, str)
    ]
    for place, where in places:
        if isinstance(place, Mapping) and toolbox_id in place:
            LOG.info(
                f"{toolbox_id}: was handed the whole persona {persona!r}; using its section from {where}"
            )
            return place[toolbox_id]
    LOG.info(f"{toolbox_id}: was handed the whole persona {persona!r}, which has no section for it: defaults")
    return {}


class ProcessSettings(ToolboxSettings):
    """The keys of every toolbox that starts programs (ovos-shell-tools, ovos-skill-md-toolbox)."""

    max_timeout: float = Field(
        25.0,
        gt=0,
        description="Most seconds one program may run (default 25). Keep it BELOW the loop's tool_timeout "
        "(30 by default): the loop stops waiting at tool_timeout, and only the toolbox can kill the program.",
    )
    env_allowlist: list[str] = Field(
        default_factory=list,
        description=f"Extra variable names passed through, besides {', '.join(DEFAULT_ENV_NAMES)}, LC_*.",
    )
    max_output_bytes: int = Field(32768, ge=256, description="Bytes of stdout and of stderr kept (32 KiB).")
    max_memory_mb: int | None = Field(2048, ge=0, description="RLIMIT_AS in MiB (null or 0: unlimited).")
    max_file_size_mb: int | None = Field(256, ge=0, description="RLIMIT_FSIZE in MiB (null or 0: unlimited).")
    max_processes: int | None = Field(
        None, ge=0, description="RLIMIT_NPROC (counts ALL of the user's processes)."
    )
    sandbox: bool = Field(
        True, description="Run programs in the Landlock kernel sandbox when the kernel has it."
    )
    require_sandbox: bool = Field(
        False, description="Refuse to start when the kernel sandbox is not available."
    )
    allow_network: bool = Field(False, description="Let sandboxed programs open TCP connections.")

    @property
    def limits(self) -> Limits:
        return Limits(
            address_space_mb=self.max_memory_mb,
            file_size_mb=self.max_file_size_mb,
            processes=self.max_processes,
        )

    def run_policy(self, toolbox_id: str, *, starts_programs: bool) -> RunPolicy:
        """The toolbox's :class:`RunPolicy`, checked at construction.

        When the toolbox will start programs (``starts_programs``), a required sandbox this kernel
        cannot give refuses the construction; ``env_allowlist`` names that steer code loading are
        warned about.
        """
        kernel = KernelSandbox(toolbox_id, self.sandbox, self.require_sandbox, self.allow_network)
        if starts_programs:
            kernel.check()
        warn_dangerous_env_names(self.env_allowlist, toolbox_id)
        return RunPolicy(
            kernel=kernel,
            limits=self.limits,
            max_output_bytes=self.max_output_bytes,
            env_names=tuple(self.env_allowlist),
        )


def max_chars(limit: int, what: str, advice: str) -> AfterValidator:
    """Use as ``Annotated[str, max_chars(...)]``: text longer than ``limit`` is refused before any work.

    The message reaches the model as an invalid-argument observation, so it says what to do.
    """

    def check(value: str) -> str:
        if len(value) > limit:
            raise ValueError(f"{what} is {len(value)} characters long; the limit is {limit}: {advice}")
        return value

    return AfterValidator(check)
