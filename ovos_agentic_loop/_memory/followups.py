"""What a follow-up asks of the last turn, read deterministically, and the last turn's call made
again for it:

- a **correction** ("no, I meant seventy", "não, queria dizer setenta", "sorry, not twelve,
  fifteen") and a **new number** for the same question ("and thirty?", "e vinte por cento",
  "y el treinta por ciento", "und zweihundert"): the last turn's call with one number replaced;
- a **new target** for the same question ("and in tokyo", "and in meters", "y en tokio", "und in
  Berlin", "and how many ounces is that"): the last turn's converter call (a tool whose toolbox
  declared the argument that holds the unit, zone or place it gives its value in) with that
  argument replaced by the words said;
- the **last result per period** ("and how much is that per day", "e quanto é isso por dia"): a
  calculation on it, divided by the periods of the longest span the last question named ("a week"
  is 7 days, "over a year" 365);
- a **calculation on the last result** ("and that times three", "und das mal drei", "and fifteen
  percent of that", "and now divided by four"): the last turn's one calculation, in parentheses,
  in the place of "that", with the rest as said (numbers in digits); where the answer did not say
  that calculation's result, the one number it said (what the user heard is what "that" is). The
  calculator reads the operator words of its languages; the loop only knows which word stands for
  the last result.

Small on purpose. The utterance must open with a correction phrase or an "and" of its language (or
English) and say one number, or "in" and a few words, and nothing else but filler words. A number
is placed only where it is known which number of the call came from which words: the last turn's
one calculation (the tool its toolbox declared the calculator) whose expression holds every number
of that turn's question exactly once, as digits; else the one argument of the last turn's calls
whose value is that number. The replaced number is the one the correction names, else the first
number of the question ("what is 23 times 17" -> "no, I meant seventy": 70 * 17; "fifteen percent
of 480" -> "and twenty percent": 20% of 480), the one such a follow-up most often restates.
Anything else (a calculation the model rewrote, a question without numbers, "and by twenty", "and
take away eighty") is left to the model, which sees the remembered calls and their results.

Numbers in words are read by ovos-number-parser (``_text.numbers.in_digits``), in the session's
language.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._memory.records import RememberedCall, RememberedTurn
from ovos_agentic_loop._text.language import language_code
from ovos_agentic_loop._text.numbers import grounded, in_digits, numbers
from ovos_agentic_loop._text.values import plain_number
from ovos_agentic_loop._tools.spec import ToolRole, ToolSpec
from ovos_agentic_loop._tools.toolset import ToolSet

__all__ = [
    "FOLLOW_UP_CALL_ID",
    "Correction",
    "FollowUp",
    "Onward",
    "Per",
    "Retarget",
    "follow_up_call",
    "follow_up_in",
    "restated",
]

#: The id of the call a follow-up makes again (the last turn's call, made by the loop).
FOLLOW_UP_CALL_ID = "call_follow_up"

# An opening "no," / "sorry," then the phrase that says the last question held a wrong word.
_LEADS: dict[str, str] = {
    "en": r"(?:(?:no|nope|sorry|oops|oh)[\s,.!]+)*(?:i\s+meant|i\s+mean|i\s+said|make\s+(?:it|that))\b",
    "pt": r"(?:(?:não|nao|desculpa|desculpe|ups)[\s,.!]+)*(?:(?:eu\s+)?queria\s+dizer|(?:eu\s+)?quis\s+dizer"
    r"|(?:eu\s+)?disse)\b",
    "es": r"(?:(?:no|perdón|perdon|perdona|uy)[\s,.!]+)*(?:quer[ií]a\s+decir|quise\s+decir|dije)\b",
    "de": r"(?:(?:nein|sorry|entschuldigung|oh)[\s,.!]+)*(?:ich\s+meinte|ich\s+meine|ich\s+sagte)\b",
}
# The "and" that asks the last question again with one thing changed: "and thirty?", "and in tokyo".
_ALSO: dict[str, str] = {
    "en": r"(?:and|what\s+about|how\s+about)\b",
    "pt": r"(?:e)\b",
    "es": r"(?:y)\b",
    "de": r"(?:und)\b",
}
# What introduces the number a correction replaces: "seventy, not seventeen".
_INSTEAD: dict[str, str] = {
    "en": r"\b(?:not|instead\s+of|rather\s+than)\b",
    "pt": r"\b(?:não|nao|em\s+vez\s+de|em\s+lugar\s+de)\b",
    "es": r"\b(?:no|en\s+vez\s+de|en\s+lugar\s+de)\b",
    "de": r"\b(?:nicht|statt|anstatt)\b",
}
# The word before a new target: "and in meters", "e em metros", "y en tokio", "und in Berlin".
_IN: dict[str, str] = {
    "en": r"(?:in|to)",
    "pt": r"(?:em|no|na|para)",
    "es": r"(?:en|a|para)",
    "de": r"(?:in|nach)",
}
# The word that stands for the last result ("and that times three", "und das mal drei"), and the
# "now" that asks to go on from it without one ("and now times three").
_THAT: dict[str, str] = {
    "en": r"that|this|it|those",
    "pt": r"isso|isto|esse|esse\s+valor|esse\s+número|o\s+resultado",
    "es": r"eso|esto|ese|ese\s+valor|el\s+resultado",
    "de": r"das|dies|dieses|davon|dem|das\s+ergebnis",
}
_NOW: dict[str, str] = {
    "en": r"now|then",
    "pt": r"agora|depois",
    "es": r"ahora|luego",
    "de": r"jetzt|nun|dann",
}
# What a spoken calculation on the last result may open with, and leaves out ("and what is").
_ASK: dict[str, str] = {
    "en": r"(?:what\s+is|what's|whats|how\s+much\s+is)\s+",
    "pt": r"(?:quanto\s+é|quanto\s+dá)\s+",
    "es": r"(?:cuánto\s+es|cuanto\s+es)\s+",
    "de": r"(?:was\s+ist|wie\s+viel\s+ist|wieviel\s+ist)\s+",
}
# The same target asked as a question about the last result: "and how many ounces is that",
# "e quantos metros são isso", "y cuántas millas es eso", "und wie viele Meilen sind das".
_HOW_MANY: dict[str, str] = {
    "en": r"(?:and\s+)?how\s+(?:many|much)\s+(?P<words>[^\d%]+?)\s+(?:is|are|would\s+be)\s+(?:that|this|it)",
    "pt": r"(?:e\s+)?quant[oa]s?\s+(?P<words>[^\d%]+?)\s+(?:é|são|dá|dão|s[aã]o)\s+(?:isso|isto)",
    "es": r"(?:y\s+)?cu[aá]nt[oa]s?\s+(?P<words>[^\d%]+?)\s+(?:es|son|serían|sería)\s+(?:eso|esto)",
    "de": r"(?:und\s+)?wie\s*viele?\s+(?P<words>[^\d%]+?)\s+(?:ist|sind)\s+(?:das|es|dies)",
}
# "add those two together", "e soma os dois": two earlier results, not the last one (the model reads it).
_TWO = re.compile(
    r"\b(?:(?:those|these|the)\s+two|both|(?:esses|estes|os)\s+dois|ambos|(?:esos|estos|los)\s+dos|"
    r"die\s+beiden|beide)\b"
)
# ... and as the last result in a new unit: "and how much is that in miles", "e quanto é isso em
# milhas", "y cuánto es eso en millas", "und wie viel ist das in Meilen".
_THAT_IN: dict[str, str] = {
    "en": r"(?:and\s+)?(?:(?:how\s+much|what)\s+(?:is|would\s+be)\s+)?(?:that|this|it)\s+(?:in|to)\s+"
    r"(?P<words>[^\d%]+)",
    "pt": r"(?:e\s+)?(?:quanto\s+(?:é|dá)\s+)?(?:isso|isto)\s+(?:em|para)\s+(?P<words>[^\d%]+)",
    "es": r"(?:y\s+)?(?:cu[aá]nto\s+es\s+)?(?:eso|esto)\s+(?:en|a)\s+(?P<words>[^\d%]+)",
    "de": r"(?:und\s+)?(?:wie\s*viel\s+ist\s+)?(?:das|dies)\s+(?:in)\s+(?P<words>[^\d%]+)",
}
# The last result per period: "and how much is that per day", "e quanto é isso por dia", "y eso al
# día", "und wie viel ist das pro Tag".
_PER: dict[str, str] = {
    "en": r"(?:and\s+)?(?:(?:how\s+much|what)\s+(?:is|would\s+be)\s+)?(?:that|this|it)\s+"
    r"(?:per|a|each|every)\s+(?P<period>day|week|month|year)",
    "pt": r"(?:e\s+)?(?:quanto\s+(?:é|dá)\s+)?(?:isso|isto)\s+(?:por|ao|à)\s+"
    r"(?P<period>dia|semana|m[eê]s|ano)",
    "es": r"(?:y\s+)?(?:cu[aá]nto\s+es\s+)?(?:eso|esto)\s+(?:por|al|a\s+la)\s+"
    r"(?P<period>d[ií]a|semana|mes|a[ñn]o)",
    "de": r"(?:und\s+)?(?:wie\s*viel\s+ist\s+)?(?:das|dies)\s+(?:pro|am|im|in\s+der|je)\s+"
    r"(?P<period>tag|woche|monat|jahr)",
}
# A period's name in each language, and its days (a month as 30, a year as 365).
_PERIODS = {
    "day": (1, r"days?|dias?|d[ií]as?|tag|tage|t[aä]glich\w*|daily"),
    "week": (7, r"weeks?|weekly|semanas?|wochen?|w[oö]chentlich\w*"),
    "month": (30, r"months?|monthly|m[eê]s|meses|monate?|monatlich\w*"),
    "year": (365, r"years?|yearly|annual\w*|anos?|a[ñn]os?|jahre?|j[aä]hrlich\w*"),
}
#: Where the last result stands in an ``Onward`` calculation.
RESULT_SLOT = "{result}"
# Words a target is not: "and in it", "and in that", "and to you": the model reads those.
_NOT_TARGET_WORDS = (
    "it that this there them you me us him her isso isto você ti mim eso esto usted mí "
    "das dem es dich dir mir uns ihn sie"
)
_NO_TARGET = frozenset(_NOT_TARGET_WORDS.split())
_PUNCTUATION = re.compile(r"[;:!?¿¡\"()]|(?<!\d),|,(?!\d)|\.(?!\d)")
# The words a follow-up may say beside its number ("I meant the number seventy, actually").
_FILLER_WORDS = {
    "en": "the number it that was is to be percent per cent % actually really please sorry",
    "pt": "o a número era é por cento % na verdade afinal desculpa",
    "es": "el la número era es por ciento % en realidad perdón",
    "de": "die das der zahl war ist prozent % eigentlich bitte",
}
_FILLERS = {language: frozenset(words.split()) for language, words in _FILLER_WORDS.items()}
# A number as a calculator expression writes it (no sign: "-" there is the operation).
_OPERAND = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


@dataclass(frozen=True)
class Correction:
    """The number the user meant (or asks about now), and the one it replaces (None: not said)."""

    value: float
    replaced: float | None = None

    @property
    def written(self) -> str:
        return plain_number(self.value)


@dataclass(frozen=True)
class Retarget:
    """The unit, zone or place the user asks the last question's value in now, as said."""

    target: str


