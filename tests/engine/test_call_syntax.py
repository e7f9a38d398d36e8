"""Calls written in Python call syntax inside ``<tool_call>`` tags (seen from the bundled model).

With Qwen2.5-Coder-1.5B on llama-server's stock chat template, asked to call a tool, the model
wrote ``<tool_call>evaluate_expression('sqrt(1764)')</tool_call>`` and a made-up result as plain
content. The call must run, and nothing inside the tags may ever be spoken: a call that names no
tool or cannot be read is sent back for a correction, like any other unreadable call.
"""

from __future__ import annotations

import pytest
from conftest import DemoToolBox
from engine_helpers import ENGINES_AND_MODES, engine_with, user

from ovos_agentic_loop._text.protocol import ParsedCall, parse_reply, positional_parameters
from ovos_agentic_loop._text.stream_gate import FinalAnswerGate, Speech
from ovos_agentic_loop.testing import ScriptedBrain, in_chunks
from ovos_agentic_loop_toolboxes.maths import EvaluateExpressionArgs, EvaluateExpressionOutput, MathToolBox

SEEN_REPLY = "<tool_call>evaluate_expression('sqrt(1764)')</tool_call>\nThe square root of 1764 is 42."
ANSWER = "The square root of 1764 is 42."
LEAKS = ("evaluate_expression(", "<tool_call", "</tool_call", "sqrt(1764)")


