"""Running the tool calls of one reply, and turning every outcome into what the model sees.

:func:`observation_for_error` is the ONE place where a tool failure becomes an
observation: an unknown tool (with the available names), arguments that are not
valid JSON (the parser's complaint and what the model wrote), invalid arguments (the
field-level errors and the expected arguments), the tool raised (type and
message), a timeout. Successful outputs are rendered as JSON, never a Python repr.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import ToolCall
from ovos_utils.log import LOG
from pydantic import BaseModel, ValidationError

from ovos_agentic_loop._runtime.cancellation import CancelScope
from ovos_agentic_loop._runtime.daemon_pool import DaemonPool
from ovos_agentic_loop._text.protocol import compact_arguments
from ovos_agentic_loop._text.values import leaves, positional_json
from ovos_agentic_loop._tools.programs import ProgramLookup, unknown_tool_hint
from ovos_agentic_loop._tools.toolset import ToolSet
from ovos_agentic_loop.errors import ShuttingDown
from ovos_agentic_loop.messages import RAW_ARGUMENTS_KEY

__all__ = [
    "NOT_RUN_AGAIN",
    "ArgumentsNotJSON",
    "Status",
    "ToolLimit",
    "ToolOutcome",
    "ToolTimeout",
    "UnknownTool",
    "held_back",
    "not_run_again",
    "observation_for_error",
    "render_output",
    "run_calls",
    "status_of",
]

_RAW_PREVIEW_CHARS = 200  # of the model's broken arguments, quoted back to it


class UnknownTool(LookupError):
    """The model called a name that no toolbox provides."""


class ToolTimeout(TimeoutError):
    """A tool did not finish in the time it had; ``stopped`` says whether its work was killed.

    ``limit`` names the setting that gave it that time: ``tool_timeout``, or ``time_budget`` when
    the turn had less left than that (a value fixed before the call runs, not a guess afterwards).
    """

    def __init__(self, seconds: float, *, stopped: bool, limit: ToolLimit = "tool_timeout") -> None:
        super().__init__(f"did not finish within {round(seconds, 1):g} seconds ({_LIMIT_WORDS[limit]})")
        self.seconds = seconds
        self.stopped = stopped
        self.limit = limit


#: The setting that gave a tool call its time.
ToolLimit = Literal["tool_timeout", "time_budget"]
_LIMIT_WORDS: dict[ToolLimit, str] = {
    "tool_timeout": "the tool_timeout",
    "time_budget": "what was left of the turn's time_budget",
}


class CallInterrupted(RuntimeError):
    """The user interrupted the turn before the call finished (``started``: whether it had begun;
    ``stopped``: whether its toolbox stopped the work)."""

    def __init__(self, *, stopped: bool, started: bool) -> None:
        state = "stopped" if stopped else ("left to finish by itself" if started else "never started")
        super().__init__(f"interrupted by the user: {state}")
        self.stopped = stopped
        self.started = started


class ArgumentsNotJSON(ValueError):
    """The model's arguments text is not a JSON object (the brain kept it under ``RAW_ARGUMENTS_KEY``)."""

    def __init__(self, raw: str) -> None:
        super().__init__(_json_problem(raw))
        self.raw = raw


class ArgumentsNotObject(TypeError):
    """The call's arguments are a value other than an object (a brain handed over a list, say)."""


def _json_problem(raw: str) -> str:
    """Why ``raw`` is not a JSON object, in the parser's words (json.loads is linear in the text)."""
    try:
        value = json.loads(raw)
    except ValueError as exc:  # JSONDecodeError, or a number too long for Python's int conversion
        return str(exc)
    except RecursionError:  # the C scanner recurses per nesting level
        return "nested too deeply"
    kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return f"it is {kinds.get(type(value), 'a number')}, not an object"


