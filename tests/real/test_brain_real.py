"""OpenAIBrain against the real llama-server and bundled model, with both templates."""

from __future__ import annotations

import json
import time

import pytest

from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.messages import AgentMessage, BrainReply, MessageRole

pytestmark = pytest.mark.timeout(900)  # two shared CPU cores: a turn can take tens of seconds

ADD_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers and return the sum",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
}
SYSTEM = AgentMessage(
    role=MessageRole.SYSTEM, content="You are a helpful assistant. Use the tools when they help."
)
ADD_QUESTION = AgentMessage(role=MessageRole.USER, content="What is 17 plus 25? Use the add tool.")


def brain(url: str, **config: object) -> OpenAIBrain:
    return OpenAIBrain({"api_url": url, "temperature": 0, "max_tokens": 96, "timeout": 300, **config})


def test_plain_question(real_server_url: str) -> None:
    question = AgentMessage(
        role=MessageRole.USER, content="What is the capital of France? Answer in one word."
    )
    reply = brain(real_server_url).continue_chat([question])
    assert isinstance(reply, BrainReply)
    assert "paris" in reply.content.lower()
    assert reply.tool_calls is None
    assert reply.timings and reply.timings["predicted_n"] > 0  # llama-server's timings come through
    assert reply.usage and reply.usage["completion_tokens"] > 0


def test_tool_template_gives_native_tool_calls_then_text(real_server_url: str) -> None:
    b = brain(real_server_url)
    reply = b.continue_chat([SYSTEM, ADD_QUESTION], tools=[ADD_TOOL])
    assert reply.tool_calls, f"expected a native tool call, got content {reply.content!r}"
    call = reply.tool_calls[0]
    assert call.name == "add"
    assert sorted(call.arguments.values()) == [17, 25]
    assert reply.finish_reason == "tool_calls"
    result = AgentMessage(
        role=MessageRole.TOOL, content=json.dumps({"sum": 42}), tool_call_id=call.id, name="add"
    )
    answer = b.continue_chat([SYSTEM, ADD_QUESTION, reply, result], tools=[ADD_TOOL])
    assert not answer.tool_calls
    assert "42" in answer.content


def test_stock_template_puts_the_call_in_content(real_server_url_stock: str) -> None:
    reply = brain(real_server_url_stock).continue_chat([SYSTEM, ADD_QUESTION], tools=[ADD_TOOL])
    assert not reply.tool_calls
    assert '"name"' in reply.content and "add" in reply.content


def test_streamed_tool_call_arrives_whole(real_server_url: str) -> None:
    items = list(brain(real_server_url).stream_message([SYSTEM, ADD_QUESTION], tools=[ADD_TOOL]))
    final = items[-1]
    assert isinstance(final, AgentMessage) and final.tool_calls
    assert final.tool_calls[0].name == "add" and sorted(final.tool_calls[0].arguments.values()) == [17, 25]


def test_first_sentence_streams_before_generation_ends(real_server_url: str) -> None:
    question = AgentMessage(
        role=MessageRole.USER, content="Tell me three short facts about the Moon, one sentence each."
    )
    started = time.monotonic()
    arrivals: list[float] = []
    sentences: list[str] = []
    for sentence in brain(real_server_url, max_tokens=160).stream_sentences([question]):
        arrivals.append(time.monotonic() - started)
        sentences.append(sentence)
    assert len(sentences) >= 2, sentences
    # The first sentence was out well before the last one: real streaming, not a split afterwards.
    assert arrivals[0] < arrivals[-1] - 0.5, arrivals