@dataclass(frozen=True)
class Onward:
    """A calculation on the last result, as said with its numbers in digits: ``said`` holds
    ``RESULT_SLOT`` where the last result stands ("{result} mal 3")."""

    said: str


@dataclass(frozen=True)
class Per:
    """The last result per ``period`` ("day", "week", "month" or "year"): "and how much is that per
    day". The loop divides by the periods in the span the last question named ("a week", "over a
    year"), the longest of them."""

    period: str


FollowUp = Correction | Retarget | Onward | Per

# "sorry, not twelve, fifteen": the wrong number first, then the one meant (English: the parser
# reads "doze quinze" as 27, so the two numbers of this form can be told apart only in English).
_NOT_FIRST = re.compile(r"(?:(?:no|nope|sorry|oops|oh)[\s,.!]+)+not\s+(?P<rest>.+)$")


def follow_up_in(utterance: str, lang: str | None) -> FollowUp | None:
    """What ``utterance`` asks of the last turn, or None when it is no follow-up of these kinds."""
    code = language_code(lang)
    text = _PUNCTUATION.sub(" ", utterance.strip().lower()).strip()
    if code == "en" and (found := _NOT_FIRST.match(utterance.strip().lower())):
        rest = found.group("rest")
        pair = _numbers(rest, "en")
        if len(pair) == 2 and _only_a_number(rest, "en", _FILLERS["en"] | {"but"}):
            return Correction(pair[1], pair[0])
    for language in dict.fromkeys((code, "en")):
        reading = lang if language == code else language  # numbers in the phrase's language
        for leads in (_LEADS, _ALSO):
            found = re.match(leads[language], text) if language in leads else None
            if found is None:
                continue
            rest = text[found.end() :].strip()
            if leads is _ALSO and (target := _target(rest, language)) is not None:
                return Retarget(target)
            number = _new_number(rest, language, reading)
            if number is not None or leads is _LEADS:
                return number
        if (target := _asked_in(text, language)) is not None:
            return Retarget(target)
        if language in _PER and (per := re.fullmatch(_PER[language], text)) is not None:
            return Per(_period_of(per.group("period")))
        if language in _THAT and (onward := _onward(text, language, reading)) is not None:
            return onward
    return None


