"""Our toolboxes behind a real ovos-persona-server 0.18, over its UTCP and MCP bridges.

persona-server's bridges serve EVERY installed toolbox, whatever the persona lists, and build each
with the persona's section for it or, lacking one, the whole persona JSON. The server here runs as
a user would start it: from ``/``, a persona with no toolbox sections, a home folder with a private
file; bound to 127.0.0.1 on a free port, stopped by its PID. An HTTP caller aims ``POST
/tools/read_file`` at system and home files: each is refused, and the response says why. The MCP
bridge (``--mcp``, when fastmcp is installed) is asked the same through the mcp SDK's client.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "ovos_persona_server.utcp",
    reason="ovos-persona-server 0.18 is not installed: pip install --pre 'ovos-persona-server>=0.18.11a1'",
)
httpx = pytest.importorskip("httpx", reason="httpx is not installed: pip install httpx")

from host_processes import (  # noqa: E402
    LOCALHOST,
    PRIVATE_TEXT,
    SHARED_TEXT,
    HostHome,
    HostProcess,
    descendants,
    free_port,
    make_home,
    wait_for_port,
)

pytestmark = pytest.mark.timeout(120)


def _importable(*names: str) -> bool:
    try:
        for name in names:
            importlib.import_module(name)
    except ImportError:
        return False
    return True


#: The MCP bridge needs persona-server's [mcp] extra (fastmcp) and, to call it, the mcp SDK.
HAS_MCP_BRIDGE = _importable("fastmcp", "mcp.client.streamable_http")
needs_mcp_bridge = pytest.mark.skipif(
    not HAS_MCP_BRIDGE,
    reason="persona-server's MCP bridge needs fastmcp and the mcp SDK: "
    "pip install 'fastmcp>=4.1.1' 'mcp>=2.3'",
)
MCP_CALL_TIMEOUT = 30

#: A persona with nothing for any toolbox: what a user who only wants a chat endpoint writes.
PERSONA = {"name": "host-test", "handlers": ["ovos-solver-failure-plugin"]}
#: What persona-server says on its own for a failure (500) and bad input (422); the reason follows.
WRAPPERS = ("Tool execution failed: ", "Tool input validation failed: ")


@dataclass
class Server:
    home: HostHome
    process: HostProcess
    http: Any  # httpx.Client
    base_url: str

    def call(self, tool: str, **args: Any) -> Any:
        return self.http.post(f"/tools/{tool}", json=args)


@contextlib.contextmanager
def running_server(base: Path, persona: dict[str, Any]) -> Iterator[Server]:
    """ovos-persona-server serving ``persona`` from ``/`` on 127.0.0.1 (with ``--mcp`` when it can)."""
    home = make_home(base)
    path = base / "persona.json"
    path.write_text(json.dumps(persona))
    port = free_port()
    argv = [sys.executable, "-m", "ovos_persona_server", "--persona", str(path), "--host", LOCALHOST]
    if HAS_MCP_BRIDGE:
        argv.append("--mcp")
    process = HostProcess("ovos-persona-server", [*argv, "--port", str(port)], home.env, base)
    try:
        wait_for_port(port, process, timeout=60)
        base_url = f"http://{LOCALHOST}:{port}"
        with httpx.Client(base_url=base_url, timeout=30) as http:
            yield Server(home, process, http, base_url)
    finally:
        process.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("persona-server"), PERSONA) as started:
        yield started


def reason_in(response: Any, status: int) -> str:
    """The reason a refused call carries, past persona-server's and OPM's own words."""
    assert response.status_code == status, (response.status_code, response.text)
    detail = response.json()["detail"]
    assert isinstance(detail, str), detail
    for wrapper in WRAPPERS:
        detail = detail.removeprefix(wrapper)
    # OPM's wrapper: "Tool execution failed for 'read_file' in ToolBox 'ovos-filesystem-tools'"
    _, _, reason = detail.partition("' in ToolBox '")
    reason = reason.partition("'")[2].lstrip(": ")
    assert len(reason) > 10, f"the caller got no reason, only {response.json()['detail']!r}"
    return reason


def assert_nothing_leaked(response: Any) -> None:
    assert "root:" not in response.text and PRIVATE_TEXT.strip() not in response.text, response.text


def test_the_utcp_manual_lists_our_tools_at_the_address_the_caller_used(server: Server) -> None:
    manual = server.http.get("/utcp")
    assert manual.status_code == 200, manual.text
    tools = {tool["name"]: tool for tool in manual.json()["tools"]}
    assert {"read_file", "list_directory", "run_command"} <= set(tools), sorted(tools)
    assert tools["read_file"]["tool_call_template"]["url"] == f"{server.base_url}/tools/read_file"


ESCAPES = {
    "/etc/passwd": "is outside the allowed folder",
    # Relative to the project's own folder, not to the server's '/': there is no such file there.
    "etc/passwd": "file 'etc/passwd' does not exist",
    "../../etc/passwd": "is outside the allowed folder",
    "~/private.txt": "starts with '~'",
}


@pytest.mark.parametrize("path", sorted(ESCAPES))
def test_system_and_home_paths_are_refused_with_the_reason(server: Server, path: str) -> None:
    response = server.call("read_file", path=path)
    assert_nothing_leaked(response)
    reason = reason_in(response, 500)  # a failure, not "unknown tool" (404): the tool is there and refused
    assert ESCAPES[path] in reason and path in reason, response.text


def test_the_home_file_by_its_absolute_path_is_refused_with_the_reason(server: Server) -> None:
    response = server.call("read_file", path=str(server.home.private_file))
    assert_nothing_leaked(response)
    assert "is outside the allowed folder" in reason_in(response, 500), response.text


def test_the_projects_own_folder_is_served_not_the_servers_working_folder(server: Server) -> None:
    read = server.call("read_file", path="notes.txt")
    assert read.status_code == 200 and read.json()["content"] == SHARED_TEXT, read.text
    listing = server.call("list_directory", path=".")
    assert listing.status_code == 200, listing.text
    names = [entry["name"] if isinstance(entry, dict) else entry for entry in listing.json()["entries"]]
    assert names == ["notes.txt"], listing.text


def test_bad_arguments_are_a_422_that_says_what_is_wrong(server: Server) -> None:
    response = server.call("read_file", offset=-1)
    reason = reason_in(response, 422)
    assert "path: Field required" in reason and "offset:" in reason, response.text


def test_the_shell_is_off_and_says_so(server: Server) -> None:
    response = server.call("run_command", command="cat /etc/passwd")
    assert_nothing_leaked(response)
    assert "allow_shell is off" in reason_in(response, 500), response.text


def test_a_refusal_is_one_info_line_in_the_server_log(server: Server) -> None:
    server.call("read_file", path="../../etc/passwd")
    log = server.process.log_tail(200_000)
    ours = [line for line in log.splitlines() if "read_file" in line and "'../../etc/passwd'" in line]
    assert ours and all(" - INFO - " in line and "refused" in line for line in ours), log[-4000:]
    # No traceback through our code: persona-server logs none for UTCP, and our toolbox must not either.
    frames = [line for line in log.splitlines() if line.lstrip().startswith('File "') and "toolboxes" in line]
    assert frames == [], log[-4000:]


def mcp_calls(server: Server, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    """The MCP bridge's tool names, and the result of each call, over streamable HTTP (bounded)."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def session() -> tuple[list[str], list[Any]]:
        async with (
            streamable_http_client(f"{server.base_url}/mcp") as streams,
            ClientSession(streams[0], streams[1]) as client,
        ):
            await client.initialize()
            names = [tool.name for tool in (await client.list_tools()).tools]
            return names, [await client.call_tool(name, args) for name, args in calls]

    async def bounded() -> tuple[list[str], list[Any]]:
        return await asyncio.wait_for(session(), MCP_CALL_TIMEOUT)

    return asyncio.run(bounded())


