"""``ovos-agentic-loop doctor``: the checks for what otherwise fails silently.

Each check prints one line (ok / warn / FAIL) and, when not ok, how to fix it.
A wrong entry-point name, a server that is not running, a port held by another
program, a template that makes the model write calls as text, a toolbox that
discovered no tools: each of these otherwise shows up only as a poor answer.

doctor reads the persona through :mod:`ovos_agentic_loop.personas` (the same parsing,
defaults and toolbox loader as the engine), checks the server the brain will really use
(its own default URL when the section has none) and fails when that server does not answer.
"""

from __future__ import annotations

import difflib
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Literal, TextIO
from urllib.parse import urlparse

from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop._runtime.lifecycle import BuiltToolbox
from ovos_agentic_loop._runtime.loop_names import LOOP_NAMES, LOOPS, loop_name
from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop.personas import LoopPlan, Persona, loop_plan

__all__ = ["Check", "Endpoint", "endpoint_of", "run_checks", "run_doctor"]

Level = Literal["ok", "warn", "fail"]
#: Seconds doctor waits for a server: a short wait tells a dead server from a slow one well enough.
PROBE_TIMEOUT = 3.0
_PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers and return the sum",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
}


@dataclass
class Check:
    name: str
    level: Level
    detail: str
    fix: str = ""
    notes: list[str] = field(default_factory=list)  # e.g. a toolbox's diagnostics() lines

    def render(self) -> str:
        mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[self.level]
        text = f"[{mark}] {self.name}: {self.detail}"
        text += "".join(f"\n       · {note}" for note in self.notes)
        return text + (f"\n       fix: {self.fix}" if self.fix and self.level != "ok" else "")


def _plugin_hint(name: str, group: str, installed: set[str]) -> str:
    """Why ``name`` is not an installed entry point: a package name, or simply not installed."""
    listed = ", ".join(sorted(installed)) or "none"
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return f"no package provides it; installed {group} plugins: {listed}"
    registered = sorted(ep.name for ep in dist.entry_points if ep.group == group)
    if registered:
        return f"{name!r} is a package name; use its entry-point name: {', '.join(registered)}"
    return f"package {name!r} is installed but registers no {group} plugin; installed: {listed}"


def _plugin_check(kind: str, name: str, group: str, installed: set[str]) -> Check:
    if name in installed:
        return Check(f"{kind} plugin {name}", "ok", "installed")
    return Check(f"{kind} plugin {name}", "fail", "not installed", _plugin_hint(name, group, installed))


def _handler_check(name: str, installed: set[str]) -> Check:
    """The handler's plugin check; for one of this project's loops, what it does or why it is missing."""
    summary = {loop.name: loop.summary for loop in LOOPS}.get(name)
    if name in installed:
        return Check(f"handler plugin {name}", "ok", f"installed ({summary})" if summary else "installed")
    if summary:
        fix = (
            f"{name!r} is one of ovos-agentic-loop's loops, but its entry points are not registered here: "
            "install the package (`pip install ovos-agentic-loop`; `pip install -e .` in a checkout)"
        )
        return Check(f"handler plugin {name}", "fail", "not installed", fix)
    check = _plugin_check("handler", name, "opm.agents.chat", installed)
    near = difflib.get_close_matches(name, sorted(LOOP_NAMES), n=1, cutoff=0.75)
    if near:
        check.fix = f"did you mean {near[0]!r}? {check.fix}"
    return check


def _chat_plugins() -> set[str]:
    return {ep.name for ep in metadata.entry_points(group="opm.agents.chat")}


@dataclass(frozen=True)
class Endpoint:
    """The server a brain will really talk to, with the key it will send."""

    url: str
    key: str
    model: str
    origin: str  # where the URL comes from: the persona's section, or the brain's own default


