"""ovos-self-ask-loop, ovos-chain-of-thought-loop, ovos-tree-of-thoughts-loop."""

from __future__ import annotations

from conftest import DemoToolBox
from loops_helpers import loop_with, system_of, user

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call


# -- self-ask -------------------------------------------------------------------------
def test_self_ask_answers_follow_ups_with_tools_then_streams_only_the_final_answer(
    demo_tools: DemoToolBox,
) -> None:
    def decide_again(call: BrainCall) -> str:
        assert "Intermediate answer: The sum is 5." in call.last.content
        return "So the final answer is: Five plus five is 10."

    brain = ScriptedBrain(
        [
            "Are follow up questions needed here? Yes.\nFollow up: What is 2 plus 3?",
            tool_call("add", a=2, b=3),
            "The sum is 5.",
            decide_again,
        ]
    )
    engine = loop_with("ovos-self-ask-loop", brain, [demo_tools])
    assert list(engine.stream_sentences(user("What is (2+3)+5?"))) == ["Five plus five is 10."]
    brain.assert_complete()
    assert demo_tools.calls == [("add", {"a": 2, "b": 3})]
    assert brain.calls[0].streamed and brain.calls[-1].streamed  # the decisions stream, gated


def test_self_ask_a_follow_up_before_a_guessed_answer_wins(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            "Follow up: What is 2 plus 2?\nIntermediate answer: 5\nSo the final answer is: 5",
            tool_call("add", a=2, b=2),
            "It is 4.",
            "So the final answer is: 4.",
        ]
    )
    engine = loop_with("ovos-self-ask-loop", brain, [demo_tools])
    spoken = list(engine.stream_sentences(user("2+2?")))
    assert spoken == ["4."], spoken  # the guess "5" was never spoken
    brain.assert_complete()


def test_self_ask_stops_at_max_follow_ups_and_synthesises() -> None:
    brain = ScriptedBrain(
        ["Follow up: a?", "A.", "Follow up: b?", "B.", "Follow up: c?", "From A and B: done."]
    )
    engine = loop_with("ovos-self-ask-loop", brain, max_follow_ups=2)
    assert engine.continue_chat(user("q")).content == "From A and B: done."
    brain.assert_complete()
    assert "Intermediate answer: B." in brain.calls[-1].last.content


def test_self_ask_a_repeated_follow_up_ends_the_asking() -> None:
    brain = ScriptedBrain(["Follow up: a?", "A.", "Follow up: A?", "It is A."])
    assert loop_with("ovos-self-ask-loop", brain).continue_chat(user("q")).content == "It is A."
    brain.assert_complete()


# -- chain of thought ----------------------------------------------------------------------
def test_cot_never_speaks_the_reasoning() -> None:
    brain = ScriptedBrain(["Step 1: 6 times 7.\nStep 2: that is 42.\nFinal Answer: It is 42."])
    engine = loop_with("ovos-chain-of-thought-loop", brain, system_prompt="Be brief.")
    events = []
    engine.add_step_listener(events.append)
    assert "".join(engine.stream_tokens(user("6*7?"))) == "It is 42."
    assert "Be brief." in system_of(brain.calls[0]) and "step by step" in system_of(brain.calls[0])
    reasoning = [e for e in events if e.kind == "strategy_step" and e.phase == "reasoning"]
    assert reasoning and "Step 2" in reasoning[0].text and "Final Answer" not in reasoning[0].text


def test_cot_streamed_tokens_hold_everything_before_the_marker() -> None:
    brain = ScriptedBrain(["Let me think. 6 times 7 is 42.\nFinal Answer: It is 42."])
    tokens = list(loop_with("ovos-chain-of-thought-loop", brain).stream_tokens(user("6*7?")))
    assert "".join(tokens) == "It is 42."


