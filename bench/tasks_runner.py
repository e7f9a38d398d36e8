"""Figure 5: task success with the real model on llama-server, this project vs upstream.

The suite is data (``bench/tasks/tasks.json``): a prompt, the toolboxes it needs and
a checker per task. Each (task, system) pair runs in a fresh copy of
``bench/tasks/fixtures`` (its working folder and the filesystem/shell root), with
``bench/tasks/skills`` as the skill folder, through the same adapters as the other
figures. A :class:`~scripted_server.CountingProxy` sits between the engines and
llama-server and counts model calls per run (each run has its own model name).

Stdlib only; the checkers are pure functions (see ``test_bench_smoke.py``).
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ear import unsayable
from scripted_server import CountingProxy

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
DEFAULT_LLAMA_URL = "http://127.0.0.1:8091/v1"
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


HALVES = ("tune", "held-out")
#: One task a category: the first of its held-out half. Fixed by position like the halves (never by
#: results); figure 8's default, where every task runs 16 times (8 loops, ours and upstream).
SAMPLE = "held-out-first"


def load_tasks(selection: str | None = None) -> list[dict[str, Any]]:
    """The suite, each task with its ``half``; ``selection``: ids, categories, ``tune``, ``held-out``,
    ``held-out-first``."""
    return load_suite(TASKS_DIR / "tasks.json", selection)


def load_suite(path: Path, selection: str | None = None) -> list[dict[str, Any]]:
    """The tasks of a suite file (``{"tasks": [...]}``), each with its ``half``, picked by ``selection``
    as in :func:`load_tasks`. One rule for every suite, so the halves mean the same everywhere."""
    tasks = json.loads(path.read_text())["tasks"]
    seen: dict[str, int] = {}
    first_held_out: dict[str, str] = {}  # category -> task id
    for task in tasks:
        task["half"] = half_of(seen.get(task["category"], 0))
        seen[task["category"]] = seen.get(task["category"], 0) + 1
        if task["half"] == "held-out":
            first_held_out.setdefault(task["category"], task["id"])
    if selection:
        wanted = {s.strip() for s in selection.split(",")}
        first = set(first_held_out.values()) if SAMPLE in wanted else set()
        tasks = [t for t in tasks if wanted & {t["id"], t["category"], t["half"]} or t["id"] in first]
    return tasks


def half_of(position_in_category: int) -> str:
    """The split, fixed by position and never by results: within each category, in file order, the
    1st, 3rd, 5th... task is tuned on and the 2nd, 4th... is held out. New tasks go at the end of
    their category, so no task ever changes half."""
    return HALVES[position_in_category % 2]


def placeholders(sandbox: str = "", now: dt.datetime | None = None) -> dict[str, str]:
    now = now or dt.datetime.now(dt.timezone.utc)
    end = dt.date(now.year, 12, 31)
    days_left = (end - now.date()).days
    return {
        "year": str(now.year),
        "weekday": now.strftime("%A"),
        "date": now.strftime("%Y-%m-%d"),
        "tokyo_hour": str(now.astimezone(ZoneInfo("Asia/Tokyo")).hour),
        "days_left": str(days_left),
        "days_left_plus": str(days_left + 1),
        "user": getpass.getuser(),
        "sandbox": sandbox,
    }


def fill(text: str, values: dict[str, str]) -> str:
    # Only known {names}: regexes keep their own braces ({2}, \\d{4}).
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), text)


def numbers_in(text: str) -> list[float]:
    out = []
    for raw in _NUMBER.findall(text or ""):
        try:
            out.append(float(raw.replace(",", "")))
        except ValueError:
            continue
    return out


def check(task: dict[str, Any], answer: str, sandbox: str, moments: list[dt.datetime] | None = None) -> bool:
    """Does ``answer`` (or the sandbox, for a file check) pass ``task['check']``?

    Time-dependent checks pass if they hold at any of ``moments`` (the run's start and end).
    """
    spec = task["check"]
    kind = spec["type"]
    answer = answer or ""
    if kind == "number":
        tol = float(spec.get("tol", 1e-6))
        return any(abs(n - float(spec["value"])) <= tol for n in numbers_in(answer))
    if kind == "contains":
        return any(v.lower() in answer.lower() for v in spec["value"])
    if kind == "regex":
        for moment in moments or [None]:
            pattern = fill(spec["value"], placeholders(sandbox, moment))
            if re.search(pattern, answer, re.IGNORECASE):
                return True
        return False
    if kind == "file":
        path = Path(sandbox) / spec["path"]
        return path.is_file() and spec["value"] in path.read_text(errors="replace")
    raise ValueError(f"unknown check type {kind!r} in task {task['id']}")


#: Files of the conversation set (``conversation_runner``): left out of the typed suite's sandbox, so
#: its tasks see the folder they always saw.
CONVERSATION_FIXTURES = "conversations"


def make_sandbox() -> str:
    root = tempfile.mkdtemp(prefix="bench-task-")
    fixtures = TASKS_DIR / "fixtures"

    def leave_out(folder: str, names: list[str]) -> list[str]:
        return [CONVERSATION_FIXTURES] if Path(folder) == fixtures else []

    shutil.copytree(fixtures, root, dirs_exist_ok=True, ignore=leave_out)
    return root


# --- the llama-server --------------------------------------------------------------------


def _alive(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=3) as resp:
            return resp.status == 200
    except OSError:
        return False


BENCH_PORT = 8097  # a port of its own, so the bench never stops a server someone else started


def ensure_llama(bench: Any) -> tuple[str, bool]:
    """The llama-server /v1 URL, and whether this run started it (and must stop it).

    ``--llama-url`` wins; else the bench starts its own server on its own port with the
    project's CLI, as a user does (``ovos-agentic-loop server start --port 8097``, the tool-call
    template by default; ``--template stock`` for the model's own), and records which server
    and template the run used. A server someone else left on the default port is not reused:
    its template and load are unknown.
    """
    url = bench.args.llama_url or ""
    if url == "scripted":  # exercise the runner without a model: every answer is the same text
        from scripted_server import Script, ScriptedServer

        fake = ScriptedServer().start()
        fake.default = Script(steps=1, arguments={}, final="The budget is 4200 euros.")
        bench.extra_servers.append(fake)
        bench.llama_info = {"server": "scripted (no model)"}
        return fake.base_url, False
    if url:
        if not _alive(url):
            raise RuntimeError(f"no llama-server answers at {url}")
        bench.llama_info = {"server": f"given with --llama-url {url}", "template": "unknown"}
        return url, False
    url = f"http://127.0.0.1:{BENCH_PORT}/v1"
    template = getattr(bench.args, "template", "tools")
    print(
        f"[llama] starting llama-server on port {BENCH_PORT}, template {template!r} "
        "(first time: build + model, minutes)",
        flush=True,
    )
    subprocess.run([*_server_command("start"), "--template", template], check=True)
    deadline = time.time() + 300
    while time.time() < deadline and not _alive(url):
        time.sleep(1)
    if not _alive(url):
        raise RuntimeError(f"llama-server was started but nothing answers at {url}")
    bench.llama_info = _server_status(template)
    return url, True


def _server_status(template: str) -> dict[str, Any]:
    """What the project's CLI knows about the server it started (pid, template, command line)."""
    import venvs

    info: dict[str, Any] = {
        "server": f"ovos-agentic-loop server start --port {BENCH_PORT}",
        "template": template,
    }
    python = venvs.REPO_DIR / ".venv" / "bin" / "python"
    code = (
        "import json; from ovos_agentic_loop.local.server import status; "
        f"print(json.dumps(status({BENCH_PORT})))"
    )
    try:
        out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=30)
        status = json.loads(out.stdout.strip().splitlines()[-1])
        info.update({k: status.get(k) for k in ("pid", "template", "model") if status.get(k)})
        if status.get("pid"):
            cmdline = Path(f"/proc/{status['pid']}/cmdline").read_bytes().split(b"\0")
            info["command"] = " ".join(c.decode() for c in cmdline if c)
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        pass
    return info


