"""Our toolboxes in a real ovos-PHAL-plugin-tools service, called over a real ovos-messagebus.

The service is started as one is on a device: working folder ``/``, no config for any toolbox (so
each is built as ``cls(config={}, bus=bus)``), a home folder with a private file. A bus caller aims
``read_file`` at ``/etc/passwd``, ``etc/passwd``, ``../../etc/passwd`` and the home file: each is
refused, and the reply the caller gets says why. Both hosts run on 127.0.0.1 on a free port and are
stopped by their PID (process group) whatever happens.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "ovos_messagebus", reason="ovos-messagebus is not installed: pip install --pre 'ovos-messagebus>=0.2.1a6'"
)
pytest.importorskip(
    "ovos_phal_plugin_tools",
    reason="ovos-PHAL-plugin-tools is not installed: pip install --pre 'ovos-phal-plugin-tools>=0.0.4a1'",
)
pytest.importorskip("ovos_bus_client", reason="ovos-bus-client is not installed: pip install ovos-bus-client")

from host_processes import (
    LOCALHOST,
    PRIVATE_TEXT,
    SHARED_TEXT,
    HostHome,
    HostProcess,
    descendants,
    free_port,
    make_home,
    wait_for,
    wait_for_port,
)
from ovos_bus_client import Message, MessageBusClient

pytestmark = pytest.mark.timeout(120)

FILES = "ovos-filesystem-tools"
SHELL = "ovos-shell-tools"
SERVICE = Path(__file__).resolve().parent / "phal_service.py"
REPLY_TIMEOUT = 15
#: What OPM's call_tool says on its own; the reason must come after it.
WRAPPER = re.compile(r"^RuntimeError: Tool execution failed for '\w+' in ToolBox '[\w-]+'")


@dataclass
class Device:
    home: HostHome
    bus: HostProcess
    phal: HostProcess
    client: MessageBusClient

    def ask(self, msg_type: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.client.wait_for_response(Message(msg_type, data or {}), timeout=REPLY_TIMEOUT)
        assert reply is not None, f"no answer to {msg_type} within {REPLY_TIMEOUT} s\n{self.phal.log_tail()}"
        return dict(reply.data)

    def invoke(self, name: str, **args: Any) -> dict[str, Any]:
        return self.ask("ovos.tools.invoke", {"name": name, "args": args})


@contextlib.contextmanager
def running_device(base: Path, tools_section: dict[str, Any]) -> Iterator[Device]:
    """A messagebus and the PHAL service, both from ``/``; ``tools_section`` is
    ``PHAL.ovos-phal-plugin-tools`` in mycroft.conf (``{}``: no toolbox config at all)."""
    home = make_home(base)
    port = free_port()
    config: dict[str, Any] = {"websocket": {"host": LOCALHOST, "port": port, "route": "/core", "ssl": False}}
    if tools_section:
        config["PHAL"] = {"ovos-phal-plugin-tools": tools_section}
    home.write_mycroft_conf(config)
    started: list[HostProcess] = []
    client: MessageBusClient | None = None
    try:
        bus = HostProcess("ovos-messagebus", [sys.executable, "-m", "ovos_messagebus"], home.env, base)
        started.append(bus)
        wait_for_port(port, bus)
        phal = HostProcess("phal-service", [sys.executable, str(SERVICE)], home.env, base)
        started.append(phal)
        wait_for(
            "the PHAL service ready",
            lambda: True if "phal-service: ready" in phal.log_tail() else None,
            45,
            phal,
        )
        client = MessageBusClient(host=LOCALHOST, port=port, route="/core")
        client.run_in_thread()
        assert client.connected_event.wait(15), "the test's bus client did not connect"
        yield Device(home, bus, phal, client)
    finally:
        if client is not None:
            client.close()
        for host in reversed(started):
            host.stop()


@pytest.fixture(scope="module")
def device(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Device]:
    with running_device(tmp_path_factory.mktemp("phal-device"), {}) as started:
        yield started


def reason_in(reply: dict[str, Any]) -> str:
    """The error a bus caller got, less OPM's wrapper; fails if there is a result or no reason."""
    assert "result" not in reply, f"the host answered with a result: {reply}"
    error = reply.get("error")
    assert isinstance(error, str) and error, f"no error in {reply}"
    reason = WRAPPER.sub("", error).lstrip(": ")
    assert len(reason) > 10, f"the caller got no reason, only {error!r}"
    return reason


def assert_nothing_leaked(reply: dict[str, Any]) -> None:
    text = json.dumps(reply)
    assert "root:" not in text and PRIVATE_TEXT.strip() not in text, (
        f"file content reached the caller: {reply}"
    )


# Each path a bus caller might try, and the reason it must be told.
ESCAPES = {
    "/etc/passwd": "is outside the allowed folder",
    # Relative to the project's own folder, not to the service's '/': there is no such file there.
    "etc/passwd": "file 'etc/passwd' does not exist",
    "../../etc/passwd": "is outside the allowed folder",
    "~/private.txt": "starts with '~'",
}


def test_the_tool_list_is_answered_with_our_toolboxes(device: Device) -> None:
    tools = device.ask("ovos.tools.list")["tools"]
    by_name = {tool["name"]: tool["toolbox_id"] for tool in tools}
    assert by_name.get("read_file") == FILES, by_name
    assert by_name.get("run_command") == SHELL, by_name
    assert "argument_schema" in next(tool for tool in tools if tool["name"] == "read_file")


