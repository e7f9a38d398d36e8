"""The one read-only view of a turn that every rule decides over: the evidence ``detect`` reads.

It finds the tools the rules care about (the calculator, the file reader, the command runner)
by the roles their toolboxes declared, never by argument names or description prose, and reads
tool results from the turn's typed outcomes, never from the wording of an observation.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._text.numbers import known_numbers
from ovos_agentic_loop._text.values import leaves
from ovos_agentic_loop._tools.observations import Status, ToolOutcome
from ovos_agentic_loop._tools.programs import ProgramLookup
from ovos_agentic_loop._tools.spec import RoleKind, ToolRole, ToolSpec
from ovos_agentic_loop._tools.toolset import ToolSet

__all__ = ["TurnView", "latest_values"]


@dataclass(frozen=True)
class TurnView:
    """A turn as the reactions see it: its tools, transcript and outcomes, and the answer under
    judgement ("" when deciding early, before the reply is in)."""

    tools: ToolSet
    transcript: Sequence[AgentMessage]
    outcomes: Mapping[int, ToolOutcome]  # by the transcript index of their TOOL message
    text_mode: bool
    answer: str = ""
    lang: str | None = None  # the session's language: numbers in words are read in it
    calls: tuple[ToolCall, ...] = ()  # the reply's calls under judgement, before they run
    #: The world, injected (the turn passes its setup's): no rule reads the clock or PATH itself.
    today: dt.date = field(default_factory=dt.date.today)
    which: ProgramLookup = shutil.which
    #: The ids of calls the conversation's memory put back (made in earlier turns, not this one).
    earlier: frozenset[str] = frozenset()
    #: Where the caller's messages end in the transcript (the turn's own follow); None: all of it.
    asked_until: int | None = None
    #: The last question, when this turn's is a follow-up of it ("und zweihundert"); "" otherwise.
    follows: str = ""

    @cached_property
    def question(self) -> str:
        """The last user message of the transcript."""
        return next((m.content or "" for m in reversed(self.transcript) if m.role == MessageRole.USER), "")

    @cached_property
    def asked(self) -> str:
        """The user's question this turn answers: the caller's last user message (``question`` is
        the transcript's last, which may be a corrective message of the turn)."""
        asked = self.transcript[: self.asked_until]
        return next((m.content or "" for m in reversed(asked) if m.role == MessageRole.USER), "")

    @cached_property
    def earlier_answers(self) -> tuple[tuple[str, str], ...]:
        """The conversation's earlier answers in the caller's messages, each with the user message
        it answered, oldest first."""
        found: list[tuple[str, str]] = []
        question = ""
        for message in self.transcript[: self.asked_until]:
            if message.role == MessageRole.USER:
                question = message.content or ""
            elif message.role == MessageRole.ASSISTANT and not message.tool_calls and message.content:
                found.append((question, message.content))
        return tuple(found)

    @cached_property
    def called(self) -> frozenset[str]:
        """Names of the tools called this turn."""
        return frozenset(
            c.name for m in self.transcript if m.tool_calls for c in m.tool_calls if c.id not in self.earlier
        )

    @cached_property
    def call_arguments(self) -> str:
        """Every call's arguments of this turn, as JSON text (what a file name is looked for in)."""
        return " ".join(
            json.dumps(c.arguments, default=str)
            for m in self.transcript
            if m.tool_calls
            for c in m.tool_calls
            if c.id not in self.earlier
        )

    def role(self, kind: RoleKind) -> ToolRole | None:
        """The role of the first tool its toolbox declared ``kind`` (the argument it reads)."""
        found = self.tools.with_role(kind)
        return found[1] if found is not None else None

    @cached_property
    def calculator(self) -> str | None:
        """The tool its toolbox declared the calculator."""
        return _name(self.tools.with_role("calculator"))

    @cached_property
    def runner(self) -> str | None:
        """The tool its toolbox declared the command runner."""
        return _name(self.tools.with_role("runner"))

    @cached_property
    def reader(self) -> str | None:
        """The tool its toolbox declared the file reader."""
        return _name(self.tools.with_role("reader"))

    @cached_property
    def known_numbers(self) -> frozenset[float]:
        """Every number of the conversation (``text.known_numbers``), its tool results read from
        their typed outcomes, a caller's tool's from its JSON."""
        return frozenset(known_numbers(self.transcript, self._result_values, unran=self.unran))

    @cached_property
    def known_counts(self) -> frozenset[float]:
        """``known_numbers`` but those that are part of a time or a date (an hour is no count)."""
        return frozenset(known_numbers(self.transcript, self._result_values, counts=True, unran=self.unran))

    @cached_property
    def unran(self) -> frozenset[str]:
        """The ids of this turn's calls refused before they reached their tool (held back by a
        rule, invalid arguments): a number nobody said, made again, is still nobody's."""
        return frozenset(o.call.id for o in self.outcomes.values() if o.status is Status.REFUSED)

    @cached_property
    def _result_values(self) -> list[str]:
        results: list[str] = []
        for at, message in enumerate(self.transcript):
            if message.role == MessageRole.TOOL:
                outcome = self.outcomes.get(at)
                results += outcome.values() if outcome is not None else _caller_values(message.content or "")
        return results

    def with_answer(self, answer: str) -> TurnView:
        return replace(self, answer=answer, calls=())

    def with_calls(self, calls: Sequence[ToolCall]) -> TurnView:
        return replace(self, answer="", calls=tuple(calls))

    def last_values(self) -> list[str]:
        """The values of the successful tool results the transcript ends with, in order."""
        texts: list[str] = []
        for at in range(len(self.transcript) - 1, -1, -1):
            message = self.transcript[at]
            if message.role != MessageRole.TOOL:
                break
            outcome = self.outcomes.get(at)
            texts[:0] = outcome.values() if outcome is not None else _caller_values(message.content or "")
        return texts


def _name(found: tuple[ToolSpec, ToolRole] | None) -> str | None:
    return found[0].name if found is not None else None


def latest_values(view: TurnView) -> list[str]:
    """The values of the latest reply's calls that succeeded (earlier ones when a later reply's
    calls all failed or were not run again): what a final answer must state."""
    values: list[str] = []
    for at in range(len(view.transcript) - 1, -1, -1):
        outcome = view.outcomes.get(at)
        if outcome is not None:  # a TOOL message of ours: part of the latest run of results
            values[:0] = outcome.values()
        elif values:  # the run of results is over, and it held values
            return values
    return values


def _caller_values(content: str) -> list[str]:
    """The values of a result the caller's own tool sent back (its text is the caller's, not ours)."""
    if content.startswith("Error"):
        return []
    try:
        parsed = json.loads(content)
    except ValueError:
        return [content]
    return leaves(parsed) if isinstance(parsed, (dict, list)) else [content]
