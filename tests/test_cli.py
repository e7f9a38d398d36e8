"""The ovos-agentic-loop CLI: persona resolution, live steps, chat end to end, doctor, server status."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, answer
from installed_fakes import install_toolboxes

from ovos_agentic_loop import _doctor as doctor
from ovos_agentic_loop.cli import StepPrinter, main
from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.personas import find_persona, loop_plan

REPO = Path(__file__).resolve().parent.parent
SHIPPED = ["local-assistant", "ops-assistant", "researcher", "tool-test"]
NEEDS_CHAT_OPENAI = pytest.mark.needs_package("ovos_openai_plugin")  # the brain ovos-chat-openai-plugin


def shipped(name: str) -> Any:
    """A shipped persona as a test parameter; one whose brain is ovos-chat-openai-plugin needs the plugin."""
    persona = find_persona(name).data
    brain = persona[persona["handlers"][0]]["brain"]
    return pytest.param(name, marks=[NEEDS_CHAT_OPENAI] if brain == "ovos-chat-openai-plugin" else [])


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def write_persona(tmp_path: Path, persona: dict[str, Any]) -> Path:
    path = tmp_path / "persona.json"
    path.write_text(json.dumps(persona))
    return path


def loop_persona(url: str, handler: str = "ovos-react-loop", **extra: Any) -> dict[str, Any]:
    return {
        "name": "Test",
        "handlers": [handler],
        handler: {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": url, "max_retries": 0},
            "toolboxes": ["ovos-math-tools"],
            **extra,
        },
    }


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


# -- personas ------------------------------------------------------------------------
def test_a_missing_persona_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", str(tmp_path / "nope"), "hi"]) == 2
    err = capsys.readouterr().err
    assert "error: persona" in err and "not found" in err and "local-assistant" in err


@pytest.mark.parametrize("name", [shipped(name) for name in SHIPPED])
def test_shipped_personas_are_wired_to_installed_plugins(name: str) -> None:
    persona = find_persona(name).data
    handler = persona["handlers"][0]
    section = persona[handler]
    plan = loop_plan(handler, section)
    assert plan is not None
    checks = doctor._toolbox_checks(plan)
    installed = doctor._chat_plugins()
    assert handler in installed and section["brain"] in installed
    assert [c for c in checks if c.level != "ok"] == []
    brain_section = section[section["brain"]]
    assert brain_section["api_url"] == "http://127.0.0.1:8091/v1"
    if section["brain"] == "ovos-chat-openai-plugin":
        assert brain_section["allow_system_prompts"] is True


# -- live steps ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "data", "expected"),
    [
        ("tool_call", {"name": "add", "arguments": {"a": 1}}, '→ add({"a": 1})'),
        (
            "tool_result",
            {"name": "add", "ok": True, "duration_s": 0.01, "result": '{"r": 2}'},
            '← add (0.01 s): {"r": 2}',
        ),
        (
            "tool_result",
            {"name": "add", "ok": False, "duration_s": 0.5, "error": "bad a"},
            "✗ add (0.50 s): bad a",
        ),
        ("notice", {"message": "repeated call"}, "! repeated call"),
        (
            "final",
            {"iterations": 2, "duration_s": 1.25, "reason": "answer"},
            "✓ 2 model calls, 1.2 s (answer)",
        ),
    ],
)
def test_step_lines(kind: Any, data: dict[str, Any], expected: str) -> None:
    line = StepPrinter.format(StepEvent(kind=kind, session_id="s", data=data))
    assert line is not None and line.strip() == expected


# -- chat ------------------------------------------------------------------------------
def test_chat_prints_steps_then_streams_the_answer(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.replies += [
        answer(tool_calls=[call("evaluate_expression", {"expression": "2+3"})]),
        answer("The answer is 5. Anything else?"),
    ]
    path = write_persona(tmp_path, loop_persona(server.url))
    assert main(["chat", str(path), "What is 2+3?"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["The answer is 5.", "Anything else?"]
    assert '→ evaluate_expression({"expression": "2+3"})' in err
    assert "← evaluate_expression" in err and '"result": "5"' in err
    # The tool result went back to the model as a TOOL message.
    assert server.requests[1]["messages"][-1]["role"] == "tool"


def test_interactive_chat_keeps_history(
    server: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.replies += [answer("Hello Ana."), answer("Your name is Ana.")]
    lines = iter(["I am Ana", "What is my name?", "exit"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(lines))
    assert main(["chat", str(write_persona(tmp_path, loop_persona(server.url)))]) == 0
    second = [m["content"] for m in server.requests[1]["messages"] if m["role"] in ("user", "assistant")]
    assert second[-3:] == ["I am Ana", "Hello Ana.", "What is my name?"]
    assert "Your name is Ana." in capsys.readouterr().out


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_missing_handler_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_persona(tmp_path, {"handlers": ["no-such-engine"]})
    assert main(["chat", str(path), "hi"]) == 2
    assert "'no-such-engine' is not installed" in capsys.readouterr().err


def test_stdout_carries_only_the_answer(server: FakeOpenAIServer, tmp_path: Path) -> None:
    """`chat ... > answer.txt`: steps go to stderr; OVOS log lines (its handler writes to stdout) go
    to the log file, or to stderr with --verbose: none reach stdout."""
    # An unknown key makes the engine log a WARNING through OVOS's LOG while the answer is produced.
    path = write_persona(tmp_path, loop_persona(server.url, surprise_key=1))
    env = {**os.environ, "OVOS_AGENTIC_LOOP_CACHE": str(tmp_path / "cache")}
    for verbose in ([], ["--verbose"]):
        server.replies += [
            answer(tool_calls=[call("evaluate_expression", {"expression": "2+3"})]),
            answer("The answer is 5."),
        ]
        done = subprocess.run(
            [sys.executable, "-m", "ovos_agentic_loop.cli", *verbose, "chat", str(path), "What is 2+3?"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == "The answer is 5.\n"
        assert ("unknown config key 'surprise_key'" in done.stderr) == bool(verbose)
        assert "→ evaluate_expression" in done.stderr
    assert "unknown config key 'surprise_key'" in (tmp_path / "cache" / "logs" / "cli.log").read_text()


def test_model_url_points_the_personas_brain_at_another_server(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`PORT=8097 scripts/demo` started the server on 8097 and the shipped persona asked 8091."""
    server.replies.append(answer("Hello from the other port."))
    path = write_persona(tmp_path, loop_persona("http://127.0.0.1:9/v1"))  # nothing listens on 9
    assert main(["chat", str(path), "hi", "--model-url", server.url]) == 0
    assert capsys.readouterr().out.strip().endswith("Hello from the other port.")
    assert json.loads(path.read_text())["ovos-react-loop"]["ovos-openai-brain"]["api_url"].endswith(":9/v1")


