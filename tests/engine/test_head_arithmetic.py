"""Head arithmetic: a calculation question answered with a number the model made
up. The rule is about the kind of answer, never a task: the question asks for a calculation, a
calculator tool is loaded and was not called this turn, and the answer states a number that nothing
in the conversation holds (the question, a tool result, an earlier reply), not even rounded. Such an
answer gets ONE "calculate it with the tool" message per turn, shared with the described-call one."""

from __future__ import annotations

import pytest
from conftest import DemoToolBox
from engine_helpers import ENGINES_AND_MODES, engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._rules.registry import MAX_NUDGES
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


@pytest.fixture
def maths() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_a_made_up_result_gets_one_calculate_it_message(entry_point: str, mode: str, maths: ToolBox) -> None:
    brain = ScriptedBrain(
        [
            tool_call("add", a=4000, b=200),  # a tool that is not the calculator: the budget
            "15% of the budget is 12.",  # computed in the head, wrongly
            tool_call("evaluate_expression", expression="15% of 4200"),
            "15% of the budget is 630.",
        ]
    )
    engine = engine_with(brain, [DemoToolBox(), maths], entry_point, mode=mode)
    answer = engine.continue_chat(user("The budget is 4000 plus 200. What is 15% of the budget?"))
    assert answer.content == "15% of the budget is 630."
    nudge = brain.calls[2].last
    assert nudge.role == MessageRole.USER
    assert "evaluate_expression" in nudge.content and "12" in nudge.content
    brain.assert_complete()


@pytest.mark.parametrize(
    ("question", "replies"),
    [
        # no calculation asked for: a count read from a listing is not head arithmetic
        ("How many files are in the data folder?", ["There are 2 files."]),
        # every number of the answer is in the question
        ("Is 15% of 4200 more than 500?", ["Yes, 15% of 4200 is more than 500."]),
        # the number comes from a tool result (2.3333...), rounded for speech
        (
            "What is the average of 1, 2 and 4?",
            [tool_call("statistics_summary", numbers=[1, 2, 4]), "The average is about 2.33."],
        ),
        # the calculator was used this turn: its result stands, whatever the answer's wording
        (
            "What is 3 times 7?",
            [tool_call("evaluate_expression", expression="3*7"), "It is 21, or 0.021 thousand."],
        ),
    ],
)
def test_answers_that_stand(question: str, replies: list, maths: ToolBox) -> None:
    brain = ScriptedBrain(list(replies))
    answer = engine_with(brain, [DemoToolBox(), maths]).continue_chat(user(question))
    assert answer.content == replies[-1]
    brain.assert_complete()


def test_without_a_calculator_tool_a_number_stands() -> None:
    brain = ScriptedBrain(["15% of 4200 is 630."])
    answer = engine_with(brain, [DemoToolBox()]).continue_chat(user("What is 15% of 4200?"))
    assert answer.content == "15% of 4200 is 630."


def test_corrective_messages_are_bounded_per_turn(maths: ToolBox) -> None:
    # the model insists: the third made-up answer stands (at most MAX_NUDGES more model calls)
    brain = ScriptedBrain(["15% of 4200 is 12.", "15% of 4200 is 13.", "15% of 4200 is 14."])
    answer = engine_with(brain, [maths]).continue_chat(user("What is 15% of 4200?"))
    assert answer.content == "15% of 4200 is 14."
    assert MAX_NUDGES == 2
    brain.assert_complete()


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_a_stream_never_speaks_the_made_up_number(entry_point: str, mode: str, maths: ToolBox) -> None:
    from ovos_agentic_loop.testing import in_chunks

    brain = ScriptedBrain(
        [
            in_chunks("15% of 4200 ", "is 12. ", "That is all."),
            tool_call("evaluate_expression", expression="15% of 4200"),
            in_chunks("15% of 4200 ", "is 630."),
        ]
    )
    engine = engine_with(brain, [maths], entry_point, mode=mode)
    spoken = list(engine.stream_sentences(user("What is 15% of 4200?")))
    assert spoken == ["15% of 4200 is 630."]


def test_an_answer_that_stands_is_still_spoken(maths: ToolBox) -> None:
    from ovos_agentic_loop.testing import in_chunks

    brain = ScriptedBrain([in_chunks("Yes, 15% of 4200 ", "is more than 500.")])
    spoken = list(engine_with(brain, [maths]).stream_sentences(user("Is 15% of 4200 more than 500?")))
    assert spoken == ["Yes, 15% of 4200 is more than 500."]


