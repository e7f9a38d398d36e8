"""The one registry of rules: their order of priority, the budget of corrective messages they
share in one turn (``Budget``, part of the turn's limits), and the per-turn table that asks them
(``Rules``), without the rules a persona switches off (``disabled_rules``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._rules.arithmetic import HEAD_ARITHMETIC
from ovos_agentic_loop._rules.base import MakeCall, Need, Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.described import DESCRIBED
from ovos_agentic_loop._rules.grounding import UNGROUNDED_VALUE
from ovos_agentic_loop._rules.repeated import REPEATED_ANSWER
from ovos_agentic_loop._rules.unread import UNREAD_FILE
from ovos_agentic_loop._rules.unstated import UNSTATED_RESULT
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.language import language_code
from ovos_agentic_loop.config import RuleName

__all__ = ["MAX_NUDGES", "RULES", "RULE_NAMES", "Budget", "CallsHeld", "Fired", "Rules", "rule"]

#: Every rule, the most useful first: at each stage the first that finds something (and was not
#: sent before with the same finding) is taken. A rule is here only where the rules' ablation
#: (bench figure 12: each rule switched off alone on the held-out halves) shows it earning its
#: place, or where it answers a habit the ablation cannot measure (docs/architecture.md says which);
#: a rule that showed nothing lost without it is gone (``config.REMOVED_RULES``). The runs:
#: bench/results/ablation-*.md.
RULES: tuple[Rule[Any], ...] = (
    # on an answer
    DESCRIBED,
    UNREAD_FILE,
    HEAD_ARITHMETIC,
    UNSTATED_RESULT,
    REPEATED_ANSWER,
    # on a reply's calls, before they run
    UNGROUNDED_VALUE,
)

#: The rules' names, in order: what ``disabled_rules`` may name (``config.RuleName``).
RULE_NAMES: tuple[RuleName, ...] = tuple(r.name for r in RULES)

#: At most this many corrective messages from the rules per turn: two model calls more at worst.
#: One was too few: after "call it now" the bundled model calls the first tool of a chain, then
#: describes the second.
MAX_NUDGES = 2


def rule(name: RuleName) -> Rule[Any]:
    """The registered rule called ``name``."""
    return next(r for r in RULES if r.name == name)


@dataclass
class Budget:
    """The rules' share of a turn's limits: how many may still be sent, and what was sent (by rule
    name and finding: a message the model did not act on is not sent again). A strategy loop's
    sub-runs share their turn's."""

    allowed: int = MAX_NUDGES
    sent: set[str] = field(default_factory=set)
    #: The names of the rules whose message was sent, in order (the ``final`` event's ``rules``:
    #: what the rules' ablation reads to know which questions a rule touched).
    fired: list[str] = field(default_factory=list)

    @property
    def spent(self) -> bool:
        return len(self.sent) >= self.allowed


@dataclass(frozen=True)
class Fired:
    """A rule that found something: its response, and what the budget records once it is sent
    (``Rules.record``): the rule's name and its finding's key."""

    rule: str
    key: str
    response: Response


@dataclass(frozen=True)
class CallsHeld:
    """A reply's calls held back before they run: ``message`` (what to check) answers the calls at
    ``positions``; ``fired`` is the rule that found it."""

    message: str
    positions: frozenset[int]
    fired: Fired
    #: The model made the held calls again unchanged, and the rule's finding refuses them for good.
    refused: bool = False
    #: The call the loop makes in place of the held ones (the conversion as the user said it).
    instead: MakeCall | None = None


