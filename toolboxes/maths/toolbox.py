"""ovos-math-tools: exact arithmetic, equations, unit conversion and statistics for agents.

Model text is parsed with ``ast`` against an allowlist (``_parse``) and walked by a small
evaluator (``_eval``); it is never passed to ``eval``, ``exec`` or ``sympify``.

Numbers and operators said in words ("seven minus twelve", "quinze por cento de trezentos") are
read by ``_words`` (numbers through ovos-number-parser) in the toolbox's language (its ``lang``
key, else the OVOS configuration's, see ``_core.language``), then in the fallback languages; text
that already calculates is never reread. A hand-written temperature formula that computes no
temperature is refused (``_temperature``).
"""

from __future__ import annotations

import ast
import json
import math
import re
import statistics
from fractions import Fraction
from typing import Annotated, Any

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolOutput
from pydantic import BeforeValidator, Field, field_validator, model_validator

from ovos_agentic_loop_toolboxes._core.language import configured_lang, reading_order
from ovos_agentic_loop_toolboxes._core.numbers import read_number
from ovos_agentic_loop_toolboxes._core.settings import MAX_SHORT_CHARS, ToolboxSettings, parse_settings
from ovos_agentic_loop_toolboxes._core.toolbox import BundledToolBox
from ovos_agentic_loop_toolboxes.maths._eval import (
    CONSTANTS,
    FUNCTIONS,
    Evaluator,
    MathError,
    Number,
    approximate,
    format_number,
    terminating_decimal,
)
from ovos_agentic_loop_toolboxes.maths._money import without_money
from ovos_agentic_loop_toolboxes.maths._parse import MAX_EXPRESSION_CHARS, SOURCE_NAME, parse_expression
from ovos_agentic_loop_toolboxes.maths._solve import NotAnEquation, Solution, solve
from ovos_agentic_loop_toolboxes.maths._temperature import check_temperature_formula, difference_note
from ovos_agentic_loop_toolboxes.maths._units import convert, is_unit, same_unit
from ovos_agentic_loop_toolboxes.maths._words import (
    SpokenReading,
    amount_and_unit,
    number_argument,
    numbers_argument,
    read_spoken,
)

TOOLBOX_ID = "ovos-math-tools"
MAX_NUMBERS = 10_000

EVALUATE_DESCRIPTION = (
    "Calculate arithmetic exactly. Operators: + - * / and ^ for powers; '10 % 3' is the remainder. "
    "Percent: '15% of 80', '200 + 10%'. Functions: sqrt, root(x, n), exp, ln, log10, log(x, base), abs, "
    "round(x, digits), floor, ceil, factorial, comb, perm, gcd, lcm; mean, median, sum, min, max of "
    "numbers or a list, such as mean([2, 4, 9]). sin cos tan asin acos atan use RADIANS; "
    "sind cosd tand asind acosd atand use DEGREES. Constants: pi, e."
)
# The direction is what small models get wrong ("how many pounds is 10 kg" sent as lb -> kg): one
# worked example of it, within the measured prompt budget (tests/engine/test_prompt_size.py).
# "A measurement", not "an amount" (money). After both results of the demo question ("What weekday
# is it today, and what is 15% of 2350?") the bundled model called unit_convert from dollars to
# euros (pint has no currencies) in 2 of 6 replays of that request worded "convert an amount", in
# 3 of 6 with "; not money" added (naming money primes it), in 1 of 6 as here.
UNIT_DESCRIPTION = (
    "Convert a measurement between units of length, mass, volume, temperature, speed, area, data, "
    "time, energy or pressure. 'lb in 10 kg': value 10, from_unit 'kg', to_unit 'lb'. "
    "Temperatures: 'degC', 'degF', 'kelvin'."
)
UNIT_EXAMPLE = '{"value": 10, "from_unit": "kg", "to_unit": "lb"}'
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
    read_as: str | None = Field(
        None,
        description="The expression as calculated when words were read as numbers or a currency was "
        "read off its amounts; null otherwise.",
    )
    result: str = Field(description="The result: a whole number, a decimal, or a fraction such as '1/3'.")
    decimal: str | None = Field(description="The fraction as a decimal (15 digits); null otherwise.")
    exact: bool = Field(description="True when the result is exact, False when it is a rounded decimal.")
    # Optional and last, so outputs built or read the old way stay valid.
    note: str = Field("", description="What the calculation may not be: a temperature scaled without its 32.")