@pytest.mark.parametrize("path", sorted(ESCAPES))
def test_system_and_home_paths_are_refused_with_the_reason(device: Device, path: str) -> None:
    reply = device.invoke("read_file", path=path)
    assert_nothing_leaked(reply)
    reason = reason_in(reply)
    assert ESCAPES[path] in reason, reply
    assert path in reason, reply  # the caller learns which path was refused


def test_the_home_file_by_its_absolute_path_is_refused_with_the_reason(device: Device) -> None:
    reply = device.invoke("read_file", path=str(device.home.private_file))
    assert_nothing_leaked(reply)
    assert "is outside the allowed folder" in reason_in(reply), reply


def test_the_projects_own_folder_is_served_not_the_services_working_folder(device: Device) -> None:
    """The control: the toolbox works, and in the project's folder (not '/', not the home folder)."""
    read = device.invoke("read_file", path="notes.txt")
    assert read.get("result", {}).get("content") == SHARED_TEXT, read
    listing = device.invoke("list_directory", path=".")
    names = [entry["name"] if isinstance(entry, dict) else entry for entry in listing["result"]["entries"]]
    assert names == ["notes.txt"], listing


def test_opms_toolbox_topics_refuse_with_the_reason(device: Device) -> None:
    """``ToolBox.bind(bus)`` (OPM) answers these topics itself, beside the PHAL plugin's."""
    per_toolbox = device.ask(
        f"ovos.persona.tools.{FILES}.call", {"name": "read_file", "kwargs": {"path": "/etc/passwd"}}
    )
    assert_nothing_leaked(per_toolbox)
    assert "is outside the allowed folder" in reason_in(per_toolbox), per_toolbox
    static = device.ask(
        "ovos.persona.tools.call",
        {"toolbox_id": FILES, "name": "read_file", "kwargs": {"path": "../../etc/passwd"}},
    )
    assert_nothing_leaked(static)
    assert "is outside the allowed folder" in reason_in(static), static


def test_the_shell_is_off_and_says_so(device: Device) -> None:
    reply = device.invoke("run_command", command="cat /etc/passwd")
    assert_nothing_leaked(reply)
    assert "allow_shell is off" in reason_in(reply), reply


def test_bad_arguments_are_refused_with_what_is_wrong(device: Device) -> None:
    reply = device.invoke("read_file", offset=-1)
    assert "result" not in reply, reply
    assert reply["error"].startswith("ValueError: Tool input validation failed for 'read_file'"), reply
    assert "path: Field required" in reply["error"], reply


def test_a_refusal_is_one_info_line_from_the_toolbox(device: Device) -> None:
    """The host logs its own ERROR traceback (not ours to change); our toolbox logs one INFO line."""
    device.invoke("read_file", path="/etc/passwd")
    ours = [
        line
        for line in device.phal.log_tail(200_000).splitlines()
        if "ovos_agentic_loop_toolboxes" in line and "read_file" in line and "'/etc/passwd'" in line
    ]
    assert ours, device.phal.log_tail()
    assert all(" - INFO - " in line and "refused" in line for line in ours), ours


def test_every_toolbox_of_ours_that_serves_nothing_says_so_in_the_host_log(device: Device) -> None:
    served = {tool["toolbox_id"] for tool in device.ask("ovos.tools.list")["tools"]}
    ours = {
        ep.name for ep in entry_points(group="opm.agents.toolbox") if ep.value.startswith("ovos_agentic_loop")
    }
    assert FILES in ours
    log = device.phal.log_tail(200_000)
    for toolbox_id in sorted(ours - served):
        assert re.search(rf" - WARNING - {re.escape(toolbox_id)}: serves ZERO tools: \S", log), (
            toolbox_id,
            log,
        )


def test_the_hosts_are_still_up_and_started_no_stray_process(device: Device) -> None:
    device.bus.require_running()
    device.phal.require_running()
    assert descendants(device.phal.pid) == set()  # no toolbox left a child running


def test_the_readmes_phal_config_confines_the_toolbox_to_its_folder(tmp_path: Path) -> None:
    """The README's mycroft.conf (``PHAL.ovos-phal-plugin-tools.<toolbox>``) reaches our toolbox."""
    chosen = tmp_path / "assistant-files"
    chosen.mkdir()
    (chosen / "todo.txt").write_text("chosen folder\n")
    section = {FILES: {"root_path": str(chosen), "allow_write": False}, SHELL: {"allow_shell": False}}
    with running_device(tmp_path / "device", section) as confined:
        assert (
            confined.invoke("read_file", path="todo.txt").get("result", {}).get("content")
            == "chosen folder\n"
        )
        # Not the default folder any more: its notes.txt is not there.
        assert "file 'notes.txt' does not exist" in reason_in(confined.invoke("read_file", path="notes.txt"))
        escape = confined.invoke("read_file", path="../device/home/private.txt")
        assert_nothing_leaked(escape)
        assert "is outside the allowed folder" in reason_in(escape), escape
        assert "allow_write is off" in reason_in(confined.invoke("write_file", path="x.txt", content="x"))
        assert not (chosen / "x.txt").exists()
