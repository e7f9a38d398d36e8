"""solve_equation sent a calculation: where the small model's intent is unambiguous, the tool does
what it means and says how it read the request, instead of refusing ("Tools that do what the model
means").

Reached through ``call_tool``, the way a loop reaches a toolbox."""

from __future__ import annotations

from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop_toolboxes.maths.toolbox import SolveEquationOutput


@pytest.fixture(scope="module")
def tb() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={"lang": "en-US"})


def refusal(tb: ToolBox, name: str, **kwargs: Any) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(name, kwargs)
    assert excinfo.value.__cause__ is not None
    return str(excinfo.value.__cause__)


def test_an_expression_without_equals_or_unknown_is_evaluated(tb: ToolBox) -> None:
    # A real transcript: this was refused three times in a row, and the model then worked the
    # compound interest out in its head ($1687.32 instead of 1687.30).
    out = tb.call_tool("solve_equation", {"equation": "1500 * (1 + 0.04/1)^3"})
    calculator = tb.call_tool("evaluate_expression", {"expression": "1500 * (1 + 0.04/1)^3"})
    assert out.result == calculator.result == "1687.296"
    assert (out.solutions, out.decimal, out.method) == (["1687.296"], [1687.296], "evaluated")
    assert out.variable == ""
    assert out.reading == "no '=' given and no unknown: evaluated the expression"
    assert out.equation == "1500 * (1 + 0.04/1)^3"


@pytest.mark.parametrize(
    ("expression", "result", "decimal"),
    [
        ("2^10", "1024", [1024.0]),  # '^' is a power, as the calculator reads it (not Python's xor)
        ("1/3", "1/3", [pytest.approx(1 / 3)]),  # exact, with its decimal beside it
        ("15% of 80", "12", [12.0]),
        ("sqrt(16) + pi - pi", "4", [4.0]),
    ],
)
def test_the_value_is_the_calculators(tb: ToolBox, expression: str, result: str, decimal: list[Any]) -> None:
    out = tb.call_tool("solve_equation", {"equation": expression})
    assert out.result == tb.call_tool("evaluate_expression", {"expression": expression}).result == result
    assert out.solutions == [result] and out.decimal == decimal and out.method == "evaluated"


def test_a_calculation_in_words_says_how_it_was_read(tb: ToolBox) -> None:
    out = tb.call_tool("solve_equation", {"equation": "two plus two"})
    assert out.result == "4" and out.solutions == ["4"]
    assert out.reading == "no '=' given and no unknown: evaluated the expression, read as '2 + 2'"


@pytest.mark.parametrize(
    ("expression", "advice"),
    [
        ("9**9**9", "digits"),  # the calculator's size bound holds here too
        ("5 * 5/9 + 32", "looks like a temperature formula"),  # and its temperature check
        ("__import__(1)", "is not allowed"),
        ("(1).real", "not allowed"),
    ],
)
def test_the_calculators_safety_holds(tb: ToolBox, expression: str, advice: str) -> None:
    assert advice in refusal(tb, "solve_equation", equation=expression)


def test_an_expression_with_one_unknown_is_solved_as_equal_to_zero_and_says_so(tb: ToolBox) -> None:
    out = tb.call_tool("solve_equation", {"equation": "x^2 - 4"})
    assert out.solutions == ["-2", "2"] and out.method == "quadratic"
    assert out.reading == "no '=' given: solved x^2 - 4 = 0 for x"
    assert out.result is None
    # An equation as written is read as written: nothing to explain.
    assert tb.call_tool("solve_equation", {"equation": "x^2 = 4"}).reading is None


def test_the_output_stays_backwards_compatible() -> None:
    # The new fields are optional: an output built the old way still validates, same names.
    old = SolveEquationOutput(equation="x = 1", variable="x", solutions=["1"], decimal=[1.0], method="linear")
    assert (old.result, old.reading, old.note) == (None, None, "")
    assert {"equation", "variable", "solutions", "decimal", "method", "note"} <= set(
        SolveEquationOutput.model_fields
    )


@pytest.mark.parametrize(
    ("equation", "kept", "advice"),
    [
        ("3 = 3", "no unknown", "send equation with one unknown"),  # an '=' given: no calculation meant
        ("x * y = 2", "only one unknown", "send equation with the known values written as numbers"),
        ("x * y", "only one unknown", "send equation with the known values written as numbers"),
        ("x = 1 = 2", "single '='", "send equation with a single '='"),
    ],
)
def test_a_refusal_says_what_to_send_in_equation(tb: ToolBox, equation: str, kept: str, advice: str) -> None:
    reason = refusal(tb, "solve_equation", equation=equation)
    assert kept in reason and advice in reason


def test_a_value_too_large_for_a_decimal_keeps_its_digits(tb: ToolBox) -> None:
    out = tb.call_tool("solve_equation", {"equation": "2^2000"})
    assert out.result == str(2**2000) and out.solutions == [out.result]
    assert out.decimal == [] and "too large for a decimal" in out.note