def _period_of(word: str) -> str:
    return next(name for name, (_, words) in _PERIODS.items() if re.fullmatch(words, word))


def _span_days(question: str) -> int | None:
    """The days of the longest period the question names ("210 euros a week over a year": 365)."""
    spans = [days for days, words in _PERIODS.values() if re.search(rf"\b(?:{words})\b", question.lower())]
    return max(spans) if spans else None


def _asked_in(text: str, language: str) -> str | None:
    """The unit a question about the last result asks for ("and how many ounces is that", "and how
    much is that in miles")."""
    found = None
    for forms in (_HOW_MANY, _THAT_IN):
        found = found or (re.fullmatch(forms[language], text) if language in forms else None)
    if found is None:
        return None
    words = found.group("words").split()
    if not 1 <= len(words) <= 3 or any(w in _NO_TARGET for w in words):
        return None
    return " ".join(words)


def _onward(text: str, language: str, reading: str | None) -> Onward | None:
    """A calculation on the last result: one word for it (or an opening "and now") and a number,
    in a few words ("and that times three", "fifteen percent of that")."""
    if _TWO.search(text):
        return None
    rest = re.sub(rf"^(?:{_ALSO[language]}\s*)?", "", text).strip()
    now = re.match(rf"(?:{_NOW[language]})\b\s*", rest)
    rest = rest[now.end() :] if now else rest
    rest = re.sub(rf"^{_ASK[language]}", "", rest).strip()
    that = list(re.finditer(rf"\b(?:{_THAT[language]})\b", rest))
    if len(that) > 1 or (not that and now is None) or len(rest.split()) > 8:
        return None
    said = rest[: that[0].start()] + RESULT_SLOT + rest[that[0].end() :] if that else f"{RESULT_SLOT} {rest}"
    said = " ".join(in_digits(said, reading).split())
    if not numbers(said.replace(RESULT_SLOT, " ")) or said.strip() == RESULT_SLOT:
        return None
    return Onward(said)


