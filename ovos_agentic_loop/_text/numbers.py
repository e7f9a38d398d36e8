"""Reading prose for the reactions: numbers as written, and how to ask for a call."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

from ovos_plugin_manager.templates.agents import AgentMessage

from ovos_agentic_loop._runtime.log import ovos_logger
from ovos_agentic_loop._text.language import language_code

__all__ = [
    "argument_numbers",
    "call_format",
    "field_numbers",
    "grounded",
    "in_digits",
    "known_numbers",
    "local_numbers",
    "numbers",
    "said_in_digits",
    "without_clock",
]

# A number as written in prose: 1,065 / 1065 / 2.33 / -4 (a hyphen between digits is no sign).
_NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d.])|(?<![\w.,])-?\d+(?:\.\d+)?")


def numbers(text: str) -> list[str]:
    """The numbers written in ``text``, without thousands separators."""
    found = []
    for match in _NUMBER.finditer(text):
        value = match.group().replace(",", "")
        if match.start() > 0 and value.startswith("-") and text[match.start() - 1].isdigit():
            value = value[1:]  # 2026-11-30: a date, not minus eleven
        found.append(value)
    return found


def argument_numbers(arguments: object) -> list[str]:
    """The numbers written in a call's arguments (read from their JSON, nested values too)."""
    return numbers(json.dumps(arguments, default=str))


def local_numbers(text: str, lang: str | None) -> list[str]:
    """The numbers of ``text`` as the session's language writes them, where it writes a decimal
    comma ("62,137 Meilen" is 62.137 in German, "1.080" is 1080); [] where the language writes
    numbers as ``numbers`` reads them. A model may write either way in any language: a check reads
    both."""
    code = language_code(lang)
    if not code or not _decimal_comma(code):
        return []
    swapped = re.sub(r"(?<=\d)\.(?=\d{3}(?!\d))", "", text)
    return numbers(re.sub(r"(?<=\d),(?=\d)", ".", swapped))


@lru_cache(maxsize=32)
def _decimal_comma(code: str) -> bool:
    from babel import Locale, UnknownLocaleError  # CLDR: which languages write 62,137 for 62.137

    try:
        return bool(Locale.parse(code).number_symbols.get("latn", {}).get("decimal") == ",")
    except (UnknownLocaleError, ValueError):
        return False


def grounded(number: str, known: Iterable[float]) -> bool:
    """``number`` is in ``known``, or is one of them rounded to its own decimals (2.33 of 2.3333)."""
    value = float(number)
    decimals = len(number.partition(".")[2])
    return any(abs(k - value) < 1e-9 or round(k, decimals) == value for k in known)


def known_numbers(
    transcript: Iterable[AgentMessage],
    results: Iterable[str] = (),
    *,
    counts: bool = False,
    unran: frozenset[str] = frozenset(),
) -> set[float]:
    """Every number the conversation holds: its messages and the arguments of its calls (but the
    calls in ``unran``, by id, and what was said of them: refused before they reached their tool,
    their values are nobody's); and the numbers of the tool results' values (``results``, read field
    by field: see ``field_numbers``). ``counts``: none that is part of a time or a date
    (``without_clock``)."""
    read = without_clock if counts else str
    known: set[float] = set()
    for message in transcript:
        if message.tool_call_id is not None and message.tool_call_id in unran:
            continue  # the loop's own words on a refused call ("Not run: 70 is no number ...")
        texts = [message.content or ""]
        texts += [json.dumps(c.arguments, default=str) for c in message.tool_calls or [] if c.id not in unran]
        for text in texts:
            known.update(float(n) for n in numbers(read(text)))
    known.update(float(n) for value in results for n in field_numbers(read(value)))
    return known


#: A time or a date as written: 11:38:06, 10:37, 2026-12-04, 04/12/2026.
CLOCK = re.compile(r"(?<![\w.])\d{1,4}(?:[-/:]\d{1,4}){1,2}(?!\w|\.\d)")


#: A day of a month as English writes it: "March 1st", "the 15th".
DAY_ORDINAL = re.compile(r"(?<![\w.])\d{1,2}(?:st|nd|rd|th)\b", re.IGNORECASE)


def without_clock(text: str) -> str:
    """``text`` without its times and dates: their numbers are no counts. Asked "and how many days
    are left in it" after "what year is it", the stock template answered "11 days", the hour of
    the time the clock tool had returned (11:38:06); "45 days between March 1st and April 15th"
    counts 45, not 1 ("first" was said, and the parser reads no ordinal)."""
    return DAY_ORDINAL.sub(" ", CLOCK.sub(" ", text))


_SEPARATORS = re.compile(r"[,;\t\n]")


