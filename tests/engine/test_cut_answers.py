"""A streamed answer that cannot be finished says so.

Cut by ``time_budget`` or by a server that hangs up mid-reply, the listener hears the
part that was written, then a sentence saying the answer is incomplete; a step event
says so too. A reply cut inside a tool call never runs the call.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user
from fake_openai_server import FakeOpenAIServer, Stream, answer, chunk
from ovos_plugin_manager.agents import load_chat_plugin

from ovos_agentic_loop._turn.endings import CUT_BY_BRAIN, CUT_BY_TIME
from ovos_agentic_loop.brain import BrainBadResponse, OpenAIBrain
from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.testing import ScriptedBrain


class WordByWordBrain(ScriptedBrain):
    """Streams each scripted reply a word at a time, ``pace`` seconds apart."""

    pace = 0.1

    def stream_message(self, messages, session_id="default", lang=None, units=None, tools=None, stop=None):
        message = self._next(self._record(messages, tools, stop, session_id=session_id, streamed=True))
        words = (message.content or "").split(" ")
        for i, word in enumerate(words):
            time.sleep(self.pace)
            yield word + (" " if i < len(words) - 1 else "")
        yield message


def listen(engine: Any) -> list[StepEvent]:
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    return events


LONG = "The first sentence is here. The second one goes on and on for a very long time indeed."


def test_a_stream_cut_by_the_time_budget_ends_with_a_sentence_saying_so() -> None:
    engine = engine_with(WordByWordBrain([LONG]), time_budget=1.0)
    events = listen(engine)
    started = time.monotonic()
    sentences = list(engine.stream_sentences(user("tell me")))
    assert time.monotonic() - started < 2.5  # the budget, not the 1.8 s the whole answer takes
    assert sentences[0] == "The first sentence is here."
    assert sentences[-1] == CUT_BY_TIME
    assert len(sentences) == 3, sentences
    assert sentences[1].startswith("The second") and sentences[1].endswith("…")  # cut mid-sentence
    notices = [e.data["message"] for e in events if e.kind == "notice"]
    assert any("cut short (time_budget)" in n for n in notices), notices
    final = [e for e in events if e.kind == "final"][-1]
    assert final.data["reason"] == "time_budget" and final.data["answer"].endswith(CUT_BY_TIME)


def test_a_cut_after_a_whole_sentence_adds_no_ellipsis() -> None:
    engine = engine_with(WordByWordBrain(["One two three four. " + "five " * 30]), time_budget=0.8)
    tokens = "".join(engine.stream_tokens(user("count")))
    assert tokens.startswith("One two three four.")
    assert tokens.endswith(f"\n{CUT_BY_TIME}") or tokens.endswith(f"…\n{CUT_BY_TIME}")


def test_a_budget_spent_before_any_text_still_gives_the_plain_apology() -> None:
    engine = engine_with(WordByWordBrain(["slow"]), time_budget=0.05)
    assert list(engine.stream_sentences(user("hi"))) == [
        "I'm sorry, that took longer than my time limit of 0.05 seconds."
    ]


# -- through ovos-openai-brain and a server that hangs up --------------------------------------
@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def openai_engine(server: FakeOpenAIServer, toolboxes: list | None = None, **config: Any) -> Any:
    brain = OpenAIBrain({"api_url": server.url, "retry_backoff": 0.01})
    cls = load_chat_plugin("ovos-react-loop")
    return cls(config=config, brain=brain, toolboxes=toolboxes or [])


def test_a_tool_call_cut_off_by_the_server_is_never_run(
    server: FakeOpenAIServer, demo_tools: DemoToolBox
) -> None:
    # The arguments are whole; only the missing end marker shows the reply may not be.
    function = {"name": "add", "arguments": '{"a": 1, "b": 2}'}
    cut_call = [{"index": 0, "id": "c1", "type": "function", "function": function}]
    server.replies += [Stream([chunk(tool_calls=cut_call)], done=False)] * 3  # the first try and 2 retries
    engine = openai_engine(server, [demo_tools])
    with pytest.raises(BrainBadResponse, match=server.url):
        list(engine.stream_sentences(user("1+2")))
    assert demo_tools.calls == []
    assert len(server.requests) == 3


def test_an_answer_cut_by_the_server_ends_with_a_sentence_saying_so(server: FakeOpenAIServer) -> None:
    server.replies.append(Stream([chunk("Paris is the capital. "), chunk("It has")], done=False))
    engine = openai_engine(server)
    events = listen(engine)
    sentences = list(engine.stream_sentences(user("France?")))
    assert sentences == ["Paris is the capital.", "It has…", CUT_BY_BRAIN]
    notices = " ".join(e.data["message"] for e in events if e.kind == "notice")
    assert "broke off" in notices and server.url in notices and "cut short (stream_cut)" in notices


def test_a_cut_before_any_text_is_an_error_for_the_callers_fallback(server: FakeOpenAIServer) -> None:
    server.replies += [Stream([chunk("")], done=False)] * 3
    with pytest.raises(BrainBadResponse, match="broke off"):
        list(openai_engine(server).stream_sentences(user("hi")))


def test_a_complete_stream_is_untouched(server: FakeOpenAIServer) -> None:
    server.replies.append(answer("Paris is the capital. It has many bridges."))
    engine = openai_engine(server)
    assert list(engine.stream_sentences(user("France?"))) == ["Paris is the capital.", "It has many bridges."]