@needs_mcp_bridge
def test_the_mcp_bridge_refuses_with_the_reason_and_serves_the_projects_folder(server: Server) -> None:
    paths = [*sorted(ESCAPES), str(server.home.private_file)]
    names, results = mcp_calls(server, [("read_file", {"path": path}) for path in [*paths, "notes.txt"]])
    assert "read_file" in names, names
    *refused, served = results
    for path, result in zip(paths, refused, strict=True):
        text = " ".join(getattr(block, "text", "") for block in result.content)
        assert result.is_error, (path, text)
        assert "root:" not in text and PRIVATE_TEXT.strip() not in text, (path, text)
        reason = text.partition("' in ToolBox 'ovos-filesystem-tools'")[2].lstrip(": ")
        assert ESCAPES.get(path, "is outside the allowed folder") in reason, (path, text)
    served_text = " ".join(getattr(block, "text", "") for block in served.content)
    assert not served.is_error and json.loads(served_text)["content"] == SHARED_TEXT, served_text


def test_the_server_is_still_up_and_started_no_stray_process(server: Server) -> None:
    server.process.require_running()
    assert descendants(server.process.pid) == set()


def test_the_readmes_top_level_section_confines_the_toolbox_to_its_folder(tmp_path: Path) -> None:
    """The README's persona shape for persona-server: the toolbox's section at the persona's top level."""
    chosen = tmp_path / "assistant-files"
    chosen.mkdir()
    (chosen / "todo.txt").write_text("chosen folder\n")
    persona = {
        **PERSONA,
        "ovos-filesystem-tools": {"root_path": str(chosen)},
        "ovos-shell-tools": {"allow_shell": False},
    }
    with running_server(tmp_path / "server", persona) as confined:
        read = confined.call("read_file", path="todo.txt")
        assert read.status_code == 200 and read.json()["content"] == "chosen folder\n", read.text
        assert "file 'notes.txt' does not exist" in reason_in(
            confined.call("read_file", path="notes.txt"), 500
        )
        escape = confined.call("read_file", path="../server/home/private.txt")
        assert_nothing_leaked(escape)
        assert "is outside the allowed folder" in reason_in(escape, 500), escape.text
