"""Per-turn tool selection: what a turn offers, through ``continue_chat`` and the selector.

A persona with more tools than ``select_above`` offers ``find_tools``, its ``always_offered_tools``
and a shortlist ranked for the question; one at or under it sends the requests it always sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall
from pydantic import Field

from ovos_agentic_loop._tools.selection import FIND_TOOLS, ToolIndex, selects, shortlist
from ovos_agentic_loop._tools.toolset import PersonaTools
from ovos_agentic_loop.config import parse_config
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call

pytest.importorskip("bm25s", reason="tool selection ranks with bm25s")


class TargetArgs(ToolArguments):
    target: str = Field(default="", description="what the action applies to")


class Done(ToolOutput):
    done: str


#: A home-automation catalog: real-looking names and descriptions, each tool answers "<name> done".
HOME = [
    ("turn_on_light", "Turn on a light in a room."),
    ("turn_off_light", "Turn off a light in a room."),
    ("set_thermostat_temperature", "Set the heating thermostat to a target temperature."),
    ("lock_door", "Lock the front door or another smart lock."),
    ("unlock_door", "Unlock a smart lock."),
    ("open_cover", "Open the blinds or the shutters."),
    ("close_cover", "Close the blinds or the shutters."),
    ("play_media", "Play music, a playlist or the radio on a speaker."),
    ("media_pause", "Pause the music on a speaker."),
    ("set_volume", "Set a speaker's volume."),
    ("start_vacuum", "Start the robot vacuum cleaner."),
    ("activate_scene", "Activate a scene such as movie night."),
    ("set_irrigation_zone", "Water a garden irrigation zone for some minutes."),
    ("get_energy_usage", "Get the house's electricity use in kWh."),
    ("send_notification", "Send a push notification to the phones."),
    ("add_to_shopping_list", "Add an item to the shopping list."),
    ("get_calendar_events", "List the household calendar's events."),
    ("arm_alarm", "Arm the alarm system."),
    ("get_presence", "Tell who is home."),
    ("start_timer_helper", "Start a kitchen timer helper."),
]


class HomeToolBox(ToolBox):
    def __init__(self, tools: list[tuple[str, str]] | None = None) -> None:
        self.catalog = HOME if tools is None else tools
        self.calls: list[str] = []
        super().__init__("home-tools", {}, None)

    def _runner(self, name: str) -> Any:
        def run(args: TargetArgs) -> Done:
            self.calls.append(name)
            return Done(done=f"{name} done")

        return run

    def discover_tools(self) -> list[AgentTool]:
        return [AgentTool(n, d, TargetArgs, Done, self._runner(n)) for n, d in self.catalog]


def request(call: BrainCall) -> str:
    """One model request as the brain got it: messages and tools, as text to compare byte for byte."""
    messages = [(m.role.value, m.content, m.name, m.tool_call_id) for m in call.messages]
    return json.dumps({"messages": messages, "tools": call.tools, "stop": call.stop}, sort_keys=True)


def selecting(brain: ScriptedBrain, **config: Any) -> Any:
    """An engine with the demo tools (add first) and the home catalog: 24 tools, over the default 20."""
    return engine_with(brain, [DemoToolBox(), HomeToolBox()], **config)


# -- the selector ----------------------------------------------------------------------------------


def home_toolset() -> Any:
    return PersonaTools([DemoToolBox(), HomeToolBox()], engine_name="t").current()


def config(**keys: Any) -> Any:
    return parse_config(keys, engine_name="t")


def test_the_ranking_puts_the_tools_a_question_names_first() -> None:
    toolset = home_toolset()
    index = ToolIndex.of(toolset.tools)
    ranked = index.rank("please water the garden for ten minutes", "", exclude=set())
    assert ranked[0] == "set_irrigation_zone"
    assert index.rank("lock the front door", "", exclude=set())[0] == "lock_door"
    assert "lock_door" not in index.rank("lock the front door", "", exclude={"lock_door"})


def test_a_question_no_tool_matches_keeps_the_tool_sets_order() -> None:
    toolset = home_toolset()
    ranked = ToolIndex.of(toolset.tools).rank("quanto é quinze por cento", "", exclude=set())
    assert ranked == toolset.names


def test_a_word_the_always_offered_tools_match_ranks_no_other_tool() -> None:
    # What figure 10 found: "percent" matched five device tools as well as the calculator (always
    # offered), and the model set a light to the sum it had just worked out.
    catalog = [
        ("calculate", "Calculate arithmetic. Percent: '15% of 80', '200 + 10%'."),
        *HOME,
        ("set_light_brightness", "Set the brightness of a light in percent."),
        ("set_fan_speed", "Set a fan's speed in percent."),
    ]
    toolset = PersonaTools([HomeToolBox(catalog)], engine_name="t").current()
    cfg = config(max_offered_tools=3, always_offered_tools=["calculate"])
    sum_question = shortlist(cfg, toolset, [AgentMessage(MessageRole.USER, "what is 420 plus 19 percent")])
    assert sum_question is not None
    assert not {"set_light_brightness", "set_fan_speed"} & set(sum_question.names)
    # its places go to the tool set's first tools, as for a question no tool matches
    first_three = ["turn_on_light", "turn_off_light", "set_thermostat_temperature"]
    assert sum_question.names == ["calculate", *first_three]
    # a word of its own still ranks a device tool, and "percent" adds to its score as before
    dim = shortlist(cfg, toolset, [AgentMessage(MessageRole.USER, "dim the light brightness to 40 percent")])
    assert dim is not None and "set_light_brightness" in dim.names
    # without always-offered tools every word ranks
    plain = shortlist(config(max_offered_tools=3), toolset, [AgentMessage(MessageRole.USER, "19 percent")])
    assert plain is not None and {"set_light_brightness", "set_fan_speed"} <= set(plain.names)


def test_the_conversation_before_the_question_counts_for_a_follow_up() -> None:
    toolset = home_toolset()
    messages = [
        AgentMessage(MessageRole.USER, "play some jazz on the kitchen speaker"),
        AgentMessage(MessageRole.ASSISTANT, "Playing jazz."),
        AgentMessage(MessageRole.USER, "a bit louder"),
    ]
    chosen = shortlist(config(max_offered_tools=3), toolset, messages)
    assert chosen is not None
    assert "play_media" in chosen.names


def test_the_shortlist_holds_always_tools_first_then_ranked_and_called_ones_in_catalog_order() -> None:
    toolset = home_toolset()
    earlier_call = ToolCall(id="c1", name="get_presence", arguments={})
    messages = [
        AgentMessage(MessageRole.USER, "who is home"),
        AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[earlier_call]),
        AgentMessage(MessageRole.TOOL, "ok", tool_call_id="c1", name="get_presence"),
        AgentMessage(MessageRole.USER, "turn on the light and close the blinds"),
    ]
    cfg = config(max_offered_tools=3, always_offered_tools=["add", "no_such_tool", "arm_alarm"])
    chosen = shortlist(cfg, toolset, messages)
    assert chosen is not None
    assert chosen.names[:2] == ["add", "arm_alarm"]  # the persona's order; an unknown name is skipped
    rest = chosen.names[2:]
    assert "get_presence" in rest  # called earlier in the conversation
    assert {"turn_on_light", "close_cover"} <= set(rest)
    assert rest == [name for name in toolset.names if name in rest]  # the catalog's order
    assert [t.name for t in chosen.tools()][:3] == ["add", "arm_alarm", FIND_TOOLS]


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ({}, True),  # 24 tools > 20
        ({"select_above": 24}, False),  # at the threshold: every tool
        ({"tool_selection": "all"}, False),
        ({"tool_selection": "always", "select_above": 100}, True),
    ],
)
def test_when_a_turn_selects(keys: dict[str, Any], expected: bool) -> None:
    assert selects(config(**keys), home_toolset()) is expected


def test_a_bad_selection_key_is_refused_at_construction() -> None:
    from ovos_agentic_loop.errors import ConfigError

    with pytest.raises(ConfigError, match="tool_selection"):
        config(tool_selection="some")
    with pytest.raises(ConfigError, match="max_offered_tools"):
        config(max_offered_tools=0)


# -- through continue_chat -----------------------------------------------------------------------


def test_a_persona_under_the_threshold_sends_todays_requests_byte_for_byte() -> None:
    script = [tool_call("add", a=2, b=3), "It is 5."]
    requests = []
    for keys in ({}, {"tool_selection": "all"}, {"always_offered_tools": ["add"], "max_offered_tools": 1}):
        brain = ScriptedBrain(list(script))
        engine = engine_with(brain, [DemoToolBox(), HomeToolBox(HOME[:10])], **keys)  # 14 tools
        assert engine.continue_chat(user("what is 2 plus 3")).content == "It is 5."
        requests.append([request(c) for c in brain.calls])
        assert FIND_TOOLS not in brain.calls[0].tool_names
        assert len(brain.calls[0].tools) == 14
    assert requests[0] == requests[1] == requests[2]


def test_a_persona_under_the_threshold_in_text_mode_keeps_its_system_prompt() -> None:
    prompts = []
    for keys in ({}, {"tool_selection": "all"}):
        brain = ScriptedBrain(["Hello."])
        engine_with(brain, [DemoToolBox()], mode="text", **keys).continue_chat(user("hi"))
        prompts.append(request(brain.calls[0]))
    assert prompts[0] == prompts[1]


def test_over_the_threshold_the_model_is_offered_the_shortlist() -> None:
    brain = ScriptedBrain([tool_call("set_irrigation_zone", target="zone 2"), "Watering."])
    events: list[Any] = []
    engine = selecting(brain, max_offered_tools=4, always_offered_tools=["add"])
    engine.add_step_listener(events.append)
    assert engine.continue_chat(user("water the garden")).content == "Watering."
    offered = brain.calls[0].tool_names
    assert offered[:2] == ["add", FIND_TOOLS]
    assert "set_irrigation_zone" in offered
    assert len(offered) == 2 + 4
    assert "lock_door" not in offered
    start = next(e for e in events if e.kind == "turn_start")
    assert start.data["offered"] == offered
    assert len(start.data["tools"]) == 24  # every tool the persona has


def test_always_offered_tools_stay_first_on_every_call_and_every_turn() -> None:
    brain = ScriptedBrain(
        [
            tool_call("lock_door", target="front"),
            "Locked.",
            tool_call("play_media", target="jazz"),
            "Playing.",
        ]
    )
    engine = selecting(brain, max_offered_tools=3, always_offered_tools=["get_presence", "add"])
    engine.continue_chat(user("lock the front door"))
    engine.continue_chat(user("play some jazz music"))
    for call in brain.calls:
        assert call.tool_names[:3] == ["get_presence", "add", FIND_TOOLS]
    # the prefix llama-server caches: the same system prompt and the same first tools
    assert brain.calls[0].messages[0].content == brain.calls[2].messages[0].content
    assert brain.calls[0].tools[:3] == brain.calls[2].tools[:3]
    assert "lock_door" in brain.calls[0].tool_names and "lock_door" not in brain.calls[2].tool_names


def test_find_tools_reaches_a_tool_outside_the_shortlist() -> None:
    home = HomeToolBox()
    brain = ScriptedBrain(
        [
            tool_call(FIND_TOOLS, query="vacuum cleaner robot"),
            tool_call("start_vacuum", target="kitchen"),
            "The vacuum is cleaning.",
        ]
    )
    engine = engine_with(brain, [DemoToolBox(), home], max_offered_tools=2)
    answer = engine.continue_chat(user("the floor is dirty, do something"))
    assert answer.content == "The vacuum is cleaning."
    assert "start_vacuum" not in brain.calls[0].tool_names
    found = brain.calls[1].messages[-1]
    assert found.role == MessageRole.TOOL and found.name == FIND_TOOLS
    assert '"name": "start_vacuum"' in found.content
    assert brain.calls[1].tool_names[-1] == "start_vacuum"  # added last: the earlier tools keep their place
    assert brain.calls[1].tool_names[: len(brain.calls[0].tools)] == brain.calls[0].tool_names
    assert home.calls == ["start_vacuum"]


def test_find_tools_without_a_query_gets_an_observation_saying_what_to_send() -> None:
    brain = ScriptedBrain([tool_call(FIND_TOOLS), "Sorry."])
    selecting(brain).continue_chat(user("hello"))
    assert 'find_tools needs a "query"' in brain.calls[1].messages[-1].content


def test_a_call_to_an_existing_tool_that_was_not_offered_runs_and_is_offered_from_then_on() -> None:
    home = HomeToolBox()
    brain = ScriptedBrain([tool_call("get_energy_usage", target="today"), "You used 12 kWh."])
    events: list[Any] = []
    engine = engine_with(brain, [DemoToolBox(), home], max_offered_tools=2)
    engine.add_step_listener(events.append)
    assert engine.continue_chat(user("lock the door")).content == "You used 12 kWh."
    assert "get_energy_usage" not in brain.calls[0].tool_names
    assert home.calls == ["get_energy_usage"]
    assert brain.calls[1].messages[-1].content.find("get_energy_usage done") >= 0
    assert brain.calls[1].tool_names[-1] == "get_energy_usage"
    notices = [e.data["message"] for e in events if e.kind == "notice"]
    assert any("outside the shortlist" in n and "get_energy_usage" in n for n in notices)


def test_find_tools_is_an_unknown_tool_for_a_persona_that_offers_every_tool() -> None:
    brain = ScriptedBrain([tool_call(FIND_TOOLS, query="x"), "Sorry."])
    engine_with(brain, [DemoToolBox()]).continue_chat(user("hello"))
    assert "there is no tool named 'find_tools'" in brain.calls[1].messages[-1].content


def test_in_text_mode_the_system_prompt_lists_the_shortlist() -> None:
    brain = ScriptedBrain(["Hello."])
    selecting(brain, mode="text", max_offered_tools=2).continue_chat(user("lock the front door"))
    system = brain.calls[0].messages[0].content
    assert "lock_door" in system and FIND_TOOLS in system
    assert "set_irrigation_zone" not in system


def test_the_callers_own_tools_are_always_offered() -> None:
    client_tool = {
        "type": "function",
        "function": {"name": "open_garage_app", "description": "Open the app.", "parameters": {}},
    }
    brain = ScriptedBrain(["Done."])
    selecting(brain, max_offered_tools=1).continue_chat(user("water the garden"), tools=[client_tool])
    offered = brain.calls[0].tool_names
    assert "open_garage_app" in offered and "set_irrigation_zone" in offered
    assert len(offered) == 3  # find_tools, the one chosen tool, the caller's tool
