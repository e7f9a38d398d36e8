"""Solve one equation in one unknown, from the same checked tree as ``evaluate_expression``.

Polynomials (degree up to 12) are solved exactly where the coefficients are exact: linear and
quadratic by formula, higher degrees by trying rational roots and then by numeric root finding.
Anything else is solved numerically by scanning for sign changes and bisecting, within a time
budget. The text is never executed: it is parsed by ``_parse`` and walked by ``_eval``.
"""

from __future__ import annotations

import ast
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from ovos_agentic_loop_toolboxes.maths._eval import (
    CONSTANTS,
    FUNCTIONS,
    Evaluator,
    MathError,
    Number,
    binary,
    checked,
    exact_root,
    format_number,
)
from ovos_agentic_loop_toolboxes.maths._parse import free_names, parse_expression

MAX_DEGREE = 12
MAX_SOLUTIONS = 20
SCAN_LIMIT = 1e6
SCAN_SECONDS = 1.0

Poly = list[Number]  # Coefficients, index = power of the unknown.


@dataclass
class Solution:
    """Solutions as exact text where possible, and as floats in the same order."""

    variable: str
    method: str
    solutions: list[str] = field(default_factory=list)
    decimal: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reading: str | None = None  # how a text that was no "left = right" equation was read

    def add(self, text: str, value: float) -> None:
        if not any(math.isclose(value, seen, rel_tol=1e-9, abs_tol=1e-12) for seen in self.decimal):
            self.solutions.append(text)
            self.decimal.append(value)

    def sort(self) -> None:
        pairs = sorted(zip(self.decimal, self.solutions, strict=True))
        self.decimal, self.solutions = [p[0] for p in pairs], [p[1] for p in pairs]


class NotAnEquation(MathError):
    """A text with no '=' and no unknown: a calculation, which the toolbox evaluates instead."""


def solve(equation: str) -> Solution:
    """Solve ``left = right`` (or ``expression = 0`` when there is no '=') for its one unknown.

    Raises :class:`NotAnEquation` for a text with neither an '=' nor an unknown."""
    sides = equation.replace("==", "=").split("=")
    if len(sides) > 2:
        raise MathError("send equation with a single '=', such as '2*x + 3 = 7'")
    left = parse_expression(sides[0], "equation")
    right = parse_expression(sides[1], "equation") if len(sides) == 2 else ast.Constant(0)
    tree = ast.BinOp(left=left, op=ast.Sub(), right=right)
    unknowns = sorted(free_names(tree) - set(CONSTANTS) - set(FUNCTIONS))
    if not unknowns and len(sides) == 1:
        raise NotAnEquation(
            "there is no '=' and no unknown, so this is a calculation: send it as expression to "
            "evaluate_expression"
        )
    if not unknowns:
        # "3 = 3" asks no question a calculation answers: which one was meant is not guessed.
        raise MathError(
            "the equation has no unknown: send equation with one unknown, such as 'x^2 = 9', or only "
            "the side to calculate, without '=', to get its value"
        )
    if len(unknowns) > 1:
        raise MathError(
            f"only one unknown is supported, found {', '.join(unknowns)}: send equation with the known "
            "values written as numbers, such as '2*x + 3 = 7'"
        )
    variable = unknowns[0]
    found = _solve_tree(tree, variable)
    if len(sides) == 1:
        # Said, so that a model which sent a formula to fill in sees it was read as equal to zero.
        found.reading = f"no '=' given: solved {sides[0].strip()} = 0 for {variable}"
    return found


def _solve_tree(tree: ast.expr, variable: str) -> Solution:
    poly = _to_poly(tree, variable, Evaluator())
    if poly is not None:
        try:
            return _solve_polynomial(_trim(poly), variable)
        except OverflowError:  # Exact coefficients beyond 1e308 cannot be handed to the float root finder.
            raise MathError(
                "the coefficients are too large (above about 1e308) to find roots; scale the equation down"
            ) from None
    return _solve_numeric(tree, variable)


# --- polynomials ------------------------------------------------------------------------------


