"""Ask before acting on the bundled model: asked to write a note under
``confirm_tools: ["write_file"]``, the first turn asks and writes nothing; "yes" writes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin

from ovos_agentic_loop._confirmation.pending import mark_of, without_marks
from ovos_agentic_loop.messages import AgentMessage, MessageRole

pytestmark = pytest.mark.timeout(900)
ASK = "Write a note to reminder.txt saying: call mom at six."


def test_the_bundled_model_asks_before_writing_and_a_yes_writes(real_server_url: str, tmp_path: Path) -> None:
    config = {
        "brain": "ovos-openai-brain",
        "ovos-openai-brain": {"api_url": real_server_url, "temperature": 0, "timeout": 600},
        "toolboxes": ["ovos-filesystem-tools"],
        "ovos-filesystem-tools": {"root_path": str(tmp_path), "allow_write": True},
        "confirm_tools": ["write_file"],
        "time_budget": 600,
    }
    engine = load_chat_plugin("ovos-react-loop")(config=config)
    events: list[Any] = []
    engine.add_step_listener(events.append)
    # turn 1, spoken as ovos-persona speaks it; what it remembers is the sentences joined
    spoken = " ".join(s.strip() for s in engine.stream_sentences([AgentMessage(MessageRole.USER, ASK)]))
    asked = [e for e in events if e.kind == "confirm"]
    assert asked and asked[0].tool == "write_file", (spoken, [(e.kind, e.data) for e in events])
    assert mark_of(spoken) and "reminder" in without_marks(spoken).lower(), spoken
    assert list(tmp_path.iterdir()) == []
    path, content = asked[0].arguments["path"], asked[0].arguments["content"]
    assert "mom" in content.lower()
    # turn 2: yes, on the history the caller sends back
    history = [
        AgentMessage(MessageRole.USER, ASK),
        AgentMessage(MessageRole.ASSISTANT, spoken),
        AgentMessage(MessageRole.USER, "yes"),
    ]
    answer = engine.continue_chat(history).content
    assert (tmp_path / path).read_text() == content, answer
    writes = [e for e in events if e.kind == "tool_call" and e.name == "write_file"]
    assert len(writes) == 1, [(e.kind, e.data) for e in events]
    assert answer and not mark_of(answer)
    print(f"\nasked: {without_marks(spoken)!r}\nanswered: {answer!r}")  # for the run's log (-s)
