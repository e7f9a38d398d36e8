"""A dropped sign: a call holding N where the user said minus N is not run (spoken suite).

Asked "whats minus five celsius in fahrenheit", the bundled model called ``unit_convert`` with
``value: 5`` and said "5 °C = 41 °F"; "minus ten fahrenheit in celsius" became ``value: 10`` and
-12.2 °C. The sign is in the question ("minus five" is -5 in digits); the call is sent back once
with the number to use, and a minus between two numbers ("seven minus twelve") is no sign."""

from __future__ import annotations

import json

import pytest
from engine_helpers import engine_with, saying_the_result, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._text.numbers import in_digits
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def maths() -> list:
    return [find_toolbox_plugins()["ovos-math-tools"](config={})]


@pytest.mark.parametrize(
    ("question", "tool", "wrong", "right", "said"),
    [
        (
            "whats minus five celsius in fahrenheit",
            "unit_convert",
            {"value": 5, "from_unit": "deg C", "to_unit": "deg F"},
            {"value": -5, "from_unit": "deg C", "to_unit": "deg F"},
            "-5",
        ),
        (
            "whats minus ten minus thirty two times five",
            "evaluate_expression",
            {"expression": "(10 - 32) * 5"},
            {"expression": "((-10) - 32) * 5"},
            "-10",
        ),
        (
            "whats minus twenty times nine",
            "evaluate_expression",
            {"expression": "20 * 9"},
            {"expression": "(-20) * 9"},
            "-20",
        ),
        ("and minus seven", "evaluate_expression", {"expression": "7"}, {"expression": "-7"}, "-7"),
    ],
)
def test_a_call_that_dropped_the_users_minus_is_sent_back_with_the_call_signed(
    question: str, tool: str, wrong: dict, right: dict, said: str
) -> None:
    brain = ScriptedBrain([tool_call(tool, **wrong), tool_call(tool, **right), saying_the_result])
    engine_with(brain, maths()).continue_chat(user(question))
    held = brain.calls[1].last
    assert held.role == MessageRole.TOOL and held.content.startswith("Not run:")
    assert f"minus {said.lstrip('-')} ({said})" in held.content
    # the message holds the call to make: told only "-20", the model sent "-20" alone
    assert held.content.endswith(f"again with {said}: {json.dumps(right)}")
    ran = brain.calls[2].last
    assert ran.role == MessageRole.TOOL and '"result"' in ran.content
    brain.assert_complete()


@pytest.mark.parametrize(
    ("question", "tool", "arguments"),
    [
        ("whats seven minus twelve", "evaluate_expression", {"expression": "7 - 12"}),
        ("whats twelve minus seven", "evaluate_expression", {"expression": "12 - 7"}),
        ("whats minus five plus seven", "evaluate_expression", {"expression": "-5 + 7"}),
        (
            "whats minus five celsius in fahrenheit",
            "unit_convert",
            {"value": -5, "from_unit": "deg C", "to_unit": "deg F"},
        ),
        (
            "whats five celsius in fahrenheit",
            "unit_convert",
            {"value": 5, "from_unit": "deg C", "to_unit": "deg F"},
        ),
        (
            "whats minus five and five celsius in fahrenheit",
            "unit_convert",
            {"value": 5, "from_unit": "deg C", "to_unit": "deg F"},
        ),
        ("whats zero minus five", "evaluate_expression", {"expression": "0 - 5"}),
    ],
)
def test_a_call_with_the_users_signs_runs_at_once(question: str, tool: str, arguments: dict) -> None:
    brain = ScriptedBrain([tool_call(tool, **arguments), saying_the_result])
    engine_with(brain, maths()).continue_chat(user(question))
    assert '"result"' in brain.calls[1].last.content
    brain.assert_complete()


def test_sent_back_once_then_the_call_runs() -> None:
    wrong = tool_call("unit_convert", value=5, from_unit="deg C", to_unit="deg F")
    brain = ScriptedBrain(
        [wrong, tool_call("unit_convert", value=5, from_unit="deg C", to_unit="deg F"), "41"]
    )
    engine_with(brain, maths()).continue_chat(user("whats minus five celsius in fahrenheit"))
    assert brain.calls[1].last.content.startswith("Not run:")
    assert '"result"' in brain.calls[2].last.content  # insisted on: it runs
    brain.assert_complete()


@pytest.mark.parametrize(
    ("text", "lang", "digits"),
    [
        ("whats seven minus twelve", "en", "whats 7 minus 12"),
        ("whats minus five celsius in fahrenheit", "en", "whats -5 celsius in fahrenheit"),
        ("three hundred minus forty minus two", "en", "300 minus 40 minus 2"),
        ("sieben minus zwölf", "de", "7 minus 12"),
        ("minus fünf grad", "de", "-5 grad"),
        ("sete menos doze", "pt", "7 menos 12"),
        ("plus or minus a bit", "en", "plus or minus a bit"),  # no number beside it: a word
        ("whats seven Minus twelve", "en-US", "whats 7 Minus 12"),
    ],
)
def test_a_minus_between_two_numbers_keeps_both(text: str, lang: str, digits: str) -> None:
    """ovos-number-parser 0.19 reads "seven minus twelve" as -12 ("sete menos doze" as -19)."""
    assert in_digits(text, lang) == digits
