"""The engine's configuration: the persona's section for the loop, parsed once.

A persona lists the loop in ``handlers`` and gives it a section of its own::

    "ovos-react-loop": {
        "brain": "ovos-chat-openai-plugin",
        "ovos-chat-openai-plugin": {"api_url": "http://127.0.0.1:8091/v1"},
        "toolboxes": ["ovos-math-tools", "ovos-clock-tools"],
        "ovos-math-tools": {},
        "max_iterations": 10
    }

The brain's and each toolbox's own sections are keys named after them; every other
key is a field of :class:`LoopConfig`. Types are strict (``"warm_up": "false"`` or
``"max_iterations": true`` is refused, not converted), and a brain or toolbox section
that is not a JSON object is refused by name: each raises :class:`ConfigError` at
construction. An unknown key is logged as a warning.

:class:`LoopPlan` is what the parsed section loads: the brain's name and section, and each
toolbox's section and where it was found (:mod:`ovos_agentic_loop.personas` finds the persona).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ovos_utils.log import LOG
from pydantic import ConfigDict, Field, field_validator, model_validator

from ovos_agentic_loop._runtime.loop_names import LOOP_NAMES
from ovos_agentic_loop._runtime.sections import ToolboxSection
from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop_settings import StrictSection, config_errors, require_mapping

__all__ = [
    "DEFAULT_BRAIN",
    "LOOP_ENTRY_POINTS",
    "LoopConfig",
    "LoopPlan",
    "MemoryStoreName",
    "Mode",
    "RuleName",
    "Selection",
    "parse_config",
]

Mode = Literal["auto", "native", "text"]
Selection = Literal["all", "auto", "always"]
MemoryStoreName = Literal["process", "file", "redis", "off"]

#: The brain used when a persona names none: this project's OpenAI-compatible brain,
#: whose defaults point at the local llama-server (``ovos-agentic-loop server start``).
DEFAULT_BRAIN = "ovos-openai-brain"

#: The entry points of this project's loops (one registry: :mod:`ovos_agentic_loop._runtime.loop_names`):
#: a persona handler that reads a loop section, and a name that can never be a brain.
LOOP_ENTRY_POINTS = LOOP_NAMES

# Keys that the ecosystem puts into every plugin section: ovos-persona passes
# {"enabled": True} for a handler without a section, and OPM engines read "lang".
_ECOSYSTEM_KEYS = frozenset({"enabled", "lang"})


#: The names of the rules that correct a small model's habits (``_rules/registry.py`` holds one
#: record per name, in this order of priority): what ``disabled_rules`` may name.
RuleName = Literal[
    "described_call",
    "unread_file",
    "head_arithmetic",
    "unstated_result",
    "repeated_answer",
    "ungrounded_value",
]


#: Rules that were removed after the rules' ablation showed them earning nothing on held-out
#: questions: a persona that still switches one off loads, and the log says it is gone.
REMOVED_RULES = frozenset({"file_operand", "copied_example", "placeholder"})

#: Rules that became part of another: a persona that switches one off switches off the rule it is
#: part of now (what it asked for is off), and the log says so.
MERGED_RULES: dict[str, RuleName] = {
    "dropped_sign": "ungrounded_value",
    "unsaid_year": "ungrounded_value",
    "unsaid_operands": "ungrounded_value",
}


class LoopConfig(StrictSection):
    """Typed view of the loop's persona section. Every field has a default."""

    # Extra keys are the brain's and the toolboxes' own sections (checked in parse_config).
    model_config = ConfigDict(extra="allow")

    brain: str | None = Field(
        default=None,
        description="Entry-point name of the chat plugin that talks to the model. "
        f"Default: None, which means {DEFAULT_BRAIN!r} on the local llama-server.",
    )
    toolboxes: list[str] = Field(
        default_factory=list, description="Entry-point names of toolbox plugins. Default: none."
    )
    mode: Mode = Field(
        default="auto",
        description="'auto': native tool calls when the brain supports them, and calls written in the "
        "reply text are run too; 'native': as auto, for brains with native tool calling; "
        "'text': a ReAct text protocol only. Default: 'auto' ('native' for ovos-native-toolcall-loop).",
    )
    max_iterations: int = Field(
        default=10, ge=1, le=100, description="Model calls with tools per turn before a forced answer."
    )
    system_prompt: str | None = Field(
        default=None, description="The persona's own instructions; the tool protocol is added to them."
    )
    tool_timeout: float = Field(default=30.0, gt=0, le=3600, description="Seconds one tool call may take.")
    max_observation_chars: int = Field(
        default=4000, ge=200, le=1_000_000, description="A tool result longer than this is cut for the model."
    )
    time_budget: float = Field(
        default=120.0, gt=0, le=86_400, description="Seconds a whole turn may take, model calls included."
    )
    max_parallel_tools: int = Field(
        default=8, ge=1, le=64, description="Tool calls of one reply that run at the same time."
    )
    warm_up: bool = Field(
        default=False,
        description="At construction, load the brain in the background and send it the system prompt and "
        "tool list once, so a local server has them in its prompt cache before the first question "
        "(on a CPU the tool list alone can take tens of seconds to read). Default: false.",
    )
    max_corrections: int = Field(
        default=1, ge=0, le=5, description="Corrective messages sent back for replies that cannot be parsed."
    )
    disabled_rules: list[RuleName] = Field(
        default_factory=list,
        description="Rules that correct the model's habits, switched off by name (a described call, head "
        "arithmetic, numbers nobody said, ...; an unknown name is refused with the list of names). "
        "Default: none, every rule is on.",
    )

    @field_validator("disabled_rules", mode="before")
    @classmethod
    def _drop_removed_rules(cls, value: Any) -> Any:
        """A removed rule's name is no error (it is off already), a merged one's switches off the
        rule it is part of; the log says so."""
        if not isinstance(value, list):
            return value
        removed = {name for name in value if isinstance(name, str) and name in REMOVED_RULES}
        if removed:
            names = ", ".join(sorted(removed))
            LOG.warning(f"disabled_rules: {names}: removed, nothing to switch off")
        kept: list[Any] = []
        for name in value:
            if isinstance(name, str) and name in removed:
                continue
            if isinstance(name, str) and name in MERGED_RULES:
                LOG.warning(f"disabled_rules: {name} is part of {MERGED_RULES[name]} now: switching that off")
                name = MERGED_RULES[name]
            if name not in kept:
                kept.append(name)
        return kept

    caller_toolboxes: bool = Field(
        default=False,
        description="Offer the model tools of toolboxes that the CALLER hands over (ToolBox objects in "
        "``tools=``, or the tools of installed toolbox plugins that ovos-persona-server adds as dicts). "
        "Default false: the persona's own 'toolboxes' list is the authority for tools run on this side; "
        "only the request's client tools (OpenAI dicts) are added, and relayed back to the caller.",
    )
    confirm_tools: list[str] = Field(
        default_factory=list,
        description="Tool names or shell-style patterns ('write_file', 'Hass*') whose calls never run "
        "without the user's yes: the turn ends with a question instead. Default: none.",
    )
    confirm_side_effects: bool = Field(
        default=False,
        description="Also ask before every tool that may change something: one whose annotations do not "
        "say readOnlyHint true, or say destructiveHint true (our write_file, run_command and skill "
        "scripts; MCP tools, whose annotations ovos-tool-adapters does not pass on). Default: false.",
    )
    confirm_key: str | None = Field(
        default=None,
        min_length=16,
        description="The secret that signs the pending call carried in a question, so any replica with "
        "the same key can carry out the yes. Default: the OVOS_AGENTIC_LOOP_CONFIRM_KEY environment "
        "variable, else a random key per process (engines of one process only).",
    )
    confirm_expiry: float = Field(
        default=300.0, gt=0, le=86_400, description="Seconds a question waits for its yes. Default: 300."
    )
    voice_bus: Literal["auto"] | bool = Field(
        default="auto",
        description="A messagebus client of the engine's own, where the host gave it no bus (ovos-persona "
        "under ovos-core): 'auto', connected by the first turn that runs inside a messagebus handler; "
        "true, connected at construction; false, never. Aimed where mycroft.conf's websocket section "
        "says. Default: 'auto'.",
    )
    progress_speech: bool = Field(
        default=True,
        description="When a turn has been silent for 'progress_delay' seconds and a tool is running or "
        "about to run, say one short line about that call ('Reading shopping.txt.'), made from the call "
        "and its toolbox, never by the model: a 'progress' step event a host may speak (spoken on the "
        "bus under ovos-core). Never part of the answer or of the history. Default: true.",
    )
    progress_delay: float = Field(
        default=2.5, gt=0, le=600, description="Seconds of silence before a progress line. Default: 2.5."
    )
    progress_lines: dict[str, str] = Field(
        default_factory=dict,
        description="The persona's own progress lines: a tool name or shell-style pattern -> a template "
        "whose {names} are the call's arguments ('Looking up the weather in {city}.'). They come before "
        "the toolbox's phrases. Default: none.",
    )
    context_plugins: list[str] = Field(
        default_factory=list,
        description="Entry-point names of opm.agents.memory plugins (e.g. 'ovos-agents-md-context-plugin') "
        "whose system prompt is added to the persona's when it loads; each takes its section under its "
        "name. Default: none.",
    )

    tool_selection: Selection = Field(
        default="auto",
        description="Which tools a turn offers the model. 'all': every tool, every turn; 'auto': every "
        "tool while the persona has at most 'select_above' of them, else a shortlist chosen for the "
        "question (up to 'max_offered_tools', plus a find_tools meta-tool for the rest); 'always': the "
        "shortlist whatever the number. Default: 'auto'.",
    )
    max_offered_tools: int = Field(
        default=8, ge=1, le=200, description="Tools a shortlist offers besides 'always_offered_tools'."
    )
    select_above: int = Field(
        default=20,
        ge=1,
        le=1000,
        description="'auto' chooses a shortlist only when the persona has more tools than this. Default 20.",
    )
    always_offered_tools: list[str] = Field(
        default_factory=list,
        description="Tool names a shortlist always holds, first and in this order (they keep the start "
        "of the prompt, and so llama-server's prompt cache, the same from turn to turn). Default: none.",
    )

    memory: MemoryStoreName = Field(
        default="process",
        description="Where the loop remembers its own turns (their tool calls, results and the answer as "
        "delivered), so a follow-up ('and twenty percent?', 'no, I meant seventy') sees the earlier "
        "results: 'process', in this process; 'file', an SQLite file in the user cache folder that "
        "survives a restart; 'redis', a Redis server at 'memory_url' shared by replicas; 'off', never. "
        "Default: 'process'.",
    )
    memory_turns: int = Field(
        default=6, ge=1, le=100, description="Earlier turns of one conversation remembered. Default: 6."
    )
    memory_max_age: float = Field(
        default=1800.0,
        gt=0,
        le=30 * 86_400,
        description="Seconds a remembered turn is kept after it ended. Default: 1800 (30 minutes).",
    )
    memory_url: str | None = Field(
        default=None,
        min_length=1,
        description="The Redis server of 'memory': 'redis' (redis://HOST:PORT/DB, rediss:// for TLS); "
        "needed there, not read otherwise. Default: none.",
    )

    @field_validator("progress_lines")
    @classmethod
    def _templates(cls, value: dict[str, str]) -> dict[str, str]:
        from ovos_agentic_loop._text.progress import template_fields

        for template in value.values():
            template_fields(template)  # ValueError: the error names the key and the template
        return value

    @model_validator(mode="after")
    def _memory_url_for_redis(self) -> LoopConfig:
        if self.memory == "redis" and not self.memory_url:
            raise ValueError('memory "redis" needs "memory_url", e.g. "redis://127.0.0.1:6379/0"')
        return self

    @property
    def brain_name(self) -> str:
        """The brain's entry-point name: ``brain``, or :data:`DEFAULT_BRAIN` when the section names none."""
        return self.brain or DEFAULT_BRAIN

    def plugin_section(self, name: str) -> dict[str, Any]:
        """The persona section of a brain or toolbox named ``name`` (``{}`` when absent or null)."""
        extra = self.model_extra or {}
        return dict(extra.get(name) or {})


