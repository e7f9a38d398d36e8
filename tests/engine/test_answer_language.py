"""The answer comes in the session's language: the system prompt of every path says which (issue 21).

Seen on the spoken suite: a Spanish or German question with ``lang`` set was answered in English
or with a bare number once the (English) tool results were in the transcript."""

from __future__ import annotations

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user

from ovos_agentic_loop._protocol import NATIVE_GUIDANCE
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


@pytest.mark.parametrize(
    ("lang", "name"),
    [("es-ES", "Spanish"), ("pt-PT", "Portuguese"), ("de", "German"), ("pt_BR", "Portuguese")],
)
def test_a_session_in_another_language_is_asked_for_the_answer_in_it(
    demo_tools: DemoToolBox, lang: str, name: str
) -> None:
    brain = ScriptedBrain(["Hola."])
    engine_with(brain, [demo_tools], system_prompt="You are Ana.").continue_chat(user("hola"), lang=lang)
    system = brain.calls[0].messages[0].content
    assert system.startswith("You are Ana.\n\n")
    assert f"always answer in {name}" in system
    assert system.endswith(NATIVE_GUIDANCE)


@pytest.mark.parametrize("lang", [None, "en-US", "en", "xx-YY", "  "])
def test_english_unknown_or_no_language_leaves_the_prompt_as_it_was(
    demo_tools: DemoToolBox, lang: str | None
) -> None:
    brain = ScriptedBrain(["Hi."])
    engine_with(brain, [demo_tools], system_prompt="You are Ana.").continue_chat(user("hi"), lang=lang)
    assert brain.calls[0].messages[0].content == f"You are Ana.\n\n{NATIVE_GUIDANCE}"


def test_the_forced_answer_is_asked_for_in_the_language_too(demo_tools: DemoToolBox) -> None:
    again = tool_call("add", a=2, b=2)
    brain = ScriptedBrain([again, again, again, again, "Son cuatro."])
    engine = engine_with(brain, [demo_tools], max_iterations=2)
    answer = engine.continue_chat(user("qué hora es"), lang="es-ES")
    assert answer.content
    forced = brain.calls[-1]
    assert forced.tools == []  # the last call is the forced answer, without tools
    assert "always answer in Spanish" in forced.messages[0].content


def test_another_loop_asks_for_the_language_as_well() -> None:
    brain = ScriptedBrain(["Thought: easy.\nFinal Answer: Vier."])
    engine = engine_with(brain, [], entry_point="ovos-chain-of-thought-loop")
    engine.continue_chat(user("was ist zwei plus zwei"), lang="de-DE")
    assert "always answer in German" in brain.calls[0].messages[0].content
