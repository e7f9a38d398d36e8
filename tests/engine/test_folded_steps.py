"""Steps that only called tools reach the model as one reply: all their calls, then all their
results (a question of two parts answered with two calls looks as the model's template shows it,
and the bundled model answers after it instead of starting over). The turn's own record keeps
each step as it was made."""

from __future__ import annotations

from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._turn.transcript import folded_steps
from ovos_agentic_loop.testing import ScriptedBrain, tool_call, tool_calls

QUESTION = "What weekday is it today, and what is 15% of 2350?"


def _toolboxes() -> list:
    plugins = find_toolbox_plugins()
    return [plugins[name](config={}) for name in ("ovos-math-tools", "ovos-clock-tools")]


def test_two_single_calls_reach_the_model_as_one_reply_with_both_results() -> None:
    brain = ScriptedBrain(
        [
            tool_call("get_weekday", date="today"),
            tool_call("evaluate_expression", expression="15% of 2350"),
            "It is Friday, and 15% of 2350 is 352.5.",
        ]
    )
    engine = engine_with(brain, _toolboxes(), mode="native")
    answer = engine.continue_chat(user(QUESTION)).content

    assert answer == "It is Friday, and 15% of 2350 is 352.5."
    sent = brain.calls[-1].messages
    asked = next(i for i, m in enumerate(sent) if m.role == MessageRole.USER and QUESTION in m.content)
    after = sent[asked + 1 :]
    assert [m.role for m in after] == [MessageRole.ASSISTANT, MessageRole.TOOL, MessageRole.TOOL]
    assert [c.name for c in after[0].tool_calls] == ["get_weekday", "evaluate_expression"]
    assert [m.tool_call_id for m in after[1:]] == [c.id for c in after[0].tool_calls]
    assert '"352.5"' in (after[2].content or "")
    # the second model call saw the first step as it was: one call, one result
    second = brain.calls[1].messages
    assert [c.name for c in second[-2].tool_calls] == ["get_weekday"]
    brain.assert_complete()


def test_a_step_that_said_something_or_a_message_between_steps_is_not_folded() -> None:
    call = tool_call("get_weekday", date="today")
    spoken = tool_calls(("evaluate_expression", {"expression": "1+1"}), content="Let me calculate.")
    result_1 = AgentMessage(MessageRole.TOOL, "{}", tool_call_id=call.tool_calls[0].id)
    result_2 = AgentMessage(MessageRole.TOOL, "{}", tool_call_id=spoken.tool_calls[0].id)
    nudge = AgentMessage(MessageRole.USER, "Call the calculator.")
    assert folded_steps([call, result_1, spoken, result_2]) == [call, result_1, spoken, result_2]
    assert folded_steps([call, result_1, nudge, call, result_1]) == [call, result_1, nudge, call, result_1]
    other = tool_call("evaluate_expression", expression="1+1")
    result_3 = AgentMessage(MessageRole.TOOL, "{}", tool_call_id=other.tool_calls[0].id)
    folded = folded_steps([call, result_1, other, result_3])
    assert len(folded) == 3 and len(folded[0].tool_calls) == 2 and folded[1:] == [result_1, result_3]
