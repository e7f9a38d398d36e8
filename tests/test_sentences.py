"""The incremental sentence splitter the brain and the engine share."""

from __future__ import annotations

import pytest

from ovos_agentic_loop._text.sentences import SentenceSplitter, split_sentences, stream_sentences


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


def test_splitting_is_linear_however_the_text_arrives() -> None:
    # 100 KB without a sentence end took 63 s when every delta rescanned the whole buffer.
    import time

    for text in ("word " * 20_000, "a. b " * 20_000, "." * 100_000 + " x", " " * 100_000, "x" * 100_000):
        splitter = SentenceSplitter()
        started = time.monotonic()
        out = [s for ch in text for s in splitter.feed(ch)] + splitter.flush()
        assert time.monotonic() - started < 5, text[:10]
        assert " ".join(out).split() == text.split()


@pytest.mark.parametrize("cut", range(1, 40))
def test_any_cut_gives_the_same_sentences(cut: int) -> None:
    text = 'Dr. Smith said "hi." Then e.g. this... Fine! 3.14 is pi. 1. One\nTwo'
    assert list(stream_sentences([text[:cut], text[cut:]])) == split_sentences(text)
