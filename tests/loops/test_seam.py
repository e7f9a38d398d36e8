"""The strategy seam: pinned public names, text-protocol brains, sub-runs inside one turn."""

from __future__ import annotations

from conftest import DemoToolBox
from loops_helpers import LOOPS, loop_with, oracle, user

import ovos_agentic_loop.loops as loops
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call


def test_the_loops_package_exports_only_its_engines() -> None:
    assert loops.__all__ == [
        "ChainOfThoughtLoopEngine",
        "CriticLoopEngine",
        "PlanExecuteLoopEngine",
        "ReflexionLoopEngine",
        "SelfAskLoopEngine",
        "StrategyLoopEngine",
        "TreeOfThoughtsLoopEngine",
    ]


def test_sub_runs_use_the_text_protocol_for_a_brain_without_native_tools(demo_tools: DemoToolBox) -> None:
    def act(call: BrainCall) -> str:
        assert not call.tools and "Action Input" in call.messages[0].content
        return 'Action: add\nAction Input: {"a": 40, "b": 2}'

    def observe(call: BrainCall) -> str:
        assert "Observation:" in call.last.content
        return "Final Answer: It is 42."

    brain = ScriptedBrain([act, observe, "SATISFACTORY"], supports_tools=False)
    engine = loop_with("ovos-reflexion-loop", brain, [demo_tools], max_reflections=2)
    assert engine.continue_chat(user("40+2")).content == "It is 42."
    assert demo_tools.calls == [("add", {"a": 40, "b": 2})]


def test_one_turn_one_start_one_final_and_model_calls_numbered_across_sub_runs(
    demo_tools: DemoToolBox,
) -> None:
    brain = ScriptedBrain(
        [
            "1. add\n2. add again",
            tool_call("add", a=1, b=1),
            "2.",
            tool_call("add", a=2, b=2),
            "4.",
            "2 and 4.",
        ]
    )
    engine = loop_with("ovos-plan-execute-loop", brain, [demo_tools])
    events = []
    engine.add_step_listener(events.append)
    engine.continue_chat(user("sums"), session_id="s9")
    kinds = [e.kind for e in events]
    assert kinds.count("turn_start") == 1 and kinds.count("final") == 1 and kinds[-1] == "final"
    assert events[0].data["loop"] == "plan-execute"
    assert [e.iteration for e in events if e.kind == "model_call"] == [1, 2, 3, 4, 5, 6]
    assert {e.session_id for e in events} == {"s9"}


def test_earlier_turns_of_the_conversation_reach_every_sub_step() -> None:
    from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

    history = [
        AgentMessage(MessageRole.USER, "My name is Ada."),
        AgentMessage(MessageRole.ASSISTANT, "Hello Ada."),
        AgentMessage(MessageRole.USER, "What is my name?"),
    ]
    for name in LOOPS:
        brain = ScriptedBrain([oracle] * 30)
        loop_with(name, brain).continue_chat(history)
        assert any("My name is Ada." in (m.content or "") for c in brain.calls for m in c.messages), name
