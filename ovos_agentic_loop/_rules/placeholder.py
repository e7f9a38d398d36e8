"""A placeholder answer: the answer holds a template slot where a value belongs ("Your user name is
<user-name>.", "The host is called [hostname].", "It is {time} now.").

Seen on the spoken suite with the full tool set: asked for the user name, the bundled model
called the clock, then answered with ``<user-name>``; a voice reads the slot out. The slot says
the model knows a value is missing: it is asked to get it with a tool and answer again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovos_agentic_loop._rules.base import Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import call_format

__all__ = ["PLACEHOLDER", "placeholder_in"]

# <user-name>, <your_username>, [hostname], [insert name], {time}, YOUR_USERNAME, [YourUsername]:
# lowercase words joined by -, _ or spaces (at most four), a SHOUTED_NAME with an underscore, or a
# bracketed YourCamelCase. Markup and code
# (<b>, [1], {"a": 1}, a protocol tag such as <tool_call>) are not slots: a slot of one word needs
# a - or _ in it, or is one of the words a slot is made of.
_SLOT_WORDS = r"(?:your|user|name|username|hostname|host|value|insert|result|time|date|number|answer)"
_WORDS = r"(?:[a-z]+[-_ ]){1,3}[a-z]+"
_PROTOCOL_TAG = r"(?!/?(?:tool|function)[-_ ]?(?:calls?|response|result)\b)"
_SLOT = re.compile(
    rf"<{_PROTOCOL_TAG}{_WORDS}>|\[{_WORDS}\]|\{{{_WORDS}\}}"
    rf"|<{_SLOT_WORDS}>|\[{_SLOT_WORDS}\]|\{{{_SLOT_WORDS}\}}|\bYOUR_[A-Z_]+\b"
    r"|[<\[{]Your[A-Z][A-Za-z]*[>\]}]"
)


def placeholder_in(answer: str) -> str | None:
    """The first template slot ``answer`` holds, or None."""
    match = _SLOT.search(answer)
    return match.group() if match else None


@dataclass(frozen=True)
class Slot:
    """A template slot the answer holds where its value belongs, and how the model calls."""

    slot: str
    how: str


def _detect(view: TurnView) -> Slot | None:
    slot = placeholder_in(view.answer)
    return None if slot is None else Slot(slot, call_format(view.text_mode))


def _respond(found: Slot) -> Response:
    return Nudge(
        PLACEHOLDER.description,
        f"Your answer holds {found.slot} instead of the real value. Call the tool that finds it{found.how}, "
        "then answer with its result.",
    )


PLACEHOLDER: Rule[Slot] = Rule(
    "placeholder", Stage.ON_ANSWER, _detect, _respond, description="a placeholder for a value"
)
