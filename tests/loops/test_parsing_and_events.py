"""The tolerant readers of the loops, the marker gate, and the typed step events."""

from __future__ import annotations

import re

import pytest

from ovos_agentic_loop.events import Final, ModelCall, Plan, StepEvent, StrategyStep, make_event
from ovos_agentic_loop.loops._gates import MarkerGate, after_marker
from ovos_agentic_loop.loops._parsing import parse_items, parse_scores, parse_verdict


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1. a\n2. b", ["a", "b"]),
        ("1) a\n2) b", ["a", "b"]),
        ("Step 1: a\nStep 2: b", ["a", "b"]),
        ("**1.** a\n**2.** b", ["a", "b"]),
        ("- a\n* b\n• c", ["a", "b", "c"]),
        ("Here is the plan:\n1. a\n   which goes on\n2. b", ["a which goes on", "b"]),
        ("```\n1. a\n2. b\n```", ["a", "b"]),
        ("a\nb", ["a", "b"]),  # no markers, a few short lines: each is an item
        ("One long paragraph with no list at all, just words.", []),
        ("", []),
        ("1. a\n2. b\n3. c\n4. d\n5. e", ["a", "b", "c"]),  # the limit
    ],
)
def test_parse_items(text: str, expected: list[str]) -> None:
    assert parse_items(text, limit=3) == expected


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("SATISFACTORY", True),
        ("UNSATISFACTORY\nbecause", False),
        ("**Unsatisfactory**: incomplete", False),
        ("Verdict: correct.", True),
        ("The answer is correct but incomplete.", False),
        ("No problems found.", True),
        ("No, it is wrong.", False),
        ("hmm", None),
        ("", None),
    ],
)
def test_parse_verdict(text: str, verdict: bool | None) -> None:
    assert parse_verdict(text) is verdict


def test_parse_scores() -> None:
    assert parse_scores("1: 7\n2: 3", 2) == [7.0, 3.0]
    assert parse_scores("Candidate 2 = 8\nCandidate 1 = 4", 2) == [4.0, 8.0]
    assert parse_scores("I give 6/10 and 9/10", 2) == [6.0, 9.0]
    assert parse_scores("all good", 2) is None


def test_marker_gate_passes_only_after_the_marker_even_split_across_deltas() -> None:
    marker = re.compile(r"final\s*answer\s*:", re.IGNORECASE)
    gate = MarkerGate(marker)
    text = "I reason: 2+2 is 4. Final Ans" + "wer: It is 4."
    out = "".join(gate.feed(text[i : i + 3]) for i in range(0, len(text), 3))
    assert out == "It is 4." == after_marker(text, marker)
    assert gate.spoken


def test_marker_gate_stays_shut_after_a_blocker() -> None:
    gate = MarkerGate(re.compile(r"final:"), blocker=re.compile(r"follow up:"))
    assert gate.feed("follow up: x?\nfinal: guessed") == "" and gate.feed(" more") == ""
    assert not gate.spoken


def test_events_are_typed_records_with_the_old_dict_view() -> None:
    event = make_event("final", "s1", {"answer": "42", "reason": "answer", "iterations": 3, "extra_key": 1})
    assert isinstance(event, Final) and event.answer == "42" and event.iterations == 3
    assert event.data["answer"] == "42" and event.data["extra_key"] == 1  # undeclared keys are kept
    payload = event.as_dict()
    assert set(payload) == {"kind", "session_id", "data", "at"} and payload["kind"] == "final"
    assert isinstance(make_event("model_call", "s", {"iteration": 1}), ModelCall)
    assert isinstance(make_event("plan", "s", {"steps": ["a"]}), Plan)
    assert isinstance(
        make_event("strategy_step", "s", {"loop": "x", "phase": "y", "text": "z"}), StrategyStep
    )


def test_an_unknown_kind_is_a_plain_step_event_not_an_error() -> None:
    event = make_event("stream_cut", "s", {"chars": 10})
    assert type(event) is StepEvent and event.kind == "stream_cut" and event.data == {"chars": 10}
    assert StepEvent(kind="notice", session_id="s", data={"message": "m"}).data == {"message": "m"}


def test_the_chat_command_prints_a_line_for_the_loops_events() -> None:
    from ovos_agentic_loop.cli import StepPrinter

    plan = StepPrinter.format(make_event("plan", "s", {"steps": ["add", "say"], "revision": 1}))
    assert plan is not None and plan.strip() == "☰ plan (revised): 1. add; 2. say"
    step = StepPrinter.format(make_event("strategy_step", "s", {"phase": "critique", "text": "- wrong\n- x"}))
    assert step is not None and step.strip() == "∴ critique: - wrong - x"
    # a final without a duration (a turn handed to the caller) prints, not crashes
    final = StepPrinter.format(make_event("final", "s", {"answer": "", "reason": "caller_tools"}))
    assert final is not None and "caller_tools" in final
