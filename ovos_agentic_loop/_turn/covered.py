"""A question of several asks that this turn's calls have covered: the model is told to answer.

"What weekday is it today, and what is 15% of 2350?" asks two things. With both results in, the
bundled model asked for the weekday again (every run of five), was told it has that result, asked
for the percentage again, and was then sent to its answer: five model calls for three. Told with
the last result that the results cover each part of the question, it answered (six runs of six).

Told only when the loop can see it is so, never as a general "answer if you can" (said after the
weekday alone, the model answered the percentage from its head, "352"):

- the question asks at least two things: as many clauses opening with a question word ("what",
  "how", "qual", "wie", ...) at its start, after a comma or after "and" of its language;
- at least as many distinct calls of this turn succeeded (a call of an earlier turn put back by
  the conversation's memory is not this question's);
- every number the user said is an argument of one of them (a quantity not yet used is a part not
  yet asked of a tool: "what is 15% of 2350" answered by the weekday and "2350 * 0.1" is not).

A question of one ask, or asked without question words ("read the budget and work out 15% of it,
then write it down"), is left to the model, which decides as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ovos_agentic_loop._text.language import language_code
from ovos_agentic_loop._text.numbers import argument_numbers, grounded, numbers, said_in_digits, without_clock
from ovos_agentic_loop._tools.observations import ToolOutcome
from ovos_agentic_loop._turn.repeats import signature

__all__ = ["COVERED", "asks", "covered"]

#: Said after the last result of the calls that covered the question.
COVERED = "\nThese results cover every part of the question: answer it now."

# The words that open a question, per language (a clause opening with one is one ask).
_QUESTION_WORDS: dict[str, str] = {
    "en": r"what|what's|whats|which|how|when|where|who|whose|why",
    "pt": r"o\s+que|qual|quais|quanto|quanta|quantos|quantas|quando|onde|quem|como|porque|por\s+que",
    "es": r"qué|cuál|cuáles|cuánto|cuánta|cuántos|cuántas|cuándo|dónde|quién|quiénes|cómo|por\s+qué",
    "de": r"was|welche|welcher|welches|welchen|wie|wieviel|wann|wo|wer|warum",
}
_AND: dict[str, str] = {"en": "and", "pt": "e", "es": "y", "de": "und"}


@lru_cache(maxsize=8)
def _ask_opening(code: str) -> re.Pattern[str]:
    words = _QUESTION_WORDS[code]
    and_ = _AND[code]
    return re.compile(
        rf"(?:^|[,;:.!?]\s*|\b{and_}\s+)(?:{and_}\s+)?¿?(?:{words})(?![\w'])", re.IGNORECASE | re.MULTILINE
    )


def asks(question: str, lang: str | None) -> int:
    """How many things ``question`` asks: its clauses that open with a question word of the
    session's language (English's too: a question in English in another session is read so);
    0 where neither table has the language."""
    code = language_code(lang)
    codes = dict.fromkeys(c for c in (code, "en") if c in _QUESTION_WORDS)
    return max((len(_ask_opening(c).findall(question.strip())) for c in codes), default=0)


def covered(question: str, lang: str | None, outcomes: Iterable[ToolOutcome]) -> bool:
    """``outcomes`` (this turn's) cover ``question``: it asks two things or more, as many distinct
    calls succeeded, and every number it says is an argument of one of them."""
    wanted = asks(question, lang)
    if wanted < 2:
        return False
    made = [o.call for o in outcomes if o.ok]
    if len({signature(c) for c in made}) < wanted:
        return False
    used = {float(n) for c in made for n in argument_numbers(c.arguments)}
    said = numbers(without_clock(said_in_digits(question, lang)))
    return all(grounded(n, used) for n in said)