def field_numbers(text: str) -> list[str]:
    """The numbers of a table or list (``text`` split at commas, semicolons, tabs, lines): a CSV
    file's numbers ("ana,72") are no thousands ("1,065"), and were not read in prose."""
    return [n for field in _SEPARATORS.split(text) for n in numbers(field)]


def call_format(text_mode: bool) -> str:
    """How the model is asked to make a call: the text protocol's two lines, or a native call."""
    return (
        " in the format\nAction: <tool name>\nAction Input: <JSON object>"
        if text_mode
        else " (a real tool call)"
    )


#: The word for minus, where ovos-number-parser (0.19) reads "X minus Y" as -Y and so loses X
#: ("seven minus twelve" -> "-12", "sete menos doze" -> "-19"): the text is read piece by piece
#: around it. Spanish it reads right.
_MINUS_WORDS = {"en": "minus", "de": "minus", "pt": "menos"}


#: Words that hold a number word and are no number: "quinze por cento" is fifteen percent, which
#: the parser (0.19) read as "15 por 100" (and the bundled model then as 15 / 400).
_KEPT_WORDS = {"pt": "por cento", "es": "por ciento"}


@lru_cache(maxsize=64)
def in_digits(answer: str, lang: str | None) -> str:
    """``answer`` with numbers written as words turned into digits ("three hundred fifty-two point
    five" -> 352.5), by the OVOS ecosystem's own multilingual parser; imported only when needed.
    A minus after a number is the operation and stays a word ("7 minus 12"); any other is the
    next number's sign ("minus five celsius" -> "-5 celsius"). A percent said in words stays
    words ("15 por cento").
    Cached: one answer is read by ``stated_in`` and then ``contradicted_by``."""
    code = language_code(lang)
    kept = _KEPT_WORDS.get(code)
    if kept is None:
        return _signed_digits(answer, code)
    return _around(
        kept,
        answer,
        lambda piece: _signed_digits(piece, code),
        lambda text, word, rest: f"{text} {word} {rest}",
    )


def _signed_digits(answer: str, code: str) -> str:
    """``in_digits`` of text without kept words: a minus word is the operation or a sign."""
    minus = _MINUS_WORDS.get(code)
    if minus is None:
        return _digits(answer, code)
    return _around(minus, answer, lambda piece: _digits(piece, code), _minus)


def _minus(text: str, word: str, digits: str) -> str:
    """After a number a minus word is the operation ("7 minus 12"), before one a sign ("-5
    celsius"), and with no number beside it a word ("plus or minus a bit")."""
    sign = not re.search(r"\d\s*$", text) and re.match(r"\d", digits)
    return f"{text} -{digits}" if sign else f"{text} {word} {digits}"


def _around(words: str, text: str, read: Callable[[str], str], join: Callable[[str, str, str], str]) -> str:
    """``text`` read piece by piece around ``words`` (a regex alternative), each piece by ``read``,
    joined back by ``join(text so far, the words as written, the next piece read)``; the parser
    drops the spaces at the pieces' ends."""
    pieces = re.split(rf"\b({words})\b", text, flags=re.IGNORECASE)
    done = read(pieces[0])
    for word, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        done = join(done.rstrip(), word, read(piece).lstrip())
    return done.strip()


def said_in_digits(text: str, lang: str | None) -> str:
    """What the user said with its spelled numbers in digits, for the model to read: the bundled
    model copies digits faithfully and reads spelled numbers wrong ("novecientos dividido entre
    doce" became 9 / 12, "dezassete vezes vinte e tres" 230). ``text`` itself when the reading
    adds no number but one ("which one", "uma coisa": a word, not a quantity), so a sentence
    without spelled numbers reaches the model exactly as said."""
    converted = in_digits(text, lang)
    added = Counter(numbers(converted)) - Counter(numbers(text))
    return converted if any(float(n) != 1 for n in added) else text


# Punctuation that ends a word: the parser reads "four." as no number ("Two plus two is four."
# stated no result), so it is set apart for the parser and put back after.
_WORD_END = re.compile(r"(?<=\w)([.,!?;:])(?=\s|$)")
_SET_APART = re.compile(r" ([.,!?;:])(?=\s|$)")


def _digits(text: str, lang: str) -> str:
    if not text.strip():
        return text
    try:
        from ovos_number_parser import numbers_to_digits

        return _SET_APART.sub(r"\1", str(numbers_to_digits(_WORD_END.sub(r" \1", text), lang=lang)))
    except Exception as exc:  # noqa: BLE001 - a language it lacks, or a parser error: no spelled numbers then
        ovos_logger(__name__).debug(f"numbers in words not read ({lang}): {type(exc).__name__}: {exc}")
        return text
