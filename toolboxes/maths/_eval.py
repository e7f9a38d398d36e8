"""Exact-where-possible evaluation of a checked arithmetic tree (see ``_parse``).

Integers and fractions stay exact (``2**64``, ``1/3``); anything irrational becomes a float. Every
operation that can grow a number checks the size of its result BEFORE computing it, so
``9**9**9`` or ``factorial(10**9)`` is a quick error, not minutes of CPU or gigabytes of memory.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from decimal import Decimal, localcontext
from fractions import Fraction

from ovos_agentic_loop_toolboxes.maths._parse import AGGREGATES, LIST_ONLY_IN_AGGREGATES, PERCENT

Number = int | Fraction | float

MAX_BITS = 10_000  # About 3000 decimal digits.
MAX_FACTORIAL = 1000
MAX_ROUND_DIGITS = 100
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}


class MathError(ValueError):
    """An expression that cannot be computed; the message tells the model what to change."""


def too_big(bits: float) -> MathError:
    digits = int(bits * 0.30103) + 1
    return MathError(
        f"the result would have about {digits} digits; the limit is {int(MAX_BITS * 0.30103)} digits"
    )


def size_bits(value: Number) -> int:
    if isinstance(value, int):
        return value.bit_length()
    if isinstance(value, Fraction):
        return max(value.numerator.bit_length(), value.denominator.bit_length())
    return 0


def checked(value: Number) -> Number:
    """Normalise (whole fractions become ints) and bound a result."""
    if isinstance(value, Fraction) and value.denominator == 1:
        value = value.numerator
    if isinstance(value, float) and not math.isfinite(value):
        raise MathError("the result is too large or not a real number; check the magnitudes involved")
    if size_bits(value) > MAX_BITS:
        raise too_big(size_bits(value))
    return value


def to_float(value: Number) -> float:
    try:
        return float(value)
    except OverflowError:
        raise MathError("a number is too large for a non-exact function (above about 1e308)") from None


def to_int(value: Number, what: str) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise MathError(f"{what} needs a whole number, got {format_number(value)}")


class Evaluator:
    """Walks a checked tree; ``variables`` binds unknowns (used by solve_equation)."""

    def __init__(self, variables: Mapping[str, Number] | None = None) -> None:
        self.variables = dict(variables or {})

    def evaluate(self, node: ast.expr) -> Number:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, int):
                return checked(value)
            if not isinstance(value, float) or not math.isfinite(value):
                raise MathError("a number in the expression is too large (above about 1e308)")
            # A decimal literal such as 0.1 is exact input: keep it as the fraction it denotes.
            return checked(Fraction(repr(value)))
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.UnaryOp):
            operand = self.evaluate(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self._call(node.func.id, node.args)
        raise MathError(f"{type(node).__name__} is not allowed")

    def _name(self, name: str) -> Number:
        if name in self.variables:
            return self.variables[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in FUNCTIONS:
            raise MathError(f"{name} is a function; call it with parentheses, such as {name}(2)")
        raise MathError(
            f"unknown name {name!r}; known constants are pi, e and tau. For units use unit_convert; "
            "for an unknown such as x use solve_equation; for a value from a file or another tool, "
            "get it with that tool first and write the number here"
        )

    def _binop(self, node: ast.BinOp) -> Number:
        left = self.evaluate(node.left)
        if _is_percent(node.right) and isinstance(node.op, (ast.Add, ast.Sub)):
            # "200 + 10%" means 200 increased by 10 % of itself, as on a calculator.
            share = left * self._percent(node.right)
            return checked(left + share if isinstance(node.op, ast.Add) else left - share)
        right = self.evaluate(node.right)
        return checked(binary(node.op, left, right))

    def _percent(self, node: ast.expr) -> Number:
        assert isinstance(node, ast.Call)
        return self._call(PERCENT, node.args)

    def _call(self, name: str, arg_nodes: list[ast.expr]) -> Number:
        if name == PERCENT:
            return checked(_div(self.evaluate(arg_nodes[0]), 100))
        function = FUNCTIONS.get(name)
        if function is None:
            raise MathError(unknown_function(name))
        if name in AGGREGATES:  # mean(1, 2, 3), mean([1, 2, 3]) and mean([1, 2], 3) alike
            values = [self.evaluate(item) for item in _flattened(arg_nodes)]
            if not values:
                raise MathError(f"{name}() needs at least one number, such as {name}([2, 4, 9])")
            return checked(function(*values))
        if any(isinstance(arg, (ast.List, ast.Tuple)) for arg in arg_nodes):
            raise MathError(LIST_ONLY_IN_AGGREGATES)
        _check_arity(name, len(arg_nodes))
        return checked(function(*[self.evaluate(arg) for arg in arg_nodes]))


def _flattened(arg_nodes: list[ast.expr]) -> list[ast.expr]:
    items: list[ast.expr] = []
    for arg in arg_nodes:
        items.extend(arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg])
    return items


#: Where a model asks for a function this calculator does not have, the tool that does it.
_ELSEWHERE = {
    ("stdev", "std", "stddev", "sd", "variance", "var", "mode", "pstdev", "pvariance"): (
        "use statistics_summary for standard deviation, variance and mode"
    ),
    ("solve", "solve_equation"): "use solve_equation for an equation with an unknown",
    ("convert", "unit_convert", "to"): "use unit_convert for units",
}


def unknown_function(name: str) -> str:
    """The refusal of an unknown function: the tool to use instead, where one fits, and the list."""
    hint = next((text for names, text in _ELSEWHERE.items() if name.lower() in names), "")
    known = ", ".join(sorted(FUNCTIONS))
    return f"unknown function {name!r}; " + (f"{hint}. " if hint else "") + f"The functions are: {known}"


def _is_percent(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == PERCENT


def _check_arity(name: str, count: int) -> None:
    low, high = ARITY.get(name, (1, 1))
    if not low <= count <= high:
        wanted = str(low) if low == high else f"{low} to {high}" if high < 99 else f"at least {low}"
        raise MathError(f"{name}() takes {wanted} argument(s), got {count}")


# --- operators --------------------------------------------------------------------------------


def binary(op: ast.operator, left: Number, right: Number) -> Number:
    if isinstance(op, ast.Add):
        return left + right
    if isinstance(op, ast.Sub):
        return left - right
    if isinstance(op, ast.Mult):
        return left * right
    if isinstance(op, ast.Div):
        return _div(left, right)
    if isinstance(op, (ast.FloorDiv, ast.Mod)):
        if right == 0:
            raise MathError("division by zero")
        return left // right if isinstance(op, ast.FloorDiv) else left % right
    if isinstance(op, ast.Pow):
        return power(left, right)
    raise MathError(f"operator {type(op).__name__} is not allowed")


def _div(left: Number, right: Number) -> Number:
    if right == 0:
        raise MathError("division by zero")
    if isinstance(left, float) or isinstance(right, float):
        return left / right
    return Fraction(left) / Fraction(right)


def power(base: Number, exponent: Number) -> Number:
    if isinstance(exponent, float) or isinstance(base, float):
        return _float_power(to_float(base), to_float(exponent))
    if base == 0 and exponent < 0:
        raise MathError("0 cannot be raised to a negative power (division by zero)")
    exp = Fraction(exponent)
    if exp.denominator == 1:
        return _exact_power(base, exp.numerator)
    root = exact_root(abs(Fraction(base)), exp.denominator)
    if base < 0:
        if exp.denominator % 2 == 0:
            raise MathError("an even root of a negative number has no real result")
        root = None if root is None else -root
    if root is not None:
        return _exact_power(root, exp.numerator)
    sign = -1.0 if base < 0 else 1.0
    return sign * _float_power(abs(to_float(base)), float(exp))


def _exact_power(base: Number, exponent: int) -> Number:
    if base in (0, 1) or exponent == 0:
        return base**exponent if exponent >= 0 else 1 / Fraction(base) ** -exponent
    if base == -1:
        return 1 if exponent % 2 == 0 else -1
    magnitude = Fraction(base)
    estimated = abs(exponent) * max(math.log2(abs(magnitude.numerator)), math.log2(magnitude.denominator))
    if estimated > MAX_BITS:
        raise too_big(estimated)
    return Fraction(base) ** exponent


def _float_power(base: float, exponent: float) -> float:
    if base < 0 and not exponent.is_integer():
        raise MathError("a negative number to a fractional power has no real result")
    try:
        # A real result: the negative base with a fractional exponent (complex) was refused above.
        power: float = base**exponent
    except OverflowError:
        raise MathError("the result is too large (above about 1e308)") from None
    except ZeroDivisionError:
        raise MathError("0 cannot be raised to a negative power (division by zero)") from None
    return power


def exact_root(value: Fraction, degree: int) -> Fraction | None:
    """The exact ``degree``-th root of a non-negative fraction, or None if it is irrational."""
    if degree > 64:
        return None
    top, bottom = _int_root(value.numerator, degree), _int_root(value.denominator, degree)
    return None if top is None or bottom is None else Fraction(top, bottom)


def _int_root(value: int, degree: int) -> int | None:
    """The exact integer root, by Newton's method on integers (floats overflow on big inputs)."""
    if value < 2:
        return value
    guess = 1 << -(-value.bit_length() // degree)  # Never below the true root.
    while True:
        better = ((degree - 1) * guess + value // guess ** (degree - 1)) // degree
        if better >= guess:
            break
        guess = better
    return guess if guess**degree == value else None


# --- functions --------------------------------------------------------------------------------


def _sqrt(x: Number) -> Number:
    if x < 0:
        raise MathError("sqrt of a negative number has no real result")
    if not isinstance(x, float) and (exact := exact_root(Fraction(x), 2)) is not None:
        return exact
    return math.sqrt(to_float(x))


def _root(x: Number, n: Number) -> Number:
    degree = to_int(n, "root(x, n)")
    if degree < 1:
        raise MathError("root(x, n) needs n of 1 or more")
    return power(x, Fraction(1, degree)) if not isinstance(x, float) else power(x, 1 / degree)


def _log(x: Number, base: Number | None = None) -> Number:
    if x <= 0 or (base is not None and (base <= 0 or base == 1)):
        raise MathError("log needs a positive number (and a positive base other than 1)")
    if base is None:
        return math.log(x) if isinstance(x, int) else math.log(to_float(x))
    result = math.log(x if isinstance(x, int) else to_float(x)) / math.log(to_float(base))
    # log10(1000) should be exactly 3, not 2.9999999999999996.
    nearest = round(result)
    exact_power = isinstance(x, int) and isinstance(base, int) and 0 <= nearest <= MAX_BITS
    return nearest if exact_power and base**nearest == x else result


def _trig(function: Callable[[float], float]) -> Callable[[Number], Number]:
    def apply(x: Number) -> Number:
        angle = to_float(x)
        try:
            result = function(angle)
        except ValueError:
            raise MathError(f"{function.__name__} is not defined for {format_number(x)}") from None
        # sin(pi) is 1.2e-16 in floats; show the 0 a person expects.
        return 0.0 if abs(result) < 4 * 2.2e-16 * max(1.0, abs(angle)) else result

    return apply


_SPECIAL: dict[int, tuple[Number | None, Number | None]] = {
    0: (0, 1),
    30: (Fraction(1, 2), None),
    90: (1, 0),
    150: (Fraction(1, 2), None),
    180: (0, -1),
}
_SPECIAL |= {210: (Fraction(-1, 2), None), 270: (-1, 0), 330: (Fraction(-1, 2), None)}
_SPECIAL |= {60: (None, Fraction(1, 2)), 120: (None, Fraction(-1, 2))}
_SPECIAL |= {240: (None, Fraction(-1, 2)), 300: (None, Fraction(1, 2))}


def _degrees_trig(kind: str) -> Callable[[Number], Number]:
    """sind/cosd/tand: exact at the angles people learn by heart, floats elsewhere."""

    def apply(x: Number) -> Number:
        if not isinstance(x, float) and Fraction(x).denominator == 1:
            angle = int(x) % 360
            sin, cos = _SPECIAL.get(angle, (None, None))
            if kind == "sin" and sin is not None:
                return sin
            if kind == "cos" and cos is not None:
                return cos
            if kind == "tan" and angle % 90 == 0:
                if angle % 180 == 90:
                    raise MathError(f"tand({format_number(x)}) is undefined (the tangent of 90 degrees)")
                return 0
            if kind == "tan" and angle % 45 == 0:
                return 1 if angle % 180 == 45 else -1
        return _trig(getattr(math, kind))(math.radians(to_float(x)))

    return apply


def _inverse_degrees(function: Callable[[float], float]) -> Callable[[Number], Number]:
    def apply(x: Number) -> Number:
        try:
            result = math.degrees(function(to_float(x)))
        except ValueError:
            raise MathError(f"{function.__name__}d is not defined for {format_number(x)}") from None
        # asind(0.5) is 30.000000000000004 in floats; show 30 (still marked as not exact).
        return float(round(result)) if abs(result - round(result)) < 1e-9 else result

    return apply


def _factorial(n: Number) -> Number:
    value = to_int(n, "factorial")
    if value < 0 or value > MAX_FACTORIAL:
        raise MathError(f"factorial needs a whole number from 0 to {MAX_FACTORIAL}, got {format_number(n)}")
    return math.factorial(value)


def _comb_perm(function: Callable[[int, int], int]) -> Callable[[Number, Number], Number]:
    def apply(n: Number, k: Number) -> Number:
        total, chosen = to_int(n, function.__name__), to_int(k, function.__name__)
        if not 0 <= chosen <= total <= MAX_FACTORIAL:
            raise MathError(f"{function.__name__}(n, k) needs 0 <= k <= n <= {MAX_FACTORIAL}")
        return function(total, chosen)

    return apply


def _round(x: Number, digits: Number | None = None) -> Number:
    if digits is None:
        return round(x)
    places = to_int(digits, "round digits")
    if abs(places) > MAX_ROUND_DIGITS:
        raise MathError(f"round can keep at most {MAX_ROUND_DIGITS} digits")
    if isinstance(x, float):
        return round(x, places)
    # Fractions round exactly (half to even, like Python's round).
    rounded: Fraction = round(Fraction(x), places)
    return rounded


def _mean(*values: Number) -> Number:
    if any(isinstance(v, float) for v in values):
        return math.fsum(to_float(v) for v in values) / len(values)
    return Fraction(sum(Fraction(v) for v in values)) / len(values)


def _median(*values: Number) -> Number:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else _mean(ordered[middle - 1], ordered[middle])


def _sum(*values: Number) -> Number:
    if any(isinstance(v, float) for v in values):
        return math.fsum(to_float(v) for v in values)
    return Fraction(sum(Fraction(v) for v in values))


def _whole(function: Callable[..., int], name: str) -> Callable[..., Number]:
    def apply(*args: Number) -> Number:
        return function(*(to_int(a, name) for a in args))

    return apply


FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": _sqrt,
    "cbrt": lambda x: _root(x, 3),
    "root": _root,
    "pow": power,
    "exp": lambda x: _float_power(math.e, to_float(x)) if x != 0 else 1,
    "ln": _log,
    "log": _log,
    "log10": lambda x: _log(x, 10),
    "log2": lambda x: _log(x, 2),
    "sin": _trig(math.sin),
    "cos": _trig(math.cos),
    "tan": _trig(math.tan),
    "asin": _trig(math.asin),
    "acos": _trig(math.acos),
    "atan": _trig(math.atan),
    "sind": _degrees_trig("sin"),
    "cosd": _degrees_trig("cos"),
    "tand": _degrees_trig("tan"),
    "asind": _inverse_degrees(math.asin),
    "acosd": _inverse_degrees(math.acos),
    "atand": _inverse_degrees(math.atan),
    "degrees": lambda x: math.degrees(to_float(x)),
    "radians": lambda x: math.radians(to_float(x)),
    "abs": abs,
    "round": _round,
    "floor": math.floor,
    "ceil": math.ceil,
    "min": min,
    "max": max,
    "sum": _sum,
    "mean": _mean,
    "average": _mean,
    "avg": _mean,
    "median": _median,
    "factorial": _factorial,
    "comb": _comb_perm(math.comb),
    "perm": _comb_perm(math.perm),
    "gcd": _whole(math.gcd, "gcd"),
    "lcm": _whole(math.lcm, "lcm"),
}
ARITY: dict[str, tuple[int, int]] = {
    "root": (2, 2),
    "pow": (2, 2),
    "log": (1, 2),
    "ln": (1, 1),
    "round": (1, 2),
    "min": (1, 99),
    "max": (1, 99),
    "comb": (2, 2),
    "perm": (2, 2),
    "gcd": (1, 99),
    "lcm": (1, 99),
}


# --- formatting -------------------------------------------------------------------------------


def format_number(value: Number) -> str:
    """Exact text for ints and terminating decimals, 'p/q' for other fractions, 15 digits for floats."""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = format(value, ".15g")
        # "9e-06" is copied by the model into its answer ("9.0e-06 pm"), which a voice reads as letters
        return format(Decimal(text), "f") if "e" in text else text
    return terminating_decimal(value) or f"{value.numerator}/{value.denominator}"


def terminating_decimal(value: Fraction) -> str | None:
    """``19.99`` rather than ``1999/100``; None when the decimal expansion never ends."""
    rest, twos, fives = value.denominator, 0, 0
    while rest % 2 == 0:
        rest, twos = rest // 2, twos + 1
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    places = max(twos, fives)
    if rest != 1 or places > 60:
        return None
    scaled = abs(value.numerator) * 10**places // value.denominator
    digits = str(scaled).rjust(places + 1, "0")
    text = (digits[:-places] + "." + digits[-places:]).rstrip("0").rstrip(".") if places else digits
    return ("-" if value < 0 else "") + text


def approximate(value: Fraction, digits: int = 15) -> str:
    with localcontext() as context:
        context.prec = digits
        return str(Decimal(value.numerator) / Decimal(value.denominator))