def _server_command(action: str) -> list[str]:
    """``ovos-agentic-loop server start|stop --port N``: from the repo's venv (where the [local]
    extra is), else the bench's; before the CLI existed, the library functions behind it."""
    import venvs

    for python in (venvs.REPO_DIR / ".venv" / "bin" / "python", venvs.python_of("ours")):
        if not python.exists():
            continue
        cli = python.parent / "ovos-agentic-loop"
        has_cli = subprocess.run([str(python), "-c", "import ovos_agentic_loop.cli"], capture_output=True)
        if cli.exists() and has_cli.returncode == 0:
            return [str(cli), "server", action, "--port", str(BENCH_PORT)]
        code = f"from ovos_agentic_loop.local.server import {action}_server as f; f(port={BENCH_PORT})"
        return [str(python), "-c", code]
    raise RuntimeError("no venv with ovos-agentic-loop to start llama-server from")


def stop_llama() -> None:
    subprocess.run(_server_command("stop"), check=False)


# --- the figure ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Suite:
    """A question suite figure 5 can run: how its tasks are picked and run, and how it is reported.

    The loop over systems and tasks, the proxy, the time budget, Ctrl-C and the tables are the same
    for every suite; only these differ (the typed suite, ``TYPED``, and the spoken one in
    ``spoken_runner``)."""

    key: str  # results key and partial-file name: "fig5", "fig5s"
    figure: str  # the number in the tables' titles: "5", "5s"
    title: str
    load: Callable[[str | None], list[dict[str, Any]]]
    run: Callable[..., dict[str, Any]]  # run(system, task, proxy, run_adapter) -> result
    about: Callable[[int], str]  # the first note under the table, given the number of tasks
    group: Callable[[dict[str, Any]], tuple[str, ...]] = lambda task: tuple(task["toolboxes"])


