"""An unstated result: the answer comes right after tool results, talks about the call (in
English), says the user's question back (in any language) or follows the calculator's result, and
holds none of their values ("This is the result of the calculation.", "The command executed
successfully", "Quanto é 15 por cento de 400?", "Thank you for the information." after 75). The
bundled model on its stock template says this after most single calls. The loop asks for the
answer with the result, quoted. A short answer after any other tool ("Done.") stands.

The same answer with no call at all states nothing either: asked "whats the name of this
computer", the bundled model answered "The name of this computer is Computer Name." on the shipped
template and "The name of this computer is." on the stock one, no tool called. An answer whose
every word is the question's or a word that carries nothing is sent back once, asking for the
fact or a call that gives it; an answer that adds one word of its own ("The capital of France is
Paris.") stands.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._rules.base import Nudge, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.language import language_code
from ovos_agentic_loop._text.numbers import argument_numbers, grounded, in_digits, numbers
from ovos_agentic_loop._text.slots import placeholder_in
from ovos_agentic_loop._tools.observations import ToolOutcome

__all__ = [
    "ECHOED_MESSAGE",
    "MAX_QUOTED_CHARS",
    "SLOT_MESSAGE",
    "UNSTATED_RESULT",
    "ResultValues",
    "Unstated",
    "unstated_message",
]

#: Most characters of the result's values quoted back to an answer that states none of them.
MAX_QUOTED_CHARS = 300

# Words that carry no result: a narration ("This is the result of the calculation", "returning the
# total number of files") is made of them.
_FUNCTION_WORDS = (
    "a an and are as at be by for from has have in is it its of on or that the this to was were with "
    "true false null none yes no ok"
)
_RESULT_WORDS = (
    "total number count list listing files file folder directory lines line output result value "
    "returned exit code success successful error done"
)
_EMPTY_WORDS = frozenset(f"{_FUNCTION_WORDS} {_RESULT_WORDS}".split())
# Words an answer may add to the question's and still say nothing of its own.
_CARRY_NOTHING = frozenset(f"{_FUNCTION_WORDS} your my our you i we".split())
# An answer about the call instead of its outcome speaks of these ("the result of the calculation",
# "the command executed successfully", "the statistics_summary function call"). A short answer
# without them ("Done.") is left alone: it may be all a write needs.
_NARRATION = re.compile(
    r"\b(?:results?|outputs?|returned|executed|successfully|functions?|tools?|commands?|calls?|"
    r"calculations?)\b|\w_\w",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{2,}")
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Unstated:
    """What an answer did not state: the values of the results it follows, quoted; "" when no tool
    was called and it only said the question back, or put a template slot where the fact belongs
    (``slot``: "[insert computer name]")."""

    values: str
    slot: str = ""

    @property
    def message(self) -> str:
        if self.slot:
            return SLOT_MESSAGE.format(slot=self.slot)
        return unstated_message(self.values) if self.values else ECHOED_MESSAGE


#: Said to an answer that only says the question back, with no call made.
ECHOED_MESSAGE = (
    "Your reply only says my question back. Answer it with the fact itself: call the tool that "
    "gives it, or say that you do not know."
)


#: Said to an answer with no call made that holds a template slot where its fact belongs.
SLOT_MESSAGE = (
    "Your reply holds {slot} where the fact belongs. Answer with the fact itself: call the tool "
    "that gives it, or say that you do not know."
)

# A bracketed span, closed or still open: a slot being written ("[insert computer name]").
_BRACKETED = re.compile(r"[\[<{][^\]>}]*(?:[\]>}]|$)")


def unstated_message(values: str) -> str:
    """Said to an answer that follows tool results and states none of them. The values are
    quoted: asked only to "give the values", the bundled model repeated its narration."""
    quoted = values if len(values) <= MAX_QUOTED_CHARS else values[:MAX_QUOTED_CHARS] + "…"
    return (
        f"Your reply does not say what the result is. The result was: {quoted}\n"
        "Answer my question now with it, in plain sentences."
    )


@dataclass(frozen=True)
class ResultValues:
    """What of tool results an answer must state: their numbers and their value words.

    A value is a number of a result (0 and 1, which are mostly status codes, do not count), or a
    word in one that is not a JSON key and not an empty word; a number counts also rounded
    (21.33 of 21.3333). Numbers written as words in ``lang`` count as numbers (ovos-number-parser)."""

    numbers: frozenset[float]
    words: frozenset[str]

    @classmethod
    def of(cls, texts: list[str], operands: AbstractSet[float] = frozenset()) -> ResultValues | None:
        """The values of ``texts``; None when they hold none (an empty listing: nothing to state).
        ``operands``: numbers a calculation was given, no result of it while it has another (the
        calculator's reading, "15 % * 4200", holds them: "The budget is 4200 euros." after 15% of
        4200 was 630 stated nothing)."""
        found = {float(n) for text in texts for n in numbers(text) if float(n) not in (0.0, 1.0)}
        values = (found - operands) or found
        words = {
            w for text in texts for w in (m.lower() for m in _WORD.findall(text)) if w not in _EMPTY_WORDS
        }
        return cls(frozenset(values), frozenset(words)) if values or words else None

    def contradicted_by(self, answer: str, known: AbstractSet[float], lang: str | None = None) -> bool:
        """``answer`` states none of these values but holds a number the conversation does not
        (``known``): a wrong or mangled result ("It is 12.", "thirty-five twenty-five"), not an
        answer that simply needed no number ("William Shakespeare wrote it.")."""
        if self.stated_in(answer, lang):
            return False
        known = known | self.numbers
        if any(not grounded(n, known) for n in numbers(answer)):
            return True
        # A number read from words counts without its sign: the parser reads "seven minus twelve
        # equals negative five" as "-12 equals -5" (the subtraction's "minus" taken as a sign).
        return any(
            not grounded(n, known) and not grounded(n.lstrip("-"), known)
            for n in numbers(in_digits(answer, lang))
        )

    def stated_in(self, answer: str, lang: str | None = None) -> bool:
        if any(grounded(n, self.numbers) for n in numbers(answer)):
            return True
        if any(w.lower() in self.words for w in _WORD.findall(answer)):
            return True
        spelled = in_digits(answer, lang)
        return spelled != answer and any(grounded(n, self.numbers) for n in numbers(spelled))


def _to_state(view: TurnView) -> list[str]:
    """The values of the results the transcript ends with that an answer must state; none when
    every one of them acknowledges a change the call made.

    A call of a tool that says it changes something (its annotations: ``readOnlyHint`` false or
    ``destructiveHint`` true) whose outcome is OK was asked for the change, not for its fields:
    "I saved hi to note.txt." states the result of a write whose output is ``bytes_written: 2``.
    The command runner changes things too, but its output is what it was run for. Decided from
    the typed outcomes and the tools' own annotations, never from the answer's words."""
    outcomes = _last_outcomes(view)
    if outcomes and all(o is not None and o.ok and _acknowledges(view, o.call.name) for o in outcomes):
        return []
    return view.last_values()


def _acknowledges(view: TurnView, name: str) -> bool:
    """Whether a successful result of tool ``name`` is only the acknowledgement of a change."""
    spec = view.tools.get(name)
    if spec is None or name == view.runner:
        return False
    hints = spec.annotations
    return hints.get("readOnlyHint") is False or hints.get("destructiveHint") is True


def _may_apply(view: TurnView) -> bool:
    """Whether an answer that begins with ``view.answer`` (the text written so far) may still be
    found to state no result: results to state, none of them stated by its complete words yet
    (digits and value words; numbers in words are read only in the whole answer)."""
    values = ResultValues.of(_to_state(view), _operands(view))
    # "36" may still grow into "365": only the words before the last whitespace are complete.
    complete = view.answer[: max(view.answer.rfind(" "), view.answer.rfind("\n"), 0)]
    if values is None:
        if not _uncalled(view):
            return False
        if placeholder_in(view.answer) is not None:
            return True
        return _only_the_questions_words(view, _BRACKETED.sub(" ", complete))
    stated = any(grounded(n, values.numbers) for n in numbers(complete)) or any(
        w.lower() in values.words for w in _WORD.findall(complete)
    )
    return not stated


def _detect(view: TurnView) -> Unstated | None:
    """An answer right after tool results that talks about the call, says the question back or
    follows a calculation, and states none of their values: the values it should have stated. Or
    an answer with no call made that only says the question back or holds a template slot."""
    texts = _to_state(view)
    values = ResultValues.of(texts, _operands(view))
    if values is None:
        if not _uncalled(view):
            return None
        slot = placeholder_in(view.answer)
        if slot is not None:
            return Unstated("", slot=slot)
        return Unstated("") if _only_the_questions_words(view, view.answer, whole=True) else None
    if values.stated_in(view.answer, view.lang):
        return None
    if not (_narrates(view) or _echoes_question(view) or _calculated(view)):
        return None
    return Unstated("; ".join(texts))


def _uncalled(view: TurnView) -> bool:
    """No call made this turn, no result of an earlier turn to answer from, and tools to call."""
    return not view.called and not view.earlier and bool(view.tools.tools)


def _only_the_questions_words(view: TurnView, answer: str, *, whole: bool = False) -> bool:
    """Every word of ``answer`` (no digit in it) is the question's or carries nothing; ``whole``:
    the answer is complete and has two of the question's words at least ("The name of this
    computer is."), not a greeting's "Hello!"."""
    if any(ch.isdigit() for ch in answer):
        return False
    asked = {w.lower() for w in _TOKEN.findall(in_digits(view.asked or view.question, view.lang))}
    said = [w.lower() for w in _WORD.findall(answer)]
    if any(w not in asked and w not in _CARRY_NOTHING for w in said):
        return False
    return not whole or sum(w in asked and w not in _CARRY_NOTHING for w in said) >= 2


