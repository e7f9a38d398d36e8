"""Figure 8: each of the eight loops, this project's beside upstream's loop of the same name.

Same tasks, same llama-server (behind the counting proxy), same toolboxes per task and
the same job as figure 5 (max_iterations 10, max_tokens 512, temperature 0.2), through
the same adapters: ``peer_ours.py`` (brain ``ovos-openai-brain``) and ``peer_upstream.py``
(brain ``ovos-chat-openai-plugin``) with ``engine`` set to the loop's entry-point name.
Upstream 0.2.5a1's loops read the same keys as its react loop (``brain`` and its section,
``toolboxes`` and theirs, ``max_iterations``, ``system_prompt``) plus their own, left at
their defaults as ours are: each loop is compared as shipped.

Loop by loop, ours then upstream's, tasks grouped by toolboxes: the two sides of one loop
run minutes apart, and an interrupted run leaves whole loops. Every task has a wall-clock
timeout (a loop that hangs cannot stall the figure); a timeout is a failure, shown as
``T/O``. Each loop is also set against the same side's ``ovos-react-loop``, the baseline.

Stdlib only.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from scripted_server import CountingProxy
from tasks_runner import SAMPLE, ensure_llama, load_tasks, results_dir, run_task, stop_llama

BASELINE = "ovos-react-loop"
LOOPS = (
    BASELINE,
    "ovos-native-toolcall-loop",
    "ovos-plan-execute-loop",
    "ovos-reflexion-loop",
    "ovos-self-ask-loop",
    "ovos-chain-of-thought-loop",
    "ovos-critic-loop",
    "ovos-tree-of-thoughts-loop",
)
SIDES = ("ours", "upstream")
DEFAULT_TASKS = SAMPLE
DEFAULT_TIMEOUT = 180.0


@dataclass(frozen=True)
class LoopSystem:
    """One (loop, side): what ``run.run_adapter`` needs of a system."""

    key: str
    label: str
    venv: str
    adapter: str
    loop: str
    side: str
    options: dict[str, Any] = field(default_factory=dict)


def loop_name(text: str) -> str:
    """``plan-execute`` or ``ovos-plan-execute-loop`` -> ``ovos-plan-execute-loop``."""
    name = text.strip()
    if not name.startswith("ovos-"):
        name = f"ovos-{name.removesuffix('-loop')}-loop"
    if name not in LOOPS:
        raise ValueError(f"unknown loop {text!r}; choose from {', '.join(LOOPS)}")
    return name


def parse_loops(text: str | None) -> list[str]:
    """The loops asked for, in LOOPS order, always with the baseline (every row is read against it)."""
    wanted = {BASELINE} | {loop_name(x) for x in (text or ",".join(LOOPS)).split(",") if x.strip()}
    return [loop for loop in LOOPS if loop in wanted]


def loop_systems(loops: list[str], sides: list[str]) -> list[LoopSystem]:
    adapters = {"ours": "peer_ours.py", "upstream": "peer_upstream.py"}
    out = []
    for loop in loops:
        short = loop.removeprefix("ovos-").removesuffix("-loop")
        for side in (s for s in SIDES if s in sides):
            out.append(
                LoopSystem(
                    f"{side}-{short}", f"{side} {short}", side, adapters[side], loop, side, {"engine": loop}
                )
            )
    return out


def sides_of(system_keys: list[str]) -> list[str]:
    """``--systems`` picks the sides: ``ours`` -> ours, any ``upstream-*`` -> upstream."""
    return [s for s in SIDES if any(k == s or k.startswith(f"{s}-") for k in system_keys)]


# --- the figure ------------------------------------------------------------------------------


def fig8_loops(bench: Any, run_adapter: Any) -> None:
    """Run every (loop, side) on the tasks; ``run_adapter`` is the orchestrator's (``run.run_adapter``)."""
    args = bench.args
    loops = parse_loops(getattr(args, "loops", None))
    systems = loop_systems(loops, sides_of(args.systems))
    timeout = float(getattr(args, "task_timeout", None) or DEFAULT_TIMEOUT)
    selection = args.tasks or DEFAULT_TASKS
    tasks = sorted(load_tasks(selection), key=lambda t: tuple(t["toolboxes"]))
    started = False
    llama_url = getattr(bench, "llama_url", None)
    if llama_url is None:
        llama_url, started = ensure_llama(bench)
    proxy = CountingProxy(llama_url).start()
    runs: dict[str, list[dict[str, Any]]] = {s.key: [] for s in systems}
    partial = results_dir(bench) / "fig8-partial.json"
    interrupted = ""
    t_start, done, total = time.monotonic(), 0, len(systems) * len(tasks)
    try:
        for system in systems:
            for n, task in enumerate(tasks, 1):
                try:
                    result = run_task(system, task, proxy, run_adapter, timeout=timeout, tag="t8")
                except KeyboardInterrupt:  # report what finished instead of nothing
                    interrupted = f"{system.key} after {n - 1}/{len(tasks)} tasks"
                    break
                runs[system.key].append(result)
                done += 1
                status = "T/O" if result["timed_out"] else "PASS" if result["ok"] else "fail"
                print(
                    f"[fig 8] {done}/{total} ({(time.monotonic() - t_start) / 60:.0f} min) {system.key} "
                    f"{task['id']}: {status} {result['calls']} calls {result['seconds']:.1f}s  "
                    f"{result['answer'][:60]!r}",
                    flush=True,
                )
                partial.write_text(json.dumps({"server": bench.llama_info, "runs": runs}, indent=1))
            if interrupted:
                print(f"[fig 8] interrupted: {interrupted}", flush=True)
                break
    finally:
        proxy.stop()
        if started:
            stop_llama()
    report(bench, systems, tasks, runs, selection, timeout, interrupted)
    partial.unlink(missing_ok=True)


