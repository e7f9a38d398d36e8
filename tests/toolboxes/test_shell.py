"""ovos-shell-tools as a user reaches it: loaded through OPM, called with ``call_tool``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError


def make_shell(root: Path, **config: Any):
    cls = find_toolbox_plugins()["ovos-shell-tools"]
    return cls(config={"allow_shell": True, "root_path": str(root), **config})


def refusal(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    """The message the model sees: OPM wraps the tool's exception in RuntimeError."""
    cause = excinfo.value.__cause__
    assert isinstance(cause, ToolCallError), f"expected a ToolCallError cause, got {cause!r}"
    return str(cause)


def test_disabled_by_default(tmp_path: Path) -> None:
    box = find_toolbox_plugins()["ovos-shell-tools"](config={"root_path": str(tmp_path)})
    assert list(box.tools) == ["run_command", "get_system_info"]
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("run_command", {"command": "echo hi"})
    assert "disabled" in refusal(excinfo)


@pytest.mark.parametrize("allow_shell", [False, True])
def test_the_facts_about_this_computer_are_read_without_a_program(tmp_path: Path, allow_shell: bool) -> None:
    import getpass
    import platform
    import socket

    box = find_toolbox_plugins()["ovos-shell-tools"](
        config={"root_path": str(tmp_path), "allow_shell": allow_shell}
    )
    facts = box.call_tool("get_system_info", {"what": "the user name"})  # what it is asked for: all of it
    assert facts.user == getpass.getuser()
    assert facts.computer_name == socket.gethostname()
    assert facts.kernel == f"{platform.system()} {platform.release()}"
    assert facts.processors >= 1 and facts.operating_system
    if Path("/proc/uptime").exists():
        assert "minute" in facts.uptime or "second" in facts.uptime
    assert not box.has_side_effects("get_system_info") and box.role("get_system_info") is None