def parse_config(raw: dict[str, Any] | None, *, engine_name: str, default_mode: Mode = "auto") -> LoopConfig:
    """Validate a persona section; raise :class:`ConfigError` naming the bad key and what fits."""
    with config_errors(engine_name, ConfigError):
        raw = require_mapping(raw, what=f"the {engine_name!r} section")
        raw.setdefault("mode", default_mode)
        config = LoopConfig.model_validate(raw)
        for name in (config.brain_name, *config.toolboxes, *config.context_plugins):
            require_mapping((config.model_extra or {}).get(name), what=f"the {name!r} section")
    _warn_unknown_keys(config, engine_name)
    return config


def _warn_unknown_keys(config: LoopConfig, engine_name: str) -> None:
    named = {config.brain_name, *config.toolboxes, *config.context_plugins}
    for key, value in (config.model_extra or {}).items():
        if key in named or key in _ECOSYSTEM_KEYS:
            continue
        if isinstance(value, dict):
            hint = "it looks like a plugin section, but no brain or toolbox of that name is configured"
        else:
            hint = f"known keys: {', '.join(sorted(LoopConfig.model_fields))}"
        LOG.warning(f"{engine_name}: unknown config key {key!r} is ignored ({hint})")


@dataclass(frozen=True)
class LoopPlan:
    """What one of this project's loops will load for a persona section."""

    handler: str
    settings: LoopConfig
    brain: str  # entry-point name (the default brain when the section names none)
    brain_section: dict[str, Any] = field(default_factory=dict)
    toolbox_sources: dict[str, ToolboxSection] = field(default_factory=dict)  # in the section's order

    @property
    def toolbox_sections(self) -> dict[str, dict[str, Any]]:
        """Each toolbox's section, by name, in the loop section's order."""
        return {name: source.section for name, source in self.toolbox_sources.items()}

    @classmethod
    def from_settings(
        cls, handler: str, settings: LoopConfig, persona: dict[str, Any] | None = None
    ) -> LoopPlan:
        """``persona``: the whole persona JSON when known, so top-level toolbox sections are found."""
        return cls(
            handler=handler,
            settings=settings,
            brain=settings.brain_name,
            brain_section=settings.plugin_section(settings.brain_name),
            toolbox_sources={
                name: _toolbox_section(name, handler, settings, persona) for name in settings.toolboxes
            },
        )


def _toolbox_section(
    name: str, handler: str, settings: LoopConfig, persona: dict[str, Any] | None
) -> ToolboxSection:
    in_loop = (settings.model_extra or {}).get(name)  # parse_config already refused a non-object here
    top = None if persona is None else persona.get(name)
    if top is not None and not isinstance(top, dict):
        raise ConfigError(
            f"{handler}: invalid configuration: the {name!r} section at the persona's top level must be "
            f"a JSON object, got {type(top).__name__}"
        )
    known = persona is not None
    if in_loop is not None:
        return ToolboxSection(name, dict(in_loop), "loop", handler, known, shadowed=top is not None)
    if top is not None:
        return ToolboxSection(name, dict(top), "persona", handler, known)
    return ToolboxSection(name, {}, "none", handler, known)
