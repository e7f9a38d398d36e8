"""What the model sees from run_command in a full loop turn: shell syntax, and a program that outlives
its call."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

pytest.importorskip("ovos_agentic_loop.engine")

from ovos_agentic_loop.testing import ScriptedBrain, tool_call
from ovos_agentic_loop_toolboxes._core.kernel import landlock_abi


def make_engine(brain: ScriptedBrain, root: Path, shell: dict[str, Any] | None = None, **loop: Any) -> Any:
    cls = load_chat_plugin("ovos-react-loop")
    assert cls is not None
    section = {"allow_shell": True, "root_path": str(root), "allowed_commands": ["echo", "cat", "sleep"]}
    section.update(shell or {})
    engine = cls(config={"toolboxes": ["ovos-shell-tools"], "ovos-shell-tools": section, **loop})
    engine.set_brain(brain)
    return engine


def observations(brain: ScriptedBrain, call: int) -> list[str]:
    return [m.content for m in brain.calls[call].messages if m.role == MessageRole.TOOL]


def ask(engine: Any, text: str) -> str:
    return engine.continue_chat([AgentMessage(role=MessageRole.USER, content=text)]).content


def test_a_pipe_is_explained_to_the_model_which_then_runs_one_program(tmp_path: Path) -> None:
    brain = ScriptedBrain(
        [
            tool_call("run_command", command="echo hi | tr a-z A-Z"),
            tool_call("run_command", command="echo HI"),
            "HI",
        ]
    )
    assert ask(make_engine(brain, tmp_path), "shout hi") == "HI"
    brain.assert_complete()
    refused = observations(brain, 1)[-1]
    assert "pipes, redirects and command chaining are not available" in refused
    assert "run one program per call" in refused
    assert json.loads(observations(brain, 2)[-1])["stdout"] == "HI\n"


def test_a_models_long_timeout_ends_within_the_toolboxs_cap(tmp_path: Path) -> None:
    brain = ScriptedBrain([tool_call("run_command", command="sleep 30", timeout=60), "It took too long."])
    # The documented rule: the shell's max_timeout below the loop's tool_timeout. The toolbox then
    # kills the command and says so before the loop would stop waiting for it.
    engine = make_engine(brain, tmp_path, {"max_timeout": 1}, tool_timeout=5)
    started = time.monotonic()
    assert ask(engine, "wait a bit") == "It took too long."
    assert time.monotonic() - started < 4
    seen = json.loads(observations(brain, 1)[-1])
    assert seen["timed_out"] is True and "killed after 1 seconds" in seen["note"]
    assert "capped at 1 seconds" in seen["note"]


def _running(cmdline: str) -> bool:
    for proc in Path("/proc").iterdir():
        try:
            if (proc / "cmdline").read_bytes().replace(b"\0", b" ").strip() == cmdline.encode():
                return True
        except OSError:
            continue
    return False


def test_a_command_outliving_the_loops_tool_timeout_is_killed_and_reported_stopped(tmp_path: Path) -> None:
    # tool_timeout (1 s) below the shell's cap (25 s): the loop stops waiting first, and asks the
    # toolbox to end exactly that call's programs, so nothing runs on after the turn.
    brain = ScriptedBrain([tool_call("run_command", command="sleep 23.7", timeout=20), "Stopped."])
    engine = make_engine(brain, tmp_path, tool_timeout=1)
    assert ask(engine, "wait") == "Stopped."
    seen = observations(brain, 1)[-1]
    assert "did not finish within 1 seconds (the tool_timeout) and was stopped" in seen
    deadline = time.monotonic() + 5
    while _running("sleep 23.7") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running("sleep 23.7")


@pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock (Linux 5.13+)")
def test_the_model_learns_what_the_sandbox_allows(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "secret.txt"
    root.mkdir()
    outside.write_text("the secret")
    brain = ScriptedBrain([tool_call("run_command", command=f"cat {outside}"), "I cannot read that file."])
    assert ask(make_engine(brain, root), "read the secret") == "I cannot read that file."
    seen = json.loads(observations(brain, 1)[-1])
    assert "the secret" not in seen["stdout"] and "Permission denied" in seen["stderr"]
    assert "the sandbox lets programs read only the root folder" in seen["note"]