def test_cot_without_the_marker_asks_for_the_answer_alone() -> None:
    def state(call: BrainCall) -> str:
        assert "State only the final answer" in system_of(call)
        assert "6 times 7 is 42" in call.last.content
        return "It is 42."

    brain = ScriptedBrain(["6 times 7 is 42, so the product is 42.", state])
    assert loop_with("ovos-chain-of-thought-loop", brain).continue_chat(user("6*7?")).content == "It is 42."
    brain.assert_complete()


def test_cot_with_tools_reasons_with_them_then_states_the_answer(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            tool_call("add", a=20, b=22),
            "20 plus 22: the tool says 42. So the total is 42.",
            "The total is 42.",
        ]
    )
    engine = loop_with("ovos-chain-of-thought-loop", brain, [demo_tools])
    assert list(engine.stream_sentences(user("20+22?"))) == ["The total is 42."]
    brain.assert_complete()
    assert "step by step" in system_of(brain.calls[0])


# -- tree of thoughts -------------------------------------------------------------------------
def test_tot_keeps_the_best_scored_thoughts_and_carries_out_the_best_with_tools(
    demo_tools: DemoToolBox,
) -> None:
    def score(call: BrainCall) -> str:
        assert "Rate how much" in system_of(call)
        return "1: 2\n2: 9\n3: 5"

    def carry_out(call: BrainCall):
        assert "Use the add tool on 2 and 2" in system_of(call), "the best thought was not handed on"
        return tool_call("add", a=2, b=2)

    brain = ScriptedBrain(
        ["1. Guess five\n2. Use the add tool on 2 and 2\n3. Ask someone", score, carry_out, "It is 4."]
    )
    engine = loop_with("ovos-tree-of-thoughts-loop", brain, [demo_tools], max_depth=1, beam_width=1)
    events = []
    engine.add_step_listener(events.append)
    assert engine.continue_chat(user("2+2?")).content == "It is 4."
    brain.assert_complete()
    scores = [e for e in events if e.kind == "strategy_step" and e.phase == "scores"]
    assert scores[0].data["kept"] == ["Use the add tool on 2 and 2"]


def test_tot_is_bounded_by_breadth_depth_and_the_turn_budget() -> None:
    brain = ScriptedBrain(
        ["1. a\n2. b\n3. c\n4. d", "1: 5\n2: 4\n3: 3", "1. e\n2. f\n3. g", "1. e\n2. f\n3. g", "x"]
    )
    engine = loop_with(
        "ovos-tree-of-thoughts-loop", brain, n_branches=3, beam_width=2, max_depth=3, max_iterations=4
    )
    reply = engine.continue_chat(user("q"))
    brain.assert_complete()  # 4 budgeted calls and one to answer
    assert reply.content == "x"
    proposed = [c for c in brain.calls if "Propose 3 different" in system_of(c)]
    assert len(proposed) == 3  # the root, then one per kept branch (beam 2), then the budget was spent


def test_tot_unreadable_scores_keep_the_proposal_order() -> None:
    brain = ScriptedBrain(["1. first idea\n2. second idea", "they are all fine", "The answer."])
    engine = loop_with("ovos-tree-of-thoughts-loop", brain, n_branches=2, beam_width=1, max_depth=1)
    events = []
    engine.add_step_listener(events.append)
    assert engine.continue_chat(user("q")).content == "The answer."
    kept = [e.data["kept"] for e in events if e.kind == "strategy_step" and e.phase == "scores"]
    assert kept == [["first idea"]]


def test_self_ask_a_decision_in_neither_form_sends_the_question_to_the_tools(demo_tools: DemoToolBox) -> None:
    # Seen on the bundled model: "To calculate 37 * 43, we can use the evaluate_expression function."
    brain = ScriptedBrain(
        [
            "To add 2 and 3 we can use the add tool.",
            tool_call("add", a=2, b=3),
            "It is 5.",
            "So the final answer is: It is 5.",
        ]
    )
    engine = loop_with("ovos-self-ask-loop", brain, [demo_tools])
    assert engine.continue_chat(user("What is 2+3?")).content == "It is 5."
    brain.assert_complete()
    assert demo_tools.calls == [("add", {"a": 2, "b": 3})]
