"""Budgets of the whole turn: time and model calls, across every sub-step of every loop."""

from __future__ import annotations

import time

import pytest
from conftest import DemoToolBox
from loops_helpers import LOOPS, loop_with, oracle, user

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call


@pytest.mark.parametrize("name", LOOPS)
def test_time_budget_ends_the_whole_turn(name: str) -> None:
    def slow(call: BrainCall) -> str:
        time.sleep(0.4)
        return oracle(call)

    brain = ScriptedBrain([slow] * 30)
    engine = loop_with(name, brain, time_budget=0.5)
    events = []
    engine.add_step_listener(events.append)
    reply = engine.continue_chat(user("alpha?"))
    assert len(brain.calls) <= 2  # each call takes 0.4 s: a third could only start past the budget
    final = events[-1]
    assert final.kind == "final"
    if final.reason == "time_budget":
        assert "time limit" in reply.content


@pytest.mark.parametrize("name", LOOPS)
def test_max_iterations_bounds_every_model_call_of_the_turn(name: str, demo_tools: DemoToolBox) -> None:
    # A model that never stops calling tools and never agrees: every loop must still end.
    def stubborn(call: BrainCall):
        if call.tools:
            return tool_call("add", a=len(call.messages), b=1)
        return oracle(call).replace("SATISFACTORY", "UNSATISFACTORY").replace("VERIFIED", "- wrong")

    brain = ScriptedBrain([stubborn] * 40)
    engine = loop_with(name, brain, [demo_tools], max_iterations=4)
    events = []
    engine.add_step_listener(events.append)
    reply = engine.continue_chat(user("alpha?"))
    assert reply.content
    assert len(brain.calls) <= 4 + 1, f"{name}: {len(brain.calls)} model calls with max_iterations=4"
    assert [e.kind for e in events].count("final") == 1 and events[-1].kind == "final"
    assert [e.kind for e in events].count("turn_start") == 1
