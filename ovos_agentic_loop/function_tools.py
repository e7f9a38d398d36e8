"""Plain Python functions as tools: the signature is the schema, the docstring the description.

    from typing import Annotated
    from ovos_agentic_loop.function_tools import toolbox_from_functions

    def add(a: int, b: Annotated[int, "the second number"] = 2) -> int:
        \"\"\"Add two integers.\"\"\"
        return a + b

    engine = load_chat_plugin("ovos-react-loop")(config=..., extra_toolboxes=[toolbox_from_functions(add)])

A package offers the same as a toolbox plugin with one line, ``MyTools = function_toolbox("my-tools",
add)``, and the entry point ``my-tools = "my_package.tools:MyTools"`` in the ``opm.agents.toolbox``
group; every host (the loop, ovos-PHAL-plugin-tools, ovos-persona-server) then builds it by name.

Each parameter needs a type hint pydantic can describe as JSON schema (``str``, ``int``, ``float``,
``bool``, ``list[...]``, ``dict[str, ...]``, ``Literal``, an ``Enum``, a pydantic model, ``X | None``);
its description comes from ``Annotated[T, "text"]``, ``Annotated[T, Field(description=...)]`` or the
docstring's ``Args:`` section, its default from the signature. The first paragraph of the docstring
is the tool's description. Sync and async functions both work (an async one runs on its own event
loop). The result reaches the model as ``{"result": <return value>}``, checked against the return
type; a function that returns a ``ToolOutput`` model is passed on as it is. Anything the schema
cannot express is a ``TypeError`` when the toolbox is made, naming the function and the parameter.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import threading
import typing
from collections.abc import Callable, Sequence
from typing import Annotated, Any, ClassVar, TypeAlias

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from pydantic import Field, TypeAdapter, create_model
from pydantic.fields import FieldInfo

__all__ = ["FunctionToolBox", "function_tool", "function_toolbox", "toolbox_from_functions"]

#: What providers accept as a function name (OpenAI: 1-64 of these characters).
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ARG_LINE = re.compile(r"^(\w+)\s*(?:\([^)]*\))?:\s*(.*)$")  # "name: text" or "name (type): text"
_SUPPORTED = "str, int, float, bool, list[...], dict[str, ...], a Literal, an Enum or a pydantic model"

#: What a toolbox of functions takes: a plain callable, or a tool made by :func:`function_tool`.
ToolLike: TypeAlias = Callable[..., Any] | AgentTool


def function_tool(
    func: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> AgentTool:
    """One function as an OPM ``AgentTool``; ``name`` and ``description`` default to the function's own.

    Raises ``TypeError`` naming the function and the parameter for anything the schema cannot express.
    """
    label = name or getattr(func, "__name__", None) or repr(func)
    if not callable(func):
        raise TypeError(f"{label!r} is not callable; a tool is a function")
    tool_name = str(name or getattr(func, "__name__", ""))
    if not _TOOL_NAME.match(tool_name):
        raise TypeError(
            f"function {label!r}: {tool_name!r} is not a usable tool name "
            "(1-64 letters, digits, '_' or '-'); pass name=..."
        )
    text = description if description is not None else _summary(func)
    if not text:
        raise TypeError(
            f"function {label!r} has no docstring: its first paragraph is the description the model "
            "reads to choose the tool; write one, or pass description=..."
        )
    arguments = _argument_model(func, label, tool_name)
    output, wrap = _output_model(func, label, tool_name)
    positional = [
        p.name
        for p in inspect.signature(func).parameters.values()
        if p.kind is inspect.Parameter.POSITIONAL_ONLY
    ]

    def call(args: ToolArguments) -> ToolOutput:
        values = {key: getattr(args, key) for key in type(args).model_fields}
        result = func(*(values.pop(key) for key in positional), **values)
        if inspect.isawaitable(result):
            result = _await(result)
        return output(result=result) if wrap else result

    return AgentTool(tool_name, text, arguments, output, call)


class FunctionToolBox(ToolBox):
    """A toolbox of plain functions; made by :func:`toolbox_from_functions` or :func:`function_toolbox`.

    ``config`` is not read (hosts may pass anything: ovos-persona-server passes the whole persona).
    """

    #: Set on the classes :func:`function_toolbox` makes.
    default_toolbox_id: ClassVar[str] = "function-tools"
    default_tools: ClassVar[tuple[AgentTool, ...]] = ()

    def __init__(
        self,
        config: dict[str, Any] | None = None,
        bus: Any = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        toolbox_id: str | None = None,
    ) -> None:
        # Built before ToolBox.__init__, which swallows any error of discover_tools().
        self._function_tools = _as_tools(self.default_tools if tools is None else tools)
        super().__init__(toolbox_id or self.default_toolbox_id, config, bus)

    def discover_tools(self) -> list[AgentTool]:
        return list(self._function_tools)


def toolbox_from_functions(
    *functions: ToolLike,
    toolbox_id: str = "function-tools",
    config: dict[str, Any] | None = None,
    bus: Any = None,
) -> FunctionToolBox:
    """A toolbox of ``functions`` (plain callables, or tools made by :func:`function_tool`)."""
    return FunctionToolBox(config, bus, tools=functions, toolbox_id=toolbox_id)


def function_toolbox(toolbox_id: str, *functions: ToolLike) -> type[FunctionToolBox]:
    """A toolbox CLASS of ``functions``, for an ``opm.agents.toolbox`` entry point named ``toolbox_id``.

    Hosts build plugins as ``cls(config=..., bus=...)``; the schemas are made (and checked) here, once.
    """
    tools = tuple(_as_tools(functions))
    class_name = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", toolbox_id)) or "Function"
    return type(
        f"{class_name}ToolBox",
        (FunctionToolBox,),
        {"default_toolbox_id": toolbox_id, "default_tools": tools},
    )


# -- internals -----------------------------------------------------------------------
def _as_tools(items: Sequence[ToolLike]) -> list[AgentTool]:
    tools = [item if isinstance(item, AgentTool) else function_tool(item) for item in items]
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise ValueError(
                f"two tools named {tool.name!r}; give one another name with function_tool(..., name=...)"
            )
        seen.add(tool.name)
    return tools


def _summary(func: Callable[..., Any]) -> str:
    """The docstring's first paragraph, on one line."""
    doc = inspect.getdoc(func) or ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def _documented_args(func: Callable[..., Any]) -> dict[str, str]:
    """Parameter descriptions from a Google-style ``Args:`` section of the docstring."""
    lines = (inspect.getdoc(func) or "").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() in ("Args:", "Arguments:", "Parameters:")]
    if not starts:
        return {}
    found: dict[str, str] = {}
    current, indent = "", -1
    for line in lines[starts[0] + 1 :]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth == 0:
            break  # the next section ("Returns:", ...)
        entry = _ARG_LINE.match(line.strip())
        if entry and (indent < 0 or depth <= indent):
            current, indent = entry.group(1), depth
            found[current] = entry.group(2).strip()
        elif current:  # a continuation line, indented deeper
            found[current] = f"{found[current]} {line.strip()}".strip()
    return found


