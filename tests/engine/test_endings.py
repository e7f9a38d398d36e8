"""How a turn ends: iteration limit, repetition, time budget, empty replies, brain failures."""

from __future__ import annotations

import threading

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._turn.endings import plain_result
from ovos_agentic_loop._turn.reading import EMPTY_REPLY, REPEATED_RESULT
from ovos_agentic_loop.errors import BrainError
from ovos_agentic_loop.events import ToolResult
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call


def test_max_iterations_ends_with_one_call_without_tools(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=i, b=1) for i in range(3)] + ["Best answer: 3."])
    engine = engine_with(brain, [demo_tools], max_iterations=3)

    assert engine.continue_chat(user("count")).content == "Best answer: 3."
    assert len(brain.calls) == 4
    assert brain.calls[-1].tools == []
    assert "Do not call any tool now" in brain.calls[-1].last.content
    brain.assert_complete()


def test_forced_answer_that_is_still_a_call_becomes_a_clear_sentence(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=1, b=1), '{"name": "add", "arguments": {"a": 1, "b": 1}}'])
    engine = engine_with(brain, [demo_tools], max_iterations=1)
    answer = engine.continue_chat(user("?")).content
    # the loop says the result the model could not state (a grounded answer)
    assert answer == "I'm sorry, I could not finish that within 1 steps. The result is 2.0."


def test_asking_again_for_the_result_just_given_goes_to_the_answer(demo_tools: DemoToolBox) -> None:
    """Spoken suite, tune half: told "you have this result", the model asked a third time in
    6 of 6 turns; the first repeat of the results it just got now goes to the answer."""
    same = tool_call("add", a=1, b=2)
    brain = ScriptedBrain([same, same, "It is 3."])
    engine = engine_with(brain, [demo_tools])

    assert engine.continue_chat(user("1+2")).content == "It is 3."
    assert len(demo_tools.calls) == 1  # a repeat of a call that succeeded is never run
    assert brain.calls[-1].tools == []  # the final call offers no tools
    assert "Do not call any tool now" in brain.calls[-1].last.content
    brain.assert_complete()


def test_asking_again_for_an_earlier_result_gets_a_reminder_then_ends_the_tool_steps(
    demo_tools: DemoToolBox,
) -> None:
    first, second = tool_call("add", a=1, b=2), tool_call("add", a=3, b=4)
    brain = ScriptedBrain([first, second, first, first, "3 and 7."])
    engine = engine_with(brain, [demo_tools])

    assert engine.continue_chat(user("1+2, 3+4")).content == "3 and 7."
    assert len(demo_tools.calls) == 2
    assert "Not run again: this exact call already succeeded" in brain.calls[3].last.content
    assert brain.calls[-1].tools == []  # asked again after the reminder: the forced answer
    brain.assert_complete()


def test_after_a_reminder_the_model_may_go_on_with_other_tools(demo_tools: DemoToolBox) -> None:
    first, second = tool_call("add", a=1, b=2), tool_call("add", a=3, b=4)
    brain = ScriptedBrain([first, second, first, tool_call("add", a=5, b=6), "3, 7 and 11."])
    assert engine_with(brain, [demo_tools]).continue_chat(user("1+2, 3+4, 5+6")).content == "3, 7 and 11."
    assert demo_tools.calls == [
        ("add", {"a": 1, "b": 2}),
        ("add", {"a": 3, "b": 4}),
        ("add", {"a": 5, "b": 6}),
    ]
    assert brain.calls[-1].tools  # an ordinary answer, not a forced one


