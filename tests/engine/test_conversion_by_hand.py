"""Units converted by hand in the calculator, while the converter is offered, are not run: the
model hears which tool converts exactly and the question as said. Calculations that convert
nothing, or that hold only the user's numbers, run."""

from __future__ import annotations

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._rules.conversions import converted_by_hand
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._tools.toolset import PersonaTools, ToolSet
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def _toolboxes() -> list:
    plugins = find_toolbox_plugins()
    return [plugins[name](config={}) for name in ("ovos-math-tools", "ovos-clock-tools")]


TOOLS = PersonaTools(_toolboxes(), engine_name="test").current()


def _view(question: str, expression: str, lang: str = "en-US") -> TurnView:
    view = TurnView(TOOLS, [AgentMessage(MessageRole.USER, question)], {}, False, lang=lang)
    return view.with_calls([tool_call("evaluate_expression", expression=expression).tool_calls[0]])


@pytest.mark.parametrize(
    ("question", "expression", "lang"),
    [
        ("how many pounds is seventy kilos", "70 * 0.45359237", "en-US"),
        ("wie viele meilen sind hundert kilometer", "100 / 1.6", "de-DE"),
        ("whats ninety eight point six fahrenheit in celsius", "98.6 * 5 / 9", "en-US"),
        ("whats minus four fahrenheit in celsius", "-4 * 9 / 5 + 32", "en-US"),  # the other direction
        ("whats twenty five celsius in fahrenheit", "(25 + 32) * 9 / 5", "en-US"),
        ("quantas libras são dois quilos", "2 * 2.20462", "pt-PT"),
    ],
)
def test_a_conversion_in_the_calculator_is_held_naming_the_converter(
    question: str, expression: str, lang: str
) -> None:
    found = converted_by_hand(_view(question, expression, lang))
    assert found is not None and found.converter == "unit_convert" and found.expression == expression
    assert "Call unit_convert with the amount and the two units as the user said them" in found.message
    assert found.said_call  # each of these says the conversion in a form the loop reads


@pytest.mark.parametrize(
    ("question", "lang", "expression", "call"),
    [
        ("how many pounds is seventy kilos", "en-US", "70 * 2.2", (70, "kilos", "pounds")),
        ("wie viele meilen sind hundert kilometer", "de-DE", "100 / 1.6", (100, "kilometer", "meilen")),
        (
            "whats ninety eight point six fahrenheit in celsius",
            "en-US",
            "98.6 * 5 / 9",
            (98.6, "fahrenheit", "celsius"),
        ),
        (
            "whats minus four degrees fahrenheit in celsius",
            "en-US",
            "-4 * 9 / 5 + 32",
            (-4, "fahrenheit", "celsius"),
        ),
        (
            "convert one hundred and fifty pounds to kilograms",
            "en-US",
            "150 * 0.4536",
            (150, "pounds", "kilograms"),
        ),
    ],
)
def test_the_converters_call_is_read_from_the_question_as_said(
    question: str, lang: str, expression: str, call: tuple[float, str, str]
) -> None:
    found = converted_by_hand(_view(question, expression, lang))
    assert found is not None
    assert dict(found.said_call) == {"value": call[0], "from_unit": call[1], "to_unit": call[2]}


def test_a_conversion_said_otherwise_is_left_to_the_model_with_the_converter_named() -> None:
    found = converted_by_hand(_view("i weigh seventy kilos whats that in pounds", "70 * 2.20462"))
    assert found is not None and found.said_call == ()
    assert "Call unit_convert" in found.message


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("i drive forty five kilometers a day how many kilometers is that in a week", "45 * 7"),
        ("whats fifteen percent of two thousand three hundred and fifty", "15% of 2350"),
        ("how many grams is two pounds and how many is that times three", "2 * 3"),  # numbers said, no factor
        # the formula the direction needs: the stock template, held, answered from its head
        ("whats twenty five celsius in fahrenheit", "25 * 9 / 5 + 32"),
        ("whats seventy seven fahrenheit in celsius", "(77 - 32) * 5 / 9"),
        ("whats minus ten fahrenheit in celsius", "((-10) - 32) / 1.8"),
    ],
)
def test_a_calculation_that_converts_nothing_or_holds_no_factor_runs(question: str, expression: str) -> None:
    assert converted_by_hand(_view(question, expression)) is None


def test_without_a_converter_of_amounts_the_calculator_may_convert() -> None:
    """The clock's converters take a time and a zone, no amount: they are no converter of units."""
    without = ToolSet(tuple(t for t in TOOLS.tools if t.name != "unit_convert"), {}, frozenset())
    view = TurnView(without, [AgentMessage(MessageRole.USER, "how many pounds is 70 kilos")], {}, False)
    call = tool_call("evaluate_expression", expression="70 * 2.20462").tool_calls[0]
    assert converted_by_hand(view.with_calls([call])) is None


def test_the_conversion_as_said_is_made_by_the_loop_through_continue_chat() -> None:
    brain = ScriptedBrain(
        [tool_call("evaluate_expression", expression="70 * 0.45359237"), "Seventy kilos is 154.32 pounds."]
    )
    engine = engine_with(brain, _toolboxes())
    answer = engine.continue_chat(user("how many pounds is seventy kilos")).content

    assert answer == "Seventy kilos is 154.32 pounds."
    made = brain.calls[1].messages[-2].tool_calls
    assert [(c.name, c.arguments) for c in made] == [
        ("unit_convert", {"value": 70, "from_unit": "kilos", "to_unit": "pounds"})
    ]
    assert '"result": 154.323583529' in (brain.calls[1].last.content or "")
    brain.assert_complete()


def test_a_conversion_said_otherwise_sends_the_model_to_the_converter() -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="70 * 2.20462"),
            tool_call("unit_convert", value=70, from_unit="kg", to_unit="lb"),
            "It is 154.32 pounds.",
        ]
    )
    engine_with(brain, _toolboxes()).continue_chat(user("i weigh seventy kilos whats that in pounds"))
    held = brain.calls[1].last.content or ""
    assert "converts units by hand" in held and "unit_convert" in held
    brain.assert_complete()