def _hints(func: Callable[..., Any], label: str) -> dict[str, Any]:
    # A callable object's hints are on its __call__ method.
    target = func if inspect.isfunction(func) or inspect.ismethod(func) else type(func).__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # a hint naming what its module cannot import, and the like
        raise TypeError(
            f"function {label!r}: its type hints cannot be read: {type(exc).__name__}: {exc}"
        ) from exc


def _argument_model(func: Callable[..., Any], label: str, tool_name: str) -> type[ToolArguments]:
    hints = _hints(func, label)
    documented = _documented_args(func)
    fields: dict[str, Any] = {}
    for param in inspect.signature(func).parameters.values():
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(
                f"function {label!r}: parameter '*{param.name}': a tool takes named parameters only"
            )
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            raise TypeError(
                f"function {label!r}: parameter '**{param.name}': a tool takes named parameters only"
            )
        if param.name.startswith("_"):
            raise TypeError(
                f"function {label!r}: parameter {param.name!r}: a tool's parameter may not start with '_'"
            )
        if param.name not in hints:
            raise TypeError(
                f"function {label!r}: parameter {param.name!r} has no type hint; the model needs one "
                f"(e.g. {param.name}: str); supported: {_SUPPORTED}"
            )
        annotation, description = _split_description(hints[param.name])
        _require_schema(annotation, f"function {label!r}: parameter {param.name!r} has type {annotation!r}")
        default = ... if param.default is inspect.Parameter.empty else param.default
        text = description or documented.get(param.name)
        fields[param.name] = (annotation, Field(default, description=text) if text else default)
    model_name = re.sub(r"\W", "_", tool_name) + "_arguments"
    model: type[Any] = create_model(model_name, __base__=ToolArguments, **fields)
    return model


def _split_description(hint: Any) -> tuple[Any, str | None]:
    """``Annotated[T, "text", ...]`` -> ``(Annotated[T, ...], "text")``; pydantic metadata stays."""
    if typing.get_origin(hint) is not Annotated:
        return hint, None
    base, *metadata = typing.get_args(hint)
    texts = [m for m in metadata if isinstance(m, str)]
    kept = [m for m in metadata if not isinstance(m, str)]
    if any(isinstance(m, FieldInfo) and m.description for m in kept):
        texts = []  # Field(description=...) says it already
    parts = (base, *kept)
    annotation = Annotated[parts] if kept else base
    return annotation, " ".join(texts) or None


def _require_schema(annotation: Any, what: str) -> None:
    try:
        TypeAdapter(annotation).json_schema()
    except Exception as exc:  # pydantic: no schema for an arbitrary class, a callable, ...
        raise TypeError(f"{what}, which has no JSON schema for the model; use {_SUPPORTED}") from exc


def _output_model(func: Callable[..., Any], label: str, tool_name: str) -> tuple[type[ToolOutput], bool]:
    """The output schema, and whether a return value must be wrapped as ``{"result": value}``."""
    returns = _hints(func, label).get("return", Any)
    if inspect.isclass(returns) and issubclass(returns, ToolOutput):
        return returns, False
    if typing.get_origin(returns) in (typing.Awaitable, typing.Coroutine):  # a hand-written async hint
        returns = typing.get_args(returns)[-1] if typing.get_args(returns) else Any
    if returns is None or returns is type(None):
        returns = Any  # "-> None" tools still answer something the model can read: null
    _require_schema(returns, f"function {label!r}: its return type {returns!r}")
    model_name = re.sub(r"\W", "_", tool_name) + "_result"
    return create_model(model_name, __base__=ToolOutput, result=(returns, ...)), True


def _await(awaitable: Any) -> Any:
    """Run a coroutine to its end: here when this thread runs no event loop, else on a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_resolved(awaitable))
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(_resolved(awaitable))
        except BaseException as exc:  # noqa: BLE001 - handed back to the calling thread below
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="function-tool-async", daemon=True)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


async def _resolved(awaitable: Any) -> Any:
    return await awaitable