class Status(Enum):
    """How a tool call of this turn ended."""

    OK = "ok"  # the tool ran and returned ``output``
    REFUSED = "refused"  # never reached the tool: unknown name, arguments not JSON or invalid
    FAILED = "failed"  # the tool raised
    TIMED_OUT = "timed_out"  # not finished within ``tool_timeout``
    NOT_RUN_AGAIN = "not_run_again"  # repeats a call that already succeeded; its result is above


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's outcome, kept beside its TOOL message for the rest of the turn: the loop
    decides from these fields, never from the observation's wording."""

    call: ToolCall
    status: Status
    observation: str  # what the model sees (before any ``note``)
    duration_s: float
    error: str | None = None  # short form for logs and step events
    output: Any = None  # the tool's value (JSON-ready) when ``status`` is OK
    note: str = ""  # said after the observation (e.g. "you already made this exact call")

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def text(self) -> str:
        """The TOOL message's content: the observation, then the note."""
        return self.observation + self.note

    def values(self) -> list[str]:
        """The values of a successful result (a JSON result's keys are names, not results), in
        order; [] for any other outcome. A field that echoes an argument of the call, same name and
        value (the calculator's ``"expression": "15% of 2350"``, read_file's ``path``), is no
        result: counted as one, "15 percent of 2350 is thirty-five twenty-five" passed as stating
        the result 352.5."""
        if not self.ok:
            return []
        if isinstance(self.output, dict):
            echoed = _argument_texts(self.call)
            return leaves({k: v for k, v in self.output.items() if echoed.get(k) != _text(v)})
        if isinstance(self.output, list):
            return leaves(self.output)
        return [self.observation]


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _argument_texts(call: ToolCall) -> dict[str, str]:
    """The call's arguments by name, as a result field that repeats one would hold them."""
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    return {k: _text(v) for k, v in arguments.items() if v not in (None, "", [], {})}


def not_run_again(call: ToolCall, earlier: ToolOutcome | None = None) -> ToolOutcome:
    """The outcome of a call identical to one that already succeeded this turn: not run. The
    earlier result is quoted: answered from the result at the first repeat, the model states it
    rather than asking a third time."""
    if earlier is None:
        return ToolOutcome(call, Status.NOT_RUN_AGAIN, NOT_RUN_AGAIN, 0.0)
    result = earlier.observation
    quoted = result if len(result) <= MAX_REMINDED_CHARS else result[:MAX_REMINDED_CHARS] + "…"
    text = NOT_RUN_AGAIN_WITH_RESULT.format(result=quoted)
    return ToolOutcome(call, Status.NOT_RUN_AGAIN, text, 0.0)


def held_back(call: ToolCall, message: str) -> ToolOutcome:
    """The outcome of a call the loop did not run because it must be checked first (``message``
    says what): refused, never reached the tool."""
    return ToolOutcome(call, Status.REFUSED, message, 0.0, error="held back by the loop")


NOT_RUN_AGAIN = (
    "Not run again: this exact call already succeeded, its result is above. Use it now: answer, "
    "or call a different tool for what is still missing."
)
NOT_RUN_AGAIN_WITH_RESULT = (
    "Not run again: this exact call already succeeded and returned: {result}\nUse this result now: "
    "answer with it, or call a different tool for what is still missing."
)
#: Most characters of an earlier result quoted in a reminder.
MAX_REMINDED_CHARS = 300


def run_calls(
    calls: list[ToolCall],
    toolset: ToolSet,
    executor: DaemonPool,
    *,
    timeout: float,
    max_chars: int,
    which: ProgramLookup,
    max_parallel: int = 8,
    limit: ToolLimit = "tool_timeout",
    interrupt: CancelScope | None = None,
) -> list[ToolOutcome]:
    """Run persona tool calls concurrently; outcomes come back in call order.

    A call that exceeds ``timeout`` is reported as timed out and abandoned (a Python
    thread cannot be killed; the bundled toolboxes bound their own work so such a
    thread ends by itself), so the loop never hangs on a tool. ``limit`` names the setting
    ``timeout`` comes from (``tool_timeout``, or ``time_budget`` when the turn had less left).
    ``interrupt`` (the user said stop) ends the wait at once: a call not started yet never starts
    (a side effect nobody wants any more), a running one is stopped where its toolbox can.
    """
    started = time.monotonic()
    gate = threading.BoundedSemaphore(max_parallel)  # the timeout counts from here, queued or not
    futures: list[Future[tuple[Any, float]] | None] = []
    threads: list[list[int]] = []  # the worker thread of each call, once it has started
    for call in calls:
        toolbox = toolset.owners.get(call.name)
        ran_in: list[int] = []
        threads.append(ran_in)
        futures.append(
            None if toolbox is None else executor.submit(_timed_call, toolbox, call, gate, ran_in, interrupt)
        )
    _wait([f for f in futures if f is not None], timeout, interrupt)

    outcomes: list[ToolOutcome] = []
    for call, future, ran_in in zip(calls, futures, threads, strict=True):
        try:
            if future is None:
                raise UnknownTool(call.name)
            if not future.done():
                future.cancel()
                stopped = _stop(toolset.owners[call.name], ran_in)
                if interrupt is not None and interrupt.cancelled:
                    raise CallInterrupted(stopped=stopped, started=bool(ran_in))
                raise ToolTimeout(timeout, stopped=stopped, limit=limit)
            output, duration = future.result()
        except BaseException as exc:  # every failure becomes an observation; nothing escapes the loop
            if isinstance(exc, (KeyboardInterrupt, SystemExit, ShuttingDown)):
                raise
            text = observation_for_error(exc, call, toolset, which)
            duration = time.monotonic() - started
            outcomes.append(
                ToolOutcome(call, status_of(exc), _cut(text, max_chars), duration, error=text.split("\n")[0])
            )
            continue
        value = output
        outcomes.append(
            ToolOutcome(call, Status.OK, _cut(render_output(value), max_chars), duration, output=value)
        )
    return outcomes


