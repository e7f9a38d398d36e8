"""One number said in words, read by ovos-number-parser: shared by the toolboxes' arguments.

The parser's readings are checked, never taken on trust: a phrase is a number only when the parser
turns ALL of it into one number ("two thousand three hundred and fifty", "drei komma fünf",
"two thirds"); "fifty cents" or "eleven nineteen" is no number.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ovos_utils.log import LOG

__all__ = ["NUMBER", "read_number", "whole_number_argument"]

NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)")
_LONG_DECIMAL = re.compile(r"-?\d*\.\d{9,}")


def read_number(phrase: str, lang: str) -> Fraction | str | None:
    """One number said in words in ``lang`` ("two thousand three hundred and fifty", "drei komma
    fünf", "two thirds"): decimal text where it was said as digits or a decimal, a Fraction for a
    fraction said in words, None when the phrase is not exactly one number."""
    from ovos_number_parser import numbers_to_digits

    phrase = " ".join(phrase.split())
    if not phrase:
        return None
    if NUMBER.fullmatch(phrase):
        return phrase
    try:
        digits = " ".join(numbers_to_digits(phrase, lang).split())
    except (NotImplementedError, ValueError, IndexError, KeyError) as exc:  # No grammar: the caller refuses.
        LOG.debug(f"ovos-number-parser could not read {phrase!r} in {lang}: {exc}")
        return None
    if NUMBER.fullmatch(digits):
        # The parser says 2/3 as 0.6666666666666666: keep the fraction it stands for.
        if _LONG_DECIMAL.fullmatch(digits):
            return Fraction(digits).limit_denominator(1000)
        return digits
    words = phrase.split()
    # "tres coma cinco", "trois virgule cinq": the parser reads the decimal word in extract_number
    # but leaves it in numbers_to_digits; accepted only when both readings agree.
    decimal = re.fullmatch(r"(-?\d+) \S+ (\d+)", digits)
    if decimal is not None and _extract(phrase, lang) == float(f"{decimal[1]}.{decimal[2]}"):
        return f"{decimal[1]}.{decimal[2]}"
    # "a hundred", "a half", "um terço": an article before one number.
    article = re.fullmatch(r"(\w{1,3}) (\S+)", digits)
    if (
        article is not None
        and NUMBER.fullmatch(article[2])
        and _extract(phrase, lang) == float(article[2])
        and read_number(article[1], lang) is None
    ):
        return article[2]
    # "a third", "two thirds", "one third" (which the parser reads as "1 1").
    share = _fraction_word(words[-1], lang)
    if share is not None and 1 <= len(words) <= 5:
        head = words[:-1]
        count: Fraction | str | None
        if not head or (len(head) == 1 and len(head[0]) <= 3 and read_number(head[0], lang) is None):
            count = "1"
        else:
            count = read_number(" ".join(head), lang)
        if count is not None:
            return Fraction(count) * share
    return None


def _extract(phrase: str, lang: str) -> float | None:
    from ovos_number_parser import extract_number

    try:
        value = extract_number(phrase, lang)
    except (NotImplementedError, ValueError, IndexError, KeyError) as exc:  # No grammar: the caller refuses.
        LOG.debug(f"ovos-number-parser could not read {phrase!r} in {lang}: {exc}")
        return None
    return None if value is False or value is None else float(value)


def _fraction_word(word: str, lang: str) -> Fraction | None:
    from ovos_number_parser import is_fractional

    try:
        value = is_fractional(word, lang)
    except (NotImplementedError, ValueError, IndexError, KeyError) as exc:  # No grammar: the caller refuses.
        LOG.debug(f"ovos-number-parser could not read {word!r} in {lang}: {exc}")
        return None
    if value is False or value is None or value == 0:
        return None
    return Fraction(float(value)).limit_denominator(100)


def whole_number_argument(value: object, what: str, example: str) -> object:
    """A whole-number argument given as words ("three", "menos dois") as an int, read in the
    current call's languages; anything else is left for pydantic to judge, and words that are
    not one whole number are refused with what to send instead."""
    from ovos_agentic_loop_toolboxes._core.language import READING_LANGS

    if not isinstance(value, str) or not re.search(r"[^\W\d_]", value):
        return value
    words = " ".join(value.split())
    for lang in READING_LANGS.get():
        number = read_number(words, lang)  # "minus two" reads as "-2"
        if number is not None and Fraction(number).denominator == 1:
            return int(Fraction(number))
    raise ValueError(f"{what} {value!r} is not a whole number: send it as a number, such as {example}")
