"""ovos-reflexion-loop and ovos-critic-loop: judged answers, bounded rounds, lessons carried over."""

from __future__ import annotations

from conftest import DemoToolBox
from loops_helpers import loop_with, system_of, user

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call


def judge(verdict: str):
    def reply(call: BrainCall) -> str:
        assert "SATISFACTORY" in system_of(call)
        return verdict

    return reply


def test_reflexion_retries_with_the_lesson_and_keeps_the_accepted_answer(demo_tools: DemoToolBox) -> None:
    def second_attempt(call: BrainCall):
        assert "Use the add tool instead of guessing" in system_of(call), "the lesson did not reach attempt 2"
        return tool_call("add", a=19, b=23)

    brain = ScriptedBrain(
        [
            "It is about 40.",
            judge("UNSATISFACTORY\nUse the add tool instead of guessing."),
            second_attempt,
            "It is 42.",
            judge("SATISFACTORY"),
        ]
    )
    engine = loop_with("ovos-reflexion-loop", brain, [demo_tools], max_reflections=3)
    events = []
    engine.add_step_listener(events.append)
    assert engine.continue_chat(user("19+23?")).content == "It is 42."
    brain.assert_complete()
    phases = [e.phase for e in events if e.kind == "strategy_step"]
    assert phases == ["sub_answer", "evaluation", "reflection", "sub_answer", "evaluation"]


def test_reflexion_that_is_never_satisfied_stops_after_its_rounds() -> None:
    brain = ScriptedBrain(["Answer one.", judge("UNSATISFACTORY\nTry harder."), "Answer two."])
    reply = loop_with("ovos-reflexion-loop", brain, max_reflections=2).continue_chat(user("q"))
    assert reply.content == "Answer two."  # the last attempt is not judged: no retry would follow
    brain.assert_complete()


def test_reflexion_reads_unsatisfactory_as_a_rejection_not_as_satisfactory() -> None:
    brain = ScriptedBrain(["A.", judge("**Unsatisfactory** - it is incomplete."), "B."])
    assert loop_with("ovos-reflexion-loop", brain, max_reflections=2).continue_chat(user("q")).content == "B."
    brain.assert_complete()


def test_critic_that_never_converges_is_bounded(demo_tools: DemoToolBox) -> None:
    def critique(call: BrainCall) -> str:
        assert "VERIFIED" in system_of(call)
        return "- the number may be wrong"

    rounds = 2
    replies: list = ["Draft 0."]
    for i in range(rounds):  # each revision differs from the last: only max_critique_rounds stops it
        replies += [critique, tool_call("add", a=1, b=1), "It is 2.", f"Revision {i}."]
    brain = ScriptedBrain(replies)
    engine = loop_with("ovos-critic-loop", brain, [demo_tools], max_critique_rounds=rounds, max_iterations=30)
    events = []
    engine.add_step_listener(events.append)
    reply = engine.continue_chat(user("1+1"))
    brain.assert_complete()
    assert reply.content.startswith("Revision")
    assert len([e for e in events if e.kind == "strategy_step" and e.phase == "critique"]) == rounds
    assert demo_tools.calls == [("add", {"a": 1, "b": 1})] * rounds


def test_critic_stops_when_verified_and_the_critic_sees_the_tool_results(demo_tools: DemoToolBox) -> None:
    def critique(call: BrainCall) -> str:
        assert "add(" in call.last.content and "5" in call.last.content, "the critic did not see the evidence"
        return "VERIFIED"

    brain = ScriptedBrain([tool_call("add", a=2, b=3), "It is 5.", critique])
    assert loop_with("ovos-critic-loop", brain, [demo_tools]).continue_chat(user("2+3")).content == "It is 5."
    brain.assert_complete()


def test_critic_without_tool_verification_revises_from_the_critique_alone() -> None:
    brain = ScriptedBrain(["Paris is in Spain.", "- Paris is in France", "Paris is in France.", "VERIFIED"])
    engine = loop_with("ovos-critic-loop", brain, verify_with_tools=False)
    assert engine.continue_chat(user("Where is Paris?")).content == "Paris is in France."
    brain.assert_complete()


def test_critic_stops_when_a_revision_changes_nothing() -> None:
    brain = ScriptedBrain(["It is 5.", "- check it", "It is 5."])
    assert (
        loop_with("ovos-critic-loop", brain, max_critique_rounds=4).continue_chat(user("q")).content
        == "It is 5."
    )
    brain.assert_complete()
