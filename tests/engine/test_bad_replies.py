"""Bad replies through the whole loop.

Through ``ovos-openai-brain`` and a scripted OpenAI-compatible server: tool arguments
that are not JSON are reported to the model as such (the tool never runs); a server
that is not one, or that asks to come back after the turn's end, fails the turn at
once with an error naming the URL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user
from fake_openai_server import FakeOpenAIServer, Raw, answer, completion
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop.brain import BrainBadResponse, BrainUnavailable, OpenAIBrain
from ovos_agentic_loop.messages import RAW_ARGUMENTS_KEY, AgentMessage, MessageRole
from ovos_agentic_loop.testing import ScriptedBrain


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def openai_engine(server: FakeOpenAIServer, toolboxes: list | None = None, **config: Any) -> Any:
    brain = OpenAIBrain({"api_url": server.url, "retry_backoff": 0.01, "max_retries": 3})
    return load_chat_plugin("ovos-react-loop")(config=config, brain=brain, toolboxes=toolboxes or [])


def wire_call(arguments: str) -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": "add", "arguments": arguments}}


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"a": 1, "b": 2', "Expecting ',' delimiter"),
        ("{'a': 1, 'b': 2}", "Expecting property name enclosed in double quotes"),
        ("[1, 2]", "it is an array, not an object"),
    ],
)
def test_arguments_that_are_not_json_are_reported_as_such(
    server: FakeOpenAIServer, demo_tools: DemoToolBox, arguments: str, problem: str
) -> None:
    server.replies += [answer(tool_calls=[wire_call(arguments)]), answer("It is 3.")]
    engine = openai_engine(server, [demo_tools])
    assert engine.continue_chat(user("1+2?")).content == "It is 3."
    assert demo_tools.calls == []  # the tool never saw a placeholder for arguments
    sent = server.requests[1]["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == arguments  # echoed as the model wrote it
    observation = sent[-1]["content"]
    assert observation.startswith("Error: your arguments for add were not valid JSON: ")
    assert problem in observation and f"You wrote: {arguments}" in observation
    assert '"a": "integer"' in observation or '"a"' in observation  # the expected arguments
    assert "Field required" not in observation and RAW_ARGUMENTS_KEY not in observation


def test_a_huge_broken_argument_text_is_quoted_briefly(demo_tools: DemoToolBox) -> None:
    raw = '{"a": ' + "1" * 100_000
    broken = ToolCall("c1", "add", {RAW_ARGUMENTS_KEY: raw})
    call = AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[broken])
    brain = ScriptedBrain([call, "ok"])
    engine = engine_with(brain, [demo_tools], max_observation_chars=100_000)
    assert engine.continue_chat(user("?")).content == "ok"
    observation = brain.calls[1].last.content
    assert "not valid JSON" in observation and len(observation) < 600


def test_a_server_that_answers_html_fails_the_turn_naming_the_url(server: FakeOpenAIServer) -> None:
    page = "<html><head><title>Captive portal login</title></head><body>...</body></html>"
    server.replies.append(Raw(200, page))
    with pytest.raises(BrainBadResponse) as info:
        openai_engine(server).continue_chat(user("hi"))
    assert server.url in str(info.value) and "an HTML page titled 'Captive portal login'" in str(info.value)
    assert "JSONDecodeError" not in str(info.value)


def test_malformed_json_fails_the_turn_naming_the_url(server: FakeOpenAIServer) -> None:
    server.replies.append(Raw(200, '{"choices": [{"mess', "application/json"))
    with pytest.raises(BrainBadResponse, match="malformed JSON") as info:
        openai_engine(server).continue_chat(user("hi"))
    assert server.url in str(info.value)


def test_retry_after_past_the_turns_end_fails_the_turn_at_once(server: FakeOpenAIServer) -> None:
    server.replies += [(429, {"error": {"message": "busy"}}, {"Retry-After": "5"})] * 4
    engine = openai_engine(server, time_budget=1)
    with pytest.raises(BrainUnavailable, match=r"retry after 5 s \(Retry-After\)"):
        engine.continue_chat(user("hi"))
    assert len(server.requests) == 1  # it did not wait for a retry that would start past the turn's end


def test_retry_after_within_the_turn_is_waited_for(server: FakeOpenAIServer) -> None:
    server.replies += [(503, {"error": {"message": "loading model"}}, {"Retry-After": "1"}), completion("ok")]
    engine = openai_engine(server, time_budget=5)
    assert engine.continue_chat(user("hi")).content == "ok"
    assert server.received_at[1] - server.received_at[0] >= 0.95
    assert json.loads(json.dumps(server.requests[1]["messages"][-1])) == {"role": "user", "content": "hi"}
