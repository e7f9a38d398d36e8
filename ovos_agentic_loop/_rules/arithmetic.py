"""Head arithmetic: a question that asks for a calculation, answered with a number nothing in
the conversation holds (not the question, not a tool result, not rounded), while a calculator
tool is loaded and was not called this turn.

Small models read a value with one tool, then "work out" the rest and get it wrong ("15% of
the budget is 12"). The loop asks to calculate it with the tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovos_agentic_loop._rules.base import Need, Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.conversions import UNIT_WORDS
from ovos_agentic_loop._rules.operands import said_numbers
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import (
    CLOCK,
    call_format,
    grounded,
    local_numbers,
    numbers,
    without_clock,
)

__all__ = ["HEAD_ARITHMETIC"]

# A question that asks for a calculation. "how many days" counts days between dates; a bare
# "how many" counts what a tool listed and is not one. A temperature in another scale is one:
# "ninety eight point six fahrenheit in celsius" was answered with the formula worked in prose
# and a wrong number, no tool called (stock template, spoken suite).
_CALCULATION = re.compile(
    r"%|\b(?:percent\w*|per cent|sum|total|add(?:ed)? up|multipl\w*|times|divid\w*|average|mean|"
    r"median|compute|calculat\w*|how many (?:days|weeks|months|years|hours|minutes)|difference|"
    r"product|square root|convert\w*|interest|discount|fahrenheit|celsius|centigrade|kelvin|"
    # the same asked in pt, es, de ("e trinta por ciento" was answered 210 in the head: 30% of 350)
    r"vezes|veces|mal|geteilt|por cento|por ciento|prozent|soma|suma|summe|média|media|promedio|"
    r"durchschnitt|raiz|raíz|wurzel)\b"
    # a quantity asked in another unit ("and how many miles is that", "and in meters": the stock
    # template wrote the conversion out as a formula in prose, no tool called), in en, pt, es, de
    # ("wie viele meilen sind hundert kilometer" -> "und zweihundert": answered "122,541 Meilen"
    # in the head, stock template): the units of ``conversions``
    rf"|\b(?:in|to|into|how many|how much|em|en|quant[oa]s|cu[aá]nt[oa]s|wie\s*viele?)\s+(?:\w+\s+)?"
    rf"(?:{UNIT_WORDS})\b",
    re.IGNORECASE,
)
# "1." / "2)" opening a line of a numbered list: a step's number, not a result.
_LIST_MARKER = re.compile(r"^[ \t]*\d{1,2}[.)](?=\s)", re.MULTILINE)


@dataclass(frozen=True)
class Unworked:
    """A number of the answer nobody said and no tool returned, while the calculator waits."""

    number: str
    calculator: str
    how: str


_YEAR = re.compile(r"(?:1[89]|2\d)\d\d")


def _may_apply(view: TurnView) -> bool:
    """A calculation is asked for and the calculator is loaded but not called yet: whatever
    number the answer will hold, it may be sent back."""
    calculator = view.calculator
    if calculator is None or calculator in view.called:
        return False
    # a follow-up asks its question through the last one ("and thirty", "und zweihundert")
    return any(_CALCULATION.search(asked) for asked in (view.question, view.follows))


def _detect(view: TurnView) -> Unworked | None:
    if not _may_apply(view) or view.calculator is None:
        return None
    known = said_numbers(view)  # the question's spelled numbers too, in the session's language
    counts = said_numbers(view, counts=True)
    answer = _LIST_MARKER.sub("", view.answer)
    # A time or date of the answer is grounded by any number; any other number by one that is no
    # part of a time or date: "11 days left" is not the 11 of 11:38. A year is part of a date:
    # "between March 1st and April 15th, 2027" after a count of days from 2027-03-01.
    unsaid = [
        n for n in numbers(without_clock(answer)) if not grounded(n, known if _YEAR.fullmatch(n) else counts)
    ]
    unsaid += [n for clock in CLOCK.findall(answer) for n in numbers(clock) if not grounded(n, known)]
    local = local_numbers(answer, view.lang)
    if not unsaid or (local and all(grounded(n, known) for n in local)):
        return None  # every number grounded, as English or as the session's language writes it
    return Unworked(unsaid[0], view.calculator, call_format(view.text_mode))


def _respond(found: Unworked) -> Response:
    message = (
        f"Do not calculate in your head ({found.number} may be wrong): call {found.calculator} now "
        f"with the calculation{found.how}, then answer with its result."
    )
    return Nudge(HEAD_ARITHMETIC.description, message)


HEAD_ARITHMETIC: Rule[Unworked] = Rule(
    "head_arithmetic",
    Stage.ON_ANSWER,
    _detect,
    _respond,
    description="head arithmetic",
    needs=frozenset({Need.CALCULATOR}),
    holds_stream=True,
    may_apply=_may_apply,
)
