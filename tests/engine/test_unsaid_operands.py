"""Numbers nobody said: a calculator call holding a number the user never said (in
words or digits) and no tool returned is not run; the model gets the user's question with its
numbers in digits (given only the list "25, 320", the model wrote 25 * 320: the percent lost).

From the spoken suite's tune half: "whats twenty five percent of three hundred and twenty" was
calculated as ``325 * 0.25``, "quanto é vinte por cento de trezentos e quarenta" as
``20 / 100 * 300``, "was sind zweihundert euro plus neunzehn prozent" as ``200 + 19.1``."""

from __future__ import annotations

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, saying_the_result, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.testing import ScriptedBrain, tool_call, tool_calls


def maths() -> list:
    return [find_toolbox_plugins()["ovos-math-tools"](config={})]


@pytest.mark.parametrize(
    ("question", "lang", "wrong", "right", "said"),
    [
        (
            "whats twenty five percent of three hundred and twenty",
            None,
            "325 * 0.25",
            "320 * 0.25",
            "whats 25 percent of 320",
        ),
        (
            "quanto é vinte por cento de trezentos e quarenta",
            "pt-PT",
            "20 / 100 * 300",
            "20% of 340",
            "quanto é 20 por cento de 340",
        ),
        (
            "was sind zweihundert euro plus neunzehn prozent",
            "de-DE",
            "200 + 19.1",
            "200 + 19%",
            "was sind 200 euro plus 19 prozent",
        ),
    ],
)
def test_a_calculation_with_a_number_nobody_said_is_sent_back(
    question: str, lang: str | None, wrong: str, right: str, said: str
) -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression=wrong),
            tool_call("evaluate_expression", expression=right),
            saying_the_result,
        ]
    )
    engine = engine_with(brain, maths())
    engine.continue_chat(user(question), **({"lang": lang} if lang else {}))
    held = brain.calls[1].last
    assert held.role == MessageRole.TOOL and held.content.startswith("Not run:")
    assert f'with the numbers in digits: "{said}"' in held.content
    result = brain.calls[2].last
    assert result.role == MessageRole.TOOL and '"result"' in result.content  # the right call ran
    brain.assert_complete()


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("whats twenty five percent of three hundred and twenty", "320 * 0.25"),
        ("how much is a twenty percent tip on eighty four dollars and fifty cents", "84.50 * 0.2"),
        ("whats minus five celsius in fahrenheit", "-5 * 9/5 + 32"),
        ("what is two to the power of sixteen", "2^16"),
        ("what is 15% of 2350?", "2350 * 15 / 100"),
        ("whats seven minus twelve", "7 - 12"),
        # ovos-number-parser reads "three hundred minus forty" as "-40": 300 was lost
        ("whats three hundred minus forty", "300 - 40"),
    ],
)
def test_a_calculation_with_the_users_numbers_runs_at_once(question: str, expression: str) -> None:
    brain = ScriptedBrain([tool_call("evaluate_expression", expression=expression), saying_the_result])
    engine_with(brain, maths()).continue_chat(user(question))
    assert '"result"' in brain.calls[1].last.content
    brain.assert_complete()


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("convert one hundred and fifty pounds to kilograms", "150 * 0.45359237"),
        ("how many kilometres is twenty miles", "20 * 1.609"),
        ("twelve inches in centimetres", "12 * 2.54"),
        ("what is a hundred and fifty pounds in kilograms", "150 * 0.4536"),
    ],
)
def test_a_factor_the_model_brings_is_no_number_written_wrong_but_a_conversion_for_the_converter(
    question: str, expression: str
) -> None:
    """A factor far from every number said is not the user's number written wrong; with the
    converter offered, the conversion goes to it (``_rules.conversions``: the loop makes the call as
    the question says it), and nobody is told of unsaid numbers."""
    brain = ScriptedBrain([tool_call("evaluate_expression", expression=expression), "Converted."])
    engine_with(brain, maths()).continue_chat(user(question))
    made = brain.calls[1].last
    assert made.name == "unit_convert" and '"result"' in made.content
    assert "no number the user said" not in made.content


def test_numbers_from_a_result_count_as_said() -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="12 * 14"),
            tool_call("evaluate_expression", expression="168 / 8"),
            "21",
        ]
    )
    engine_with(brain, maths()).continue_chat(user("whats twelve times fourteen divided by eight"))
    assert '"result"' in brain.calls[2].last.content
    brain.assert_complete()


def test_sent_back_once_then_made_again_it_is_not_run_and_the_turn_answers_without_it() -> None:
    """A number nobody said is nobody's the second time too: the call is not run, and the model is
    asked for its answer without tools (it then answers from what it knows)."""
    wrong = tool_call("evaluate_expression", expression="325 * 0.25")
    brain = ScriptedBrain([wrong, tool_call("evaluate_expression", expression="325 * 0.25"), "It is 80."])
    answer = engine_with(brain, maths()).continue_chat(
        user("whats twenty five percent of three hundred and twenty")
    )
    assert brain.calls[1].last.content.startswith("Not run:")
    assert "Do not call any tool now" in brain.calls[2].last.content
    assert '"result"' not in brain.calls[2].last.content  # it never ran
    assert answer.content == "It is 80."
    brain.assert_complete()


