"""Arithmetic said in words, read into the calculator's syntax ("seven minus twelve" -> "7 - 12").

Small models copy the user's words into ``expression`` ("fifteen percent of two thousand three
hundred and fifty", "minus twelve", "dreihundert mal drei", "quinze por cento de trezentos"). The
NUMBERS are read by the OVOS ecosystem's own multilingual parser, ovos-number-parser; this module
only knows the OPERATOR words of each language (ovos-number-parser has none), and splits the text
at them first: given a whole sentence the parser reads "seven minus twelve" as -12, dropping the 7,
and Portuguese "por cento" as "por 100".

A phrase between two operators must read as ONE number; anything else (a unit, a currency word,
three numbers in a row) is refused with the words that were not understood, so nothing is guessed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from ovos_utils.log import LOG

from ovos_agentic_loop_toolboxes._core.language import READING_LANGS
from ovos_agentic_loop_toolboxes._core.numbers import NUMBER, read_number

__all__ = ["SpokenReading", "amount_and_unit", "number_argument", "numbers_argument", "read_spoken"]

# Operator words, longest first within a language when matched. The targets are calculator
# syntax: "sqrt"/"cbrt" take the number that follows them as their argument.
_OPERATORS: dict[str, dict[str, str]] = {
    "en": {
        "average of": "mean", "the average of": "mean", "mean of": "mean", "the mean of": "mean",
        "sum of": "sum", "the sum of": "sum", "total of": "sum", "the total of": "sum",
        "median of": "median", "the median of": "median",
        "equals": "=", "is equal to": "=",
        "plus": "+", "added to": "+", "minus": "-", "negative": "-", "take away": "-",
        "times": "*", "multiplied by": "*", "divided by": "/", "over": "/", "modulo": "%", "mod": "%",
        "percent": "%", "per cent": "%", "of": "*", "to the power of": "^", "to the power": "^",
        "raised to the power of": "^", "raised to": "^", "squared": "^2", "cubed": "^3",
        "square root of": "sqrt", "the square root of": "sqrt", "cube root of": "cbrt", "the": "",
    },
    "pt": {
        "média de": "mean", "a média de": "mean", "soma de": "sum", "a soma de": "sum",
        "mediana de": "median", "a mediana de": "median",
        "é igual a": "=", "igual a": "=",
        "mais": "+", "menos": "-", "vezes": "*", "multiplicado por": "*", "dividido por": "/",
        "a dividir por": "/", "por cento": "%", "de": "*", "do": "*", "da": "*", "elevado a": "^",
        "elevado à": "^", "ao quadrado": "^2", "ao cubo": "^3", "raiz quadrada de": "sqrt",
        "a raiz quadrada de": "sqrt", "raiz cúbica de": "cbrt",
    },
    "es": {
        "promedio de": "mean", "el promedio de": "mean", "media de": "mean", "la media de": "mean",
        "suma de": "sum", "la suma de": "sum", "mediana de": "median", "la mediana de": "median",
        "es igual a": "=", "igual a": "=",
        "más": "+", "mas": "+", "menos": "-", "por ciento": "%", "multiplicado por": "*", "por": "*",
        "veces": "*", "dividido por": "/", "dividido entre": "/", "entre": "/", "de": "*", "del": "*",
        "elevado a": "^", "al cuadrado": "^2", "al cubo": "^3", "raíz cuadrada de": "sqrt",
        "la raíz cuadrada de": "sqrt", "raíz cúbica de": "cbrt",
    },
    "de": {
        "durchschnitt von": "mean", "der durchschnitt von": "mean", "mittelwert von": "mean",
        "summe von": "sum", "die summe von": "sum", "median von": "median", "der median von": "median",
        "ist gleich": "=", "gleich": "=",
        "plus": "+", "minus": "-", "weniger": "-", "mal": "*", "multipliziert mit": "*",
        "geteilt durch": "/", "dividiert durch": "/", "durch": "/", "prozent": "%", "von": "*",
        "hoch": "^", "zum quadrat": "^2", "quadrat": "^2", "hoch drei": "^3", "wurzel aus": "sqrt",
        "quadratwurzel aus": "sqrt", "quadratwurzel von": "sqrt", "die wurzel aus": "sqrt",
    },
    "fr": {
        "moyenne de": "mean", "la moyenne de": "mean", "somme de": "sum", "la somme de": "sum",
        "médiane de": "median", "la médiane de": "median",
        "est égal à": "=", "égale": "=", "égal à": "=",
        "plus": "+", "moins": "-", "fois": "*", "multiplié par": "*", "divisé par": "/", "sur": "/",
        "pour cent": "%", "pourcent": "%", "de": "*", "des": "*", "à la puissance": "^",
        "puissance": "^", "au carré": "^2", "au cube": "^3", "racine carrée de": "sqrt",
        "la racine carrée de": "sqrt",
    },
    "it": {
        "media di": "mean", "la media di": "mean", "somma di": "sum", "la somma di": "sum",
        "mediana di": "median", "la mediana di": "median",
        "è uguale a": "=", "uguale a": "=",
        "più": "+", "meno": "-", "per cento": "%", "moltiplicato per": "*", "per": "*", "volte": "*",
        "diviso per": "/", "diviso": "/", "di": "*", "elevato a": "^", "alla": "^",
        "al quadrato": "^2", "al cubo": "^3", "radice quadrata di": "sqrt", "la radice quadrata di": "sqrt",
    },
    "nl": {
        "gemiddelde van": "mean", "het gemiddelde van": "mean", "som van": "sum", "de som van": "sum",
        "mediaan van": "median",
        "is gelijk aan": "=", "gelijk aan": "=",
        "plus": "+", "min": "-", "keer": "*", "maal": "*", "gedeeld door": "/", "procent": "%",
        "van": "*", "tot de macht": "^", "kwadraat": "^2", "wortel van": "sqrt",
    },
}  # fmt: skip
_SYMBOLS = {"+", "-", "*", "**", "/", "//", "%", "^", "^2", "^3", "(", ")", ",", "[", "]", "="}
_PREFIX_FUNCTIONS = {"sqrt", "cbrt"}
# "the average of eleven, nineteen and thirty": the numbers that follow, as one list.
_AGGREGATE_TARGETS = {"mean", "sum", "median"}
# The word between the last two numbers of a list ("eleven, nineteen and thirty").
_AND = {"en": "and", "pt": "e", "es": "y", "de": "und", "fr": "et", "it": "e", "nl": "en"}
_AND_SEPARATES = {"de", "nl"}
_SYMBOL_CHARS = re.compile(r"(\*\*|//|[+\-*/%^(),\[\]=×÷·−–])")
_CURRENCY = re.compile(r"[$€£¥]")
_AMOUNT_TOUCHING_UNIT = re.compile(r"([+-]?\d+(?:\.\d+)?)\s*([^\d\s.,+-].*)")
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
# One number as _read_in writes it: "- 12", "(2/3)", "- (1/2)".
_SIGNED_NUMBER = re.compile(r"-?\s*(?:\d+(?:\.\d+)?|\(\d+/\d+\))")


@dataclass(frozen=True)
class SpokenReading:
    """Calculator text read from words, or the words that could not be read (``unread``)."""

    text: str
    lang: str
    unread: tuple[str, ...] = ()
    words_read: int = 0  # number words and operator words understood
    missing: tuple[str, ...] = ()  # functions said without the numbers they take ("the square root of")

    @property
    def complete(self) -> bool:
        return not self.unread and not self.missing


def read_spoken(text: str, langs: Iterable[str], keep: frozenset[str] = frozenset()) -> SpokenReading:
    """The best reading of ``text`` over ``langs`` (tried in order; the first complete one wins).

    ``keep``: names written as they are (the calculator's functions and constants, an equation's
    unknown). When no language reads everything, the reading with the fewest unread words is
    returned, so the refusal can name them.
    """
    best: SpokenReading | None = None
    for lang in langs:
        reading = _read_in(text, lang, keep)
        if reading.complete:
            return reading
        if best is None or _shortfall(reading) < _shortfall(best):
            best = reading
    assert best is not None, "langs must not be empty"
    return best


def _shortfall(reading: SpokenReading) -> tuple[int, int]:
    """Fewer words left unread first, then more words understood."""
    return len(reading.unread) + len(reading.missing), -reading.words_read


# Calculations said verb first, with the operator word after the first number ("divide 500 by
# four", "add twenty to that"): said again operator in the middle, as the readers above take them.
# A follow-up on the last result is sent this way ("divide (125 + 375) by 4").
_VERB_FIRST: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        (r"divide\s+(?P<a>.+?)\s+by\s+(?P<b>.+)", r"\g<a> divided by \g<b>"),
        (r"multiply\s+(?P<a>.+?)\s+by\s+(?P<b>.+)", r"\g<a> times \g<b>"),
        (r"add\s+(?P<b>.+?)\s+to\s+(?P<a>.+)", r"\g<a> plus \g<b>"),
        (r"(?:subtract|take)\s+(?P<b>.+?)\s+(?:from|off)\s+(?P<a>.+)", r"\g<a> minus \g<b>"),
        (r"double\s+(?P<a>.+)", r"\g<a> times 2"),
        (r"halve\s+(?P<a>.+)", r"\g<a> divided by 2"),
    ),
    "pt": (
        (r"divid[ea]\s+(?P<a>.+?)\s+por\s+(?P<b>.+)", r"\g<a> dividido por \g<b>"),
        (r"multiplic[ae]\s+(?P<a>.+?)\s+por\s+(?P<b>.+)", r"\g<a> vezes \g<b>"),
    ),
    "es": (
        (r"divid[ea]\s+(?P<a>.+?)\s+(?:por|entre)\s+(?P<b>.+)", r"\g<a> dividido por \g<b>"),
        (r"multiplic[ae]\s+(?P<a>.+?)\s+por\s+(?P<b>.+)", r"\g<a> multiplicado por \g<b>"),
    ),
    "de": (
        (r"teile\s+(?P<a>.+?)\s+durch\s+(?P<b>.+)", r"\g<a> geteilt durch \g<b>"),
        (r"multipliziere\s+(?P<a>.+?)\s+mit\s+(?P<b>.+)", r"\g<a> mal \g<b>"),
    ),
}


def _verb_last(text: str, lang: str) -> str:
    """``text`` said verb first, said with its operator in the middle, the whole of it or the whole
    of a part in parentheses ("(divide (125 + 375) by 4) times 3"); as it was otherwise."""
    for whole, operator_between in _verb_forms(lang.split("-")[0].lower()):
        text = whole.sub(operator_between, text)
    return text


@functools.lru_cache(maxsize=16)
def _verb_forms(language: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The verb-first forms of ``language``, compiled once: each matches a whole text or a whole
    part in parentheses (its last group ends at the text's end or at the closing parenthesis)."""
    return tuple(
        (
            re.compile(rf"(?:^|(?<=\())\s*{pattern.replace('.+)', '.+?)')}(?=\s*\)|\s*$)", re.IGNORECASE),
            operator_between,
        )
        for pattern, operator_between in _VERB_FIRST.get(language, ())
    )


