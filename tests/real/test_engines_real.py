"""Both loop engines on the real model: both templates, this project's brain and ovos-chat-openai-plugin.

Tasks are small but real: the weekday via the clock, a file read then arithmetic, a
greeting that needs no tool, a shipped persona through the real ``ovos-persona``,
and the first sentence spoken before the model has finished.
"""

from __future__ import annotations

import copy
import datetime
import json
import time
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin

from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.messages import AgentMessage, MessageRole

pytestmark = pytest.mark.timeout(1200)  # two shared CPU cores: a turn can take minutes under load
REPO = Path(__file__).resolve().parents[2]
BRAINS = ["ovos-openai-brain", "ovos-chat-openai-plugin"]
ENGINES = ["ovos-react-loop", "ovos-native-toolcall-loop"]


def brain_section(brain: str, url: str) -> dict[str, Any]:
    if brain == "ovos-chat-openai-plugin":
        # temperature: the plugin's default is 0.5; sampled at 0.5 the bundled model sometimes
        # answers the weekday without a tool call (a flaky test, seen once in a clean-clone run)
        return {
            "api_url": url,
            "key": "sk-no-key",
            "allow_system_prompts": True,
            "max_tokens": 256,
            "temperature": 0,
        }
    return {"api_url": url, "temperature": 0, "max_tokens": 256, "timeout": 600}


def build(engine: str, brain: str, url: str, toolboxes: list[str], **sections: Any) -> Any:
    config = {
        "brain": brain,
        brain: brain_section(brain, url),
        "toolboxes": toolboxes,
        "time_budget": 1000,  # the default 120 s is for a quiet machine, not a shared CI runner
        # ovos-chat-openai-plugin gives up on a request after a fixed 60 s, less than this CPU needs
        # to read a new ~1,500-token system prompt and tool list. The warm-up (what the shipped
        # personas do) gets that prefix into llama-server's cache first: even when the plugin
        # abandons the warm-up request, the server finishes reading it.
        "warm_up": brain == "ovos-chat-openai-plugin",
        **sections,
    }
    return load_chat_plugin(engine)(config=config)


class Steps:
    def __init__(self, engine: Any) -> None:
        self.events: list[StepEvent] = []
        engine.add_step_listener(self.events.append)

    @property
    def tools_called(self) -> list[str]:
        return [e.data["name"] for e in self.events if e.kind == "tool_call"]

    def __repr__(self) -> str:
        return "\n".join(f"{e.kind}: {json.dumps(e.data, default=str)[:300]}" for e in self.events)


def ask(engine: Any, question: str) -> str:
    reply = engine.continue_chat([AgentMessage(role=MessageRole.USER, content=question)], session_id="real")
    return str(reply.content)


# Tool template first, then stock: the fixture keeps one server and restarts it once.
MATRIX = [(t, e, b) for t in ("tools", "stock") for e in ENGINES for b in BRAINS]


@pytest.mark.parametrize(("template", "engine_name", "brain"), MATRIX)
def test_weekday_via_the_clock(
    request: pytest.FixtureRequest, template: str, engine_name: str, brain: str
) -> None:
    url = request.getfixturevalue("real_server_url" if template == "tools" else "real_server_url_stock")
    engine = build(engine_name, brain, url, ["ovos-clock-tools", "ovos-math-tools"])
    steps = Steps(engine)
    answer = ask(engine, "What day of the week is it today?")
    today = datetime.date.today().strftime("%A")
    assert any(name.startswith(("get_weekday", "get_current_datetime")) for name in steps.tools_called), steps
    assert today.lower() in answer.lower(), (answer, steps)


def test_read_a_file_then_compute(real_server_url: str, tmp_path: Path) -> None:
    (tmp_path / "stock.txt").write_text("The warehouse holds 128 boxes. Each box holds 12 bottles.\n")
    engine = build(
        "ovos-react-loop",
        "ovos-openai-brain",
        real_server_url,
        ["ovos-filesystem-tools", "ovos-math-tools"],
        **{"ovos-filesystem-tools": {"root_path": str(tmp_path)}},
    )
    steps = Steps(engine)
    # The steps are named: a 1.5B model otherwise sometimes guesses the file into a formula.
    question = (
        "First read the file stock.txt with read_file. "
        "Then use evaluate_expression to calculate how many bottles the warehouse holds in total."
    )
    answer = ask(engine, question)
    assert "read_file" in steps.tools_called, steps
    assert "1536" in answer.replace(",", ""), (answer, steps)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_a_greeting_needs_no_tool(real_server_url: str, engine_name: str) -> None:
    engine = build(engine_name, "ovos-openai-brain", real_server_url, ["ovos-clock-tools", "ovos-math-tools"])
    steps = Steps(engine)
    answer = ask(engine, "Hello! Nice to meet you.")
    assert steps.tools_called == [], steps
    assert answer.strip()


def test_shipped_persona_through_ovos_persona(real_server_url: str) -> None:
    from ovos_bus_client.session import Session
    from ovos_persona import Persona

    persona = json.loads((REPO / "personas" / "tool-test.json").read_text())
    config = copy.deepcopy(persona)
    handler = config["handlers"][0]
    config[handler]["ovos-openai-brain"]["api_url"] = real_server_url  # the fixture's port, not 8091
    config[handler]["time_budget"] = 1000
    bot = Persona(persona["name"], config)
    session = Session("real-persona")
    answer = bot.chat([AgentMessage(role=MessageRole.USER, content="What is 12 times 12?")], session)
    assert "144" in answer
    streamed = list(bot.stream([AgentMessage(role=MessageRole.USER, content="What is 15 times 3?")], session))
    assert "45" in " ".join(streamed)


def test_engine_streams_the_first_sentence_before_the_end(real_server_url: str) -> None:
    engine = build("ovos-react-loop", "ovos-openai-brain", real_server_url, ["ovos-math-tools"])
    question = [
        AgentMessage(
            role=MessageRole.USER, content="Tell me three short facts about the Moon, one sentence each."
        )
    ]
    started = time.monotonic()
    arrivals: list[float] = []
    for _sentence in engine.stream_sentences(question, session_id="stream"):
        arrivals.append(time.monotonic() - started)
    assert len(arrivals) >= 2, arrivals
    assert arrivals[0] < arrivals[-1] - 0.5, arrivals