def test_the_example_runs_when_the_user_asked_it() -> None:
    brain = ScriptedBrain([tool_call("solve_equation", equation="2x + 3 = 7"), "x is 2."])
    engine_with(brain, maths()).continue_chat(user("solve 2x + 3 = 7"))
    assert '"solutions"' in brain.calls[1].last.content
    brain.assert_complete()


def test_a_fraction_near_a_said_number_is_still_sent_back() -> None:
    # 19.1 beside "nineteen": the said number written wrong, not a factor
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="19.1 * 200"),
            tool_call("evaluate_expression", expression="19 * 200"),
            "3800",
        ]
    )
    engine_with(brain, maths()).continue_chat(user("whats nineteen times two hundred"))
    assert brain.calls[1].last.content.startswith("Not run:")
    brain.assert_complete()


def test_only_the_call_with_an_unsaid_number_is_held_back_the_others_run() -> None:
    reply = tool_calls(
        ("evaluate_expression", {"expression": "12 + 30"}),
        ("evaluate_expression", {"expression": "7 * 99"}),  # 99: nobody said it
        ("evaluate_expression", {"expression": "7 * 9"}),
    )
    brain = ScriptedBrain([reply, tool_call("evaluate_expression", expression="7 * 8"), "42, 63 and 56."])
    engine_with(brain, maths()).continue_chat(
        user("whats twelve plus thirty and seven times nine and seven times eight")
    )
    results = [m for m in brain.calls[1].messages if m.role == MessageRole.TOOL]
    assert [r.content.startswith("Not run:") for r in results] == [False, True, False]
    assert '"result": "42"' in results[0].content
    assert '"result": "63"' in results[2].content
    brain.assert_complete()


def test_a_number_copied_from_a_tools_description_is_not_run_and_the_said_one_is() -> None:
    """Asked for pounds in seventy kilos, the bundled model sent ``unit_convert(100, ...)``: the
    example of the value's own description. The call is held back; the model hears where 100 came
    from and the question in digits, and its call with 70 runs."""
    brain = ScriptedBrain(
        [
            tool_call("unit_convert", value=100, from_unit="kg", to_unit="lb"),
            tool_call("unit_convert", value=70, from_unit="kg", to_unit="lb"),
            saying_the_result,
        ]
    )
    answer = engine_with(brain, maths()).continue_chat(user("how many pounds is seventy kilos"))
    held = brain.calls[1].last.content
    assert held.startswith("Not run: 100 (value) is no number the user said or a tool returned")
    assert "the example in the description of value" in held
    assert '"how many pounds is 70 kilos"' in held
    assert "154.32" in (answer.content or "")
    brain.assert_complete()


def test_numbers_for_the_statistics_come_from_the_file_read_not_from_nowhere() -> None:
    brain = ScriptedBrain(
        [
            tool_call("statistics_summary", numbers=[2, 4, 4, 5]),
            tool_call("statistics_summary", numbers=[18, 21, 24]),
            "The average is 21.",
        ]
    )
    engine_with(brain, maths()).continue_chat(
        user("whats the average of eighteen twenty one and twenty four")
    )
    assert brain.calls[1].last.content.startswith("Not run: 2 (numbers) is no number the user said")
    assert '"mean": 21' in brain.calls[2].last.content
    brain.assert_complete()


def test_a_number_nobody_said_made_again_unchanged_is_not_run_and_the_turn_is_answered_without_it(
    demo_tools: DemoToolBox,
) -> None:
    """Offered only a tool that does not fit (BFCL's irrelevance entries: a body-mass-index tool for
    a triangle's area), the model filled it with numbers nobody gave, twice: the tool never runs."""
    forced = "No tool here works out a triangle's area; it is 25 square meters."
    brain = ScriptedBrain([tool_call("add", a=70, b=17), tool_call("add", a=70, b=17), forced])
    events: list[StepEvent] = []
    engine = engine_with(brain, [demo_tools])
    engine.add_step_listener(events.append)

    answer = engine.continue_chat(user("whats the area of a triangle with a base of 10 and a height of 5"))

    assert answer.content == forced
    assert demo_tools.calls == []
    assert brain.calls[1].last.content.startswith("Not run: 70")
    assert "Do not call any tool now" in brain.calls[2].last.content  # the last call, without tools
    assert any("made again with a value nobody gave" in (e.data.get("message") or "") for e in events)
    brain.assert_complete()


def test_a_number_nobody_said_made_right_the_second_time_runs(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=70, b=17), tool_call("add", a=10, b=5), "It is 15."])
    engine_with(brain, [demo_tools]).continue_chat(user("add ten and five"))
    assert demo_tools.calls == [("add", {"a": 10, "b": 5})]
    brain.assert_complete()
