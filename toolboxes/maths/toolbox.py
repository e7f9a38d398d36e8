"""ovos-math-tools: exact arithmetic, equations, unit conversion and statistics for agents.

Model text is parsed with ``ast`` against an allowlist (``_parse``) and walked by a small
evaluator (``_eval``); it is never passed to ``eval``, ``exec`` or ``sympify``.
"""

from __future__ import annotations

import math
import re
import statistics
from fractions import Fraction
from typing import Any

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolOutput
from pydantic import Field, field_validator

from ovos_agentic_loop_toolboxes._core.settings import MAX_SHORT_CHARS, ToolboxSettings, parse_settings
from ovos_agentic_loop_toolboxes._core.toolbox import BundledToolBox
from ovos_agentic_loop_toolboxes.maths._eval import (
    Evaluator,
    MathError,
    approximate,
    format_number,
    terminating_decimal,
)
from ovos_agentic_loop_toolboxes.maths._parse import parse_expression
from ovos_agentic_loop_toolboxes.maths._solve import solve
from ovos_agentic_loop_toolboxes.maths._units import convert

TOOLBOX_ID = "ovos-math-tools"
MAX_NUMBERS = 10_000

EVALUATE_DESCRIPTION = (
    "Calculate arithmetic exactly. Operators: + - * / and ^ for powers; '10 % 3' is the remainder. "
    "Percent: '15% of 80', '200 + 10%'. Functions: sqrt, root(x, n), exp, ln, log10, log(x, base), abs, "
    "round(x, digits), floor, ceil, factorial, comb, perm, gcd, lcm; mean, median, sum, min, max of "
    "numbers or a list, such as mean([2, 4, 9]). sin cos tan asin acos atan use RADIANS; "
    "sind cosd tand asind acosd atand use DEGREES. Constants: pi, e."
)
SOLVE_DESCRIPTION = (
    "Solve an equation with one unknown, such as '2x + 3 = 7' or 'x^2 - 5x + 6 = 0', "
    "with the operators and functions of evaluate_expression."
)


class EvaluateExpressionArgs(ToolArguments):
    # One example only: a small model copies an example whose shape fits the question ("15% of 80"
    # for "15% of the budget") instead of reading the value first.
    expression: str = Field(description="Arithmetic with the real numbers, such as '(3 + 4) * 2^10'.")


class EvaluateExpressionOutput(ToolOutput):
    expression: str = Field(description="The expression as given.")
    result: str = Field(description="The result: a whole number, a decimal, or a fraction such as '1/3'.")
    decimal: str | None = Field(description="The fraction as a decimal (15 digits); null otherwise.")
    exact: bool = Field(description="True when the result is exact, False when it is a rounded decimal.")


class SolveEquationArgs(ToolArguments):
    equation: str = Field(description="Equation with one unknown, such as '3x - 4 = 11' or 'x^2 = 2'.")


class SolveEquationOutput(ToolOutput):
    equation: str = Field(description="The equation as given.")
    variable: str = Field(description="The unknown solved for.")
    solutions: list[str] = Field(
        description="Real solutions, exact where possible, such as '2' or '1 + sqrt(2)'."
    )
    decimal: list[float] = Field(description="The same solutions as decimal numbers, in the same order.")
    method: str = Field(
        description="'linear', 'quadratic', 'polynomial' (exact/numeric) or 'numeric' (approximate)."
    )
    note: str = Field("", description="No/complex solutions, or limits of the numeric search.")


class UnitConvertArgs(ToolArguments):
    value: float = Field(description="The amount to convert, such as 100.")
    from_unit: str = Field(description="Unit of the amount, such as 'km/h', 'degC', 'lb'.")
    to_unit: str = Field(description="Unit wanted, such as 'mph', 'degF', 'kg'.")


class UnitConvertOutput(ToolOutput):
    value: float = Field(description="The amount given.")
    from_unit: str = Field(description="The source unit as understood.")
    result: float = Field(description="The converted amount (12 significant digits).")
    to_unit: str = Field(description="The target unit as understood.")
    dimension: str = Field(description="What is measured, such as 'length', 'temperature' or 'data'.")
    text: str = Field(description="The conversion as a sentence, such as '100 km/h = 62.1371192237 mph'.")


class StatisticsSummaryArgs(ToolArguments):
    numbers: list[float] = Field(description="The numbers, such as [2, 4, 4, 5].")

    @field_validator("numbers", mode="before")
    @classmethod
    def _split_text(cls, value: Any) -> Any:
        # Small models often send the list as one string.
        if isinstance(value, str):
            value = [part for part in re.split(r"[\s,;]+", value.strip(" []")) if part]
        # Cut before each item is parsed, so a million numbers cost no parsing; one extra item
        # is kept for statistics_summary to refuse the call with its own message.
        if isinstance(value, list) and len(value) > MAX_NUMBERS:
            return value[: MAX_NUMBERS + 1]
        return value


class StatisticsSummaryOutput(ToolOutput):
    count: int = Field(description="How many numbers.")
    sum: float = Field(description="Total of the numbers.")
    mean: float = Field(description="Average (sum / count).")
    median: float = Field(description="Middle value (average of the two middle values for an even count).")
    modes: list[float] = Field(description="Most frequent value(s); empty when every value occurs once.")
    min: float = Field(description="Smallest number.")
    max: float = Field(description="Largest number.")
    stdev: float | None = Field(description="Sample standard deviation (n - 1); null for one number.")
    variance: float | None = Field(description="Sample variance (n - 1); null for one number.")
    population_stdev: float = Field(description="Population standard deviation (n).")
    population_variance: float = Field(description="Population variance (n).")


