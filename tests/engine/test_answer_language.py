"""The answer comes in the session's language: every path asks for it.

Seen on the spoken suite: a Spanish or German question with ``lang`` set was answered in English
or with a bare number once the (English) tool results were in the transcript. With tools, the line
follows the user's question, not the system prompt: the tool list after the system prompt stays in
the server's prompt cache whatever the session's language (a line in the system prompt would make
the bundled model re-read the whole tool list for every Portuguese question)."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._text.protocol import NATIVE_GUIDANCE
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


@pytest.mark.parametrize(
    ("lang", "name"),
    [("es-ES", "Spanish"), ("pt-PT", "Portuguese"), ("de", "German"), ("pt_BR", "Portuguese")],
)
def test_the_question_is_followed_by_the_language_the_answer_must_be_in(
    demo_tools: Any, lang: str, name: str
) -> None:
    brain = ScriptedBrain(["Hola."])
    engine_with(brain, [demo_tools], system_prompt="You are Ana.").continue_chat(user("hola"), lang=lang)
    sent = brain.calls[0].messages
    assert sent[0].content == f"You are Ana.\n\n{NATIVE_GUIDANCE}"  # the cached prefix is unchanged
    assert sent[-1].role == MessageRole.USER
    assert sent[-1].content.startswith("hola\n\n(") and f"always answer in {name}" in sent[-1].content


def test_the_line_stays_with_the_question_through_the_tool_calls(demo_tools: Any) -> None:
    brain = ScriptedBrain([tool_call("add", a=2, b=2), "Son cuatro."])
    engine = engine_with(brain, [demo_tools])
    assert engine.continue_chat(user("cuánto es dos más dos"), lang="es-ES").content == "Son cuatro."
    second = brain.calls[1].messages
    questions = [m for m in second if m.role == MessageRole.USER]
    assert len(questions) == 1 and "always answer in Spanish" in questions[0].content
    assert second[-1].role == MessageRole.TOOL  # the result comes after it, as before
    brain.assert_complete()


@pytest.mark.parametrize("lang", [None, "en-US", "en", "xx-YY", "  "])
def test_english_unknown_or_no_language_leaves_the_messages_as_they_were(
    demo_tools: Any, lang: str | None
) -> None:
    brain = ScriptedBrain(["Hi."])
    engine_with(brain, [demo_tools], system_prompt="You are Ana.").continue_chat(user("hi"), lang=lang)
    sent = brain.calls[0].messages
    assert sent[0].content == f"You are Ana.\n\n{NATIVE_GUIDANCE}"
    assert sent[-1].content == "hi"


def test_the_forced_answer_is_asked_for_in_the_language_too(demo_tools: Any) -> None:
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


def test_the_text_protocol_carries_the_line_too(demo_tools: Any) -> None:
    brain = ScriptedBrain(["Final Answer: Quatro."])
    engine = engine_with(brain, [demo_tools], mode="text")
    assert engine.continue_chat(user("quanto é dois mais dois"), lang="pt-PT").content == "Quatro."
    assert "always answer in Portuguese" in brain.calls[0].messages[-1].content


def test_without_the_language_data_the_turn_still_answers(
    demo_tools: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wheel install with langcodes but not its language_data failed every non-English turn
    (``ModuleNotFoundError: language_data``, seen on the bench's own venv): now the line is left out,
    with a warning that says what to install."""
    import langcodes

    from ovos_agentic_loop._text.language import language_name

    def no_data(self: Any, language: str = "en") -> str:
        raise ModuleNotFoundError("No module named 'language_data'")

    monkeypatch.setattr(langcodes.Language, "language_name", no_data)
    language_name.cache_clear()
    try:
        brain = ScriptedBrain(["Hola."])
        answer = engine_with(brain, [demo_tools]).continue_chat(user("hola"), lang="es-ES")
        assert answer.content == "Hola."
        assert brain.calls[0].messages[-1].content == "hola"
    finally:
        language_name.cache_clear()


def _wire(messages: list[Any]) -> list[tuple[Any, ...]]:
    """What a prompt cache compares: each message's role, text and calls."""
    return [(m.role, m.content, [(c.name, c.arguments) for c in m.tool_calls or []]) for m in messages]


@pytest.mark.parametrize("entry_point", ["ovos-react-loop", "ovos-native-toolcall-loop"])
def test_a_follow_up_prompt_begins_as_the_turn_before_it_ended(demo_tools: Any, entry_point: str) -> None:
    """Every question keeps its language line, so the server reads only what a follow-up adds
    (its cached prompt is the turn before's last request) instead of everything after the first
    question."""
    from ovos_plugin_manager.templates.agents import AgentMessage

    brain = ScriptedBrain([tool_call("add", a=2, b=2), "Son cuatro."])
    engine = engine_with(brain, [demo_tools], entry_point, memory="process")
    first = [AgentMessage(MessageRole.USER, "cuánto es dos más dos")]
    answer = engine.continue_chat(first, session_id="s", lang="es-ES")
    ended = brain.calls[-1].messages
    brain.add("Son ocho.")
    engine.continue_chat(
        [*first, answer, AgentMessage(MessageRole.USER, "y el doble")], session_id="s", lang="es-ES"
    )
    follow_up = brain.calls[-1].messages
    assert _wire(follow_up[: len(ended)]) == _wire(ended)
    asked = [m.content for m in follow_up if m.role == MessageRole.USER]
    assert len(asked) == 2 and all("always answer in Spanish" in q for q in asked)
    brain.assert_complete()
