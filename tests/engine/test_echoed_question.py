"""An answer that says the user's question back after the tool answered it is sent back with the
result, in any language: on the stock template, "quanto é quinze por cento de quatrocentos" was
answered "Quanto é 15 por cento de 400?" after the calculator returned 60."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


@pytest.mark.parametrize(
    ("question", "lang", "echo", "answer"),
    [
        ("quanto é quinze por cento de quatrocentos", "pt-PT", "Quanto é 15 por cento de 400?", "São 60."),
        (
            "cuánto es el quince por ciento de cuatrocientos",
            "es-ES",
            "¿Cuánto es el 15 por ciento de 400?",
            "Es 60.",
        ),
        ("whats fifteen percent of four hundred", "en-US", "What is 15 percent of 400?", "It is 60."),
    ],
)
def test_the_question_said_back_is_sent_back_with_the_result(
    question: str, lang: str, echo: str, answer: str
) -> None:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={})
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="15% of 400"), echo, answer])
    assert engine_with(brain, [maths]).continue_chat(user(question), lang=lang).content == answer
    told = brain.calls[-1].messages[-1]
    assert told.role == MessageRole.USER and "The result was:" in told.content and "60" in told.content


def test_an_answer_that_states_the_result_with_the_questions_words_stands() -> None:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={})
    stated = "Quinze por cento de quatrocentos é 60."
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="15% of 400"), stated])
    reply = engine_with(brain, [maths]).continue_chat(
        user("quanto é quinze por cento de quatrocentos"), lang="pt-PT"
    )
    assert reply.content == stated
    brain.assert_complete()


def test_any_answer_without_the_calculators_number_is_sent_back_with_it() -> None:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={})
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="900 / 12"),
            "Thank you for the information.",
            "It is 75.",
        ]
    )
    assert (
        engine_with(brain, [maths]).continue_chat(user("divide nine hundred by twelve")).content
        == "It is 75."
    )
    assert "75" in brain.calls[-1].messages[-1].content


def test_done_after_a_calculation_is_no_answer_but_after_another_tool_it_stands(
    demo_tools: Any,
) -> None:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={})
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="15% of 240"), "Done.", "It is 36."])
    assert engine_with(brain, [maths]).continue_chat(user("What is 15% of 240?")).content == "It is 36."
    brain = ScriptedBrain([tool_call("add", a=1, b=2), "Done."])
    assert engine_with(brain, [demo_tools]).continue_chat(user("add 1 and 2 to the tally")).content == "Done."
    brain.assert_complete()
