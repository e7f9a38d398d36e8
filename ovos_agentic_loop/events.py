"""Step events: what the loop did, for logs, the messagebus and progress UIs.

Every step of a turn (a model call, a tool call with its arguments, its result or
error, the final answer, a loop's plan or critique) becomes one typed record: a
subclass of :class:`StepEvent` per kind, with the kind's fields as attributes
(``event.answer`` of a :class:`Final`). ``event.kind`` and ``event.data`` (the same
fields as a dict, plus any extra ones a newer emitter added) stay as they were, so
a listener written for the dict form keeps working, and the bus payload
(:meth:`StepEvent.as_dict`) keeps its shape: ``{kind, session_id, data, at}``.

The engine logs each event, emits it on the messagebus as ``ovos.agentic_loop.step``
when it has a bus, and hands it to every listener registered with
``engine.add_step_listener``. Build one from a kind and a data dict with
:func:`make_event`: a kind without a record class becomes a plain ``StepEvent``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

__all__ = [
    "BUS_CONFIRM_ANSWER_TOPIC",
    "BUS_CONFIRM_DONE_TOPIC",
    "BUS_CONFIRM_TOPIC",
    "BUS_STEP_TOPIC",
    "ConfirmStep",
    "Final",
    "ModelCall",
    "Notice",
    "Plan",
    "Progress",
    "StepEvent",
    "StepKind",
    "StepListener",
    "StrategyStep",
    "ToolCallStep",
    "ToolResult",
    "TurnStart",
    "make_event",
    "progress_speech",
]

BUS_STEP_TOPIC = "ovos.agentic_loop.step"
#: A call waits for the user's yes: the pending call, for a GUI to show buttons (see the README).
BUS_CONFIRM_TOPIC = "ovos.agentic_loop.confirm"
#: A GUI's answer to it (``{"token": ..., "answer": "yes" | "no"}``), and the engine's reply.
BUS_CONFIRM_ANSWER_TOPIC = "ovos.agentic_loop.confirm.answer"
BUS_CONFIRM_DONE_TOPIC = "ovos.agentic_loop.confirm.response"

StepKind = Literal[
    "turn_start",  # TurnStart
    "model_call",  # ModelCall
    "tool_call",  # ToolCallStep
    "tool_result",  # ToolResult
    "notice",  # Notice
    "progress",  # Progress (a line a voice may say while a tool runs)
    "final",  # Final
    "plan",  # Plan (ovos-plan-execute-loop)
    "strategy_step",  # StrategyStep (the other loops: critiques, scores, sub-answers)
    "confirm",  # ConfirmStep (a call waits for the user's yes, or the user decided)
]

_BASE_FIELDS = frozenset({"kind", "session_id", "data", "at"})


@dataclass(kw_only=True)
class StepEvent:
    """One step of one turn. Subclasses add the typed fields of their kind.

    ``data`` holds those fields as a dict (for listeners and the bus) plus any keys
    the emitter sent that the record does not declare.
    """

    kind: str
    session_id: str = ""  # set by the turn that emits it
    data: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.time)

    KIND: ClassVar[str] = ""

    def __post_init__(self) -> None:
        typed = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _BASE_FIELDS}
        if typed:  # the typed fields win: ``replace(event, session_key=...)`` keeps data in step
            self.data = {**self.data, **typed}

    def as_dict(self) -> dict[str, Any]:
        """The bus payload: the same shape for every kind."""
        return {"kind": self.kind, "session_id": self.session_id, "data": dict(self.data), "at": self.at}


@dataclass(kw_only=True)
class TurnStart(StepEvent):
    KIND: ClassVar[str] = "turn_start"
    kind: str = "turn_start"
    mode: str = "native"  # "native" or "text"
    tools: list[str] = field(default_factory=list)
    loop: str = "react"  # the reasoning loop (strategy) running the turn
    #: The key the turn sends to the model servers (``user`` field and header, see
    #: ``_runtime.session_key``): the router's logs name the same key, and with it the replica that served it.
    session_key: str = ""


@dataclass(kw_only=True)
class ModelCall(StepEvent):
    KIND: ClassVar[str] = "model_call"
    kind: str = "model_call"
    iteration: int = 0
    duration_s: float = 0.0
    tool_calls: list[str] = field(default_factory=list)
    chars: int = 0
    usage: dict[str, Any] | None = None
    timings: dict[str, Any] | None = None
    streamed_chars: int = 0
    session_key: str = ""  # as in TurnStart


@dataclass(kw_only=True)
class ToolCallStep(StepEvent):
    KIND: ClassVar[str] = "tool_call"
    kind: str = "tool_call"
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    call_id: str = ""
    owner: str = ""  # the toolbox id, or "caller"


@dataclass(kw_only=True)
class ToolResult(StepEvent):
    KIND: ClassVar[str] = "tool_result"
    kind: str = "tool_result"
    name: str = ""
    call_id: str = ""
    ok: bool = True
    duration_s: float = 0.0
    result: str | None = None  # the observation the model saw (maybe cut); None on failure
    error: str | None = None


@dataclass(kw_only=True)
class Notice(StepEvent):
    KIND: ClassVar[str] = "notice"
    kind: str = "notice"
    message: str = ""
    progress: bool = False  # what takes the time, for a waiting user (not a problem)


@dataclass(kw_only=True)
class Progress(StepEvent):
    """A line for a waiting listener while a tool runs (``progress_speech``): a host may speak it.

    Not part of the answer: it is never in the turn's reply, nor in what a host remembers of it.
    """

    KIND: ClassVar[str] = "progress"
    kind: str = "progress"
    text: str = ""
    lang: str | None = None
    tool: str = ""  # the call the line is about


def progress_speech(event: Progress, engine_name: str) -> dict[str, Any]:
    """The ``speak`` payload of a progress line on a voice assistant's bus: said in the turn's
    session, no answer expected, marked so a host can tell it from the answer (``meta.progress``)."""
    return {
        "utterance": event.text,
        "lang": event.lang,
        "expect_response": False,
        "meta": {"skill": engine_name, "progress": True, "tool": event.tool},
    }


@dataclass(kw_only=True)
class Final(StepEvent):
    KIND: ClassVar[str] = "final"
    kind: str = "final"
    answer: str = ""
    reason: str = "answer"
    iterations: int = 0  # model calls with tools (react); every model call (the other loops)
    duration_s: float | None = None
    #: Where the turn's time went: ``total_s``, ``model_s``, ``tools_s``, ``model_calls``, ``tool_calls``.
    timings: dict[str, Any] | None = None
    session_key: str = ""  # as in TurnStart
    calls: list[str] = field(default_factory=list)  # reason "caller_tools": the calls handed back
    #: The rules that sent the model a correction this turn, by name, in order (``disabled_rules``
    #: takes the same names); empty when the model's replies stood as written.
    rules: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class Plan(StepEvent):
    """The plan of ``ovos-plan-execute-loop``: emitted once, and again on every re-plan."""

    KIND: ClassVar[str] = "plan"
    kind: str = "plan"
    steps: list[str] = field(default_factory=list)
    revision: int = 0  # 0: the first plan; n: the n-th re-plan


@dataclass(kw_only=True)
class StrategyStep(StepEvent):
    """One step of a reasoning loop other than the model/tool steps: a critique, a score, a sub-answer."""

    KIND: ClassVar[str] = "strategy_step"
    kind: str = "strategy_step"
    loop: str = ""
    phase: str = ""  # e.g. "step_result", "evaluation", "reflection", "critique", "scores", "sub_answer"
    text: str = ""


@dataclass(kw_only=True)
class ConfirmStep(StepEvent):
    """A call that waits for the user's yes (``decision`` "asked", with the question and the
    ``token`` a GUI answers with), or what the user's reply decided: "yes", "no", "other"
    (dropped), from speech or the bus."""

    KIND: ClassVar[str] = "confirm"
    kind: str = "confirm"
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""
    decision: str = "asked"
    question: str = ""
    token: str = ""


_RECORDS: dict[str, type[StepEvent]] = {
    cls.KIND: cls
    for cls in (
        TurnStart,
        ModelCall,
        ToolCallStep,
        ToolResult,
        Notice,
        Progress,
        Final,
        Plan,
        StrategyStep,
        ConfirmStep,
    )
}


def make_event(kind: str, session_id: str, data: dict[str, Any]) -> StepEvent:
    """The typed record of ``kind`` from an emitter's dict; undeclared keys are kept in ``data``."""
    cls = _RECORDS.get(kind)
    if cls is None:
        return StepEvent(kind=kind, session_id=session_id, data=dict(data))
    declared = {f.name for f in fields(cls)} - _BASE_FIELDS
    typed = {k: v for k, v in data.items() if k in declared}
    extra = {k: v for k, v in data.items() if k not in declared}
    return cls(session_id=session_id, data=extra, **typed)


StepListener = Callable[[StepEvent], None]
