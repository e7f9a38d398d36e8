"""The conversation memory's Redis store, against a real redis-server started here: replicas share
a conversation, every key expires, a Redis that is down costs the memory and never the answer."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with
from optional_packages import need_all, require
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._memory.conversation import KEY_PREFIX, ConversationMemory
from ovos_agentic_loop._memory.stores import StoreDown
from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop.testing import ScriptedBrain, tool_call

MISSING_SERVER = (
    "needs redis-server on PATH (Debian/Ubuntu: apt-get install redis-server; scripts/bootstrap installs it)"
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A redis-server of this test alone, on a free port of 127.0.0.1, without persistence."""
    server = shutil.which("redis-server")
    if server is None:
        if need_all():
            pytest.fail(MISSING_SERVER)
        pytest.skip(MISSING_SERVER)
    redis = require("redis")
    port = _free_port()
    process = subprocess.Popen(
        [server, "--save", "", "--appendonly", "no", "--port", str(port), "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.2)
        for _ in range(200):  # ready once it answers a PING
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                if process.poll() is not None:
                    pytest.fail(f"redis-server exited with {process.returncode} before answering")
                process_wait(process, 0.05)
        else:
            pytest.fail("redis-server did not answer a PING")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def process_wait(process: subprocess.Popen[bytes], seconds: float) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=seconds)


def user(text: str) -> AgentMessage:
    return AgentMessage(MessageRole.USER, text)


def test_a_second_replica_sees_the_first_ones_turn(redis_url: str) -> None:
    redis = require("redis")
    brain = ScriptedBrain([tool_call("add", a=40, b=2), "It is 42."])
    section = {"memory": "redis", "memory_url": redis_url, "memory_max_age": 600}
    replica_a = engine_with(brain, [DemoToolBox()], **section)
    answer = replica_a.continue_chat([user("Add 40 and 2")], session_id="living-room")
    replica_a.shutdown()  # replica A is gone; the conversation goes on elsewhere

    replica_b = engine_with(brain, [DemoToolBox()], **section)
    brain.add("Half of it is 21.")
    replica_b.continue_chat(
        [user("Add 40 and 2"), answer, user("And half of that?")], session_id="living-room"
    )

    sent = brain.calls[-1].messages
    calls = [c.arguments for m in sent if m.tool_calls for c in m.tool_calls]
    results = [m.content for m in sent if m.role == MessageRole.TOOL]
    assert calls == [{"a": 40, "b": 2}]
    assert results == ['{"value": 42.0}']
    client = redis.Redis.from_url(redis_url)
    (key,) = client.keys(f"{KEY_PREFIX}*")
    assert 0 < client.pttl(key) <= 600_000  # every key expires after memory_max_age


def test_a_redis_that_is_down_costs_the_memory_not_the_answer(ovos_log) -> None:
    brain = ScriptedBrain([tool_call("add", a=1, b=2), "It is 3.", "Fine."])
    engine = engine_with(
        brain, [DemoToolBox()], memory="redis", memory_url=f"redis://127.0.0.1:{_free_port()}/0"
    )
    answer = engine.continue_chat([user("Add 1 and 2")], session_id="s")
    assert answer.content == "It is 3."
    assert (
        engine.continue_chat([user("Add 1 and 2"), answer, user("Thanks")], session_id="s").content == "Fine."
    )
    warnings = [w for w in ovos_log.at("warning") if "conversation memory unavailable" in w]
    assert len(warnings) == 1 and "127.0.0.1" in warnings[0]  # said once, not every turn


def test_without_the_redis_client_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)  # import redis now fails
    with pytest.raises(ConfigError, match=r"pip install ovos-agentic-loop\[memory-redis\]"):
        engine_with(ScriptedBrain(), memory="redis", memory_url="redis://127.0.0.1:6379/0")


def test_redis_needs_its_url() -> None:
    with pytest.raises(ConfigError, match="memory_url"):
        engine_with(ScriptedBrain(), memory="redis")


class _DownStore:
    """A store whose every request fails, counting the requests."""

    def __init__(self) -> None:
        self.asked = 0

    def get(self, key: str) -> str | None:
        self.asked += 1
        raise StoreDown("nobody home")

    def put(self, key: str, text: str, ttl: float) -> None:
        self.asked += 1
        raise StoreDown("nobody home")


def test_a_store_that_failed_is_left_alone_for_a_while() -> None:
    """A Redis host that does not answer would cost every turn its connect timeout."""
    store = _DownStore()
    memory = ConversationMemory(store, owner="o", turns=6, max_age=60)
    for _ in range(3):
        recall = memory.recall("s", [user("hi")])
        assert recall.key is None and [m.content for m in recall.messages] == ["hi"]
        memory.remember(recall, [], {}, "hello")
    assert store.asked == 1
