"""A question that asks several things, once this turn's calls have covered each of them, is
answered: the last result tells the model so. Told nothing, the bundled model asked again for the
weekday it had, then for the percentage, before it was sent to its answer."""

from __future__ import annotations

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._turn.covered import COVERED, asks
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def _toolboxes() -> list:
    plugins = find_toolbox_plugins()
    return [plugins["ovos-clock-tools"](config={}), plugins["ovos-math-tools"](config={})]


def _tool_messages(brain: ScriptedBrain) -> list[str]:
    return [m.content or "" for m in brain.calls[-1].messages if m.role == MessageRole.TOOL]


def test_two_asks_answered_by_two_calls_are_told_to_be_covered_after_the_last() -> None:
    brain = ScriptedBrain(
        [
            tool_call("get_weekday", date="today"),
            tool_call("evaluate_expression", expression="15% of 2350"),
            "It is Friday, and 15% of 2350 is 352.5.",
        ]
    )
    reply = engine_with(brain, _toolboxes()).continue_chat(
        user("What weekday is it today, and what is 15% of 2350?")
    )
    assert reply.content == "It is Friday, and 15% of 2350 is 352.5."
    weekday, percentage = _tool_messages(brain)
    assert not weekday.endswith(COVERED)  # the percentage is still to be asked of a tool
    assert percentage.endswith(COVERED)
    assert len(brain.calls) == 3
    brain.assert_complete()


def test_a_number_the_user_said_that_no_call_used_is_a_part_not_covered() -> None:
    brain = ScriptedBrain(
        [
            tool_call("get_weekday", date="today"),
            tool_call("evaluate_expression", expression="2350 * 0.1"),
            tool_call("evaluate_expression", expression="15% of 2350"),
            "It is Friday, and 15% of 2350 is 352.5.",
        ]
    )
    engine_with(brain, _toolboxes()).continue_chat(user("What weekday is it today, and what is 15% of 2350?"))
    told = _tool_messages(brain)
    assert [t.endswith(COVERED) for t in told] == [False, False, True]


def test_a_question_of_one_ask_is_left_to_the_model() -> None:
    brain = ScriptedBrain(
        [
            tool_call("get_weekday", date="today"),
            tool_call("evaluate_expression", expression="15% of 2350"),
            "It is Friday, and 352.5.",
        ]
    )
    engine_with(brain, _toolboxes()).continue_chat(user("Tell me the weekday and work out 15% of 2350."))
    assert not any(COVERED in t for t in _tool_messages(brain))


def test_the_same_call_twice_covers_one_ask_only() -> None:
    brain = ScriptedBrain(
        [
            tool_call("get_weekday", date="today"),
            tool_call("get_weekday", date="today", tz="UTC"),
            "Friday.",
        ]
    )
    engine_with(brain, _toolboxes()).continue_chat(user("What weekday is it, and what is 15% of 2350?"))
    assert not any(COVERED in t for t in _tool_messages(brain))


@pytest.mark.parametrize(
    ("question", "lang", "count"),
    [
        ("What weekday is it today, and what is 15% of 2350?", "en-US", 2),
        ("how many days until christmas and which weekday is it", "en-US", 2),
        ("what time is it in Tokyo and in London", "en-US", 1),
        ("Tell me the weekday and work out 15% of 2350.", "en-US", 0),
        ("Qual é o dia da semana hoje e quanto é 15% de 2350?", "pt-PT", 2),
        ("¿Qué día es hoy y cuánto es el 15% de 2350?", "es-ES", 2),
        ("Welcher Wochentag ist heute, und was sind 15% von 2350?", "de-DE", 2),
        ("What's the time? And how much is 2 plus 2?", "en-US", 2),
    ],
)
def test_the_asks_of_a_question_are_its_clauses_that_open_with_a_question_word(
    question: str, lang: str, count: int
) -> None:
    assert asks(question, lang) == count
