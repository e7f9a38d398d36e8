"""Every value grounded: a call whose arguments hold a value the conversation never gave is not run.

Before a reply's calls run, each value they carry is traced to where it can come from: the user's
words (numbers in words read in the session's language), a tool result or call of this
conversation, or the tool's own declared default. What the bundled model invents is what fails a
voice question: a number written wrong or copied from a tool's description (``operands``), a
sign the user said and the call dropped (``signs``), a year of its training data (``years``), a
conversion factor where a tool converts exactly (``conversions``), a web address it made up
(``addresses``).
One rule, one finding at a time, the most specific first: the sign (the call signed is given
back), then the year (the loop makes the call in the year the date next comes), then the factor
(the converter is named), then the number (the question in digits is given), then the address.
The call is held back and the model told which value, once per finding (the table's budget). Sent
again as it was, a sign, a year or a conversion runs, since the user may mean it; a number or an
address nobody gave is still nobody's, and the turn is answered without the call.
"""

from __future__ import annotations

from ovos_agentic_loop._rules.addresses import UnsaidAddress, unsaid_address
from ovos_agentic_loop._rules.base import MakeCall, Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.conversions import ByHand, converted_by_hand
from ovos_agentic_loop._rules.operands import Unsaid, unsaid_number
from ovos_agentic_loop._rules.signs import Unsigned, dropped_sign
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._rules.years import OldDate, old_date

__all__ = ["UNGROUNDED_VALUE", "Ungrounded"]

Ungrounded = Unsigned | OldDate | ByHand | Unsaid | UnsaidAddress


def _detect(view: TurnView) -> Ungrounded | None:
    return (
        dropped_sign(view)
        or old_date(view)
        or converted_by_hand(view)
        or unsaid_number(view)
        or unsaid_address(view)
    )


def _respond(found: Ungrounded) -> Response:
    if isinstance(found, ByHand) and found.said_call:
        # the conversion as the user said it, made by the loop: sent to the converter, the stock
        # template wrote the formula out in prose instead ("C = F - 32/9")
        return MakeCall(UNGROUNDED_VALUE.description, found.converter, dict(found.said_call))
    if isinstance(found, OldDate) and found.corrected is not None:
        # the date in the year it next comes, made by the loop: told today's date, the model
        # counted from today to today
        return MakeCall(UNGROUNDED_VALUE.description, found.tool, dict(found.corrected))
    return Nudge(UNGROUNDED_VALUE.description, found.message)


UNGROUNDED_VALUE: Rule[Ungrounded] = Rule(
    "ungrounded_value",
    Stage.BEFORE_CALL,
    _detect,
    _respond,
    description="a value nobody said",
    # A number (or address) nobody gave, made again unchanged, is still nobody's: the turn is answered without
    # the call (the bundled model, offered only a body-mass-index tool for a triangle's area, sent
    # weight 70 and height 1.7 twice). A sign, a year or a conversion made again may be meant.
    refuses_repeat=lambda found: isinstance(found, Unsaid | UnsaidAddress),
)
