"""ovos-plan-execute-loop: the plan, its steps with tools, re-planning, budgets."""

from __future__ import annotations

from conftest import DemoToolBox
from loops_helpers import loop_with, system_of, user

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call


def planner(plan: str):
    def reply(call: BrainCall) -> str:
        assert "You are planning" in system_of(call), system_of(call)
        return plan

    return reply


def test_a_plan_is_run_step_by_step_with_tools_and_synthesised(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            planner("Here is the plan:\n**1.** Add 2 and 3\n2) Add 10 and 20"),
            tool_call("add", a=2, b=3),
            "The sum is 5.",
            tool_call("add", a=10, b=20),
            "The sum is 30.",
            "The sums are 5 and 30.",
        ]
    )
    engine = loop_with("ovos-plan-execute-loop", brain, [demo_tools])
    events = []
    engine.add_step_listener(events.append)

    reply = engine.continue_chat(user("Add 2+3 and 10+20"))

    assert reply.content == "The sums are 5 and 30."
    brain.assert_complete()
    assert demo_tools.calls == [("add", {"a": 2, "b": 3}), ("add", {"a": 10, "b": 20})]
    plans = [e for e in events if e.kind == "plan"]
    assert len(plans) == 1 and plans[0].steps == ["Add 2 and 3", "Add 10 and 20"] and plans[0].revision == 0
    # the second step is told what the first found; the synthesis sees both results
    assert (
        "The sum is 5." in brain.calls[3].last.content
        and "This step: Add 10 and 20" in brain.calls[3].last.content
    )
    assert "5." in brain.calls[5].last.content and "30." in brain.calls[5].last.content
    final = events[-1]
    assert final.kind == "final" and final.iterations == 6


def test_a_plan_it_cannot_read_falls_back_to_solving_the_request(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            planner("I think we should probably just add the numbers together and see what happens then."),
            tool_call("add", a=1, b=1),
            "It is 2.",
        ]
    )
    engine = loop_with("ovos-plan-execute-loop", brain, [demo_tools])
    events = []
    engine.add_step_listener(events.append)
    assert engine.continue_chat(user("1+1?")).content == "It is 2."
    brain.assert_complete()
    assert [e.steps for e in events if e.kind == "plan"] == [[]]
    assert any(e.kind == "notice" and "could not be read" in e.message for e in events)


def test_a_failed_step_makes_a_new_plan(demo_tools: DemoToolBox) -> None:
    def replanner(call: BrainCall) -> str:
        assert "A step of the plan failed" in system_of(call)
        assert "fail" in call.last.content.lower()
        return "1. Add 4 and 4"

    brain = ScriptedBrain(
        [
            planner("1. Use the fail tool\n2. Report"),
            tool_call("fail", message="denied"),
            "I could not do it, the tool failed.",
            replanner,
            tool_call("add", a=4, b=4),
            "It is 8.",
            "The answer is 8.",
        ]
    )
    engine = loop_with("ovos-plan-execute-loop", brain, [demo_tools], max_iterations=20)
    events = []
    engine.add_step_listener(events.append)
    assert engine.continue_chat(user("do it")).content == "The answer is 8."
    brain.assert_complete()
    assert [(e.steps, e.revision) for e in events if e.kind == "plan"] == [
        (["Use the fail tool", "Report"], 0),
        (["Add 4 and 4"], 1),
    ]
    results = [e for e in events if e.kind == "strategy_step" and e.phase == "step_result"]
    assert [r.data["ok"] for r in results] == [False, True]


def test_max_iterations_bounds_the_whole_turn_across_steps(demo_tools: DemoToolBox) -> None:
    # Every step keeps calling tools; the turn has 5 calls: plan + 2 steps, then one synthesis.
    brain = ScriptedBrain(
        [planner("1. a\n2. b\n3. c\n4. d")] + [tool_call("add", a=i, b=i) for i in range(20)] + ["done."] * 5
    )
    engine = loop_with("ovos-plan-execute-loop", brain, [demo_tools], max_iterations=5, max_step_iterations=3)
    reply = engine.continue_chat(user("go"))
    assert len(brain.calls) <= 5 + 1, f"{len(brain.calls)} brain calls for max_iterations=5"
    assert reply.content and "Action" not in reply.content


def test_the_synthesis_is_streamed_and_nothing_else(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            planner("1. Add 1 and 2\n2. Add 3 and 4"),
            "Step one gives 3.",
            "Step two gives 7.",
            "Three and seven.",
        ]
    )
    engine = loop_with("ovos-plan-execute-loop", brain, [demo_tools])
    assert list(engine.stream_sentences(user("sums"))) == ["Three and seven."]
    assert brain.calls[-1].streamed and not any(c.streamed for c in brain.calls[:-1])


def test_a_one_step_plan_answers_without_a_synthesis_call(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([planner("1. Add 2 and 2"), tool_call("add", a=2, b=2), "It is 4."])
    assert (
        loop_with("ovos-plan-execute-loop", brain, [demo_tools]).continue_chat(user("2+2")).content
        == "It is 4."
    )
    brain.assert_complete()