def _wait(futures: list[Future[tuple[Any, float]]], timeout: float, interrupt: CancelScope | None) -> None:
    """Until every call is done, ``timeout`` passed or the user interrupted the turn."""
    if interrupt is None:
        wait(futures, timeout=timeout)
        return
    stopped: Future[Any] = Future()
    interrupt.on_cancel(stopped, lambda: stopped.set_result(None))  # once: a hook runs once
    try:
        deadline = time.monotonic() + timeout
        pending: set[Future[Any]] = set(futures)
        while pending and not stopped.done() and (left := deadline - time.monotonic()) > 0:
            _, pending = wait([*pending, stopped], timeout=left, return_when=FIRST_COMPLETED)
            pending.discard(stopped)
    finally:
        interrupt.forget(stopped)


def _timed_call(
    toolbox: ToolBox,
    call: ToolCall,
    gate: threading.BoundedSemaphore,
    ran_in: list[int],
    interrupt: CancelScope | None,
) -> tuple[Any, float]:
    with gate:
        # Decided as the call would start, by the value: a call the user stopped never starts.
        if interrupt is not None and interrupt.cancelled:
            raise CallInterrupted(stopped=False, started=False)
        ran_in.append(threading.get_ident())
        return _call(toolbox, call)


def _stop(toolbox: ToolBox, ran_in: list[int]) -> bool:
    """Ask the toolbox to end a call the loop stopped waiting for; True only if it killed something.

    A Python thread cannot be stopped from outside, but the programs a call started can: the
    bundled shell and skill toolboxes offer ``stop_calls(thread_id)`` for exactly this. A call
    still queued (no thread yet) or a toolbox without that method is left to end by itself.
    """
    stop = getattr(toolbox, "stop_calls", None)
    if not ran_in or not callable(stop):
        return False
    try:
        return bool(stop(ran_in[0]))
    except Exception as exc:  # noqa: BLE001 - a toolbox bug must not break the turn; reported
        LOG.warning(f"stop_calls of toolbox {getattr(toolbox, 'toolbox_id', toolbox)!r} raised: {exc!r}")
        return False


def _call(toolbox: ToolBox, call: ToolCall) -> tuple[Any, float]:
    started = time.monotonic()
    if not isinstance(call.arguments, dict):
        raise ArgumentsNotObject(f"arguments must be a JSON object, got {type(call.arguments).__name__}")
    if set(call.arguments) == {RAW_ARGUMENTS_KEY}:  # never hand the tool a placeholder key
        raise ArgumentsNotJSON(str(call.arguments[RAW_ARGUMENTS_KEY]))
    output = _json_ready(toolbox.call_tool(call.name, dict(call.arguments)))
    return _mcp_result(output), time.monotonic() - started


class ToolReportedError(RuntimeError):
    """The tool returned a result that says it failed (an MCP result with ``is_error``)."""