def _typed_about(n_tasks: int) -> str:
    return (
        f"{n_tasks} tasks from bench/tasks/tasks.json, one run each, every system on the same "
        "llama-server, system by system and tasks grouped by toolboxes (so each keeps its prompt in "
        "the server's cache); each task "
        "a new process and a fresh sandbox; model calls counted by a proxy; "
        "max_iterations 10, max_tokens 512, temperature 0.2; engines otherwise as shipped "
        "(ours: ovos-react-loop, mode auto, brain ovos-openai-brain; upstream: its two engines "
        "with ovos-chat-openai-plugin). Both get the same toolboxes per task."
    )


def results_dir(bench: Any) -> Path:
    """Where the report (and progress while a figure runs) goes: ``--results-dir``, else bench/results."""
    path = Path(getattr(bench.args, "results_dir", None) or Path(__file__).resolve().parent / "results")
    path.mkdir(parents=True, exist_ok=True)
    return path


def disabling(rules: Sequence[str]) -> Callable[[dict[str, Any]], None]:
    """What ``configure`` does for a run with ``rules`` switched off (the loop's ``disabled_rules``)."""

    def configure(job: dict[str, Any]) -> None:
        job["engine_extra"] = {**(job.get("engine_extra") or {}), "disabled_rules": list(rules)}

    return configure


def configure_for(bench: Any, system: Any) -> Callable[[dict[str, Any]], None] | None:
    """``--disabled-rules`` and ``--progress-speech`` for our loop's runs (upstream has no such
    keys); ``--stream`` for every system."""
    ours = system.key.startswith("ours")
    rules = (getattr(bench.args, "disabled_rules", None) or []) if ours else []
    progress = getattr(bench.args, "progress_speech", None) if ours else None
    stream = bool(getattr(bench.args, "stream", False))
    if not (rules or progress or stream):
        return None

    def configure(job: dict[str, Any]) -> None:
        if rules:
            disabling(rules)(job)
        if progress:
            job["engine_extra"] = {**(job.get("engine_extra") or {}), "progress_speech": progress == "on"}
        if stream:
            job["stream"] = True

    return configure


