"""Plain Python functions as tools: signature -> schema, docstring -> description."""

from __future__ import annotations

import asyncio
import enum
import socket
from typing import Annotated, Any, Literal

import pytest
from installed_fakes import install_toolboxes
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole
from pydantic import Field

from ovos_agentic_loop.function_tools import (
    FunctionToolBox,
    function_tool,
    function_toolbox,
    toolbox_from_functions,
)
from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def add(a: int, b: Annotated[int, "the second number"] = 2) -> int:
    """Add two integers.

    A longer explanation the model does not need.
    """
    return a + b


def greet(name: Annotated[str, Field(description="who to greet", max_length=20)], loud: bool = False) -> str:
    """Greet someone by name."""
    return f"HELLO {name.upper()}" if loud else f"hello {name}"


def convert(amount: float, unit: Literal["km", "mi"]) -> dict[str, Any]:
    """Convert a distance.

    Args:
        amount: how far, in the other unit
        unit: the unit to convert to
    """
    return {"amount": amount * (1.609 if unit == "km" else 1 / 1.609), "unit": unit}


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


def paint(colour: Colour, walls: list[str]) -> str:
    """Paint the walls."""
    return f"{', '.join(walls)} painted {colour.value}"


async def slow_double(x: int) -> int:
    """Double a number, asynchronously."""
    await asyncio.sleep(0)
    return 2 * x


def refuse(path: str) -> str:
    """Always refuses."""
    raise PermissionError(f"{path} is outside the allowed folder")


def user(text: str) -> list[AgentMessage]:
    return [AgentMessage(role=MessageRole.USER, content=text)]


def schema_of(toolbox: FunctionToolBox, name: str) -> dict[str, Any]:
    (entry,) = [t for t in toolbox.tool_json_list if t["name"] == name]
    return entry


# -- schemas -------------------------------------------------------------------------
def test_the_signature_is_the_schema_and_the_docstrings_first_paragraph_the_description() -> None:
    toolbox = toolbox_from_functions(add, greet, toolbox_id="my-tools")
    assert toolbox.toolbox_id == "my-tools"
    entry = schema_of(toolbox, "add")
    assert entry["description"] == "Add two integers."
    schema = entry["argument_schema"]
    assert schema["required"] == ["a"]
    assert schema["properties"]["a"]["type"] == "integer"
    assert schema["properties"]["b"] == {
        "type": "integer",
        "default": 2,
        "description": "the second number",
        "title": "B",
    }
    name = schema_of(toolbox, "greet")["argument_schema"]["properties"]["name"]
    assert name["description"] == "who to greet" and name["maxLength"] == 20


def test_parameter_descriptions_come_from_the_docstrings_args_section() -> None:
    schema = schema_of(toolbox_from_functions(convert), "convert")["argument_schema"]
    assert schema["properties"]["amount"]["description"] == "how far, in the other unit"
    assert schema["properties"]["unit"]["enum"] == ["km", "mi"]
    assert schema_of(toolbox_from_functions(convert), "convert")["description"] == "Convert a distance."


def test_name_and_description_can_be_given() -> None:
    tool = function_tool(add, name="sum_two", description="Sum two numbers.")
    toolbox = toolbox_from_functions(tool)
    assert list(toolbox.tools) == ["sum_two"]
    assert toolbox.call_tool("sum_two", {"a": 1, "b": 5}).model_dump() == {"result": 6}


# -- calls ---------------------------------------------------------------------------
def test_call_tool_validates_runs_and_wraps_the_result() -> None:
    toolbox = toolbox_from_functions(add, greet, convert, paint)
    assert toolbox.call_tool("add", {"a": 1}).model_dump() == {"result": 3}
    assert toolbox.call_tool("greet", {"name": "ana", "loud": True}).model_dump() == {"result": "HELLO ANA"}
    assert toolbox.call_tool("paint", {"colour": "red", "walls": ["north"]}).model_dump(mode="json") == {
        "result": "north painted red"
    }
    with pytest.raises(ValueError, match="validation failed"):
        toolbox.call_tool("add", {"a": "not a number"})


