#!/usr/bin/env python3
"""Figure 11: the loop behind LiteLLM's proxy on one vs two model replicas, 8 sessions at once.

    .venv/bin/python bench/scale_runner.py --replicas fake --window 20          # the proof, in seconds
    .venv/bin/python bench/scale_runner.py --replicas llama --server-cli PATH   # the real run (model lock!)

Three configurations over the same traffic: one replica; two replicas with LiteLLM's
``session_affinity`` (a conversation's requests pinned to the replica that served it first);
two replicas shuffled per request. Each starts its replicas (``--replicas llama``: the bundled
model, ``ovos-agentic-loop server start --threads 1`` on each port; ``fake``: the test suite's
``fake_replica.py``), warms each replica's prompt cache with the persona's prefix (as the
engine's warm-up does), then runs 8 sessions for ``--window`` seconds: each session holds
conversations of spoken-suite questions (``bench/tasks/spoken.json``; the arithmetic, units and
follow-up questions the math tools answer, with ``local-assistant``'s system prompt; replies
capped at 160 tokens), one after the other, as
ovos-persona-server's callers do (the whole history each turn, streamed for speech).

Per configuration: turns answered within the window per minute, seconds to the first sentence
(p50, p95), and the prompt-cache hit rate (llama-server's ``timings``: ``cache_n`` over
``cache_n + prompt_n``, summed over the model calls; LiteLLM passes them through). Replicas are
stopped between configurations (``--configs`` picks some, so that each can run under its own lock).
Results: ``bench/results/scale.json`` and ``scale.md`` (merged with earlier configurations).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from ovos_agentic_loop.brain import OpenAIBrain  # noqa: E402
from ovos_agentic_loop.engine import ReActLoopEngine  # noqa: E402
from ovos_agentic_loop.events import ModelCall, StepEvent  # noqa: E402
from ovos_agentic_loop.function_tools import toolbox_from_functions  # noqa: E402
from ovos_agentic_loop.messages import AgentMessage, MessageRole  # noqa: E402

LOCALHOST = "127.0.0.1"
MASTER_KEY = "sk-bench-scale-4e1d2c3b4a5968778695a4b3c2d1e0f9"
SESSIONS = 8
#: The spoken categories the math tools answer alone: a short prefix (system prompt and 4 tools), so
#: that a 1-thread CPU replica serves several turns a minute and a window of minutes holds enough turns.
CATEGORIES = ("arithmetic", "units", "followup")
TOOLBOXES = ["ovos-math-tools"]
MAX_TOKENS = 160
#: Configuration name -> (LiteLLM model group, replicas it uses).
CONFIGS = {"one": ("one", 1), "two-affinity": ("two-affinity", 2), "two-shuffle": ("two-shuffle", 2)}
RESULTS = HERE / "results"


def log(msg: str) -> None:
    print(f"[scale {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --- the traffic ----------------------------------------------------------------------------------


def conversations() -> list[list[str]]:
    """Spoken-suite conversations the math tools answer (no files, no clock), in file order."""
    from tasks_runner import fill, placeholders

    tasks = json.loads((HERE / "tasks" / "spoken.json").read_text())["tasks"]
    values = placeholders()
    return [
        [fill(turn, values) for turn in task["turns"]]
        for task in tasks
        if task["category"] in CATEGORIES and not task.get("files") and not _asks_the_time(task["turns"])
    ]


def _asks_the_time(turns: list[str]) -> bool:
    return any(word in " ".join(turns).split() for word in ("time", "today", "date", "day"))


def persona_prompt() -> str:
    data = json.loads((ROOT / "personas" / "local-assistant.json").read_text())
    return str(data[data["handlers"][0]]["system_prompt"])


# --- processes ------------------------------------------------------------------------------------


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.popen.pid, sig)
                self.popen.wait(timeout=5)
                return
            except ProcessLookupError:
                return
            except subprocess.TimeoutExpired:
                continue


def spawn(name: str, argv: list[str], log_dir: Path, env: dict[str, str] | None = None) -> Proc:
    out = (log_dir / f"{name}.log").open("wb")
    popen = subprocess.Popen(
        argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True
    )
    return Proc(name, popen)


def wait_http(url: str, timeout: float, proc: Proc | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{proc.name} exited with {proc.popen.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def litellm_config(ports: list[int]) -> dict[str, Any]:
    def deployment(group: str, port: int) -> dict[str, Any]:
        params = {
            "model": "openai/local",
            "api_base": f"http://{LOCALHOST}:{port}/v1",
            "api_key": "sk-no-key",
        }
        return {"model_name": group, "litellm_params": params, "model_info": {"id": f"{group}-{port}"}}

    return {
        "model_list": [deployment("one", ports[0])]
        + [deployment(g, p) for g in ("two-affinity", "two-shuffle") for p in ports],
        "router_settings": {
            "routing_strategy": "simple-shuffle",
            "optional_pre_call_checks": ["session_affinity"],
            "model_group_affinity_config": {
                "one": [],
                "two-affinity": ["session_affinity"],
                "two-shuffle": [],
            },
            "num_retries": 1,
            "retry_after": 0,
        },
        "litellm_settings": {"telemetry": False, "request_timeout": 600},
        "general_settings": {"master_key": MASTER_KEY},
    }


def start_litellm(port: int, replica_ports: list[int], log_dir: Path) -> Proc:
    path = log_dir / "litellm.yaml"
    path.write_text(json.dumps(litellm_config(replica_ports), indent=2))
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False"}
    litellm = str(ROOT / "build" / "litellm-venv" / "bin" / "litellm")
    if not Path(litellm).is_file():
        litellm = str(Path(sys.executable).parent / "litellm")  # an older checkout: LiteLLM beside the loop
    argv = [litellm, "--config", str(path), "--host", LOCALHOST, "--port", str(port), "--num_workers", "1"]
    proc = spawn("litellm", argv, log_dir, env)
    wait_http(f"http://{LOCALHOST}:{port}/health/liveliness", 120, proc)
    return proc


def start_replicas(kind: str, ports: list[int], log_dir: Path, server_cli: str | None) -> list[Proc]:
    if kind == "fake":
        script = ROOT / "tests" / "real_hosts" / "fake_replica.py"
        # One request computed at a time, 0.3 s before the first token: a slow server in miniature.
        timing = ["--first-token-delay", "0.3", "--chunk-delay", "0.02", "--parallel", "1"]
        procs = [
            spawn(
                f"replica-{p}",
                [sys.executable, str(script), "--port", str(p), "--name", str(p), *timing],
                log_dir,
            )
            for p in ports
        ]
        for proc, port in zip(procs, ports, strict=True):
            wait_http(f"http://{LOCALHOST}:{port}/health", 20, proc)
        return procs
    assert server_cli, "--server-cli is needed for --replicas llama"
    for port in ports:  # the CLI starts it detached, records its PID and waits for /health
        subprocess.run([server_cli, "server", "start", "--port", str(port), "--threads", "1"], check=True)
    return []


def stop_replicas(kind: str, procs: list[Proc], ports: list[int], server_cli: str | None) -> None:
    for proc in procs:
        proc.stop()
    if kind == "llama" and server_cli:
        for port in ports:  # by the PID its pid file recorded
            subprocess.run([server_cli, "server", "stop", "--port", str(port)], check=False)


# --- one configuration ----------------------------------------------------------------------------


@dataclass
class Record:
    first_sentence_s: list[float] = field(default_factory=list)
    turns: int = 0
    failed: int = 0
    cache_n: int = 0
    prompt_n: int = 0
    model_calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def make_engine(api_url: str, model: str, fake: bool, warm: bool) -> ReActLoopEngine:
    settings = {"api_url": api_url, "key": MASTER_KEY, "model": model, "timeout": 600, "max_retries": 1}
    brain = OpenAIBrain({**settings, "max_tokens": MAX_TOKENS})
    config: dict[str, Any] = {"warm_up": warm, "time_budget": 600, "system_prompt": persona_prompt()}
    if fake:

        def note_turn(text: str) -> str:
            """Note the turn's text."""
            return f"noted {text}"

        return ReActLoopEngine(config=config, brain=brain, toolboxes=[toolbox_from_functions(note_turn)])
    return ReActLoopEngine(config={**config, "toolboxes": TOOLBOXES}, brain=brain)


