"""What one rule is, declared: a record of its name, stage, languages, the tool roles it needs,
whether it holds the stream, and its two halves, ``detect`` (the evidence -> a finding, or None)
and ``respond`` (the finding -> a nudge or a call the loop makes)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar

from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop.config import RuleName

__all__ = ["Decide", "F", "MakeCall", "Need", "Nudge", "Response", "Rule", "Stage"]

F = TypeVar("F")


@dataclass(frozen=True)
class Nudge:
    """A rule's answer: a short corrective message (``why`` names the rule's finding)."""

    why: str
    message: str


@dataclass(frozen=True)
class MakeCall:
    """A rule's answer: the loop makes this call itself, as if the model had."""

    why: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Decide:
    """A rule's answer: the reply neither called a tool nor answered (it described a call): the
    loop asks again with the choice constrained by the server's grammar, a call of an offered tool
    or the answer (``_turn.deciding``). ``fallback`` is sent instead where the brain cannot be
    constrained (no ``response_format``, text protocol, a server that refuses the schema)."""

    why: str
    fallback: Nudge | MakeCall


Response = Nudge | MakeCall | Decide


class Stage(Enum):
    """When a rule is asked: on a reply's calls before they run, or on a finished answer."""

    BEFORE_CALL = "before a call"
    ON_ANSWER = "on an answer"


class Need(Enum):
    """A tool role a rule needs loaded (the view finds each tool): without it the rule is not asked."""

    CALCULATOR = "calculator"
    READER = "reader"
    RUNNER = "runner"
    TOOLS = "any tool"


@dataclass(frozen=True)
class Rule(Generic[F]):
    """One rule that corrects a small model's habit, as the registry (``registry.RULES``) holds it.

    ``detect`` reads the evidence (``TurnView``: the answer under judgement, or the reply's
    ``calls``) and returns what it found, or None; ``respond`` turns a finding into what is sent.
    A rule with ``holds_stream`` answers ``may_apply`` True, before the answer is in, whenever
    ``detect`` can find something (tests/engine/test_reactions.py ties the two): such an answer
    is not spoken while it streams. Asked again with the text written so far (``view.answer``), it
    stays True while ``detect`` could still find something in an answer that begins so; the stream
    is released once no holding rule may apply (tests/engine/test_one_spoken_answer.py).
    ``after_speech``: the rule is still asked about a reply part of which was already spoken, because
    its finding makes that reply talk before a call (an announced or described call: the one answer
    follows the call); any other rule that does not hold the stream is then not asked, since its
    correction would be a second spoken answer.
    """

    name: RuleName  # what ``disabled_rules`` names
    stage: Stage
    detect: Callable[[TurnView], F | None]
    respond: Callable[[F], Response]
    description: str = ""
    languages: frozenset[str] | None = None  # the session languages it reads; None: any
    needs: frozenset[Need] = frozenset({Need.TOOLS})
    holds_stream: bool = False
    may_apply: Callable[[TurnView], bool] | None = None
    after_speech: bool = False
    #: For a rule on a reply's calls: whether a finding sent before and made again unchanged stops
    #: the calls for good (the turn is then answered without them) rather than letting them run.
    refuses_repeat: Callable[[F], bool] | None = None

    def key(self, finding: F) -> str:
        """What one sending of this rule is remembered by: its name and its finding."""
        return json.dumps([self.name, finding], sort_keys=True, default=_plain)


def _plain(value: object) -> object:
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {name: getattr(value, name) for name in fields}
    return str(value)
