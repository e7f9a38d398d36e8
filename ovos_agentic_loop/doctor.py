"""``ovos-agentic-loop doctor``: the checks for what otherwise fails silently.

Each check prints one line (ok / warn / FAIL) and, when not ok, how to fix it.
A wrong entry-point name, a server that is not running, a port held by another
program, a template that makes the model write calls as text, a toolbox that
discovered no tools: each of these otherwise shows up only as a poor answer.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

__all__ = ["Check", "run_doctor"]

Level = Literal["ok", "warn", "fail"]
LOOP_ENGINES = {"ovos-react-loop", "ovos-native-toolcall-loop"}
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

    def render(self) -> str:
        mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[self.level]
        text = f"[{mark}] {self.name}: {self.detail}"
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


def _chat_plugins() -> set[str]:
    return {ep.name for ep in metadata.entry_points(group="opm.agents.chat")}


def brain_of(handler: str, section: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The brain's entry-point name and config section for a persona handler."""
    if handler in LOOP_ENGINES or "brain" in section:
        from ovos_agentic_loop.config import DEFAULT_BRAIN

        brain = section.get("brain") or DEFAULT_BRAIN
        return brain, dict(section.get(brain) or {})
    return handler, section


def _api_url(brain: str, section: dict[str, Any]) -> str | None:
    if brain == "ovos-openai-brain":
        from ovos_agentic_loop.brain import BrainConfig

        return BrainConfig.parse(section).api_url
    url = section.get("api_url")
    return str(url).rstrip("/") if url else None


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except (OSError, ValueError):
        return 0, None


def _server_checks(api_url: str) -> list[Check]:
    from ovos_agentic_loop.local.server import port_in_use, read_info

    parsed = urlparse(api_url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or (443 if parsed.scheme == "https" else 80)
    local = host in {"127.0.0.1", "localhost", "::1"}
    code, body = _get(f"{api_url}/models")
    serves = code == 200 and isinstance(body, dict) and "data" in body
    if serves:
        models = ", ".join(str(m.get("id")) for m in body["data"] if isinstance(m, dict))
        return [Check("server", "ok", f"{api_url} answers (models: {models or '?'})")]
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
    return [Check("server", "fail", f"nothing answers at {api_url}", fix)]


def _probe_check(api_url: str, section: dict[str, Any], native_required: bool) -> Check:
    from ovos_agentic_loop.brain import BrainError, OpenAIBrain
    from ovos_agentic_loop.messages import AgentMessage, MessageRole

    brain = OpenAIBrain(
        {
            "api_url": api_url,
            "key": section.get("key", "sk-no-key"),
            "model": section.get("model", "local"),
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
        "ovos-react-loop in mode auto/text also runs calls written in the text",
    )


def _toolbox_checks(section: dict[str, Any]) -> list[Check]:
    from ovos_plugin_manager.persona import find_toolbox_plugins

    names = list(section.get("toolboxes") or [])
    if not names:
        return [
            Check("toolboxes", "warn", "none configured: the loop can only chat", "add 'toolboxes' names")
        ]
    available = find_toolbox_plugins()
    checks: list[Check] = []
    for name in names:
        if name not in available:
            checks.append(_plugin_check("toolbox", name, "opm.agents.toolbox", set(available)))
            continue
        try:
            toolbox = available[name](config=section.get(name) or {})
        except Exception as exc:  # noqa: BLE001 - a third-party constructor may raise anything; reported
            checks.append(
                Check(f"toolbox {name}", "fail", f"{type(exc).__name__}: {exc}", "check its section")
            )
            continue
        count = len(toolbox.tools)
        if count:
            checks.append(
                Check(f"toolbox {name}", "ok", f"{count} tools: {', '.join(sorted(toolbox.tools))}")
            )
        else:
            checks.append(
                Check(
                    f"toolbox {name}",
                    "fail",
                    "0 tools (OPM swallows errors raised while discovering tools)",
                    f"check the persona's {name!r} section; run with debug logs to see the discovery error",
                )
            )
    return checks


def run_checks(persona: dict[str, Any]) -> list[Check]:
    from ovos_agentic_loop.cli import persona_handler

    handler = persona_handler(persona)
    section = dict(persona.get(handler) or {})
    installed = _chat_plugins()
    checks = [_plugin_check("handler", handler, "opm.agents.chat", installed)]
    brain, brain_section = brain_of(handler, section)
    if brain != handler:
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
    api_url = _api_url(brain, brain_section)
    if api_url is None:
        checks.append(Check("server", "warn", f"cannot tell which server {brain!r} uses; not checked"))
    else:
        server = _server_checks(api_url)
        checks += server
        if all(c.level == "ok" for c in server):
            native = handler == "ovos-native-toolcall-loop" or section.get("mode") == "native"
            checks.append(_probe_check(api_url, brain_section, native_required=native))
    if handler in LOOP_ENGINES or "toolboxes" in section:
        checks += _toolbox_checks(section)
    return checks


def run_doctor(path: Path, persona: dict[str, Any]) -> int:
    print(f"persona {persona.get('name', '?')} ({path})")
    checks = run_checks(persona)
    for check in checks:
        print(check.render(), flush=True)
    failed = sum(c.level == "fail" for c in checks)
    print(f"{failed} problem(s)" if failed else "all checks passed")
    return 1 if failed else 0