class RecordingMath(MathToolBox):
    """The bundled calculator, recording every expression it really evaluated."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        super().__init__()

    def evaluate_expression(self, args: EvaluateExpressionArgs) -> EvaluateExpressionOutput:
        self.ran.append(args.expression)
        return super().evaluate_expression(args)


# -- through the public contract ------------------------------------------------------


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_the_seen_call_runs_the_calculator_and_is_never_the_answer(entry_point: str, mode: str) -> None:
    math = RecordingMath()
    brain = ScriptedBrain([SEEN_REPLY, ANSWER])
    engine = engine_with(brain, [math], entry_point=entry_point, mode=mode)

    answer = engine.continue_chat(user("What is the square root of 1764?")).content

    assert math.ran == ["sqrt(1764)"]
    assert answer == ANSWER
    for leak in LEAKS:
        assert leak not in answer
    brain.assert_complete()
    # the model saw the calculator's real result before it answered
    assert '"result": "42"' in "\n".join(m.content or "" for m in brain.calls[1].messages)


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_the_seen_call_streamed_in_any_chunks_speaks_only_the_answer(entry_point: str, mode: str) -> None:
    for size in (1, 3, 7, len(SEEN_REPLY)):
        chunks = [SEEN_REPLY[i : i + size] for i in range(0, len(SEEN_REPLY), size)]
        math = RecordingMath()
        brain = ScriptedBrain([in_chunks(*chunks), ANSWER])
        engine = engine_with(brain, [math], entry_point=entry_point, mode=mode)

        spoken = list(engine.stream_sentences(user("What is the square root of 1764?")))

        assert math.ran == ["sqrt(1764)"], size
        assert spoken == [ANSWER], size
        brain.assert_complete()


@pytest.mark.parametrize(
    "reply",
    [
        "<tool_call>no_such_tool('sqrt(1764)')</tool_call>\nIt is 42.",
        "<tool_call>evaluate_expression('sqrt(1764)', 'extra')</tool_call>\nIt is 42.",
        "<tool_call>evaluate_expression(sqrt(1764))</tool_call>\nIt is 42.",
        "<tool_call>import os; os.system('x')</tool_call>\nIt is 42.",
        "<tool_call>evaluate_expression('sqrt(1764)'</tool_call>\nIt is 42.",
        "Let me calculate.\n<tool_call>math.sqrt(1764)</tool_call>",
    ],
)
@pytest.mark.parametrize(("entry_point", "mode"), [("ovos-react-loop", "auto"), ("ovos-react-loop", "text")])
def test_an_unreadable_call_in_tags_is_corrected_never_spoken(
    entry_point: str, mode: str, reply: str
) -> None:
    for how in ("continue_chat", "stream_sentences"):
        math = RecordingMath()
        brain = ScriptedBrain([reply, "I need the calculator for that."])
        engine = engine_with(brain, [math], entry_point=entry_point, mode=mode)
        if how == "continue_chat":
            said = engine.continue_chat(user("sqrt(1764)?")).content
        else:
            said = " ".join(engine.stream_sentences(user("sqrt(1764)?")))
        assert math.ran == []
        assert "did not follow the format" in brain.calls[1].last.content
        assert said.endswith("I need the calculator for that."), how
        assert "42" not in said and "(" not in said, how
        brain.assert_complete()


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_talk_before_a_call_in_tags_is_said_then_the_answer(entry_point: str, mode: str) -> None:
    # (no calculator here: a reply the loop may still send back for a calculation is held whole)
    reply = "Let me add them.\n<tool_call>add(2, b=40)</tool_call>\nThe sum is 42."
    for how in ("continue_chat", "stream_tokens"):
        tools = DemoToolBox()
        engine = engine_with(ScriptedBrain([reply, "It is 42."]), [tools], entry_point=entry_point, mode=mode)
        if how == "continue_chat":
            assert engine.continue_chat(user("2 + 40?")).content == "It is 42."
        else:
            assert "".join(engine.stream_tokens(user("2 + 40?"))) == "Let me add them. It is 42."
        assert tools.calls == [("add", {"a": 2, "b": 40})]


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("<tool_call>Thought: I need add.\nFinal Answer: 42", ""),  # the tag decorates a protocol line
        ("Thought: I will add <tool_call>add(1, 2)</tool_call>\nFinal Answer: 3", ""),  # in a Thought
        ("Thought: x Final Answer: it is <tool_call>add(1, 2)", ""),
        ("It is <TOOL_CALL>add(1, 2)</tool_call> three.", "It is"),
    ],
)
def test_the_gate_says_nothing_from_an_opening_tag_on_at_any_cut(reply: str, said: str) -> None:
    assert parse_reply(reply, ["add"], {"add": ["a", "b"]}).answer is None
    for cut in range(len(reply) + 1):
        gate = FinalAnswerGate(Speech())
        assert gate.feed(reply[:cut]) + gate.feed(reply[cut:]) + gate.close() == said, cut


# -- the parser -----------------------------------------------------------------------

NAMES = ["evaluate_expression", "add", "sleep", "fail"]
PARAMETERS = {
    "evaluate_expression": ["expression"],
    "add": ["a", "b"],
    "sleep": ["seconds"],
    "fail": ["message"],
}


def _parse(text: str):
    return parse_reply(text, NAMES, PARAMETERS)


@pytest.mark.parametrize(
    ("inside", "call"),
    [
        (
            "evaluate_expression('sqrt(1764)')",
            ParsedCall("evaluate_expression", {"expression": "sqrt(1764)"}),
        ),
        ('evaluate_expression("2 + 3")', ParsedCall("evaluate_expression", {"expression": "2 + 3"})),
        ("evaluate_expression(expression='2^10')", ParsedCall("evaluate_expression", {"expression": "2^10"})),
        (
            'evaluate_expression({"expression": "1/3"})',
            ParsedCall("evaluate_expression", {"expression": "1/3"}),
        ),
        ("add(2, 40)", ParsedCall("add", {"a": 2, "b": 40})),
        ("add(2, b=40)", ParsedCall("add", {"a": 2, "b": 40})),
        ("add(a=-2, b=4.5)", ParsedCall("add", {"a": -2, "b": 4.5})),
        ("sleep(seconds=1, label='x')", ParsedCall("sleep", {"seconds": 1, "label": "x"})),
        ("sleep(0.5)", ParsedCall("sleep", {"seconds": 0.5})),
        ("fail('boom')", ParsedCall("fail", {"message": "boom"})),  # its only parameter, optional
        ("fail()", ParsedCall("fail", {})),
        ("Evaluate_Expression('1')", ParsedCall("evaluate_expression", {"expression": "1"})),
        ("\n `add(1, 2)` \n", ParsedCall("add", {"a": 1, "b": 2})),
        ("add(**{'a': 1, 'b': 2})", None),
        ('evaluate_expression({"expression": "x", "flag": true})', None),
    ],
)
def test_call_syntax_in_tags_is_read_with_the_tools_parameters(inside: str, call: ParsedCall | None) -> None:
    parsed = _parse(f"<tool_call>{inside}</tool_call>\nIt is 42.")
    assert parsed.answer is None
    if call is None:
        assert parsed.calls == [] and parsed.problem
    else:
        assert parsed.calls == [call] and parsed.problem is None


@pytest.mark.parametrize(
    "inside",
    [
        "unknown_tool('x')",  # names no available tool
        "add(1, 2, 3)",  # more positional arguments than required parameters
        "add(1, a=2)",  # the same argument twice
        "evaluate_expression(sqrt(1764))",  # not a literal
        "evaluate_expression('a') + 1",  # not a plain call
        "os.system('ls')",  # not a plain name
        "evaluate_expression('a')\nadd(1, 2)",  # two statements
        "evaluate_expression('a'",  # not Python
        "evaluate_expression({1, 2})",  # a set: not JSON
        "evaluate_expression(b'x')",  # bytes: not JSON
        "lambda: 1",
        "Sure! The answer is 42.",  # prose inside the tags is still never the answer
    ],
)
def test_unreadable_call_syntax_in_tags_is_a_problem_never_an_answer(inside: str) -> None:
    for closing in ("</tool_call>", ""):
        parsed = _parse(f"<tool_call>{inside}{closing}\nIt is 42.")
        assert parsed.calls == [] and parsed.answer is None
        assert parsed.problem and "tool call" in parsed.problem
        assert "did not follow the format" in parsed.correction()


def test_positional_arguments_need_the_tools_parameters() -> None:
    # Without the parameter names (an old caller), keywords still work; positional ones cannot map.
    assert parse_reply("<tool_call>add(a=1, b=2)</tool_call>", NAMES).calls == [
        ParsedCall("add", {"a": 1, "b": 2})
    ]
    assert parse_reply("<tool_call>add(1, 2)</tool_call>", NAMES).problem


def test_json_calls_in_tags_and_react_calls_are_read_as_before() -> None:
    json_call = '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'
    assert _parse(json_call).calls == [ParsedCall("add", {"a": 1, "b": 2})]
    react = 'Action: add\nAction Input: {"a": 1, "b": 2}'
    assert _parse(react).calls == [ParsedCall("add", {"a": 1, "b": 2})]
    # several calls keep their order, whatever their spelling
    both = f"<tool_call>fail('x')</tool_call>\n{json_call}\n<tool_call>sleep(1)</tool_call>"
    assert [c.name for c in _parse(both).calls] == ["fail", "add", "sleep"]


def test_stray_or_empty_tags_are_dropped_from_an_answer() -> None:
    assert _parse("It is 42.</tool_call>").answer == "It is 42."
    assert _parse("<tool_call></tool_call>It is 42.").answer == "It is 42."


def test_a_call_past_the_scan_bound_is_not_read() -> None:
    from ovos_agentic_loop._text.protocol import MAX_CALL_SCAN_CHARS

    text = "x" * MAX_CALL_SCAN_CHARS + "<tool_call>add(1, 2)</tool_call>"
    parsed = _parse(text)
    assert parsed.calls == [] and parsed.answer is not None


def test_a_huge_or_deep_call_is_refused_quickly() -> None:
    deep = "add(" + "[" * 5000 + "]" * 5000 + ", 1)"
    assert _parse(f"<tool_call>{deep}</tool_call>").problem
    long = "evaluate_expression('" + "1+" * 30_000 + "1')"
    parsed = _parse(f"<tool_call>{long}</tool_call>")
    assert parsed.calls and len(parsed.calls[0].arguments["expression"]) == 60_001


def test_positional_parameters_from_schemas() -> None:
    schemas = {
        "add": {"properties": {"a": {}, "b": {}}, "required": ["a", "b"]},
        "sleep": {"properties": {"seconds": {}, "label": {}}, "required": ["seconds"]},
        "fail": {"properties": {"message": {}}},
        "many": {"properties": {"x": {}, "y": {}}},
        "none": {},
        "odd": {"properties": ["x"], "required": "x"},
    }
    assert positional_parameters(schemas) == {
        "add": ["a", "b"],
        "sleep": ["seconds"],
        "fail": ["message"],
        "many": [],
        "none": [],
        "odd": [],
    }
