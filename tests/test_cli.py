"""The ovos-agentic-loop CLI: persona resolution, live steps, chat end to end, doctor, server status."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, answer

from ovos_agentic_loop import doctor
from ovos_agentic_loop.cli import StepPrinter, load_persona, main, resolve_persona
from ovos_agentic_loop.events import StepEvent

REPO = Path(__file__).resolve().parent.parent
SHIPPED = ["local-assistant", "ops-assistant", "researcher", "tool-test"]


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
def test_persona_by_path_by_name_and_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "personas").mkdir()
    (tmp_path / "personas" / "mine.json").write_text('{"handlers": ["x"]}')
    monkeypatch.chdir(tmp_path)
    assert resolve_persona("mine") == tmp_path / "personas" / "mine.json"
    assert resolve_persona(str(tmp_path / "personas" / "mine.json")).name == "mine.json"
    assert resolve_persona("tool-test") == REPO / "personas" / "tool-test.json"  # the package's parent
    with pytest.raises(SystemExit, match="not found"):
        resolve_persona("nope")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_personas_are_wired_to_installed_plugins(name: str) -> None:
    _, persona = load_persona(name)
    handler = persona["handlers"][0]
    section = persona[handler]
    checks = doctor._toolbox_checks(section)
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
    with pytest.raises(SystemExit, match=r"no-such-engine.*not installed"):
        main(["chat", str(path), "hi"])


# -- doctor ----------------------------------------------------------------------------
def test_doctor_all_good(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.replies.append(answer(tool_calls=[call("add", {"a": 2, "b": 3})]))
    assert main(["doctor", str(write_persona(tmp_path, loop_persona(server.url)))]) == 0
    out = capsys.readouterr().out
    assert "[ok  ] tool-call probe: native tool call add" in out
    assert "[ok  ] toolbox ovos-math-tools: 4 tools" in out
    assert server.requests[0]["max_tokens"] == 64


def test_doctor_flags_text_tool_calls_for_the_native_loop(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.replies.append(answer('```json\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n```'))
    persona = loop_persona(server.url, handler="ovos-native-toolcall-loop")
    assert main(["doctor", str(write_persona(tmp_path, persona))]) == 1
    assert "--template tools" in capsys.readouterr().out


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
