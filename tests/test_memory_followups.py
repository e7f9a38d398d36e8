"""A follow-up of the last turn, read deterministically: which utterances are corrections, new
numbers or new targets for the last question, and which value of the last turn's call they replace
(or that it cannot be told)."""

from __future__ import annotations

from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop._memory.followups import (
    Correction,
    Onward,
    Per,
    Retarget,
    follow_up_call,
    follow_up_in,
)
from ovos_agentic_loop._memory.records import RememberedCall, RememberedTurn
from ovos_agentic_loop._tools.toolset import PersonaTools, ToolSet


def _bundled_tools() -> ToolSet:
    plugins = find_toolbox_plugins()
    toolboxes = [plugins[name](config={}) for name in ("ovos-math-tools", "ovos-clock-tools")]
    return PersonaTools(toolboxes, engine_name="test").current()


TOOLS = _bundled_tools()


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
    assert follow_up_in(utterance, lang) == expected


@pytest.mark.parametrize(
    ("utterance", "lang", "expected"),
    [
        ("and seventy?", "en-US", Correction(70)),
        ("and twenty percent", "en-US", Correction(20)),
        ("what about thirty", "en-US", Correction(30)),
        ("e vinte por cento", "pt-PT", Correction(20)),
        ("y el treinta por ciento", "es-ES", Correction(30)),
        ("und zweihundert", "de-DE", Correction(200)),
        ("nein ich meinte dreihundert", "de-DE", Correction(300)),
        ("and in tokyo", "en-US", Retarget("tokyo")),
        ("And in New York?", "en-US", Retarget("new york")),
        ("and in meters", "en-US", Retarget("meters")),
        ("y en tokio", "es-ES", Retarget("tokio")),
        ("e em lisboa", "pt-PT", Retarget("lisboa")),
        ("und in Berlin", "de-DE", Retarget("berlin")),
        ("and how many ounces is that", "en-US", Retarget("ounces")),
        ("how many miles is that", "en-US", Retarget("miles")),
        ("e quantas onças são isso", "pt-PT", Retarget("onças")),
        ("y cuántas millas es eso", "es-ES", Retarget("millas")),
        ("und wie viele Meilen sind das", "de-DE", Retarget("meilen")),
        ("and how much is that in miles", "en-US", Retarget("miles")),
        ("what is that in pounds", "en-US", Retarget("pounds")),
        ("e quanto é isso em milhas", "pt-PT", Retarget("milhas")),
        ("und wie viel ist das in Meilen", "de-DE", Retarget("meilen")),
    ],
)
def test_a_follow_up_asks_the_last_question_with_one_thing_changed(
    utterance: str, lang: str, expected: Correction | Retarget
) -> None:
    assert follow_up_in(utterance, lang) == expected


@pytest.mark.parametrize(
    "utterance",
    [
        "what is 23 times 17",  # a new question
        "no",  # an answer to a question
        "I meant the other one",  # no number: the model reads it
        "I meant 70 times 20",  # a question said again
        "and take away eighty",  # an operation on the result: the model reads it
        "and by twenty",  # which number "by" replaces: the model reads it
        "and in it",  # no target
        "and to you",  # said back to a wish, not a target
        "and the square root of eighty one",  # a new question
        "and how many days are left in it",
        "no not now",  # no number
        "sorry not twelve",  # only the wrong number: the model reads it
    ],
)
def test_other_utterances_change_nothing_of_the_last_turn(utterance: str) -> None:
    assert follow_up_in(utterance, "en-US") is None


def turn(question: str, *expressions: str) -> RememberedTurn:
    calls = tuple(
        RememberedCall(f"r{i}", "evaluate_expression", {"expression": e}, "{}")
        for i, e in enumerate(expressions)
    )
    return RememberedTurn(question, calls, "answer", 0.0)


def redo(correction: str, last: RememberedTurn) -> str | None:
    call = redone(correction, last)
    return None if call is None else call["expression"]


def redone(utterance: str, last: RememberedTurn, lang: str = "en-US") -> dict[str, Any] | None:
    found = follow_up_in(utterance, lang)
    assert found is not None
    call = follow_up_call(found, last, TOOLS, lang)
    return None if call is None else call.arguments


