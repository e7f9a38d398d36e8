"""A correction of the last turn, read deterministically: which utterances are corrections, and
which number of the last calculation the corrected one replaces (or that it cannot be told)."""

from __future__ import annotations

import pytest

from ovos_agentic_loop._memory.corrections import Correction, corrected_call, correction_in
from ovos_agentic_loop._memory.records import RememberedCall, RememberedTurn


@pytest.mark.parametrize(
    ("utterance", "lang", "expected"),
    [
        ("no, I meant seventy", "en-US", Correction(70)),
        ("I meant 70", "en-US", Correction(70)),
        ("Sorry, I meant 7.5.", "en-US", Correction(7.5)),
        ("no, I meant seventy, not seventeen", "en-US", Correction(70, 17)),
        ("não, queria dizer setenta", "pt-PT", Correction(70)),
        ("eu disse setenta em vez de dezassete", "pt-PT", Correction(70, 17)),
        ("no, quería decir setenta", "es-ES", Correction(70)),
        ("no, I meant seventy", "pt-PT", Correction(70)),  # English is read in any session
        ("sorry not twelve fifteen", "en-US", Correction(15, 12)),  # the wrong one, then the meant one
        ("no, not twelve, but fifteen", "en-US", Correction(15, 12)),
    ],
)
def test_a_correction_names_the_number_meant(utterance: str, lang: str, expected: Correction) -> None:
    assert correction_in(utterance, lang) == expected


@pytest.mark.parametrize(
    "utterance",
    [
        "what is 23 times 17",  # a new question
        "no",  # an answer to a question
        "I meant the other one",  # no number: the model reads it
        "I meant 70 times 20",  # a question said again
        "and seventy?",  # a follow-up, not a correction
        "no not now",  # no number
        "sorry not twelve",  # only the wrong number: the model reads it
    ],
)
def test_other_utterances_are_no_correction(utterance: str) -> None:
    assert correction_in(utterance, "en-US") is None


def turn(question: str, *expressions: str) -> RememberedTurn:
    calls = tuple(
        RememberedCall(f"r{i}", "evaluate_expression", {"expression": e}, "{}")
        for i, e in enumerate(expressions)
    )
    return RememberedTurn(question, calls, "answer", 0.0)


def redo(correction: str, last: RememberedTurn) -> str | None:
    found = correction_in(correction, "en-US")
    assert found is not None
    call = corrected_call(found, last, "evaluate_expression", "expression", "en-US")
    return None if call is None else call.arguments["expression"]


def test_a_bare_correction_replaces_the_first_number_of_the_question() -> None:
    assert redo("no, I meant seventy", turn("what is 23 times 17", "23*17")) == "70*17"
    assert redo("I meant 20", turn("what is 15% of 2350", "15% of 2350")) == "20% of 2350"


def test_a_correction_that_names_the_wrong_number_replaces_it() -> None:
    assert redo("I meant 70, not 17", turn("what is 23 times 17", "23 * 17")) == "23 * 70"


@pytest.mark.parametrize(
    ("last", "why"),
    [
        (turn("what is 15% of 2350", "2350 * 0.15"), "15 is not in the expression as said"),
        (turn("what is 23 times 23", "23*23"), "the number is there twice"),
        (turn("what is 23 times 17", "23*17", "391/2"), "two calculations"),
        (turn("what time is it"), "no calculation"),
        (turn("what is the answer", "6*7"), "the question said no number"),
    ],
)
def test_a_correction_the_loop_cannot_place_is_left_to_the_model(last: RememberedTurn, why: str) -> None:
    assert redo("no, I meant seventy", last) is None, why


def test_a_named_number_that_was_not_said_is_left_to_the_model() -> None:
    assert redo("I meant 70, not 18", turn("what is 23 times 17", "23*17")) is None
