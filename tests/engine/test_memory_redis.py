"""The conversation memory's Redis store, against a real redis-server (the ``redis_url`` fixture of
``tests/redis_server.py``): replicas share a conversation, every key expires, a Redis that is down
costs the memory and never the answer."""

from __future__ import annotations

import sys

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with
from optional_packages import require
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole
from redis_server import free_port

from ovos_agentic_loop._memory.conversation import KEY_PREFIX, ConversationMemory
from ovos_agentic_loop._memory.stores import StoreDown
from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


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
        brain, [DemoToolBox()], memory="redis", memory_url=f"redis://127.0.0.1:{free_port()}/0"
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
