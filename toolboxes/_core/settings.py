"""Strict settings for every toolbox section, the process limits shared by shell and skill
scripts, and the length bounds on model-supplied text.

Persona JSON is written by hand, so a toolbox section is parsed ONCE into a pydantic model in
strict mode: ``"allow_shell": "false"`` is an error naming the key (``bool("false")`` would be
True), ``"max_timeout": "30"`` too. Unknown keys are logged by name (a typo such as
``allow_shel`` would otherwise silently leave the shell off). :func:`parse_settings` must run
BEFORE ``ToolBox.__init__``, which swallows exceptions raised while discovering tools.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from ovos_utils.log import LOG
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError
from ovos_agentic_loop_toolboxes._core.paths import MAX_PATH_CHARS
from ovos_agentic_loop_toolboxes._core.process import DEFAULT_ENV_NAMES, Limits, warn_dangerous_env_names

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


class ToolboxSettings(BaseModel):
    """Base of every toolbox's settings: strict types, frozen, unknown keys warned by name."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    # Keys other implementations (upstream ovos-agentic-loop, OPM loaders) put in a section and
    # that mean nothing here: accepted without a warning.
    ignored_keys: ClassVar[frozenset[str]] = frozenset({"enabled"})


S = TypeVar("S", bound=ToolboxSettings)


def parse_settings(model: type[S], toolbox_id: str, config: Any) -> S:
    """``config`` parsed into ``model``; a :class:`ToolboxConfigError` naming the key otherwise."""
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ToolboxConfigError(
            f"{toolbox_id}: its config section must be a JSON object, got {type(config).__name__} "
            f"{_short(config)}"
        )
    try:
        settings = model.model_validate(config)
    except ValidationError as exc:
        problems = "; ".join(_describe(errs) for errs in _by_key(exc.errors()).values())
        raise ToolboxConfigError(f"{toolbox_id}: invalid config: {problems}") from None
    unknown = sorted(set(settings.model_extra or {}) - model.ignored_keys)
    if unknown:
        known = ", ".join(sorted(model.model_fields))
        LOG.warning(f"{toolbox_id}: unknown config keys {unknown} are ignored (known keys: {known})")
    return settings


def _by_key(errors: list[Any]) -> dict[str, list[Any]]:
    """Errors grouped by the key they are about; a union type reports one error per member."""
    grouped: dict[str, list[Any]] = {}
    for err in errors:
        # loc: ('key',), ('key', 0) for a list item, ('key', 'str') for a member of a union.
        parts = [str(p) for p in err["loc"] if isinstance(p, int) or p == err["loc"][0]]
        grouped.setdefault(".".join(parts) or "(section)", []).append(err)
    return grouped


def _describe(errors: list[Any]) -> str:
    key = ".".join(str(p) for p in errors[0]["loc"][:1]) or "(section)"
    got = errors[0].get("input")
    kind = type(got).__name__
    what = "a string" if kind == "str" else f"a {kind}"
    messages = " or ".join(dict.fromkeys(e["msg"] for e in errors))
    return f"key {key!r}: {messages} (got {what} {_short(got)})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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

    def warn_env(self, toolbox_id: str) -> None:
        warn_dangerous_env_names(self.env_allowlist, toolbox_id)


def max_chars(limit: int, what: str, advice: str) -> AfterValidator:
    """Use as ``Annotated[str, max_chars(...)]``: text longer than ``limit`` is refused before any work.

    The message reaches the model as an invalid-argument observation, so it says what to do.
    """

    def check(value: str) -> str:
        if len(value) > limit:
            raise ValueError(f"{what} is {len(value)} characters long; the limit is {limit}: {advice}")
        return value

    return AfterValidator(check)
