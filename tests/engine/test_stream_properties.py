"""Property tests of the stream: for any script of replies the parser turns into calls and an
answer, whatever chunks they stream in, the streamed text is the answer ``continue_chat`` returns,
after the talk the model wrote before its calls (spoken once, as a progress phrase), and never holds
a call, a marker, a tag or a protocol line. Run over every streaming engine and mode
(``engine_helpers.ENGINES_AND_MODES``)."""

from __future__ import annotations

import itertools
import json

import pytest
from conftest import AddArgs, DemoToolBox
from engine_helpers import ENGINES_AND_MODES, engine_with, user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ovos_agentic_loop._text.protocol import parse_reply, positional_parameters
from ovos_agentic_loop._text.speech import spoken_sentences
from ovos_agentic_loop._text.stream_gate import FinalAnswerGate, Speech
from ovos_agentic_loop.testing import ScriptedBrain, in_chunks, tool_calls

LEAKS = ('"name"', '"arguments"', "<tool_call", "</tool_call", "<tool_response", "```", "Action", "Thought")
LEAKS += ("Observation",)
MARKERS = ("Final Answer", "FINAL_ANSWER", "final answer")

# Prose a model writes around its calls: words that brush against what the gate watches for
# ("f" may start "final answer:", "*" and "_" a bold marker, "<" a tag) without being protocol.
TALK_WORDS = ["Let", "me", "check", "the", "calculator", "of", "fine", "final", "first", "*sure*", "_ok_"]
TALK_WORDS += ["<b>"]
TALK_WORDS += ["Dr.", "e.g.", "3.14", "it's", '"quoted"', "one,", "two;", "Note:", "done.", "Right!", "why?"]
# An answer may also hold brackets that are not calls (closed or not) and line breaks.
ANSWER_WORDS = [*TALK_WORDS, "[1]", "{a, b}", "[", "(x)", "`code`", "\n", "\n\n", "{", '{"a": 1}', "[2, 3]"]

prose = st.lists(st.sampled_from(TALK_WORDS), min_size=1, max_size=8).map(" ".join)
answer_prose = (
    st.lists(st.sampled_from(ANSWER_WORDS), min_size=1, max_size=10).map(" ".join).filter(str.strip)
)
numbers = st.integers(min_value=-50, max_value=50)


def _call_json(a: int, b: int, style: int) -> str:
    arguments = {"a": a, "b": b}
    call = {"name": "add", "arguments": arguments}
    return [
        json.dumps(call),
        f"```json\n{json.dumps(call)}\n```",
        f"<tool_call>\n{json.dumps(call)}\n</tool_call>",
        json.dumps([call]),
        json.dumps({"type": "function", "function": {"name": "add", "parameters": arguments}}),
        json.dumps({"name": "add", "arguments": json.dumps(arguments)}),
    ][style]


def _call_syntax(a: int, b: int, style: int) -> str:
    """``add`` in Python call syntax inside ``<tool_call>`` tags, as the bundled model writes it."""
    return [
        f"<tool_call>add({a}, {b})</tool_call>",
        f"<tool_call>add(a={a}, b={b})</tool_call>",
        f"<tool_call>\nadd({a}, b={b})\n</tool_call>",
        f'<tool_call>add({{"a": {a}, "b": {b}}})</tool_call>',
        f"<TOOL_CALL>`add({a}, {b})`</tool_call>",
    ][style]


#: What ``continue_chat`` knows of DemoToolBox's ``add`` to read ``add(1, 2)``.
ADD_NAMES, ADD_PARAMETERS = ["add"], positional_parameters({"add": AddArgs.model_json_schema()})


def _react(a: int, b: int, style: int) -> str:
    arguments = json.dumps({"a": a, "b": b})
    return [
        f"Action: add\nAction Input: {arguments}",
        f"ACTION :  add \naction input:\n```json\n{arguments}\n```",
        f"Action: `add`\nAction Input: {arguments}",
        f"**Action:** add\n**Action Input:** {arguments}",
        f"Thought: I need to add.\nAction: add\nAction Input: {arguments}",
    ][style]


