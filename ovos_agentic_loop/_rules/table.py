"""The table of reactions: their order of priority, and the budget of corrective messages they
share in one turn."""

from __future__ import annotations

from dataclasses import dataclass, field

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._rules.arithmetic import HeadArithmetic
from ovos_agentic_loop._rules.base import Reaction, Response
from ovos_agentic_loop._rules.described import AnnouncedStep, DescribedCall, DescribedWithArguments
from ovos_agentic_loop._rules.examples import CopiedExample
from ovos_agentic_loop._rules.file_operand import FileOperand
from ovos_agentic_loop._rules.operands import UnsaidOperands
from ovos_agentic_loop._rules.placeholder import Placeholder
from ovos_agentic_loop._rules.signs import DroppedSign
from ovos_agentic_loop._rules.unread import UnreadFile
from ovos_agentic_loop._rules.unstated import UnstatedResult
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._rules.years import UnsaidYear

__all__ = ["CALL_CHECKS", "MAX_NUDGES", "REACTIONS", "Reactions"]

#: The most useful first: the first that applies (and was not sent before) is taken.
REACTIONS: tuple[Reaction, ...] = (
    AnnouncedStep(),
    DescribedWithArguments(),
    DescribedCall(),
    UnreadFile(),
    Placeholder(),
    HeadArithmetic(),
    UnstatedResult(),
)

#: The checks of a reply's calls before they run, in order (same budget as the reactions).
CALL_CHECKS: tuple[FileOperand | DroppedSign | UnsaidYear | UnsaidOperands | CopiedExample, ...] = (
    FileOperand(),
    DroppedSign(),
    UnsaidYear(),
    UnsaidOperands(),
    CopiedExample(),
)

#: At most this many reactions per turn: two model calls more at worst. One was too few: after
#: "call it now" the bundled model calls the first tool of a chain, then describes the second.
MAX_NUDGES = 2


@dataclass
class Reactions:
    """The table's per-turn state (it lives in the ``Turn``, never on the engine)."""

    table: tuple[Reaction, ...] = REACTIONS
    budget: int = MAX_NUDGES
    sent: int = 0
    done: set[str] = field(default_factory=set)  # a reaction the model did not act on is not repeated

    def react(self, view: TurnView) -> Response | None:
        """The reaction to ``view.answer`` when it does not stand; None when it stands (or this
        turn's budget is spent). Sent twice, a message is parroted back ("The file notes.txt does
        not exist."): the next reaction that applies is taken instead, or the answer stands."""
        if self.sent >= self.budget or not view.tools.tools:
            return None
        for reaction in self.table:
            response = reaction.applies(view)
            if response is not None and response.key not in self.done:
                self.sent += 1
                self.done.add(response.key)
                return response
        return None

    def check_calls(self, view: TurnView, calls: list[ToolCall]) -> str | None:
        """The message that holds a reply's calls back before they run (numbers nobody said, a
        copied example), on the same budget; None when they may run."""
        if self.sent >= self.budget:
            return None
        message = next((m for check in CALL_CHECKS if (m := check.check(view, calls)) is not None), None)
        if message is None or message in self.done:
            return None
        self.sent += 1
        self.done.add(message)
        return message

    def may_apply(self, view: TurnView) -> bool:
        """Whether the coming answer could be sent back by a reaction that holds the stream."""
        if self.sent >= self.budget or not view.tools.tools:
            return False
        return any(r.holds_stream and r.may_apply(view) for r in self.table)
