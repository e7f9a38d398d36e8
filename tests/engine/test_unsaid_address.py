"""A web address nobody gave is not sent: offered only a web request tool for questions it does
not fit (BFCL's live irrelevance entries), the bundled model made addresses up. An address the
user said, or a tool returned, is sent."""

from __future__ import annotations

from typing import Any

from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolBox
from pydantic import BaseModel

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


class GetArgs(BaseModel):
    url: str
    params: dict[str, Any] = {}


class Page(BaseModel):
    text: str


class WebBox(ToolBox):
    def __init__(self) -> None:
        self.fetched: list[str] = []
        super().__init__("test-web", config={})

    def discover_tools(self) -> list[AgentTool]:
        return [AgentTool("requests_get", "Send a GET request to a URL.", GetArgs, Page, self._get)]

    def _get(self, args: GetArgs) -> Page:
        self.fetched.append(args.url)
        return Page(text="ok")


def test_an_address_nobody_gave_is_not_sent_even_made_again() -> None:
    web = WebBox()
    made_up = tool_call(
        "requests_get", url="https://api.openweathermap.org/data?lat=37.42&appid=your_api_key"
    )
    forced = "I cannot look that address up with the tools I have."
    brain = ScriptedBrain([made_up, made_up, forced])
    answer = engine_with(brain, [web]).continue_chat(
        user("can you provide the address for latitude 37.42 and longitude -122.08")
    )
    assert web.fetched == []
    assert brain.calls[1].last.content.startswith("Not run: api.openweathermap.org (url) is no address")
    assert answer.content == forced
    brain.assert_complete()


def test_an_address_the_user_said_is_sent() -> None:
    web = WebBox()
    brain = ScriptedBrain([tool_call("requests_get", url="https://www.example.com/status"), "It says ok."])
    engine_with(brain, [web]).continue_chat(user("get the page at example.com/status"))
    assert web.fetched == ["https://www.example.com/status"]
    brain.assert_complete()
