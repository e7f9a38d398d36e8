"""A dropped sign: a call holding N where the user said minus N, and never N itself.

Asked "whats minus five celsius in fahrenheit", the bundled model called ``unit_convert`` with
``value: 5`` and answered "5 °C = 41 °F"; "whats minus ten fahrenheit in celsius" became
``value: 10`` and -12.2 °C (spoken suite, both templates). The question holds the sign ("minus
five" reads as -5); the call is not run, and the model is told the number to use, once per turn
(the table's budget: a call sent again as it was runs).

In an expression a number after a minus is signed already ("0 - 5", "(-5) * 9/5"); a minus
between two numbers is the operation, not a sign ("seven minus twelve": 7 and 12, see
:func:`~ovos_agentic_loop._text.numbers.in_digits`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import in_digits, numbers
from ovos_agentic_loop._text.values import leaves

__all__ = ["Unsigned", "dropped_sign"]

# A number in an expression with what precedes it: a minus sign (ASCII or U+2212) before it,
# across spaces and opening parentheses, makes it signed.
_OPERAND = re.compile(r"([-\u2212]?)[\s(]*(?<![\w.])(\d+(?:\.\d+)?)(?![\d.])")


@dataclass(frozen=True)
class Unsigned:
    """A call holding ``number`` where the user said minus ``number``, and the call signed."""

    number: str
    tool: str
    signed_call: str  # the call's arguments with the sign, as JSON

    @property
    def message(self) -> str:
        # The whole call, signed: told only "again with -20", the bundled model called the
        # calculator with "-20" alone and lost the conversion.
        number = self.number
        return (
            f"Not run: the user said minus {number} (-{number}), and this call has "
            f"{number}. Call {self.tool} again with -{number}: {self.signed_call}"
        )


def dropped_sign(view: TurnView) -> Unsigned | None:
    """A call of the reply holding N where the user said minus N, and never N itself."""
    said = numbers(in_digits(view.question, view.lang))
    negative = {abs(float(n)): n.lstrip("-") for n in said if float(n) < 0}
    if not negative:
        return None
    positive = {float(n) for n in said if float(n) > 0}
    for call in view.calls:
        signed, unsigned = _operands(call.arguments)
        for value in unsigned:
            if value in negative and value not in positive and value not in signed:
                fixed = json.dumps(_with_sign(call.arguments, value), ensure_ascii=False)
                return Unsigned(negative[value], call.name, fixed)
    return None


def _with_sign(arguments: object, value: float) -> object:
    """``arguments`` with each unsigned ``value`` made negative: a number argument -N, a number in
    a text ``(-N)`` (``-N`` when it is the whole text)."""
    if isinstance(arguments, dict):
        return {key: _with_sign(item, value) for key, item in arguments.items()}
    if isinstance(arguments, list):
        return [_with_sign(item, value) for item in arguments]
    if isinstance(arguments, (int, float)) and not isinstance(arguments, bool) and arguments == value:
        return -arguments
    if isinstance(arguments, str):

        def signed(match: re.Match[str]) -> str:
            if match.group(1) or float(match.group(2)) != value:
                return match.group(0)
            negative = (
                f"-{match.group(2)}"
                if match.group(0).strip() == arguments.strip()
                else f"(-{match.group(2)})"
            )
            return match.group(0)[: match.start(2) - match.start(0)] + negative

        return _OPERAND.sub(signed, arguments)
    return arguments


def _operands(arguments: object) -> tuple[set[float], set[float]]:
    """The call's numbers, in number and text arguments alike: (written with a minus, as absolute
    values; written without one)."""
    signed: set[float] = set()
    unsigned: set[float] = set()
    for leaf in leaves(arguments):
        for sign, digits in _OPERAND.findall(leaf):
            (signed if sign else unsigned).add(float(digits))
    return signed, unsigned
