"""Attacks on ovos-math-tools: code injection and resource exhaustion are quick, clear refusals."""

from __future__ import annotations

import os
import time  # "fast" is this thread's CPU time: a busy machine stretches wall time, not CPU time
from pathlib import Path

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

FAST = 1.0  # seconds; every refusal must be decided before any heavy computation starts


@pytest.fixture(scope="module")
def tb() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


def refused(tb: ToolBox, tool: str, **kwargs: object) -> str:
    started = time.thread_time()
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(tool, kwargs)
    assert time.thread_time() - started < FAST
    assert isinstance(excinfo.value.__cause__, ValueError), repr(excinfo.value.__cause__)
    return str(excinfo.value.__cause__)


INJECTIONS = [
    "__import__('os').system('touch PWNED')",
    "__import__",
    "open('PWNED', 'w')",
    "().__class__.__bases__[0].__subclasses__()",
    "(1).__class__",
    "x.real",
    "(lambda: 1)()",
    "[x for x in range(10**9)]",
    "{1: 2}",
    "exec('1')",
    "eval('1')",
    "sqrt.__globals__",
    "sqrt(x=4)",
    "globals()",
    "'a' * 10**9",
    "b'a' * 10**9",
    "(1,) * 10**9",
    "1 if 1 else 2",
    "(y := 5)",
    "1 < 2",
    "1 << 10**9",
    "~1",
    "1j ** 2",
    "True + 1",
    "_percent_(10)",
    "a\nimport os",
]


@pytest.mark.parametrize("text", INJECTIONS)
def test_injection_is_refused_and_runs_nothing(
    tb: ToolBox, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    refused(tb, "evaluate_expression", expression=text)
    refused(tb, "solve_equation", equation=f"{text} = x")
    assert os.listdir(tmp_path) == [], "the expression created a file"


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        ("9**9**9", "digits"),
        ("9^9^9", "digits"),
        ("2**(10**100)", "digits"),
        ("10**10000", "digits"),
        ("(10**3000) * (10**3000) * (10**3000)", "digits"),
        ("factorial(10**9)", "from 0 to 1000"),
        ("factorial(factorial(20))", "from 0 to 1000"),
        ("comb(10**9, 10**8)", "<= 1000"),
        ("round(1/3, 10**9)", "at most 100 digits"),
        ("2.0 ** 1e6", "digits"),
        ("2.0 ** 1000000.5", "too large"),
        ("exp(10**6)", "too large"),
        ("1e999", "too large"),
        ("(" * 100 + "1" + ")" * 100, "nested"),
        ("-" * 150 + "1", "nested too deeply"),
        ("1+" * 300 + "1", "longer than 500"),
        ("+".join(["1"] * 240), "parts"),
    ],
)
def test_resource_exhaustion_is_refused_quickly(tb: ToolBox, text: str, advice: str) -> None:
    assert advice in refused(tb, "evaluate_expression", expression=text)


def test_equation_with_huge_powers_is_refused_quickly(tb: ToolBox) -> None:
    assert "digits" in refused(tb, "solve_equation", equation="x = 9**9**9")
    assert "degree" in refused(tb, "solve_equation", equation="(x^12) * (x^12) = 1")


def test_polynomial_with_many_divisors_is_quick(tb: ToolBox) -> None:
    started = time.thread_time()
    out = tb.call_tool("solve_equation", {"equation": "720720*x^12 + x + 720720 = 0"})
    assert time.thread_time() - started < FAST
    assert out.solutions == [] and out.note == "no real solutions"


def test_slow_numeric_equation_is_bounded(tb: ToolBox) -> None:
    started = time.thread_time()
    out = tb.call_tool("solve_equation", {"equation": "sin(x) * factorial(900) = 0"})
    assert time.thread_time() - started < 3
    assert out.method == "numeric"


def test_hostile_units_are_refused(tb: ToolBox) -> None:
    assert "exponent above 9" in refused(
        tb, "unit_convert", value=1, from_unit="m**99999", to_unit="km**99999"
    )
    assert "not a unit name" in refused(
        tb, "unit_convert", value=1, from_unit="__import__('os')", to_unit="m"
    )
    assert "not a unit name" in refused(tb, "unit_convert", value=1, from_unit="m" * 100, to_unit="m")


def test_statistics_bounds(tb: ToolBox) -> None:
    assert "at most 10000" in refused(tb, "statistics_summary", numbers=[1.0] * 10001)
    assert "finite" in refused(tb, "statistics_summary", numbers=[1.0, float("inf")])


# --- found in the adversarial audit ----------------------------------------------------------


@pytest.mark.timeout(20)
@pytest.mark.parametrize("unit", ["m^9^9^9", "m**9**9", "m^(9^9^9)", "m ^ 9 ^ 9", "m^2^0.5^9"])
def test_chained_unit_exponents_are_refused(tb: ToolBox, unit: str) -> None:
    # pint evaluates 'm^9^9^9' as 9**(9**9): an integer of 370 million digits, minutes of CPU.
    assert "exponent" in refused(tb, "unit_convert", value=1, from_unit=unit, to_unit="m")


@pytest.mark.parametrize(("unit", "target"), [("m^2", "km^2"), ("m**3", "liter"), ("(m/s)^2", "km^2/h^2")])
def test_plain_unit_exponents_still_work(tb: ToolBox, unit: str, target: str) -> None:
    assert tb.call_tool("unit_convert", {"value": 1, "from_unit": unit, "to_unit": target}).result > 0


def test_results_beyond_floats_are_clear_refusals(tb: ToolBox) -> None:
    # Not inf (sent to the model as null) nor a bare OverflowError.
    assert "too large" in refused(tb, "unit_convert", value=1e308, from_unit="km", to_unit="nm")
    assert "too large" in refused(tb, "statistics_summary", numbers=[1e308, -1e308])
    assert "too large" in refused(tb, "solve_equation", equation="(x + 2^800)^12 = 0")


def test_a_million_numbers_are_refused_before_parsing(tb: ToolBox) -> None:
    assert "at most 10000" in refused(tb, "statistics_summary", numbers=", ".join(["1.5"] * 1_000_000))