class MathSettings(ToolboxSettings):
    """``ovos-math-tools`` has no keys; any key given is logged as unknown, a non-object refused."""


class MathToolBox(BundledToolBox):
    """Calculator tools. No configuration keys."""

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        # Checked before super().__init__, which would hide an error raised while discovering tools.
        self.settings = parse_settings(MathSettings, TOOLBOX_ID, config)
        super().__init__(TOOLBOX_ID, config, bus)

    def discover_tools(self) -> list[AgentTool]:
        """evaluate_expression, solve_equation, unit_convert and statistics_summary."""
        return [
            AgentTool(
                "evaluate_expression",
                EVALUATE_DESCRIPTION,
                EvaluateExpressionArgs,
                EvaluateExpressionOutput,
                self.evaluate_expression,
            ),
            AgentTool(
                "solve_equation",
                SOLVE_DESCRIPTION,
                SolveEquationArgs,
                SolveEquationOutput,
                self.solve_equation,
            ),
            AgentTool(
                "unit_convert",
                "Convert an amount between units of length, mass, volume, temperature, speed, area, "
                "data, time, energy or pressure. "
                "Temperatures: 'degC', 'degF', 'kelvin'.",
                UnitConvertArgs,
                UnitConvertOutput,
                self.unit_convert,
            ),
            AgentTool(
                "statistics_summary",
                "Count, sum, mean, median, modes, min, max, standard deviation and variance "
                "(sample and population) of a list of numbers.",
                StatisticsSummaryArgs,
                StatisticsSummaryOutput,
                self.statistics_summary,
            ),
        ]

    def evaluate_expression(self, args: EvaluateExpressionArgs) -> EvaluateExpressionOutput:
        value = Evaluator().evaluate(parse_expression(args.expression))
        fraction = isinstance(value, Fraction) and terminating_decimal(value) is None
        return EvaluateExpressionOutput(
            expression=args.expression,
            result=format_number(value),
            decimal=approximate(value) if isinstance(value, Fraction) and fraction else None,
            exact=not isinstance(value, float),
        )

    def solve_equation(self, args: SolveEquationArgs) -> SolveEquationOutput:
        found = solve(args.equation)
        return SolveEquationOutput(
            equation=args.equation,
            variable=found.variable,
            solutions=found.solutions,
            decimal=found.decimal,
            method=found.method,
            note="; ".join(found.notes),
        )

    def unit_convert(self, args: UnitConvertArgs) -> UnitConvertOutput:
        for what, unit in (("from_unit", args.from_unit), ("to_unit", args.to_unit)):
            if len(unit) > MAX_SHORT_CHARS:
                raise ValueError(
                    f"{what} is {len(unit)} characters long; the limit is {MAX_SHORT_CHARS}: "
                    "write a unit name such as 'km' or 'degF'"
                )
        if not math.isfinite(args.value):
            raise ValueError("value must be a finite number, such as 100")
        done = convert(args.value, args.from_unit, args.to_unit)
        return UnitConvertOutput(
            value=args.value,
            from_unit=done.from_unit,
            result=done.result,
            to_unit=done.to_unit,
            dimension=done.dimension,
            text=f"{args.value:g} {done.from_unit} = {done.result:.12g} {done.to_unit}",
        )

    def statistics_summary(self, args: StatisticsSummaryArgs) -> StatisticsSummaryOutput:
        numbers = args.numbers
        if not numbers:
            raise ValueError("numbers is empty; give at least one number, such as [2, 4, 4, 5]")
        if len(numbers) > MAX_NUMBERS:
            raise ValueError(f"at most {MAX_NUMBERS} numbers are supported; summarise fewer at a time")
        if not all(math.isfinite(n) for n in numbers):
            raise ValueError("numbers must be finite (no inf or nan)")
        try:
            return _summary(numbers)
        except OverflowError:  # The variance of [1e308, -1e308] does not fit in a float.
            raise MathError("a result is too large (above about 1e308); scale the numbers down") from None


def _summary(numbers: list[float]) -> StatisticsSummaryOutput:
    """The summary of finite numbers, computed on exact fractions."""
    # Exact fractions of the decimals given, so the mean of 0.1 and 0.2 is 0.15, not 0.15000000000000002.
    exact = [Fraction(repr(n)) for n in numbers]
    modes = statistics.multimode(numbers)
    sample = statistics.variance(exact) if len(exact) > 1 else None
    population = statistics.pvariance(exact)
    return StatisticsSummaryOutput(
        count=len(numbers),
        sum=_tidy(sum(exact)),
        mean=_tidy(statistics.mean(exact)),
        median=_tidy(statistics.median(exact)),
        modes=[] if len(modes) == len(set(numbers)) and len(numbers) > 1 else sorted(modes),
        min=min(numbers),
        max=max(numbers),
        stdev=None if sample is None else _tidy(math.sqrt(sample)),
        variance=None if sample is None else _tidy(sample),
        population_stdev=_tidy(math.sqrt(population)),
        population_variance=_tidy(population),
    )


def _tidy(value: Fraction | float | int) -> float:
    return float(f"{float(value):.12g}")


__all__ = ["MathError", "MathToolBox"]