def _new_number(text: str, language: str, reading: str | None) -> Correction | None:
    """The number ``text`` says (and the one it names as replaced); None unless that is all it says."""
    meant, *rest = re.split(_INSTEAD[language], text, maxsplit=1)
    value = _numbers(meant, reading)
    if len(value) != 1 or not _only_a_number(meant, reading, _FILLERS[language]):
        return None  # no number, a question said again, "the other one": the model reads it
    replaced = _numbers(rest[0], reading) if rest else []
    return Correction(value[0], replaced[0] if len(replaced) == 1 else None)


def _target(text: str, language: str) -> str | None:
    found = re.fullmatch(rf"{_IN[language]}\s+(?P<words>[^\d%]+)", text)
    if found is None:
        return None
    words = found.group("words").split()
    if not 1 <= len(words) <= 4 or any(w in _NO_TARGET for w in words):
        return None
    return " ".join(words)


def follow_up_call(
    follow_up: FollowUp, last: RememberedTurn, toolset: ToolSet, lang: str | None
) -> ToolCall | None:
    """The last turn's call made again for ``follow_up``, or None when which value it changes
    cannot be told for sure (see the module's docstring)."""
    if isinstance(follow_up, Retarget):
        return _retargeted(follow_up, last, toolset, lang)
    calculator = toolset.with_role("calculator")
    if isinstance(follow_up, Onward):
        return _onward_call(follow_up, last, calculator, lang)
    if isinstance(follow_up, Per):
        span, period = _span_days(last.question), _PERIODS[follow_up.period][0]
        if span is None or span <= period:
            return None  # no longer span was named: the model reads it
        return _onward_call(Onward(f"{RESULT_SLOT} / {span // period}"), last, calculator, lang)
    said = list(dict.fromkeys(_numbers(last.question, lang)))
    if calculator is not None and any(c.name == calculator[0].name for c in last.calls):
        return _recalculated(follow_up, last, calculator[0].name, calculator[1].argument, said)
    return _renumbered(follow_up, last, said)