def fig5_tasks(bench: Any, run_adapter: Any, suite: Suite | None = None) -> None:
    """Run the suite (the typed one unless ``suite`` says otherwise); ``run_adapter`` is the
    orchestrator's (``run.run_adapter``)."""
    suite = suite or TYPED
    systems = [s for s in bench.systems if s.ovos]
    # Grouped by toolboxes (stable): consecutive tasks then share the system prompt and tool list,
    # which llama-server keeps in its prompt cache, for every system alike.
    tasks = sorted(suite.load(bench.args.tasks), key=suite.group)
    started = False
    llama_url = getattr(bench, "llama_url", None)
    if llama_url is None:
        llama_url, started = ensure_llama(bench)
    proxy = CountingProxy(llama_url).start()
    proxy.relay_streams = bool(getattr(bench.args, "stream", False))  # deltas as they come, not at the end
    runs: dict[str, list[dict[str, Any]]] = {s.key: [] for s in systems}
    partial = results_dir(bench) / f"{suite.key}-partial.json"
    budget = getattr(bench.args, "fig5_minutes", None)
    t_start = time.monotonic()
    skipped: list[str] = []
    interrupted = ""
    try:
        # System by system, not interleaved: each engine keeps its own system prompt and tool
        # definitions in llama-server's prompt cache, as a persona in real use does. Alternating
        # engines would make every call re-read a prompt of thousands of tokens on this CPU.
        for i, system in enumerate(systems):
            if interrupted:
                skipped.append(system.key)
                continue
            if budget and i:
                elapsed = time.monotonic() - t_start
                per_system = elapsed / i
                if elapsed + per_system > budget * 60:
                    skipped.append(system.key)
                    print(
                        f"[fig {suite.figure}] {system.key} skipped: ~{per_system / 60:.0f} more minutes "
                        f"would pass the {budget} min budget",
                        flush=True,
                    )
                    continue
            for n, task in enumerate(tasks, 1):
                try:
                    configure = configure_for(bench, system)
                    result = suite.run(system, task, proxy, run_adapter, configure=configure)
                except KeyboardInterrupt:  # Ctrl-C / SIGINT: report what finished instead of nothing
                    interrupted = f"{system.key} after {n - 1}/{len(tasks)} tasks"
                    print(f"[fig {suite.figure}] interrupted: {interrupted}", flush=True)
                    break
                runs[system.key].append(result)
                print(
                    f"[fig {suite.figure}] {system.key} {n}/{len(tasks)} {task['id']}: "
                    f"{'PASS' if result['ok'] else 'fail'} "
                    f"{result['calls']} calls {result['seconds']:.1f}s  {result['answer'][:70]!r}",
                    flush=True,
                )
                partial.write_text(
                    json.dumps({"server": getattr(bench, "llama_info", {}), "runs": runs}, indent=1)
                )
    finally:
        proxy.stop()
        if started:
            stop_llama()
    _report(bench, suite, [s for s in systems if s.key not in skipped], tasks, runs, skipped, interrupted)
    partial.unlink(missing_ok=True)