class SolveEquationArgs(ToolArguments):
    equation: str = Field(description="Equation with one unknown, such as '3x - 4 = 11' or 'x^2 = 2'.")


class SolveEquationOutput(ToolOutput):
    equation: str = Field(description="The equation as given.")
    variable: str = Field(description="The unknown solved for; empty when there was none.")
    solutions: list[str] = Field(
        description="Real solutions, exact where possible, such as '2' or '1 + sqrt(2)'; for a "
        "calculation (method 'evaluated'), its value."
    )
    decimal: list[float] = Field(description="The same solutions as decimal numbers, in the same order.")
    method: str = Field(
        description="'linear', 'quadratic', 'polynomial' (exact/numeric), 'numeric' (approximate), or "
        "'evaluated' (no '=' and no unknown: calculated as evaluate_expression does)."
    )
    note: str = Field("", description="No/complex solutions, or limits of the numeric search.")
    # Optional and added last, so outputs built or read the old way stay valid: sent a calculation
    # with no '=' three times in a row, the bundled model was refused each time and then did the
    # compound interest in its head ($1687.32 for 1687.296).
    result: str | None = Field(
        None,
        description="The value of a calculation sent with no '=' and no unknown, as evaluate_expression "
        "gives it; null for an equation.",
    )
    reading: str | None = Field(
        None,
        description="How a text that is no 'left = right' equation was read (with no '=': solved as "
        "equal to zero, or evaluated); null for an equation as written.",
    )


def _one_number(text: str) -> bool:
    try:
        number_argument(text, "value", UNIT_EXAMPLE)
    except ValueError:
        return False
    return True


def _spoken_value(value: Any) -> Any:
    return number_argument(value, "value", UNIT_EXAMPLE)


