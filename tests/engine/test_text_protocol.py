"""The text ReAct path (brains without native tools, and mode: text), and calls written in content."""

from __future__ import annotations

import json

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop.testing import ScriptedBrain

PROTOCOL_WORDS = ("Thought", "Action", "Observation", "Final Answer", "FINAL_ANSWER", '"arguments"', "```")


def text_brain(*replies: str, **kw) -> ScriptedBrain:
    return ScriptedBrain(list(replies), supports_tools=False, **kw)


def assert_clean(answer: str) -> None:
    for word in PROTOCOL_WORDS:
        assert word not in answer, f"protocol text {word!r} reached the user: {answer!r}"


def test_compact_tool_prompt_and_stop_sequence(demo_tools: DemoToolBox) -> None:
    brain = text_brain("Final Answer: hi")
    engine = engine_with(brain, [demo_tools])

    assert engine.continue_chat(user("hello")).content == "hi"

    call = brain.calls[0]
    assert call.tools == []  # the text path never passes native tools
    system = call.messages[0]
    assert system.role == MessageRole.SYSTEM
    assert "- add: Add two integers." in system.content
    assert '"a": "integer: first number"' in system.content
    assert '"title"' not in system.content and "NumberOut" not in system.content  # no schema noise/outputs
    assert "Action Input:" in system.content
    assert call.stop is not None and any("Observation:" in s for s in call.stop)


@pytest.mark.parametrize(
    "reply",
    [
        'Thought: I need to add.\nAction: add\nAction Input: {"a": 2, "b": 40}',
        'thought : add them\n ACTION :  add \naction input:\n```json\n{"a": 2, "b": 40}\n```',
        '```json\n{"name": "add", "arguments": {"a": 2, "b": 40}}\n```',
        '{"name": "add", "arguments": {"a": 2, "b": 40}}',
        '<tool_call>\n{"name": "add", "arguments": "{\\"a\\": 2, \\"b\\": 40}"}\n</tool_call>',
        'Action: `add`\nAction Input: {"a": 2, "b": 40}\nObservation: 42\nFinal Answer: it is 42',
    ],
)
def test_call_variants_small_models_write(reply: str, demo_tools: DemoToolBox) -> None:
    brain = text_brain(reply, "FINAL_ANSWER: The sum is 42.")
    engine = engine_with(brain, [demo_tools], mode="text")

    answer = engine.continue_chat(user("2+40?")).content

    assert demo_tools.calls == [("add", {"a": 2, "b": 40})]
    assert answer == "The sum is 42."
    rendered = brain.calls[1].messages
    assert rendered[-1].role == MessageRole.USER and rendered[-1].content.startswith("Observation: ")
    assert json.loads(rendered[-1].content.removeprefix("Observation: ")) == {"value": 42.0}
    # an invented observation/answer after the action is not kept in the transcript
    assert "it is 42" not in rendered[-2].content


def test_action_and_answer_in_one_reply_runs_the_action_and_drops_the_rest(demo_tools: DemoToolBox) -> None:
    brain = text_brain(
        'Action: add\nAction Input: {"a": 1, "b": 1}\nObservation: 3\nFinal Answer: 3',
        "Final Answer: 1 + 1 = 2",
    )
    engine = engine_with(brain, [demo_tools], mode="text")
    assert engine.continue_chat(user("1+1")).content == "1 + 1 = 2"
    assert demo_tools.calls == [("add", {"a": 1, "b": 1})]


def test_unparsable_reply_gets_one_short_correction(demo_tools: DemoToolBox) -> None:
    brain = text_brain(
        "Thought: I should think about this.",
        'Action: add\nAction Input: {"a": 1, "b": oops}',
        "Final Answer: Two.",
    )
    engine = engine_with(brain, [demo_tools], mode="text", max_corrections=2)

    assert engine.continue_chat(user("1+1")).content == "Two."
    corrections = [c.last.content for c in brain.calls[1:]]
    assert all("did not follow the format" in c for c in corrections)
    assert all(len(c) < 300 for c in corrections)
    assert demo_tools.calls == []


