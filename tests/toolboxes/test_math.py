"""Behaviour of ovos-math-tools, reached through OPM the way a loop reaches it."""

from __future__ import annotations

import math
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox


@pytest.fixture(scope="module")
def tb() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


def run(tb: ToolBox, name: str, **kwargs: Any) -> Any:
    return tb.call_tool(name, kwargs)


def error_of(tb: ToolBox, name: str, **kwargs: Any) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(name, kwargs)
    assert excinfo.value.__cause__ is not None
    return str(excinfo.value.__cause__)


def test_tools_and_argument_names(tb: ToolBox) -> None:
    schemas = {t["name"]: set(t["argument_schema"]["properties"]) for t in tb.tool_json_list}
    assert schemas == {
        "evaluate_expression": {"expression"},
        "solve_equation": {"equation"},
        "unit_convert": {"value", "from_unit", "to_unit"},
        "statistics_summary": {"numbers"},
    }
    assert "RADIANS" in tb.tools["evaluate_expression"].description


@pytest.mark.parametrize(
    ("expression", "result", "decimal", "exact"),
    [
        ("2**64", "18446744073709551616", None, True),
        ("2^64", "18446744073709551616", None, True),
        ("1/3", "1/3", "0.333333333333333", True),
        ("0.1 + 0.2", "0.3", None, True),
        ("19.99 * 3", "59.97", None, True),
        ("6 × 7 ÷ 3", "14", None, True),
        ("2(3 + 4)", "14", None, True),
        ("10 % 3", "1", None, True),
        ("15% of 80", "12", None, True),
        ("200 + 10%", "220", None, True),
        ("200 - 10%", "180", None, True),
        ("50 * 10%", "5", None, True),
        ("25%", "0.25", None, True),
        ("sqrt(16)", "4", None, True),
        ("sqrt(2)", "1.4142135623731", None, False),
        ("8^(1/3)", "2", None, True),
        ("(-8)^(1/3)", "-2", None, True),
        ("root(81, 4)", "3", None, True),
        ("sind(30)", "0.5", None, True),
        ("cosd(60)", "0.5", None, True),
        ("tand(45)", "1", None, True),
        ("sin(pi / 2)", "1", None, False),
        ("sin(pi)", "0", None, False),
        ("asind(0.5)", "30", None, False),
        ("ln(e)", "1", None, False),
        ("log10(1000)", "3", None, True),
        ("log(8, 2)", "3", None, True),
        ("exp(0)", "1", None, True),
        ("abs(-7/2)", "3.5", None, True),
        ("round(2.567, 2)", "2.57", None, True),
        ("round(7/2)", "4", None, True),
        ("floor(7/2) + ceil(7/2)", "7", None, True),
        ("min(3, 1, 2) + max(3, 1, 2)", "4", None, True),
        ("factorial(20)", "2432902008176640000", None, True),
        ("gcd(12, 18) + lcm(4, 6)", "18", None, True),
        ("comb(5, 2)", "10", None, True),
        ("2**-2", "0.25", None, True),
        ("2.5e3", "2500", None, True),
        ("√9", "3", None, True),
    ],
)
def test_evaluate_expression(
    tb: ToolBox, expression: str, result: str, decimal: str | None, exact: bool
) -> None:
    out = run(tb, "evaluate_expression", expression=expression)
    assert (out.result, out.decimal, out.exact) == (result, decimal, exact)
    assert out.expression == expression


@pytest.mark.parametrize(
    ("expression", "advice"),
    [
        ("1/0", "division by zero"),
        ("sqrt(-1)", "no real result"),
        ("tand(90)", "undefined"),
        ("sin(30°)", "sind(30)"),
        ("foo(2)", "unknown function 'foo'"),
        ("x + 1", "unknown name 'x'"),
        ("sqrt", "call it with parentheses"),
        ("2 +", "could not read"),
        ("factorial(2.5)", "whole number"),
        ("log(0)", "positive"),
        ("round(1, 2, 3)", "takes 1 to 2 argument"),
        # a value's source named where its number belongs (seen on the bundled model): read it first
        ("sum(data/numbers.csv, b)", "'data/numbers.csv' is not a number"),
        ("2 * config.port", "Get the values first with another tool (read the file"),
        ("2 * config['port']", '"config[\'" is not a number'),
        ("total of notes.txt * 15%", "'notes.txt' is not a number"),
        ("budget * 0.15", "get it with that tool first"),
    ],
)
def test_evaluate_expression_errors_say_what_to_do(tb: ToolBox, expression: str, advice: str) -> None:
    assert advice in error_of(tb, "evaluate_expression", expression=expression)