class UnitConvertArgs(ToolArguments):
    value: Annotated[float, BeforeValidator(_spoken_value)] = Field(
        description="The number with its sign: 100, -5."
    )
    from_unit: str = Field(description="Its unit: 'kg', 'degC'.")
    to_unit: str = Field(description="Unit asked for: 'lb', 'degF'.")

    @model_validator(mode="before")
    @classmethod
    def _amount_given(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        unit = data.get("from_unit")
        in_unit = amount_and_unit(unit) if isinstance(unit, str) else None
        value = data.get("value")
        if value in (None, ""):
            # {"from_unit": "minus five celsius", ...}: the amount was written into the unit.
            if in_unit is None:
                raise ValueError(f"value is missing: send the amount as a number, such as {UNIT_EXAMPLE}")
            return {**data, "value": in_unit[0], "from_unit": in_unit[1]}
        if in_unit is not None:
            # Two amounts, one of them maybe without its sign: which one is meant is not guessed.
            example = json.dumps(
                {"value": in_unit[0], "from_unit": in_unit[1], "to_unit": data.get("to_unit")}
            )
            raise ValueError(
                f"from_unit {unit!r} holds an amount besides value {value!r}: send the amount once, "
                f"in value, such as {example}"
            )
        in_value = amount_and_unit(value) if isinstance(value, str) and not _one_number(value) else None
        if in_value is None or not is_unit(in_value[1]):
            return data  # value's own validator reads it, or says it is no number
        # {"value": "-5°C", "from_unit": "celsius"}: the amount carried its unit.
        if isinstance(unit, str) and unit.strip() and not same_unit(unit, in_value[1]):
            raise ValueError(
                f"value {value!r} names the unit {in_value[1]!r} and from_unit names {unit!r}: send "
                f"the amount alone in value, such as {UNIT_EXAMPLE}"
            )
        return {
            **data,
            "value": in_value[0],
            "from_unit": unit if isinstance(unit, str) and unit.strip() else in_value[1],
        }


class UnitConvertOutput(ToolOutput):
    value: float = Field(description="The amount given.")
    from_unit: str = Field(description="The source unit as understood.")
    result: float = Field(description="The converted amount (12 significant digits).")
    to_unit: str = Field(description="The target unit as understood.")
    dimension: str = Field(description="What is measured, such as 'length', 'temperature' or 'data'.")
    text: str = Field(description="The conversion as a sentence, such as '100 km/h = 62.1371192237 mph'.")
    # Optional and last, so outputs built or read the old way stay valid. Units written as words
    # ('Miles', 'kilowatt-hours') are read as the units they name: said, so a misreading shows.
    read_as: str | None = Field(
        None,
        description="How each unit was read, such as: from_unit 'Miles' read as mile, to_unit 'km' as "
        "kilometer.",
    )


class StatisticsSummaryArgs(ToolArguments):
    numbers: list[float] = Field(description="The numbers, such as [2, 4, 4, 5].")

    @field_validator("numbers", mode="before")
    @classmethod
    def _split_text(cls, value: Any) -> Any:
        # Small models often send the list as one string; said in words, only , and ; separate
        # the numbers ("two hundred and five, seven").
        if isinstance(value, str):
            separators = r"\s*[,;]\s*" if re.search(r"[^\W\d_]", value) else r"[\s,;]+"
            value = [part for part in re.split(separators, value.strip(" []")) if part]
        # Cut before each item is parsed, so a million numbers cost no parsing; one extra item
        # is kept for statistics_summary to refuse the call with its own message.
        if isinstance(value, list) and len(value) > MAX_NUMBERS:
            return value[: MAX_NUMBERS + 1]
        if isinstance(value, list):
            return numbers_argument(value, "[2, 4, 4, 5]")
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
    """Configuration of ``ovos-math-tools``: strict types, unknown keys logged by name."""

    lang: str | None = Field(
        None,
        description="Language numbers said in words are read in first, such as 'pt-PT' "
        "(default: the OVOS configuration's 'lang', else en-US); others are tried after it.",
    )


class MathToolBox(BundledToolBox):
    """Calculator tools. Config key: ``lang``, the language numbers in words are read in first."""

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        # Checked before super().__init__, which would hide an error raised while discovering tools.
        self.settings = parse_settings(MathSettings, TOOLBOX_ID, config)
        self.lang = configured_lang(self.settings.lang)
        self.langs = reading_order(self.lang)
        super().__init__(TOOLBOX_ID, config, bus)

    def role(self, name: str) -> dict[str, Any] | None:
        """evaluate_expression is the calculator: its expression, and the functions it may call;
        unit_convert a converter: the unit it converts to."""
        if name == "unit_convert":
            return {"kind": "converter", "argument": "to_unit"}
        if name != "evaluate_expression":
            return None
        return {"kind": "calculator", "argument": "expression", "functions": sorted(FUNCTIONS)}

    def diagnostics(self) -> list[str]:
        """Status lines for ``doctor``: the languages numbers in words are read in."""
        return [f"numbers in words read in: {', '.join(self.langs)}"]

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
                UNIT_DESCRIPTION,
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
        value, tree, read_as = self._calculate(args.expression)
        check_temperature_formula(tree, value)
        fraction = isinstance(value, Fraction) and terminating_decimal(value) is None
        return EvaluateExpressionOutput(
            expression=args.expression,
            read_as=read_as,
            result=format_number(value),
            decimal=approximate(value) if isinstance(value, Fraction) and fraction else None,
            exact=not isinstance(value, float),
            note=difference_note(tree),
        )

    def _value(self, text: str) -> tuple[Number, str | None]:
        """The calculator's value of ``text`` and the text it was read as: parsed, bounded and
        checked the same way for evaluate_expression and for a calculation sent to solve_equation."""
        value, tree, read_as = self._calculate(text)
        check_temperature_formula(tree, value)
        return value, read_as

    def _calculate(self, text: str) -> tuple[Number, ast.expr, str | None]:
        """The value of ``text``, its tree, and the text it was read as when it held words or the
        currency of its amounts ("15% of 4200 euros" is read as "15% of 4200")."""
        try:
            tree = parse_expression(text)
            return Evaluator().evaluate(tree), tree, None
        except ValueError as exc:
            money = without_money(text, self.langs) if len(text) <= MAX_EXPRESSION_CHARS else None
            if money is not None and money.text:
                value, tree, read_as = self._calculate(money.text)
                return value, tree, read_as or money.text
            reading = self._read_words(text, exc, _KEEP)
        tree = parse_expression(reading.text)
        return Evaluator().evaluate(tree), tree, reading.text

    def _read_words(self, text: str, failure: ValueError, keep: frozenset[str]) -> SpokenReading:
        """``text`` read from words, or ``failure`` again where it holds no words to read.

        Only text that failed as it was is reread, so a working expression never changes meaning;
        a refusal that is not about words (an '=', a file name, too long) stays what it was."""
        if len(text) > MAX_EXPRESSION_CHARS:  # first: reading a 5 MB text for words took 1 s of CPU
            raise failure
        words = [w for w in re.findall(r"[^\W\d_]+", text.lower()) if w not in keep]
        if not words or SOURCE_NAME.search(text):
            raise failure
        reading = read_spoken(text, self.langs, keep)
        if reading.complete and reading.text:
            return reading
        if reading.complete:  # only filler words ("the"): nothing to calculate
            raise failure
        if reading.words_read == 0 and not any(read_number(w, reading.lang) for w in words):
            raise failure
        raise MathError(_unread_message(reading)) from None

    def solve_equation(self, args: SolveEquationArgs) -> SolveEquationOutput:
        try:
            found = self._solve(args.equation)
        except NotAnEquation:
            # No '=' and no unknown: the value is what was asked for, so it is calculated (by the
            # calculator's own parser and evaluator, with its bounds) instead of refused.
            return self._evaluated(args.equation)
        return SolveEquationOutput(
            equation=args.equation,
            variable=found.variable,
            solutions=found.solutions,
            decimal=found.decimal,
            method=found.method,
            note="; ".join(found.notes),
            reading=found.reading,
        )

    def _solve(self, equation: str) -> Solution:
        try:
            return solve(equation)
        except ValueError as exc:
            if len(equation) > MAX_EXPRESSION_CHARS:
                raise  # too long to read for words: refused as it is, at once
            letters = {w for w in re.findall(r"[^\W\d_]+", equation.lower()) if len(w) == 1}
            return solve(self._read_words(equation, exc, _KEEP | letters).text)

    def _evaluated(self, text: str) -> SolveEquationOutput:
        value, read_as = self._value(text)
        shown = format_number(value)
        reading = "no '=' given and no unknown: evaluated the expression"
        try:
            decimal = [float(value)]
        except OverflowError:  # an exact whole number past 1e308: its digits are in result
            decimal = []
        return SolveEquationOutput(
            equation=text,
            variable="",
            solutions=[shown],
            decimal=decimal,
            method="evaluated",
            note="" if decimal else "the value is too large for a decimal number; result has its digits",
            result=shown,
            reading=f"{reading}, read as {read_as!r}" if read_as else reading,
        )

    def unit_convert(self, args: UnitConvertArgs) -> UnitConvertOutput:
        for what, unit in (("from_unit", args.from_unit), ("to_unit", args.to_unit)):
            if len(unit) > MAX_SHORT_CHARS:
                raise ValueError(
                    f"{what} is {len(unit)} characters long; the limit is {MAX_SHORT_CHARS}: "
                    f"write a unit name such as 'km' or 'degF', as in {UNIT_EXAMPLE}"
                )
        if not math.isfinite(args.value):
            raise ValueError(f"value must be a finite number, such as {UNIT_EXAMPLE}")
        done = convert(args.value, args.from_unit, args.to_unit)
        return UnitConvertOutput(
            value=args.value,
            from_unit=done.from_unit,
            result=done.result,
            to_unit=done.to_unit,
            dimension=done.dimension,
            text=f"{args.value:g} {done.from_unit} = {done.result:.12g} {done.to_unit}",
            read_as=f"from_unit {args.from_unit!r} read as {done.from_name}, "
            f"to_unit {args.to_unit!r} as {done.to_name}",
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


_KEEP = frozenset(FUNCTIONS) | frozenset(CONSTANTS) | {"average", "avg"}


def _unread_message(reading: SpokenReading) -> str:
    """What could not be read, what the number parser made of it, and what to send instead."""
    from ovos_number_parser import numbers_to_digits

    parts = []
    for phrase in reading.unread:
        digits = " ".join(numbers_to_digits(phrase, reading.lang).split())
        several = re.fullmatch(r"-?[\d.]+(?: (?:\S+ )?-?[\d.]+)+", digits)
        if several:
            found = ", ".join(re.findall(r"-?\d+(?:\.\d+)?", digits))
            parts.append(
                f"{phrase!r} holds several numbers ({found}) with no operator between them: "
                f"write one, such as {found.replace(', ', ' + ')}, or mean([{found}]) for an average"
            )
        else:
            parts.append(f"{phrase!r} is not a number or an operator")
    parts += [f"{name} needs the numbers it takes after it" for name in reading.missing]
    return (
        "; ".join(parts) + ". Send only numbers and operators, such as '15% of 2350', '7 - 12' or "
        "'420 + 19%' (units go to unit_convert)"
    )


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
