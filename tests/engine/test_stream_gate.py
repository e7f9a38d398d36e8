"""A voice must never speak a tool call: each way a call can reach the stream, through the public
streaming API."""

from __future__ import annotations

import pytest
from conftest import DemoToolBox
from engine_helpers import ENGINES_AND_MODES, engine_with, streamed_and_answered, user

from ovos_agentic_loop.testing import ScriptedBrain, in_chunks, tool_calls

CALL_JSON = '{"name": "add", "arguments": {"a": 17, "b": 23}}'


def stream(brain: ScriptedBrain, tools: DemoToolBox, **config) -> tuple[str, list[str]]:
    engine = engine_with(brain, [tools], **config)
    tokens = list(engine.stream_tokens(user("What is 17 plus 23?")))
    return "".join(tokens), tokens


def test_talk_then_json_call_never_speaks_the_call(demo_tools: DemoToolBox) -> None:
    # Finding 1 (mode auto): the talk is spoken once, the call JSON never.
    brain = ScriptedBrain([f"Let me use the calculator. {CALL_JSON}", "The answer is 40."])
    text, _ = stream(brain, demo_tools)
    assert text == "Let me use the calculator. The answer is 40."
    assert demo_tools.calls == [("add", {"a": 17, "b": 23})]


def test_talk_then_react_call_in_text_mode(demo_tools: DemoToolBox) -> None:
    # Finding 2 (mode text): no "Action:" / "Action Input:" line reaches the stream.
    brain = ScriptedBrain(
        ['I need the calculator.\nAction: add\nAction Input: {"a": 17, "b": 23}', "The answer is 40."]
    )
    text, _ = stream(brain, demo_tools, mode="text")
    assert text == "I need the calculator. The answer is 40."


def test_prose_then_final_answer_marker_is_not_spoken(demo_tools: DemoToolBox) -> None:
    # Finding 3: the marker itself is never spoken; the text after it is the answer.
    brain = ScriptedBrain(["I know this one.\nFinal Answer: It is 40."])
    text, _ = stream(brain, demo_tools, mode="text")
    assert "Final Answer" not in text
    assert text == "I know this one. It is 40."


def test_text_of_separate_model_calls_is_separated(demo_tools: DemoToolBox) -> None:
    # Finding 4: 'Let me use the calculator.The answer is 40.' was spoken as one sentence.
    brain = ScriptedBrain([tool_calls(("add", {"a": 17, "b": 23}), content="Let me check"), "It is 40."])
    engine = engine_with(brain, [demo_tools])
    assert list(engine.stream_sentences(user("17+23?"))) == ["Let me check", "It is 40."]


@pytest.mark.parametrize(
    "chunks",
    [
        ["Let me use the calculator. {", '"name": "add", "arguments": {"a": 17, "b": 23}}'],
        ["Let me use the calculator. ", "{", '"name"', ': "add", "arguments": {"a": 17, "b": 23}}'],
        ["Let me use the calculator.\nAct", "ion: add\nAction Input: ", '{"a": 17, "b": 23}'],
        ["Let me use the calculator.\n```", 'json\n{"name": "add", "arguments": {"a": 17, "b": 23}}\n```'],
        ["Let me use the calculator. <tool_", 'call>{"name": "add", "arguments": {"a": 17, "b": 23}}'],
    ],
)
def test_a_call_split_anywhere_is_held_back(chunks: list[str], demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([in_chunks(*chunks), "It is 40."])
    text, tokens = stream(brain, demo_tools)
    assert text == "Let me use the calculator. It is 40."
    assert tokens[0] == "Let me use the calculator."  # spoken before the call was complete


def test_prose_with_brackets_is_spoken_once_known_not_to_be_a_call(demo_tools: DemoToolBox) -> None:
    reply = "See note [1] and the set {a, b}. Final thoughts: fine."
    brain = ScriptedBrain([in_chunks(*reply)])  # one character per delta
    text, tokens = stream(brain, demo_tools)
    assert text == reply
    assert len(tokens) > 10  # streamed as it came, not held to the end


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_every_streaming_engine_gives_the_continue_chat_answer(
    entry_point: str, mode: str, demo_tools: DemoToolBox
) -> None:
    script = [f"{CALL_JSON}", "Thought: done.\nFinal Answer: It is 40. Bye!"]
    streamed, answer, sentences = streamed_and_answered(entry_point, mode, script, lambda: [DemoToolBox()])
    assert streamed == answer == "It is 40. Bye!"
    assert sentences == ["It is 40.", "Bye!"]


def test_answer_held_at_the_end_is_said_by_finish() -> None:
    from ovos_agentic_loop._text.protocol import parse_reply
    from ovos_agentic_loop._text.stream_gate import FinalAnswerGate, Speech

    speech = Speech()
    gate = FinalAnswerGate(speech)
    said = gate.feed("The final")  # "final" could still become "final answer:"
    assert said == "The"
    answer = parse_reply("The final").answer
    assert answer is not None
    assert said + gate.finish(answer) == "The final"


def test_forced_answer_after_talk_is_joined_not_glued(demo_tools: DemoToolBox) -> None:
    # The model keeps calling: the stream ends with the loop's own sentence, separated from the talk.
    brain = ScriptedBrain([f"Checking. {CALL_JSON}", f"Checking again. {CALL_JSON}"])
    engine = engine_with(brain, [demo_tools], max_iterations=1)
    text = "".join(engine.stream_tokens(user("17+23?")))
    assert text == (
        "Checking. Checking again. I'm sorry, I could not finish that within 1 steps. The result is 40.0."
    )
