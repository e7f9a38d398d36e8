#!/usr/bin/env python3
"""Benchmarks, side by side in one run: this project, upstream, three peers and a raw-client floor.

    python3 bench/run.py                 # figures 1,2,3,4,6 (scripted server, a few minutes)
    python3 bench/run.py --figures 5     # the real-model task suite (needs llama-server)
    python3 bench/run.py --figures 8     # each loop, ours vs upstream's, on 8 tasks (real model)
    python3 bench/run.py --figures 5 --suite spoken   # spoken questions, local-assistant tools (5s)
    python3 bench/run.py --figures 9     # a BFCL sample: the bare model vs the loops (real model)
    python3 bench/run.py --figures 10    # many tools: 15/40/80 tools, tool selection off/on (real model)
    python3 bench/run.py --figures 11    # one vs two replicas behind LiteLLM (bench/scale_runner.py)
    python3 bench/run.py --conversations --memory off|process   # multi-turn conversations (real model)
    python3 bench/run.py --all           # everything

Each framework runs in its own venv (``bench/.venvs/<name>``, built on first use)
through a small adapter in ``bench/peers/``, as a subprocess that prints JSON. This
orchestrator is stdlib only; it hosts the scripted OpenAI-compatible server,
interleaves the frameworks round by round (shuffled), and reports medians and
ratios, since these machines are noisy. It writes ``bench/results/latest.md`` and
``latest.json``. ``--chart`` draws ``chart.png`` from the current figures of bench/README.md
(with matplotlib from the ``bench`` venv): the chart shows what the README publishes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import venvs  # noqa: E402
from scripted_server import Script, ScriptedServer  # noqa: E402

RESULTS_DIR = BENCH_DIR / "results"
PEERS_DIR = BENCH_DIR / "peers"
BUNDLED = [
    "ovos-math-tools",
    "ovos-clock-tools",
    "ovos-filesystem-tools",
    "ovos-shell-tools",
    "ovos-skill-md-toolbox",
]


@dataclass(frozen=True)
class System:
    """One benchmarked configuration: a venv, an adapter, and adapter options."""

    key: str
    label: str
    venv: str
    adapter: str
    dist: str  # the distribution whose version is reported
    options: dict[str, Any] = field(default_factory=dict)
    ovos: bool = False
    streams: bool = True


SYSTEMS = [
    System("floor", "floor (raw openai)", "floor", "peer_floor.py", "openai"),
    System(
        "ours", "ours", "ours", "peer_ours.py", "ovos-agentic-loop", {"engine": "ovos-react-loop"}, ovos=True
    ),
    System(
        "upstream-react",
        "upstream react (text)",
        "upstream",
        "peer_upstream.py",
        "ovos-agentic-loop",
        {"engine": "ovos-react-loop"},
        ovos=True,
    ),
    System(
        "upstream-native",
        "upstream native",
        "upstream",
        "peer_upstream.py",
        "ovos-agentic-loop",
        {"engine": "ovos-native-toolcall-loop"},
        ovos=True,
    ),
    System("smolagents", "smolagents", "smolagents", "peer_smolagents.py", "smolagents", streams=False),
    System("openai-agents", "openai-agents", "openai-agents", "peer_openai_agents.py", "openai-agents"),
    System("pydantic-ai", "pydantic-ai", "pydantic-ai", "peer_pydantic_ai.py", "pydantic-ai-slim"),
]
BY_KEY = {s.key: s for s in SYSTEMS}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


# --- running adapters ------------------------------------------------------------------


def run_adapter(
    system: System, job: dict[str, Any], timeout: float = 900, cwd: str | None = None
) -> dict[str, Any]:
    job = {**system.options, **job}
    cmd = [str(venvs.python_of(system.venv)), str(PEERS_DIR / system.adapter), json.dumps(job)]
    out = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=_adapter_env(), cwd=cwd or _NEUTRAL_CWD
    )
    for line in reversed(out.stdout.splitlines()):
        if line.startswith("BENCH_RESULT "):
            result = json.loads(line[len("BENCH_RESULT ") :])
            if not result.get("ok"):
                log(f"  ! {system.key}: {result.get('error')}\n{result.get('trace', '')[-1500:]}")
            return result
    log(f"  ! {system.key}: no result (exit {out.returncode})\n{out.stderr[-3000:]}")
    return {"ok": False, "error": f"exit {out.returncode}: {out.stderr.strip().splitlines()[-1:] or ''}"}


# Adapters run outside the repository, so nothing there shadows a venv's packages.
_NEUTRAL_CWD = tempfile.gettempdir()


def _adapter_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    # Quiet loggers, no telemetry, no hub look-ups.
    env.update({"HF_HUB_OFFLINE": "1", "OTEL_SDK_DISABLED": "true", "PYTHONDONTWRITEBYTECODE": "0"})
    return env


def timed_markers(system: System, job: dict[str, Any], timeout: float = 300) -> dict[str, float]:
    """Spawn the adapter and time its READY / FIRST markers from the moment of the spawn."""
    job = {**system.options, **job}
    cmd = [str(venvs.python_of(system.venv)), str(PEERS_DIR / system.adapter), json.dumps(job)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_adapter_env(), cwd=_NEUTRAL_CWD
    )
    marks: dict[str, float] = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        now = time.perf_counter() - t0
        if line.startswith("BENCH_READY"):
            marks["ready"] = now
        elif line.startswith("BENCH_FIRST"):
            marks["first"] = now
        elif line.startswith("BENCH_RESULT"):
            result = json.loads(line.split(" ", 1)[1])
            if not result.get("ok"):
                log(f"  ! {system.key}: {result.get('error')}")
    proc.wait(timeout=timeout)
    if "first" not in marks:
        log(
            "  ! "
            + system.key
            + ": cold start did not finish:\n"
            + (proc.stderr.read()[-2000:] if proc.stderr else "")
        )
    return marks


def rounds(systems: list[System], n: int, seed: int) -> list[list[System]]:
    """``n`` rounds, each with every system once, in a shuffled order (interleaved runs)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        order = list(systems)
        rng.shuffle(order)
        out.append(order)
    return out


