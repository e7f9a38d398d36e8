"""What a voice can read: an answer's text made speakable, for the sentences a TTS says.

Models write for a screen: markdown (``**bold**``, ``# headings``, ``- bullets``, links, tables),
LaTeX (``$2 + 2 = 4$``, ``\\frac{a}{b}``, ``\\times``), code fences and inline code, JSON. A TTS
reads such text symbol by symbol ("asterisk asterisk four"), or speaks each line of a fence as
an utterance of its own. ``stream_sentences`` (the voice path: ovos-persona speaks what it
yields) passes its text through :class:`SpeechBlocks` before the sentence splitter and every
sentence through :func:`speakable` after it; ``continue_chat`` and ``stream_tokens`` keep the
text as the model wrote it, for hosts that show it (persona-server, the CLI, a chat window).

- A block that spans lines is decided whole, so it is never spoken as several utterances: a code
  fence is dropped (code is read, not heard); a display formula (``$$...$$``, ``\\[...\\]``) and a
  JSON object are said as one piece (a formula by its result where it gives one, an object as its
  keys and values).
- Inside a sentence: emphasis, heading, bullet, quote and table marks and tags are dropped, a
  link is its text, inline code its content; LaTeX commands become the symbols they stand for
  (``\\times`` -> ×, ``x^2`` -> x²), which a TTS reads in its own language; a formula that
  gives its result (``250 + 250 * 0.19 = 297.5``) is said as the result; a number in scientific
  notation (``9.0e-06``) is written out (0.000009), and a decimal with five digits or more after
  its point is said rounded (62.1371192237 -> 62.14). Symbols and units a TTS reads (%, €, °C) stay.

Nothing here is a rule about words: only marks and symbols are read, so it holds for every
language. Linear in the text: a held block is scanned once as it grows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ovos_agentic_loop._text.sentences import SentenceSplitter
from ovos_agentic_loop._text.values import plain_number

__all__ = ["MAX_BLOCK_CHARS", "SpeechBlocks", "formula", "speakable", "spoken", "spoken_sentences"]

#: A block (fence, formula, JSON object) longer than this is not held further: what a fence
#: still holds is dropped, a formula or object is passed on as text for the sentence clean-up.
MAX_BLOCK_CHARS = 4000

# Where a block may start; the longest openers first.
_OPENERS = ("```", "$$", "\\[", "{")
_CLOSERS = {"```": "```", "$$": "$$", "\\[": "\\]"}


class SpeechBlocks:
    """Feed an answer's deltas; get back its text with every multi-line block decided whole.

    Each character is looked at a bounded number of times: an open block's end is searched for
    from where the last search stopped."""

    def __init__(self) -> None:
        self._pending = ""  # text not decided yet: an open block (from its opener), or a possible opener
        self._open = ""  # the opener of the block being held ("" when none is)
        self._scan = 0  # where the search for the open block's end goes on
        self._depth, self._in_string, self._escaped = 0, False, False  # a "{" block's scan

    def feed(self, delta: str) -> str:
        self._pending += delta
        out: list[str] = []
        while self._pending:
            if not self._open:
                text = self._pending
                at, opener = _next_opener(text)
                if at < 0:
                    keep = _partial_opener(text)
                    out.append(text[: len(text) - keep])
                    self._pending = text[len(text) - keep :]
                    break
                out.append(text[:at])
                self._pending, self._open, self._scan = text[at:], opener, len(opener)
                self._depth, self._in_string, self._escaped = 0, False, False
                if opener == "{":
                    self._scan = 0
            end = self._end()
            if end is None:
                if len(self._pending) > MAX_BLOCK_CHARS:
                    out.append(self._give_up())
                    continue
                break
            out.append(_say_block(self._pending[:end], self._open))
            self._pending, self._open = self._pending[end:], ""
        return "".join(out)

    def flush(self) -> str:
        """The end of the answer: a block left open is said as it stands (a fence is dropped)."""
        rest, opener = self._pending, self._open
        self._pending, self._open = "", ""
        return "\n" if opener == "```" else rest

    def _end(self) -> int | None:
        """Where the open block ends (exclusive), or None while it is still open."""
        text = self._pending
        if self._open != "{":
            closer = _CLOSERS[self._open]
            close = text.find(closer, max(len(self._open), self._scan - len(closer) + 1))
            self._scan = len(text)
            return None if close < 0 else close + len(closer)
        depth, in_string, escaped = self._depth, self._in_string, self._escaped
        for i in range(self._scan, len(text)):
            char = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
                if depth == 0:
                    return i + 1
        self._scan, self._depth, self._in_string, self._escaped = len(text), depth, in_string, escaped
        return None

    def _give_up(self) -> str:
        """A block too long to hold: a fence's code so far is dropped (the fence stays open, its
        closing mark still ends it); anything else is passed on as text, for the sentence clean-up."""
        if self._open == "```":
            self._pending, self._scan = "```", 3
            return ""
        text, self._pending, self._open = self._pending, "", ""
        return text


def _next_opener(text: str) -> tuple[int, str]:
    best, found = -1, ""
    for opener in _OPENERS:
        at = text.find(opener)
        if at >= 0 and (best < 0 or at < best):
            best, found = at, opener
    return best, found


def _partial_opener(text: str) -> int:
    """How many characters at the end of ``text`` may begin an opener (held for the next delta)."""
    for size in (2, 1):
        tail = text[-size:]
        if len(tail) == size and any(o.startswith(tail) and o != tail for o in _OPENERS):
            return size
    return 0


def _say_block(block: str, opener: str) -> str:
    if opener == "```":
        return "\n"  # code is read, not heard; the text on either side stays apart
    if opener == "{":
        try:
            value = json.loads(block)
        except ValueError:
            return block  # "{a, b}": prose in braces; the sentence clean-up drops the braces
        return " ".join(_said_value(value).split())
    inner = block[len(opener) : -len(_CLOSERS[opener])]
    return f"\n{formula(' '.join(inner.split()))}\n"  # a formula of its own line is said as one


def _said_value(value: Any) -> str:
    """A JSON value as words: an object's keys and values in order, a list's items."""
    if isinstance(value, dict):
        return ", ".join(f"{_key(k)} {_said_value(v)}".strip() for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_said_value(v) for v in value)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return plain_number(value)
    return str(value)


def _key(key: str) -> str:
    return " ".join(re.split(r"[_\-]+", key)).strip()


# -- numbers ---------------------------------------------------------------------------------------
_SCIENTIFIC = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)[eE]([+-]?\d{1,2})(?![\w.])")
# A decimal with five digits or more after its point ("62.1371192237 miles", a converter's result
# copied whole): a TTS reads each digit; said rounded (not part of a dotted run such as an address).
# A decimal comma too ("62,1371192237 Meilen"): a comma before five digits or more is no
# thousands separator.
_LONG_DECIMAL = re.compile(r"(?<![\w.,])(\d+)([.,])(\d{5,})(?!\d)(?![.,]\d)")
_CENTS = Decimal("0.01")


def _rounded(number: str) -> str:
    """A long decimal as a voice says it: two decimals, or three significant digits below 1
    (0.000009 stays), trailing zeros dropped (39.9999673716 -> 40)."""
    value = Decimal(number)
    shown = value.quantize(_CENTS, rounding=ROUND_HALF_UP) if value >= 1 else Decimal(f"{value:.3g}")
    return plain_number(str(shown))


# -- formulas --------------------------------------------------------------------------------------
_LATEX_SYMBOLS = {
    "times": "×",
    "cdot": "×",
    "div": "÷",
    "pm": "±",
    "mp": "∓",
    "approx": "≈",
    "neq": "≠",
    "ne": "≠",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "infty": "∞",
    "pi": "π",
    "degree": "°",
    "circ": "°",
    "%": "%",
    "$": "$",
    "€": "€",
    ",": " ",
    ";": " ",
    "quad": " ",
    "qquad": " ",
    "left": "",
    "right": "",
    "displaystyle": "",
}
_SUPERSCRIPT = str.maketrans("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_WRAPPED = re.compile(
    r"\\(?:text|mathrm|mathbf|mathit|operatorname|textbf|textit|mbox|boxed|fbox)\s*\{([^{}]*)\}"
)
_COMMAND = re.compile(r"\\([A-Za-z]+|[%$€,;])")
_POWER = re.compile(r"\^\s*(?:\{([^{}]*)\}|([0-9]+|[A-Za-z+\-]))")
_INDEX = re.compile(r"_\{([^{}]*)\}")
# A formula's tokens, read in one pass (no backtracking whatever the text): a number (with a
# currency before or % after it), an operator, a bracket, "=", a word, a space, anything else.
_FORMULA_TOKEN = re.compile(r"\s+|[€$£]?\d+(?:[.,]\d+)*%?|[-+×*/÷·^]|[()\[\]]|=|[^\W\d_]+|.")
_UNIT_CHARS = 12  # a word after a number is its unit ("250 Euro") up to this length


def formula(text: str) -> str:
    """A formula as a voice can say it: LaTeX made symbols, and its result where it gives one."""
    text = _latex(text)
    return _results(text)


def _latex(text: str) -> str:
    if "\\" not in text and "^" not in text and "{" not in text:
        return text
    for _ in range(3):  # nested \frac{\frac{..}{..}}{..}: the innermost first
        text = _FRAC.sub(r"\1/\2", text)
        text = _SQRT.sub(r"√\1", text)
        text = _WRAPPED.sub(r"\1", text)
    text = _COMMAND.sub(lambda m: _LATEX_SYMBOLS.get(m.group(1), m.group(1)), text)
    text = _POWER.sub(_power, text)
    text = _INDEX.sub(r"\1", text)
    return text.replace("{", "").replace("}", "")


def _power(match: re.Match[str]) -> str:
    exponent = (match.group(1) or match.group(2) or "").replace(" ", "")
    if exponent in ("\\circ", "°", "circ"):
        return "°"
    raised = exponent.translate(_SUPERSCRIPT)
    if all(c in "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ" for c in raised):
        return raised
    return f" {exponent}"  # no superscript for it: the exponent follows, as said


def _results(text: str) -> str:
    """``250 Euro + (250 Euro * 0.19) = 297.50 Euro`` -> ``297.50 Euro``: where the text gives the
    result, the voice says it and not the sum that led there. Read token by token: before an "=" that
    a number follows, the run of numbers (with their units), operators and brackets, holding at
    least two numbers and an operator, is the formula."""
    if "=" not in text:
        return text
    tokens = [m.group() for m in _FORMULA_TOKEN.finditer(text)]
    keep = [True] * len(tokens)
    for at, token in enumerate(tokens):
        if token != "=" or not _number_follows(tokens, at + 1):
            continue
        start, numbers, operators = _formula_before(tokens, at)
        if numbers >= 2 and operators >= 1:
            end = at + 1
            while end < len(tokens) and tokens[end].isspace():
                end += 1
            for i in range(start, end):
                keep[i] = False
    return "".join(t for t, kept in zip(tokens, keep, strict=True) if kept)


def _kind(token: str) -> str:
    if token[0].isdigit() or (token[0] in "€$£" and len(token) > 1):
        return "number"
    if token in ("-", "+", "×", "*", "/", "÷", "·", "^", "x"):
        return "operator"
    if token in "()[]":
        return "bracket"
    if token.isspace():
        return "space"
    return "word" if token.isalpha() else "other"


def _number_follows(tokens: list[str], at: int) -> bool:
    while at < len(tokens) and tokens[at].isspace():
        at += 1
    return at < len(tokens) and (_kind(tokens[at]) == "number" or tokens[at] == "-")


def _formula_before(tokens: list[str], equals: int) -> tuple[int, int, int]:
    """Where the formula that ends at the "=" at ``equals`` starts, and its numbers and operators."""
    start, numbers, operators = equals, 0, 0
    at = equals - 1
    while at >= 0:
        kind = _kind(tokens[at])
        if kind == "word" and tokens[at] != "x":
            before = at - 1
            while before >= 0 and tokens[before].isspace():
                before -= 1
            if len(tokens[at]) > _UNIT_CHARS or before < 0 or _kind(tokens[before]) != "number":
                break  # a word that is no number's unit: the formula starts after it
        elif kind not in ("number", "operator", "bracket", "space"):
            break
        if kind == "number":
            numbers += 1
            start = at
        elif kind == "operator" and numbers:
            operators += 1
        elif tokens[at] in "([":
            start = at
        at -= 1
    return start, numbers, operators


# -- a sentence ------------------------------------------------------------------------------------
_FENCE_MARK = re.compile(r"`{3,}[\w+-]*")
_INLINE_CODE = re.compile(r"`+([^`]*)`+")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*\)")
_INLINE_MATH = re.compile(r"(?<![\w$])\$(?=\S)([^$\n]{1,400}?)(?<=\S)\$(?![\w$])|\\\((.{1,400}?)\\\)")
_DISPLAY_MATH = re.compile(r"\$\$(.{1,400}?)\$\$|\\\[(.{1,400}?)\\\]")
_LINE_MARKS = re.compile(r"^(?:\s*(?:#{1,6}|>|[-*+•]|\|)(?=\s|$))+\s*")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_RULE_LINE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_STRONG = re.compile(r"\*\*+|__+|~~")
_EMPHASIS = re.compile(r"(?<![\w*])[*_](?=[^\s*_])|(?<=[^\s*_])[*_](?![\w*])")
_TIMES = re.compile(r"(?<=\d)\s*\*\s*(?=\d)")
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]{0,200})?/?>")
_TOOL_MARK = re.compile(r"\[/?TOOL_CALLS\]|</?tool_call>|</?tool_response>", re.IGNORECASE)
_BRACKETS = re.compile(r"[{}\[\]`]")
_CELL = re.compile(r"\s*\|\s*")
_SPACES = re.compile(r"[ \t]+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")


def speakable(sentence: str) -> str:
    """One sentence as a voice can read it ("" when nothing of it can be said)."""
    text = sentence.strip()
    if not text or _TABLE_RULE.match(text) or _RULE_LINE.match(text):
        return ""
    text = _TOOL_MARK.sub("", text)
    text = _FENCE_MARK.sub("", text)
    text = _DISPLAY_MATH.sub(lambda m: formula(m.group(1) or m.group(2) or ""), text)
    text = _INLINE_MATH.sub(lambda m: formula(m.group(1) or m.group(2) or ""), text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _IMAGE_OR_LINK.sub(r"\1", text)
    if text.startswith("|") or text.endswith("|"):  # a table row: its cells, one after the other
        text = ", ".join(c for c in _CELL.split(text.strip("| ")) if c)
    text = _LINE_MARKS.sub("", text)
    text = _TAG.sub("", text)
    text = _STRONG.sub("", text)
    text = _TIMES.sub(" × ", text)
    text = _EMPHASIS.sub("", text)
    text = _latex(text) if "\\" in text else text
    text = _results(text)
    text = _SCIENTIFIC.sub(lambda m: plain_number(f"{m.group(1)}e{m.group(2)}"), text)
    text = _LONG_DECIMAL.sub(lambda m: _rounded(f"{m.group(1)}.{m.group(3)}").replace(".", m.group(2)), text)
    text = _BRACKETS.sub("", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", text))
    text = text.strip()
    return "" if not any(c.isalnum() for c in text) else text


def spoken(deltas: Iterable[str], cut_off: Callable[[], bool] = lambda: False) -> Iterator[str]:
    """The sentences a voice says of an answer streamed in ``deltas``, each as soon as it is
    complete (``stream_sentences``): blocks decided whole, then split, then each made speakable.
    When ``deltas`` end and ``cut_off()`` holds (the user stopped the turn mid-sentence), the text
    not yet said is dropped: half a sentence is not said after a stop."""
    blocks, splitter = SpeechBlocks(), SentenceSplitter()
    for delta in deltas:
        yield from _said(splitter.feed(blocks.feed(delta)))
    if cut_off():
        return
    yield from _said(splitter.feed(blocks.flush()) + splitter.flush())


def _said(sentences: list[str]) -> Iterator[str]:
    for sentence in sentences:
        if text := speakable(sentence):
            yield text


def spoken_sentences(text: str) -> list[str]:
    """The sentences a voice says of a finished ``text``: what ``stream_sentences`` yields for it."""
    return list(spoken([text]))
