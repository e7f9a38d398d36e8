"""One instance, many sessions at once; step events for logs, listeners and the messagebus."""

from __future__ import annotations

import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor

from conftest import DemoToolBox
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agents import MessageRole
from ovos_utils.fakebus import FakeBus

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call


def test_concurrent_sessions_do_not_see_each_other(demo_tools: DemoToolBox) -> None:
    barrier = threading.Barrier(4, timeout=5)

    def ask_tool(call: BrainCall):
        n = int(re.search(r"\d+", call.last.content).group())
        barrier.wait()  # all four sessions are mid-turn at the same time
        return tool_call("add", a=n, b=1000)

    def answer(call: BrainCall) -> str:
        tool_results = [m for m in call.messages if m.role == MessageRole.TOOL]
        assert len(tool_results) == 1, "a session saw another session's tool results"
        return f"result {json.loads(tool_results[0].content)['value']:.0f}"

    brain = ScriptedBrain([ask_tool] * 4 + [answer] * 4)
    engine = engine_with(brain, [demo_tools])

    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(
                lambda n: engine.continue_chat(user(f"{n} + 1000"), session_id=f"s{n}").content, range(4)
            )
        )

    assert answers == [f"result {1000 + n}" for n in range(4)]


def test_step_events_reach_listeners_and_the_bus(demo_tools: DemoToolBox) -> None:
    bus = FakeBus()
    on_bus: list[dict] = []
    bus.on("ovos.agentic_loop.step", lambda m: on_bus.append(m.data))
    brain = ScriptedBrain([tool_call("add", a=1, b=2), "3"])
    from ovos_plugin_manager.agents import load_chat_plugin

    engine = load_chat_plugin("ovos-react-loop")(config={}, brain=brain, toolboxes=[demo_tools], bus=bus)
    seen = []
    engine.add_step_listener(seen.append)

    engine.continue_chat(user("1+2"), session_id="abc")

    kinds = [e.kind for e in seen]
    assert kinds == ["turn_start", "model_call", "tool_call", "tool_result", "model_call", "final"]
    assert all(e.session_id == "abc" for e in seen)
    call = seen[2].data
    assert call["name"] == "add" and call["arguments"] == {"a": 1, "b": 2} and call["owner"] == "demo-tools"
    result = seen[3].data
    assert (
        result["ok"] is True and json.loads(result["result"]) == {"value": 3.0} and result["duration_s"] >= 0
    )
    assert seen[-1].data["answer"] == "3" and seen[-1].data["iterations"] == 2
    assert [d["kind"] for d in on_bus] == kinds
    assert on_bus[0]["engine"] == "ovos-react-loop"


def test_a_failing_listener_does_not_break_the_turn(demo_tools: DemoToolBox, ovos_log) -> None:
    brain = ScriptedBrain(["fine"])
    engine = engine_with(brain, [demo_tools])

    def broken(event):
        raise ValueError("listener bug")

    engine.add_step_listener(broken)
    assert engine.continue_chat(user("hi")).content == "fine"
    assert any("listener bug" in w for w in ovos_log.at("warning"))