def called(question: str, name: str, result: str = "{}", **arguments: Any) -> RememberedTurn:
    return RememberedTurn(question, (RememberedCall("r0", name, arguments, result),), "answer", 0.0)


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


def test_a_new_number_replaces_the_first_number_of_the_question() -> None:
    assert redo("and twenty percent", turn("whats 15 percent of 480", "15% of 480")) == "20% of 480"
    assert redone("and thirty", turn("whats 25 celsius in fahrenheit", "25 * 9 / 5 + 32")) == {
        "expression": "30 * 9 / 5 + 32"
    }


def test_a_new_number_replaces_the_argument_that_holds_the_number_said() -> None:
    last = called(
        "wie viele meilen sind hundert kilometer", "unit_convert", value=100, from_unit="km", to_unit="mi"
    )
    assert redone("und zweihundert", last, "de-DE") == {"value": 200, "from_unit": "km", "to_unit": "mi"}


def test_a_new_number_is_left_to_the_model_where_no_argument_holds_the_number_said() -> None:
    last = called(
        "how many pounds is sixty kilograms", "unit_convert", value=27.2, from_unit="lb", to_unit="kg"
    )
    assert redone("and seventy", last) is None


def test_a_new_target_replaces_the_converters_target() -> None:
    clock = called("what time is it in london", "get_current_datetime", timezone="Europe/London")
    assert redone("and in tokyo", clock) == {"timezone": "tokyo"}
    units = called("how many kilometers is 26 miles", "unit_convert", value=26, from_unit="mi", to_unit="km")
    assert redone("and in meters", units) == {"value": 26, "from_unit": "mi", "to_unit": "meters"}


def test_a_new_target_is_left_to_the_model_without_one_converter_call() -> None:
    assert redone("and in tokyo", turn("what is 23 times 17", "23*17")) is None
    two = RememberedTurn(
        "time in london and paris",
        (
            RememberedCall("r0", "get_current_datetime", {"timezone": "Europe/London"}, "{}"),
            RememberedCall("r1", "get_current_datetime", {"timezone": "Europe/Paris"}, "{}"),
        ),
        "answer",
        0.0,
    )
    assert redone("and in tokyo", two) is None


@pytest.mark.parametrize(
    ("utterance", "lang", "said"),
    [
        ("and that times three", "en-US", "{result} times 3"),
        ("divide that by four", "en-US", "divide {result} by 4"),
        ("and now times three", "en-US", "{result} times 3"),
        ("and fifteen percent of that", "en-US", "15 percent of {result}"),
        ("and what is half of that plus ten", "en-US", "0.5 of {result} plus 10"),
        ("und das mal drei", "de-DE", "{result} mal 3"),
        ("e isso a dividir por dois", "pt-PT", "{result} a dividir por 2"),
        ("y eso entre cuatro", "es-ES", "{result} entre 4"),
    ],
)
def test_a_calculation_on_the_last_result_says_where_the_result_stands(
    utterance: str, lang: str, said: str
) -> None:
    assert follow_up_in(utterance, lang) == Onward(said)


@pytest.mark.parametrize(
    "utterance",
    [
        "and how many days are left in it",
        "and what is that",
        "and that one and this one times 2",
        "is it ok",
        "add those two together",
        "and multiply both by three",
    ],
)
def test_no_calculation_on_the_last_result_without_one_word_for_it_and_a_number(utterance: str) -> None:
    assert not isinstance(follow_up_in(utterance, "en-US"), Onward)


def test_a_calculation_on_the_last_result_needs_one_calculation_in_the_last_turn() -> None:
    assert redone("and that times three", turn("what is 240 over 8", "240 / 8")) == {
        "expression": "(240 / 8) times 3"
    }
    assert redone("and that times three", turn("two sums", "1 + 2", "3 + 4")) is None
    clock = called("what time is it in london", "get_current_datetime", timezone="Europe/London")
    assert redone("and that times three", clock) is None


def test_a_calculation_on_the_last_result_is_on_the_calculation_the_answer_said() -> None:
    said_it = RememberedTurn(
        "what is 240 over 8",
        (RememberedCall("r0", "evaluate_expression", {"expression": "240 / 8"}, '{"result": "30"}'),),
        "240 divided by 8 is 30.",
        0.0,
    )
    assert redone("and that times three", said_it) == {"expression": "(240 / 8) times 3"}


