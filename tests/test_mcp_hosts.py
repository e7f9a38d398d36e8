"""A real MCP server (the ``mcp`` SDK, over stdio) through ovos-tool-adapters' ``ovos-mcp-toolbox``,
in the persona shape its README and ovos-persona-server use: the toolbox's section at the persona's
top level. Skipped when either package is missing."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, answer

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install mcp)")
pytest.importorskip("ovos_tool_adapters.mcp", reason="ovos-tool-adapters is not installed")

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._runtime.lifecycle import child_pids
from ovos_agentic_loop.cli import main
from ovos_agentic_loop.personas import Persona, build_engine
from ovos_agentic_loop.testing import ScriptedBrain, tool_call

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "stdio_server.py"
NEVER_SPEAKS_MCP = ["-c", "import time; time.sleep(600)"]

pytestmark = pytest.mark.timeout(60)


def mcp_persona(args: list[str], url: str = "http://127.0.0.1:9/v1", timeout: int = 10) -> dict[str, Any]:
    """The brief's shape: the loop names the toolbox, its section is at the persona's top level."""
    return {
        "name": "mcp-researcher",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": url, "max_retries": 0},
            "toolboxes": ["ovos-mcp-toolbox"],
        },
        "ovos-mcp-toolbox": {
            "transport": "stdio",
            "command": sys.executable,
            "args": args,
            "timeout": timeout,
        },
    }


def user(text: str) -> list[AgentMessage]:
    return [AgentMessage(role=MessageRole.USER, content=text)]


def test_the_top_level_shape_runs_as_written_and_shutdown_stops_the_server() -> None:
    before = child_pids()
    engine = build_engine(Persona("p.json", mcp_persona([str(SERVER)])))
    (toolbox,) = engine.toolboxes
    assert sorted(toolbox.tools) == ["add", "explode"]
    server_pids = child_pids() - before
    assert server_pids  # the MCP server runs as our child
    brain = ScriptedBrain([tool_call("add", a=2, b=3), "It is 5."])
    engine.set_brain(brain)
    assert engine.continue_chat(user("2+3?")).content == "It is 5."
    assert '"content": "5"' in brain.calls[1].messages[-1].content
    engine.shutdown()
    assert not (child_pids() & server_pids)


def test_a_command_that_never_speaks_mcp_leaves_no_process_behind(ovos_log) -> None:
    before = child_pids()
    started = time.monotonic()
    engine = build_engine(Persona("p.json", mcp_persona(NEVER_SPEAKS_MCP, timeout=2)))
    assert engine.toolboxes == []
    assert time.monotonic() - started < 15  # the adapter's own timeout (2 s) plus a bounded close
    assert child_pids() - before == set()
    assert "toolbox 'ovos-mcp-toolbox' loaded ZERO tools" in "\n".join(ovos_log.at("warning"))


def test_the_cli_exits_with_no_mcp_server_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = child_pids()
    with FakeOpenAIServer() as server:
        server.replies.append(answer(tool_calls=[_call("add", {"a": 20, "b": 22})]))
        server.replies.append(answer("It is 42."))
        path = tmp_path / "persona.json"
        path.write_text(json.dumps(mcp_persona([str(SERVER)], url=server.url)))
        assert main(["chat", str(path), "what is 20 + 22?"]) == 0
    assert "It is 42." in capsys.readouterr().out
    assert child_pids() - before == set()


def test_doctor_shows_the_top_level_section_of_a_real_mcp_toolbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = child_pids()
    path = tmp_path / "persona.json"
    path.write_text(json.dumps(mcp_persona([str(SERVER)])))
    main(["doctor", str(path)])  # the brain's server is down: that check fails, the toolbox one is read
    out = capsys.readouterr().out
    assert "[warn] toolbox ovos-mcp-toolbox: 2 tools: add, explode" in out
    assert "from the persona's top level" in out
    assert child_pids() - before == set()  # what doctor built it closed


def test_an_mcp_tool_error_reaches_the_model_as_one_short_error_line() -> None:
    engine = build_engine(Persona("p.json", mcp_persona([str(SERVER)])))
    try:
        brain = ScriptedBrain([tool_call("explode", reason="x"), "It failed."])
        engine.set_brain(brain)
        engine.continue_chat(user("explode"))
        observation = brain.calls[1].messages[-1].content
        assert observation.startswith("Error") and "raw" not in observation and "\n" not in observation
    finally:
        engine.shutdown()


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
