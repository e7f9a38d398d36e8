"""What small models naturally write to the calculator, and refusals that name
the tool to use instead."""

from __future__ import annotations

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox


@pytest.fixture(scope="module")
def tb() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


def result(tb: ToolBox, expression: str) -> tuple[str, str | None, bool]:
    out = tb.call_tool("evaluate_expression", {"expression": expression})
    return out.result, out.decimal, out.exact


def refusal(tb: ToolBox, expression: str) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("evaluate_expression", {"expression": expression})
    return str(excinfo.value.__cause__)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("mean(12, 45, 7)", ("64/3", "21.3333333333333", True)),
        ("average([12, 45, 7])", ("64/3", "21.3333333333333", True)),
        ("avg(4, 8, 15, 16, 23, 42)", ("18", None, True)),
        ("mean([4, 8], 15, (16, 23, 42))", ("18", None, True)),
        ("median([31, 7, 19, 52, 11])", ("19", None, True)),
        ("median(1, 2, 3, 4)", ("2.5", None, True)),
        ("sum([3, 10, 7])", ("20", None, True)),
        ("sum([0.1, 0.2])", ("0.3", None, True)),
        ("max([3, 10, 7]) - min([3, 10, 7])", ("7", None, True)),
        ("mean([1.5, sqrt(2)])", ("1.45710678118655", None, False)),
        ("round(mean([10%, 20%]) * 240, 2)", ("36", None, True)),
        ("2 * mean(1, 3)", ("4", None, True)),
    ],
)
def test_aggregates_over_numbers_or_a_list(tb: ToolBox, expression: str, expected: tuple) -> None:
    assert result(tb, expression) == expected


@pytest.mark.parametrize(
    ("expression", "advice"),
    [
        ("stdev([1, 2, 3])", "use statistics_summary for standard deviation"),
        ("variance(1, 2)", "statistics_summary"),
        ("mode([1, 1, 2])", "statistics_summary"),
        ("[1, 2, 3]", "only allowed inside average, avg, max, mean, median, min, sum"),
        ("sqrt([4, 9])", "such as mean([12, 45, 7])"),
        ("mean([[1, 2], [3]])", "only allowed inside"),
        ("mean([])", "mean() needs at least one number"),
        ("3x + 7 = 22", "use solve_equation"),
        ("5 miles", "use unit_convert"),
        ("foo(2)", "The functions are:"),
    ],
)
def test_refusals_name_the_tool_to_use(tb: ToolBox, expression: str, advice: str) -> None:
    assert advice in refusal(tb, expression)


def test_a_list_cannot_smuggle_other_syntax(tb: ToolBox) -> None:
    assert "not allowed" in refusal(tb, "mean([x for x in range(10**9)])")
    assert "only allowed inside" in refusal(tb, "round([1.5, 2.5])")
    assert "only allowed inside" in refusal(tb, "mean(1, sqrt([4]))")


def test_the_description_offers_the_aggregates(tb: ToolBox) -> None:
    description = tb.tools["evaluate_expression"].description
    assert "mean" in description and "median" in description and "[" in description


def test_solve_equation_still_solves_with_an_aggregate(tb: ToolBox) -> None:
    out = tb.call_tool("solve_equation", {"equation": "mean(x, 4) = 5"})
    assert out.solutions == ["6"]
