"""Every model request names its conversation, and the prompt's prefix stays byte-stable.

Behind a router with several model servers, a conversation is kept on the server whose prompt cache
holds it only if each request carries the same key (LiteLLM's ``session_affinity`` reads the
``x-litellm-session-id`` header) and the cached part of the prompt is the same bytes every time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fake_openai_server import FakeOpenAIServer, answer

from ovos_agentic_loop._runtime.session_key import session_key
from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.engine import ReActLoopEngine
from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.messages import AgentMessage, MessageRole

HEADER = "x-litellm-session-id"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def user(text: str) -> AgentMessage:
    return AgentMessage(MessageRole.USER, text)


def test_the_key_names_the_caller_when_it_can_else_the_conversation() -> None:
    first, later = [user("What time is it?")], [user("What time is it?"), user("And in Oslo?")]
    assert session_key("alice", first) == session_key("alice", later) != session_key("bob", first)
    assert session_key("default", first) == session_key("default", later) == session_key("", later)
    assert session_key("default", first) != session_key("default", [user("Something else")])
    assert session_key("alice", first).startswith("s-") and session_key("default", first).startswith("c-")
    assert "alice" not in session_key("alice", first)  # a hash: no name reaches a model server's logs
    assert session_key("default", [{"role": "user", "content": "What time is it?"}]) == session_key(
        "default", first
    )


def test_every_request_carries_the_key_as_user_field_and_header(server: FakeOpenAIServer) -> None:
    server.replies += [answer("One."), answer("Two.")]
    brain = OpenAIBrain({"api_url": server.url, "max_retries": 0}, warm_up=False)
    brain.continue_chat([user("hi")], session_id="alice")
    list(brain.stream_message([user("hi")], session_id="alice"))
    key = session_key("alice", [user("hi")])
    assert [r["user"] for r in server.requests] == [key, key]
    assert [h[HEADER] for h in server.headers] == [key, key]


def test_the_key_can_be_given_and_either_channel_switched_off(server: FakeOpenAIServer) -> None:
    server.replies += [answer("One."), answer("Two.")]
    OpenAIBrain({"api_url": server.url}, warm_up=False).continue_chat([user("hi")], session_key="s-given")
    quiet = OpenAIBrain({"api_url": server.url, "send_user": False, "session_header": ""}, warm_up=False)
    quiet.continue_chat([user("hi")])
    assert server.requests[0]["user"] == "s-given" and server.headers[0][HEADER] == "s-given"
    assert "user" not in server.requests[1] and HEADER not in server.headers[1]


def test_a_header_name_that_is_not_a_token_is_refused() -> None:
    with pytest.raises(ValueError, match="session_header"):
        OpenAIBrain({"session_header": "x session: id"}, warm_up=False)


def test_a_conversation_keeps_one_key_and_a_byte_stable_prefix_across_turns(server: FakeOpenAIServer) -> None:
    """Two turns of one anonymous conversation (persona-server without ``user``), each with a tool call:
    the same key on all four requests, in the step events too, and each request's messages begin with
    exactly the bytes of the one before (system prompt, tools, earlier turn), so a server's prompt
    cache can reuse all of it."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "evaluate_expression", "arguments": '{"expression": "2+2"}'},
    }
    server.replies += [
        answer(tool_calls=[call]),
        answer("It is 4."),
        answer(tool_calls=[call]),
        answer("Still 4."),
    ]
    engine = ReActLoopEngine(
        config={"toolboxes": ["ovos-math-tools"], "warm_up": False},
        brain=OpenAIBrain({"api_url": server.url, "max_retries": 0}, warm_up=False),
    )
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    history = [user("What is 2+2?")]
    history.append(engine.continue_chat(list(history)))
    history.append(user("And again?"))
    engine.continue_chat(list(history))

    keys = {r["user"] for r in server.requests} | {h[HEADER] for h in server.headers}
    assert keys == {session_key("default", history)}
    assert {e.data["session_key"] for e in events if e.kind in ("turn_start", "model_call", "final")} == keys
    wire = [json.dumps(r["messages"], ensure_ascii=False) for r in server.requests]
    tools = {json.dumps(r["tools"], ensure_ascii=False) for r in server.requests}
    assert len(tools) == 1  # the same tool list, byte for byte, on every request
    assert wire[1].startswith(wire[0][:-1]) and wire[3].startswith(wire[2][:-1])  # within a turn
    first_turn = json.dumps(server.requests[0]["messages"][:2], ensure_ascii=False)[:-1]
    assert wire[2].startswith(first_turn)  # the next turn: system prompt and first question unchanged