def _to_poly(node: ast.expr, variable: str, evaluator: Evaluator) -> Poly | None:
    """The coefficients of ``node`` as a polynomial in ``variable``, or None if it is not one."""
    if variable not in free_names(node):
        return [evaluator.evaluate(node)]
    if isinstance(node, ast.Name):
        return [0, 1]
    if isinstance(node, ast.UnaryOp):
        inner = _to_poly(node.operand, variable, evaluator)
        return None if inner is None else [-c if isinstance(node.op, ast.USub) else c for c in inner]
    if not isinstance(node, ast.BinOp):
        return None
    left = _to_poly(node.left, variable, evaluator)
    if isinstance(node.op, (ast.Div, ast.Pow)):
        if left is None or variable in free_names(node.right):
            return None
        amount = evaluator.evaluate(node.right)
        if isinstance(node.op, ast.Div):
            return [checked(binary(ast.Div(), c, amount)) for c in left]
        if isinstance(amount, float) or amount != int(amount) or not 0 <= amount <= MAX_DEGREE:
            return None
        result: Poly = [1]
        for _ in range(int(amount)):
            result = _multiply(result, left)
        return result
    right = _to_poly(node.right, variable, evaluator)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Mult):
        return _multiply(left, right)
    if isinstance(node.op, (ast.Add, ast.Sub)):
        sign = 1 if isinstance(node.op, ast.Add) else -1
        size = max(len(left), len(right))
        padded = [*left, *[0] * (size - len(left))], [*right, *[0] * (size - len(right))]
        return [checked(a + sign * b) for a, b in zip(*padded, strict=True)]
    return None


def _multiply(a: Poly, b: Poly) -> Poly:
    if len(a) + len(b) - 2 > MAX_DEGREE:
        raise MathError(
            f"polynomials above degree {MAX_DEGREE} are not supported; send equation of degree "
            f"{MAX_DEGREE} at most"
        )
    product: Poly = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            product[i + j] = checked(product[i + j] + x * y)
    return product


def _trim(poly: Poly) -> Poly:
    scale = max((abs(float(c)) for c in poly), default=0.0)
    while len(poly) > 1 and (
        poly[-1] == 0 or (isinstance(poly[-1], float) and abs(poly[-1]) < 1e-14 * scale)
    ):
        poly = poly[:-1]
    return poly


def _solve_polynomial(poly: Poly, variable: str) -> Solution:
    degree = len(poly) - 1
    method = {0: "none", 1: "linear", 2: "quadratic"}.get(degree, "polynomial")
    result = Solution(variable, method)
    if degree == 0:
        result.notes.append(
            f"the equation holds for every {variable}" if poly[0] == 0 else "the equation has no solution"
        )
        return result
    exact = not any(isinstance(c, float) for c in poly)
    while poly[0] == 0:  # x * (...) = 0: zero is a root.
        result.add("0", 0.0)
        poly = poly[1:]
    if exact and len(poly) > 3:
        poly = _rational_roots(poly, result)
    if len(poly) == 2:
        root = checked(binary(ast.Div(), -poly[0], poly[1]))
        result.add(format_number(root), float(root))
    elif len(poly) == 3:
        _quadratic(poly, result, exact)
    elif len(poly) > 3:
        _numeric_polynomial(poly, result)
    result.sort()
    return result


def _quadratic(poly: Poly, result: Solution, exact: bool) -> None:
    c, b, a = poly
    middle = binary(ast.Div(), -b, 2 * a)
    spread = binary(ast.Div(), b * b - 4 * a * c, 4 * a * a)  # Roots are middle ± sqrt(spread).
    if spread < 0:
        imaginary = math.sqrt(-float(spread))
        pair = f"{format_number(middle)} ± {format_number(imaginary)}i"
        found = "no real solutions; the complex ones are" if not result.decimal else "complex solutions also:"
        result.notes.append(f"{found} {pair}")
        return
    root = exact_root(Fraction(spread), 2) if exact else None
    if root is not None or not exact:
        offset: Number = root if root is not None else math.sqrt(float(spread))
        for sign in (-1, 1):
            value = checked(middle + sign * offset)
            result.add(format_number(value), float(value))
        return
    text = f"sqrt({format_number(spread)})"
    for sign in (-1, 1):
        shown = (
            ("-" if sign < 0 else "") + text
            if middle == 0
            else f"{format_number(middle)} {'-+'[sign > 0]} {text}"
        )
        result.add(shown, float(middle) + sign * math.sqrt(float(spread)))


def _rational_roots(poly: Poly, result: Solution) -> Poly:
    """Snap numeric roots to nearby fractions, keep those that are exact roots, and divide them out.

    Checking a handful of snapped candidates exactly is much cheaper than trying every p/q from
    the rational root theorem, whose divisor pairs explode for large coefficients.
    """
    for approx in _float_roots(poly):
        candidate = Fraction(approx).limit_denominator(10_000)
        while len(poly) > 3 and _horner(poly, candidate) == 0:
            result.add(format_number(checked(candidate)), float(candidate))
            poly = _deflate(poly, candidate)
    return poly


def _horner(poly: Poly, x: Number) -> Number:
    total: Number = 0
    for coefficient in reversed(poly):
        total = total * x + coefficient
    return total


