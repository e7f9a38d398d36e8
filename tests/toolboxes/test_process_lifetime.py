"""Programs die with the call, with the assistant's exit and with its death.

The loop runs a tool call in a daemon thread and abandons it at ``tool_timeout``; these tests use a
separate Python process as the assistant so its exit can be observed from outside.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from processes import pid_alive

ASSISTANT = textwrap.dedent(
    """
    import sys, threading, time
    from ovos_plugin_manager.persona import find_toolbox_plugins

    box = find_toolbox_plugins()["ovos-shell-tools"](
        config={{"allow_shell": True, "allow_shell_syntax": True, "root_path": {root!r}}}
    )

    line = "sleep 100 & echo $! > bg.pid; echo $$ > fg.pid; sleep 100"

    def call():
        box.call_tool("run_command", {{"command": line}})

    # A daemon thread, like the loop's: the interpreter does not wait for it at exit.
    threading.Thread(target=call, daemon=True).start()
    while True:
        time.sleep(0.05)
        try:
            if open({root!r} + "/bg.pid").read().strip() and open({root!r} + "/fg.pid").read().strip():
                break
        except OSError:
            pass
    print("ready", flush=True)
    {ending}
    """
)


def wait_dead(pid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.02)
    return False


def run_assistant(root: Path, ending: str) -> tuple[subprocess.Popen[str], int, int]:
    code = ASSISTANT.format(root=str(root), ending=ending)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # OVOS logs to stdout too
        if line.strip() == "ready":
            break
    else:
        pytest.fail("the assistant never started its command")
    return proc, int((root / "fg.pid").read_text()), int((root / "bg.pid").read_text())


def cleanup(fg: int, bg: int) -> None:
    """Kill what a failed test left: the command's whole group (fg leads it) and the background child."""
    with contextlib.suppress(OSError):
        os.killpg(fg, signal.SIGKILL)
    for pid in (fg, bg):
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_commands_die_when_the_assistant_exits(tmp_path: Path) -> None:
    proc, fg, bg = run_assistant(tmp_path, "sys.exit(0)")
    try:
        assert proc.wait(timeout=10) == 0
        assert wait_dead(fg), "the command outlived the assistant"
        assert wait_dead(bg), "a background child of the command outlived the assistant"
    finally:
        cleanup(fg, bg)


def test_the_command_dies_when_the_assistant_is_killed(tmp_path: Path) -> None:
    # SIGKILL runs no Python code: the kernel's death signal (PR_SET_PDEATHSIG) does it.
    proc, fg, bg = run_assistant(tmp_path, "time.sleep(100)")
    try:
        proc.kill()
        proc.wait(timeout=10)
        assert wait_dead(fg), "the command outlived the killed assistant"
    finally:
        cleanup(fg, bg)


@pytest.mark.parametrize("model_timeout", [60, 600])
def test_a_models_long_timeout_is_capped_and_said(tmp_path: Path, model_timeout: int) -> None:
    from ovos_plugin_manager.persona import find_toolbox_plugins

    box = find_toolbox_plugins()["ovos-shell-tools"](
        config={"allow_shell": True, "root_path": str(tmp_path), "max_timeout": 1}
    )
    started = time.monotonic()
    out = box.call_tool("run_command", {"command": "sleep 30", "timeout": model_timeout})
    assert time.monotonic() - started < 5
    assert out.timed_out and out.returncode == -signal.SIGKILL
    assert "killed after 1 seconds" in out.note and "capped at 1 seconds" in out.note


def test_a_caller_that_gives_up_can_stop_exactly_that_calls_programs(tmp_path: Path) -> None:
    import threading

    from ovos_plugin_manager.persona import find_toolbox_plugins

    box = find_toolbox_plugins()["ovos-shell-tools"](config={"allow_shell": True, "root_path": str(tmp_path)})
    results: dict[str, Any] = {}

    def call(name: str) -> None:
        results[name] = box.call_tool("run_command", {"command": "sleep 20", "timeout": 20})

    first = threading.Thread(target=call, args=("first",), daemon=True)
    other = threading.Thread(target=call, args=("other",), daemon=True)
    first.start()
    other.start()
    time.sleep(0.5)
    started = time.monotonic()
    assert first.ident is not None and box.stop_calls(first.ident) == 1
    first.join(5)
    assert not first.is_alive() and time.monotonic() - started < 3
    assert results["first"].returncode == -signal.SIGKILL
    assert other.is_alive(), "another session's command was stopped too"
    assert other.ident is not None and box.stop_calls(other.ident) == 1
    other.join(5)
    assert box.stop_calls(other.ident) == 0  # nothing left to stop: the caller must not say "stopped"