def warm_replicas(ports: list[int], fake: bool) -> None:
    """Each replica reads the persona's prefix once, in parallel, as the engine's warm-up does (our own
    llama-server also restores it from its slot file when an earlier run saved it)."""
    engines = [make_engine(f"http://{LOCALHOST}:{p}/v1", "local", fake, warm=True) for p in ports]
    for engine in engines:
        engine.warmed_up.wait(900)


def prompt_cache_use(event: ModelCall) -> tuple[int, int]:
    """(prompt tokens found in the server's cache, prompt tokens) of one model call: from the usage's
    ``prompt_tokens_details.cached_tokens`` (llama-server sends it; LiteLLM passes it on, in streams
    too), else from llama-server's ``timings`` (``cache_n``, ``prompt_n``), which LiteLLM keeps only
    on replies that do not stream."""
    usage = event.usage or {}
    details = usage.get("prompt_tokens_details") or {}
    if usage.get("prompt_tokens") and "cached_tokens" in details:
        return int(details["cached_tokens"] or 0), int(usage["prompt_tokens"])
    timings = event.timings or {}
    cached = int(timings.get("cache_n") or 0)
    return cached, cached + int(timings.get("prompt_n") or 0)


def run_config(
    name: str, proxy_url: str, window: float, fake: bool, threads: list[threading.Thread]
) -> dict[str, Any]:
    """The window of traffic; ``threads`` gets the sessions, which may still be inside a turn at its end
    (the caller stops the replicas, which ends those turns, then joins them)."""
    group, _ = CONFIGS[name]
    engine = make_engine(proxy_url, group, fake, warm=False)
    record = Record()

    def on_step(event: StepEvent) -> None:
        if isinstance(event, ModelCall):
            cached, total = prompt_cache_use(event)
            with record.lock:
                record.model_calls += 1
                record.cache_n += cached
                record.prompt_n += total - cached

    engine.add_step_listener(on_step)
    talks = conversations()
    started = time.monotonic()
    end = started + window

    def session(i: int) -> None:
        n = i
        while time.monotonic() < end:
            talk = talks[n % len(talks)]
            history: list[AgentMessage] = []
            for text in talk:
                if time.monotonic() >= end:
                    return
                history.append(AgentMessage(MessageRole.USER, text))
                t0 = time.monotonic()
                first: float | None = None
                parts = []
                try:
                    for sentence in engine.stream_sentences(list(history), session_id=f"bench-{i}-{n}"):
                        first = first if first is not None else time.monotonic() - t0
                        parts.append(sentence)
                except Exception as exc:  # noqa: BLE001 - counted (within the window); the session ends
                    if time.monotonic() <= end:
                        with record.lock:
                            record.failed += 1
                        log(f"{name}: session {i} turn failed: {type(exc).__name__}: {exc}")
                    return
                if time.monotonic() <= end:  # a turn counts when it was answered within the window
                    with record.lock:
                        record.turns += 1
                        if first is not None:
                            record.first_sentence_s.append(first)
                history.append(AgentMessage(MessageRole.ASSISTANT, " ".join(parts)))
            n += SESSIONS

    threads += [threading.Thread(target=session, args=(i,), daemon=True) for i in range(SESSIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.0, end - time.monotonic()))
    firsts = sorted(record.first_sentence_s)
    result = {
        "replicas": CONFIGS[name][1],
        "affinity": name == "two-affinity",
        "window_s": window,
        "turns": record.turns,
        "failed": record.failed,
        "turns_per_min": round(record.turns / (window / 60), 2),
        "first_sentence_p50_s": round(statistics.median(firsts), 2) if firsts else None,
        "first_sentence_p95_s": round(_percentile(firsts, 0.95), 2) if firsts else None,
        "model_calls": record.model_calls,
        "cache_hit_rate": round(record.cache_n / (record.cache_n + record.prompt_n), 3)
        if record.cache_n + record.prompt_n
        else None,
    }
    log(f"{name}: {result}")
    return result


