"""What every adapter shares: the job protocol, the timing loops and the bench tools.

An adapter is ``python bench/peers/peer_<name>.py '<job json>'``, run with the python
of that framework's own venv. It builds an agent with the framework's idiomatic API
through one function, ``build(job, tools) -> run(prompt) -> str`` (and optionally
``build_stream(job, tools) -> stream(prompt) -> Iterator[str]`` of text deltas of the
final answer), and hands it to :func:`main`, which runs the job and prints one line
``BENCH_RESULT {json}``. Frameworks may print what they like around it.

Markers for the cold-start figure: ``BENCH_READY`` once the agent is built,
``BENCH_FIRST`` after its first (tool-free) answer; the orchestrator times them
from the moment it spawned the process.

Stdlib only (each framework venv has its own packages, not ours).
"""

from __future__ import annotations

import json
import re
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Run = Callable[[str], str]
Stream = Callable[[str], Iterator[str]]

ECHO_DOC = "Echo the given text back unchanged."
SLOW_DOC = "Look up a value; takes about one second."
SLOW_SECONDS = 1.0


def echo(text: str) -> str:
    return text


def slow_lookup(text: str) -> str:
    time.sleep(SLOW_SECONDS)
    return f"value of {text}"


@dataclass(frozen=True)
class ToolSpec:
    """A bench tool, described once, wrapped by each adapter in its framework's style."""

    name: str
    doc: str
    func: Callable[[str], str]
    arg: str = "text"
    arg_doc: str = "the text to use"


TOOLS = {
    "echo": ToolSpec("echo", ECHO_DOC, echo),
    "slow": ToolSpec("slow_lookup", SLOW_DOC, slow_lookup),
    "none": None,
}

_SENTENCE_END = re.compile(r"[.!?](\s|$)")


def first_sentence_done(text: str) -> bool:
    return bool(_SENTENCE_END.search(text))


def emit(kind: str, payload: Any = None) -> None:
    line = kind if payload is None else f"{kind} {json.dumps(payload)}"
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(  # noqa: C901 - one flat branch per job kind, each a few lines timing the peer's run
    build: Callable[[dict[str, Any], ToolSpec | None], Run], build_stream: Callable | None = None
) -> None:
    job = json.loads(sys.argv[1])
    kind = job["kind"]
    try:
        if kind == "cold":
            tool = TOOLS[job.get("tools", "echo")]
            run = build(job, tool)
            emit("BENCH_READY")
            run("Say hello.")
            emit("BENCH_FIRST")
            emit("BENCH_RESULT", {"ok": True})
            return
        if kind == "overhead":
            # One agent per step count: each has its own model name, so its own script.
            runs = {s: build(dict(job, model=f"{job['model']}-s{s}"), TOOLS["echo"]) for s in job["steps"]}
            for s, run in runs.items():  # warm-up: first-call costs are not per-step overhead
                run("warm up")
                del s
            samples: dict[str, list[float]] = {str(s): [] for s in job["steps"]}
            for _ in range(job["repeats"]):
                for s, run in runs.items():
                    t0 = time.perf_counter()
                    run(f"Use the tool {s} times, then say done.")
                    samples[str(s)].append(time.perf_counter() - t0)
            emit("BENCH_RESULT", {"ok": True, "samples": samples})
            return
        if kind in ("parallel", "prompt", "once"):
            run = build(job, TOOLS[job.get("tools", "slow")])
            times, answers = [], []
            for _ in range(job.get("repeats", 1)):
                t0 = time.perf_counter()
                answers.append(run(job.get("prompt", "Look up a, b and c.")))
                times.append(time.perf_counter() - t0)
            result = {"ok": True, "samples": times, "answers": answers}
            if getattr(run, "rules", None) is not None:  # the rules that corrected the model (ours)
                result["rules"] = run.rules
            emit("BENCH_RESULT", result)
            return
        if kind == "conversation":  # turns of one conversation, each after the answers before it
            run = build(job, TOOLS[job.get("tools", "none")])
            recorded = getattr(run, "calls", None)  # the tool calls the engine ran, when it records them
            times, answers, calls = [], [], []
            history: list[tuple[str, str]] = []
            for prompt in job["prompts"]:
                t0, before = time.perf_counter(), len(recorded or [])
                kwargs: dict[str, Any] = {"history": list(history)} if history else {}
                if job.get("lang"):
                    kwargs["lang"] = job["lang"]
                answer = run(prompt, **kwargs)
                times.append(time.perf_counter() - t0)
                answers.append(answer)
                history.append((prompt, answer))
                calls.append(None if recorded is None else recorded[before:])
            result = {"ok": True, "samples": times, "answers": answers, "calls": calls}
            if getattr(run, "first_sentence", None):  # a streamed conversation (figures 5 --stream, 10)
                result["first_sentence"] = run.first_sentence
            if getattr(run, "first_audible", None):
                result["first_audible"] = run.first_audible
            if getattr(run, "rules", None) is not None:
                result["rules"] = run.rules
            emit("BENCH_RESULT", result)
            return
        if kind == "stream":
            if build_stream is None:
                emit("BENCH_RESULT", {"ok": False, "error": "no streaming adapter"})
                return
            stream = build_stream(job, TOOLS["echo"])
            firsts, totals = [], []
            for _ in range(job.get("repeats", 1)):
                t0 = time.perf_counter()
                text, first = "", None
                for delta in stream("Use the tool once, then answer at length."):
                    text += delta
                    if first is None and first_sentence_done(text):
                        first = time.perf_counter() - t0
                total = time.perf_counter() - t0
                firsts.append(first if first is not None else total)
                totals.append(total)
            emit("BENCH_RESULT", {"ok": True, "first": firsts, "total": totals, "text": text})
            return
        raise ValueError(f"unknown job kind {kind!r}")
    except Exception as exc:  # noqa: BLE001 - the orchestrator reports any adapter failure by name
        emit(
            "BENCH_RESULT",
            {"ok": False, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()},
        )
