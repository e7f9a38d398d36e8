"""The model reads what the user said with its spelled numbers in digits.

The bundled model copies digits faithfully and reads spelled numbers wrong: "cuánto es novecientos
dividido entre doce" was computed as 9 / 12. What the user said reaches the model with the numbers
read by ovos-number-parser in the session's language; the host's history and the loop's own
judgement keep the words as said."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def said(brain: ScriptedBrain, call: int = 0) -> list[str]:
    """The user messages the model was sent, without the answer-language line."""
    return [m.content.split("\n\n(")[0] for m in brain.calls[call].messages if m.role == MessageRole.USER]


@pytest.mark.parametrize(
    ("question", "lang", "sent"),
    [
        ("cuánto es novecientos dividido entre doce", "es-ES", "cuánto es 900 dividido entre 12"),
        ("quanto é dezassete vezes vinte e três", "pt-PT", "quanto é 17 vezes 23"),
        ("was ist zweihundertvierzig geteilt durch acht", "de-DE", "was ist 240 geteilt durch 8"),
        ("how many grams is two and a half pounds", "en-US", "how many grams is 2.5 pounds"),
        # a percent said in words stays words: "por cento" is no hundred
        ("quanto é quinze por cento de quatrocentos", "pt-PT", "quanto é 15 por cento de 400"),
        ("y el treinta por ciento", "es-ES", "y el 30 por ciento"),
    ],
)
def test_spelled_numbers_reach_the_model_in_digits(
    demo_tools: Any, question: str, lang: str, sent: str
) -> None:
    brain = ScriptedBrain(["Done."])
    engine_with(brain, [demo_tools]).continue_chat(user(question), lang=lang)
    assert said(brain) == [sent]


@pytest.mark.parametrize(
    "question",
    ["which one is bigger", "What weekday is it today, and what is 15% of 2350?", "read shopping.txt"],
)
def test_a_question_without_a_spelled_quantity_reaches_the_model_as_said(
    demo_tools: Any, question: str
) -> None:
    brain = ScriptedBrain(["Done."])
    engine_with(brain, [demo_tools]).continue_chat(user(question), lang="en-US")
    assert said(brain) == [question]


def test_earlier_utterances_too_and_every_call_of_the_turn(demo_tools: Any) -> None:
    brain = ScriptedBrain([tool_call("add", a=70, b=23), "It is 93."])
    history = [
        AgentMessage(MessageRole.USER, "what is twenty three plus seventeen"),
        AgentMessage(MessageRole.ASSISTANT, "It is 40."),
        AgentMessage(MessageRole.USER, "no i meant seventy"),
    ]
    engine = engine_with(brain, [demo_tools])
    assert engine.continue_chat(history, lang="en-US").content == "It is 93."
    for call in (0, 1):
        assert said(brain, call) == ["what is 23 plus 17", "no i meant 70"]