def _recalculated(
    correction: Correction, last: RememberedTurn, calculator: str, argument: str, said: list[float]
) -> ToolCall | None:
    """The last turn's one calculation with the number replaced."""
    calls = [c for c in last.calls if c.name == calculator]
    if len(calls) != 1:
        return None
    call = calls[0]
    expression = call.arguments.get(argument)
    if not isinstance(expression, str):
        return None
    operands = [(float(m.group()), m.span()) for m in _OPERAND.finditer(expression)]
    if not said or any(sum(1 for v, _ in operands if v == n) != 1 for n in said):
        return None  # the expression does not hold the question's numbers one each, as said
    target = _replaced(correction, said)
    if target is None:
        return None
    start, end = next(span for v, span in operands if v == target)
    return _again(call, {argument: expression[:start] + correction.written + expression[end:]})


def _onward_call(
    onward: Onward, last: RememberedTurn, calculator: tuple[ToolSpec, ToolRole] | None, lang: str | None
) -> ToolCall | None:
    """The calculation said, on the last result: the last turn's one calculation (in parentheses
    where "that" was) when its answer says that calculation's result; else the one number the answer
    said that its question did not (the model had read the budget, 4200, from a file, and answered
    with it after calculating "200 + 10%" that nobody asked for: "and fifteen percent of that" is 15%
    of what was heard); else None."""
    if calculator is None:
        return None
    spec, role = calculator
    found = _last_result(last, spec.name, lang)
    if found is None:
        return None
    call, value = found
    expression = call.arguments.get(role.argument) if call is not None else None
    if call is not None and isinstance(expression, str) and expression.strip():
        return _again(call, {role.argument: onward.said.replace(RESULT_SLOT, f"({expression.strip()})")})
    if value is None:
        return None
    said = onward.said.replace(RESULT_SLOT, plain_number(value))
    return ToolCall(id=FOLLOW_UP_CALL_ID, name=spec.name, arguments={role.argument: said})


def _last_result(
    last: RememberedTurn, calculator: str | None, lang: str | None
) -> tuple[RememberedCall | None, float | None] | None:
    """What "that" is: the last turn's one calculation and its result, when its answer said that
    result (where the result cannot be read, the one number the answer said stands for it); else no
    calculation and the one number the answer said that its question did not; None when neither
    can be told."""
    calls = [c for c in last.calls if c.name == calculator]
    heard = [n for n in _numbers(last.answer, lang) if n not in _numbers(last.question, lang)]
    one = heard[0] if len(set(heard)) == 1 else None
    if len(calls) == 1:
        value = _result_of(calls[0])
        if value is None or _said(value, heard):
            return calls[0], value if value is not None else one
    if len(calls) > 1 or one is None:
        return None
    return None, one


def _result_of(call: RememberedCall) -> float | None:
    """The number a remembered calculation returned (its result's ``result`` field); None when its
    result cannot be read so."""
    try:
        found = json.loads(call.result)
    except ValueError:
        return None
    value = found.get("result") if isinstance(found, dict) else None
    return _number_of(value) if isinstance(value, str | int | float) else None


def _said(value: float, heard: list[float]) -> bool:
    """``value`` is one of the numbers heard, or one of them is ``value`` rounded to its decimals."""
    return any(abs(h - value) < 1e-9 or grounded(plain_number(h), [value]) for h in heard)


def _renumbered(correction: Correction, last: RememberedTurn, said: list[float]) -> ToolCall | None:
    """The last turn's call whose one argument holds the replaced number, with the new one."""
    target = _replaced(correction, said)
    if target is None:
        return None
    places = [
        (c, key) for c in last.calls for key, value in c.arguments.items() if _number_of(value) == target
    ]
    if len(places) != 1:
        return None
    call, key = places[0]
    old = call.arguments[key]
    new: Any = correction.value
    if isinstance(old, str):
        new = correction.written
    elif isinstance(old, int) and correction.value.is_integer():
        new = int(correction.value)
    return _again(call, {key: new})


