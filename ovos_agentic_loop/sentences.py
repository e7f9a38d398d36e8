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

# End punctuation (with closing quotes/brackets) then whitespace; or a run of line breaks.
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*[ \t]+|[ \t]*\n+")
_WORD_BEFORE = re.compile(r"([\w.]+)[.…]+[\"'”’)\]]*$")


class SentenceSplitter:
    """Turns a stream of text deltas into complete, stripped sentences."""

    def __init__(self, abbreviations: Iterable[str] = ABBREVIATIONS) -> None:
        self._abbreviations = frozenset(a.lower().rstrip(".") for a in abbreviations)
        self._buffer = ""

    def feed(self, delta: str) -> list[str]:
        """Add a delta; return the sentences it completed (maybe none)."""
        self._buffer += delta
        sentences: list[str] = []
        start = 0
        for match in _BOUNDARY.finditer(self._buffer):
            if match.end() >= len(self._buffer):
                break  # nothing after the whitespace yet: the next delta decides
            if not self._is_boundary(self._buffer, start, match):
                continue
            sentence = self._buffer[start : match.end()].strip()
            if sentence:
                sentences.append(sentence)
            start = match.end()
        self._buffer = self._buffer[start:]
        return sentences

    def flush(self) -> list[str]:
        """Return what is left as a last sentence (none when only whitespace remains)."""
        rest, self._buffer = self._buffer.strip(), ""
        return [rest] if rest else []

    def _is_boundary(self, text: str, start: int, match: re.Match[str]) -> bool:
        if "\n" in match.group():
            return True
        punct = match.group().rstrip()
        if "!" in punct or "?" in punct:
            return True
        following = text[match.end()]
        if following.islower() or following in ",;:":
            # "e.g. this", "wait... what": a lower-case continuation is the same sentence.
            return False
        word = _WORD_BEFORE.search(text[start : match.start() + len(punct)])
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
            return text[start : match.start()].strip() != token
        return True


def stream_sentences(deltas: Iterable[str]) -> Iterator[str]:
    """Sentences from an iterable of text deltas, each yielded as soon as it is complete."""
    splitter = SentenceSplitter()
    for delta in deltas:
        yield from splitter.feed(delta)
    yield from splitter.flush()


def split_sentences(text: str) -> list[str]:
    """Split a finished text into sentences with the same rules as the streaming splitter."""
    return list(stream_sentences([text]))