def _percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


@contextlib.contextmanager
def held(lock_path: str | None) -> Iterator[None]:
    if lock_path is None:
        yield
        return
    with open(lock_path, "a") as lock:
        log(f"waiting for the lock {Path(lock_path).name}")
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# --- report ---------------------------------------------------------------------------------------


def write_report(kind: str, results: dict[str, Any]) -> None:
    suffix = "" if kind == "llama" else "-fake"
    path = RESULTS / f"scale{suffix}.json"
    earlier = json.loads(path.read_text()) if path.exists() else {}
    configs = {**earlier.get("configs", {}), **results}
    payload = {
        "figure": 11,
        "replicas": kind,
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                    "python": platform.python_version()},
        "sessions": SESSIONS,
        "configs": configs,
    }  # fmt: skip
    path.write_text(json.dumps(payload, indent=2) + "\n")
    rows = [
        "| configuration | turns / min | first sentence p50 / p95, s | prompt-cache hit rate "
        "| turns (failed) | model calls |",
        "|---|---|---|---|---|---|",
    ]
    for name in CONFIGS:
        r = configs.get(name)
        if r:
            rows.append(
                f"| {name} | {r['turns_per_min']} "
                f"| {r['first_sentence_p50_s']} / {r['first_sentence_p95_s']} | {r['cache_hit_rate']} "
                f"| {r['turns']} ({r['failed']}) | {r['model_calls']} |"
            )
    title = "the bundled model on llama-server" if kind == "llama" else "fake replicas (the proof)"
    (RESULTS / f"scale{suffix}.md").write_text(
        f"# Figure 11: one vs two replicas behind LiteLLM, {SESSIONS} sessions, {title}\n\n"
        + "\n".join(rows)
        + "\n"
    )
    log(f"wrote {path.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replicas", choices=["fake", "llama"], default="fake")
    p.add_argument("--configs", default=",".join(CONFIGS), help=f"comma-separated, of: {', '.join(CONFIGS)}")
    p.add_argument("--window", type=float, default=150, help="seconds of traffic per configuration")
    p.add_argument("--lock", help="a lock file held (flock) while a configuration's replicas run")
    p.add_argument("--ports", default="8134,8135", help="the two replicas' ports")
    p.add_argument("--proxy-port", type=int, default=8133)
    p.add_argument("--server-cli", help="the ovos-agentic-loop command that can start llama-server")
    p.add_argument("--log-dir", default=str(HERE / ".scale-logs"))
    args = p.parse_args(argv)
    # SIGTERM ends the run like an error: the finally blocks stop the proxy and the replicas by PID.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    names = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = set(names) - set(CONFIGS)
    if unknown:
        p.error(f"unknown configurations {sorted(unknown)}")
    ports = [int(x) for x in args.ports.split(",")]
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(HERE))
    fake = args.replicas == "fake"
    proxy = start_litellm(args.proxy_port, ports, log_dir)
    results: dict[str, Any] = {}
    try:
        for name in names:
            used = ports[: CONFIGS[name][1]]
            sessions: list[threading.Thread] = []
            with held(args.lock):  # released between configurations: the model is a shared resource
                t0 = time.monotonic()
                procs = start_replicas(args.replicas, used, log_dir, args.server_cli)
                try:
                    warm_replicas(used, fake)
                    log(f"{name}: {len(used)} replica(s) up and warm in {time.monotonic() - t0:.0f} s")
                    url = f"http://{LOCALHOST}:{args.proxy_port}/v1"
                    results[name] = run_config(name, url, args.window, fake, sessions)
                finally:
                    stop_replicas(args.replicas, procs, used, args.server_cli)
                    log(f"{name}: lock held {time.monotonic() - t0:.0f} s")
            for thread in sessions:  # their last turns fail now that the replicas are gone
                thread.join(timeout=60)
    finally:
        proxy.stop()
        write_report(args.replicas, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