def _read_in(text: str, lang: str, keep: frozenset[str]) -> SpokenReading:
    text = _verb_last(text, lang)
    tokens, operator_words = _tokens(text, lang)
    out: list[str] = []
    unread: list[str] = []
    missing: list[str] = []
    numbers = 0
    pending_function: str | None = None
    # "average of 11, 19 and 30": its name, the numbers so far, and whether a phrase went unread.
    aggregate: tuple[str, list[str], list[str]] | None = None
    for kind, value in [*tokens, ("end", "")]:
        if aggregate is not None:
            if kind == "op" and value == ",":
                continue
            if kind == "words":
                listed = _read_list(value, lang)
                if listed is None:
                    unread.append(value)
                    aggregate[2].append(value)
                else:
                    aggregate[1].extend(listed)
                    numbers += len(listed)
                continue
            name, listed, skipped = aggregate
            out.append(f"{name}([{', '.join(listed)}])" if listed else "")
            if not listed and not skipped:
                missing.append(name)
            aggregate = None
        if kind == "end":
            break
        if kind == "op":
            if value in _PREFIX_FUNCTIONS:
                pending_function = value
            elif value in _AGGREGATE_TARGETS:
                aggregate = (value, [], [])
            else:
                out.append(value)
            continue
        read = _read_phrase(value, lang, keep)
        if read is None:
            unread.append(value)
            continue
        if read != value:
            numbers += 1
        if pending_function is not None:
            read, pending_function = f"{pending_function}({read})", None
        out.append(read)
    if pending_function is not None:
        missing.append(pending_function)
    joined = " ".join(part for part in out if part)
    return SpokenReading(joined, lang, tuple(unread), numbers + operator_words, tuple(missing))


