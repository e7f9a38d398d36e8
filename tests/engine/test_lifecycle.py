"""Lifecycle: the engine closes every toolbox it built, at shutdown and when a persona is
unloaded, and no child process a toolbox started outlives it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from conftest import DemoToolBox
from fake_openai_server import FakeOpenAIServer, answer
from installed_fakes import install_toolboxes

from ovos_agentic_loop.personas import Persona, build_engine
from ovos_agentic_loop.testing import ScriptedBrain


class ClosingTools(DemoToolBox):
    """Records every close()."""

    closed: ClassVar[list[str]] = []

    def __init__(self, config: dict | None = None, bus: object = None) -> None:
        super().__init__(config, bus, toolbox_id="closing-tools")

    def close(self) -> None:
        ClosingTools.closed.append(self.toolbox_id)


class SpawningTools(DemoToolBox):
    """Starts a child process, as an MCP toolbox does, and (like MCPToolBox on a server that never
    spoke MCP) does not stop it in close()."""

    children: ClassVar[list[subprocess.Popen[bytes]]] = []

    def __init__(self, config: dict | None = None, bus: object = None) -> None:
        SpawningTools.children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]))
        super().__init__(config, bus, toolbox_id="spawning-tools")

    def close(self) -> None:
        pass


class HangingTools(SpawningTools):
    """A server command that starts but never answers: zero tools."""

    def discover_tools(self) -> list:
        return []


@pytest.fixture(autouse=True)
def installed(monkeypatch: pytest.MonkeyPatch) -> Any:
    fakes = {"closing-tools": ClosingTools, "spawning-tools": SpawningTools, "hanging-tools": HangingTools}
    install_toolboxes(monkeypatch, fakes)
    ClosingTools.closed.clear()
    yield
    for child in SpawningTools.children:  # whatever a failing test left
        child.kill()
        child.wait()
    SpawningTools.children.clear()


def persona(*toolboxes: str, url: str = "http://127.0.0.1:9/v1") -> dict[str, Any]:
    return {
        "name": "lifecycle",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": url, "max_retries": 0},
            "toolboxes": list(toolboxes),
        },
    }


def running(child: subprocess.Popen[bytes]) -> bool:
    return child.poll() is None


def test_shutdown_closes_every_toolbox_the_engine_built_once() -> None:
    engine = build_engine(Persona("p.json", persona("closing-tools")))
    caller_owned = ClosingTools()
    engine.add_toolboxes(caller_owned)
    engine.shutdown()
    engine.shutdown()
    assert ClosingTools.closed == ["closing-tools"]  # once, and not the caller's toolbox
    assert engine.toolboxes == [caller_owned]


@pytest.mark.needs_package("ovos_persona")
def test_ovos_persona_unloading_its_handlers_closes_the_toolboxes() -> None:
    """ovos-persona's QuestionSolversService.shutdown() calls shutdown() on each handler."""
    from ovos_persona import Persona as OvosPersona

    data = persona("closing-tools")
    loaded = OvosPersona(data["name"], data)
    assert ClosingTools.closed == []
    loaded.solvers.shutdown()
    assert ClosingTools.closed == ["closing-tools"]


def test_a_with_block_shuts_the_engine_down() -> None:
    with build_engine(Persona("p.json", persona("closing-tools"))) as engine:
        assert [t.toolbox_id for t in engine.toolboxes] == ["closing-tools"]
    assert ClosingTools.closed == ["closing-tools"]


def test_replacing_the_toolboxes_closes_those_the_engine_built() -> None:
    engine = build_engine(Persona("p.json", persona("closing-tools")))
    engine.load_toolboxes(engine.toolboxes)  # the same ones: kept open
    assert ClosingTools.closed == []
    engine.load_toolboxes([DemoToolBox()])
    assert ClosingTools.closed == ["closing-tools"]


def test_toolboxes_handed_in_are_the_callers_and_stay_open() -> None:
    from ovos_plugin_manager.agents import load_chat_plugin

    mine = ClosingTools()
    engine = load_chat_plugin("ovos-react-loop")(config={}, toolboxes=[mine], brain=ScriptedBrain())
    engine.shutdown()
    assert ClosingTools.closed == []