def test_a_repeat_beside_a_new_call_runs_the_new_one(demo_tools: DemoToolBox) -> None:
    from ovos_agentic_loop.testing import tool_calls

    brain = ScriptedBrain(
        [
            tool_call("add", a=1, b=2),
            tool_calls(("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})),
            "3 and 7.",
        ]
    )
    assert engine_with(brain, [demo_tools]).continue_chat(user("1+2, 3+4")).content == "3 and 7."
    assert ("add", {"a": 3, "b": 4}) in demo_tools.calls


def test_repeating_a_failing_call_is_pointed_out_then_ends_the_turn(demo_tools: DemoToolBox) -> None:
    same = [tool_call("fail", message="nope") for _ in range(3)]
    brain = ScriptedBrain([*same, "It failed."])
    engine = engine_with(brain, [demo_tools])

    assert engine.continue_chat(user("?")).content == "It failed."
    assert "this exact call failed before" in brain.calls[2].last.content
    assert len(brain.calls) == 4  # the third identical call is not run; the last offers no tools
    assert brain.calls[-1].tools == []


def test_repeating_a_failed_call_is_told_to_change_it_not_to_use_its_result(demo_tools: DemoToolBox) -> None:
    same = [tool_call("fail", message="no such file") for _ in range(2)]
    brain = ScriptedBrain([*same, "It failed."])
    engine_with(brain, [demo_tools]).continue_chat(user("?"))
    note = brain.calls[2].last.content
    assert "this exact call failed before; change its arguments" in note
    assert "use this result" not in note


def test_empty_reply_never_gives_an_empty_answer(demo_tools: DemoToolBox) -> None:
    # asked again once (with tools), then once without tools, then the turn says it has no answer
    brain = ScriptedBrain(["", "   ", ""])
    engine = engine_with(brain, [demo_tools])
    answer = engine.continue_chat(user("?")).content
    assert answer.strip()
    assert "sorry" in answer.lower()
    brain.assert_complete()


def test_an_empty_reply_after_a_result_gets_the_result_quoted(demo_tools: DemoToolBox) -> None:
    # right after a tool result the bundled model wrote nothing; told its reply was empty, it
    # announced the call it had just made
    brain = ScriptedBrain([tool_call("add", a=2, b=3), "", "2 plus 3 is 5."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert brain.calls[2].last.content.startswith(
        "Your reply does not say what the result is. The result was: 5.0"
    )
    brain.assert_complete()


def test_an_empty_reply_after_an_error_is_asked_again_with_tools(demo_tools: DemoToolBox) -> None:
    # the bundled model, given a calculator error and then asked for an answer without tools,
    # worked the sum out in its head; asked again with tools, it can still make the call
    brain = ScriptedBrain([tool_call("add", a=2), "", tool_call("add", a=2, b=3), "2 plus 3 is 5."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert brain.calls[2].last.content == EMPTY_REPLY and brain.calls[2].tools  # tools still offered
    brain.assert_complete()


def test_time_budget_bounds_a_hanging_brain(demo_tools: DemoToolBox) -> None:
    release = threading.Event()

    def hang(call: BrainCall) -> str:
        release.wait(10)
        return "too late"

    brain = ScriptedBrain([hang])
    engine = engine_with(brain, [demo_tools], time_budget=0.5)
    answer = engine.continue_chat(user("?")).content
    stopped_waiting = not release.is_set()  # the turn ended while the brain still hung
    release.set()
    assert stopped_waiting
    assert answer == "I'm sorry, that took longer than my time limit of 0.5 seconds."


def test_time_budget_caps_tool_timeouts_and_says_which_limit_fired(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("sleep", seconds=3)])
    engine = engine_with(brain, [demo_tools], time_budget=0.6, tool_timeout=30)
    results: list[ToolResult] = []
    engine.add_step_listener(lambda event: results.append(event) if isinstance(event, ToolResult) else None)
    answer = engine.continue_chat(user("?")).content
    assert answer == "I'm sorry, that took longer than my time limit of 0.6 seconds."
    [result] = results
    assert result.error is not None
    assert "the turn's time_budget" in result.error and "tool_timeout" not in result.error


def test_brain_failure_raises_a_clear_error(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([ConnectionError("connection refused")])
    engine = engine_with(brain, [demo_tools])
    with pytest.raises(BrainError, match="brain 'ScriptedBrain' failed: ConnectionError: connection refused"):
        engine.continue_chat(user("?"))


def test_brain_error_of_the_brain_itself_passes_through(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([BrainError("server at http://127.0.0.1:1/v1 is down; start it with ...")])
    engine = engine_with(brain, [demo_tools])
    with pytest.raises(BrainError, match="start it with"):
        engine.continue_chat(user("?"))


def test_caller_history_with_tool_results_continues(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(["The weather is sunny."])
    engine = engine_with(brain, [demo_tools])
    history = [
        *user("weather?"),
        AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[tool_call("get_weather").tool_calls[0]]),
        AgentMessage(MessageRole.TOOL, '{"sky": "sunny"}', tool_call_id="x", name="get_weather"),
    ]
    assert engine.continue_chat(history).content == "The weather is sunny."


def test_warm_up_sends_the_system_prompt_and_tools_once_in_the_background(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(["OK", "hello"])
    engine = engine_with(brain, [demo_tools], warm_up=True, system_prompt="You are Ada.")
    assert engine.warmed_up.wait(5)
    warm = brain.calls[0]
    assert warm.session_id == "warm-up"
    assert warm.tool_names == ["add", "sleep", "fail", "bad_output"]
    assert warm.messages[0].content.startswith("You are Ada.")
    assert demo_tools.calls == []
    # the real turn starts with the same prefix (what a server's prompt cache reuses)
    assert engine.continue_chat(user("hi")).content == "hello"
    assert brain.calls[1].messages[0] == warm.messages[0] and brain.calls[1].tools == warm.tools


def test_warm_up_failure_is_a_warning_not_a_crash(demo_tools: DemoToolBox, ovos_log) -> None:
    brain = ScriptedBrain([ConnectionError("refused")])
    engine = engine_with(brain, [demo_tools], warm_up=True)
    assert engine.warmed_up.wait(5)
    assert any("warm-up failed" in w and "refused" in w for w in ovos_log.at("warning"))


def test_a_tool_call_the_server_could_not_read_gets_a_correction(demo_tools: DemoToolBox) -> None:
    from ovos_agentic_loop.errors import BrainReplyInvalid

    unreadable = BrainReplyInvalid("HTTP 500: Failed to parse tool call arguments as JSON")
    brain = ScriptedBrain([unreadable, tool_call("add", a=1, b=2), "3"])
    engine = engine_with(brain, [demo_tools])
    assert engine.continue_chat(user("1+2")).content == "3"
    assert "could not be read" in brain.calls[1].last.content
    assert demo_tools.calls == [("add", {"a": 1, "b": 2})]


def test_unreadable_calls_past_the_bound_end_in_a_forced_answer(demo_tools: DemoToolBox) -> None:
    from ovos_agentic_loop.errors import BrainReplyInvalid

    unreadable = BrainReplyInvalid("HTTP 500: Failed to parse tool call arguments as JSON")
    brain = ScriptedBrain([unreadable, unreadable, "My best answer."])
    engine = engine_with(brain, [demo_tools])
    assert engine.continue_chat(user("?")).content == "My best answer."
    assert brain.calls[-1].tools == []


def test_forced_answer_sees_tool_results_as_a_note_not_as_call_history(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([*[tool_call("add", a=1, b=2) for _ in range(2)], "It is 3."])
    engine = engine_with(brain, [demo_tools], system_prompt="You are Ada.")

    assert engine.continue_chat(user("1+2")).content == "It is 3."

    last = brain.calls[-1].messages
    assert [m.role for m in last] == [MessageRole.SYSTEM, MessageRole.USER, MessageRole.USER]
    assert last[0].content == "You are Ada."  # the persona, without the tool guidance
    assert last[1].content == "1+2"
    note = last[2].content
    assert note.count('- add({"a": 1, "b": 2}) returned: {"value": 3.0}') == 1  # the repeated call once
    assert "Do not call any tool now" in note
    assert not any(m.tool_calls for m in last)


def test_a_reply_that_only_invents_a_result_is_told_so(demo_tools: DemoToolBox) -> None:
    # told its reply was empty, the bundled model asked what results were meant
    echo = '<tool_response>\n{"value": 5.0}\n</tool_response>'
    brain = ScriptedBrain([echo, "2 plus 3 is 5."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert brain.calls[1].last.content == REPEATED_RESULT
    brain.assert_complete()
    # right after a real result, the real result is quoted instead
    brain = ScriptedBrain([tool_call("add", a=2, b=3), echo, "2 plus 3 is 5."])
    assert engine_with(brain, [demo_tools]).continue_chat(user("2 + 3?")).content == "2 plus 3 is 5."
    assert "The result was: 5.0" in brain.calls[2].last.content


def test_one_call_written_twice_in_a_reply_runs_once(demo_tools: DemoToolBox) -> None:
    twice = '<tool_call>add(a=2, b=3)</tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}'
    brain = ScriptedBrain([twice, "2 plus 3 is 5."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    results = [m for m in brain.calls[1].messages if m.role == MessageRole.TOOL]
    assert len(results) == 1 and "note" not in results[0].content.lower()


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("de-DE", "Das Ergebnis ist 2.0."),
        ("pt-PT", "O resultado é 2.0."),
        ("es", "El resultado es 2.0."),
        ("fr-FR", "The result is 2.0."),
    ],
)
def test_the_result_the_loop_says_itself_is_in_the_sessions_language(lang: str, said: str) -> None:
    assert plain_result(["2.0"], lang) == said