# --- the report ------------------------------------------------------------------------------


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    solved = sum(r["ok"] for r in runs)
    return {
        "solved": solved,
        "tasks": len(runs),
        "success_rate": solved / len(runs),
        "timeouts": sum(bool(r.get("timed_out")) for r in runs),
        "calls_per_task": statistics.mean(r["calls"] for r in runs),
        "seconds_per_task": statistics.mean(r["seconds"] for r in runs),
        "runs": runs,
    }


def verdict(row: dict[str, Any] | None, base: dict[str, Any] | None) -> str:
    """A loop against the same side's react loop: better only with more tasks solved, or as many (not
    none) for fewer calls; ties and losses say what the extra calls bought."""
    if not row or not base or row is base:
        return ""
    gained = row["solved"] - base["solved"]
    ratio = row["calls_per_task"] / base["calls_per_task"] if base["calls_per_task"] else float("inf")
    calls = f"{ratio:.1f}x calls"
    if gained > 0 or (gained == 0 and row["solved"] and ratio < 1):
        return f"better ({gained:+d}; {calls})"
    if gained == 0:
        return f"no better (=; {calls})"
    return f"worse ({gained:+d}; {calls})"


def _cells(row: dict[str, Any] | None) -> list[str]:
    if not row:
        return ["", "", ""]
    solved = f"{row['solved']}/{row['tasks']}"
    if row["timeouts"]:
        solved += f" ({row['timeouts']} T/O)"
    return [solved, f"{row['calls_per_task']:.2f}", f"{row['seconds_per_task']:.1f}"]


def report(
    bench: Any,
    systems: list[LoopSystem],
    tasks: list[dict[str, Any]],
    runs: dict[str, list[dict[str, Any]]],
    selection: str,
    timeout: float,
    interrupted: str = "",
) -> None:
    table: dict[str, dict[str, dict[str, Any]]] = {}  # loop -> side -> summary
    for system in systems:
        if runs[system.key]:
            table.setdefault(system.loop, {})[system.side] = summarize(runs[system.key])
    sides = [s for s in SIDES if any(x.side == s for x in systems)]
    rows, not_better = [], {s: [] for s in sides}
    for loop in LOOPS:
        if loop not in table:
            continue
        label = f"{loop} (baseline)" if loop == BASELINE else loop
        row = [label]
        for side in sides:
            row += _cells(table[loop].get(side))
        for side in sides:
            v = verdict(table[loop].get(side), table.get(BASELINE, {}).get(side))
            row.append(v)
            if v and not v.startswith("better"):
                not_better[side].append(loop)
        rows.append(row)
    header = ["loop"]
    for side in sides:
        header += [f"{side}: solved", f"{side}: calls / task", f"{side}: s / task"]
    header += [f"{side} vs its react" for side in sides]
    bench.results["fig8"] = {
        "tasks": [t["id"] for t in tasks],
        "selection": selection,
        "timeout_s": timeout,
        "server": getattr(bench, "llama_info", None) or {},
        "loops": table,
        "not_better_than_react": not_better,
    }
    ids = ", ".join(t["id"] for t in tasks)
    model = "scripted server, no model" if bench.args.llama_url == "scripted" else "real model"
    bench.table(
        f"Figure 8 - each loop, ours beside upstream's loop of the same name ({model})",
        header,
        rows,
        [
            f"{len(tasks)} tasks (`--tasks {selection}`: {ids}), one run each per loop and side, all on one "
            "llama-server behind a counting proxy; the job of figure 5 (max_iterations 10, max_tokens "
            "512, temperature 0.2, the same toolboxes per task; ours: brain ovos-openai-brain, "
            "request timeout 600 s, time_budget 900 s; upstream 0.2.5a1: brain ovos-chat-openai-plugin); "
            "each loop's own keys at their defaults. "
            f"A task killed after {timeout:g} s (`--task-timeout`) is a failure (T/O; its seconds count "
            "as the timeout, its calls as made). 'vs its react': against the same side's ovos-react-loop; "
            "better = more solved, or as many for fewer calls.",
            "Server: " + "; ".join(f"{k}: {v}" for k, v in bench.results["fig8"]["server"].items()),
            *[
                f"Not better than its own react loop here ({side}): {', '.join(loops) or 'none'}."
                for side, loops in not_better.items()
                if len(table) > 1
            ],
            *([f"Interrupted: {interrupted} (rows are over the tasks run)."] if interrupted else []),
        ],
    )
    detail, errors = [], []
    for system in systems:
        by_task = {r["task"]: r for r in runs[system.key]}
        if by_task:
            detail.append([system.label, *[_outcome(by_task.get(t["id"])) for t in tasks]])
        errors += [
            f"- {system.label}, {r['task']}: {str(r['error'])[:160]}"
            for r in runs[system.key]
            if r.get("error") and not r.get("timed_out")
        ]
    bench.table(
        "Figure 8b - per task: ok = passed, x = wrong answer, err = the engine failed, T/O = timed out; "
        "with the model calls made",
        ["loop", *[t["id"] for t in tasks]],
        detail,
        ["Engine failures:", *errors] if errors else [],
    )


def _outcome(run: dict[str, Any] | None) -> str:
    if run is None:
        return ""
    if run.get("timed_out"):
        return f"T/O {run['calls']}"
    return f"{'ok' if run['ok'] else 'err' if run.get('error') else 'x'} {run['calls']}"