def test_a_calculation_on_the_last_result_is_on_the_number_heard_when_the_answer_did_not_say_it() -> None:
    """The budget was read from a file (4200) and answered with, after a calculation nobody asked
    for ("200 + 10%" = 220): "fifteen percent of that" is of what the user heard."""
    budget = RememberedTurn(
        "whats the budget in notes dot txt",
        (
            RememberedCall("r0", "read_file", {"path": "notes.txt"}, '{"content": "budget: 4200 euros"}'),
            RememberedCall("r1", "evaluate_expression", {"expression": "200 + 10%"}, '{"result": "220"}'),
        ),
        "The budget in notes.txt is 4200 euros.",
        0.0,
    )
    assert redone("and fifteen percent of that", budget) == {"expression": "15 percent of 4200"}
    read_only = RememberedTurn("whats the budget", budget.calls[:1], budget.answer, 0.0)
    assert redone("and fifteen percent of that", read_only) == {"expression": "15 percent of 4200"}


def test_a_calculation_on_the_last_result_is_left_to_the_model_unless_one_number_was_heard() -> None:
    two = RememberedTurn(
        "whats in the budget",
        (RememberedCall("r0", "read_file", {"path": "notes.txt"}, "{}"),),
        "Rent is 900 euros and food 300 euros.",
        0.0,
    )
    assert redone("and fifteen percent of that", two) is None


def test_a_new_unit_after_a_calculation_converts_its_result_as_the_answer_said_it() -> None:
    week = RememberedTurn(
        "i drive 45 kilometers a day how many kilometers is that in a week",
        (RememberedCall("r0", "evaluate_expression", {"expression": "45 * 7"}, '{"result": "315"}'),),
        "You drive 315 kilometers in a week.",
        0.0,
    )
    assert redone("and how much is that in miles", week) == {
        "value": 315.0,
        "from_unit": "kilometers",
        "to_unit": "miles",
    }
    grams = RememberedTurn(
        "how many grams is two and a half pounds",
        (
            RememberedCall(
                "r0", "evaluate_expression", {"expression": "2.5 * 453.592"}, '{"result": "1133.98"}'
            ),
        ),
        "The result of the calculation 2.5 × 453.592 is 1,133.98 grams.",
        0.0,
    )
    assert redone("and how many ounces is that", grams) == {
        "value": 1133.98,
        "from_unit": "grams",
        "to_unit": "ounces",
    }
    unitless = RememberedTurn("what is 45 times 7", week.calls, "It is 315.", 0.0)
    assert redone("and in miles", unitless) is None  # no unit said: the model hears the question


@pytest.mark.parametrize(
    ("utterance", "lang", "period"),
    [
        ("and how much is that per day", "en-US", "day"),
        ("and what is that a week", "en-US", "week"),
        ("e quanto é isso por dia", "pt-PT", "day"),
        ("y eso al día", "es-ES", "day"),
        ("und wie viel ist das pro Monat", "de-DE", "month"),
    ],
)
def test_the_last_result_per_period_is_read(utterance: str, lang: str, period: str) -> None:
    assert follow_up_in(utterance, lang) == Per(period)


def test_the_last_result_per_period_divides_by_the_longest_span_the_last_question_named() -> None:
    year = RememberedTurn(
        "how much is 210 euros a week over a year of 52 weeks",
        (RememberedCall("r0", "evaluate_expression", {"expression": "210 * 52"}, '{"result": "10920"}'),),
        "That is 10920 euros.",
        0.0,
    )
    assert redone("and how much is that per day", year) == {"expression": "(210 * 52) / 365"}
    week = RememberedTurn(
        "how much did i spend this week according to expenses.csv",
        (RememberedCall("r0", "read_file", {"path": "expenses.csv"}, "{}"),),
        "You spent 182.4 euros this week.",
        0.0,
    )
    assert redone("and how much is that per day", week) == {"expression": "182.4 / 7"}
    assert redone("and how much is that per week", week) is None  # no longer span: the model reads it
