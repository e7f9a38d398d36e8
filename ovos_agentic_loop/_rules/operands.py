"""Unsaid operands: a calculation whose numbers the user never said and no tool returned.

Asked "whats twenty five percent of three hundred and twenty", the bundled model called the
calculator with ``325 * 0.25``; "vinte por cento de trezentos e quarenta" became ``20 / 100 *
300`` and "zweihundert euro plus neunzehn prozent" ``200 + 19.1`` (spoken suite, tune half): it
writes a spoken number in digits and gets it wrong, and the wrong result is then spoken with
confidence. The numbers of a conversation are known: its messages with their numbers in words
read by ovos-number-parser (in the session's language), the tool results, the earlier calls. A
calculator call holding a number none of them has is not run; the model is told which number and
given the user's question with its numbers in digits, once per turn (the table's budget).

What never counts as unsaid: small whole numbers (up to 10: exponents, halves, the 2 of a square),
powers of ten (a percentage's 100), a few constants of time and temperature, a known number's
sign, its hundredth (25 percent written 0.25), a known amount with its cents said apart ("eighty
four dollars and fifty cents", 84.5), and a fraction far from every number said above 10: that is
a factor the model brings (1.609 km a mile, 2.54 cm an inch, 0.4536 kg a pound), not a said
number written wrong. A list of "usual" factors missed those three, and a conversion was refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._rules.base import Need, Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import grounded, in_digits, numbers

__all__ = ["UNSAID_OPERANDS", "said_numbers"]

# 32 and 1.8 (Fahrenheit), 273.15 (kelvin), 60, 24, 365, 3600 (time), 12 (months, inches)
_CONSTANTS = frozenset({12.0, 24.0, 32.0, 1.8, 273.15, 60.0, 365.0, 3600.0, 0.01, 0.1, 0.5})
_POWER_OF_TEN = re.compile(r"^1(?:0+)?(?:\.0+)?$")


def said_numbers(view: TurnView) -> set[float]:
    """Every number of the conversation: as written, and said in words in the turn's language."""
    known = set(view.known_numbers)
    for message in view.transcript:
        if message.role in (MessageRole.USER, MessageRole.ASSISTANT) and message.content:
            known.update(float(n) for n in numbers(in_digits(message.content, view.lang)))
    return known


def _derived(known: set[float]) -> set[float]:
    """What a known number may also be written as: its sign dropped, its hundredth, and a whole
    amount with a two-digit number as its cents."""
    wholes = [k for k in known if k.is_integer()]
    cents = [k for k in wholes if 0 < k < 100]
    return (
        {abs(k) for k in known}
        | {-k for k in known}
        | {k / 100 for k in known}
        | {w + c / 100 for w in wholes for c in cents if w >= 1}
    )


def _a_factor(number: str, known: set[float]) -> bool:
    """A fraction not within a quarter of any number said above 10: a factor, not a mis-written
    number (19.1 for "nineteen" is near 19; 1.609 is near no "twenty miles")."""
    value = abs(float(number))
    if value.is_integer():
        return False
    return not any(abs(value - abs(k)) <= 0.25 * abs(k) for k in known if abs(k) > 10)


def _ordinary(number: str) -> bool:
    """A number any calculation may hold without the user saying it."""
    value = abs(float(number))
    return value <= 10 or value in _CONSTANTS or _POWER_OF_TEN.match(number.lstrip("-")) is not None


@dataclass(frozen=True)
class Unsaid:
    """A calculator call's ``number`` nobody said, and the question with its numbers in digits."""

    number: str
    calculator: str
    asked: str  # "" when the question holds no number


def _detect(view: TurnView) -> Unsaid | None:
    """A calculator call of the reply that holds a number nobody said and no tool returned."""
    calculator, role = view.calculator, view.role("calculator")
    if calculator is None or role is None:
        return None
    mine = [
        c
        for c in view.calls
        if c.name == calculator
        and isinstance(c.arguments, dict)
        and isinstance(c.arguments.get(role.argument), str)
    ]
    if not mine:
        return None
    known = said_numbers(view)
    known |= _derived(known)
    for call in mine:
        unsaid = [n for n in numbers(call.arguments[role.argument]) if not _ordinary(n)]
        unsaid = [n for n in unsaid if not grounded(n, known) and not _a_factor(n, known)]
        if unsaid:
            asked = in_digits(view.question, view.lang)
            return Unsaid(unsaid[0], calculator, asked.strip() if numbers(asked) else "")
    return None


def _respond(found: Unsaid) -> Response:
    number, calculator = found.number, found.calculator
    if not found.asked:
        message = (
            f"Not run: {number} is no number the user said or a tool returned. Call {calculator} "
            "again with the user's own numbers."
        )
    else:
        # The question itself, numbers in digits: given only the list "25, 320", the bundled model
        # dropped the percent and wrote 25 * 320; the words say what to do with the numbers.
        message = (
            f"Not run: {number} is no number the user said or a tool returned. The user asked, with "
            f'the numbers in digits: "{found.asked}". Call {calculator} again with these numbers.'
        )
    return Nudge(UNSAID_OPERANDS.description, message)


UNSAID_OPERANDS: Rule[Unsaid] = Rule(
    "unsaid_operands",
    Stage.BEFORE_CALL,
    _detect,
    _respond,
    description="numbers nobody said",
    needs=frozenset({Need.CALCULATOR}),
)