def test_the_number_named_is_a_result_not_a_step_number(maths: ToolBox) -> None:
    steps = "1. The discount is 0.35 * 84 = 29.4 euros.\n2. The price is 84 - 29.4 = 54.6 euros."
    brain = ScriptedBrain(
        [steps, tool_call("evaluate_expression", expression="84 - 35% of 84"), "54.6 euros."]
    )
    answer = engine_with(brain, [maths]).continue_chat(user("A jacket costs 84 euros, 35% off. Sale price?"))
    assert answer.content == "54.6 euros."
    assert "(0.35 may be wrong)" in brain.calls[1].last.content


def test_a_temperature_worked_out_in_prose_is_sent_to_the_calculator(maths: ToolBox) -> None:
    # The stock template, spoken held-out half: the formula written out, no tool called.
    worked = "To convert 98.6°F to Celsius, use the formula:\nC = (98.6 - 32) * 5/9\nC = 37.7778°C"
    brain = ScriptedBrain(
        [
            worked,
            tool_call("unit_convert", value=98.6, from_unit="fahrenheit", to_unit="celsius"),
            "It is 37 °C.",
        ]
    )
    answer = engine_with(brain, [maths]).continue_chat(
        user("what is ninety eight point six fahrenheit in celsius")
    )
    assert answer.content == "It is 37 °C."
    assert "Do not calculate in your head" in brain.calls[1].last.content
    brain.assert_complete()


def test_a_temperature_from_the_converter_stands(maths: ToolBox) -> None:
    call = tool_call("unit_convert", value=98.6, from_unit="fahrenheit", to_unit="celsius")
    brain = ScriptedBrain([call, "98.6 °F is 37 °C."])
    answer = engine_with(brain, [maths]).continue_chat(
        user("what is ninety eight point six fahrenheit in celsius")
    )
    assert answer.content == "98.6 °F is 37 °C."
    brain.assert_complete()


@pytest.mark.parametrize(
    ("question", "lang", "made_up", "expression", "answer"),
    [
        (
            "cuánto es el treinta por ciento de trescientos cincuenta",
            "es-ES",
            "Es 210.",
            "30% of 350",
            "Es 105.",
        ),
        ("quanto é dezassete vezes vinte e três", "pt-PT", "É 230.", "17 * 23", "É 391."),
        ("was ist zweihundertvierzig geteilt durch acht", "de-DE", "Das ist 25.", "240 / 8", "Das ist 30."),
    ],
)
def test_a_calculation_asked_in_another_language_is_sent_to_the_calculator_too(
    question: str, lang: str, made_up: str, expression: str, answer: str, maths: ToolBox
) -> None:
    brain = ScriptedBrain([made_up, tool_call("evaluate_expression", expression=expression), answer])
    assert engine_with(brain, [maths]).continue_chat(user(question), lang=lang).content == answer
    assert "evaluate_expression" in brain.calls[1].last.content  # told to calculate it with the tool


@pytest.mark.parametrize(
    "question", ["and how many miles is that", "and in meters", "how many pounds is seventy kilos"]
)
def test_a_quantity_asked_in_another_unit_is_a_calculation(question: str, maths: ToolBox) -> None:
    worked = "To convert, multiply by the factor: 315 km x 0.621371 = 195.73 miles."
    brain = ScriptedBrain(
        [worked, tool_call("unit_convert", value=315, from_unit="km", to_unit="mi"), "195.7 miles."]
    )
    assert engine_with(brain, [maths]).continue_chat(user(question)).content == "195.7 miles."


def test_a_follow_up_of_a_calculation_answered_in_the_head_gets_the_message(maths: ToolBox) -> None:
    """ "wie viele meilen sind hundert kilometer" -> "und zweihundert" was answered "122,541 Meilen"
    in the head (stock template): the follow-up says no unit, the question it follows does."""
    from ovos_plugin_manager.templates.agents import AgentMessage

    first, answer = "wie viele meilen sind hundert kilometer", "Die Antwort ist: 62,137 Meilen."
    brain = ScriptedBrain(
        [
            tool_call("unit_convert", value=100, from_unit="km", to_unit="mi"),
            answer,
            "Die Antwort ist: 122,541 Meilen.",
            tool_call("unit_convert", value=200, from_unit="km", to_unit="mi"),
            "Die Antwort ist: 124,27 Meilen.",
        ]
    )
    engine = engine_with(brain, [maths])
    assert engine.continue_chat(user(first), session_id="s", lang="de-DE").content == answer
    history = [*user(first), AgentMessage(MessageRole.ASSISTANT, answer), *user("und zweihundert")]
    final = engine.continue_chat(history, session_id="s", lang="de-DE")

    assert final.content == "Die Antwort ist: 124,27 Meilen."
    nudge = brain.calls[3].last
    assert (
        nudge.role == MessageRole.USER and "122" in nudge.content and "evaluate_expression" in nudge.content
    )
    brain.assert_complete()