def _calculated(view: TurnView) -> bool:
    """The results the transcript ends with include the calculator's: what was asked is its number,
    so an answer without it answers nothing ("Thank you for the information." after 900 / 12 = 75)."""
    return any(o is not None and o.ok and o.call.name == view.calculator for o in _last_outcomes(view))


def _operands(view: TurnView) -> frozenset[float]:
    """The numbers the calculations the transcript ends with were given."""
    return frozenset(
        float(n)
        for o in _last_outcomes(view)
        if o is not None and o.call.name == view.calculator
        for n in argument_numbers(o.call.arguments)
    )


def _last_outcomes(view: TurnView) -> list[ToolOutcome | None]:
    """The outcomes of the TOOL messages the transcript ends with, last first (None: a caller's tool)."""
    outcomes = []
    for at in range(len(view.transcript) - 1, -1, -1):
        if view.transcript[at].role != MessageRole.TOOL:
            break
        outcomes.append(view.outcomes.get(at))
    return outcomes


def _narrates(view: TurnView) -> bool:
    """An English answer that speaks of the call or its result ("the result of the calculation")."""
    return language_code(view.lang) == "en" and _NARRATION.search(view.answer) is not None


def _echoes_question(view: TurnView) -> bool:
    """The answer is the user's question said back, in any language: after the calculator returned
    60, "quanto é quinze por cento de quatrocentos" was answered "Quanto é 15 por cento de 400?"."""
    asked = {w.lower() for w in _TOKEN.findall(in_digits(view.question, view.lang))}
    said = [w.lower() for w in _TOKEN.findall(view.answer)]
    return len(said) >= 3 and sum(w in asked for w in said) >= 0.6 * len(said)


UNSTATED_RESULT: Rule[Unstated] = Rule(
    "unstated_result",
    Stage.ON_ANSWER,
    _detect,
    lambda found: Nudge(UNSTATED_RESULT.description, found.message),
    description="the result is not stated",
    # It judges an answer, so it is decided before any of it is spoken: corrected after speech,
    # the voice would say a second answer. Held: an answer right after results to state, until
    # the text written so far states one of them ("36 is 15% of 240." is spoken as it comes).
    holds_stream=True,
    may_apply=lambda view: _may_apply(view),
)
