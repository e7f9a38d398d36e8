"""Helpers for the loop tests: build a loop through its entry point; a brain that plays every role."""

from __future__ import annotations

import re
from typing import Any

from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.testing import BrainCall, ScriptedBrain

LOOPS = [
    "ovos-plan-execute-loop",
    "ovos-reflexion-loop",
    "ovos-self-ask-loop",
    "ovos-chain-of-thought-loop",
    "ovos-critic-loop",
    "ovos-tree-of-thoughts-loop",
]
ALL_ENGINES = ["ovos-react-loop", "ovos-native-toolcall-loop", *LOOPS]

# What must never reach the user: the protocol of every loop.
SCRATCH = re.compile(
    r"final answer|follow up|action:|observation:|answer:|verified|satisfactory|reasoning|step \d|\b\d+\.\s",
    re.IGNORECASE,
)


def user(text: str) -> list[AgentMessage]:
    return [AgentMessage(role=MessageRole.USER, content=text)]


def loop_with(entry_point: str, brain: ScriptedBrain, toolboxes: list | None = None, **config: Any):
    cls = load_chat_plugin(entry_point)
    assert cls is not None, f"{entry_point} is not installed"
    return cls(config=config, brain=brain, toolboxes=toolboxes or [])


def system_of(call: BrainCall) -> str:
    return "\n".join(m.content for m in call.messages if m.role == MessageRole.SYSTEM)


def everything(call: BrainCall) -> str:
    return "\n".join(m.content or "" for m in call.messages)


def oracle(call: BrainCall) -> str:
    """Plays every role of every loop, answering the word the question names ("alpha"/"beta").

    The answer depends only on what THIS call was sent, so two sessions that saw each
    other's messages would get the other's word.
    """
    text = everything(call)
    word = "alpha" if "alpha" in text else "beta" if "beta" in text else "nothing"
    system = system_of(call)
    if "You are planning" in system:
        return "1. Look up the word\n2. Say the word"
    if "SATISFACTORY" in system:
        return "SATISFACTORY"
    if "Follow up:" in system:
        if "Intermediate answer" in text:
            return f"So the final answer is: The word is {word}."
        return f"Follow up: Which word is it ({word})?"
    if "Final Answer: <the answer" in system:
        return f"First I read the question. It names {word}.\nFinal Answer: The word is {word}."
    if "VERIFIED" in system:
        return "VERIFIED"
    if "Propose" in system:
        return f"1. The question names {word}. ANSWER: {word}\n2. Guess at random."
    if "Rate how much" in system:
        return "1: 9\n2: 2"
    return f"The word is {word}."
