"""Abandoned work never holds the process at exit.

A caller's thread that is not a daemon, waiting in a turn for a hung brain or tool, must not
keep the interpreter alive until ``time_budget`` / ``tool_timeout`` runs out.
Each case runs in a fresh interpreter whose main thread returns while the turn waits.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

PRELUDE = """
import sys, threading, time
sys.path.insert(0, {tests!r})
from conftest import DemoToolBox
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_agentic_loop.testing import ScriptedBrain, tool_call

def hang(call):
    time.sleep(120)
    return "too late"

outcome = []

def turn(engine):
    try:
        outcome.append(engine.get_response("wait 120 seconds"))
    except BaseException as exc:
        outcome.append(exc)
        print("turn ended:", type(exc).__name__, exc, flush=True)
"""

CASES = {
    "brain": """
        engine = load_chat_plugin("ovos-react-loop")(
            config={"time_budget": 100}, brain=ScriptedBrain([hang]), toolboxes=[])
    """,
    "tool": """
        engine = load_chat_plugin("ovos-react-loop")(
            config={"time_budget": 100, "tool_timeout": 100},
            brain=ScriptedBrain([tool_call("sleep", seconds=120), "done"]), toolboxes=[DemoToolBox()])
    """,
    "warm-up": """
        engine = load_chat_plugin("ovos-react-loop")(
            config={"time_budget": 100, "warm_up": True}, brain=ScriptedBrain([hang, "hi"]), toolboxes=[])
    """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_waiting_non_daemon_caller_thread_does_not_hold_the_exit(case: str) -> None:
    code = (
        PRELUDE.format(tests=str(TESTS))
        + textwrap.dedent(CASES[case])
        + textwrap.dedent("""
        caller = threading.Thread(target=turn, args=(engine,), name="caller")  # not a daemon
        caller.start()
        time.sleep(0.5)
        print("main thread returns", flush=True)
    """)
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert "main thread returns" in done.stdout
    assert took < 15, f"the process lived {took:.1f} s after its main thread returned"
    ended = "turn ended: ShuttingDown the Python interpreter is exiting"
    assert ended in done.stdout, done.stdout + done.stderr