def _retargeted(
    retarget: Retarget, last: RememberedTurn, toolset: ToolSet, lang: str | None
) -> ToolCall | None:
    """The last turn's one converter call, asked for its value in the new target."""
    found: list[tuple[RememberedCall, str]] = []
    for call in last.calls:
        spec = toolset.get(call.name)
        role = spec.role if spec is not None else None
        if role is not None and role.kind == "converter":
            found.append((call, role.argument))
    if not found:
        return _converted_result(retarget, last, toolset, lang)
    if len(found) != 1:
        return None
    call, argument = found[0]
    if str(call.arguments.get(argument, "")).strip().lower() == retarget.target:
        return None
    return _again(call, {argument: retarget.target})


# A word after a number that is no unit ("315 is the total").
_NOT_UNIT_WORDS = (
    "is are was were and or the a an of in to for that which per by é são e de em es son y en ist sind und zu"
)
_NOT_UNITS = frozenset(_NOT_UNIT_WORDS.split())


def _converted_result(
    retarget: Retarget, last: RememberedTurn, toolset: ToolSet, lang: str | None
) -> ToolCall | None:
    """The last turn's result in the new unit, by the converter of amounts, where the last turn
    calculated it ("and how much is that in miles" after 45 * 7 = 315 "kilometers"; told the
    question again, the stock template answered "315 kilometers" again): the amount is the
    calculation's result as the answer said it (else the one number the answer said), its unit the
    word the answer said after it. None when either cannot be told."""
    converter = toolset.amount_converter
    calculator = toolset.with_role("calculator")
    found = _last_result(last, calculator[0].name if calculator else None, lang)
    if converter is None or found is None or found[1] is None:
        return None
    value = found[1]
    unit = _unit_after(value, last.answer)
    if unit is None:
        return None
    arguments = {converter.amount: value, converter.unit: unit, converter.target: retarget.target}
    return ToolCall(id=FOLLOW_UP_CALL_ID, name=converter.name, arguments=arguments)


def _unit_after(value: float, answer: str) -> str | None:
    """The word the answer says right after ``value`` ("315 kilometers"), or None."""
    for found in re.finditer(r"(?P<number>-?\d[\d,]*(?:\.\d+)?)\s+(?P<word>[^\W\d_]+)", answer):
        number = found.group("number").replace(",", "")
        word = found.group("word").lower()
        if _said(value, [float(number)]) and word not in _NOT_UNITS:
            return word
    return None


def _replaced(correction: Correction, said: list[float]) -> float | None:
    """The number of the last question the follow-up replaces; None when it names one not said."""
    target = correction.replaced if correction.replaced is not None else (said[0] if said else None)
    if target is None or target not in said or target == correction.value:
        return None
    return target


def _again(call: RememberedCall, changed: dict[str, Any]) -> ToolCall:
    return ToolCall(id=FOLLOW_UP_CALL_ID, name=call.name, arguments={**call.arguments, **changed})


def _number_of(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+(?:\.\d+)?", value.strip()):
        return float(value)
    return None


def restated(follow_up: FollowUp, question: str) -> str:
    """The last question asked again with what ``follow_up`` changes, as one line for the model:
    where the loop could not place the change in a call, the model still hears which question is
    meant (told only "and in meters", it said its last answer again)."""
    if isinstance(follow_up, Onward):
        said = follow_up.said.replace(RESULT_SLOT, "the last result")
        return f'The user asks for a calculation on the result of the last question ("{question}"): {said}.'
    if isinstance(follow_up, Per):
        return f'The user asks for the result of the last question ("{question}") per {follow_up.period}.'
    change = f"in {follow_up.target}" if isinstance(follow_up, Retarget) else f"with {follow_up.written}"
    return f'The user asks the last question ("{question}") again, {change}.'


def _numbers(text: str, lang: str | None) -> list[float]:
    # ovos-number-parser reads "seventy," as a word: punctuation goes (a comma between digits stays)
    text = _PUNCTUATION.sub(" ", text).strip()
    return [float(n) for n in numbers(in_digits(text, lang))] if text else []


def _only_a_number(text: str, lang: str | None, fillers: frozenset[str]) -> bool:
    """``text`` says its number and nothing else but filler words."""
    words = in_digits(_PUNCTUATION.sub(" ", text), lang).lower().split()
    return all(w in fillers or re.fullmatch(r"-?\d+(?:[.,]\d+)*%?", w) for w in words)