@pytest.mark.parametrize(
    ("equation", "solutions", "method"),
    [
        ("2x + 3 = 7", ["2"], "linear"),
        ("3*x - 4 = 11", ["5"], "linear"),
        ("0.1x = 0.3", ["3"], "linear"),
        ("x/3 = 1/6", ["0.5"], "linear"),
        ("3x = 1", ["1/3"], "linear"),
        ("x^2 - 5x + 6 = 0", ["2", "3"], "quadratic"),
        ("x^2 = 2", ["-sqrt(2)", "sqrt(2)"], "quadratic"),
        ("x^2 - 2x - 1", ["1 - sqrt(2)", "1 + sqrt(2)"], "quadratic"),
        ("(x + 1)^2 = 4", ["-3", "1"], "quadratic"),
        ("x^3 - 6x^2 + 11x - 6 = 0", ["1", "2", "3"], "polynomial"),
        ("x^4 - 5x^2 + 4 = 0", ["-2", "-1", "1", "2"], "polynomial"),
        ("x^3 = 2x", ["-sqrt(2)", "0", "sqrt(2)"], "polynomial"),
        ("t^2 = 16", ["-4", "4"], "quadratic"),
    ],
)
def test_solve_equation_exact(tb: ToolBox, equation: str, solutions: list[str], method: str) -> None:
    out = run(tb, "solve_equation", equation=equation)
    assert (out.solutions, out.method) == (solutions, method)
    assert len(out.decimal) == len(solutions)


def test_solve_equation_numeric_and_special_cases(tb: ToolBox) -> None:
    cubic = run(tb, "solve_equation", equation="x^5 - x - 1 = 0")
    assert cubic.decimal == [pytest.approx(1.1673039782614187)]
    power = run(tb, "solve_equation", equation="2^x = 1024")
    assert power.method == "numeric" and power.decimal == [pytest.approx(10)]
    exp = run(tb, "solve_equation", equation="exp(x) = 10")
    assert exp.decimal == [pytest.approx(math.log(10))] and "approximate" in exp.note
    pole = run(tb, "solve_equation", equation="1/x = 0")
    assert pole.solutions == [], "a sign change across a pole is not a root"
    mixed = run(tb, "solve_equation", equation="(x - 1/7) * (x + 5/3) * (x - 2) * (x^2 + 1) = 0")
    assert mixed.solutions == ["-5/3", "1/7", "2"] and "complex solutions also: 0 ± 1i" in mixed.note
    complex_roots = run(tb, "solve_equation", equation="x^2 + 1 = 0")
    assert (
        complex_roots.solutions == [] and "complex" in complex_roots.note and "0 ± 1i" in complex_roots.note
    )
    assert run(tb, "solve_equation", equation="x = x + 1").note == "the equation has no solution"
    assert "every x" in run(tb, "solve_equation", equation="2x = x + x").note
    assert "only one unknown" in error_of(tb, "solve_equation", equation="x * y = 2")
    assert "no unknown" in error_of(tb, "solve_equation", equation="3 = 3")
    assert "single '='" in error_of(tb, "solve_equation", equation="x = 1 = 2")


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (100, "km/h", "mph", 62.1371192237),
        (100, "celsius", "°F", 212.0),
        (32, "°F", "degC", 0.0),
        (0, "degC", "kelvin", 273.15),
        (3, "gallons", "liters", 11.356235352),
        (1, "KiB", "KB", 1.024),
        (1, "GB", "Mb", 8000.0),
        (8, "bit", "byte", 1.0),
        (1, "mile", "km", 1.609344),
        (1, "lbs", "kg", 0.45359237),
        (1, "acre", "m^2", 4046.8564224),
        (1, "hour", "seconds", 3600.0),
        (1, "kWh", "kJ", 3600.0),
        (1, "atm", "psi", 14.6959487755),
        (1, "light year", "km", 9460730472580.8),
    ],
)
def test_unit_convert(tb: ToolBox, value: float, source: str, target: str, expected: float) -> None:
    out = run(tb, "unit_convert", value=value, from_unit=source, to_unit=target)
    assert out.result == pytest.approx(expected, rel=1e-9)
    assert out.text.startswith(f"{value:g} ")


def test_unit_convert_dimensions_and_errors(tb: ToolBox) -> None:
    assert run(tb, "unit_convert", value=1, from_unit="m/s", to_unit="km/h").dimension == "speed"
    assert run(tb, "unit_convert", value=1, from_unit="MB", to_unit="MiB").dimension == "data"
    assert "did you mean 'kilometer'" in error_of(
        tb, "unit_convert", value=1, from_unit="kilomter", to_unit="m"
    )
    assert "different things" in error_of(tb, "unit_convert", value=1, from_unit="km", to_unit="kg")
    assert "amount of data" in error_of(tb, "unit_convert", value=1, from_unit="MB", to_unit="percent")


def test_statistics_summary(tb: ToolBox) -> None:
    out = run(tb, "statistics_summary", numbers=[2, 4, 4, 4, 5, 5, 7, 9])
    assert (out.count, out.sum, out.mean, out.median, out.modes) == (8, 40, 5, 4.5, [4])
    assert (out.min, out.max) == (2, 9)
    assert (out.population_stdev, out.population_variance) == (2, 4)
    assert out.variance == pytest.approx(32 / 7) and out.stdev == pytest.approx(math.sqrt(32 / 7))
    text = run(tb, "statistics_summary", numbers="0.1, 0.2")
    assert (text.mean, text.sum, text.modes) == (0.15, 0.3, [])
    one = run(tb, "statistics_summary", numbers=[3])
    assert (one.stdev, one.variance, one.modes) == (None, None, [3])
    assert run(tb, "statistics_summary", numbers=[1, 1, 2, 2, 3]).modes == [1, 2]
    assert "at least one number" in error_of(tb, "statistics_summary", numbers=[])