#: The defaults of the ecosystem's OpenAI-compatible brains when their section has no ``api_url``.
#: ovos-chat-openai-plugin 2.0.14a1: ``OpenAIChatCompletionsAPI(api_url=config.get("api_url",
#: "https://api.openai.com/v1"), api_key=config.get("key"))``.
CHAT_OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
CHAT_OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
_NEEDS_KEY_HOSTS = frozenset({"api.openai.com"})


def endpoint_of(brain: str, section: dict[str, Any]) -> Endpoint | None:
    """The URL and key ``brain`` will use with ``section``; ``None`` for an unknown brain without ``api_url``.

    Raises ``BrainConfigError`` for a section ``ovos-openai-brain`` would refuse.
    """
    if brain == "ovos-openai-brain":
        from ovos_agentic_loop.brain import BrainConfig

        settings = BrainConfig.parse(section)
        origin = "the persona's section" if section.get("api_url") else "ovos-openai-brain's default"
        return Endpoint(settings.api_url, settings.key, settings.model, origin)
    if brain == "ovos-chat-openai-plugin":
        url = section.get("api_url")
        origin = "the persona's section" if url else "ovos-chat-openai-plugin's default"
        return Endpoint(
            url=str(url or CHAT_OPENAI_DEFAULT_URL).rstrip("/"),
            key=str(section.get("key") or ""),
            model=str(section.get("model") or CHAT_OPENAI_DEFAULT_MODEL),
            origin=origin,
        )
    if section.get("api_url"):  # another brain: its section names a server, so that one is checked
        key = str(section.get("key") or "")
        return Endpoint(
            str(section["api_url"]).rstrip("/"), key, str(section.get("model") or ""), "the persona's section"
        )
    return None