def test_an_async_function_runs_from_a_plain_thread_and_from_inside_an_event_loop() -> None:
    toolbox = toolbox_from_functions(slow_double)
    assert toolbox.call_tool("slow_double", {"x": 21}).model_dump() == {"result": 42}

    async def inside_a_loop() -> Any:
        return toolbox.call_tool("slow_double", {"x": 4}).model_dump()

    assert asyncio.run(inside_a_loop()) == {"result": 8}


def test_a_function_that_raises_fails_the_call_with_its_error_as_the_cause() -> None:
    toolbox = toolbox_from_functions(refuse)
    with pytest.raises(RuntimeError) as caught:
        toolbox.call_tool("refuse", {"path": "/etc"})
    assert isinstance(caught.value.__cause__, PermissionError)


# -- clear errors at construction ----------------------------------------------------
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "def f(sock: socket.socket) -> str:\n    'Use a socket.'\n",
            "function 'f': parameter 'sock' has type",
        ),
        ("def f(x) -> str:\n    'No hint.'\n", "function 'f': parameter 'x' has no type hint"),
        ("def f(*xs: int) -> str:\n    'Star args.'\n", "function 'f': parameter '*xs'"),
        ("def f(**kw: int) -> str:\n    'Keyword args.'\n", "function 'f': parameter '**kw'"),
        ("def f(x: int) -> str:\n    pass\n", "function 'f' has no docstring"),
        ("def f(_x: int) -> str:\n    'Private.'\n", "function 'f': parameter '_x'"),
        ("def f(x: int) -> socket.socket:\n    'Bad return.'\n", "function 'f': its return type"),
    ],
)
def test_an_unsupported_function_is_refused_at_construction_by_name(source: str, expected: str) -> None:
    namespace: dict[str, Any] = {"socket": socket}
    exec(source, namespace)  # builds the bad function under test
    with pytest.raises(TypeError, match=expected.replace("(", r"\(").replace("*", r"\*")):
        toolbox_from_functions(namespace["f"])


def test_two_tools_with_one_name_are_refused() -> None:
    with pytest.raises(ValueError, match="two tools named 'add'"):
        toolbox_from_functions(add, function_tool(greet, name="add"))


# -- with the engine -----------------------------------------------------------------
def test_functions_beside_the_personas_toolboxes_through_continue_chat() -> None:
    brain = ScriptedBrain(
        [tool_call("add", a=40, b=2), tool_call("evaluate_expression", expression="2*3"), "42 and 6."]
    )
    engine = load_chat_plugin("ovos-react-loop")(
        config={"toolboxes": ["ovos-math-tools"]},
        brain=brain,
        extra_toolboxes=[toolbox_from_functions(add)],
    )
    assert engine.continue_chat(user("what is 40 + 2?")).content == "42 and 6."
    brain.assert_complete()
    assert "add" in brain.calls[0].tool_names and "evaluate_expression" in brain.calls[0].tool_names
    observation = brain.calls[1].messages[-1].content
    assert "42" in observation


def test_a_refusal_reaches_the_model_with_its_reason() -> None:
    brain = ScriptedBrain([tool_call("refuse", path="/etc"), "I may not read that."])
    engine = load_chat_plugin("ovos-react-loop")(
        config={}, brain=brain, extra_toolboxes=[toolbox_from_functions(refuse)]
    )
    assert engine.continue_chat(user("read /etc")).content == "I may not read that."
    assert "/etc is outside the allowed folder" in brain.calls[1].messages[-1].content


def test_an_entry_point_class_is_one_line_and_loads_by_name(monkeypatch: pytest.MonkeyPatch) -> None:

    MyTools = function_toolbox("my-tools", add, greet)  # what a package registers under opm.agents.toolbox
    assert issubclass(MyTools, FunctionToolBox)
    install_toolboxes(monkeypatch, {"my-tools": MyTools})
    brain = ScriptedBrain([tool_call("greet", name="ana"), "Done."])
    engine = load_chat_plugin("ovos-react-loop")(config={"toolboxes": ["my-tools"]}, brain=brain)
    assert [t.toolbox_id for t in engine.toolboxes] == ["my-tools"]
    assert engine.continue_chat(user("greet ana")).content == "Done."
    assert "hello ana" in brain.calls[1].messages[-1].content
    hosted = MyTools(config={}, bus=None)  # how ovos-PHAL-plugin-tools builds it
    assert sorted(hosted.tools) == ["add", "greet"]