def _deflate(poly: Poly, root: Number) -> Poly:
    """Divide by (x - root): synthetic division, dropping the zero remainder."""
    quotient: Poly = []
    carry: Number = 0
    for coefficient in reversed(poly[1:]):
        carry = carry * root + coefficient
        quotient.append(carry)
    return list(reversed(quotient))


def _numeric_polynomial(poly: Poly, result: Solution) -> None:
    for value in _float_roots(poly):
        result.add(format_number(value), value)
    if not result.decimal:
        result.notes.append("no real solutions")


def _float_roots(poly: Poly) -> list[float]:
    """Real roots by Durand-Kerner (all complex roots at once), polished with Newton's method."""
    coefficients = [float(c) / float(poly[-1]) for c in poly]
    degree = len(coefficients) - 1
    roots = [complex(0.4, 0.9) ** k for k in range(degree)]
    for _ in range(500):
        updated = []
        for i, root in enumerate(roots):
            denominator = complex(1)
            for j, other in enumerate(roots):
                if i != j:
                    denominator *= root - other
            updated.append(root - _horner_c(coefficients, root) / (denominator or 1e-12))
        converged = max(abs(a - b) for a, b in zip(roots, updated, strict=True)) < 1e-14
        roots = updated
        if converged:
            break
    real = [r.real for r in roots if abs(r.imag) < 1e-7 * max(1.0, abs(r.real))]
    return sorted(_newton(coefficients, x) for x in real)


def _horner_c(coefficients: list[float], x: complex) -> complex:
    total = complex(0)
    for coefficient in reversed(coefficients):
        total = total * x + coefficient
    return total


def _newton(coefficients: list[float], x: float) -> float:
    derivative = [k * c for k, c in enumerate(coefficients)][1:]
    for _ in range(20):
        slope = _horner_c(derivative, x).real
        if slope == 0:
            break
        x -= _horner_c(coefficients, x).real / slope
    return x


# --- anything else: numeric -------------------------------------------------------------------


def _solve_numeric(tree: ast.expr, variable: str) -> Solution:
    result = Solution(variable, "numeric")
    deadline = time.monotonic() + SCAN_SECONDS

    def f(x: float) -> float | None:
        try:
            value = Evaluator({variable: x}).evaluate(tree)
        except (MathError, ArithmeticError, ValueError):
            return None
        number = float(value)
        return number if math.isfinite(number) else None

    points = _scan_points()
    previous: tuple[float, float] | None = None
    for x in points:
        if time.monotonic() > deadline:
            result.notes.append("stopped early: the equation is slow to evaluate")
            break
        y = f(x)
        if y is None:
            previous = None
            continue
        if y == 0:
            result.add(format_number(x), x)
        elif previous is not None and (previous[1] < 0) != (y < 0):
            root = _bisect(f, previous[0], x)
            if root is not None:
                result.add(format_number(root), root)
        previous = (x, y)
    result.sort()
    if len(result.decimal) > MAX_SOLUTIONS:
        result.notes.append(f"showing the {MAX_SOLUTIONS} solutions nearest 0 of {len(result.decimal)} found")
        keep = sorted(range(len(result.decimal)), key=lambda i: abs(result.decimal[i]))[:MAX_SOLUTIONS]
        result.decimal = [result.decimal[i] for i in sorted(keep)]
        result.solutions = [result.solutions[i] for i in sorted(keep)]
    result.notes.append(
        f"numeric search between -{SCAN_LIMIT:g} and {SCAN_LIMIT:g}; values are approximate and "
        "solutions where the curve only touches zero may be missed"
    )
    return result


def _scan_points() -> list[float]:
    """Dense near zero, then logarithmically spaced out to SCAN_LIMIT, on both sides."""
    near = [i / 20 for i in range(-2000, 2001)]
    far = [10 ** (2 + k / 50) for k in range(0, 201)]
    return sorted({*near, *far, *(-x for x in far)})


def _bisect(f: Callable[[float], float | None], low: float, high: float) -> float | None:
    f_low = f(low)
    for _ in range(100):
        middle = (low + high) / 2
        f_middle = f(middle)
        if f_middle is None or f_low is None:
            return None
        if f_middle == 0 or high - low < 1e-15 * max(1.0, abs(middle)):
            break
        if (f_low < 0) != (f_middle < 0):
            high = middle
        else:
            low, f_low = middle, f_middle
    middle = (low + high) / 2
    value = f(middle)
    # A sign change across a pole (tan, 1/x) is not a root: the function stays large there.
    if value is None or abs(value) > 1e-6:
        return None
    return _tidy(middle)


def _tidy(x: float) -> float:
    """Round away float noise (2.0000000000000004 -> 2.0) when that is within bisection precision."""
    rounded = round(x, 9)
    return rounded if math.isclose(rounded, x, rel_tol=1e-12, abs_tol=1e-13) else x
