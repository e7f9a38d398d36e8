"""Our toolboxes built by the ecosystem's other hosts, with no config at all.

ovos-PHAL-plugin-tools builds every installed toolbox as ``cls(config=cfg.get(name, {}), bus=bus)``
in a service whose working folder is usually ``/``; ovos-persona-server's UTCP and MCP bridges call
``toolbox.call_tool`` and pass ``str(exc)`` on. These tests build the toolboxes exactly that way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ovos_bus_client.message import Message
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_utils.fakebus import FakeBus

from ovos_agentic_loop_toolboxes._core.errors import PathRefused

FILES = "ovos-filesystem-tools"
SHELL = "ovos-shell-tools"


@pytest.fixture
def service_in_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A host started the way a system service is: working folder ``/``, a home with a private file."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "private.txt").write_text("the user's own notes\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.chdir("/")
    yield home


def built_as_phal_does(name: str, bus: Any = None) -> ToolBox:
    toolbox: ToolBox = find_toolbox_plugins()[name](config={}, bus=bus)
    return toolbox


def refusal(toolbox: ToolBox, tool: str, **kwargs: Any) -> BaseException:
    with pytest.raises(Exception) as err:
        toolbox.call_tool(tool, kwargs)
    return err.value


@pytest.mark.skipif(not os.path.isfile("/etc/passwd"), reason="needs a system with /etc/passwd")
def test_with_no_config_in_a_service_folder_system_and_home_files_are_refused(service_in_root: Path) -> None:
    files = built_as_phal_does(FILES)
    home_file = str(service_in_root / "private.txt")
    for path in ("/etc/passwd", "../../etc/passwd", home_file, "~/private.txt"):
        error = refusal(files, "read_file", path=path)
        # The reason reaches the caller in the message itself (hosts pass str(exc) on).
        assert "outside the allowed folder" in str(error) or "starts with '~'" in str(error), (path, error)
        assert "root:" not in str(error)
    # Relative to the project's folder, not to '/': there is no such file there.
    assert "file 'etc/passwd' does not exist" in str(refusal(files, "read_file", path="etc/passwd"))
    listing = files.call_tool("list_directory", {"path": "."}).model_dump()
    assert listing["entries"] == []  # the project's own folder, not '/'


def test_the_default_folder_is_the_projects_own_made_on_first_use_and_said(
    service_in_root: Path, ovos_log: Any
) -> None:
    folder = service_in_root / ".local" / "share" / "ovos-agentic-loop" / "files"
    files = built_as_phal_does(FILES)
    assert not folder.exists()  # building the toolbox (every host builds every toolbox) makes nothing
    assert str(folder) in files.diagnostics()[0] and "root_path" in files.diagnostics()[0]
    first = next(m for m in ovos_log.records if FILES in m[1])
    assert first[0] == "info" and str(folder) in first[1]
    files.call_tool("list_directory", {"path": "."})
    assert folder.is_dir() and (folder.stat().st_mode & 0o777) == 0o700


def test_an_explicit_dot_is_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here.txt").write_text("chosen\n")
    monkeypatch.chdir(tmp_path)
    files = find_toolbox_plugins()[FILES](config={"root_path": "."}, bus=None)
    assert files.call_tool("read_file", {"path": "here.txt"}).model_dump()["content"] == "chosen\n"


def test_the_shell_defaults_to_the_same_folder_not_the_working_folder(service_in_root: Path) -> None:
    shell = find_toolbox_plugins()[SHELL](config={"allow_shell": True}, bus=None)
    folder = service_in_root / ".local" / "share" / "ovos-agentic-loop" / "files"
    assert str(folder) in shell.diagnostics()[0]
    assert "outside the allowed folder" in str(refusal(shell, "run_command", command="pwd", cwd="/etc"))
    ran = shell.call_tool("run_command", {"command": "pwd"}).model_dump()
    assert ran["stdout"].strip() == str(folder)


def test_refusals_reach_a_bus_caller_with_their_reason(service_in_root: Path) -> None:
    fake = FakeBus()
    built_as_phal_does(FILES, bus=fake)
    built_as_phal_does(SHELL, bus=fake)
    replies: list[dict[str, Any]] = []

    def call(toolbox_id: str, name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        request = Message(f"ovos.persona.tools.{toolbox_id}.call", {"name": name, "kwargs": kwargs})
        fake.once(request.response().msg_type, lambda m: replies.append(m.data))
        fake.emit(request)
        return replies[-1]

    escape = call(FILES, "read_file", {"path": "/etc/passwd"})
    assert escape["error"].startswith("RuntimeError: Tool execution failed for 'read_file'")
    assert "'/etc/passwd' is outside the allowed folder" in escape["error"]
    off = call(SHELL, "run_command", {"command": "id"})
    assert "run_command is disabled on this assistant (allow_shell is off)" in off["error"]
    bad = call(FILES, "read_file", {"offset": -1})
    assert bad["error"].startswith("ValueError: Tool input validation failed for 'read_file'")
    assert "path: Field required" in bad["error"] and "offset:" in bad["error"]


def test_a_refusal_is_one_line_in_the_log_not_a_traceback(service_in_root: Path, ovos_log: Any) -> None:
    files = built_as_phal_does(FILES)
    ovos_log.records.clear()
    refusal(files, "read_file", path="/etc/passwd")
    assert ovos_log.at("error") == [] and ovos_log.at("exception") == []
    ours = [(level, m) for level, m in ovos_log.records if "read_file" in m]
    assert len(ours) == 1 and ours[0][0] == "info", ours
    assert "\n" not in ours[0][1] and "outside the allowed folder" in ours[0][1]


def test_the_loop_still_sees_the_original_refusal_as_the_root_cause(service_in_root: Path) -> None:
    error = refusal(built_as_phal_does(FILES), "read_file", path="/etc/passwd")
    root: BaseException = error
    while root.__cause__ is not None:
        root = root.__cause__
    assert isinstance(root, PathRefused)


def test_the_real_phal_host_refuses_with_the_reason(service_in_root: Path) -> None:
    plugin_module = pytest.importorskip("ovos_phal_plugin_tools", reason="ovos-phal-plugin-tools absent")
    fake = FakeBus()
    plugin_module.OVOSToolsPHALPlugin(bus=fake, config={})
    replies: list[dict[str, Any]] = []
    fake.on("ovos.tools.invoke.response", lambda m: replies.append(m.data))
    for path in ("/etc/passwd", "etc/passwd", "../../etc/passwd", str(service_in_root / "private.txt")):
        fake.emit(Message("ovos.tools.invoke", {"name": "read_file", "args": {"path": path}}))
        assert "result" not in replies[-1], (path, replies[-1])
        reason = "does not exist" if path == "etc/passwd" else "outside the allowed folder"
        assert reason in replies[-1]["error"], (path, replies[-1])
    fake.emit(Message("ovos.tools.invoke", {"name": "list_directory", "args": {"path": "."}}))
    assert replies[-1]["result"]["entries"] == []


def test_persona_servers_utcp_bridge_refuses_with_the_reason(
    service_in_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    utcp = pytest.importorskip("ovos_persona_server.utcp", reason="ovos-persona-server not installed")
    tools = pytest.importorskip("ovos_persona_server.tools")
    pytest.importorskip("fastapi.testclient", reason="fastapi not installed")
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    box = built_as_phal_does(FILES)
    monkeypatch.setattr(tools, "_load_toolboxes", lambda: [box])
    monkeypatch.setattr(utcp, "_registry", {})
    monkeypatch.setattr(utcp, "_registry_ready", False)  # the bridge caches its registry per process
    app = FastAPI()
    app.include_router(utcp.make_utcp_router())
    client = TestClient(app)
    reply = client.post("/tools/read_file", json={"path": "/etc/passwd"})
    assert reply.status_code == 500
    assert "'/etc/passwd' is outside the allowed folder" in reply.json()["detail"]


def test_the_loops_observation_of_a_refusal_is_unchanged(service_in_root: Path) -> None:
    # The loop digs the root cause out of call_tool's exception: the reason added to the message
    # for other hosts must not change what the model is told (once, not twice).
    from ovos_plugin_manager.agents import load_chat_plugin
    from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

    from ovos_agentic_loop.testing import ScriptedBrain, tool_call

    brain = ScriptedBrain([tool_call("read_file", path="/etc/passwd"), "I may not read that file."])
    engine = load_chat_plugin("ovos-react-loop")(config={"toolboxes": [FILES]}, brain=brain)
    answer = engine.continue_chat([AgentMessage(role=MessageRole.USER, content="show /etc/passwd")])
    assert answer.content == "I may not read that file."
    seen = [m.content for m in brain.calls[1].messages if m.role == MessageRole.TOOL][-1]
    assert seen.startswith("Error: read_file failed: PathRefused: path '/etc/passwd' is outside the allowed")
    assert seen.count("outside the allowed folder") == 1 and "Tool execution failed" not in seen


def test_a_whole_persona_handed_over_uses_the_toolboxs_own_section(tmp_path: Path, ovos_log: Any) -> None:
    """ovos-persona-server builds a toolbox without a top-level section with the whole persona JSON
    (not an error such as "unknown config keys ['handlers', 'name', 'ovos-react-loop']")."""
    (tmp_path / "notes.txt").write_text("kept here\n")
    persona = {
        "name": "files-helper",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "toolboxes": ["ovos-filesystem-tools"],
            "ovos-filesystem-tools": {"root_path": str(tmp_path)},
        },
    }
    toolbox = find_toolbox_plugins()["ovos-filesystem-tools"](config=persona, bus=None)
    assert "kept here" in str(toolbox.call_tool("read_file", {"path": "notes.txt"}))
    assert not [m for m in ovos_log.at("warning") if "unknown config keys" in m]
    assert any(
        "the whole persona 'files-helper'" in m and "'ovos-react-loop' section" in m
        for m in ovos_log.at("info")
    )


def test_a_whole_persona_without_a_section_gives_the_defaults_quietly(ovos_log: Any) -> None:
    persona = {"name": "chatty", "handlers": ["ovos-react-loop"], "ovos-react-loop": {}}
    toolbox = find_toolbox_plugins()["ovos-math-tools"](config=persona, bus=None)
    assert toolbox.tools
    assert not [m for m in ovos_log.at("warning") if "unknown config keys" in m]
