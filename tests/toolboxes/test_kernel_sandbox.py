"""The Landlock kernel sandbox around every program the toolboxes start.

Each attack runs through the public contract (``find_toolbox_plugins`` + ``call_tool``) with a
program the allowlist permits, so only the kernel stands between it and the file or socket.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError
from ovos_agentic_loop_toolboxes._core.kernel import landlock_abi

needs_landlock = pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock (Linux 5.13+)")
needs_landlock_net = pytest.mark.skipif(
    landlock_abi() < 4, reason="this kernel's Landlock cannot restrict TCP (ABI 4, Linux 6.7+, needed)"
)
PYTHON = os.path.realpath("/usr/bin/python3")


def make_shell(root: Path, **config: Any):
    cls = find_toolbox_plugins()["ovos-shell-tools"]
    return cls(config={"allow_shell": True, "root_path": str(root), **config})


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "inside.txt").write_text("inside\n")
    (outside / "secret.txt").write_text("the secret\n")
    return root, outside


@needs_landlock
def test_a_normal_command_still_works(dirs: tuple[Path, Path]) -> None:
    root, _ = dirs
    box = make_shell(root, allowed_commands=["cat", "ls"])
    assert box.call_tool("run_command", {"command": "cat inside.txt"}).stdout == "inside\n"
    out = box.call_tool("run_command", {"command": "ls -l"})
    assert out.success and "inside.txt" in out.stdout


@needs_landlock
def test_allowlisted_cat_cannot_read_a_file_outside_the_root(dirs: tuple[Path, Path]) -> None:
    root, outside = dirs
    out = make_shell(root, allowed_commands=["cat"]).call_tool(
        "run_command", {"command": f"cat {outside / 'secret.txt'}"}
    )
    assert not out.success and "the secret" not in out.stdout
    assert "Permission denied" in out.stderr
    assert "the sandbox lets programs read only the root folder" in out.note


@needs_landlock
def test_home_and_etc_secrets_are_not_readable(dirs: tuple[Path, Path]) -> None:
    root, _ = dirs
    box = make_shell(root, allowed_commands=["cat", "ls"])
    assert not box.call_tool("run_command", {"command": f"ls {os.path.expanduser('~')}"}).success
    assert not box.call_tool("run_command", {"command": "cat /etc/hostname"}).success


@needs_landlock
def test_writing_outside_the_root_is_refused(dirs: tuple[Path, Path]) -> None:
    root, outside = dirs
    box = make_shell(root, allowed_commands=["touch", "cp"])
    assert not box.call_tool("run_command", {"command": f"touch {outside / 'new.txt'}"}).success
    assert not box.call_tool("run_command", {"command": f"cp inside.txt {outside}/copy.txt"}).success
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert box.call_tool("run_command", {"command": "touch made-here.txt"}).success
    assert (root / "made-here.txt").exists()


@needs_landlock
def test_the_environment_of_the_assistant_is_not_readable(dirs: tuple[Path, Path]) -> None:
    # /proc/<pid>/environ of the assistant holds its API keys; the same user may read it.
    root, _ = dirs
    out = make_shell(root, allowed_commands=["cat"]).call_tool(
        "run_command", {"command": f"cat /proc/{os.getpid()}/environ"}
    )
    assert not out.success and out.stdout == ""
    assert "Permission denied" in out.stderr


@pytest.fixture
def listener() -> Iterator[tuple[int, list[socket.socket]]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(5)
    accepted: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            accepted.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    server.close()
    for conn in accepted:
        conn.close()


CONNECT = "import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3); print('connected')"


@needs_landlock_net
def test_tcp_connect_is_refused_unless_allowed(dirs: tuple[Path, Path], listener) -> None:
    root, _ = dirs
    port, accepted = listener
    (root / "connect.py").write_text(CONNECT.format(port=port))
    out = make_shell(root).call_tool("run_command", {"command": f"{PYTHON} connect.py"})
    assert "connected" not in out.stdout and "PermissionError" in out.stderr
    assert accepted == []
    out = make_shell(root, allow_network=True).call_tool("run_command", {"command": f"{PYTHON} connect.py"})
    assert out.stdout == "connected\n"


@needs_landlock
def test_skill_scripts_run_in_the_sandbox(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("the secret")
    folder = tmp_path / "skills" / "peek"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: peek\ndescription: Reads a file.\n---\n## Parameters\n\n"
        "### path (required, positional position 0)\n**Type**: `str`\n"
    )
    (folder / "scripts" / "peek.py").write_text(
        "import json, sys\n"
        "try:\n    text = open(sys.argv[1]).read()\nexcept OSError as exc:\n    text = type(exc).__name__\n"
        "print(json.dumps({'text': text}))\n"
    )
    box = find_toolbox_plugins()["ovos-skill-md-toolbox"](
        config={
            "skills_paths": [str(tmp_path / "skills")],
            "user_skills_path": None,
            "use_entry_points": False,
        }
    )
    assert box.call_tool("peek", {"path": str(outside)}).result == {"text": "PermissionError"}
    # Its own folder stays readable: scripts read their reference files.
    assert box.call_tool("peek", {"path": str(folder / "SKILL.md")}).result["text"].startswith("---")


def test_diagnostics_report_the_sandbox(tmp_path: Path) -> None:
    lines = make_shell(tmp_path).diagnostics()
    assert any("kernel sandbox" in line for line in lines)
    expected = f"Landlock ABI {landlock_abi()}" if landlock_abi() else "NOT AVAILABLE"
    assert any(expected in line for line in lines)
    assert "OFF" in make_shell(tmp_path, sandbox=False).diagnostics()[-1]


def test_require_sandbox_refuses_to_start_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ovos_log
) -> None:
    monkeypatch.setattr("ovos_agentic_loop_toolboxes._core.kernel._abi", 0)
    monkeypatch.setattr("ovos_agentic_loop_toolboxes._core.kernel._warned", set())
    with pytest.raises(ToolboxConfigError, match="require_sandbox"):
        make_shell(tmp_path, require_sandbox=True)
    with pytest.raises(ToolboxConfigError, match="require_sandbox"):
        find_toolbox_plugins()["ovos-skill-md-toolbox"](
            config={"require_sandbox": True, "user_skills_path": None}
        )
    # Without the requirement it runs, unconfined, and says so once.
    box = make_shell(tmp_path, allowed_commands=["echo"])
    assert "NOT AVAILABLE" in box.diagnostics()[-1]
    assert box.call_tool("run_command", {"command": "echo ok"}).stdout == "ok\n"
    assert box.call_tool("run_command", {"command": "echo again"}).stdout == "again\n"
    said = [w for w in ovos_log.at("warning") if "NOT AVAILABLE" in w]
    assert len(said) == 1 and "ovos-shell-tools" in said[0]


@needs_landlock
def test_a_program_outside_the_sandboxs_folders_is_explained(tmp_path: Path) -> None:
    home_bin = Path.home() / f".ovos-test-bin-{os.getpid()}"
    home_bin.mkdir()
    try:
        (home_bin / "tool").write_text("#!/bin/sh\necho hi\n")
        (home_bin / "tool").chmod(0o755)
        with pytest.raises(RuntimeError) as excinfo:
            make_shell(tmp_path).call_tool("run_command", {"command": str(home_bin / "tool")})
        assert "outside the folders the sandbox runs programs from" in str(excinfo.value.__cause__)
    finally:
        for item in home_bin.iterdir():
            item.unlink()
        home_bin.rmdir()


@needs_landlock
def test_a_program_reads_its_own_proc_folder_only(dirs: tuple[Path, Path]) -> None:
    root, _ = dirs
    box = make_shell(root, allowed_commands=["cat", "df"])
    assert box.call_tool("run_command", {"command": "cat /proc/self/status"}).stdout.startswith("Name:")
    assert box.call_tool("run_command", {"command": "df"}).success  # reads /proc/self/mountinfo


def test_python_itself_is_found_inside_the_sandbox(tmp_path: Path) -> None:
    # Skill scripts run with the assistant's own interpreter, wherever it is installed.
    out = make_shell(tmp_path).call_tool("run_command", {"command": f"{sys.executable} -c print(42)"})
    assert out.stdout == "42\n", out.stderr