def test_a_child_process_left_running_by_close_is_stopped_at_shutdown(ovos_log) -> None:
    engine = build_engine(Persona("p.json", persona("spawning-tools")))
    (child,) = SpawningTools.children
    assert running(child)
    engine.shutdown()
    child.wait(timeout=5)  # terminated; reaped here
    warning = "\n".join(ovos_log.at("warning"))
    assert f"toolbox 'spawning-tools' left its child process {child.pid}" in warning


def test_a_toolbox_with_zero_tools_is_closed_and_its_child_stopped_at_once(ovos_log) -> None:
    engine = build_engine(Persona("p.json", persona("hanging-tools", "closing-tools")))
    assert [t.toolbox_id for t in engine.toolboxes] == ["closing-tools"]
    (child,) = SpawningTools.children
    child.wait(timeout=5)
    assert "toolbox 'hanging-tools' loaded ZERO tools" in "\n".join(ovos_log.at("warning"))


class OtherSpawningTools(SpawningTools):
    """A second toolbox that starts a child of its own."""

    def __init__(self, config: dict | None = None, bus: object = None) -> None:
        super().__init__(config, bus)
        self.toolbox_id = "other-spawning-tools"


def test_each_toolbox_is_given_its_own_children_with_one_scan_between_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ovos_agentic_loop._runtime import lifecycle as _lifecycle

    install_toolboxes(
        monkeypatch,
        {
            "closing-tools": ClosingTools,
            "spawning-tools": SpawningTools,
            "other-spawning-tools": OtherSpawningTools,
        },
    )
    scans = []
    real_child_pids = _lifecycle.child_pids
    monkeypatch.setattr(_lifecycle, "child_pids", lambda: scans.append(1) or real_child_pids())
    engine = build_engine(
        Persona("p.json", persona("spawning-tools", "closing-tools", "other-spawning-tools"))
    )
    assert len(scans) == 4  # three toolboxes: one look before the first, one after each
    first, second = SpawningTools.children
    assert [b.children for b in engine._toolboxes.built] == [
        frozenset({first.pid}),
        frozenset(),
        frozenset({second.pid}),
    ]
    engine.shutdown()
    first.wait(timeout=5)
    second.wait(timeout=5)


def test_a_refused_section_closes_what_was_built_before_it() -> None:
    from ovos_agentic_loop.errors import ConfigError

    data = persona("spawning-tools", "ovos-clock-tools")
    data["ovos-react-loop"]["ovos-clock-tools"] = {"timezone": 5}
    with pytest.raises(ConfigError):
        build_engine(Persona("p.json", data))
    (child,) = SpawningTools.children
    child.wait(timeout=5)


def test_the_cli_leaves_no_child_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ovos_agentic_loop.cli import main

    with FakeOpenAIServer() as server:
        server.replies.append(answer("It is fine."))
        path = tmp_path / "p.json"
        path.write_text(json.dumps(persona("spawning-tools", url=server.url)))
        assert main(["chat", str(path), "hi"]) == 0
    assert "It is fine." in capsys.readouterr().out
    (child,) = SpawningTools.children
    assert child.wait(timeout=1) is not None  # already stopped when main() returned


def test_an_engine_nobody_shut_down_stops_its_children_at_interpreter_exit(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import subprocess, sys
        from ovos_plugin_manager import persona as opm_persona
        from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput

        class Spawning(ToolBox):
            def __init__(self, config=None, bus=None):
                self.child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                super().__init__("spawning", config, bus)

            def discover_tools(self):
                return [AgentTool("noop", "Does nothing.", ToolArguments, ToolOutput, lambda a: ToolOutput())]

        from ovos_agentic_loop._runtime import loading as _loading
        _loading.installed_toolboxes = lambda: {"spawning": Spawning}
        from ovos_agentic_loop.personas import Persona, build_engine

        engine = build_engine(Persona("p", {"handlers": ["ovos-react-loop"],
                                            "ovos-react-loop": {"toolboxes": ["spawning"]}}))
        print("CHILD", engine.toolboxes[0].child.pid, "CHILD", flush=True)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split("CHILD")[1])
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its new parent to reap it does not)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        if stat[stat.rfind(")") + 2] == "Z":
            return False
        time.sleep(0.05)
    return True
