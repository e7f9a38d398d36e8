"""An earlier answer said again: the reply answers a new question of the conversation with the
words of an earlier answer, without a call of this turn ("and how much is that in miles" answered
"315 kilometers is the total distance you drive in a week." again; "and in meters" answered with
the kilometers again). The bundled model does this on follow-ups, on both templates: the earlier
answer is the nearest text that looks like an answer. The loop says which question is asked now.

Only the same words count (compared without case, spaces and punctuation): an answer that is
merely similar may be right ("It is 3 p.m. in Tokyo." after "It is 3 p.m. in Seoul."), and a
question asked again in the same words ("what time is it?") is no new question.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ovos_agentic_loop._rules.base import Nudge, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView

__all__ = ["REPEATED_ANSWER", "repeated_answer"]

_NOT_WORDS = re.compile(r"[\W_]+")


def _plain(text: str) -> str:
    return _NOT_WORDS.sub(" ", text.lower()).strip()


def _others(view: TurnView) -> Iterator[tuple[str, str]]:
    """With no call of this turn: each earlier answer to another question than the one asked now,
    as (that question, the answer's plain words)."""
    if view.called:
        return
    asked = _plain(view.asked)
    for question, answer in view.earlier_answers:
        if _plain(question) != asked:
            yield question, _plain(answer)


def repeated_answer(view: TurnView) -> str | None:
    """The earlier question whose answer ``view.answer`` says again, or None."""
    said = _plain(view.answer)
    return next((q for q, answer in _others(view) if answer == said), None) if said else None


def _may_apply(view: TurnView) -> bool:
    """No call this turn, and the answer so far begins as an earlier one does."""
    begun = _plain(view.answer)
    return any(answer.startswith(begun) for _, answer in _others(view))


def _respond(question: str) -> Nudge:
    return Nudge(
        "an earlier answer said again",
        f'That is your answer to an earlier question ("{question}"), said again. Answer the question '
        "I ask now, with a new tool call if it needs one.",
    )


REPEATED_ANSWER: Rule[str] = Rule(
    "repeated_answer",
    Stage.ON_ANSWER,
    repeated_answer,
    _respond,
    description="an earlier answer said again",
    holds_stream=True,
    may_apply=_may_apply,
)
