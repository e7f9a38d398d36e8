"""Units converted by hand: a calculator call for a question that converts between units, while a
converter of amounts is offered.

Asked "how many pounds is seventy kilos", the bundled model called the calculator with
``70 * 0.45359237`` and said "31.75 pounds" (the factor's direction invented); "wie viele meilen
sind hundert kilometer" became ``100 / 1.6`` (62.5 miles: a rounded factor); "ninety eight point
six fahrenheit in celsius" became ``98.6 * 5 / 9`` (the 32 left out). The factor is a value nobody
said, and a tool that has it exactly was offered: the call is not run, and the model is told which
tool converts and that it takes the amount and the units as said.

A question converts when it names two different units (or one temperature scale: Fahrenheit and
Celsius questions name the other scale as "in celsius" or leave it to the reading). A calculation
whose numbers are all said or small ("45 * 7" for a week of 45 km a day) runs: only an expression
holding a factor nobody said, or a temperature formula that is not the one the question's
direction needs (the 32 taken off before the 5/9 from Fahrenheit, added after the 9/5 from
Celsius), is held back; a right formula runs (held, the stock template answered from its head).
The converter of amounts is ``ToolSet.amount_converter`` (the clock's converters take a time and a
zone, no amount).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovos_agentic_loop._rules.operands import a_factor, known_numbers_of
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import grounded, in_digits, numbers
from ovos_agentic_loop._tools.toolset import AmountConverter

__all__ = ["UNIT_WORDS", "ByHand", "converted_by_hand"]

#: Units a voice converts between, as said in en, pt, es, de (the calculator's languages).
UNIT_WORDS = (
    r"miles?|kilomet\w*|km|met(?:er|re)s?|centimet\w*|cm|millimet\w*|feet|foot|inch(?:es)?|yards?|pounds?|"
    r"lbs?|kilos?|kilograms?|kg|grams?|ounces?|oz|lit(?:er|re)s?|gallons?|cups?|mph|milhas|millas|meilen|"
    r"quil[oó]metros|quilos|quilogramas|kilogramos|kilogramm|kil[oó]metros|metros|p[eé]s|pies|fu[sß]|libras|"
    r"pfund|onças|onzas|unzen|gramas|gramos|gramm|litros|galões|galones|gallonen"
)
_SCALE_WORDS = r"fahrenheit|celsius|centigrade|kelvin|cent[ií]grados?"
_UNIT = re.compile(rf"\b(?:{UNIT_WORDS})\b|(?P<scale>\b(?:{_SCALE_WORDS})\b)", re.IGNORECASE)
_ANY_UNIT = rf"(?:{UNIT_WORDS}|{_SCALE_WORDS})"
_AMOUNT = r"(?P<amount>-?\d+(?:\.\d+)?)\s*(?:(?:degrees?|graus?|grados?|grad)\s+|°\s*)?"
# The conversion as said, numbers in digits: "70 kilos in pounds", "98.6 fahrenheit to celsius",
# "how many pounds is 70 kilos", "wie viele meilen sind 100 kilometer".
_SAID = (
    re.compile(
        rf"{_AMOUNT}(?P<source>{_ANY_UNIT})\s+(?:in|to|into|em|para|en|a|nach)\s+"
        rf"(?:(?:degrees?|graus?|grados?|grad)\s+)?(?P<target>{_ANY_UNIT})\b",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\b(?:how\s+many|quant[oa]s|cu[aá]nt[oa]s|wie\s*viele?)\s+(?:(?:degrees?|graus?|grados?|grad)\s+)?"
        rf"(?P<target>{_ANY_UNIT})\s+(?:is|are|in|é|são|sao|es|son|sind|ist|hat|tem|hay)\s+{_AMOUNT}"
        rf"(?P<source>{_ANY_UNIT})\b",
        re.IGNORECASE,
    ),
)


@dataclass(frozen=True)
class ByHand:
    """A calculator call (``expression``) converting units that ``converter`` converts exactly."""

    calculator: str
    expression: str
    converter: str
    asked: str
    #: The converter's call as the question says it (its amount and two units), where it says it so.
    said_call: tuple[tuple[str, object], ...] = ()

    @property
    def message(self) -> str:
        return (
            f'Not run: {self.calculator}("{self.expression}") converts units by hand, and {self.converter} '
            f"converts them exactly. Call {self.converter} with the amount and the two units as the user "
            f'said them: "{self.asked}".'
        )


def converted_by_hand(view: TurnView) -> ByHand | None:
    calculator = view.tools.with_role("calculator")
    converter = view.tools.amount_converter
    if calculator is None or converter is None:
        return None
    asked = " ".join(filter(None, (view.follows, view.asked or view.question)))
    units = {m.group().lower() for m in _UNIT.finditer(asked)}
    scale = any(m.group("scale") for m in _UNIT.finditer(asked))
    if len(units) < 2 and not scale:
        return None
    spec, role = calculator
    said = in_digits(view.asked or view.question, view.lang).strip()
    direction = _direction(in_digits(asked, view.lang)) if scale else None
    known: set[float] | None = None
    for call in view.calls:
        expression = call.arguments.get(role.argument) if call.name == spec.name else None
        if not isinstance(expression, str):
            continue
        known = known if known is not None else known_numbers_of(view)
        if scale:
            if not _right_formula(expression, direction):
                return ByHand(spec.name, expression, converter.name, said, _said_call(said, converter))
        elif any(a_factor(n, known) and not grounded(n, known) for n in numbers(expression)):
            return ByHand(spec.name, expression, converter.name, said, _said_call(said, converter))
    return None


def _said_call(said: str, converter: AmountConverter) -> tuple[tuple[str, object], ...]:
    """The converter's arguments as the question says the conversion ("70 kilos in pounds": 70,
    "kilos", "pounds"); () where it does not say it in one of those forms. The converter reads the
    unit words of its languages."""
    for form in _SAID:
        found = form.search(said)
        if found is not None:
            amount = float(found.group("amount"))
            value: object = int(amount) if amount.is_integer() else amount
            return (
                (converter.amount, value),
                (converter.unit, found.group("source").lower()),
                (converter.target, found.group("target").lower()),
            )
    return ()


# "77 fahrenheit", "-4 degrees celsius", "25°C": the scale the amount is in (the source).
_AMOUNT_IN = re.compile(
    r"-?\d+(?:[.,]\d+)?\s*(?:(?:degrees?|graus?|grados?|grad)\s+|°\s*)?(?P<scale>fahrenheit|celsius|centigrade|f|c)\b",
    re.IGNORECASE,
)


def _direction(asked: str) -> str | None:
    """ "f->c" or "c->f" where the question says the amount's scale and names the other one; else None."""
    found = _AMOUNT_IN.search(asked)
    if found is None:
        return None
    source = found.group("scale").lower()[0]
    source = "c" if source in "c" else "f"
    other = {"f": r"\bcelsius|\bcentigrade|\bcent[ií]grados?", "c": r"\bfahrenheit"}[source]
    if re.search(other, asked, re.IGNORECASE) is None:
        return None
    return "f->c" if source == "f" else "c->f"


def _right_formula(expression: str, direction: str | None) -> bool:
    """The calculation the question's direction needs: 32 taken off first (in brackets) then times
    5/9 (or / 1.8) from Fahrenheit; times 9/5 (or 1.8) then 32 added last from Celsius. Without a
    direction no formula is known right."""
    plain = expression.replace(" ", "")
    if direction == "f->c":
        scaled = re.search(r"5\)?/9|/1\.8", plain) is not None
        return scaled and re.search(r"-\(?32\)", plain) is not None
    if direction == "c->f":
        scaled = re.search(r"9\)?/5|\*1\.8", plain) is not None
        return scaled and (re.search(r"\+\(?32\)*$", plain) is not None or plain.startswith("32+"))
    return False
