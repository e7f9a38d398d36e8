"""A correction of the last turn ("no, I meant seventy", "I meant 70", "não, queria dizer setenta"):
its calculation made again with the corrected number.

Deterministic and small, on purpose. The utterance must open with a correction phrase of its
language (or English) and name one number, optionally the one it replaces ("seventy, not
seventeen", "setenta em vez de dezassete"), or, in English, name the wrong number and then the
meant one ("sorry, not twelve, fifteen"). The last turn must have made exactly one call of the
calculator (the tool its toolbox declared so), whose expression holds every number of that turn's
question exactly once, as digits: only then is it known which number of the expression came from
which words. The replaced number is the one the correction names, else the first number of the
question ("what is 23 times 17" -> "no, I meant seventy": 70 * 17), the one a bare correction most
often restates. Anything else (a calculation the model rewrote, a question without numbers, two
numbers in the correction) is left to the model, which sees the remembered call and its result.

Numbers in words are read by ovos-number-parser (``_text.numbers.in_digits``), in the session's
language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._memory.records import RememberedTurn
from ovos_agentic_loop._text.language import language_code
from ovos_agentic_loop._text.numbers import in_digits, numbers

__all__ = ["CORRECTION_CALL_ID", "Correction", "corrected_call", "correction_in"]

#: The id of the call a correction makes again (the turn's own call, made by the loop).
CORRECTION_CALL_ID = "call_correction"

# An opening "no," / "sorry," then the phrase that says the last question held a wrong word.
_LEADS: dict[str, str] = {
    "en": r"(?:(?:no|nope|sorry|oops|oh)[\s,.!]+)*(?:i\s+meant|i\s+mean|i\s+said|make\s+(?:it|that))\b",
    "pt": r"(?:(?:não|nao|desculpa|desculpe|ups)[\s,.!]+)*(?:(?:eu\s+)?queria\s+dizer|(?:eu\s+)?quis\s+dizer"
    r"|(?:eu\s+)?disse)\b",
    "es": r"(?:(?:no|perdón|perdon|perdona|uy)[\s,.!]+)*(?:quer[ií]a\s+decir|quise\s+decir|dije)\b",
}
# What introduces the number a correction replaces: "seventy, not seventeen".
_INSTEAD: dict[str, str] = {
    "en": r"\b(?:not|instead\s+of|rather\s+than)\b",
    "pt": r"\b(?:não|nao|em\s+vez\s+de|em\s+lugar\s+de)\b",
    "es": r"\b(?:no|en\s+vez\s+de|en\s+lugar\s+de)\b",
}
_PUNCTUATION = re.compile(r"[;:!?¿¡\"()]|(?<!\d),|,(?!\d)|\.(?!\d)")
# The words a correction may say beside its number ("I meant the number seventy, actually").
_FILLER_WORDS = {
    "en": "the number it that was is to be percent per cent % actually really please sorry",
    "pt": "o a número era é por cento % na verdade afinal desculpa",
    "es": "el la número era es por ciento % en realidad perdón",
}
_FILLERS = {language: frozenset(words.split()) for language, words in _FILLER_WORDS.items()}
# A number as a calculator expression writes it (no sign: "-" there is the operation).
_OPERAND = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


@dataclass(frozen=True)
class Correction:
    """The number the user meant, and the one they name as wrong (None: not said)."""

    value: float
    replaced: float | None = None

    @property
    def written(self) -> str:
        return _written(self.value)


# "sorry, not twelve, fifteen": the wrong number first, then the one meant (English: the parser
# reads "doze quinze" as 27, so the two numbers of this form can be told apart only in English).
_NOT_FIRST = re.compile(r"(?:(?:no|nope|sorry|oops|oh)[\s,.!]+)+not\s+(?P<rest>.+)$")


def correction_in(utterance: str, lang: str | None) -> Correction | None:
    """The correction ``utterance`` makes of the last turn, or None when it is no correction."""
    code = language_code(lang)
    text = utterance.strip().lower()
    if code == "en" and (found := _NOT_FIRST.match(text)):
        rest = found.group("rest")
        pair = _numbers(rest, "en")
        if len(pair) == 2 and _only_a_number(rest, "en", _FILLERS["en"] | {"but"}):
            return Correction(pair[1], pair[0])
    for language in dict.fromkeys((code, "en")):
        lead = _LEADS.get(language)
        found = re.match(lead, text) if lead is not None else None
        if found is None:
            continue
        reading = lang if language == code else language  # numbers in the phrase's language
        meant, *rest = re.split(_INSTEAD[language], text[found.end() :], maxsplit=1)
        wrong = rest[0] if rest else ""
        value = _numbers(meant, reading)
        if len(value) != 1 or not _only_a_number(meant, reading, _FILLERS[language]):
            return None  # no number, a question said again, "the other one": the model reads it
        replaced = _numbers(wrong, reading)
        return Correction(value[0], replaced[0] if len(replaced) == 1 else None)
    return None


def corrected_call(
    correction: Correction, last: RememberedTurn, calculator: str, argument: str, lang: str | None
) -> ToolCall | None:
    """The last turn's calculation with the corrected number, or None when which number it replaces
    cannot be told for sure (see the module's docstring)."""
    calls = [c for c in last.calls if c.name == calculator]
    if len(calls) != 1:
        return None
    call = calls[0]
    expression = call.arguments.get(argument)
    if not isinstance(expression, str):
        return None
    said = list(dict.fromkeys(_numbers(last.question, lang)))
    operands = [(float(m.group()), m.span()) for m in _OPERAND.finditer(expression)]
    if not said or any(sum(1 for v, _ in operands if v == n) != 1 for n in said):
        return None  # the expression does not hold the question's numbers one each, as said
    target = correction.replaced if correction.replaced is not None else said[0]
    if target not in said or target == correction.value:
        return None
    start, end = next(span for v, span in operands if v == target)
    arguments = {**call.arguments, argument: expression[:start] + correction.written + expression[end:]}
    return ToolCall(id=CORRECTION_CALL_ID, name=call.name, arguments=arguments)


def _numbers(text: str, lang: str | None) -> list[float]:
    # ovos-number-parser reads "seventy," as a word: punctuation goes (a comma between digits stays)
    text = _PUNCTUATION.sub(" ", text).strip()
    return [float(n) for n in numbers(in_digits(text, lang))] if text else []


def _only_a_number(text: str, lang: str | None, fillers: frozenset[str]) -> bool:
    """``text`` says its number and nothing else but filler words."""
    words = in_digits(_PUNCTUATION.sub(" ", text), lang).lower().split()
    return all(w in fillers or re.fullmatch(r"-?\d+(?:[.,]\d+)*%?", w) for w in words)


def _written(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)
