"""Streaming the final answer: the first sentence can be spoken while the rest is generated."""

from __future__ import annotations

import time
from collections.abc import Iterator

from conftest import DemoToolBox
from engine_helpers import engine_with, user

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


class SlowStreamingBrain(ScriptedBrain):
    """Streams each scripted reply a word at a time, 50 ms apart."""

    def stream_message(self, messages, session_id="default", lang=None, units=None, tools=None, stop=None):
        message = self._next(self._record(messages, tools, stop, session_id=session_id, streamed=True))
        words = (message.content or "").split(" ")
        for i, word in enumerate(words):
            time.sleep(0.05)
            yield word + (" " if i < len(words) - 1 else "")
        yield message


def timed(items: Iterator[str]) -> list[tuple[float, str]]:
    started = time.monotonic()
    return [(time.monotonic() - started, item) for item in items]


def test_first_sentence_arrives_before_the_answer_is_complete(demo_tools: DemoToolBox) -> None:
    long_answer = "The sum is 5. " + " ".join(["This sentence keeps the model busy for a while."] * 4)
    brain = SlowStreamingBrain([tool_call("add", a=2, b=3), long_answer])
    engine = engine_with(brain, [demo_tools])

    sentences = timed(engine.stream_sentences(user("2+3 and explain")))

    assert sentences[0][1] == "The sum is 5."
    total = sentences[-1][0]
    assert sentences[0][0] < total / 3, f"first sentence at {sentences[0][0]:.2f}s of {total:.2f}s"
    assert " ".join(s for _, s in sentences) == long_answer.strip()
    assert demo_tools.calls == [("add", {"a": 2, "b": 3})]
    assert brain.calls[-1].streamed


def test_protocol_text_is_never_streamed(demo_tools: DemoToolBox) -> None:
    brain = SlowStreamingBrain(
        [
            '{"name": "add", "arguments": {"a": 1, "b": 1}}',
            "Thought: I have it.\nFinal Answer: One and one make two. Simple.",
        ],
        supports_tools=False,
    )
    engine = engine_with(brain, [demo_tools])
    out = list(engine.stream_sentences(user("1+1")))
    assert out == ["One and one make two.", "Simple."]


def test_stream_tokens_joins_to_the_continue_chat_answer(demo_tools: DemoToolBox) -> None:
    answer = "Hello there. Nice to meet you!"
    streamed = "".join(engine_with(ScriptedBrain([answer]), [demo_tools]).stream_tokens(user("hi")))
    plain = engine_with(ScriptedBrain([answer]), [demo_tools]).continue_chat(user("hi")).content
    assert streamed == plain == answer


class NonStreamingBrain(ScriptedBrain):
    stream_message = None  # type: ignore[assignment]  # like most third-party chat plugins


def test_brain_without_streaming_still_yields_sentences(demo_tools: DemoToolBox) -> None:
    brain = NonStreamingBrain([tool_call("add", a=1, b=2), "It is 3. Done."])
    engine = engine_with(brain, [demo_tools])
    assert list(engine.stream_sentences(user("1+2"))) == ["It is 3.", "Done."]
    assert not any(c.streamed for c in brain.calls)


def test_forced_final_answer_is_streamed_too(demo_tools: DemoToolBox) -> None:
    brain = SlowStreamingBrain([tool_call("add", a=1, b=2), "Three it is. Bye."])
    engine = engine_with(brain, [demo_tools], max_iterations=1)
    assert list(engine.stream_sentences(user("1+2"))) == ["Three it is.", "Bye."]