def _get(url: str, key: str = "") -> tuple[int, Any, str]:
    """``(status, JSON body, why not)``: status 0 when nothing answered, with the reason."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        request = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT) as response:
            return response.status, json.loads(response.read() or b"null"), ""
    except urllib.error.HTTPError as exc:
        return exc.code, None, f"HTTP {exc.code} for GET /models"
    except urllib.error.URLError as exc:
        return 0, None, str(exc.reason)
    except TimeoutError:
        return 0, None, f"no answer within {PROBE_TIMEOUT:g} s"
    except (OSError, ValueError) as exc:
        return 0, None, f"{type(exc).__name__}: {exc}"


def _server_checks(endpoint: Endpoint, brain: str) -> list[Check]:
    from ovos_agentic_loop.local.server import port_in_use, read_info

    api_url = endpoint.url
    parsed = urlparse(api_url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or (443 if parsed.scheme == "https" else 80)
    local = host in {"127.0.0.1", "localhost", "::1"}
    where = f"{api_url} (from {endpoint.origin})"
    if host in _NEEDS_KEY_HOSTS and endpoint.key in ("", "sk-no-key"):
        return [
            Check(
                "server",
                "fail",
                f"{where} needs an API key and the persona gives none",
                f'set "key" in the persona\'s "{brain}" section, or set "api_url" to a server of your own '
                "(e.g. http://127.0.0.1:8091/v1 after `ovos-agentic-loop server start`)",
            )
        ]
    code, body, why = _get(f"{api_url}/models", endpoint.key)
    serves = code == 200 and isinstance(body, dict) and "data" in body
    if serves:
        models = ", ".join(str(m.get("id")) for m in body["data"] if isinstance(m, dict))
        found = [Check("server", "ok", f"{where} answers (models: {models or '?'})")]
        owner = read_info(port) if local else None
        if owner is not None:
            found.append(_build_check(owner.build, owner.binary))
        return found
    if code in (401, 403):
        refused = f"{where} refused the key (HTTP {code})"
        return [Check("server", "fail", refused, f'check "key" in the persona\'s "{brain}" section')]
    if local and port_in_use(port, host):
        owner = read_info(port)
        if owner is None:
            return [
                Check(
                    f"port {port}",
                    "fail",
                    f"taken by another program that is not an OpenAI-compatible server (GET /models: {code})",
                    "free the port, or start ours elsewhere (`ovos-agentic-loop server start --port N`) "
                    "and set api_url to http://127.0.0.1:N/v1",
                )
            ]
        return [Check("server", "fail", f"llama-server pid {owner.pid} on {port} is not ready (HTTP {code})")]
    fix = (
        f"ovos-agentic-loop server start --port {port}"
        if local
        else "start that server, or point api_url at a running one"
    )
    return [Check("server", "fail", f"nothing answers at {where}: {why or 'no model list'}", fix)]


def _build_check(build: str, what: str) -> Check:
    """Which llama.cpp server build our local server runs, and what the other one would give."""
    from ovos_agentic_loop.local.server import ServerKind, ServerProgram, describe_choice

    kind: ServerKind = "prebuilt" if build == "prebuilt" else "native"
    return Check("server build", "ok", describe_choice(ServerProgram(kind, (), what)))


def _probe_check(endpoint: Endpoint, native_required: bool) -> Check:
    from ovos_agentic_loop.brain import BrainError, OpenAIBrain
    from ovos_agentic_loop.messages import AgentMessage, MessageRole

    brain = OpenAIBrain(
        {
            "api_url": endpoint.url,
            "key": endpoint.key or "sk-no-key",
            "model": endpoint.model or "local",
            "max_tokens": 64,
            "temperature": 0,
            "timeout": 120,
            "max_retries": 0,
        }
    )
    question = AgentMessage(role=MessageRole.USER, content="What is 2 plus 3? Use the add tool.")
    try:
        reply = brain.continue_chat([question], tools=[_PROBE_TOOL])
    except BrainError as exc:
        return Check("tool-call probe", "fail", str(exc))
    if reply.tool_calls:
        call = reply.tool_calls[0]
        return Check("tool-call probe", "ok", f"native tool call {call.name}({json.dumps(call.arguments)})")
    level: Level = "fail" if native_required else "warn"
    return Check(
        "tool-call probe",
        level,
        f"no native tool_calls; the model wrote: {reply.content[:120]!r}",
        "start the local server with the tool-call template "
        "(`ovos-agentic-loop server start --template tools`); "
        f"{loop_name('ReActLoopEngine')} in mode auto/text also runs calls written in the text",
    )


def _grammar_check(endpoint: Endpoint) -> Check:
    """Whether the server constrains a reply to a JSON schema (``response_format``): the loop's
    decision step, for a reply that described a call instead of making one, needs it."""
    from ovos_agentic_loop._turn.deciding import decision_schema
    from ovos_agentic_loop.brain import BrainError, OpenAIBrain
    from ovos_agentic_loop.messages import AgentMessage, MessageRole

    brain = OpenAIBrain(
        {
            "api_url": endpoint.url,
            "key": endpoint.key or "sk-no-key",
            "model": endpoint.model or "local",
            "max_tokens": 64,
            "temperature": 0,
            "timeout": 120,
            "max_retries": 0,
        }
    )
    question = AgentMessage(role=MessageRole.USER, content="What is 2 plus 3?")
    fallback = "without it, a reply that describes a call gets a corrective message instead"
    try:
        reply = brain.continue_chat(
            [question], tools=[_PROBE_TOOL], response_format=decision_schema([_PROBE_TOOL])
        )
    except BrainError as exc:
        return Check("decision grammar", "warn", f"the server refused a JSON-schema reply: {exc}", fallback)
    try:
        decided = reply.tool_calls or isinstance(json.loads(reply.content or "").get("name"), str)
    except (ValueError, AttributeError):
        decided = False
    if decided:
        return Check(
            "decision grammar", "ok", "the server constrains replies to a JSON schema (response_format)"
        )
    return Check(
        "decision grammar",
        "warn",
        f"the server ignored the JSON schema; the model wrote {reply.content[:80]!r}",
        fallback,
    )


def _toolbox_checks(
    plan: LoopPlan, then: Callable[[list[ToolBox]], list[Check]] | None = None
) -> list[Check]:
    """Each toolbox built exactly as the engine builds it (same loader, same section), and its diagnostics.

    Every check says which section the toolbox gets and where it came from; a section found only at
    the persona's top level is a warning, since ovos-persona hands the loop nothing but its own section.
    ``then`` gets every toolbox that was built, for checks of them all (the tool list's size). What
    doctor built it closes again (an MCP toolbox runs a server process).
    """
    from ovos_agentic_loop._runtime import loading as _loading
    from ovos_agentic_loop._runtime.lifecycle import close_toolboxes

    if not plan.toolbox_sources:
        return [
            Check("toolboxes", "warn", "none configured: the loop can only chat", "add 'toolboxes' names")
        ]
    available = _loading.installed_toolboxes()
    checks: list[Check] = []
    opened: list[BuiltToolbox] = []
    try:
        for name, source in plan.toolbox_sources.items():
            checks += _one_toolbox_check(plan, name, source, available, opened)
        if then is not None:
            checks += then([built.toolbox for built in opened])
    finally:
        close_toolboxes(opened, engine_name="doctor")
    return checks


def _one_toolbox_check(
    plan: LoopPlan, name: str, source: Any, available: Mapping[str, Any], opened: list[BuiltToolbox]
) -> list[Check]:
    """The checks of the toolbox ``name``; what was built is added to ``opened`` (the caller closes it)."""
    from ovos_agentic_loop._runtime.loading import ToolboxNotLoaded, load_toolbox
    from ovos_agentic_loop.errors import ConfigError

    if name not in available:
        return [_plugin_check("toolbox", name, "opm.agents.toolbox", set(available))]
    section_note = f"section {_masked(source.section)} {source.where()}"
    try:
        built = load_toolbox(
            name, source.section, available=available, where=source.where(), engine_name="doctor"
        )
    except (ToolboxNotLoaded, ConfigError) as exc:
        fix = f"check the persona's {name!r} section"
        return [Check(f"toolbox {name}", "fail", str(exc), fix, notes=[section_note])]
    opened.append(built)
    tools = ", ".join(sorted(built.toolbox.tools))
    check = Check(f"toolbox {name}", "ok", f"{len(built.toolbox.tools)} tools: {tools}")
    check.notes.append(section_note)
    if source.origin == "persona":
        check.level = "warn"
        check.fix = (
            "this works with `ovos-agentic-loop chat` and with code that passes the persona, but "
            "ovos-persona (and ovos-persona-server's chat) hands the loop only its own section, so "
            f"there this toolbox gets {{}}: move the section inside the {plan.handler!r} section "
            "to have it everywhere"
        )
    return [check, *_diagnostics(name, built.toolbox, check)]


_SECRET_WORDS = ("key", "token", "secret", "password", "auth")


def _masked(value: Any) -> Any:
    """``value`` with the values of secret-looking keys (``api_key``, ``token``, ...) replaced by ``***``."""
    if isinstance(value, dict):
        return {
            k: "***" if any(w in str(k).lower() for w in _SECRET_WORDS) and v else _masked(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _diagnostics(name: str, toolbox: Any, check: Check) -> list[Check]:
    """The toolbox's own status lines (``diagnostics() -> list[str]``), when it offers them."""
    method = getattr(toolbox, "diagnostics", None)
    if not callable(method):
        return []
    try:
        lines = method()
    except Exception as exc:  # noqa: BLE001 - a third-party toolbox may raise anything; reported
        return [Check(f"toolbox {name}", "warn", f"diagnostics() raised {type(exc).__name__}: {exc}")]
    check.notes.extend(str(line) for line in (lines or []))
    return []


def run_checks(persona: Persona) -> list[Check]:
    from ovos_agentic_loop.errors import BrainConfigError, ConfigError

    handler = persona.handler
    section = persona.handler_section
    installed = _chat_plugins()
    checks = [_handler_check(handler, installed)]
    try:
        plan = loop_plan(handler, section, persona=persona.data)
    except ConfigError as exc:
        return [*checks, Check("config", "fail", str(exc), f"fix the persona's {handler!r} section")]
    except Exception as exc:  # noqa: BLE001 - importing a third-party plugin may raise anything; reported
        broken = f"installed but cannot be imported: {type(exc).__name__}: {exc}"
        return [*checks, Check(f"handler plugin {handler}", "fail", broken, "reinstall the package")]
    brain, brain_section = (plan.brain, plan.brain_section) if plan else (handler, section)
    if plan is not None:
        checks.append(_plugin_check("brain", brain, "opm.agents.chat", installed))
    if brain == "ovos-chat-openai-plugin" and not brain_section.get("allow_system_prompts"):
        checks.append(
            Check(
                "system prompts",
                "warn",
                "ovos-chat-openai-plugin drops system messages unless allow_system_prompts is true; "
                "the loop moves its instructions into the first user message instead",
                f'set "allow_system_prompts": true in the persona\'s "{brain}" section',
            )
        )
    try:
        endpoint = endpoint_of(brain, brain_section)
    except BrainConfigError as exc:
        checks.append(Check("brain config", "fail", str(exc), f"fix the persona's {brain!r} section"))
        endpoint = None
    else:
        if endpoint is None:
            checks.append(Check("server", "warn", f"cannot tell which server {brain!r} uses; not checked"))
    if endpoint is not None:
        server = _server_checks(endpoint, brain)
        checks += server
        if all(c.level == "ok" for c in server):
            native = plan is not None and plan.settings.mode == "native"
            checks.append(_probe_check(endpoint, native_required=native))
            checks.append(_grammar_check(endpoint))
    if plan is not None:
        settings = plan.settings
        checks += _toolbox_checks(plan, then=lambda boxes: [tool_list_check(settings, boxes)])
    return checks


def run_doctor(persona: Persona, out: TextIO | None = None) -> int:
    """Print every check and a verdict; 0 when nothing failed, 1 otherwise."""
    stream = out or sys.stdout
    print(f"persona {persona.name} ({persona.source})", file=stream)
    checks = run_checks(persona)
    for check in checks:
        print(check.render(), file=stream, flush=True)
    failed = sum(c.level == "fail" for c in checks)
    print(f"{failed} problem(s)" if failed else "all checks passed", file=stream)
    return 1 if failed else 0


def tool_list_check(settings: LoopConfig, toolboxes: list[ToolBox]) -> Check:
    """How many tools a request offers and how long the bundled model's CPU reads them; a warning
    when the first read (no prompt cache yet) takes longer than ``SLOW_READ_S``."""
    from ovos_agentic_loop._tools.budget import SLOW_READ_S, tool_budget
    from ovos_agentic_loop._tools.toolset import PersonaTools

    budget = tool_budget(settings, PersonaTools(toolboxes, engine_name="doctor").current())
    how = (
        f"a shortlist per question, at most {budget.offered} of {budget.tools} tools"
        if budget.selects
        else f"all {budget.tools} tools on every request"
    )
    detail = (
        f"{how}; about {budget.tokens} tokens, read in ~{budget.read_s:.0f} s the first time on 2 CPU cores"
    )
    if not budget.slow:
        return Check("tool list", "ok", detail)
    fixes = [] if settings.warm_up else ['"warm_up": true reads it before the first question']
    if budget.selects:
        fixes.append('a smaller "max_offered_tools" or fewer "always_offered_tools"')
    else:
        fixes.append(
            f'"tool_selection": "always" (or a "select_above" under {budget.tools}) offers a shortlist'
        )
    return Check("tool list", "warn", f"{detail}, over {SLOW_READ_S:.0f} s", "; or ".join(fixes))