def _mcp_result(output: Any) -> Any:
    """An MCP tool's result as ovos-tool-adapters passes it (``{content, is_error, raw}``): a
    failure becomes a failure (the model sees one short error line, not a success-shaped result);
    ``raw`` is dropped when its text blocks only repeat ``content`` (the model read it twice)."""
    if not isinstance(output, dict) or not {"content", "is_error"} <= set(output):
        return output
    if output.get("is_error") is True:
        content = output.get("content")
        message = (
            content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        )
        raise ToolReportedError(" ".join(message.split()) or "the tool reported an error")
    raw = output.get("raw")
    blocks = raw if isinstance(raw, list) else None
    texts_only = blocks is not None and all(isinstance(b, dict) and b.get("type") == "text" for b in blocks)
    if texts_only and "".join(str(b.get("text", "")) for b in blocks or []) == output.get("content"):
        return {k: v for k, v in output.items() if k != "raw"}
    return output


def _json_ready(output: Any) -> Any:
    """A tool's output as plain JSON values (a pydantic model dumped)."""
    return output.model_dump(mode="json") if isinstance(output, BaseModel) else output


def render_output(output: Any) -> str:
    """A tool's output as compact JSON text, its numbers written out (never ``9e-06``)."""
    output = _json_ready(output)
    try:
        return positional_json(json.dumps(output, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return json.dumps(str(output), ensure_ascii=False)


def status_of(exc: BaseException) -> Status:
    """How a failed call ended, from the exception :func:`observation_for_error` describes."""
    if isinstance(exc, ToolTimeout):
        return Status.TIMED_OUT
    if isinstance(exc, CallInterrupted):
        return Status.FAILED if exc.started else Status.REFUSED
    refused = isinstance(exc, (UnknownTool, ArgumentsNotJSON, ArgumentsNotObject))
    if refused or (isinstance(exc, ValueError) and _find_cause(exc, ValidationError) is not None):
        return Status.REFUSED
    return Status.FAILED


def observation_for_error(exc: BaseException, call: ToolCall, toolset: ToolSet, which: ProgramLookup) -> str:
    """The observation the model sees for a failed call: what went wrong and how to fix the call
    (``which`` finds a program named as a tool)."""
    name = call.name
    if isinstance(exc, UnknownTool):
        available = ", ".join(toolset.names) or "none"
        hint = unknown_tool_hint(name, call.arguments, toolset, which)  # `ls` or `mean` called as tools
        return f"Error: there is no tool named {name!r}.{hint} Available tools: {available}."
    if isinstance(exc, ToolTimeout):
        # Say "stopped" only when the toolbox killed the work: a Python tool cannot be stopped, and
        # telling the model otherwise invites a retry that runs beside the first call.
        ending = "and was stopped" if exc.stopped else "(it may still be running; do not call it again)"
        return f"Error: {name} {exc} {ending}. Try a smaller request or another way."
    if isinstance(exc, ArgumentsNotJSON):
        wrote = exc.raw if len(exc.raw) <= _RAW_PREVIEW_CHARS else exc.raw[:_RAW_PREVIEW_CHARS] + "..."
        return (
            f"Error: your arguments for {name} were not valid JSON: {exc}. You wrote: {wrote}\n"
            f"Call {name} again with its arguments as one JSON object: {_expected(name, toolset)}"
        )
    if isinstance(exc, ArgumentsNotObject):
        return f"Error: {name}: {exc}. Expected arguments: {_expected(name, toolset)}"
    validation = _find_cause(exc, ValidationError)
    if validation is not None and isinstance(exc, ValueError):  # OPM: bad input -> ValueError
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
            for err in validation.errors()
        )
        return (
            f"Error: invalid arguments for {name}: {problems}. Expected arguments: {_expected(name, toolset)}"
        )
    if validation is not None:  # OPM: bad output -> RuntimeError; a bug in the tool, not the call
        return f"Error: {name} returned a result that does not match its schema (a tool bug): {validation}"
    root = _root_cause(exc)
    if isinstance(root, ToolReportedError):  # the tool's own words: no exception type to add
        return f"Error: {name} failed: {root}"
    message = str(root) or "no message"
    return f"Error: {name} failed: {type(root).__name__}: {message}"


def _expected(name: str, toolset: ToolSet) -> str:
    return json.dumps(compact_arguments(toolset.schemas.get(name) or {}), ensure_ascii=False)


def _find_cause(exc: BaseException, kind: type[ValidationError]) -> ValidationError | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _root_cause(exc: BaseException) -> BaseException:
    # OPM wraps a tool's exception in "Tool execution failed for ..."; the model needs the original.
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return exc


def _cut(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f" ... [cut: {len(text) - max_chars} more characters not shown]"