@st.composite
def call_replies(
    draw: st.DrawFn, native: bool, a: int | None = None, b: int | None = None
) -> tuple[object, str]:
    """A reply that calls ``add`` (with ``a`` and ``b``, or numbers drawn), and the talk before
    the call (what the stream may say of it)."""
    a = draw(numbers) if a is None else a
    b = draw(numbers) if b is None else b
    talk = draw(st.one_of(st.just(""), prose))
    kinds = ["json", "react", "syntax"]
    kind = draw(st.sampled_from([*kinds, "native"] if native else kinds))
    if kind == "native":
        return tool_calls(("add", {"a": a, "b": b}), content=talk), talk
    if kind == "json":
        call = _call_json(a, b, draw(st.integers(0, 5)))
        before = talk + draw(st.sampled_from([" ", "\n", "\n\n"])) if talk else ""
    elif kind == "syntax":
        call = _call_syntax(a, b, draw(st.integers(0, 4)))
        before = talk + draw(st.sampled_from(["", " ", "\n", "\n\n"])) if talk else ""
    else:
        call = _react(a, b, draw(st.integers(0, 4)))
        before = talk + "\n" if talk else ""
    after = draw(
        st.sampled_from(
            [
                "",
                "\nObservation: 3\nFinal Answer: 3",
                " I will wait for it.",
                "\n<tool_response>3</tool_response>",
            ]
        )
    )
    return before + call + after, talk


@st.composite
def answer_replies(draw: st.DrawFn) -> tuple[str, str, str]:
    """A final-answer reply, the talk before its marker (if any), and the answer it holds."""
    answer = draw(answer_prose).strip()
    style = draw(st.integers(0, 6))
    if style == 0:
        return answer, "", answer
    if style == 6:  # the model writes a tool result of its own after the answer: cut, never spoken
        return f'{answer}\n<tool_response>\n{{"result": 7}}\n</tool_response>\nIt is 7.', "", answer
    talk = draw(prose) if style == 5 else ""
    marker = ["Final Answer: ", "Thought: done.\nFinal Answer: ", "FINAL_ANSWER: ", "**Final Answer:** "]
    return (f"{talk}\n{marker[0]}" if talk else marker[style - 1]) + answer, talk, answer


def _chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[x:y] for x, y in itertools.pairwise(points)]


def _joined(parts: list[str]) -> str:
    """What the stream says for these parts: each joined to the one before as ``Speech`` does."""
    speech, out = Speech(), ""
    for part in parts:
        if part:
            out += speech.say(speech.separator() + part)
    return out


@st.composite
def scripts(draw: st.DrawFn, native: bool) -> tuple[list[object], str, str]:
    """A script (calls, then an answer) with each text reply in random chunks; the expected stream."""
    script: list[object] = []
    talks: list[str] = []
    # distinct calls: asking again for the result just given goes to the forced answer, whose
    # grounding is tested in test_grounded_answers.py
    for a, b in draw(st.lists(st.tuples(numbers, numbers), max_size=2, unique=True)):
        reply, talk = draw(call_replies(native, a, b))
        script.append(reply)
        talks.append(talk)
    reply, talk, answer = draw(answer_replies())
    script.append(reply)
    talks.append(talk)
    cuts = st.lists(st.integers(0, 10_000), max_size=6)
    chunked = [in_chunks(*_chunked(r, draw(cuts))) if isinstance(r, str) else r for r in script]
    return chunked, _joined([t.strip() for t in talks[:-1]] + [talks[-1].strip(), answer]), answer


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_stream_is_the_answer_after_the_talk(entry_point: str, mode: str, data: st.DataObject) -> None:
    script, expected, answer = data.draw(scripts(native=mode != "text"))
    outcomes = {}
    for how in ("continue_chat", "stream_tokens", "stream_sentences"):
        brain = ScriptedBrain(list(script))
        engine = engine_with(brain, [DemoToolBox()], entry_point=entry_point, mode=mode)
        if how == "continue_chat":
            outcomes[how] = engine.continue_chat(user("add them")).content
        elif how == "stream_tokens":
            outcomes[how] = "".join(engine.stream_tokens(user("add them")))
        else:
            outcomes[how] = list(engine.stream_sentences(user("add them")))
        brain.assert_complete()
    assert outcomes["continue_chat"] == answer
    assert outcomes["stream_tokens"] == expected
    # the voice's sentences: the same text, made speakable (``_text.speech``)
    assert outcomes["stream_sentences"] == spoken_sentences(expected)
    for leak in LEAKS + MARKERS:
        assert leak not in outcomes["stream_tokens"]


