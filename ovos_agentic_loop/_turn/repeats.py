"""A repeated call: the model asks again for a call it already made this turn.

A call identical to one that already SUCCEEDED this turn is not run again: its result is in
the transcript. Asking again for the results the model has just been given ("15% of 2350" ->
352.5, then ``2350 * 0.15``, then ``2350 * 0.15`` again) goes straight to the answer: told "you
have this result", the bundled model asks a third time (every such turn of the spoken suite's
tune half did), two model calls for nothing. Asking again for an EARLIER result gets one
reminder (it sometimes re-reads a listing before acting on it, and then goes on right); the
second time, the turn goes to its answer. Any call made a third time ends the turn the same way.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._tools.observations import ToolOutcome
from ovos_agentic_loop._turn.decisions import Asked, ForceAnswer, Remind

__all__ = ["CallHistory", "signature"]


_FAILED_BEFORE = "\n(Note: this exact call failed before; change its arguments as the error says.)"
_MADE_BEFORE = "\n(Note: you already made this exact call; use this result instead of calling again.)"


def signature(call: ToolCall) -> str:
    """What makes two calls the same call: the tool and its arguments (10 and 10.0 are one value:
    the bundled model sent ``{"value": 10}`` and then ``{"value": 10.0}``, one call twice)."""
    return call.name + json.dumps(_plain(call.arguments), sort_keys=True, default=str)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@dataclass
class CallHistory:
    """The calls of one turn, counted (per-turn state: it lives in the ``Turn``)."""

    allowed: int  # the turn's ``Limits.repeats_allowed``: the next identical call is refused
    counts: Counter[str] = field(default_factory=Counter)
    succeeded: dict[str, ToolOutcome] = field(default_factory=dict)  # by signature: ran without error
    reminded: bool = False  # a repeat of a succeeded call was already answered with a reminder
    latest: frozenset[str] = frozenset()  # the signatures of the latest reply's calls

    def judge(
        self, calls: list[ToolCall], text: str, *, by_loop: bool = False
    ) -> tuple[Remind | ForceAnswer | None, Asked]:
        """What to do with the persona's ``calls`` of a reply: remind, end the turn, or run (None),
        and the counts after them (recorded by :meth:`note` when the decision is carried out).
        ``by_loop``: the loop makes these calls itself (a reaction's call); the model asking for
        them next is its first asking (it agreed with the read the loop made for it)."""
        if not calls:
            return None, Asked(self.latest, self.reminded)
        asked = frozenset(signature(c) for c in calls)
        just_given = asked <= self.latest
        latest = frozenset() if by_loop else asked
        if all(key in self.succeeded for key in asked):
            if just_given:
                repeated = "the model asked again for the results it just got"
                return ForceAnswer("repetition", notice=repeated), Asked(latest, self.reminded)
            if self.reminded:
                repeated = "the model asked again for results it has"
                return ForceAnswer("repetition", notice=repeated), Asked(latest, True)
            return Remind(calls, text), Asked(latest, True)
        counted = tuple(signature(c) for c in calls)
        times = Counter(counted)
        worst = max((self.counts[key] + times[key] for key in counted), default=0)
        step = Asked(latest, self.reminded, counted)
        if worst > self.allowed:
            notice = f"the same call was requested {worst} times; ending the turn"
            return ForceAnswer("repetition", notice=notice), step
        return None, step

    def note(self, asked: Asked) -> None:
        """Record the counts a decision on a reply's calls came with (:meth:`judge`)."""
        self.latest, self.reminded = asked.latest, asked.reminded
        self.counts.update(asked.counted)

    def result_of(self, call: ToolCall) -> ToolOutcome | None:
        """The earlier successful outcome of a call identical to ``call``."""
        return self.succeeded.get(signature(call))

    def record(self, outcome: ToolOutcome) -> str:
        """Count ``outcome``; the note its observation gets when the call was made before."""
        key = signature(outcome.call)
        if outcome.ok:
            self.succeeded.setdefault(key, outcome)
        if self.counts[key] < self.allowed:
            return ""
        # "use this result" would tell the model to give up on a fixable call
        return _MADE_BEFORE if outcome.ok else _FAILED_BEFORE
