"""The three toolboxes over the messagebus (OVOS-TOOLS-1), as a persona service reaches them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ovos_bus_client.message import Message
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_utils.fakebus import FakeBus


@pytest.fixture
def bus(sandbox_dirs: tuple[Path, Path]) -> tuple[FakeBus, list[ToolBox]]:
    root, _ = sandbox_dirs
    fake = FakeBus()
    plugins = find_toolbox_plugins()
    boxes = [
        plugins["ovos-filesystem-tools"](config={"root_path": str(root)}, bus=fake),
        plugins["ovos-math-tools"](config={}, bus=fake),
        plugins["ovos-clock-tools"](config={"timezone": "UTC"}, bus=fake),
    ]
    return fake, boxes


def call(fake: FakeBus, toolbox_id: str, name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Send one call and collect every reply (exactly one toolbox must answer)."""
    replies: list[dict[str, Any]] = []
    request = Message("ovos.persona.tools.call", {"toolbox_id": toolbox_id, "name": name, "kwargs": kwargs})
    fake.on(request.response().msg_type, lambda m: replies.append(m.data))
    fake.emit(request)
    assert len(replies) == 1, replies
    return replies[0]


def test_each_toolbox_answers_its_own_calls(bus: tuple[FakeBus, list[ToolBox]]) -> None:
    fake, _ = bus
    read = call(fake, "ovos-filesystem-tools", "read_file", {"path": "notes/todo.txt"})
    assert read["toolbox_id"] == "ovos-filesystem-tools"
    assert read["result"]["content"] == "buy milk\nTODO: call Ana\n"
    maths = call(fake, "ovos-math-tools", "evaluate_expression", {"expression": "2^64"})
    assert maths["result"]["result"] == "18446744073709551616"
    clock = call(fake, "ovos-clock-tools", "get_weekday", {"date": "2025-03-14"})
    assert clock["result"]["weekday"] == "Friday"


def test_refusals_come_back_as_errors(
    bus: tuple[FakeBus, list[ToolBox]], sandbox_dirs: tuple[Path, Path]
) -> None:
    fake, _ = bus
    escape = call(fake, "ovos-filesystem-tools", "read_file", {"path": "../outside/secret.txt"})
    assert "result" not in escape and escape["error"].startswith("RuntimeError")
    write = call(fake, "ovos-filesystem-tools", "write_file", {"path": "x.txt", "content": "x"})
    assert "error" in write and not (sandbox_dirs[0] / "x.txt").exists()
    bomb = call(fake, "ovos-math-tools", "evaluate_expression", {"expression": "9**9**9"})
    assert "error" in bomb


def test_discovery_lists_every_tool(bus: tuple[FakeBus, list[ToolBox]]) -> None:
    fake, _ = bus
    found: dict[str, list[str]] = {}
    request = Message("ovos.persona.tools.discover")
    fake.on(
        request.response().msg_type,
        lambda m: found.update({m.data["toolbox_id"]: [t["name"] for t in m.data["tools"]]}),
    )
    fake.emit(request)
    assert found == {
        "ovos-filesystem-tools": [
            "read_file",
            "write_file",
            "list_directory",
            "search_in_files",
            "find_files",
        ],
        "ovos-math-tools": ["evaluate_expression", "solve_equation", "unit_convert", "statistics_summary"],
        "ovos-clock-tools": [
            "get_current_datetime",
            "convert_timezone",
            "days_between",
            "add_to_date",
            "get_weekday",
        ],
    }
