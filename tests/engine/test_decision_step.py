"""The decision step: a reply that described a call instead of making one is asked for again with
the choice constrained by a JSON schema (a call of an offered tool, or the answer); where the brain
cannot be constrained, the corrective message of before. Through ``continue_chat`` and the stream."""

from __future__ import annotations

import json

from conftest import DemoToolBox
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._turn.deciding import decision_schema
from ovos_agentic_loop.errors import BrainRequestError
from ovos_agentic_loop.testing import ScriptedBrain, tool_call

DESCRIBED = "To add them you can use the `add` function with the two numbers."


def _choice(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def test_a_described_call_is_asked_for_again_constrained_and_made(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [DESCRIBED, _choice("add", a=2, b=3), "2 plus 3 is 5."], accepts_response_format=True
    )
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert demo_tools.calls == [("add", {"a": 2, "b": 3})]
    constrained = brain.calls[1]
    assert brain.calls[0].response_format is None and constrained.response_format is not None
    # the same request as the described reply answered: no corrective message, nothing kept of it
    assert constrained.messages == brain.calls[0].messages
    choices = constrained.response_format["json_schema"]["schema"]["anyOf"]
    names = [c["properties"]["name"]["const"] for c in choices]
    assert names == [*brain.calls[0].tool_names, "final_answer"]
    assert brain.calls[2].response_format is None  # after the results, the model answers freely
    brain.assert_complete()


def test_the_constrained_choice_may_be_the_answer_and_is_spoken_once(demo_tools: DemoToolBox) -> None:
    script = [DESCRIBED, _choice("final_answer", answer="It is 5."), "unused"]
    brain = ScriptedBrain(script, accepts_response_format=True)
    spoken = list(engine_with(brain, [demo_tools]).stream_sentences(user("what is 2 + 3?")))
    # the description is held (its first sentence names a tool) and never said: the decision's
    # answer is said once, and no JSON is heard
    assert spoken == ["It is 5."]
    assert not any("{" in sentence or "final_answer" in sentence for sentence in spoken)
    assert demo_tools.calls == []
    assert brain.remaining == 1


def test_without_response_format_the_model_is_told_to_call(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([DESCRIBED, _choice("add", a=2, b=3), "2 plus 3 is 5."])
    engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    nudge = brain.calls[1].last
    assert nudge.role == MessageRole.USER and "call it yourself now" in nudge.content
    assert brain.calls[1].response_format is None


def test_a_server_that_refuses_the_schema_gets_the_corrective_message(demo_tools: DemoToolBox) -> None:
    refused = BrainRequestError(
        "HTTP 400: unsupported response_format", url="http://127.0.0.1:1/v1", status=400
    )
    script = [DESCRIBED, refused, "2 plus 3 is 5."]
    brain = ScriptedBrain(script, accepts_response_format=True)
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert "call it yourself now" in brain.calls[2].last.content


def test_a_reply_that_is_not_the_json_asked_for_falls_back(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([DESCRIBED, "I cannot decide.", "2 plus 3 is 5."], accepts_response_format=True)
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert "call it yourself now" in brain.calls[2].last.content


def test_the_schema_admits_each_tool_with_its_parameters_or_the_answer() -> None:
    spec = {
        "type": "function",
        "function": {
            "name": "add",
            "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
        },
    }
    schema = decision_schema([spec])["json_schema"]["schema"]
    add, answer = schema["anyOf"]
    assert add["properties"]["arguments"]["required"] == ["a"]
    assert answer["properties"]["arguments"]["required"] == ["answer"]
    assert decision_schema([spec], "final_answer_to_user")["json_schema"]["schema"]["anyOf"][1]["properties"][
        "name"
    ] == {"const": "final_answer_to_user"}


def test_a_described_call_of_a_tool_that_is_not_there_is_asked_for_again_constrained(
    demo_tools: DemoToolBox,
) -> None:
    # The stock template, spoken held-out half: it called `multiply`, heard there is no such tool,
    # and answered "you would use the `multiply` function with the arguments a=347 and b=28".
    brain = ScriptedBrain(
        [
            tool_call("sum_numbers", a=347, b=28),
            "To calculate 347 plus 28, you would use the `sum_numbers` function with a=347 and b=28.",
            _choice("add", a=347, b=28),
            "347 plus 28 is 375.",
        ],
        accepts_response_format=True,
    )
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 347 plus 28"))
    assert answer.content == "347 plus 28 is 375."
    assert brain.calls[2].response_format is not None
    assert demo_tools.calls == [("add", {"a": 347, "b": 28})]
    brain.assert_complete()


def test_without_response_format_a_tool_that_is_not_there_is_named_so(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            tool_call("sum_numbers", a=347, b=28),
            "You would use the `sum_numbers` function with a=347 and b=28.",
            tool_call("add", a=347, b=28),
            "347 plus 28 is 375.",
        ]
    )
    engine_with(brain, [demo_tools]).continue_chat(user("what is 347 plus 28"))
    nudge = brain.calls[2].last
    assert nudge.role == MessageRole.USER and "sum_numbers is no tool here" in nudge.content
    brain.assert_complete()
