"""Attacks a model (or a prompt injection) could try through ``run_command``."""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from processes import pid_alive


def make_shell(root: Path, **config: Any):
    cls = find_toolbox_plugins()["ovos-shell-tools"]
    return cls(config={"allow_shell": True, "root_path": str(root), **config})


@pytest.mark.parametrize(
    ("command", "operator"),
    [
        ("echo hi; rm -rf victim", ";"),
        ("echo hi && rm -rf victim", "&&"),
        ("echo hi || rm -rf victim", "||"),
        ("echo hi | rm -rf victim", "|"),
        ("echo $(rm -rf victim)", "$("),
        ('echo "$(rm -rf victim)"', "$("),
        ("echo `rm -rf victim`", "`"),
        ("echo hi > victim/file", ">"),
        ("cat < victim/keep.txt", "<"),
        ("sleep 1 & rm -rf victim", "&"),
        ("echo hi\nrm -rf victim", "a line break"),
    ],
)
def test_shell_syntax_is_a_clear_error_for_the_model(tmp_path: Path, command: str, operator: str) -> None:
    # 'echo hi | tr a-z A-Z' must not "succeed" by printing the pipe literally: the model would take it
    # for the pipeline's output.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    for config in ({"allowed_commands": ["echo", "cat", "sleep"]}, {}):
        with pytest.raises(RuntimeError) as excinfo:
            make_shell(tmp_path, **config).call_tool("run_command", {"command": command})
        message = str(excinfo.value.__cause__)
        assert "pipes, redirects and command chaining are not available" in message
        assert repr(operator) in message and "run one program per call" in message
    assert (victim / "keep.txt").read_text() == "precious"
    assert not (victim / "file").exists()


@pytest.mark.parametrize(
    "command",
    ["echo 'a | b; c && d > e'", 'echo "x < y"', "echo a\\|b", "echo '$(not run)' '`nor this`'"],
)
def test_quoted_operators_are_plain_text(tmp_path: Path, command: str) -> None:
    import shlex

    out = make_shell(tmp_path, allowed_commands=["echo"]).call_tool("run_command", {"command": command})
    assert out.success and out.stdout == " ".join(shlex.split(command)[1:]) + "\n"


def test_timeout_kills_background_children(tmp_path: Path) -> None:
    box = make_shell(tmp_path, allow_shell_syntax=True)
    started = time.monotonic()
    out = box.call_tool("run_command", {"command": "sleep 100 & echo $!; sleep 100", "timeout": 1})
    assert time.monotonic() - started < 5
    assert out.timed_out and out.returncode < 0
    child = int(out.stdout.split()[0])
    assert not pid_alive(child)


def test_normal_exit_also_kills_background_children(tmp_path: Path) -> None:
    box = make_shell(tmp_path, allow_shell_syntax=True)
    started = time.monotonic()
    out = box.call_tool("run_command", {"command": "sleep 100 & echo $!", "timeout": 20})
    assert time.monotonic() - started < 5
    assert not out.timed_out and out.returncode == 0
    assert not pid_alive(int(out.stdout.split()[0]))


def test_timeout_kills_children_of_a_script(tmp_path: Path) -> None:
    script = tmp_path / "spawn.sh"
    script.write_text("#!/bin/sh\nsleep 100 &\necho $!\nwait\n")
    script.chmod(0o755)
    out = make_shell(tmp_path).call_tool("run_command", {"command": "./spawn.sh", "timeout": 1})
    assert out.timed_out
    assert not pid_alive(int(out.stdout.split()[0]))


def test_output_flood_is_capped_and_memory_bounded(tmp_path: Path) -> None:
    box = make_shell(tmp_path, max_output_bytes=4096)
    tracemalloc.start()
    try:
        out = box.call_tool("run_command", {"command": "yes", "timeout": 2})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.timed_out and out.truncated
    assert out.stdout_bytes > 10_000_000  # yes wrote far more than we kept
    assert out.stdout.startswith("y\ny\n") and out.stdout.endswith("y\n")
    assert "bytes omitted" in out.stdout
    assert len(out.stdout) < 4096 + 200
    assert peak < 5_000_000, f"peak Python memory {peak} bytes while reading {out.stdout_bytes} bytes"


def test_stderr_flood_is_capped_too(tmp_path: Path) -> None:
    box = make_shell(tmp_path, allow_shell_syntax=True, max_output_bytes=1000)
    out = box.call_tool("run_command", {"command": "head -c 200000 /dev/zero | tr '\\0' e >&2; echo done"})
    assert out.stdout == "done\n"
    assert out.stderr_bytes == 200000 and out.truncated
    assert len(out.stderr) < 1200


def test_no_shell_means_no_glob_or_variable_expansion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "x.txt").write_text("")
    out = make_shell(tmp_path).call_tool("run_command", {"command": "echo *.txt $HOME ~"})
    assert out.stdout == "*.txt $HOME ~\n"


def test_path_traversal_in_program_name_is_checked(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    box = make_shell(root, allowed_commands=["ls"])
    with pytest.raises(RuntimeError):
        box.call_tool("run_command", {"command": "../../../../bin/sh -c id"})


def test_memory_limit_stops_a_hog(tmp_path: Path) -> None:
    box = make_shell(tmp_path, max_memory_mb=200)
    out = box.call_tool(
        "run_command", {"command": f'{os.path.realpath("/usr/bin/python3")} -c "b = bytearray(400 * 2**20)"'}
    )
    assert out.returncode != 0
    assert "MemoryError" in out.stderr


# --- found in the adversarial audit ----------------------------------------------------------

ESCAPE_BY_SETSID = (
    "import os, sys, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    print(os.getpid(), flush=True)\n"
    "    os.close(1); os.close(2)\n"
    "    time.sleep(100)\n"
)


def wait_dead(pid: int, seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("timeout", [20, 1])
def test_setsid_escapee_is_killed_by_its_marker(tmp_path: Path, timeout: int) -> None:
    # A descendant that calls setsid() leaves the process group the runner kills, and used to
    # live on after the call (a daemon started by the model). It still carries the run's marker.
    script = tmp_path / "escape.py"
    script.write_text(ESCAPE_BY_SETSID + ("time.sleep(100)\n" if timeout == 1 else ""))
    python = os.path.realpath("/usr/bin/python3")
    out = make_shell(tmp_path).call_tool(
        "run_command", {"command": f"{python} escape.py", "timeout": timeout}
    )
    escapee = int(out.stdout.split()[0])
    try:
        assert wait_dead(escapee), "the setsid() child outlived the call"
    finally:
        if pid_alive(escapee):
            os.kill(escapee, 9)


def test_setsid_program_does_not_outlive_the_call(tmp_path: Path) -> None:
    marker = f"sleep-{os.getpid()}-{time.monotonic_ns()}"
    (tmp_path / marker).symlink_to(os.path.realpath("/bin/sleep"))
    make_shell(tmp_path).call_tool("run_command", {"command": f"setsid ./{marker} 100", "timeout": 5})
    survivors = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline and pid_alive(int(entry)):
                survivors.append(int(entry))
    for pid in survivors:
        if not wait_dead(pid):
            os.kill(pid, 9)
            pytest.fail(f"setsid {marker} survived the call")


def test_risky_config_is_warned_about(tmp_path: Path, ovos_log) -> None:
    # Accepted by design (operator config, values from the host), but never silently.
    make_shell(tmp_path, env_allowlist=["LD_PRELOAD", "LANG"], allowed_commands=["git status"])
    warnings = " ".join(ovos_log.at("warning"))
    assert "LD_PRELOAD" in warnings and "LANG'" not in warnings
    assert "'git'" in warnings
