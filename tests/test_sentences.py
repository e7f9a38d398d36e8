"""The incremental sentence splitter the brain and the engine share."""

from __future__ import annotations

import pytest

from ovos_agentic_loop.sentences import SentenceSplitter, split_sentences, stream_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello Dr. Smith. How are you?", ["Hello Dr. Smith.", "How are you?"]),
        ("Pi is 3.14 today. Yes!", ["Pi is 3.14 today.", "Yes!"]),
        ("Wait... what? Fine... Then go.", ["Wait... what?", "Fine...", "Then go."]),
        ("Line one\nLine two\n\nLine three", ["Line one", "Line two", "Line three"]),
        ("Use e.g. this one. Done.", ["Use e.g. this one.", "Done."]),
        ("Steps:\n1. Open it. 2. Close it.", ["Steps:", "1. Open it.", "2. Close it."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("I met J. Smith. He waved.", ["I met J. Smith.", "He waved."]),
        ("   ", []),
        ("No end punctuation", ["No end punctuation"]),
    ],
)
def test_split(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected
    # Character-by-character streaming must give the same sentences.
    assert list(stream_sentences(list(text))) == expected


def test_sentence_comes_out_as_soon_as_the_next_one_starts() -> None:
    splitter = SentenceSplitter()
    assert splitter.feed("It is 3") == []
    assert splitter.feed(".") == []
    assert splitter.feed("14. ") == []  # the next character decides
    assert splitter.feed("That") == ["It is 3.14."]
    assert splitter.feed(" is pi") == []
    assert splitter.flush() == ["That is pi"]
    assert splitter.flush() == []