def run_task(
    system: Any,
    task: dict[str, Any],
    proxy: CountingProxy,
    run_adapter: Any,
    timeout: float = 900,
    tag: str = "t5",
    configure: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """One task in a new process and a fresh sandbox. Past ``timeout`` seconds the process is killed,
    its requests in flight are cancelled at llama-server (which would otherwise go on computing a
    reply nobody reads, in front of the next task's) and the task fails as ``timed_out``.
    ``configure(job)`` changes the job first (``--disabled-rules``, the rules' ablation)."""
    sandbox = make_sandbox()
    model = f"{tag}-{system.key}-{task['id']}-{uuid.uuid4().hex[:6]}"
    start = dt.datetime.now(dt.timezone.utc)
    job = {
        "kind": "once",
        "base_url": proxy.base_url,
        "model": model,
        "tools": "none",
        "toolboxes": task["toolboxes"],
        "sandbox": sandbox,
        "skills_dir": str(TASKS_DIR / "skills"),
        "prompt": fill(task["prompt"], placeholders(sandbox)),
        "max_iterations": 10,
        "max_tokens": 512,
        "temperature": 0.2,
        # Generous budgets: the suite measures answers, not a shared 2-core machine's load (a first
        # request with a long tool list can take over a minute to read there).
        "request_timeout": 600,
        "engine_extra": {"time_budget": 900},
    }
    if configure is not None:
        configure(job)
    try:
        res = run_adapter(system, job, timeout=timeout, cwd=sandbox)
        timed_out = False
    except subprocess.TimeoutExpired:
        proxy.cancel(model)
        res, timed_out = {"ok": False, "error": f"timed out after {timeout:.0f} s"}, True
    except KeyboardInterrupt:  # the run is being stopped: free llama-server too
        proxy.cancel(model)
        shutil.rmtree(sandbox, ignore_errors=True)
        raise
    end = dt.datetime.now(dt.timezone.utc)
    answer = (res.get("answers") or [""])[0] if res.get("ok") else ""
    ok = bool(res.get("ok")) and check(task, answer, sandbox, [start, end])
    seconds = timeout if timed_out else (res.get("samples") or [(end - start).total_seconds()])[0]
    shutil.rmtree(sandbox, ignore_errors=True)
    return {
        "task": task["id"],
        "category": task["category"],
        "half": task.get("half", ""),
        "ok": ok,
        "calls": proxy.calls.get(model, 0),
        "prompt_tokens": proxy.prompt_tokens.get(model, 0),
        "seconds": seconds,
        "answer": answer[:300],
        "unsayable": unsayable(answer) if ok else None,  # right, but not as a voice says it
        "error": res.get("error"),
        "timed_out": timed_out,
        "rules": res.get("rules"),  # the rules that corrected the model (ours only)
    }


def _report(
    bench: Any,
    suite: Suite,
    systems: list[Any],
    tasks: list[dict[str, Any]],
    runs: dict[str, list[dict]],
    skipped: list[str] | None = None,
    interrupted: str = "",
) -> None:
    summary, rows = {}, []
    for system in systems:
        r = runs[system.key]
        if not r:
            continue
        solved = sum(x["ok"] for x in r)
        by_ear = sum(x["ok"] and not x.get("unsayable") for x in r)
        summary[system.key] = {
            "success_rate": solved / len(r),
            "solved": solved,
            "solved_by_ear": by_ear,
            "tasks": len(r),
            "calls_per_task": statistics.mean(x["calls"] for x in r),
            "seconds_per_task": statistics.mean(x["seconds"] for x in r),
            "median_seconds": statistics.median(x["seconds"] for x in r),
            "prompt_tokens_per_task": statistics.mean(x.get("prompt_tokens", 0) for x in r),
            "runs": r,
        }
        s = summary[system.key]
        rows.append(
            [
                system.label,
                f"{s['success_rate'] * 100:.0f}%",
                f"{solved}/{len(r)}",
                f"{by_ear}/{len(r)}",
                f"{s['calls_per_task']:.2f}",
                f"{s['seconds_per_task']:.1f}",
                f"{s['median_seconds']:.1f}",
                f"{s['prompt_tokens_per_task']:.0f}",
            ]
        )
    bench.results[suite.key] = summary
    bench.table(
        f"Figure {suite.figure} - {suite.title}",
        [
            "system",
            "success",
            "solved",
            "solved by ear",
            "LLM calls / task",
            "s / task (mean)",
            "s / task (median)",
            "prompt tokens / task",
        ],
        rows,
        [
            suite.about(len(tasks)),
            "By ear: solved, and the answer holds no formula, LaTeX, markdown, exponent or the loop's "
            "scaffolding (bench/ear.py); with --stream judged on what stream_sentences said.",
            "Server: "
            + "; ".join(f"{k}: {v}" for k, v in (getattr(bench, "llama_info", None) or {}).items()),
            *([f"Not run (time budget): {', '.join(skipped)}."] if skipped else []),
            *(
                [f"Interrupted: {interrupted} (the rates above are over the tasks run)."]
                if interrupted
                else []
            ),
        ],
    )
    categories = sorted({t["category"] for t in tasks})
    cat_rows = []
    for cat in categories:
        row = [cat]
        for system in systems:
            r = [x for x in runs[system.key] if x["category"] == cat]
            row.append(f"{sum(x['ok'] for x in r)}/{len(r)}" if r else "")
        cat_rows.append(row)
    bench.table(
        f"Figure {suite.figure}b - solved per category", ["category", *[s.label for s in systems]], cat_rows
    )
    half_rows = []
    for half in HALVES:
        for system in systems:
            r = [x for x in runs[system.key] if x.get("half") == half]
            if r:
                half_rows.append(
                    [
                        half,
                        system.label,
                        f"{sum(x['ok'] for x in r)}/{len(r)}",
                        f"{sum(x['ok'] and not x.get('unsayable') for x in r)}/{len(r)}",
                        f"{statistics.mean(x['calls'] for x in r):.2f}",
                        f"{statistics.mean(x['seconds'] for x in r):.1f}",
                    ]
                )
    bench.table(
        f"Figure {suite.figure}c - by half (tune / held-out, see bench/README.md)",
        ["half", "system", "solved", "solved by ear", "LLM calls / task", "s / task (mean)"],
        half_rows,
    )
    _audible_table(bench, suite, systems, runs)
    fails = []
    for system in systems:
        bad = [x for x in runs[system.key] if not x["ok"]]
        if bad:
            fails.append(f"- {system.label} failed: " + ", ".join(_failure(x) for x in bad))
        unsaid = [x for x in runs[system.key] if x["ok"] and x.get("unsayable")]
        if unsaid:
            said = ", ".join(_unsaid(x) for x in unsaid)
            fails.append(f"- {system.label} right as text, not by ear: {said}")
    if fails:
        bench.tables[-1] += "\n\n" + "\n".join(fails)
        print("\n".join(fails))


def _first(values: list[float | None] | None) -> float | None:
    """A question's first turn's seconds (the one a listener waits through first)."""
    return values[0] if values else None


def _audible_table(bench: Any, suite: Suite, systems: list[Any], runs: dict[str, list[dict]]) -> None:
    """With ``--stream``: per question, the seconds to the first audible output (the loop's
    progress line or the first sentence) and to the first sentence, and how many waited long."""
    streamed = [s for s in systems if any(x.get("first_sentence") for x in runs[s.key])]
    if not streamed:
        return
    rows = []
    for system in streamed:
        r = runs[system.key]
        audible = [a for x in r if (a := _first(x.get("first_audible"))) is not None]
        sentence = [a for x in r if (a := _first(x.get("first_sentence"))) is not None]
        if not audible or not sentence:
            continue
        rows.append(
            [
                system.label,
                f"{statistics.median(audible):.2f}",
                f"{statistics.median(sentence):.2f}",
                f"{sum(a > 5 for a in audible)}/{len(audible)}",
                f"{sum(a > 5 for a in sentence)}/{len(sentence)}",
                f"{sum(a > 10 for a in audible)}/{len(audible)}",
                f"{sum(a > 10 for a in sentence)}/{len(sentence)}",
            ]
        )
    bench.table(
        f"Figure {suite.figure}d - seconds to the first audible output (streamed; first turns)",
        [
            "system",
            "first audible (median)",
            "first sentence (median)",
            "audible > 5 s",
            "sentence > 5 s",
            "audible > 10 s",
            "sentence > 10 s",
        ],
        rows,
        [
            "First audible: the loop's progress line (a `progress` step event, which a host speaks) or the "
            "first sentence of `stream_sentences`, whichever came first; first sentence: the answer's own.",
            "Per question, first audible / first sentence: "
            + "; ".join(
                f"{x['task']} {_seconds(_first(x.get('first_audible')))} / "
                f"{_seconds(_first(x.get('first_sentence')))}"
                for system in streamed
                for x in runs[system.key]
            ),
        ],
    )


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _failure(run: dict[str, Any]) -> str:
    """A failed task by id, with the checker's reason where the suite gives one."""
    return f"{run['task']} ({run['why']})" if run.get("why") else run["task"]


def _unsaid(run: dict[str, Any]) -> str:
    """A task solved as text but not by ear, with what a voice could not say."""
    return f"{run['task']} ({run['unsayable']})"


TYPED = Suite(
    key="fig5",
    figure="5",
    title="task success with the real model (Qwen2.5-Coder-1.5B Q4_K_M on llama-server)",
    load=load_tasks,
    run=run_task,
    about=_typed_about,
)
