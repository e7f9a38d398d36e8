"""The docs' researcher persona, as written, with a reachable brain: search goes through a fake SearXNG.

Everything runs on 127.0.0.1: the brain is ``ovos-chat-openai-plugin`` talking to a scripted
OpenAI-compatible server, and ``ovos-web-search-tools`` asks a fake SearXNG.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, completion
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole
from web_search_servers import FakeSearxng, LocalWebServer, needs_trafilatura

pytest.importorskip("ovos_openai_plugin", reason="ovos-chat-openai-plugin is installed by scripts/bootstrap")

# The docs' example, plus the two sections a machine without internet needs: where the brain is,
# and which search service to ask.
DOCS_RESEARCHER = {
    "name": "researcher",
    "handlers": ["ovos-react-loop"],
    "ovos-react-loop": {
        "brain": "ovos-chat-openai-plugin",
        "toolboxes": ["ovos-math-tools", "ovos-web-search-tools"],
    },
}


@pytest.fixture
def brain_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def searxng() -> Iterator[FakeSearxng]:
    with LocalWebServer() as server:
        yield FakeSearxng(
            server,
            answers={
                "tram 28 lisbon": [
                    {
                        "url": "https://example.org/tram28",
                        "title": "Tram 28",
                        "content": "Tram 28 runs from Martim Moniz to Campo de Ourique.",
                    }
                ]
            },
        )


def call(name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


@needs_trafilatura
def test_the_docs_researcher_persona_searches_through_searxng(
    brain_server: FakeOpenAIServer, searxng: FakeSearxng
) -> None:
    section = dict(DOCS_RESEARCHER["ovos-react-loop"])
    section["ovos-chat-openai-plugin"] = {
        "api_url": brain_server.url,
        "key": "sk-test",
        "allow_system_prompts": True,
    }
    section["ovos-web-search-tools"] = {"searxng_url": searxng.url}
    brain_server.replies = [
        completion(tool_calls=[call("web_search", {"query": "tram 28 lisbon"})]),
        completion("Tram 28 runs from Martim Moniz to Campo de Ourique."),
    ]
    engine = load_chat_plugin("ovos-react-loop")(config=section)

    answer = engine.continue_chat([AgentMessage(MessageRole.USER, "Where does tram 28 run?")])

    assert answer.content == "Tram 28 runs from Martim Moniz to Campo de Ourique."
    assert [q["q"] for q in searxng.queries] == [["tram 28 lisbon"]]
    first, second = brain_server.requests
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"web_search", "fetch_page", "evaluate_expression"} <= offered
    observation = second["messages"][-1]
    assert observation["role"] == "tool"
    result = json.loads(observation["content"])
    assert result["results"][0]["url"] == "https://example.org/tram28"
    assert "untrusted" in result["notice"].lower()


def test_searxng_down_is_an_observation_and_the_turn_still_answers(brain_server: FakeOpenAIServer) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    section = dict(DOCS_RESEARCHER["ovos-react-loop"])
    section["ovos-chat-openai-plugin"] = {
        "api_url": brain_server.url,
        "key": "sk-test",
        "allow_system_prompts": True,
    }
    section["ovos-web-search-tools"] = {"searxng_url": closed, "search_timeout": 2.0}
    brain_server.replies = [
        completion(tool_calls=[call("web_search", {"query": "anything"})]),
        completion("I could not search the web right now."),
    ]
    engine = load_chat_plugin("ovos-react-loop")(config=section)

    answer = engine.continue_chat([AgentMessage(MessageRole.USER, "Search something")])

    assert answer.content == "I could not search the web right now."
    observation = brain_server.requests[1]["messages"][-1]["content"]
    assert "web_search failed" in observation and "cannot be reached" in observation


@needs_trafilatura
def test_doctor_shows_the_toolbox_its_backend_and_the_guard(
    searxng: FakeSearxng, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ovos_agentic_loop.cli import main

    persona = json.loads(json.dumps(DOCS_RESEARCHER))
    persona["ovos-react-loop"]["ovos-web-search-tools"] = {"searxng_url": searxng.url}
    with socket.socket() as probe:  # the brain: a local port nobody listens on, never a real service
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    persona["ovos-react-loop"]["ovos-chat-openai-plugin"] = {"api_url": closed, "key": "sk-test"}
    path = tmp_path / "researcher.json"
    path.write_text(json.dumps(persona))

    assert main(["doctor", str(path)]) == 1  # the brain's server is down: that check fails, the others run

    out = capsys.readouterr().out
    assert "[ok  ] toolbox ovos-web-search-tools: 2 tools: fetch_page, web_search" in out
    assert f"· search: backend searxng at {searxng.url}; at most 5 results" in out
    assert "· SSRF guard: on:" in out
