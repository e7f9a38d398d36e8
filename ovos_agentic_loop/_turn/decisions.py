"""What a turn does next: the small closed set of decisions ``Turn.run`` matches on.

A reply is classified into one of these (``reading.decide``), and the reactions to
small-model habits (``_rules``) answer with a ``Nudge`` or a ``MakeCall`` (``_rules.base``);
nothing downstream looks at a reply's text again to know what was decided.

Deciding changes nothing: what a decision counts (a corrective message, a rule's message sent,
the calls asked for, tools offered from now on) and the notices it gives travel with it as its
``effects``, and the dispatcher records them when it carries the decision out (``tally``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NoReturn, TypeVar

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._confirmation import Proposal
from ovos_agentic_loop._rules.base import MakeCall, Nudge
from ovos_agentic_loop._rules.registry import Fired

__all__ = [
    "AskFirst",
    "Asked",
    "CarryOut",
    "Constrain",
    "Correct",
    "Corrected",
    "Decision",
    "Effect",
    "Finish",
    "ForceAnswer",
    "HandToCaller",
    "Recheck",
    "Remind",
    "RunCalls",
    "Tell",
    "ToOffer",
    "after",
    "assert_never",
]


# -- what a decision counts, recorded when it is carried out ------------------------------
@dataclass(frozen=True)
class Tell:
    """A notice for the step events."""

    message: str


@dataclass(frozen=True)
class ToOffer:
    """Tools the model called by name: offered from now on where the turn has a shortlist."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Corrected:
    """A corrective message counted on the turn's ``max_corrections``."""


@dataclass(frozen=True)
class Asked:
    """The repeat counts after a reply's calls (``repeats.CallHistory``): the latest reply's
    calls, whether a reminder was given, the signatures to count once more."""

    latest: frozenset[str]
    reminded: bool
    counted: tuple[str, ...] = ()


Effect = Tell | ToOffer | Corrected | Asked | Fired


@dataclass(frozen=True)
class Finish:
    """The turn ends with ``answer``."""

    answer: str
    reason: str = "answer"
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class RunCalls:
    """Run the persona's ``calls``; ``text`` is what the transcript keeps of the reply."""

    calls: list[ToolCall]
    text: str = ""
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class Remind:
    """``calls`` repeat calls that already succeeded: answer them with a reminder, run nothing."""

    calls: list[ToolCall]
    text: str = ""
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class Recheck:
    """The calls of ``calls`` that ``held`` names (by position) are not run: each is answered with
    ``message`` (what to check), and the model calls again; the others run."""

    calls: list[ToolCall]
    message: str
    text: str = ""
    held: frozenset[int] = frozenset()
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class Correct:
    """Send ``message`` back to the model (``kept``: the reply as the transcript keeps it, None to
    keep nothing); ``notice`` says why in the step events."""

    message: str
    notice: str
    kept: str | None = None
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class ForceAnswer:
    """One last call without tools asks for the best answer; ``reason`` is the turn's ending,
    ``notice`` what the step events say of it."""

    reason: str
    notice: str = ""
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class HandToCaller:
    """The reply calls only the caller's tools: the turn returns them for the caller to run."""

    calls: list[ToolCall]
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class AskFirst:
    """A call needs the user's yes: nothing runs, the turn ends with the question of ``proposal``."""

    proposal: Proposal
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class CarryOut:
    """The user said yes to the pending ``call``: run exactly it, once, then go on as usual."""

    call: ToolCall
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class Constrain:
    """The reply made no decision (a rule answered it with ``Decide``): ask again, constrained
    (``deciding``); ``fallback`` (with ``kept``, the reply as the transcript keeps it) where that
    cannot be done."""

    why: str
    fallback: Nudge | MakeCall
    kept: str
    effects: tuple[Effect, ...] = field(default=(), kw_only=True)


Decision = (
    Finish
    | RunCalls
    | Remind
    | Recheck
    | Correct
    | ForceAnswer
    | HandToCaller
    | AskFirst
    | CarryOut
    | Constrain
)

D = TypeVar("D", bound=Decision)


def after(effects: tuple[Effect, ...], decision: D) -> D:
    """``decision`` with ``effects`` (what was counted on the way to it) before its own."""
    return replace(decision, effects=(*effects, *decision.effects)) if effects else decision


def assert_never(value: NoReturn) -> NoReturn:
    """The last case of every ``match`` on a decision or a rule's answer: mypy proves the cases
    before it cover the union (``typing.assert_never`` from Python 3.11; the project runs on 3.10)."""
    raise AssertionError(f"unhandled case: {value!r}")