def test_corrections_are_bounded_and_protocol_never_reaches_the_user(demo_tools: DemoToolBox) -> None:
    brain = text_brain("Thought: hmm", "Thought: still thinking", "Final Answer: ok")
    engine = engine_with(brain, [demo_tools], mode="text")  # max_corrections defaults to 1

    answer = engine.continue_chat(user("?")).content

    # one correction, then the second protocol-only reply ends in a forced answer
    assert answer == "ok"
    assert sum("did not follow the format" in c.last.content for c in brain.calls) == 1
    assert_clean(answer)


def test_plain_prose_is_the_answer(demo_tools: DemoToolBox) -> None:
    brain = text_brain("Hello! How can I help you today?")
    engine = engine_with(brain, [demo_tools], mode="text")
    assert engine.continue_chat(user("hi")).content == "Hello! How can I help you today?"


def test_brain_without_stop_parameter_is_not_sent_one(demo_tools: DemoToolBox) -> None:
    brain = text_brain("Final Answer: ok", accepts_stop=False)
    engine = engine_with(brain, [demo_tools])
    assert engine.continue_chat(user("hi")).content == "ok"
    assert brain.calls[0].stop is None


def test_auto_mode_runs_calls_written_in_content_of_a_native_brain(demo_tools: DemoToolBox) -> None:
    # llama-server with a model's stock template returns calls as JSON text, not tool_calls
    brain = ScriptedBrain(['```json\n{"name": "add", "arguments": {"a": 5, "b": 6}}\n```', "It is 11."])
    engine = engine_with(brain, [demo_tools])  # ovos-react-loop: mode auto

    assert engine.continue_chat(user("5+6")).content == "It is 11."
    assert demo_tools.calls == [("add", {"a": 5, "b": 6})]
    sent = brain.calls[1].messages
    assert sent[-2].role == MessageRole.ASSISTANT and sent[-2].tool_calls[0].name == "add"
    assert sent[-2].content == ""  # native history stays clean: no duplicated call text
    assert sent[-1].role == MessageRole.TOOL and sent[-1].tool_call_id == sent[-2].tool_calls[0].id


def test_native_engine_also_rescues_calls_in_content(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(['{"name": "add", "arguments": {"a": 1, "b": 2}}', "3"])
    engine = engine_with(brain, [demo_tools], entry_point="ovos-native-toolcall-loop")
    assert engine.continue_chat(user("1+2")).content == "3"
    assert demo_tools.calls == [("add", {"a": 1, "b": 2})]


def test_native_mode_with_a_text_only_brain_warns_and_uses_text(demo_tools: DemoToolBox, ovos_log) -> None:
    brain = text_brain('Action: add\nAction Input: {"a": 1, "b": 2}', "Final Answer: 3")
    engine = engine_with(brain, [demo_tools], entry_point="ovos-native-toolcall-loop")
    assert engine.continue_chat(user("1+2")).content == "3"
    assert any("no native tool calling" in w for w in ovos_log.at("warning"))


class SystemDroppingBrain(ScriptedBrain):
    """Like ovos-chat-openai-plugin without allow_system_prompts."""

    allow_system = False


def test_instructions_reach_a_brain_that_drops_system_messages(demo_tools: DemoToolBox, ovos_log) -> None:
    brain = SystemDroppingBrain(["Final Answer: ok"], supports_tools=False)
    engine = engine_with(brain, [demo_tools], system_prompt="You are Ada.")
    assert engine.continue_chat(user("hello")).content == "ok"
    sent = brain.calls[0].messages
    assert [m.role for m in sent] == [MessageRole.USER]
    assert sent[0].content.startswith("You are Ada.") and "Action Input:" in sent[0].content
    assert sent[0].content.endswith("hello")
    assert any("drops system messages" in w and "allow_system_prompts" in w for w in ovos_log.at("warning"))


def test_a_broken_call_never_becomes_the_answer(demo_tools: DemoToolBox) -> None:
    broken = '```json\n{"name": "add", "arguments": {"a": 1\n```'
    brain = text_brain(broken, broken, broken)
    engine = engine_with(brain, [demo_tools], mode="text")
    answer = engine.continue_chat(user("1+1")).content
    assert "sorry" in answer.lower()
    assert_clean(answer)
    assert '"name"' not in answer
