"""Shared by the two OVOS adapters (this project and upstream): same plugin API, same tools.

Both are driven exactly as ovos-persona drives them: ``load_chat_plugin(name)`` gives
the class, it is built with the persona section as ``config``, and every turn is
``continue_chat([AgentMessage(USER, ...)])`` (or ``stream_sentences`` for streaming).
The bench tool is wrapped in an OPM ``ToolBox`` and handed over with
``load_toolboxes([...])``, which both engines provide.
"""

from __future__ import annotations

import importlib.metadata
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ToolSpec
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole
from pydantic import Field

BUNDLED = [
    "ovos-math-tools",
    "ovos-clock-tools",
    "ovos-filesystem-tools",
    "ovos-shell-tools",
    "ovos-skill-md-toolbox",
]


class TextArgs(ToolArguments):
    text: str = Field(description="the text to use")


class TextOutput(ToolOutput):
    result: str


class BenchToolBox(ToolBox):
    """One bench tool as an OPM toolbox."""

    def __init__(self, spec: ToolSpec, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        self.spec = spec  # set before super().__init__, which calls discover_tools()
        super().__init__(toolbox_id="bench-tools", config=config, bus=bus)

    def discover_tools(self) -> list[AgentTool]:
        spec = self.spec
        return [
            AgentTool(
                name=spec.name,
                description=spec.doc,
                argument_schema=TextArgs,
                output_schema=TextOutput,
                tool_call=lambda args: TextOutput(result=spec.func(args.text)),
            )
        ]


def installed_toolboxes() -> set[str]:
    return {ep.name for ep in importlib.metadata.entry_points(group="opm.agents.toolbox")}


def sandbox_sections(job: dict[str, Any]) -> dict[str, Any]:
    """Per-toolbox sections that make every bundled tool usable (keys both projects read)."""
    root = job.get("sandbox") or tempfile.mkdtemp(prefix="bench-fs-")
    skills = (
        sorted(str(p) for p in Path(job["skills_dir"]).glob("*/SKILL.md")) if job.get("skills_dir") else []
    )
    return {
        "ovos-filesystem-tools": {"root_path": root, "allow_write": True},
        "ovos-shell-tools": {"allow_shell": True, "root_path": root},
        # Upstream reads single SKILL.md files from this key; this project accepts files too.
        "ovos-skill-md-toolbox": {"extra_skill_md_paths": skills} if skills else {},
    }


def engine_config(job: dict[str, Any], brain: str, brain_section: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {
        "brain": brain,
        brain: brain_section,
        "max_iterations": job.get("max_iterations", 40),
    }
    wanted = job.get("toolboxes") or []
    if wanted:
        have = installed_toolboxes()
        config["toolboxes"] = [t for t in wanted if t in have]
        sections = sandbox_sections(job)
        for name in config["toolboxes"]:
            if sections.get(name):
                config[name] = sections[name]
    config.update(job.get("engine_extra") or {})
    return config


def make_engine(job: dict[str, Any], tool: ToolSpec | None, brain: str, brain_section: dict[str, Any]):
    cls = load_chat_plugin(job.get("engine", "ovos-react-loop"))
    if cls is None:
        raise RuntimeError(f"chat plugin {job.get('engine')!r} is not installed")
    engine = cls(config=engine_config(job, brain, brain_section))
    if tool is not None:
        engine.load_toolboxes([BenchToolBox(tool)])
    if job.get("only_tools"):
        restrict_tools(engine, set(job["only_tools"]))
    _ = engine.brain  # both engines load the brain lazily: "ready" means loaded
    return engine


def record_calls(engine) -> list[dict[str, Any]]:
    """Every tool call the engine executes, in order: ``{"toolbox", "tool", "arguments"}``.

    Both projects' engines run a tool through ``ToolBox.call_tool(name, kwargs)``, so each loaded
    toolbox's ``call_tool`` is wrapped on the instance; the call itself still runs. What is recorded
    is what the engine asked for (the arguments before the tool's own validation), which is what
    the spoken suite's "no file tool for a knowledge question" and the BFCL checker look at.
    """
    calls: list[dict[str, Any]] = []
    for toolbox in engine.toolboxes:
        call_tool = toolbox.call_tool

        def recorded(name: str, kwargs: Any, _call=call_tool, _box=toolbox) -> Any:
            arguments = kwargs.model_dump() if hasattr(kwargs, "model_dump") else dict(kwargs or {})
            calls.append({"toolbox": _box.toolbox_id, "tool": name, "arguments": arguments})
            return _call(name, kwargs)

        toolbox.call_tool = recorded
    return calls


def restrict_tools(engine, names: set[str]) -> None:
    """Keep only the tools called ``names`` in the engine's (already loaded) toolboxes.

    The same toolboxes, configured as usual, with every other tool taken out of each
    toolbox's ``tools`` dict: what a persona offering only those tools sends (figure 3,
    "same tools as upstream"). The engine then builds its request as always.
    """
    for toolbox in engine.toolboxes:
        toolbox.tools = {n: t for n, t in toolbox.tools.items() if n in names}
    engine.load_toolboxes(engine.toolboxes)  # drop any merged view built before


def runner(engine, stream: bool = False):
    """``run(prompt) -> answer``; a conversation passes the earlier ``(question, answer)`` turns as
    ``history`` and the user's ``lang``, as ovos-persona does for a follow-up question.

    With ``stream`` each answer comes from ``stream_sentences`` (as a voice assistant speaks it):
    ``run.first_sentence`` gets the seconds to its first sentence (None when nothing was said), and
    ``run.first_audible`` the seconds to the first thing a voice would say: the loop's progress line
    (a ``progress`` step event, which a host speaks) or the first sentence, whichever came first."""
    first_sentence: list[float | None] = []
    first_audible: list[float | None] = []
    progress_at: list[float] = []  # this turn's progress lines, perf_counter() when emitted

    def run(prompt: str, history: list[tuple[str, str]] | None = None, lang: str | None = None) -> str:
        messages = []
        for question, answer in history or []:
            messages.append(AgentMessage(role=MessageRole.USER, content=question))
            messages.append(AgentMessage(role=MessageRole.ASSISTANT, content=answer))
        messages.append(AgentMessage(role=MessageRole.USER, content=prompt))
        kwargs = {"lang": lang} if lang else {}
        if not stream:
            return engine.continue_chat(messages, **kwargs).content or ""
        progress_at.clear()
        started, said, first = time.perf_counter(), [], None
        for sentence in engine.stream_sentences(messages, **kwargs):
            if not said:
                first = time.perf_counter() - started
            said.append(sentence.strip())
        first_sentence.append(first)
        heard = [at - started for at in progress_at[:1]] + ([first] if first is not None else [])
        first_audible.append(min(heard) if heard else None)
        return " ".join(s for s in said if s)

    if stream and hasattr(engine, "add_step_listener"):

        def on_step(event: Any) -> None:
            if event.kind == "progress":
                progress_at.append(time.perf_counter())

        engine.add_step_listener(on_step)
    run.calls = record_calls(engine)  # type: ignore[attr-defined]
    run.first_sentence = first_sentence  # type: ignore[attr-defined]
    run.first_audible = first_audible  # type: ignore[attr-defined]
    run.rules = record_rules(engine)  # type: ignore[attr-defined]
    return run


def record_rules(engine) -> list[str] | None:
    """The names of the rules that corrected the model, from each turn's ``final`` event (this
    project's engines; None for an engine without step events or without the field)."""
    if not hasattr(engine, "add_step_listener"):
        return None
    fired: list[str] = []

    def on_step(event: Any) -> None:
        if event.kind == "final":
            fired.extend(getattr(event, "rules", None) or [])

    engine.add_step_listener(on_step)
    return fired


def streamer(engine):
    def stream(prompt: str):
        yield from engine.stream_sentences([AgentMessage(role=MessageRole.USER, content=prompt)])

    return stream


def tool_names(engine) -> list[str]:
    names: list[str] = []
    for tb in engine.toolboxes:
        names.extend(getattr(tb, "tools", {}) or {})
    return names


os.environ.setdefault("OVOS_CONFIG_BASE_FOLDER", "mycroft")
