"""Each of the six other loops answers one tool question on the bundled model.

One question per loop, with the math tools and the derived tool-call template: the
loop must call a tool somewhere in its sub-steps and the answer must hold the number.
Run one file at a time on a shared machine; a loop makes several model calls.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin

from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.messages import AgentMessage, MessageRole

pytestmark = pytest.mark.timeout(1800)  # several model calls per turn on two shared CPU cores

LOOPS = [
    "ovos-plan-execute-loop",
    "ovos-reflexion-loop",
    "ovos-self-ask-loop",
    "ovos-chain-of-thought-loop",
    "ovos-critic-loop",
    "ovos-tree-of-thoughts-loop",
]
QUESTION = "Use evaluate_expression to calculate 37 * 43. What is the result?"


def build(engine: str, url: str) -> Any:
    config = {
        "brain": "ovos-openai-brain",
        "ovos-openai-brain": {"api_url": url, "temperature": 0, "max_tokens": 256, "timeout": 600},
        "toolboxes": ["ovos-math-tools"],
        "time_budget": 1500,
        "max_iterations": 12,
    }
    return load_chat_plugin(engine)(config=config)


@pytest.mark.parametrize("engine_name", LOOPS)
def test_each_loop_answers_a_tool_question(real_server_url: str, engine_name: str) -> None:
    engine = build(engine_name, real_server_url)
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    spoken = list(
        engine.stream_sentences([AgentMessage(role=MessageRole.USER, content=QUESTION)], session_id="real")
    )
    answer = " ".join(spoken)
    trace = "\n".join(f"{e.kind}: {json.dumps(e.data, default=str)[:300]}" for e in events)
    assert "evaluate_expression" in [e.data.get("name") for e in events if e.kind == "tool_call"], trace
    assert "1591" in answer.replace(",", ""), (answer, trace)
    final = events[-1]
    calls = sum(e.kind == "model_call" for e in events)
    # One line per loop in the -s output: the figure quoted in the report (calls, seconds, answer).
    print(f"\n[loops-real] {engine_name}: {calls} model calls, {final.data.get('duration_s')} s, {answer!r}")
    assert final.kind == "final" and final.data["reason"] != "time_budget", trace