@settings(max_examples=150, deadline=None)
@given(reply=call_replies(native=False))
def test_a_call_reply_split_at_every_boundary_says_only_its_talk(reply: tuple[object, str]) -> None:
    text, talk = reply
    assert isinstance(text, str) and parse_reply(text, ADD_NAMES, ADD_PARAMETERS).calls
    for cut in range(len(text) + 1):
        gate = FinalAnswerGate(Speech())
        said = gate.feed(text[:cut]) + gate.feed(text[cut:]) + gate.close()
        assert said == talk.strip(), f"cut at {cut}: {text[:cut]!r} | {text[cut:]!r}"


@settings(max_examples=150, deadline=None)
@given(reply=answer_replies())
def test_an_answer_reply_split_at_every_boundary_is_its_answer(reply: tuple[str, str, str]) -> None:
    text, talk, answer = reply
    assert parse_reply(text).answer == answer
    for cut in range(len(text) + 1):
        gate = FinalAnswerGate(Speech())
        said = gate.feed(text[:cut]) + gate.feed(text[cut:]) + gate.close()
        assert gate.part == answer[: len(gate.part)], f"cut at {cut}: not a prefix of the answer"
        said += gate.finish(answer)
        assert said == _joined([talk.strip(), answer]), f"cut at {cut}: {text[:cut]!r} | {text[cut:]!r}"


# What a model may write inside <tool_call> tags that is no readable call: brushes against every
# protocol spelling, the calculator's name, parentheses and quotes, and a made-up result.
INSIDE_WORDS = ["add", "(", ")", "1", "'x'", '"y"', "a=", ", ", "{", "}", "[", "`", "\n", " "]
INSIDE_WORDS += ["evaluate_expression", "sqrt(1764)", "Final Answer:", "Thought:", "It is 42.", "no_tool("]


@st.composite
def tagged_replies(draw: st.DrawFn) -> tuple[str, str]:
    """A reply with something non-blank in ``<tool_call>`` tags (a call or not), and its talk."""
    talk = draw(st.one_of(st.just(""), prose))
    inside = draw(st.lists(st.sampled_from(INSIDE_WORDS), min_size=1, max_size=8).map("".join))
    inside = inside if inside.strip() else "x"
    closing = draw(st.sampled_from(["</tool_call>", ""]))
    after = draw(st.sampled_from(["", " It is 42.", "\nFinal Answer: 42", "\nThe answer is 42."]))
    before = talk + draw(st.sampled_from(["", " ", "\n"])) if talk else ""
    return f"{before}<tool_call>{inside}{closing}{after}", talk


@settings(max_examples=200, deadline=None)
@given(reply=tagged_replies())
def test_what_tool_call_tags_hold_is_never_an_answer_nor_spoken(reply: tuple[str, str]) -> None:
    text, talk = reply
    parsed = parse_reply(text, ADD_NAMES, ADD_PARAMETERS)
    assert parsed.answer is None and (parsed.calls or parsed.problem), text
    for cut in range(len(text) + 1):
        gate = FinalAnswerGate(Speech())
        said = gate.feed(text[:cut]) + gate.feed(text[cut:]) + gate.close()
        assert said == talk.strip(), f"cut at {cut}: {text[:cut]!r} | {text[cut:]!r}"
