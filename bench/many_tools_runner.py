"""Figure 10: many tools on the small model: the spoken held-out questions with the
``local-assistant`` tools alone (15) and beside a decoy home-automation MCP server (40 and 80 tools),
tool selection off and on, and upstream's loop beside it.

Every configuration runs figure 5s's questions the same way (``spoken_runner``: the persona's
toolboxes, settings and system prompt, a fresh sandbox, a new process per question, the checks),
through the counting proxy on one llama-server, with three additions:

- the decoys: ``home_mcp_server.py`` (the ``mcp`` SDK over stdio, 65 tools with real-looking
  names and schemas) loaded through ovos-tool-adapters' ``ovos-mcp-toolbox`` after the persona's
  toolboxes (``--tools 24`` for 40 tools in all, 64 for 80; upstream's own toolboxes have 11 tools,
  so its rows are 11 and 76), in the ``ours-mcp`` / ``upstream-mcp``
  venvs (the same projects with the MCP host and SDK);
- selection: "off" is ``tool_selection: "all"``; "on" is the shipped default, ``"auto"``, with the
  persona's ``always_offered_tools``; the persona-alone row (key ``15``, the persona's 16 tools) is
  the default too (16 is under the threshold, so it offers every tool: selection changes nothing);
- the answers are streamed (``stream_sentences``, as a voice assistant speaks them), the proxy
  passes streamed replies on as they arrive, and each turn's seconds to its first sentence are kept;
  the first request of each question is counted in tokens by llama-server's own template and
  tokenizer (``/apply-template`` + ``/tokenize``).

``python3 bench/run.py --figures 10 --llama-url URL [--fig10-configs 80-on,80-off] [--tasks held-out]``
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scripted_server import CountingProxy
from spoken_runner import load_spoken, run_spoken
from tasks_runner import ensure_llama, results_dir, stop_llama

SERVER = Path(__file__).resolve().parent / "home_mcp_server.py"
PERSONA_TOOLS = 16  # local-assistant: filesystem 5, shell 2, clock 5, math 4


@dataclass(frozen=True)
class Configuration:
    key: str
    label: str
    system: str  # the run.py system it runs: "ours", "upstream-native", "upstream-react"
    decoys: int  # tools of the decoy MCP server loaded beside the persona's
    selection: str | None  # ours' tool_selection; None for upstream (it has none)

    @property
    def tools(self) -> int:
        return PERSONA_TOOLS + self.decoys


CONFIGURATIONS = [
    Configuration("80-on", "ours, 80 tools, selection on", "ours", 64, "auto"),
    Configuration("80-off", "ours, 80 tools, selection off", "ours", 64, "all"),
    Configuration("15", "ours, the persona's 16 tools (under the threshold)", "ours", 0, "auto"),
    Configuration("40-on", "ours, 40 tools, selection on", "ours", 24, "auto"),
    Configuration("40-off", "ours, 40 tools, selection off", "ours", 24, "all"),
    Configuration("up-15", "upstream native, 15 tools", "upstream-native", 0, None),
    Configuration("up-80", "upstream native, 80 tools", "upstream-native", 65, None),
]
BY_CONFIG = {c.key: c for c in CONFIGURATIONS}
DEFAULT_CONFIGS = "80-on,80-off,15,40-on,40-off"


def parse_configs(text: str | None) -> list[Configuration]:
    keys = [k.strip() for k in (text or DEFAULT_CONFIGS).split(",") if k.strip()]
    unknown = [k for k in keys if k not in BY_CONFIG]
    if unknown:
        raise ValueError(f"unknown figure 10 configurations {unknown}; choose from {', '.join(BY_CONFIG)}")
    return [BY_CONFIG[k] for k in keys]


def configure(config: Configuration, python: str) -> Callable[[dict[str, Any]], None]:
    """What this configuration adds to a spoken job: the decoy server, selection, streaming."""

    def add(job: dict[str, Any]) -> None:
        job["stream"] = True
        extra = job["engine_extra"]
        if config.decoys:
            job["toolboxes"] = [*job["toolboxes"], "ovos-mcp-toolbox"]
            extra["ovos-mcp-toolbox"] = {
                "transport": "stdio",
                "command": python,
                "args": [str(SERVER), "--tools", str(config.decoys)],
                "timeout": 60,
            }
        if config.selection is not None:
            extra["tool_selection"] = config.selection
            extra["always_offered_tools"] = job.get("always_offered_tools", [])

    return add


def first_request_tokens(proxy: CountingProxy, model: str, llama_url: str, count_tokens: Any) -> int | None:
    """Tokens of the question's first request, by llama-server's template and tokenizer."""
    bodies = proxy.bodies.get(model) or []
    if not bodies:
        return None
    first = bodies[0]
    return count_tokens(llama_url, first.get("messages") or [], first.get("tools") or [])


def fig10_many_tools(bench: Any, run_adapter: Any, count_tokens: Any) -> None:
    import venvs
    from run import BY_KEY

    configs = parse_configs(getattr(bench.args, "fig10_configs", None))
    tasks = load_spoken(bench.args.tasks or "held-out")
    started = False
    llama_url = getattr(bench, "llama_url", None)
    if llama_url is None:
        llama_url, started = ensure_llama(bench)
    proxy = CountingProxy(llama_url).start()
    proxy.relay_streams = True
    runs: dict[str, list[dict[str, Any]]] = {}
    partial = results_dir(bench) / "fig10-partial.json"
    try:
        for config in configs:
            base = BY_KEY[config.system]
            venv = "ours-mcp" if base.venv == "ours" else "upstream-mcp"
            system = replace(base, key=f"f10-{config.key}", venv=venv)
            python = str(venvs.ensure(venv))
            runs[config.key] = []
            for n, task in enumerate(tasks, 1):
                result = run_spoken(
                    system, task, proxy, run_adapter, tag="t10", configure=configure(config, python)
                )
                result["first_request_tokens"] = first_request_tokens(
                    proxy, result["model"], llama_url, count_tokens
                )
                result["first_request_tools"] = len(
                    (proxy.bodies.get(result["model"]) or [{}])[0].get("tools") or []
                )
                runs[config.key].append(result)
                print(
                    f"[fig 10] {config.key} {n}/{len(tasks)} {task['id']}: "
                    f"{'PASS' if result['ok'] else 'fail'} {result['calls']} calls "
                    f"{result['seconds']:.1f}s first-request {result['first_request_tokens']} tok "
                    f"{result['answer'][:60]!r}",
                    flush=True,
                )
                _save(partial, bench, runs)
    except KeyboardInterrupt:
        print("[fig 10] interrupted: reporting what finished", flush=True)
    finally:
        proxy.stop()
        if started:
            stop_llama()
    _report(bench, configs, tasks, runs)
    partial.unlink(missing_ok=True)


def _save(path: Path, bench: Any, runs: dict[str, list[dict[str, Any]]]) -> None:
    import json

    path.write_text(json.dumps({"server": getattr(bench, "llama_info", {}), "runs": runs}, indent=1))


def _mean(values: list[float]) -> float | None:
    return statistics.mean(values) if values else None


def summary_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    firsts = [s for r in runs for s in r.get("first_sentence") or [] if s is not None]
    tokens = [r["first_request_tokens"] for r in runs if r.get("first_request_tokens") is not None]
    return {
        "solved": sum(r["ok"] for r in runs),
        "questions": len(runs),
        "success_rate": sum(r["ok"] for r in runs) / len(runs),
        "calls_per_question": statistics.mean(r["calls"] for r in runs),
        "first_request_tokens_mean": _mean(tokens),
        "first_request_tokens_max": max(tokens) if tokens else None,
        "first_request_tools_max": max((r.get("first_request_tools") or 0) for r in runs),
        "first_sentence_s_median": statistics.median(firsts) if firsts else None,
        "seconds_per_question": statistics.mean(r["seconds"] for r in runs),
        "unspoken_turns": sum(s is None for r in runs for s in r.get("first_sentence") or []),
    }


def _report(
    bench: Any, configs: list[Configuration], tasks: list[dict[str, Any]], runs: dict[str, list[dict]]
) -> None:
    summary: dict[str, Any] = {}
    rows = []
    for config in configs:
        r = runs.get(config.key) or []
        if not r:
            continue
        s = summary[config.key] = {**summary_of(r), "tools": config.tools, "runs": r}
        rows.append(
            [
                config.label,
                f"{config.tools} / {s['first_request_tools_max']}",
                f"{s['success_rate'] * 100:.0f}% ({s['solved']}/{s['questions']})",
                f"{s['calls_per_question']:.2f}",
                _num(s["first_request_tokens_mean"]) + " / " + _num(s["first_request_tokens_max"]),
                _num(s["first_sentence_s_median"], 1),
                f"{s['seconds_per_question']:.1f}",
            ]
        )
    bench.results["fig10"] = summary
    server = "; ".join(f"{k}: {v}" for k, v in (getattr(bench, "llama_info", None) or {}).items())
    bench.table(
        "Figure 10 - many tools: spoken held-out questions with 15, 40 and 80 tools, selection off and on",
        [
            "configuration",
            "tools / most offered",
            "success",
            "LLM calls / question",
            "first request, tokens (mean / max)",
            "first sentence, s (median)",
            "s / question",
        ],
        rows,
        [
            f"{len(tasks)} questions of bench/tasks/spoken.json ({bench.args.tasks or 'held-out'}), one run "
            "each per configuration, on one llama-server; figure 5s's job (local-assistant's toolboxes, "
            "settings, system prompt, sandbox, checks) plus the decoy home-automation MCP server "
            "(bench/home_mcp_server.py through ovos-mcp-toolbox) for 40 and 80 tools. Selection off: "
            "tool_selection 'all'; on: the default 'auto' with local-assistant's always_offered_tools. "
            "Answers streamed with stream_sentences; first sentence: seconds from the turn's start to "
            "its first sentence, median over every turn. First request: the question's first request, "
            "counted by llama-server's template and tokenizer. Most offered: the most native tools one "
            "first request offered (0 for a text protocol, which lists them in the system prompt).",
            f"Server: {server}",
        ],
    )
    fails = [
        f"- {c.label} failed: " + ", ".join(_failure(x) for x in runs.get(c.key) or [] if not x["ok"])
        for c in configs
        if any(not x["ok"] for x in runs.get(c.key) or [])
    ]
    if fails:
        bench.tables[-1] += "\n\n" + "\n".join(fails)


def _failure(run: dict[str, Any]) -> str:
    return f"{run['task']} ({run['why']})" if run.get("why") else run["task"]


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"
