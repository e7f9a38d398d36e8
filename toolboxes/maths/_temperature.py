"""A temperature formula typed into evaluate_expression that does not compute a temperature.

Small models write the Celsius/Fahrenheit formula by hand and get it wrong: ``5 * 5/9 + 32``,
``(98.6 + 32) * 5/9``, ``-5 - 32 * 5/9`` (no parentheses). What is detectable without guessing the
question: the expression is made of the formula's constants (32 with 9 and 5, 1.8 or 5/9 as a factor
or divisor; or 273.15) plus exactly ONE other number, the temperature. Every correct conversion of
that number between Celsius, Fahrenheit and Kelvin is computed; a result that matches none of them
is refused, naming the results and the unit_convert call. A correct formula passes untouched, and so
does anything that is not made of those constants (the sign of the temperature is the caller's:
``5 * 9/5 + 32`` is right for 5 degrees, whatever the user said).
"""

from __future__ import annotations

import ast
import json
from fractions import Fraction

from ovos_agentic_loop_toolboxes.maths._eval import MathError, Number, format_number

__all__ = ["check_temperature_formula", "difference_note"]

_FREEZING_F = Fraction(32)
_ZERO_K = Fraction("273.15")
_RATIOS = (Fraction(9, 5), Fraction(5, 9))


def check_temperature_formula(tree: ast.expr, result: Number) -> None:
    """Raise :class:`MathError` when ``tree`` looks like a temperature formula but computes none."""
    adds = (node for node in ast.walk(tree) if isinstance(node, ast.BinOp))
    if not any(isinstance(node.op, (ast.Add, ast.Sub)) for node in adds):
        return
    constants = _signed_constants(tree)
    if constants is None:
        return
    # The ratio must be a factor or divisor: "(9 + 5) * 32 - 100" is made of the same numbers and
    # is no formula. 32 may stand anywhere: "-5 - 32 * 5/9" is the formula without its parentheses.
    factors = _operands(tree, (ast.Mult, ast.Div))
    rest = list(constants)
    has_freezing = _take(rest, _FREEZING_F)
    has_kelvin = _take(rest, _ZERO_K)
    has_ratio = _take_ratio(rest, factors)
    if not ((has_freezing and has_ratio) or has_kelvin) or len(rest) != 1:
        return
    value = rest[0]
    conversions = _conversions(value)
    got = float(result)
    if any(abs(got - float(want)) <= max(0.01, 1e-4 * abs(float(want))) for _, _, want in conversions):
        return
    shown = format_number(value)
    named = "; ".join(f"{shown} {a} is {_rounded(b_value)} {b}" for a, b, b_value in conversions[:2])
    amount = int(value) if value.denominator == 1 else float(value)
    call = json.dumps({"value": amount, "from_unit": "degC", "to_unit": "degF"})
    raise MathError(
        f"this looks like a temperature formula for {shown} degrees, but it gives {format_number(result)}, "
        f"which is no conversion of {shown}: {named}. Convert temperatures with unit_convert, "
        f"such as {call} (from_unit is the unit the temperature is in now)"
    )


def difference_note(tree: ast.expr) -> str:
    """What a temperature scaled without its 32 is: a difference of degrees, not a temperature.

    "Ninety eight point six fahrenheit in celsius" was sent as ``98.6 * 5 / 9`` and said as "54.78
    degrees Celsius"; "twenty five celsius in fahrenheit" as ``25 * 9 / 5``, said as 45 degrees
    (held-out halves, both templates). A multiplication by 9/5 alone is also a right calculation
    (a rise of 25 degrees is 45 Fahrenheit degrees, "nine fifths of 25"), so it is calculated, and
    the note gives the temperatures the number would be beside it. "" for anything else."""
    operations = [node.op for node in ast.walk(tree) if isinstance(node, ast.BinOp)]
    if not operations or not all(isinstance(op, (ast.Mult, ast.Div)) for op in operations):
        return ""
    constants = _signed_constants(tree)
    if constants is None:
        return ""
    rest = list(constants)
    if not _take_ratio(rest, _operands(tree, (ast.Mult, ast.Div))) or len(rest) != 1:
        return ""
    value = rest[0]
    shown = format_number(value)
    fahrenheit = _rounded(value * Fraction(9, 5) + 32)
    celsius = _rounded((value - 32) * Fraction(5, 9))
    return (
        f"this scales {shown} by 9/5 or 5/9 alone: a difference of degrees. As a temperature, "
        f"{shown} degrees Celsius is {fahrenheit} degrees Fahrenheit and {shown} degrees Fahrenheit is "
        f"{celsius} degrees Celsius (the 32 counts); unit_convert converts temperatures"
    )


def _signed_constants(tree: ast.expr) -> list[Fraction] | None:
    """The numbers of ``tree``, a minus sign written before a number kept with it; None if it
    calls a function or names anything (then it is not a plain formula)."""
    found: list[Fraction] = []
    negated = {
        id(node.operand)
        for node in ast.walk(tree)
        if isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, (ast.Call, ast.Name)):
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            number = Fraction(str(node.value))
            found.append(-number if id(node) in negated else number)
    return found


def _take(values: list[Fraction], wanted: Fraction) -> bool:
    if wanted in values:
        values.remove(wanted)
        return True
    return False


def _take_ratio(values: list[Fraction], factors: list[Fraction]) -> bool:
    """Remove the 9/5 factor however it is written (9 and 5, 1.8, 0.5556: about 5/9), where it
    is one in ``factors``."""
    if 9 in factors and 5 in factors and 9 in values and 5 in values:
        values.remove(Fraction(9))
        values.remove(Fraction(5))
        return True
    for value in factors:
        is_ratio = value == Fraction("1.8") or any(
            abs(value - ratio) < Fraction(1, 1000) for ratio in _RATIOS
        )
        if is_ratio and value in values:
            values.remove(value)
            return True
    return False


def _operands(tree: ast.expr, ops: tuple[type[ast.operator], ...]) -> list[Fraction]:
    """The plain numbers (signed) that are a direct operand of one of ``ops``."""
    found: list[Fraction] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ops):
            for side in (node.left, node.right):
                number = _plain_number(side)
                if number is not None:
                    found.append(number)
    return found


def _plain_number(node: ast.expr) -> Fraction | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _plain_number(node.operand)
        return None if inner is None else -inner
    return None


def _conversions(value: Fraction) -> list[tuple[str, str, Fraction]]:
    """Every conversion of ``value`` between the three scales: (from, to, result)."""
    celsius_from_f = (value - 32) * Fraction(5, 9)
    return [
        ("degrees Celsius", "degrees Fahrenheit", value * Fraction(9, 5) + 32),
        ("degrees Fahrenheit", "degrees Celsius", celsius_from_f),
        ("degrees Celsius", "kelvin", value + _ZERO_K),
        ("kelvin", "degrees Celsius", value - _ZERO_K),
        ("degrees Fahrenheit", "kelvin", celsius_from_f + _ZERO_K),
        ("kelvin", "degrees Fahrenheit", (value - _ZERO_K) * Fraction(9, 5) + 32),
    ]


def _rounded(value: Fraction) -> str:
    return format(float(value), ".6g")
