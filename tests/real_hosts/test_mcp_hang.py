"""An MCP server command that starts but never speaks MCP, through ovos-tool-adapters'
``ovos-mcp-toolbox`` inside our engine: when the program using the engine ends, no process the
toolbox started is left running.

Each case runs the engine in its own program (a small host script, or ``ovos-agentic-loop chat``)
so that a child reparented to init after that program exits is still found: the hung command
carries a unique marker in its command line, and the test looks for it among ALL processes. Every
marked process is killed by its PID when the test ends, whatever the outcome.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp SDK is not installed: pip install 'mcp>=2.3'")
pytest.importorskip(
    "ovos_tool_adapters.mcp",
    reason="ovos-tool-adapters is not installed: pip install --pre 'ovos-tool-adapters[mcp]>=0.1.10a2'",
)

from fake_openai_server import FakeOpenAIServer, answer
from host_processes import make_home, processes_with_marker

pytestmark = pytest.mark.timeout(120)

HOST = Path(__file__).resolve().parent / "mcp_host.py"
#: The adapter's own handshake timeout, in seconds; the program must end soon after it.
MCP_TIMEOUT = 3
#: Generous: the adapter's timeout, the engine's bounded close and a slow CI machine.
PROGRAM_TIMEOUT = 60
#: How long a child may take to die after the program that started it ended.
SETTLE = 5.0


@pytest.fixture
def marker() -> Iterator[str]:
    """A word only the hung MCP command's command line holds; its processes are killed at the end."""
    word = f"never-speaks-mcp-{uuid.uuid4().hex}"
    yield word
    for pid in processes_with_marker(word):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def persona(marker: str, brain_url: str = "http://127.0.0.1:9/v1") -> dict[str, Any]:
    """The loop's own shape: the toolbox and its section inside the loop's section."""
    return {
        "name": "mcp-hang",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": brain_url, "max_retries": 0},
            "toolboxes": ["ovos-mcp-toolbox"],
            "ovos-mcp-toolbox": {
                "transport": "stdio",
                "command": sys.executable,
                "args": ["-c", "import time; time.sleep(600)", marker],
                "timeout": MCP_TIMEOUT,
            },
        },
    }


def run_program(argv: list[str], env: dict[str, str], folder: Path) -> subprocess.CompletedProcess[str]:
    """Run one program to its end (working folder ``/``, its own session), bounded.

    Its output goes to files, not pipes: a leftover child holding an inherited pipe open would make
    reading it wait forever. If it overruns, its process group is killed.
    """
    out_path, err_path = folder / "program.out", folder / "program.err"
    with out_path.open("w") as out, err_path.open("w") as err:
        process = subprocess.Popen(
            argv, cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
        )
        try:
            process.wait(timeout=PROGRAM_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(f"{argv[1]} did not end within {PROGRAM_TIMEOUT} s\n{err_path.read_text()[-4000:]}")
    return subprocess.CompletedProcess(argv, process.returncode, out_path.read_text(), err_path.read_text())


def leftovers(marker: str) -> set[int]:
    """Marked processes still alive SETTLE seconds after the program ended (a dying one gets that long)."""
    deadline = time.monotonic() + SETTLE
    while (found := processes_with_marker(marker)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return found


@pytest.fixture
def workdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = make_home(tmp_path)
    return tmp_path, home.env


def test_the_premise_a_process_left_behind_is_found(
    marker: str, workdir: tuple[Path, dict[str, str]]
) -> None:
    """A program that starts the marked command in its own session and ends without stopping it:
    the search finds the orphan, so the tests below fail when the engine leaves the server behind."""
    folder, env = workdir
    program = (
        "import subprocess, sys; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', sys.argv[1]], "
        "start_new_session=True)"
    )
    done = run_program([sys.executable, "-c", program, marker], env, folder)
    assert done.returncode == 0, done.stderr[-3000:]
    assert leftovers(marker), "an orphaned process was not found by its marker"


@pytest.mark.parametrize("mode", ["shutdown", "exit"])
def test_a_program_using_the_engine_leaves_no_mcp_server_behind(
    mode: str, marker: str, workdir: tuple[Path, dict[str, str]]
) -> None:
    folder, env = workdir
    path = folder / "persona.json"
    path.write_text(json.dumps(persona(marker)))
    started = time.monotonic()
    done = run_program([sys.executable, str(HOST), str(path), mode], env, folder)
    took = time.monotonic() - started
    assert done.returncode == 0, (done.returncode, done.stderr[-4000:])
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["tools"] == [], report
    assert leftovers(marker) == set(), f"{mode}: the MCP server outlived the program\n{done.stderr[-3000:]}"
    assert took < MCP_TIMEOUT + 30, f"{mode}: the program took {took:.1f} s to end"


def test_the_cli_exits_with_no_mcp_server_left(marker: str, workdir: tuple[Path, dict[str, str]]) -> None:
    """``ovos-agentic-loop chat`` on a persona whose MCP command never answers."""
    folder, env = workdir
    with FakeOpenAIServer() as brain:
        brain.replies.append(answer("Fine, without tools."))
        path = folder / "persona.json"
        path.write_text(json.dumps(persona(marker, brain_url=brain.url)))
        argv = [sys.executable, "-m", "ovos_agentic_loop.cli", "chat", str(path), "hello?"]
        done = run_program(argv, env, folder)
    assert done.returncode == 0, (done.returncode, done.stderr[-4000:])
    assert "Fine, without tools." in done.stdout
    assert leftovers(marker) == set(), f"the MCP server outlived the CLI\n{done.stderr[-3000:]}"