def _read_list(phrase: str, lang: str) -> list[str] | None:
    """The numbers of "eleven nineteen and thirty" (the number parser reads them apart); None
    when anything else is in the phrase."""
    from ovos_number_parser import numbers_to_digits

    try:
        digits = numbers_to_digits(phrase, lang).split()
    except (NotImplementedError, ValueError, IndexError, KeyError) as exc:
        LOG.debug(f"ovos-number-parser could not read {phrase!r} in {lang}: {exc}")
        return None
    base = lang.split("-")[0].lower()
    joiner = _AND.get(base)
    if base in _AND_SEPARATES and joiner and f" {joiner} " in f" {phrase} ":
        # German and Dutch glue "und"/"en" inside a number (neunzehn, neunundvierzig): spaced, it
        # separates two numbers, which the parser would add up ("neunzehn und dreißig" as 49).
        parts = [_read_list(part, lang) for part in re.split(rf"\s+{joiner}\s+", phrase)]
        return None if any(p is None for p in parts) else [n for p in parts for n in p or []]
    if joiner and f" {joiner} " in f" {phrase} " and base not in _AND_SEPARATES:
        groups = _and_groups(re.split(rf"\s+{joiner}\s+", phrase), joiner, lang)
        if groups is not None and len(groups) > 1:
            parts = [_read_list(group, lang) for group in groups]
            return None if any(p is None for p in parts) else [n for p in parts for n in p or []]
    single = read_number(phrase, lang)
    if single is not None:
        return [_as_calculator_text(single)]
    listed = [word for word in digits if word != joiner]
    return listed if listed and all(NUMBER.fullmatch(word) for word in listed) else None


