"""The loop behind the REAL ovos-persona-server: a persona is offered only its own tools plus the
request's client tools, although the server hands down every installed toolbox's tools as well.

ovos-persona-server is installed by scripts/bootstrap (in a second step, like ovos-persona).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, answer
from optional_packages import require

require("fastapi")
require("ovos_persona_server")

from fastapi.testclient import TestClient  # noqa: E402 - after the skip of a missing package
from ovos_persona_server import create_persona_app  # noqa: E402
from ovos_persona_server.server_tools import reset_registry_cache  # noqa: E402

MATH_TOOLS = ["evaluate_expression", "unit_convert", "statistics_summary", "solve_equation"]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@pytest.fixture
def brain_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def persona_server(tmp_path: Path, brain_url: str, **loop: Any) -> TestClient:
    persona = {
        "name": "maths",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": brain_url, "max_retries": 0},
            "toolboxes": ["ovos-math-tools"],
            **loop,
        },
        # ovos-persona-server builds every installed toolbox with the persona's top-level section of
        # its name (or the whole persona when there is none).
        "ovos-filesystem-tools": {},
        "ovos-shell-tools": {},
    }
    path = tmp_path / "maths.json"
    path.write_text(json.dumps(persona))
    reset_registry_cache()  # the server caches its toolboxes per process; each test builds its own
    return TestClient(create_persona_app(str(path)))


def ask(client: TestClient, text: str) -> dict[str, Any]:
    body = {"model": "maths", "messages": [{"role": "user", "content": text}], "tools": [WEATHER]}
    response = client.post("/openai/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def offered(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools") or []]


def test_a_math_persona_is_offered_its_own_tools_and_the_client_tools_only(
    brain_server: FakeOpenAIServer, tmp_path: Path, ovos_log
) -> None:
    arguments = '{"city": "Oslo"}'
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
    brain_server.replies += [answer(tool_calls=[call]), answer("Two.")]
    client = persona_server(tmp_path, brain_server.url)

    reply = ask(client, "Weather in Oslo?")
    second = ask(client, "1+1?")

    assert sorted(offered(brain_server.requests[0])) == sorted([*MATH_TOOLS, "get_weather"])
    assert offered(brain_server.requests[1]) == offered(brain_server.requests[0])
    # The client tool call is relayed to the API caller, not run anywhere.
    (relayed,) = reply["choices"][0]["message"]["tool_calls"]
    assert relayed["function"]["name"] == "get_weather"
    assert reply["choices"][0]["finish_reason"] == "tool_calls"
    assert second["choices"][0]["message"]["content"] == "Two."
    # The server's extra tools are reported once per engine, not on every request.
    warnings = ovos_log.at("warning")
    assert sum("caller tool 'read_file' is ignored" in w for w in warnings) == 1
    assert sum("caller tool 'evaluate_expression' dropped" in w for w in warnings) == 1


def test_a_persona_that_opts_in_gets_the_servers_toolboxes(
    brain_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    brain_server.replies.append(answer("Fine."))
    client = persona_server(tmp_path, brain_server.url, caller_toolboxes=True)
    ask(client, "hi")
    names = offered(brain_server.requests[0])
    assert {"read_file", "run_command", "get_weather", *MATH_TOOLS} <= set(names)
