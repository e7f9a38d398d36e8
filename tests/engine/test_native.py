"""The native path: merged tools offered once, calls routed, TOOL messages answered as JSON."""

from __future__ import annotations

import json

from conftest import DemoToolBox, OtherToolBox
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._tools.toolset import slim_schema
from ovos_agentic_loop.testing import ScriptedBrain, tool_call, tool_calls


def test_tool_call_is_run_and_answered_with_a_json_tool_message(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=2, b=3), "2 plus 3 is 5."])
    engine = engine_with(brain, [demo_tools])

    answer = engine.continue_chat(user("what is 2+3?"))

    assert answer.role == MessageRole.ASSISTANT
    assert answer.content == "2 plus 3 is 5."
    assert demo_tools.calls == [("add", {"a": 2, "b": 3})]
    second = brain.calls[1].messages
    assistant, tool = second[-2], second[-1]
    assert assistant.role == MessageRole.ASSISTANT and assistant.tool_calls[0].name == "add"
    assert tool.role == MessageRole.TOOL
    assert tool.tool_call_id == assistant.tool_calls[0].id
    assert tool.name == "add"
    assert json.loads(tool.content) == {"value": 5.0}  # JSON, not a Python repr
    brain.assert_complete()


def test_merged_tools_are_offered_as_one_openai_list(demo_tools: DemoToolBox, ovos_log) -> None:
    other = OtherToolBox()
    brain = ScriptedBrain(["hello"])
    engine = engine_with(brain, [demo_tools, other])

    engine.continue_chat(user("hi"))

    offered = brain.calls[0].tools
    converted = ToolBox.tools_to_openai_spec([*demo_tools.tool_json_list, other.tool_json_list[1]])
    assert offered == [
        {**spec, "function": {**spec["function"], "parameters": slim_schema(spec["function"]["parameters"])}}
        for spec in converted
    ]
    assert brain.calls[0].tool_names == ["add", "sleep", "fail", "bad_output", "shout"]
    # the collision is logged with both toolbox ids; the first toolbox wins
    assert "'add' of toolbox 'other-tools' is ignored" in ovos_log.text
    assert "'demo-tools' already provides it" in ovos_log.text


def test_collision_routes_to_the_first_toolbox(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=1, b=1), tool_call("shout", message="hey"), "done"])
    engine = engine_with(brain, [demo_tools, OtherToolBox()])

    engine.continue_chat(user("go"))

    assert json.loads(brain.calls[1].last.content) == {"value": 2.0}  # not OtherToolBox's -1
    assert json.loads(brain.calls[2].last.content) == {"text": "HEY"}


def test_several_calls_in_one_reply_keep_call_order(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [tool_calls(("sleep", {"seconds": 0.3, "label": "slow"}), ("add", {"a": 1, "b": 2})), "ok"]
    )
    engine = engine_with(brain, [demo_tools])

    engine.continue_chat(user("go, 0.3 seconds each"))

    tool_messages = [m for m in brain.calls[1].messages if m.role == MessageRole.TOOL]
    assert [m.name for m in tool_messages] == ["sleep", "add"]
    assert json.loads(tool_messages[0].content)["label"] == "slow"


def test_system_prompt_is_combined_once_with_the_persona_instructions(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(["fine", "fine again"])
    engine = engine_with(brain, [demo_tools], system_prompt="You are Ada, a terse assistant.")
    from ovos_plugin_manager.templates.agents import AgentMessage

    engine.continue_chat(user("hi"))
    engine.continue_chat([AgentMessage(MessageRole.SYSTEM, "You are Ada, a terse assistant."), *user("hi")])

    for call in brain.calls:
        systems = [m for m in call.messages if m.role == MessageRole.SYSTEM]
        assert len(systems) == 1
        assert call.messages[0] is not None and call.messages[0].role == MessageRole.SYSTEM
        assert systems[0].content.count("You are Ada, a terse assistant.") == 1


def test_no_tools_means_no_tools_argument(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(["hello"])
    engine = engine_with(brain, [])
    assert engine.continue_chat(user("hi")).content == "hello"
    assert brain.calls[0].tools == []
    assert all(m.role != MessageRole.SYSTEM for m in brain.calls[0].messages)


def test_slim_schema_drops_noise_and_keeps_meaning() -> None:
    schema = {
        "title": "Args",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string", "description": "a real argument named title"},
            "zone": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Zone"},
            "count": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 3},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        },
        "required": ["title"],
    }
    assert slim_schema(schema) == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "a real argument named title"},
            "zone": {"type": "string"},
            "count": {"type": "integer", "default": 3},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        },
        "required": ["title"],
    }