def _and_groups(parts: list[str], joiner: str, lang: str) -> list[str] | None:
    """Parts split at "and" joined back where "and" is inside a number: it only ever joins a
    smaller part after a larger one ("two hundred and five", "treinta y nueve"); before a part as
    large or larger ("nineteen and thirty") it separates two numbers."""
    groups: list[str] = []
    last: float | None = None
    for part in parts:
        read = _read_list(part, lang)
        if read is None:
            return None
        first = float(Fraction(read[0].strip("()")))
        if groups and last is not None and first < last:
            groups[-1] = f"{groups[-1]} {joiner} {part}"
        else:
            groups.append(part)
        last = float(Fraction(read[-1].strip("()")))
    return groups


def _tokens(text: str, lang: str) -> tuple[list[tuple[str, str]], int]:
    """("op", calculator symbol) and ("words", phrase) tokens, and how many operator words there were."""
    lowered = _CURRENCY.sub(" ", " ".join(text.lower().split()))
    # "twenty-five", "dix-huit": a hyphen between letters is inside a number word, not a minus.
    lowered = _WORD_HYPHEN.sub(" ", lowered)
    pattern = _operator_pattern(lang.split("-")[0].lower())
    tokens: list[tuple[str, str]] = []
    operator_words = 0
    position = 0
    for match in pattern.finditer(lowered) if pattern is not None else ():
        tokens.extend(_symbol_split(lowered[position : match.start()]))
        target = _OPERATORS[lang.split("-")[0].lower()][match.group(1)]
        operator_words += 1
        if target:
            tokens.append(("op", target))
        position = match.end()
    tokens.extend(_symbol_split(lowered[position:]))
    return tokens, operator_words


