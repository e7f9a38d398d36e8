"""Ask before acting behind the real hosts, which send back text only: ovos-persona
(its short-term memory remembers the spoken sentences, joined) and ovos-persona-server's OpenAI
API (a client sends the assistant's content back). The yes of turn 2 runs the call of turn 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, answer
from optional_packages import require

from ovos_agentic_loop._confirmation.pending import mark_of, without_marks

WRITE = {
    "id": "c1",
    "type": "function",
    "function": {"name": "write_file", "arguments": json.dumps({"path": "note.txt", "content": "call mom"})},
}


def persona(brain_url: str, root: Path) -> dict[str, Any]:
    return {
        "name": "notes",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": brain_url, "max_retries": 0},
            "toolboxes": ["ovos-filesystem-tools"],
            "ovos-filesystem-tools": {"root_path": str(root), "allow_write": True},
            "confirm_tools": ["write_file"],
        },
        "ovos-filesystem-tools": {"root_path": str(root)},
        "ovos-shell-tools": {},
    }


@pytest.fixture
def brain() -> Any:
    with FakeOpenAIServer() as fake:
        yield fake


def test_ovos_persona_remembers_the_question_and_the_yes_writes(
    brain: FakeOpenAIServer, tmp_path: Path
) -> None:
    require("ovos_persona")
    from ovos_bus_client.session import Session
    from ovos_persona import Persona

    brain.replies += [answer(tool_calls=[WRITE]), answer("I wrote it.")]
    bot = Persona("notes", persona(brain.url, tmp_path))
    session = Session("kitchen")
    try:
        spoken = list(bot.stream(bot.get_messages("note: call mom", session), session))
        bot.remember("note: call mom", " ".join(s.strip() for s in spoken), session)  # as PersonaService does
        assert not (tmp_path / "note.txt").exists()
        again = list(bot.stream(bot.get_messages("yes", session), session))
    finally:
        bot.solvers.shutdown()
    assert [without_marks(s) for s in spoken] == ["Should I write 'call mom' to note.txt?"]
    assert again == ["I wrote it."]
    assert (tmp_path / "note.txt").read_text() == "call mom"


def test_persona_server_clients_send_the_question_back_and_the_yes_writes(
    brain: FakeOpenAIServer, tmp_path: Path
) -> None:
    require("fastapi")
    require("ovos_persona_server")
    from fastapi.testclient import TestClient
    from ovos_persona_server import create_persona_app
    from ovos_persona_server.server_tools import reset_registry_cache

    path = tmp_path / "notes.json"
    path.write_text(json.dumps(persona(brain.url, tmp_path / "files")))
    (tmp_path / "files").mkdir()
    reset_registry_cache()
    client = TestClient(create_persona_app(str(path)))
    brain.replies += [answer(tool_calls=[WRITE]), answer("I wrote it.")]
    messages = [{"role": "user", "content": "note: call mom"}]
    first = client.post(
        "/openai/v1/chat/completions", json={"model": "notes", "messages": messages, "user": "ana"}
    )
    assert first.status_code == 200, first.text
    question = first.json()["choices"][0]["message"]["content"]
    assert without_marks(question) == "Should I write 'call mom' to note.txt?" and mark_of(question)
    assert not (tmp_path / "files" / "note.txt").exists()
    messages += [{"role": "assistant", "content": question}, {"role": "user", "content": "yes"}]
    second = client.post(
        "/openai/v1/chat/completions", json={"model": "notes", "messages": messages, "user": "ana"}
    )
    assert second.json()["choices"][0]["message"]["content"] == "I wrote it."
    assert (tmp_path / "files" / "note.txt").read_text() == "call mom"
