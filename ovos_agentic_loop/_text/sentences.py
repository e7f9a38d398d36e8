"""Incremental sentence splitting for speaking an answer while it is still generated.

Feed text deltas as they arrive and get complete sentences out; call ``flush`` at
the end for the remainder::

    splitter = SentenceSplitter()
    for delta in deltas:
        yield from splitter.feed(delta)
    yield from splitter.flush()

A boundary is end punctuation followed by whitespace and then a character that
does not continue the sentence, or a line break. The splitter waits for that next
character before deciding, which is what keeps "Dr. Smith", "e.g. this", "3.14"
and "wait... what" in one piece without any look-back once a sentence is out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = ["ABBREVIATIONS", "SentenceSplitter", "split_sentences", "stream_sentences"]

# Words that end with a period without ending the sentence (compared lower-case, no dot).
_ABBREVIATION_TEXT = """
    mr mrs ms dr prof sr jr st mt vs etc e.g i.e eg ie fig no nr approx dept est inc ltd co
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
"""
ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())

# The text is read as runs of spaces/tabs/line breaks and runs of anything else; a boundary can only
# sit in a run of the first kind, decided when the next character arrives. Each character is looked
# at a bounded number of times, so splitting is linear in the text however it is cut into deltas.
_PIECES = re.compile(r"[ \t\n]+|[^ \t\n]+")
_CLOSERS = "\"'”’)]"
_END_PUNCT = ".!?…"
_WORD_BEFORE = re.compile(r"([\w.]+)[.…]+$")
#: Characters of the sentence so far kept for looking back at the word before a full stop.
_LOOK_BACK = 256


class SentenceSplitter:
    """Turns a stream of text deltas into complete, stripped sentences."""

    def __init__(self, abbreviations: Iterable[str] = ABBREVIATIONS) -> None:
        self._abbreviations = frozenset(a.lower().rstrip(".") for a in abbreviations)
        self._pieces: list[str] = []  # the sentence so far (its text, whitespace included)
        self._recent = ""  # its last characters, for the look-back
        self._gap: list[str] = []  # a whitespace run not yet followed by anything
        self._words = 0  # runs of non-whitespace in the sentence so far

    def feed(self, delta: str) -> list[str]:
        """Add a delta; return the sentences it completed (maybe none)."""
        sentences: list[str] = []
        for match in _PIECES.finditer(delta):
            piece = match.group()
            if piece[0] in " \t\n":
                if not self._pieces:
                    continue  # whitespace before a sentence is dropped
                self._gap.append(piece)
                continue
            if self._gap:
                if self._is_boundary(piece[0]):
                    sentence = "".join(self._pieces).strip()
                    if sentence:
                        sentences.append(sentence)
                    self._pieces, self._recent, self._words = [], "", 0
                else:
                    self._add("".join(self._gap))
                self._gap = []
            if not self._pieces or self._recent[-1:] in (" ", "\t", "\n"):
                self._words += 1
            self._add(piece)
        return sentences

    def flush(self) -> list[str]:
        """Return what is left as a last sentence (none when only whitespace remains)."""
        rest = "".join(self._pieces).strip()
        self._pieces, self._recent, self._gap, self._words = [], "", [], 0
        return [rest] if rest else []

    def _add(self, text: str) -> None:
        self._pieces.append(text)
        self._recent = (self._recent + text[-_LOOK_BACK:])[-_LOOK_BACK:]

    def _is_boundary(self, following: str) -> bool:
        """Whether the pending whitespace run ends the sentence, given the character after it."""
        if any("\n" in gap for gap in self._gap):
            return True
        before = self._recent
        punct_end = len(before.rstrip(_CLOSERS))
        punct_start = len(before[:punct_end].rstrip(_END_PUNCT))
        if punct_start == punct_end:
            return False  # no end punctuation before the whitespace
        # The last run of end punctuation decides ("?!" ends a sentence, "." may not).
        punct = before[punct_start:punct_end]
        if "!" in punct or "?" in punct:
            return True
        if following.islower() or following in ",;:":
            # "e.g. this", "wait... what": a lower-case continuation is the same sentence.
            return False
        word = _WORD_BEFORE.search(_last_word(before[:punct_end]))
        if word is None:
            return True
        token = word.group(1).lower().rstrip(".")
        if token in self._abbreviations:
            return False
        if len(token) == 1 and token.isalpha():
            return False  # "J. Smith": an initial
        if token.isdigit():
            # "1. First" (an ordered list item: the number is all there is) is not a sentence end;
            # "The sum is 5. Next" is.
            return not (self._words == 1 and before[:punct_start].strip() == token)
        return True


def _last_word(text: str) -> str:
    """The run of word characters, dots and ellipses that ``text`` ends with."""
    start = len(text)
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "._…"):
        start -= 1
    return text[start:]


def stream_sentences(deltas: Iterable[str]) -> Iterator[str]:
    """Sentences from an iterable of text deltas, each yielded as soon as it is complete."""
    splitter = SentenceSplitter()
    for delta in deltas:
        yield from splitter.feed(delta)
    yield from splitter.flush()


def split_sentences(text: str) -> list[str]:
    """Split a finished text into sentences with the same rules as the streaming splitter."""
    return list(stream_sentences([text]))