def test_runs_a_program_and_reports_output(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    out = make_shell(tmp_path).call_tool("run_command", {"command": "ls -1"})
    assert out.returncode == 0 and out.success
    assert out.stdout == "a.txt\n"
    assert not out.timed_out and not out.truncated


def test_nonzero_exit_is_reported_not_raised(tmp_path: Path) -> None:
    out = make_shell(tmp_path).call_tool("run_command", {"command": "ls does-not-exist"})
    assert out.returncode != 0 and not out.success
    assert "does-not-exist" in out.stderr


def test_allowlist_refuses_other_programs(tmp_path: Path) -> None:
    box = make_shell(tmp_path, allowed_commands=["ls", "echo"])
    assert box.call_tool("run_command", {"command": "echo ok"}).stdout == "ok\n"
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("run_command", {"command": "cat /etc/hostname"})
    message = refusal(excinfo)
    assert "'cat' is not an allowed program" in message and "ls, echo" in message


def test_allowlist_with_leading_arguments(tmp_path: Path) -> None:
    box = make_shell(tmp_path, allowed_commands=["echo safe"])
    assert box.call_tool("run_command", {"command": "echo safe words"}).stdout == "safe words\n"
    with pytest.raises(RuntimeError):
        box.call_tool("run_command", {"command": "echo other"})


def test_allowlist_checks_the_real_program_not_the_name(tmp_path: Path) -> None:
    evil = tmp_path / "evil"
    evil.mkdir()
    fake = evil / "ls"
    fake.write_text("#!/bin/sh\necho pwned\n")
    fake.chmod(0o755)
    box = make_shell(tmp_path, allowed_commands=["ls"])
    for command in (str(fake), "./evil/ls", "evil/ls"):
        with pytest.raises(RuntimeError) as excinfo:
            box.call_tool("run_command", {"command": command})
        assert "not an allowed program" in refusal(excinfo)
    # The real ls by its absolute path is the same program, so it is allowed.
    real_ls = os.path.realpath(__import__("shutil").which("ls"))
    assert box.call_tool("run_command", {"command": f"{real_ls} -d ."}).stdout == ".\n"


def test_shell_syntax_and_allowlist_cannot_be_combined(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="allow_shell_syntax cannot be combined"):
        make_shell(tmp_path, allow_shell_syntax=True, allowed_commands=["ls"])


def test_shell_syntax_when_enabled(tmp_path: Path) -> None:
    out = make_shell(tmp_path, allow_shell_syntax=True).call_tool(
        "run_command", {"command": "echo a | tr a b && echo c"}
    )
    assert out.stdout == "b\nc\n"


def test_cwd_inside_root(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    out = make_shell(tmp_path).call_tool("run_command", {"command": "pwd", "cwd": "sub"})
    assert out.stdout.strip() == str((tmp_path / "sub").resolve())


@pytest.mark.parametrize("cwd", ["..", "/", "/etc", "sub/../..", "link"])
def test_cwd_outside_root_is_refused(tmp_path: Path, cwd: str) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "link").symlink_to(tmp_path)
    with pytest.raises(RuntimeError) as excinfo:
        make_shell(root).call_tool("run_command", {"command": "pwd", "cwd": cwd})
    assert "outside the allowed folder" in refusal(excinfo)


def test_missing_cwd_and_program_are_explained(tmp_path: Path) -> None:
    box = make_shell(tmp_path)
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("run_command", {"command": "pwd", "cwd": "nope"})
    assert "not an existing folder" in refusal(excinfo)
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("run_command", {"command": "no-such-program-xyz"})
    assert "was not found" in refusal(excinfo)
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("run_command", {"command": "echo 'unbalanced"})
    assert "quotes" in refusal(excinfo)


def test_environment_secrets_do_not_leak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t-value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-leak")
    monkeypatch.setenv("MY_SETTING", "visible")
    out = make_shell(tmp_path, env_allowlist=["MY_SETTING"]).call_tool("run_command", {"command": "env"})
    assert out.returncode == 0
    assert "SECRET_TOKEN" not in out.stdout and "s3cr3t-value" not in out.stdout
    assert "sk-leak" not in out.stdout
    assert "MY_SETTING=visible" in out.stdout
    assert "PATH=" in out.stdout


def test_stdin_is_closed(tmp_path: Path) -> None:
    out = make_shell(tmp_path).call_tool("run_command", {"command": "cat", "timeout": 5})
    assert out.returncode == 0 and out.stdout == "" and not out.timed_out


def test_timeout_is_capped_by_max_timeout(tmp_path: Path) -> None:
    out = make_shell(tmp_path, max_timeout=1).call_tool(
        "run_command", {"command": "sleep 30", "timeout": 600}
    )
    assert out.timed_out and not out.success
    assert out.returncode < 0


def test_file_size_limit_applies(tmp_path: Path) -> None:
    out = make_shell(tmp_path, max_file_size_mb=1).call_tool(
        "run_command", {"command": "head -c 3000000 /dev/zero", "cwd": "."}
    )
    # stdout is a pipe, not a file: the limit must not cut it.
    assert out.stdout_bytes == 3000000
    out = make_shell(tmp_path, max_file_size_mb=1).call_tool(
        "run_command", {"command": f"dd if=/dev/zero of={tmp_path / 'big'} bs=1M count=3"}
    )
    assert out.returncode != 0
    assert (tmp_path / "big").stat().st_size <= 1024 * 1024


def test_unknown_argument_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        make_shell(tmp_path).call_tool("run_command", {"command": "ls", "shell": True})


def test_the_description_says_what_a_well_known_program_tells(tmp_path: Path) -> None:
    """Asked "whats my user name on this computer" with whoami allowed, the bundled model called
    the clock four times: the question's words were nowhere in run_command's description."""
    box = make_shell(tmp_path, allowed_commands=["whoami", "hostname", "wc"])
    description = box.tools["run_command"].description
    assert "Allowed programs: whoami (your user name), hostname (this computer's name), wc." in description
    assert (
        make_shell(tmp_path, allowed_commands=["whoami"])
        .call_tool("run_command", {"command": "whoami"})
        .success
    )
