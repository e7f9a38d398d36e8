"""Unsaid numbers: a call holding a number the user never said and no tool returned.

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

The same trace covers every argument a tool's schema types as a number or a list of numbers, of
any toolbox: asked for the weekday and a percentage, the bundled model also called
``unit_convert(100, "kg", "lb")`` and ``statistics_summary([2, 4, 4, 5])``, the examples of their
own descriptions, and on "whats the average temperature in temps.csv" it passed a hundred invented
numbers to the statistics without reading the file. There nothing is ordinary but the argument's
declared default, one small whole number (a count or a setting: "the next 3 results"), and a
calendar's counts (what a voice leaves unsaid: "a fortnight", "a year"); a list of numbers is data,
and each of its numbers has to come from somewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import grounded, in_digits, numbers, without_clock
from ovos_agentic_loop._text.values import plain_number
from ovos_agentic_loop._tools.spec import ToolSpec

__all__ = ["Unsaid", "a_factor", "known_numbers_of", "said_numbers", "unsaid_number"]

# 32 and 1.8 (Fahrenheit), 273.15 (kelvin), 60, 24, 365, 3600 (time), 12 (months, inches)
_CONSTANTS = frozenset({12.0, 24.0, 32.0, 1.8, 273.15, 60.0, 365.0, 3600.0, 0.01, 0.1, 0.5})
_POWER_OF_TEN = re.compile(r"^1(?:0+)?(?:\.0+)?$")


def said_numbers(view: TurnView, *, counts: bool = False) -> set[float]:
    """Every number of the conversation: as written, and said in words in the turn's language.
    ``counts``: none that is part of a time or a date."""
    known = set(view.known_counts if counts else view.known_numbers)
    read = without_clock if counts else str
    for message in view.transcript:
        if message.role in (MessageRole.USER, MessageRole.ASSISTANT) and message.content:
            known.update(float(n) for n in numbers(in_digits(read(message.content), view.lang)))
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


def a_factor(number: str, known: set[float]) -> bool:
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
    """A call's ``number`` nobody said and no tool returned: in the calculator's expression, or in
    a number argument (``parameter``) of any tool; and the question with its numbers in digits."""

    number: str
    tool: str
    parameter: str
    asked: str  # "" when the question holds no number
    example: bool = False  # the number is the example in the parameter's own description
    optional: bool = False  # the parameter may be left out

    @property
    def message(self) -> str:
        where = "" if self.parameter == "" else f" ({self.parameter})"
        said = f"Not run: {self.number}{where} is no number the user said or a tool returned"
        if self.example:
            said += f", it is the example in the description of {self.parameter}"
        fix = f"Call {self.tool} again with the user's own numbers"
        if self.optional:
            fix += f", or leave {self.parameter} out"
        if not self.asked:
            return f"{said}. {fix}."
        # The question itself, numbers in digits: given only the list "25, 320", the bundled model
        # dropped the percent and wrote 25 * 320; the words say what to do with the numbers.
        return f'{said}. The user asked, with the numbers in digits: "{self.asked}". {fix}.'


#: What a number argument of any tool may hold without the user saying it: nothing and one ("a
#: mile", "next month"), and the counts of a calendar ("next week", "a fortnight", "a year").
_UNSAID_AMOUNTS = frozenset({0.0, 1.0, 7.0, 12.0, 14.0, 24.0, 30.0, 60.0, 365.0})


def unsaid_number(view: TurnView) -> Unsaid | None:
    """The first number of the reply's calls that nobody said and no tool returned: in the
    calculator's expression (where a calculation's own numbers are ordinary), or in an argument
    its tool's schema types as a number or a list of numbers (where only its default, a small
    whole number alone, and a calendar's counts are)."""
    known: set[float] | None = None
    for call in view.calls:
        spec = view.tools.get(call.name)
        if spec is None or not isinstance(call.arguments, dict):
            continue
        for parameter, value in call.arguments.items():
            checked = _checked_numbers(spec, parameter, value)
            if not checked:
                continue
            known = known if known is not None else known_numbers_of(view)
            schema = spec.properties.get(parameter) or {}
            for number, in_expression in checked:
                if _traced(number, known, in_expression, schema):
                    continue
                asked = in_digits(view.asked or view.question, view.lang).strip()
                return Unsaid(
                    number,
                    call.name,
                    "" if in_expression else parameter,
                    asked if numbers(asked) else "",
                    example=not in_expression and _in_description(number, schema),
                    optional=not in_expression and parameter not in spec.required,
                )
    return None


def _checked_numbers(spec: ToolSpec, parameter: str, value: object) -> list[tuple[str, bool]]:
    """The numbers of one argument that must be traced, each with whether it is in the
    calculator's expression: the calculator's argument, and the number-typed arguments."""
    role = spec.role
    if role is not None and role.kind == "calculator" and parameter == role.argument:
        return [(n, True) for n in numbers(value)] if isinstance(value, str) else []
    schema = spec.properties.get(parameter)
    if not isinstance(schema, dict) or not _number_typed(schema):
        return []
    values = value if isinstance(value, list) else [value]
    found = [plain_number(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if isinstance(value, list):
        return [(n, False) for n in found]
    # One small whole number is a count or a setting the model may well choose ("the next 3
    # results"); a list of them is data, and has to come from somewhere.
    return [(n, False) for n in found if not (float(n).is_integer() and abs(float(n)) <= 10)]


def _number_typed(schema: dict[str, object]) -> bool:
    """A parameter whose schema takes a number, or a list of numbers."""
    kinds = {"number", "integer"}
    items = schema.get("items")
    return schema.get("type") in kinds or (
        schema.get("type") == "array" and isinstance(items, dict) and items.get("type") in kinds
    )


def known_numbers_of(view: TurnView) -> set[float]:
    """The conversation's numbers and what each may also be written as (``_derived``)."""
    known = said_numbers(view)
    return known | _derived(known)


def _traced(number: str, known: set[float], in_expression: bool, schema: object) -> bool:
    """Whether ``number`` comes from somewhere: said, returned, or ordinary where it stands."""
    if in_expression:
        return _ordinary(number) or grounded(number, known) or a_factor(number, known)
    value = float(number)
    default = schema.get("default") if isinstance(schema, dict) else None
    return abs(value) in _UNSAID_AMOUNTS or value == default or grounded(number, known)


def _in_description(number: str, schema: dict[str, object]) -> bool:
    description = schema.get("description")
    return isinstance(description, str) and float(number) in {float(n) for n in numbers(description)}
