"""A past year nobody said: a call holding a date two or more years back, in a conversation that
never names that year.

Asked "how many days until christmas" on 2026-12-01, the bundled model called ``days_between``
with ``2023-12-25`` (its training years) and ``today``, and answered "1072 days until Christmas"
in every run of the spoken suite's tune half, on both templates, even with the clock's note beside
the count ("if this year's date was meant, 2026-12-25 is 24 days from today"). The call is not
run; the model is told today's date, once per turn (the table's budget: sent again as it was, the
call runs: "how many days since christmas 2023" may mean it).

The loop makes the call itself with the date in this year, or next year once this year's has
passed (``corrected``): told today's date, the model counted from today to today, or from the
31st of December, and answered "-27" (spoken suite, tune half). A date that has no such day then
(the 29th of February) is left to the model, told.

Last year is left alone ("last christmas"), and so is any year the conversation holds: in digits,
in words (read by ovos-number-parser from each word on, since it gives up on a whole sentence with
an ordinal in it: "the fourth of july two thousand and twenty"), said as two pairs ("nineteen
ninety nine"), or in a tool's result.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._rules.operands import said_numbers
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import in_digits, numbers
from ovos_agentic_loop._text.values import leaves

__all__ = ["OldDate", "old_date"]

_DATE = re.compile(r"(?<!\d)((?:1[89]|2\d)\d\d)-(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?!\d)")
_YEAR_PAIR = re.compile(r"(?<![\d.])(1[0-9]|20) (\d{2})(?![\d.])")  # "19 99": a year said in two pairs


@dataclass(frozen=True)
class OldDate:
    """A call's ``date`` in ``year``, a past year nobody named, as of ``today``."""

    date: str
    year: str
    today: str
    tool: str
    #: The call's arguments with each such date in this year, or next year once it has passed;
    #: None when one of them has no such day then.
    corrected: dict[str, Any] | None = None

    @property
    def message(self) -> str:
        return (
            f"Not run: {self.date} is in {self.year}, a year nobody named; today is "
            f"{self.today}. Call {self.tool} again with the date the user means (this "
            "year's, or next year's once this year's has passed)."
        )


def old_date(view: TurnView) -> OldDate | None:
    """A call's date two or more years back, in a year the conversation never names."""
    today = view.today
    dated = [(call, match) for call in view.calls for match in _dates(call.arguments)]
    old = [(call, match) for call, match in dated if int(match.group(1)) <= today.year - 2]
    if not old:
        return None
    said = _years_said(view)
    for call, match in old:
        if int(match.group(1)) not in said:
            try:
                corrected: dict[str, Any] | None = _moved(call.arguments, today, said)
            except ValueError:  # a day the year it would move to lacks: the model is told instead
                corrected = None
            return OldDate(match.group(0), match.group(1), today.isoformat(), call.name, corrected)
    return None


def _moved(value: Any, today: dt.date, said: set[int]) -> Any:
    """``value`` with every date in a past year nobody said moved to the next time it comes (this
    year's, or next year's once this one's has passed). Raises ValueError for a day that year
    lacks (the 29th of February)."""
    if isinstance(value, dict):
        return {k: _moved(v, today, said) for k, v in value.items()}
    if isinstance(value, list):
        return [_moved(v, today, said) for v in value]
    if not isinstance(value, str):
        return value

    def moved(match: re.Match[str]) -> str:
        year, month, day = (int(part) for part in match.group(0).split("-"))
        if year > today.year - 2 or year in said:
            return match.group(0)
        when = dt.date(today.year, month, day)
        return (when if when >= today else dt.date(today.year + 1, month, day)).isoformat()

    return _DATE.sub(moved, value)


def _dates(arguments: object) -> list[re.Match[str]]:
    return [m for leaf in leaves(arguments) for m in _DATE.finditer(leaf)]


def _years_said(view: TurnView) -> set[int]:
    """Every year the conversation holds: the numbers the operand check counts as said (messages in
    digits and in words, tool results), read again from each later word on, and year pairs.
    Only reached for a call with an old date: a few parser calls per message word."""
    found = {int(k) for k in said_numbers(view) if k.is_integer()}
    for message in view.transcript:
        if message.role not in (MessageRole.USER, MessageRole.ASSISTANT) or not message.content:
            continue
        words = message.content.split()
        for start in range(1, len(words)):  # from the first word on: said_numbers has it
            digits = in_digits(" ".join(words[start:]), view.lang)
            found.update(int(float(n)) for n in numbers(digits) if float(n).is_integer())
            found.update(int(a + b) for a, b in _YEAR_PAIR.findall(digits))
    return found
