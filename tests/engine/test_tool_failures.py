"""Every kind of tool failure becomes an observation the model can act on; the loop goes on."""

from __future__ import annotations

import time

from conftest import DemoToolBox, FailArgs
from engine_helpers import engine_with, user
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolBox, ToolOutput
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall
from pydantic import Field

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def observation_after(brain_reply: AgentMessage, demo_tools: DemoToolBox, **config) -> str:
    brain = ScriptedBrain([brain_reply, "recovered"])
    engine = engine_with(brain, [demo_tools], **config)
    assert engine.continue_chat(user("go")).content == "recovered"
    last = brain.calls[1].last
    assert last.role == MessageRole.TOOL
    return last.content


def test_unknown_tool_lists_the_available_ones(demo_tools: DemoToolBox) -> None:
    text = observation_after(tool_call("multiply", a=1), demo_tools)
    assert "no tool named 'multiply'" in text
    assert "add, sleep, fail, bad_output" in text


def test_invalid_arguments_give_field_errors_and_the_expected_schema(demo_tools: DemoToolBox) -> None:
    text = observation_after(tool_call("add", a="two"), demo_tools)
    assert text.startswith("Error: invalid arguments for add")
    assert "a: Input should be a valid integer" in text
    assert "b: Field required" in text
    assert '"b": "integer: second number"' in text


def test_arguments_that_are_not_an_object(demo_tools: DemoToolBox) -> None:
    reply = AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[ToolCall("c1", "add", "a=1")])  # type: ignore[arg-type]
    text = observation_after(reply, demo_tools)
    assert "arguments must be a JSON object" in text and "Expected arguments" in text


def test_tool_exception_shows_type_and_message(demo_tools: DemoToolBox) -> None:
    text = observation_after(tool_call("fail", message="path leaves the root"), demo_tools)
    assert text == "Error: fail failed: PermissionError: path leaves the root"


def test_bad_output_is_reported_as_a_tool_bug(demo_tools: DemoToolBox) -> None:
    text = observation_after(tool_call("bad_output"), demo_tools)
    assert "does not match its schema" in text


def test_timeout_is_reported_and_the_loop_goes_on(demo_tools: DemoToolBox) -> None:
    started = time.monotonic()
    text = observation_after(tool_call("sleep", seconds=5), demo_tools, tool_timeout=0.3)
    assert time.monotonic() - started < 2.5
    assert "did not finish within 0.3 seconds" in text
    # A Python tool cannot be stopped: the model must not be told it was (it would retry beside it).
    assert "was stopped" not in text and "may still be running" in text


def test_long_output_is_cut_with_a_note(demo_tools: DemoToolBox) -> None:
    text = observation_after(
        tool_call("sleep", seconds=0, label="x" * 5000), demo_tools, max_observation_chars=300
    )
    assert len(text) < 400
    assert "[cut:" in text


def test_three_one_second_calls_run_concurrently(demo_tools: DemoToolBox) -> None:
    from ovos_agentic_loop.testing import tool_calls

    brain = ScriptedBrain(
        [tool_calls(*[("sleep", {"seconds": 1, "label": str(i)}) for i in range(3)]), "all done"]
    )
    engine = engine_with(brain, [demo_tools])
    started = time.monotonic()
    assert engine.continue_chat(user("go")).content == "all done"
    elapsed = time.monotonic() - started
    assert elapsed < 1.8, f"three 1 s calls took {elapsed:.2f} s: not concurrent"
    results = [m.content for m in brain.calls[1].messages if m.role == MessageRole.TOOL]
    assert ['"label": "0"' in results[0], '"label": "1"' in results[1], '"label": "2"' in results[2]] == [
        True
    ] * 3


def test_max_parallel_tools_bounds_concurrency(demo_tools: DemoToolBox) -> None:
    from ovos_agentic_loop.testing import tool_calls

    brain = ScriptedBrain(
        [tool_calls(*[("sleep", {"seconds": 0.4, "label": str(i)}) for i in range(4)]), "ok"]
    )
    engine = engine_with(brain, [demo_tools], max_parallel_tools=2)
    started = time.monotonic()
    engine.continue_chat(user("go, 0.4 seconds each"))
    assert time.monotonic() - started >= 0.75  # two waves of two, not one wave of four


class _McpResult(ToolOutput):
    content: str
    is_error: bool
    raw: list = Field(default_factory=list)


class _McpShapedBox(ToolBox):
    """Results shaped as ovos-tool-adapters passes an MCP tool's: {content, is_error, raw}."""

    def __init__(self) -> None:
        super().__init__("mcp-shaped", {}, None)

    def discover_tools(self) -> list[AgentTool]:
        def fail(args: FailArgs) -> dict:
            text = "Error executing tool explode"
            return {"content": text, "is_error": True, "raw": [{"type": "text", "text": text}]}

        def ok(args: FailArgs) -> dict:
            return {"content": "42", "is_error": False, "raw": [{"type": "text", "text": "42"}]}

        return [
            AgentTool("explode", "Fails.", FailArgs, _McpResult, fail),
            AgentTool("answer", "Answers.", FailArgs, _McpResult, ok),
        ]


def test_an_mcp_shaped_error_is_one_short_error_line_and_a_result_is_read_once() -> None:
    events: list = []
    brain = ScriptedBrain([tool_call("explode", message="x"), tool_call("answer", message="x"), "42."])
    engine = engine_with(brain, [_McpShapedBox()])
    engine.add_step_listener(events.append)
    engine.continue_chat(user("go"))
    failed = brain.calls[1].messages[-1].content
    assert failed == "Error: explode failed: Error executing tool explode"
    assert brain.calls[2].messages[-1].content == '{"content": "42", "is_error": false}'  # no raw copy
    assert [e.data["ok"] for e in events if e.kind == "tool_result"] == [False, True]