@dataclass
class Rules:
    """The registry as one turn asks it: the rules switched on, the turn's budget."""

    budget: Budget = field(default_factory=Budget)
    disabled: frozenset[RuleName] = frozenset()

    def reaction(
        self, view: TurnView, *, spoken: bool = False, sent: frozenset[str] = frozenset()
    ) -> Fired | None:
        """The rule that sends ``view.answer`` back, when it does not stand; None when it stands (or
        this turn's budget is spent). Sent twice, a message is parroted back ("The file notes.txt
        does not exist."): the next rule that finds something is taken instead, or the answer
        stands. ``spoken``: part of the reply already went out as speech; only rules that take it
        as talk before a call (``after_speech``) are asked, so no correction adds a second spoken
        answer. ``sent``: keys decided on but not recorded yet. A query: nothing is recorded."""
        found = self._first(Stage.ON_ANSWER, view, spoken=spoken, sent=sent)
        return found[1] if found is not None else None

    def calls_held(
        self, view: TurnView, calls: Sequence[ToolCall], *, sent: frozenset[str] = frozenset()
    ) -> CallsHeld | None:
        """The message that holds calls of a reply back before they run (numbers nobody said, a
        dropped sign), on the same budget, and the positions of the calls it holds: those the
        rule that found something finds something in alone (all of them when none does alone);
        None when they all may run. A query: nothing is recorded."""
        found = self._first(Stage.BEFORE_CALL, view.with_calls(calls), repeat_ends=True, sent=sent)
        if found is None:
            return None
        by, fired = found
        if fired.key in sent | self.budget.sent:  # made again unchanged, and refused for good
            return CallsHeld(
                _response_message(fired.response), frozenset(range(len(calls))), fired, refused=True
            )
        held = frozenset(i for i, c in enumerate(calls) if by.detect(view.with_calls([c])) is not None)
        positions = held or frozenset(range(len(calls)))
        if isinstance(fired.response, MakeCall):
            return CallsHeld("", positions, fired, instead=fired.response)
        if not isinstance(fired.response, Nudge):
            return None
        return CallsHeld(fired.response.message, positions, fired)

    def record(self, fired: Fired) -> None:
        """``fired``'s message is sent: it counts on the budget and is never sent again."""
        self.budget.sent.add(fired.key)
        self.budget.fired.append(fired.rule)

    def react(self, view: TurnView, *, spoken: bool = False) -> Response | None:
        """:meth:`reaction`, recorded as sent: the response, or None when the answer stands."""
        fired = self.reaction(view, spoken=spoken)
        if fired is None:
            return None
        self.record(fired)
        return fired.response

    def may_apply(self, view: TurnView) -> bool:
        """Whether the coming answer could be sent back by a rule that holds the stream."""
        if self.budget.spent or not view.tools.tools:
            return False
        return any(
            r.holds_stream and r.may_apply is not None and r.may_apply(view)
            for r in self._asked(Stage.ON_ANSWER, view)
        )

    def _asked(self, stage: Stage, view: TurnView) -> Iterable[Rule[Any]]:
        """The rules of ``stage`` this view may be asked about: switched on, for its language,
        with the tools they need."""
        lang = language_code(view.lang)
        for candidate in RULES:
            if candidate.stage is not stage or candidate.name in self.disabled:
                continue
            if candidate.languages is not None and lang not in candidate.languages:
                continue
            if all(_has(view, need) for need in candidate.needs):
                yield candidate

    def _first(
        self,
        stage: Stage,
        view: TurnView,
        *,
        repeat_ends: bool = False,
        spoken: bool = False,
        sent: frozenset[str] = frozenset(),
    ) -> tuple[Rule[Any], Fired] | None:
        """The first rule that finds something, and what it fired; ``repeat_ends``: a finding sent
        before lets the calls run rather than asking the next rule (the checks of a reply's calls),
        unless its rule refuses it made again (then that finding is returned, budget spent or not:
        refusing sends the model nothing more)."""
        sent = sent | self.budget.sent
        if stage is Stage.ON_ANSWER and not view.tools.tools:
            return None
        spent = len(sent) >= self.budget.allowed
        if spent and not repeat_ends:
            return None
        for candidate in self._asked(stage, view):
            if spoken and not candidate.after_speech:
                continue
            finding = candidate.detect(view)
            if finding is None:
                continue
            key = candidate.key(finding)
            if key in sent:
                if repeat_ends:
                    refuses = candidate.refuses_repeat is not None and candidate.refuses_repeat(finding)
                    return (
                        (candidate, Fired(candidate.name, key, candidate.respond(finding)))
                        if refuses
                        else None
                    )
                continue
            if spent:
                continue
            return candidate, Fired(candidate.name, key, candidate.respond(finding))
        return None


def _response_message(response: Response) -> str:
    return response.message if isinstance(response, Nudge) else ""


def _has(view: TurnView, need: Need) -> bool:
    """Whether the turn's tools include the role ``need`` names."""
    roles = {
        Need.TOOLS: bool(view.tools.tools),
        Need.CALCULATOR: view.calculator is not None,
        Need.READER: view.reader is not None,
        Need.RUNNER: view.runner is not None,
    }
    return roles[need]
