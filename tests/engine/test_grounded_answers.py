"""Grounded answers: the loop knows the tool results. A repeated successful call is
answered with its result at the first repeat; a forced last answer that states none of the
latest results, or mangles a number into words that do not say it, gets the result said plainly
by the loop; a number said in words that does state it is left alone."""

from __future__ import annotations

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def maths() -> list:
    return [find_toolbox_plugins()["ovos-math-tools"](config={})]


PERCENT = tool_call("evaluate_expression", expression="15% of 2350")


def test_the_first_repeat_is_answered_with_the_earlier_result() -> None:
    brain = ScriptedBrain([PERCENT, PERCENT, "It is 352.5."])
    engine = engine_with(brain, maths())
    assert engine.continue_chat(
        user("whats fifteen percent of two thousand three hundred fifty")
    ).content == ("It is 352.5.")
    last = brain.calls[2]
    assert last.tools == []  # the repeat went straight to the answer, which offers no tools
    assert "352.5" in last.last.content  # with the earlier result in front of the model
    brain.assert_complete()


def test_the_echo_of_an_argument_is_no_result_an_answer_states() -> None:
    """Heard on the spoken suite's tune half: "Fifteen percent of two thousand three hundred and
    fifty is thirty-five twenty-five." The calculator's result repeats the expression, and its
    15 and 2350 had counted as the answer stating the result."""
    forced = "Fifteen percent of two thousand three hundred and fifty is thirty-five twenty-five."
    brain = ScriptedBrain([PERCENT, PERCENT, forced])
    answer = engine_with(brain, maths()).continue_chat(
        user("whats fifteen percent of two thousand three hundred and fifty")
    )
    assert answer.content == "The result is 352.5."  # one value for the quantity, not two


@pytest.mark.parametrize(
    ("forced", "expected"),
    [
        # mangled into words that do not say 352.5: the loop says the result instead
        ("It is thirty-five twenty-five.", "The result is 352.5."),
        ("It is 350.", "The result is 352.5."),
        # said in words that do say it: left alone
        ("It is three hundred fifty-two point five.", "It is three hundred fifty-two point five."),
        ("It is 352.5.", "It is 352.5."),
    ],
)
def test_a_forced_answer_states_the_result(forced: str, expected: str) -> None:
    brain = ScriptedBrain([PERCENT, PERCENT, forced])
    engine = engine_with(brain, maths())
    assert engine.continue_chat(user("15% of 2350?")).content == expected
    assert brain.calls[-1].tools == []  # it was the forced answer
    brain.assert_complete()


def test_a_contradicted_forced_answer_is_never_spoken_before_the_result() -> None:
    """By voice: the guess is held while it streams, and only the result is heard."""
    brain = ScriptedBrain([PERCENT, PERCENT, "It is 350."])
    said = list(engine_with(brain, maths()).stream_sentences(user("15% of 2350?")))
    assert " ".join(said).strip() == "The result is 352.5."


def test_a_forced_answer_the_results_bear_out_is_spoken_as_written() -> None:
    brain = ScriptedBrain([PERCENT, PERCENT, "It is 352.5. That is fifteen percent."])
    said = list(engine_with(brain, maths()).stream_sentences(user("15% of 2350?")))
    assert " ".join(s.strip() for s in said) == "It is 352.5. That is fifteen percent."


def test_in_another_language_the_number_in_words_is_read_in_that_language() -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="2*21"),
            tool_call("evaluate_expression", expression="2*21"),
            "Son cuarenta y dos.",
        ]
    )
    engine = engine_with(brain, maths())
    answer = engine.continue_chat(user("cuanto es dos por veintiuno"), lang="es-ES")
    assert answer.content == "Son cuarenta y dos."


def test_an_answer_that_needs_no_number_is_not_given_an_unrelated_result() -> None:
    """Seen in the spoken suite: a knowledge question whose forced answer was right got a clock
    result appended ("William Shakespeare wrote Romeo and Juliet. The result was: 2026-12-01...")."""
    clock = find_toolbox_plugins()["ovos-clock-tools"](config={"timezone": "UTC"})
    now = tool_call("get_current_datetime", timezone="UTC")
    brain = ScriptedBrain([now, now, "William Shakespeare wrote Romeo and Juliet."])
    engine = engine_with(brain, [clock])
    answer = engine.continue_chat(user("who wrote romeo and juliet"))
    assert answer.content == "William Shakespeare wrote Romeo and Juliet."


def test_a_subtraction_said_in_words_is_no_contradiction() -> None:
    """Seen on the spoken suite's tune half: "Seven minus twelve equals negative five." (right) got
    an unrelated later result appended: the number parser reads it as "-12 equals -5"."""
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="7 - 12"),
            tool_call("evaluate_expression", expression="7 - 12"),
            "Seven minus twelve equals negative five.",
        ]
    )
    answer = engine_with(brain, maths()).continue_chat(user("whats seven minus twelve"))
    assert answer.content == "Seven minus twelve equals negative five."
    brain.assert_complete()


def test_a_wrong_number_in_digits_is_still_a_contradiction() -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="7 - 12"),
            tool_call("evaluate_expression", expression="7 - 12"),
            "Seven minus twelve is 19.",
        ]
    )
    answer = engine_with(brain, maths()).continue_chat(user("whats seven minus twelve"))
    assert "-5" in answer.content and "19" not in answer.content  # the result, and not the guess
    brain.assert_complete()


def test_one_call_with_a_whole_number_as_float_is_the_same_call() -> None:
    """Seen in the demo: unit_convert sent {"value": 10} and then {"value": 10.0}: one call twice."""
    brain = ScriptedBrain(
        [
            tool_call("unit_convert", value=10, from_unit="kg", to_unit="lb"),
            tool_call("unit_convert", value=10.0, from_unit="kg", to_unit="lb"),
            "It is 22.05 pounds.",
        ]
    )
    answer = engine_with(brain, maths()).continue_chat(user("how many pounds is ten kilograms"))
    assert answer.content == "It is 22.05 pounds."
    assert brain.calls[2].tools == []  # recognized as the call just made: the answer, no tools
    brain.assert_complete()


def test_a_result_that_only_says_done_is_no_value_to_state() -> None:
    """Seen on the BFCL figure (its tools answer "done"): a right forced answer got "The result
    was: done." appended."""
    from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolBox, ToolOutput
    from pydantic import BaseModel

    class Args(BaseModel):
        speed: float

    class Done(ToolOutput):
        status: str

    class Stub(ToolBox):
        def __init__(self) -> None:
            super().__init__("stub-tools", {}, None)

        def discover_tools(self) -> list[AgentTool]:
            return [AgentTool("move", "Move a car.", Args, Done, lambda a: Done(status="done"))]

    move = tool_call("move", speed=20)
    brain = ScriptedBrain([move, move, "The displacement of the car is 100 meters."])
    answer = engine_with(brain, [Stub()]).continue_chat(user("how far does it go at 20 m/s in 5 s"))
    assert answer.content == "The displacement of the car is 100 meters."
    brain.assert_complete()
