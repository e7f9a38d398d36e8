"""A call written as markup of the model's own invention: on its stock
template the bundled model wrote ``<tools> <function name="evaluate_expression"> <arguments> ...``
and it came back as the spoken answer. Markup that names a tool runs as the call; any such
markup is never spoken, streamed or not."""

from __future__ import annotations

import pytest
from engine_helpers import ENGINES_AND_MODES, engine_with, streamed_and_answered, user
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop.testing import ScriptedBrain

XML_CALL = (
    'Let me calculate that.\n<tools>\n<function name="evaluate_expression">\n<arguments>\n'
    '{"expression": "15% of 2350"}\n</arguments>\n</function>\n</tools>'
)
ELEMENT_CALL = (
    '<tools> <function name="evaluate_expression"> <arguments> <expression>15% of 2350</expression> '
    "</arguments> </function> </tools>"
)
ATTRIBUTE_CALL = (
    '<function=evaluate_expression><parameter name="expression">15% of 2350</parameter></function>'
)


def maths() -> list:
    return [find_toolbox_plugins()["ovos-math-tools"](config={})]


@pytest.mark.parametrize("reply", [XML_CALL, ELEMENT_CALL, ATTRIBUTE_CALL])
def test_a_call_written_as_markup_runs_and_is_never_the_answer(reply: str) -> None:
    events: list = []
    brain = ScriptedBrain([reply, "15% of 2350 is 352.5."])
    engine = engine_with(brain, maths())
    engine.add_step_listener(events.append)
    answer = engine.continue_chat(user("whats fifteen percent of two thousand three hundred and fifty"))
    assert answer.content == "15% of 2350 is 352.5."
    results = [e for e in events if e.kind == "tool_result"]
    assert [(e.data["name"], e.data["ok"]) for e in results] == [("evaluate_expression", True)]
    assert "352.5" in brain.calls[1].messages[-1].content  # the model saw the real result
    brain.assert_complete()


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
@pytest.mark.parametrize("reply", [XML_CALL, ELEMENT_CALL, ATTRIBUTE_CALL])
def test_markup_is_never_spoken_while_streaming(entry_point: str, mode: str, reply: str) -> None:
    streamed, answer, sentences = streamed_and_answered(
        entry_point, mode, [reply, "It is 352.5."], maths, question="15% of 2350?"
    )
    assert answer == "It is 352.5."
    assert "<" not in streamed and "evaluate_expression" not in streamed
    assert streamed.endswith("It is 352.5.")
    assert all("<" not in s for s in sentences)


def test_markup_naming_no_tool_is_a_format_problem_not_an_answer() -> None:
    brain = ScriptedBrain(['<tools><function name="calculator"></function></tools>', "It is 352.5."])
    engine = engine_with(brain, maths())
    answer = engine.continue_chat(user("15% of 2350?"))
    assert answer.content == "It is 352.5."
    assert "markup" in brain.calls[1].last.content  # the correction says what was wrong
    brain.assert_complete()


def test_html_in_an_answer_is_not_markup_of_a_call() -> None:
    brain = ScriptedBrain(["Use <b>bold</b> for emphasis."])
    engine = engine_with(brain, maths())
    assert engine.continue_chat(user("how do I make text bold in html")).content == (
        "Use <b>bold</b> for emphasis."
    )


def test_a_hyphenated_tool_call_tag_is_protocol_too() -> None:
    """Seen on the spoken suite's held-out half (stock template): the answer came back as
    ``<tool-call>list_directory</tool-call>\\n<result>{...}`` and was spoken."""
    from ovos_agentic_loop._text.protocol import parse_reply

    parsed = parse_reply('<tool-call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool-call>', ["add"], {})
    assert [(c.name, c.arguments) for c in parsed.calls] == [("add", {"a": 1, "b": 2})]
    unread = parse_reply(
        '<tool-call>list_directory</tool-call>\n<result>{"path": "."}', ["list_directory"], {}
    )
    assert unread.answer is None and unread.problem  # never spoken: sent back as a format problem
