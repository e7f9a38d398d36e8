"""The loop's built-in guidance for small models: where it goes, what it asks for, what it costs."""

from __future__ import annotations

from conftest import DemoToolBox
from engine_helpers import engine_with, user

from ovos_agentic_loop._text.protocol import NATIVE_GUIDANCE, text_tool_prompt
from ovos_agentic_loop.testing import ScriptedBrain

#: Paid on every first request of a persona: about 60 tokens at most.
GUIDANCE_BUDGET_CHARS = 320


def test_native_guidance_follows_the_persona_prompt(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(["hi"])
    engine_with(brain, [demo_tools], system_prompt="You are Ana.").continue_chat(user("hello"))
    system = brain.calls[0].messages[0].content
    assert system == f"You are Ana.\n\n{NATIVE_GUIDANCE}"


def test_no_guidance_without_tools() -> None:
    brain = ScriptedBrain(["hi"])
    engine_with(brain, [], system_prompt="You are Ana.").continue_chat(user("hello"))
    assert brain.calls[0].messages[0].content == "You are Ana."


def test_guidance_asks_for_what_small_models_skip() -> None:
    for prompt in (NATIVE_GUIDANCE, text_tool_prompt([])):
        lowered = prompt.lower()
        assert "every calculation" in lowered and "in your head" in lowered
        assert "greetings" in lowered and "short sentences" in lowered
    assert "do not describe the call" in NATIVE_GUIDANCE.lower()
    assert "one tool at a time" in NATIVE_GUIDANCE.lower()


def test_guidance_stays_short() -> None:
    assert len(NATIVE_GUIDANCE) <= GUIDANCE_BUDGET_CHARS
    assert len(text_tool_prompt([])) <= 700