def test_model_url_without_a_brain_to_point_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    persona = {"name": "T", "handlers": ["ovos-react-loop"], "ovos-react-loop": {"toolboxes": []}}
    path = write_persona(tmp_path, persona)
    assert main(["chat", str(path), "hi", "--model-url", "http://127.0.0.1:8097/v1"]) == 2
    assert "--model-url needs a brain to point at it" in capsys.readouterr().err


# -- doctor ----------------------------------------------------------------------------
def test_doctor_says_when_the_server_takes_no_json_schema(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.replies.append(answer(tool_calls=[call("add", {"a": 2, "b": 3})]))
    server.replies.append((400, {"error": {"message": "response_format is not supported"}}))
    assert main(["doctor", str(write_persona(tmp_path, loop_persona(server.url)))]) == 0
    out = capsys.readouterr().out
    assert "[warn] decision grammar: the server refused a JSON-schema reply" in out
    assert "a reply that describes a call gets a corrective message instead" in out


def test_doctor_all_good(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.replies.append(answer(tool_calls=[call("add", {"a": 2, "b": 3})]))
    server.replies.append(answer('{"name": "add", "arguments": {"a": 2, "b": 3}}'))
    assert main(["doctor", str(write_persona(tmp_path, loop_persona(server.url)))]) == 0
    out = capsys.readouterr().out
    assert "[ok  ] tool-call probe: native tool call add" in out
    assert "[ok  ] decision grammar: the server constrains replies to a JSON schema" in out
    schema = server.requests[1]["response_format"]["json_schema"]["schema"]
    assert [c["properties"]["name"]["const"] for c in schema["anyOf"]] == ["add", "final_answer"]
    assert "[ok  ] toolbox ovos-math-tools: 4 tools" in out
    assert server.requests[0]["max_tokens"] == 64


def test_doctor_flags_text_tool_calls_for_the_native_loop(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.replies.append(answer('```json\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n```'))
    persona = loop_persona(server.url, handler="ovos-native-toolcall-loop")
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    assert "--template tools" in capsys.readouterr().out


@NEEDS_CHAT_OPENAI  # its hint names the plugin's entry point
def test_doctor_names_package_names_and_missing_toolboxes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    persona = {
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "brain": "ovos-openai-plugin",  # the package, not its entry point
            "ovos-openai-plugin": {"api_url": f"http://127.0.0.1:{_closed_port()}/v1"},
            "toolboxes": ["ovos-math-tools", "my-ops-tools"],
        },
    }
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    out = capsys.readouterr().out
    assert "is a package name; use its entry-point name: ovos-chat-openai-plugin" in out
    assert "[FAIL] toolbox plugin my-ops-tools: not installed" in out
    assert "[FAIL] server: nothing answers" in out and "ovos-agentic-loop server start --port" in out


def test_doctor_port_taken_by_another_service(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from threading import Thread

    class NotOpenAI(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    other = HTTPServer(("127.0.0.1", 0), NotOpenAI)
    Thread(target=other.serve_forever, daemon=True).start()
    try:
        persona = loop_persona(f"http://127.0.0.1:{other.server_address[1]}/v1")
        assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    finally:
        other.shutdown()
        other.server_close()
    assert "taken by another program" in capsys.readouterr().out


# -- server ----------------------------------------------------------------------------
def test_server_status_of_an_idle_port(capsys: pytest.CaptureFixture[str]) -> None:
    port = _closed_port()
    assert main(["server", "status", "--port", str(port)]) == 1
    state = json.loads(capsys.readouterr().out)
    assert state == {**state, "port": port, "ours": False, "listening": False, "healthy": False}


def test_unreachable_server_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    assert main(["chat", str(write_persona(tmp_path, loop_persona(url))), "hi"]) == 2
    err = capsys.readouterr().err
    assert f"error: Cannot reach the model server at {url}" in err
    assert "ovos-agentic-loop server start" in err


# -- doctor tells the truth about the seed personas and the ecosystem's brains ------------
def seed_persona(tmp_path: Path, name: str, url: str) -> Path:
    """A shipped persona with its brain pointed at ``url`` (tests never touch the real port 8091)."""
    persona = find_persona(name).data
    section = persona[persona["handlers"][0]]
    section[section["brain"]]["api_url"] = url
    return write_persona(tmp_path, persona)


@pytest.mark.parametrize("name", ["ops-assistant", "researcher"])
def test_doctor_fails_a_seed_persona_whose_server_is_down(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    assert main(["doctor", str(seed_persona(tmp_path, name, url))]) == 1
    out = capsys.readouterr().out
    assert f"[FAIL] server: nothing answers at {url} (from the persona's section)" in out
    assert "all checks passed" not in out


@NEEDS_CHAT_OPENAI
@pytest.mark.parametrize("name", ["ops-assistant", "researcher"])
def test_doctor_passes_a_seed_persona_whose_server_answers(
    name: str, server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.replies.append(answer(tool_calls=[call("add", {"a": 2, "b": 3})]))
    assert main(["doctor", str(seed_persona(tmp_path, name, server.url))]) == 0
    out = capsys.readouterr().out
    assert f"[ok  ] server: {server.url} (from the persona's section) answers" in out
    assert "[ok  ] tool-call probe: native tool call add" in out
    assert out.rstrip().endswith("all checks passed")


def test_doctor_reports_the_default_url_of_ovos_chat_openai_plugin_and_the_missing_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The researcher as upstream's README writes it: a brain with no section talks to OpenAI."""
    persona = {
        "name": "researcher",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {"brain": "ovos-chat-openai-plugin", "toolboxes": ["ovos-math-tools"]},
    }
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    out = capsys.readouterr().out
    assert (
        "[FAIL] server: https://api.openai.com/v1 (from ovos-chat-openai-plugin's default) "
        "needs an API key and the persona gives none" in out
    )
    assert 'set "key" in the persona\'s "ovos-chat-openai-plugin" section' in out


def test_doctor_reports_the_default_url_of_ovos_openai_brain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ovos_agentic_loop.brain import BrainConfig

    default = BrainConfig.parse({}).api_url
    # Whatever runs on the real port 8091 must not decide this test.
    monkeypatch.setattr(doctor, "_get", lambda url, key="": (0, None, "refused"))
    monkeypatch.setattr("ovos_agentic_loop.local.server.port_in_use", lambda port, host="": False)
    persona = {"handlers": ["ovos-react-loop"], "ovos-react-loop": {"toolboxes": ["ovos-math-tools"]}}
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    assert f"nothing answers at {default} (from ovos-openai-brain's default)" in capsys.readouterr().out


def test_doctor_refuses_a_bad_section_as_the_engine_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    persona = loop_persona("http://127.0.0.1:1/v1", warm_up="false")
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    assert "[FAIL] config: ovos-react-loop: invalid configuration: key 'warm_up'" in capsys.readouterr().out


def test_doctor_prints_a_toolboxs_diagnostics(
    server: FakeOpenAIServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput

    class Diagnosed(ToolBox):
        def __init__(self, config: dict | None = None, bus: object = None) -> None:
            super().__init__("demo-tools", config, bus)

        def discover_tools(self) -> list[AgentTool]:
            return [AgentTool("noop", "Does nothing.", ToolArguments, ToolOutput, lambda _args: ToolOutput())]

        def diagnostics(self) -> list[str]:
            return ["sandbox: on (Landlock)", "backend: none"]

    install_toolboxes(monkeypatch, {"demo-tools": Diagnosed})
    server.replies.append(answer(tool_calls=[call("add", {"a": 2, "b": 3})]))
    persona = loop_persona(server.url)
    persona["ovos-react-loop"]["toolboxes"] = ["demo-tools"]
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 0
    out = capsys.readouterr().out
    assert "[ok  ] toolbox demo-tools: 1 tools: noop" in out
    assert "· sandbox: on (Landlock)\n       · backend: none" in out


def test_doctor_reports_a_handler_that_cannot_be_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ovos_plugin_manager import agents

    def broken(name: str) -> Any:
        raise ImportError("No module named 'half_installed'")

    monkeypatch.setattr(agents, "load_chat_plugin", broken)
    persona = loop_persona("http://127.0.0.1:1/v1")
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] handler plugin ovos-react-loop: installed but cannot be imported: ImportError" in out
