"""Small helpers for the engine tests: build an engine through its entry point."""

from __future__ import annotations

import re
from typing import Any

from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain


def user(text: str) -> list[AgentMessage]:
    return [AgentMessage(role=MessageRole.USER, content=text)]


def engine_with(
    brain: ScriptedBrain, toolboxes: list | None = None, entry_point: str = "ovos-react-loop", **config: Any
):
    cls = load_chat_plugin(entry_point)
    assert cls is not None, f"{entry_point} is not installed"
    return cls(config=config, brain=brain, toolboxes=toolboxes or [])


#: Every chat-engine entry point that streams, and the modes each runs in. The stream checks
#: (tests/engine/test_stream_*.py) run over all of them: a new loop that streams adds its name here.
STREAMING_ENGINES: list[str] = ["ovos-react-loop", "ovos-native-toolcall-loop"]
MODES: list[str] = ["auto", "text", "native"]
ENGINES_AND_MODES: list[tuple[str, str]] = [(e, m) for e in STREAMING_ENGINES for m in MODES]


def streamed_and_answered(
    entry_point: str, mode: str, script: list, toolboxes_factory, question: str = "?"
) -> tuple[str, str, list[str]]:
    """Run one script through ``stream_tokens`` and the same script through ``continue_chat``
    (each with its own brain and toolboxes); return the streamed text, the answer, the sentences."""
    results = []
    for how in ("stream_tokens", "continue_chat", "stream_sentences"):
        brain = ScriptedBrain(list(script))
        engine = engine_with(brain, toolboxes_factory(), entry_point=entry_point, mode=mode)
        if how == "continue_chat":
            results.append(engine.continue_chat(user(question)).content)
        elif how == "stream_tokens":
            results.append("".join(engine.stream_tokens(user(question))))
        else:
            results.append(list(engine.stream_sentences(user(question))))
        brain.assert_complete()
    return results[0], results[1], results[2]


_RESULT = re.compile(r'"result":\s*"?([^",}]+)')


def saying_the_result(call: BrainCall) -> str:
    """A scripted last answer that states the calculator's result, as an answer must (an answer
    after a calculation that does not say its number is sent back)."""
    found = _RESULT.search(call.messages[-1].content or "")
    assert found, f"no result in the last message: {call.messages[-1].content!r}"
    return f"It is {found.group(1)}."
