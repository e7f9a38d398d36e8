"""The engine loads its brain in the background from construction on, so the first
question does not pay for loading the brain plugin (and with ``ovos-openai-brain`` the ``openai``
import), however long after construction it comes.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop import AgentLoopEngine
from ovos_agentic_loop.brain import BrainUnavailable, OpenAIBrain
from ovos_agentic_loop.errors import BrainConfigError
from ovos_agentic_loop.testing import ScriptedBrain


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def _engine(section: dict[str, object]) -> object:
    config = {"brain": "ovos-openai-brain", "ovos-openai-brain": section}
    return load_chat_plugin("ovos-react-loop")(config=config)


def _wait_for(condition: object, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_the_brain_loads_without_being_asked_and_a_down_server_still_fails_the_turn() -> None:
    url = _closed_port_url()
    engine = _engine({"api_url": url, "max_retries": 0})
    assert _wait_for(lambda: engine._brains.current is not None)  # nobody touched engine.brain
    brain = engine._brains.loaded().engine
    assert isinstance(brain, OpenAIBrain) and brain.settings.api_url == url
    assert _wait_for(lambda: brain._client is not None)  # its client is built in the background too
    with pytest.raises(BrainUnavailable, match="Cannot reach the model server"):
        engine.continue_chat([AgentMessage(role=MessageRole.USER, content="hi")])
    assert engine.brain is brain  # loaded once


def test_a_brain_that_cannot_be_built_fails_at_first_use_as_before() -> None:
    engine = _engine({"timeout": "sixty"})  # refused by the brain's strict config
    with pytest.raises(BrainConfigError, match="timeout"):
        _ = engine.brain


def test_constructing_many_engines_leaves_no_threads_behind() -> None:
    url = _closed_port_url()
    _engine({"api_url": url})  # the pool's workers and the openai import exist from here on
    time.sleep(0.5)
    before = threading.active_count()
    engines = [_engine({"api_url": url}) for _ in range(20)]
    assert _wait_for(lambda: all(e._brains.current is not None for e in engines))
    assert _wait_for(lambda: not any(t.name == "openai-brain-warm-up" for t in threading.enumerate()))
    assert threading.active_count() <= before + 2  # idle pool workers at most, no thread per engine


def test_engine_brain_returns_a_brain_ready_for_its_first_request() -> None:
    # A fresh interpreter, where ``import openai`` takes a while: ``engine.brain`` (what a host reads
    # as "ready") waits for the client, so the first question does not wait for the import instead.
    code = (
        "import sys\n"
        "from ovos_plugin_manager.agents import load_chat_plugin\n"
        "config = {'brain': 'ovos-openai-brain', 'ovos-openai-brain': {'api_url': 'http://127.0.0.1:1/v1'}}\n"
        "brain = load_chat_plugin('ovos-react-loop')(config=config).brain\n"
        "assert brain._client is not None, 'engine.brain returned before the client was built'\n"
        "assert 'openai' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


class _PreparedBrain(ScriptedBrain):
    """A brain that defers work to ``prepare()``, which the engine calls once before using it."""

    def __init__(self) -> None:
        super().__init__(["ready."])
        self.prepared = 0

    def prepare(self) -> None:
        self.prepared += 1


def test_a_brain_with_prepare_is_prepared_once_before_its_first_turn() -> None:
    brain = _PreparedBrain()
    engine = AgentLoopEngine(config={}, brain=brain, toolboxes=[])
    assert engine.continue_chat([AgentMessage(role=MessageRole.USER, content="hi")]).content == "ready."
    _ = engine.brain
    assert brain.prepared == 1


class _FailingPrepareBrain(ScriptedBrain):
    def prepare(self) -> None:
        raise RuntimeError("no client today")


def test_a_brain_whose_prepare_fails_is_reported_and_still_asked(ovos_log) -> None:
    # The error belongs to the brain's own request (where ovos-openai-brain reports it as a brain
    # error), not to the engine: the turn goes on, and the failure is logged by name.
    engine = AgentLoopEngine(config={}, brain=_FailingPrepareBrain(["still here."]), toolboxes=[])
    assert engine.continue_chat([AgentMessage(role=MessageRole.USER, content="hi")]).content == "still here."
    warning = "\n".join(ovos_log.at("warning"))
    assert "preparing brain '_FailingPrepareBrain' failed (RuntimeError: no client today)" in warning
