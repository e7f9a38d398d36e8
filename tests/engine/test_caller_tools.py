"""The ovos-persona-server path: the caller's tools beside the persona's, run by the caller."""

from __future__ import annotations

from conftest import DemoToolBox, OtherToolBox
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def weather_tool(name: str = "get_weather") -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }


def test_engine_declares_tool_support() -> None:
    from ovos_plugin_manager.agents import load_chat_plugin

    assert load_chat_plugin("ovos-react-loop").supports_tools is True
    assert load_chat_plugin("ovos-native-toolcall-loop").supports_tools is True


def test_caller_tool_call_is_returned_to_the_caller_then_continued(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("get_weather", city="Lisbon"), "It is sunny in Lisbon."])
    engine = engine_with(brain, [demo_tools])

    reply = engine.continue_chat(user("weather in Lisbon?"), tools=[weather_tool()])

    assert brain.calls[0].tool_names[-1] == "get_weather"
    assert reply.role == MessageRole.ASSISTANT
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("get_weather", {"city": "Lisbon"})]
    assert demo_tools.calls == []

    # the caller runs it and sends the result back
    history = [
        *user("weather in Lisbon?"),
        reply,
        AgentMessage(
            MessageRole.TOOL, '{"sky": "sunny"}', tool_call_id=reply.tool_calls[0].id, name="get_weather"
        ),
    ]
    final = engine.continue_chat(history, tools=[weather_tool()])
    assert final.content == "It is sunny in Lisbon."
    assert brain.calls[1].last.content == '{"sky": "sunny"}'
    brain.assert_complete()


def test_persona_tool_wins_a_collision_with_a_caller_tool(demo_tools: DemoToolBox, ovos_log) -> None:
    brain = ScriptedBrain([tool_call("add", a=1, b=2), "3"])
    engine = engine_with(brain, [demo_tools])

    assert engine.continue_chat(user("1+2"), tools=[weather_tool("add"), weather_tool()]).content == "3"

    assert brain.calls[0].tool_names.count("add") == 1
    assert brain.calls[0].tools[0]["function"]["description"] == "Add two integers."
    assert demo_tools.calls == [("add", {"a": 1, "b": 2})]
    assert any("caller tool 'add' dropped" in w for w in ovos_log.at("warning"))


def test_caller_toolboxes_are_offered_only_when_the_persona_opts_in(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("shout", message="x")])
    engine = engine_with(brain, [demo_tools], caller_toolboxes=True)
    reply = engine.continue_chat(user("shout"), tools=OtherToolBox())
    assert "shout" in brain.calls[0].tool_names
    assert reply.tool_calls and reply.tool_calls[0].name == "shout"


def test_a_caller_toolbox_is_ignored_by_default_and_logged_once(demo_tools: DemoToolBox, ovos_log) -> None:
    brain = ScriptedBrain(["one", "two"])
    engine = engine_with(brain, [demo_tools])
    for _ in range(2):
        engine.continue_chat(user("shout"), tools=[OtherToolBox(), weather_tool()])
    for call in brain.calls:
        assert call.tool_names == ["add", "sleep", "fail", "bad_output", "get_weather"]
    ignored = [w for w in ovos_log.at("warning") if "'other-tools' passed by the caller is ignored" in w]
    assert len(ignored) == 1 and "caller_toolboxes" in ignored[0]
    brain.assert_complete()


def test_dicts_of_installed_toolboxes_the_persona_does_not_list_are_ignored(
    demo_tools: DemoToolBox, ovos_log
) -> None:
    """ovos-persona-server 0.18 adds every installed toolbox's tools, as dicts, to the request's tools."""
    from ovos_plugin_manager.persona import find_toolbox_plugins
    from ovos_plugin_manager.templates.agent_tools import ToolBox

    server_specs = ToolBox.normalize_tools([find_toolbox_plugins()["ovos-filesystem-tools"](config={})])
    qualified = weather_tool("ovos-shell-tools__run_command")  # the server's name for a collision
    brain = ScriptedBrain(["one", "two"])
    engine = engine_with(brain, [demo_tools])
    for _ in range(2):
        engine.continue_chat(user("hi"), tools=[weather_tool(), *server_specs, qualified])
    assert brain.calls[0].tool_names == ["add", "sleep", "fail", "bad_output", "get_weather"]
    read_file = [w for w in ovos_log.at("warning") if "caller tool 'read_file' is ignored" in w]
    assert len(read_file) == 1

    opted = ScriptedBrain(["three"])
    engine_with(opted, [demo_tools], caller_toolboxes=True).continue_chat(user("hi"), tools=server_specs)
    assert "read_file" in opted.calls[0].tool_names


def test_a_collision_is_logged_once_per_engine(demo_tools: DemoToolBox, ovos_log) -> None:
    brain = ScriptedBrain(["one", "two", "three"])
    engine = engine_with(brain, [demo_tools])
    for _ in range(3):
        engine.continue_chat(user("1+2"), tools=[weather_tool("add")])
    assert sum("caller tool 'add' dropped" in w for w in ovos_log.at("warning")) == 1


def test_caller_tools_in_text_mode(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(['Action: get_weather\nAction Input: {"city": "Oslo"}'], supports_tools=False)
    engine = engine_with(brain, [demo_tools])
    reply = engine.continue_chat(user("weather in Oslo?"), tools=[weather_tool()])
    assert "- get_weather: Weather for a city." in brain.calls[0].messages[0].content
    assert reply.tool_calls[0].name == "get_weather" and reply.tool_calls[0].arguments == {"city": "Oslo"}