# --- the figures -----------------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.server = ScriptedServer().start()
        self.results: dict[str, Any] = {}
        self.tables: list[str] = []
        self.systems = [BY_KEY[k] for k in args.systems]
        self.extra_servers: list[ScriptedServer] = []
        self.llama_url: str | None = None  # set when figure 5 runs; fig5_tasks then reuses it
        self.llama_info: dict[str, Any] = {}

    def table(
        self, title: str, header: list[str], rows: list[list[str]], notes: list[str] | None = None
    ) -> None:
        widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
        lines = [f"### {title}", ""]
        lines.append("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)) + " |")
        lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        for r in rows:
            lines.append("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)) + " |")
        for note in notes or []:
            lines.append("")
            lines.append(note)
        text = "\n".join(lines)
        self.tables.append(text)
        print("\n" + text + "\n", flush=True)

    # Figure 1 -------------------------------------------------------------------------
    def fig1_overhead(self) -> None:
        steps = [5, 20]
        n_rounds, inner = self.args.repeats, self.args.inner
        samples: dict[str, dict[str, list[float]]] = {s.key: {"5": [], "20": []} for s in self.systems}
        for i, order in enumerate(rounds(self.systems, n_rounds, seed=1)):
            log(f"[fig 1] round {i + 1}/{n_rounds}")
            for system in order:
                model = f"f1-{system.key}"
                for s in steps:
                    self.server.add(f"{model}-s{s}", Script(steps=s, tool="echo"))
                res = run_adapter(
                    system,
                    {
                        "kind": "overhead",
                        "base_url": self.server.base_url,
                        "model": model,
                        "steps": steps,
                        "repeats": inner,
                    },
                )
                if res.get("ok"):
                    for s in steps:
                        samples[system.key][str(s)].extend(res["samples"][str(s)])
                        script = self.server.scripts[f"{model}-s{s}"]
                        expected = (inner + 1) * (s + 1)
                        if script.requests != expected:
                            log(
                                f"  ! {system.key}: {s}-step run made {script.requests} model calls, "
                                f"expected {expected}"
                            )
                            samples[system.key].setdefault("bad", []).append(s)
        per_step = {}
        for key, sm in samples.items():
            if sm["5"] and sm["20"]:
                per_step[key] = (median(sm["20"]) - median(sm["5"])) / 15 * 1000
        floor = per_step.get("floor")
        rows = []
        for system in self.systems:
            sm = samples[system.key]
            if system.key not in per_step:
                rows.append([system.label, "failed", "", "", "", ""])
                continue
            ps = per_step[system.key]
            rows.append(
                [
                    system.label,
                    f"{median(sm['5']) * 1000:.1f}",
                    f"{median(sm['20']) * 1000:.1f}",
                    f"{ps:.2f}",
                    f"{ps - floor:+.2f}" if floor is not None else "",
                    f"{ps / floor:.2f}x" if floor else "",
                ]
                + (["calls wrong"] if sm.get("bad") else [])
            )
        self.results["fig1"] = {"samples": samples, "per_step_ms": per_step}
        self.table(
            "Figure 1 - loop overhead per step (scripted server, instant replies)",
            ["system", "5-step run ms", "20-step run ms", "ms/step", "above floor ms/step", "vs floor"],
            rows,
            [
                f"Medians of {n_rounds} interleaved rounds x {inner} runs (after one warm-up run). "
                "ms/step = (20-step - 5-step) / 15: the cost of one more model call + tool call, "
                "fixed costs cancelled."
            ],
        )

    # Figure 2 -------------------------------------------------------------------------
    def fig2_cold(self) -> None:
        n = self.args.cold_repeats
        marks: dict[str, dict[str, list[float]]] = {s.key: {"ready": [], "first": []} for s in self.systems}
        self.server.add("f2", Script(steps=0, final="Hello."))
        for i, order in enumerate(rounds(self.systems, n, seed=2)):
            log(f"[fig 2] round {i + 1}/{n}")
            for system in order:
                job = {"kind": "cold", "base_url": self.server.base_url, "model": "f2"}
                if system.ovos:
                    job.update(tools="none", toolboxes=BUNDLED)
                m = timed_markers(system, job)
                for k in ("ready", "first"):
                    if k in m:
                        marks[system.key][k].append(m[k])
        base = subprocess.run([sys.executable, "-c", "import time"], capture_output=True)
        del base
        rows = []
        best_peer = min(
            (
                median(marks[s.key]["ready"])
                for s in self.systems
                if s.key not in ("floor", "ours") and not s.ovos and marks[s.key]["ready"]
            ),
            default=float("nan"),
        )
        for system in self.systems:
            r, f = marks[system.key]["ready"], marks[system.key]["first"]
            if not r:
                rows.append([system.label, "failed", "", ""])
                continue
            rows.append(
                [
                    system.label,
                    f"{median(r) * 1000:.0f}",
                    f"{median(f) * 1000:.0f}" if f else "",
                    f"{median(r) / best_peer:.2f}x" if best_peer == best_peer else "",
                ]
            )
        self.results["fig2"] = {"marks": marks}
        self.table(
            "Figure 2 - cold start (process start to engine ready)",
            ["system", "ready ms", "first answer ms", "vs fastest peer"],
            rows,
            [
                f"Medians of {n} interleaved runs, each a new process. "
                "OVOS engines (ours, upstream) load all five "
                "bundled toolboxes and their brain; peers and the floor build an agent with one tool. "
                "'first answer' adds one tool-free turn against the scripted server (catches lazy imports)."
            ],
        )

    # Figure 3 -------------------------------------------------------------------------
    #: Extra rows for this project, each compared with upstream on equal terms: the same tool
    #: names as upstream (its 11 tools), and ``mode: text`` (the counterpart of upstream's
    #: ReAct text prompt). key -> (label, engine_extra, restrict to upstream's tool names).
    FIG3_OURS_VARIANTS: ClassVar[dict[str, tuple[str, dict[str, Any], bool]]] = {
        "ours-same": ("ours, upstream's tools", {}, True),
        "ours-text": ("ours, mode text", {"mode": "text"}, False),
        "ours-text-same": ("ours, mode text, upstream's tools", {"mode": "text"}, True),
    }

    def _fig3_one(self, system: System, toolboxes: list[str], key: str, extra: dict[str, Any]):
        model = f"f3-{key}-{len(toolboxes)}"
        script = self.server.add(model, Script(steps=0, final="Hello.", record=True))
        job = {
            "kind": "prompt",
            "base_url": self.server.base_url,
            "model": model,
            "tools": "none",
            "toolboxes": toolboxes,
            "prompt": "What is 2+2?",
            **extra,
        }
        res = run_adapter(system, job)
        if not res.get("ok") or not script.bodies:
            return None
        return measure_prompt(script.bodies[0], self._token_url())

    def _token_url(self) -> str | None:
        url = self.args.llama_url
        return url if url and url != "scripted" else None

    def fig3_prompt(self) -> None:
        ovos_systems = [s for s in self.systems if s.ovos]
        # Upstream's skill toolbox offers no tool at all (it sets its loader after ToolBox.__init__
        # has already run discover_tools), so the four other toolboxes are compared on their own too.
        toolsets = [("all five", BUNDLED), ("four, no skills", BUNDLED[:4])]
        labels = {s.key: s.label for s in SYSTEMS} | {k: v[0] for k, v in self.FIG3_OURS_VARIANTS.items()}
        rows, names, all_data = [], {}, {}
        for label, toolboxes in toolsets:
            data: dict[str, Any] = {}
            for system in ovos_systems:
                d = self._fig3_one(system, toolboxes, system.key, {})
                if d is None:
                    rows.append([label, system.label, "failed", "", "", "", "", ""])
                    continue
                data[system.key] = d
            upstream_names = next(
                (data[k]["tool_names"] for k in ("upstream-native", "upstream-react") if k in data), None
            )
            if "ours" in data:
                for key, (vlabel, engine_extra, same) in self.FIG3_OURS_VARIANTS.items():
                    if same and not upstream_names:
                        continue
                    extra: dict[str, Any] = {"engine_extra": engine_extra}
                    if same:
                        extra["only_tools"] = upstream_names
                    d = self._fig3_one(BY_KEY["ours"], toolboxes, key, extra)
                    if d is None:
                        rows.append([label, vlabel, "failed", "", "", "", "", ""])
                        continue
                    if same and sorted(d["tool_names"]) != sorted(upstream_names or []):
                        log(f"  ! {key}: offered {d['tool_names']}, not upstream's {upstream_names}")
                    data[key] = d
            for key, d in data.items():
                names[f"{labels[key]}, {label}"] = ", ".join(d["tool_names"])
            all_data[label] = data
            up_r, up_n = data.get("upstream-react"), data.get("upstream-native")
            for key, d in data.items():
                rows.append(
                    [
                        label,
                        labels[key],
                        str(d["n_tools"]),
                        str(d["tools_chars"]),
                        str(d["system_chars"]),
                        str(d["protocol_tokens"]),
                        f"{d['protocol_tokens'] / up_r['protocol_tokens'] * 100:.0f}%" if up_r else "",
                        f"{d['protocol_tokens'] / up_n['protocol_tokens'] * 100:.0f}%" if up_n else "",
                    ]
                )
        self.results["fig3"] = all_data["all five"]
        self.results["fig3_four"] = all_data["four, no skills"]
        tok = (
            "llama-server's tokenizer, chat template applied (the templated prompt minus the same prompt "
            "without tools and system messages)"
            if self._token_url()
            else "characters / 4"
        )
        self.table(
            "Figure 3 - prompt the tool definitions and protocol add to each request",
            [
                "toolboxes",
                "system",
                "tools",
                "tools JSON chars",
                "system prompt chars",
                "tokens",
                "vs upstream react",
                "vs upstream native",
            ],
            rows,
            [
                f"Tokens: {tok}. From the first request each engine sent to the scripted server "
                "(question 'What is 2+2?', no persona prompt): tools JSON + system messages.",
                "Same tools as upstream: 'ours, upstream's tools' is our engine built with the same "
                "toolboxes and configuration, then each loaded toolbox's `tools` dict filtered to the "
                "names upstream offered in the same row group (its 11: upstream has no convert_timezone, "
                "days_between, add_to_date, get_weekday, text_stats, and its skill toolbox offers none); "
                "the request measured is the one the engine then sends, as for a persona offering only "
                "those tools. 'mode text' is our compact text protocol (tools described in the system "
                "prompt, no `tools` field), the counterpart of upstream's ReAct text prompt. "
                "The issue's target (prompt <= 40% of upstream's for the same tools) compares the "
                "'upstream's tools' rows with upstream.",
                *[f"- {k}: {v}" for k, v in names.items()],
            ],
        )

    # Figure 4 -------------------------------------------------------------------------
    def fig4_parallel(self) -> None:
        n = self.args.parallel_repeats
        times: dict[str, list[float]] = {s.key: [] for s in self.systems}
        for i, order in enumerate(rounds(self.systems, n, seed=4)):
            log(f"[fig 4] round {i + 1}/{n}")
            for system in order:
                model = f"f4-{system.key}"
                # A text-protocol engine can ask for one tool per reply: it needs three turns.
                text_only = system.key == "upstream-react"
                self.server.add(
                    model,
                    Script(
                        steps=3 if text_only else 1, calls_per_turn=1 if text_only else 3, tool="slow_lookup"
                    ),
                )
                res = run_adapter(
                    system,
                    {
                        "kind": "parallel",
                        "base_url": self.server.base_url,
                        "model": model,
                        "tools": "slow",
                        "repeats": 1,
                        "prompt": "Look up a, b and c.",
                    },
                )
                if res.get("ok"):
                    times[system.key].extend(res["samples"])
        rows = []
        for system in self.systems:
            t = times[system.key]
            rows.append(
                [
                    system.label,
                    f"{median(t):.2f}" if t else "failed",
                    f"{median(t) / 1.0:.2f}x" if t else "",
                    "1 reply with 3 calls" if system.key != "upstream-react" else "3 replies (1 Action each)",
                ]
            )
        self.results["fig4"] = times
        self.table(
            "Figure 4 - three independent 1-second tool calls requested in one turn",
            ["system", "turn seconds", "vs slowest call (1 s)", "what the model sent"],
            rows,
            [f"Medians of {n} interleaved runs. ~1x = run concurrently; ~3x = one after another."],
        )

    # Figure 6 -------------------------------------------------------------------------
    def fig6_stream(self) -> None:
        n = self.args.stream_repeats
        answer = (
            "The first sentence arrives early. "
            + "Then the answer goes on with more detail for the listener. " * 7
            + "That is all."
        )
        data: dict[str, dict[str, list[float]]] = {s.key: {"first": [], "total": []} for s in self.systems}
        streaming = [s for s in self.systems if s.streams]
        for i, order in enumerate(rounds(streaming, n, seed=6)):
            log(f"[fig 6] round {i + 1}/{n}")
            for system in order:
                model = f"f6-{system.key}"
                self.server.add(
                    model, Script(steps=1, tool="echo", final=answer, token_delay=self.args.token_delay)
                )
                res = run_adapter(
                    system, {"kind": "stream", "base_url": self.server.base_url, "model": model, "repeats": 1}
                )
                if res.get("ok"):
                    data[system.key]["first"].extend(res["first"])
                    data[system.key]["total"].extend(res["total"])
        rows = []
        for system in self.systems:
            d = data[system.key]
            if not d["first"]:
                rows.append([system.label, "n/a" if not system.streams else "failed", "", ""])
                continue
            f, t = median(d["first"]), median(d["total"])
            rows.append([system.label, f"{f:.2f}", f"{t:.2f}", f"{f / t * 100:.0f}%"])
        self.results["fig6"] = data
        words = len(answer.split())
        self.table(
            "Figure 6 - streaming: time to the first sentence of the final answer vs the whole answer",
            ["system", "first sentence s", "whole answer s", "first / whole"],
            rows,
            [
                f"One tool turn, then a {words}-word answer streamed at "
                f"{self.args.token_delay * 1000:.0f} ms per word "
                f"(about a small local model's speed); medians of {n} interleaved runs. "
                "OVOS engines are read through "
                "stream_sentences (what ovos-persona uses); the others through their own streaming API. "
                "smolagents: n/a (its final answer is a tool-call argument)."
            ],
        )

    def close(self) -> None:
        self.server.stop()
        for server in self.extra_servers:
            server.stop()


def measure_prompt(body: dict[str, Any], llama_url: str | None) -> dict[str, Any]:
    """What the tools and the protocol add to a request: tools JSON plus system messages."""
    tools = body.get("tools") or []
    messages = body.get("messages") or []
    system = [m for m in messages if m.get("role") == "system"]
    tools_chars = len(json.dumps(tools)) if tools else 0
    system_chars = sum(len(m.get("content") or "") for m in system)
    protocol_chars = tools_chars + system_chars
    tokens = protocol_chars // 4
    names = [t.get("function", {}).get("name", "?") for t in tools]
    if not names:  # a text protocol: the tool names are in the prompt
        import re

        names = re.findall(r'"name":\s*"([^"]+)"', " ".join(m.get("content") or "" for m in system))
        if not names:  # this project's compact text protocol: one "- name: description" line a tool
            names = re.findall(r"^- ([\w.-]+): ", " ".join(m.get("content") or "" for m in system), re.M)
    if llama_url:
        full = count_tokens(llama_url, messages, tools)
        bare = count_tokens(llama_url, [m for m in messages if m.get("role") != "system"], [])
        if full is not None and bare is not None:
            tokens = full - bare
    return {
        "n_tools": len(names),
        "tool_names": names,
        "tools_chars": tools_chars,
        "system_chars": system_chars,
        "protocol_chars": protocol_chars,
        "protocol_tokens": tokens,
    }


def count_tokens(llama_url: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int | None:
    """Tokens of the prompt llama-server builds (chat template applied), or None."""
    import urllib.request

    root = llama_url.rstrip("/").removesuffix("/v1")

    def post(path: str, payload: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(
            root + path, json.dumps(payload).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    try:
        payload: dict[str, Any] = {"messages": messages}
        if tools:
            payload["tools"] = tools
        prompt = post("/apply-template", payload)["prompt"]
        return len(post("/tokenize", {"content": prompt})["tokens"])
    except Exception as exc:  # noqa: BLE001 - fall back to characters, said once per call
        log(f"  token count via llama-server failed ({exc}); using characters / 4")
        return None


# --- report --------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "arch": platform.machine(),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
    }


def versions(systems: list[System]) -> dict[str, str]:
    out = {}
    for s in systems:
        out[s.key] = venvs.installed_version(s.venv, s.dist)
    try:
        rev = subprocess.run(
            ["git", "-C", str(BENCH_DIR.parent), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        if "ours" in out:
            out["ours"] += f" (git {rev})"
    except OSError:
        pass
    return out


def _sections(markdown: str) -> dict[str, list[str]]:
    """The tables of an earlier report, keyed by figure number ('1', '3', '5b', ...)."""
    out: dict[str, list[str]] = {}
    for chunk in markdown.split("\n### Figure ")[1:]:
        number = chunk.split(" ", 1)[0]
        out.setdefault(number, []).append("### Figure " + chunk.strip())
    return out


def write_report(bench: Bench, figures: list[int]) -> None:
    out_dir = Path(bench.args.results_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    m = machine()
    # Figure 10 runs ours and upstream in their MCP venvs: report those.
    mcp_venvs = {"ours": "ours-mcp", "upstream-native": "upstream-mcp"}
    shown = [replace(BY_KEY[k], venv=v) for k, v in mcp_venvs.items()] if figures == [10] else bench.systems
    vers = versions(shown)
    head = [
        "# Benchmark results",
        "",
        f"Date: {m['date']}. Machine: {m['arch']}, {m['cpu']}, {m['cores']} cores, Python {m['python']}.",
        f"Command: `python3 bench/run.py {' '.join(sys.argv[1:])}`",
        "",
        "Versions: " + ", ".join(f"{BY_KEY[k].label} {v}" for k, v in vers.items()),
        "",
    ]
    suffix = "" if figures != [5] else "-spoken" if getattr(bench.args, "suite", "") == "spoken" else "-tasks"
    suffix = "-many-tools" if figures == [10] else suffix  # figure 10 runs on its own, like 5s
    suffix = "-ablation" if figures == [12] else suffix
    md_path = out_dir / f"latest{suffix}.md"
    # Figures not run this time keep their earlier tables (each says when it was measured).
    sections = _sections(md_path.read_text()) if md_path.exists() else {}
    stamp = f"(measured {m['date']})"
    fresh: dict[str, list[str]] = {}
    for text in bench.tables:
        number = text.split("Figure ", 1)[1].split(" ", 1)[0]
        title, _, rest = text.partition("\n")
        fresh.setdefault(number, []).append(f"{title} {stamp}\n{rest}")
    sections.update(fresh)
    body = [t for _, texts in sorted(sections.items()) for t in texts]
    md_path.write_text("\n".join(head) + "\n" + "\n\n".join(body) + "\n")
    payload = {"machine": m, "versions": vers, "figures": figures, **bench.results}
    json_path = out_dir / f"latest{suffix}.json"
    # Keep results of figures not run this time (e.g. the slow task suite) for the chart.
    if json_path.exists():
        old = json.loads(json_path.read_text())
        payload = {**{k: v for k, v in old.items() if k.startswith("fig")}, **payload}
    json_path.write_text(json.dumps(payload, indent=1))
    if set(figures) & CHARTED:
        log("the chart draws bench/README.md's current figures: once they hold this run, --chart redraws it")
    log(f"wrote {md_path}")


CHARTED = {1, 2, 3, 4, 5, 6}  # figures 7-12 are tables only


def draw_chart(out_dir: Path) -> bool:
    """Draw ``out_dir/chart.png`` from the current figures of bench/README.md; False when it could not."""
    try:
        py = venvs.ensure("bench", log=log)
        subprocess.run(
            [str(py), str(BENCH_DIR / "chart.py"), str(out_dir / "chart.png"), str(BENCH_DIR / "README.md")],
            check=True,
        )
    except (subprocess.CalledProcessError, RuntimeError) as exc:
        log(f"chart not drawn: {exc}")
        return False
    log(f"wrote {out_dir / 'chart.png'}")
    return True


def main(argv: list[str] | None = None) -> int:  # noqa: C901 - one flat branch per figure and option
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--figures", default="1,2,3,4,6", help="comma-separated figure numbers (default 1,2,3,4,6)"
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="figures 1-6, including 5 (the real model); 8 and 9 run on their own",
    )
    p.add_argument("--systems", default=",".join(BY_KEY), help=f"subset of: {', '.join(BY_KEY)}")
    p.add_argument("--repeats", type=int, default=5, help="interleaved rounds for figure 1 (default 5)")
    p.add_argument("--inner", type=int, default=5, help="runs per round per system in figure 1 (default 5)")
    p.add_argument(
        "--cold-repeats", type=int, default=7, help="process starts per system, figure 2 (default 7)"
    )
    p.add_argument("--parallel-repeats", type=int, default=3, help="runs per system, figure 4 (default 3)")
    p.add_argument("--stream-repeats", type=int, default=3, help="runs per system, figure 6 (default 3)")
    p.add_argument("--token-delay", type=float, default=0.03, help="seconds per streamed word, figure 6")
    p.add_argument(
        "--llama-url",
        default=None,
        help="a running llama-server /v1 base: exact token counts (fig 3) and the model (figs 5, 8, 9); "
        "default: figs 5, 8 and 9 start one with `ovos-agentic-loop server start`; 'scripted' runs them "
        "against the scripted server (tests the runner, not the model)",
    )
    p.add_argument(
        "--tasks",
        default=None,
        help="figures 5 and 8: comma-separated task ids, categories, 'tune', 'held-out' or "
        "'held-out-first' (one task a category); default: all for figure 5, held-out-first for 8",
    )
    p.add_argument(
        "--suite",
        choices=["typed", "spoken"],
        default="typed",
        help="figure 5: the typed task suite (bench/tasks/tasks.json, default) or the spoken questions "
        "with the local-assistant tool set (bench/tasks/spoken.json; reported as figure 5s)",
    )
    p.add_argument(
        "--stream",
        action="store_true",
        help="figure 5 spoken: answers through stream_sentences (what ovos-persona speaks), with each "
        "turn's seconds to its first sentence and to its first audible output (progress line or sentence)",
    )
    p.add_argument(
        "--progress-speech",
        choices=["on", "off"],
        default=None,
        help="figure 5: our loop's progress_speech setting for the run (default: the persona's)",
    )
    p.add_argument(
        "--bfcl-per-category",
        type=int,
        default=5,
        help="figure 9: BFCL entries per category, the first N of each (default 5)",
    )
    p.add_argument(
        "--bfcl-report",
        default=None,
        metavar="FILE",
        help="figure 9: score and report the runs saved in FILE (an interrupted run's fig9-partial.json); "
        "runs nothing, needs no server",
    )
    p.add_argument(
        "--loops",
        default=None,
        help="figure 8: comma-separated loops (e.g. plan-execute,critic; default all eight); "
        "ovos-react-loop, the baseline, always runs",
    )
    p.add_argument(
        "--task-timeout",
        type=float,
        default=None,
        help="figure 8: seconds a task may take before it is killed and counted as failed (default 180)",
    )
    p.add_argument("--results-dir", default=str(RESULTS_DIR), help="where reports go (default bench/results)")
    p.add_argument(
        "--template",
        choices=["tools", "stock"],
        default="tools",
        help="figure 5: chat template of the llama-server the bench starts (default: tools, as "
        "`ovos-agentic-loop server start` ships)",
    )
    p.add_argument(
        "--fig5-minutes",
        type=float,
        default=None,
        help="figure 5: skip the remaining systems (never tasks) once the next would pass this budget",
    )
    p.add_argument(
        "--fig10-configs",
        default=None,
        help="figure 10: comma-separated configurations (80-on, 80-off, 15, 40-on, 40-off, up-15, up-80; "
        "default 80-on,80-off,15,40-on,40-off), run in that order",
    )
    p.add_argument(
        "--disabled-rules",
        default=None,
        metavar="NAME,...",
        help="figure 5: our loop runs with these rules switched off (its disabled_rules)",
    )
    p.add_argument(
        "--ablation",
        action="store_true",
        help="figure 12 (alone): the held-out halves of both suites with every rule on, every rule off, "
        "and each rule off alone; one table",
    )
    p.add_argument(
        "--ablation-every-question",
        action="store_true",
        help="figure 12: run each rule off on every question (default: only where it fired with all on)",
    )
    p.add_argument(
        "--conversations",
        action="store_true",
        help="alone: the multi-turn conversation set (bench/tasks/conversations.json, "
        "conversation_runner.py, in the project's .venv), with --llama-url, --template, --half, --memory, "
        "--tasks, --results-dir",
    )
    p.add_argument(
        "--half",
        choices=["tune", "held-out", "held_out", "all"],
        default="held-out",
        help="--conversations: which half of the set (default held-out)",
    )
    p.add_argument(
        "--memory",
        choices=["process", "off"],
        default="process",
        help="--conversations: the loop's memory of its own turns, on in this process (default) or off",
    )
    p.add_argument("--quick", action="store_true", help="few repeats: a smoke run of the bench itself")
    p.add_argument(
        "--chart",
        action="store_true",
        help="only draw RESULTS_DIR/chart.png from the current figures of bench/README.md (figures 1-6)",
    )
    args, rest = p.parse_known_args(argv)
    if args.chart:
        return 0 if draw_chart(Path(args.results_dir)) else 1
    if args.figures.strip() == "11":
        # Figure 11 runs in the project's venv (the loop in-process, LiteLLM's proxy from the scale
        # extra), not through the adapters: its own options pass through (--replicas, --window, ...).
        python = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "python"
        script = Path(__file__).resolve().parent / "scale_runner.py"
        return subprocess.call([str(python), str(script), *rest])
    if args.conversations:
        # In the project's venv, like figure 11: the runner builds the loop in-process, one engine per
        # conversation, so that its memory lives where the turns run.
        python = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "python"
        if not python.exists():
            p.error(f"--conversations runs in the project's venv, and {python} is not there")
        cmd = [str(python), str(Path(__file__).resolve().parent / "conversation_runner.py")]
        cmd += ["--template", args.template, "--half", args.half, "--memory", args.memory]
        cmd += ["--results-dir", args.results_dir, *rest]
        cmd += ["--llama-url", args.llama_url] if args.llama_url else []
        cmd += ["--tasks", args.tasks] if args.tasks else []
        return subprocess.call(cmd)
    if rest:
        p.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.ablation:
        args.figures, args.systems = "12", "ours"
    from ablation_runner import parse_rules, rule_names

    try:
        args.disabled_rules = parse_rules(args.disabled_rules, rule_names())
    except ValueError as exc:
        p.error(str(exc))
    figures = (
        [1, 2, 3, 4, 5, 6] if args.all else sorted({int(f) for f in args.figures.split(",") if f.strip()})
    )
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    if args.quick:
        args.repeats, args.inner, args.cold_repeats, args.parallel_repeats, args.stream_repeats = (
            1,
            2,
            1,
            1,
            1,
        )
    unknown = [s for s in args.systems if s not in BY_KEY]
    if unknown:
        p.error(f"unknown systems {unknown}; choose from {', '.join(BY_KEY)}")
    if args.bfcl_per_category < 1:
        p.error("--bfcl-per-category must be at least 1")
    if 10 in figures:
        from many_tools_runner import parse_configs

        try:
            parse_configs(args.fig10_configs)
        except ValueError as exc:
            p.error(str(exc))
    if 8 in figures:
        from loops_runner import parse_loops

        try:
            parse_loops(args.loops)
        except ValueError as exc:
            p.error(str(exc))

    # The task figures (5, 8) run only the OVOS engines: no peer venv to build for them alone;
    # figure 9 adds the floor's venv (the bare model's raw client) and bfcl-eval's.
    needed = [BY_KEY[k] for k in args.systems]
    if set(figures) <= {5, 8, 9, 10, 12}:
        needed = [s for s in needed if s.ovos or (9 in figures and s.key == "floor")]
    if figures == [10]:
        needed = []  # figure 10 builds its own venvs (ours-mcp, upstream-mcp) as its configurations need
    for name in sorted({s.venv for s in needed} | ({"bfcl"} if 9 in figures else set())):
        venvs.ensure(name, log=log)
    # SIGINT or SIGTERM (also when started in the background, where SIGINT is ignored) stops the
    # task suite after what finished; the report is still written.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    bench = Bench(args)
    # The timing figures run first, before any llama-server exists. When figure 5 or 8 starts one,
    # the other and figure 3 run after it on the same server (exact token counts), and the server
    # is stopped at the end; results are reported by figure number whatever the order.
    order = [f for f in figures if f not in (3, 5, 8, 9, 10, 12)]
    order += [f for f in (5, 8, 9, 10, 12, 3) if f in figures]
    started = False
    try:
        for fig in order:
            t0 = time.perf_counter()
            if fig == 9 and args.bfcl_report:
                from bfcl_runner import report_saved

                report_saved(bench, Path(args.bfcl_report), BY_KEY)
            elif fig in (5, 8, 9, 10, 12):
                from tasks_runner import ensure_llama, fig5_tasks

                if bench.llama_url is None:
                    bench.llama_url, started = ensure_llama(bench)
                    if not args.llama_url and started:
                        args.llama_url = bench.llama_url  # figure 3 counts tokens with it
                if fig == 5:
                    if args.suite == "spoken":
                        from spoken_runner import SPOKEN

                        fig5_tasks(bench, run_adapter, SPOKEN)
                    else:
                        fig5_tasks(bench, run_adapter)
                elif fig == 8:
                    from loops_runner import fig8_loops

                    fig8_loops(bench, run_adapter)
                elif fig == 12:
                    from ablation_runner import fig12_ablation

                    fig12_ablation(bench, run_adapter)
                elif fig == 10:
                    from many_tools_runner import fig10_many_tools

                    fig10_many_tools(bench, run_adapter, count_tokens)
                else:
                    from bfcl_runner import fig9_bfcl

                    fig9_bfcl(bench, run_adapter)
            else:
                {
                    1: bench.fig1_overhead,
                    2: bench.fig2_cold,
                    3: bench.fig3_prompt,
                    4: bench.fig4_parallel,
                    6: bench.fig6_stream,
                }[fig]()
            log(f"[fig {fig}] done in {time.perf_counter() - t0:.0f} s")
    finally:
        bench.close()
        if started:
            from tasks_runner import stop_llama

            stop_llama()
    write_report(bench, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
