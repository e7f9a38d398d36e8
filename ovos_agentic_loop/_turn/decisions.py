"""What a turn does next: the small closed set of decisions ``Turn.run`` matches on.

A reply is classified into one of these (``reading.decide``), and the reactions to
small-model habits (``_rules``) answer with a ``Nudge`` or a ``MakeCall`` (``_rules.base``);
nothing downstream looks at a reply's text again to know what was decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._confirmation import Proposal

__all__ = [
    "AskFirst",
    "CarryOut",
    "Correct",
    "Decision",
    "Finish",
    "ForceAnswer",
    "HandToCaller",
    "Recheck",
    "Remind",
    "RunCalls",
    "assert_never",
]


@dataclass(frozen=True)
class Finish:
    """The turn ends with ``answer``."""

    answer: str
    reason: str = "answer"


@dataclass(frozen=True)
class RunCalls:
    """Run the persona's ``calls``; ``text`` is what the transcript keeps of the reply."""

    calls: list[ToolCall]
    text: str = ""


@dataclass(frozen=True)
class Remind:
    """``calls`` repeat calls that already succeeded: answer them with a reminder, run nothing."""

    calls: list[ToolCall]
    text: str = ""


@dataclass(frozen=True)
class Recheck:
    """The calls of ``calls`` that ``held`` names (by position) are not run: each is answered with
    ``message`` (what to check), and the model calls again; the others run."""

    calls: list[ToolCall]
    message: str
    text: str = ""
    held: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Correct:
    """Send ``message`` back to the model (``kept``: the reply as the transcript keeps it, None to
    keep nothing); ``notice`` says why in the step events."""

    message: str
    notice: str
    kept: str | None = None


@dataclass(frozen=True)
class ForceAnswer:
    """One last call without tools asks for the best answer; ``reason`` is the turn's ending,
    ``notice`` what the step events say of it."""

    reason: str
    notice: str = ""


@dataclass(frozen=True)
class HandToCaller:
    """The reply calls only the caller's tools: the turn returns them for the caller to run."""

    calls: list[ToolCall]


@dataclass(frozen=True)
class AskFirst:
    """A call needs the user's yes: nothing runs, the turn ends with the question of ``proposal``."""

    proposal: Proposal


@dataclass(frozen=True)
class CarryOut:
    """The user said yes to the pending ``call``: run exactly it, once, then go on as usual."""

    call: ToolCall


Decision = Finish | RunCalls | Remind | Recheck | Correct | ForceAnswer | HandToCaller | AskFirst | CarryOut


def assert_never(value: NoReturn) -> NoReturn:
    """The last case of every ``match`` on a decision or a rule's answer: mypy proves the cases
    before it cover the union (``typing.assert_never`` from Python 3.11; the project runs on 3.10)."""
    raise AssertionError(f"unhandled case: {value!r}")