@pytest.mark.parametrize(
    ("text", "lang", "read"),
    [
        ("Die Antwort ist: 62,137 Meilen.", "de-DE", ["62.137"]),
        ("São 1.080 euros, ou 12,5 por dia.", "pt-PT", ["1080", "12.5"]),
        ("It is 62,137 miles.", "en-US", []),  # English reads it as numbers does
    ],
)
def test_numbers_are_also_read_as_the_session_language_writes_them(
    text: str, lang: str, read: list[str]
) -> None:
    from ovos_agentic_loop._text.numbers import local_numbers

    assert local_numbers(text, lang) == read


def test_a_decimal_comma_of_a_tools_result_is_no_head_arithmetic(maths: ToolBox) -> None:
    brain = ScriptedBrain(
        [tool_call("unit_convert", value=100, from_unit="km", to_unit="mi"), "Das sind 62,137 Meilen."]
    )
    answer = engine_with(brain, [maths]).continue_chat(
        user("wie viele meilen sind hundert kilometer"), lang="de-DE"
    )
    assert answer.content == "Das sind 62,137 Meilen."
    brain.assert_complete()


def test_a_count_is_not_grounded_by_the_hour_of_a_time(maths: ToolBox) -> None:
    """ "what year is it" -> "and how many days are left in it" was answered "11 days", the hour of
    the time the clock had returned (11:38:06), no tool called (stock template)."""
    import datetime as dt

    from ovos_plugin_manager.templates.agents import AgentMessage

    clock = find_toolbox_plugins()["ovos-clock-tools"](config={"timezone": "Europe/Lisbon"})
    at = dt.datetime(2026, 12, 4, 11, 38, 6, tzinfo=dt.timezone.utc)
    clock.clock = lambda zone: at.astimezone(zone)  # the toolbox's clock seam: the hour is 11
    brain = ScriptedBrain(
        [
            tool_call("get_current_datetime", timezone=""),
            "It is 2026.",
            "There are 11 days left in the year 2026.",
            tool_call("days_between", start_date="today", end_date="2026-12-31"),
            "There are 27 days left in 2026.",
        ]
    )
    engine = engine_with(brain, [maths, clock])
    engine.continue_chat(user("what year is it"), session_id="s")
    assert "11:38:06" in (brain.calls[1].last.content or "")  # the result the next turn remembers
    history = [*user("what year is it"), AgentMessage(MessageRole.ASSISTANT, "It is 2026.")]
    history += user("and how many days are left in it")
    answer = engine.continue_chat(history, session_id="s").content

    assert answer == "There are 27 days left in 2026."
    assert "11 may be wrong" in (brain.calls[3].last.content or "")
    brain.assert_complete()


def test_a_day_of_the_month_and_the_year_of_a_counted_span_are_no_made_up_counts(maths: ToolBox) -> None:
    """ "how many days are there between march first and april fifteenth", counted from 2027-03-01:
    "March 1st" was read as the count 1 ("first" is no number to the parser), and the year of the
    dates the tool counted between as a count nobody gave."""
    clock = find_toolbox_plugins()["ovos-clock-tools"](config={})
    answer = "There are 45 days between March 1st and April 15th, 2027."
    brain = ScriptedBrain([tool_call("days_between", start_date="2027-03-01", end_date="2027-04-15"), answer])
    question = user("how many days are there between march first and april fifteenth")
    assert engine_with(brain, [maths, clock]).continue_chat(question).content == answer
    brain.assert_complete()


def test_a_made_up_count_beside_a_day_of_the_month_is_still_sent_back(maths: ToolBox) -> None:
    clock = find_toolbox_plugins()["ovos-clock-tools"](config={})
    brain = ScriptedBrain(
        [
            "There are 46 days between March 1st and April 15th.",
            tool_call("days_between", start_date="2027-03-01", end_date="2027-04-15"),
            "It is 45 days.",
        ]
    )
    question = user("how many days are there between march first and april fifteenth")
    assert engine_with(brain, [maths, clock]).continue_chat(question).content == "It is 45 days."
    assert "46 may be wrong" in (brain.calls[1].last.content or "")
    brain.assert_complete()
