"""Amounts of money in a calculation: "15% of 4200 euros", "€250 + 19%", "25 dollars + 3 dollars".

The calculator takes numbers; a voice question gives amounts with their currency, and the model
copies them into the expression. A currency on its amounts says what the result is in, not how to
calculate it, so it is read off: a currency sign anywhere (any character Unicode classes as one),
and a currency's ISO code or name (in the languages numbers are read in, from the Unicode CLDR
through babel) beside a number. Two different currencies in one calculation are refused, since
nothing here has exchange rates. A unit of measure is not money and stays refused (unit_convert).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from ovos_agentic_loop_toolboxes.maths._eval import MathError
from ovos_agentic_loop_toolboxes.maths._units import is_currency

__all__ = ["Money", "without_money"]

_WORD = re.compile(r"(?<![\w.])([^\W\d_]+(?:-[^\W\d_]+)?)(?![\w])")
_NUMBER = re.compile(r"\d")


@dataclass(frozen=True)
class Money:
    """A calculation with its currency read off: the text to calculate and the currency as said."""

    text: str
    currency: str


def without_money(text: str, langs: tuple[str, ...]) -> Money | None:
    """``text`` without the currency of its amounts, or None when it names no currency."""
    found: list[str] = []
    kept: list[str] = []
    for char in text:
        if unicodedata.category(char) == "Sc":
            found.append(char)
            kept.append(" ")
        else:
            kept.append(char)
    plain = "".join(kept)

    def read_off(match: re.Match[str]) -> str:
        word = match.group(1)
        before = plain[: match.start()].rstrip()
        after = plain[match.end() :].lstrip()
        beside_a_number = (before and _NUMBER.match(before[-1])) or (after and _NUMBER.match(after[0]))
        if beside_a_number and _money_word(word, langs):
            found.append(word)
            return " "
        return match.group(0)

    plain = _WORD.sub(read_off, plain)
    if not found:
        return None
    if not set.intersection(*(_codes(f, langs) for f in found)):
        raise MathError(
            f"{' and '.join(sorted(set(found)))} are two currencies: there are no exchange rates here. "
            "Calculate each currency's amounts apart"
        )
    return Money(re.sub(r"\s+", " ", plain).strip(), found[0])


def _money_word(word: str, langs: tuple[str, ...]) -> bool:
    lowered = word.lower()
    return is_currency(lowered) or lowered in _by_word(langs)


def _codes(said: str, langs: tuple[str, ...]) -> set[str]:
    """The currencies ``said`` may name ("€", "euro", "euros" and "EUR" name one; "dollars" many):
    two amounts are in one currency when some currency is named by both."""
    lowered = said.lower()
    return set(_by_word(langs).get(lowered, {lowered}))


@functools.lru_cache(maxsize=8)
def _by_word(langs: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Each currency's ISO code, sign, and name words (singular and plural) -> the ISO codes they name."""
    from babel import Locale, UnknownLocaleError
    from babel.numbers import get_currency_name, get_currency_symbol

    by_word: dict[str, set[str]] = {}
    for lang in (*langs, "en"):
        try:
            locale = Locale.parse(lang.replace("-", "_"))
        except (UnknownLocaleError, ValueError):
            continue
        for listed in locale.currencies:
            code = str(listed)
            by_word.setdefault(code.lower(), set()).add(code)
            symbol = get_currency_symbol(code, locale=locale)
            if len(symbol) == 1:
                by_word.setdefault(symbol, set()).add(code)
            for count in (1, 2):
                name = get_currency_name(code, count=count, locale=locale).split("(")[0]
                words = name.replace("-", " ").lower().split()
                if words:
                    # The name's noun: last in English and German ("US dollars", "US-Dollar"), first
                    # in the Romance languages ("dólares americanos", "reais brasileiros").
                    noun = words[-1] if locale.language in ("en", "de") else words[0]
                    by_word.setdefault(noun, set()).add(code)
    return {word: frozenset(codes) for word, codes in by_word.items()}