def _symbol_split(chunk: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for part in _SYMBOL_CHARS.split(chunk):
        part = part.strip()
        if not part:
            continue
        symbol = {"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-"}.get(part, part)
        found.append(("op", symbol) if symbol in _SYMBOLS else ("words", part))
    return found


@functools.lru_cache(maxsize=16)
def _operator_pattern(base: str) -> re.Pattern[str] | None:
    words = _OPERATORS.get(base)
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)({alternatives})(?!\w)")


def _read_phrase(phrase: str, lang: str, keep: frozenset[str]) -> str | None:
    """Calculator text for one phrase between operators, or None when it is not one number."""
    if phrase in keep or NUMBER.fullmatch(phrase):
        return phrase
    number = read_number(phrase, lang)
    if number is None and " " in phrase:
        # "two x", "three y squared": a number times an equation's unknown.
        head, last = phrase.rsplit(" ", 1)
        count = read_number(head, lang) if last in keep and len(last) == 1 else None
        return None if count is None else f"{_as_calculator_text(count)} * {last}"
    return None if number is None else _as_calculator_text(number)


def _as_calculator_text(number: Fraction | str) -> str:
    if isinstance(number, str):
        return number
    if number.denominator == 1:
        return str(number.numerator)
    return f"({number.numerator}/{number.denominator})"


def number_argument(value: object, what: str, example: str) -> object:
    """A numeric argument given as words ("minus five", "zweihundert") or as text with digits,
    as a float; anything else is left for pydantic to judge. Text that is not one number is
    refused with what to send instead."""
    if not isinstance(value, str):
        return value
    text = " ".join(value.split())
    if NUMBER.fullmatch(text.replace(",", "")):
        return float(text.replace(",", ""))
    for lang in READING_LANGS.get():
        reading = _read_in(text, lang, frozenset())
        if reading.complete and _SIGNED_NUMBER.fullmatch(reading.text):
            return float(Fraction(re.sub(r"[\s()]", "", reading.text)))
    raise ValueError(f"{what} {value!r} is not one number: send it as a number, such as {example}")


def numbers_argument(items: list[object], example: str) -> list[object]:
    """A list argument whose items may be words, one of them possibly several numbers
    ("nineteen and thirty", the last two of a spoken list): each read as :func:`number_argument`."""
    found: list[object] = []
    for item in items:
        if isinstance(item, str) and re.search(r"[^\W\d_]", item):
            listed = next((got for lang in READING_LANGS.get() if (got := _read_list(item, lang))), None)
            if listed is not None:
                found.extend(float(Fraction(number.strip("()"))) for number in listed)
                continue
        found.append(number_argument(item, "the number", example))
    return found


def amount_and_unit(text: str) -> tuple[float, str] | None:
    """``("minus five celsius")`` -> ``(-5.0, "celsius")``: an amount written into a unit argument;
    ``"-5°C"`` too (a number touching its unit)."""
    touching = _AMOUNT_TOUCHING_UNIT.fullmatch(text.strip())
    if touching is not None:
        return float(touching[1]), touching[2]
    words = text.split()
    for cut in range(len(words) - 1, 0, -1):
        try:
            amount = number_argument(" ".join(words[:cut]), "value", "")
        except ValueError:
            continue
        if isinstance(amount, float):
            return amount, " ".join(words[cut:])
    return None
