#!/usr/bin/env python3
"""Conversations: two or three spoken turns each, the later ones leaning on the earlier.

    python3 bench/run.py --conversations --llama-url URL --half held-out --memory process
    .venv/bin/python bench/conversation_runner.py --llama-url URL --half held-out --memory off

The set is data (``bench/tasks/conversations.json``): follow-ups ("and twenty percent",
"divide that by four", "and in tokyo", "and how much is that per day"), corrections ("no sorry i
meant seventy"), a fact that can change asked again (the time; a file rewritten before the turn
that asks), in English, Portuguese, Spanish and German. Each turn has its own check, in the spoken
suite's forms and judged by its judge (``spoken_runner.check_spoken``) on what was said: the
sentences of ``stream_sentences`` joined.

Each conversation gets one engine, built in this process as ovos-persona builds it: the loop
``ovos-react-loop`` with the section of ``personas/local-assistant.json`` (its toolboxes and their
settings, system prompt and ``max_iterations``, every ``root_path`` moved to a fresh sandbox; as
figure 5s uses it), brain ``ovos-openai-brain`` on the given server, and ``memory`` set by
``--memory`` (``process``, the loop's default, or ``off``). Every turn goes through
``stream_sentences`` with the conversation's own ``session_id`` and the history as ovos-persona
keeps it: each earlier utterance and its answer as text. Per turn: right or wrong (and why), model
calls (the loop's ``model_call`` step events), seconds to the first sentence and to the end.

The server is found as for figure 5 (``tasks_runner.ensure_llama``): ``--llama-url URL`` uses a
running llama-server, ``--llama-url scripted`` the scripted server (tests the runner, nothing
after a first turn passes), and without it the bench starts its own with the project's
``ovos-agentic-loop server start`` on its port (``--template``), and stops it at the end.
Runs in the project's ``.venv`` (it imports the loop); ``run.py --conversations`` starts it there.
Report: ``bench/results/conversations/<half>-<template>-<memory>-<commit>.md`` (and ``.json``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from spoken_runner import CHECK_TYPES, Digits, check_spoken, persona_job  # noqa: E402
from tasks_runner import (  # noqa: E402
    CONVERSATION_FIXTURES,
    HALVES,
    TASKS_DIR,
    ensure_llama,
    load_suite,
    stop_llama,
)

SET_FILE = TASKS_DIR / "conversations.json"
RESULTS_DIR = BENCH_DIR / "results"
MEMORY_MODES = ("process", "off")
#: Languages the set must hold besides English, each in at least two conversations.
OTHER_LANGUAGES = ("pt", "es", "de")
ENGINE = "ovos-react-loop"
BRAIN = "ovos-openai-brain"


# --- the set ------------------------------------------------------------------------------------


def load_conversations(selection: str | None = None, half: str = "all") -> list[dict[str, Any]]:
    """The set, each conversation with its ``half`` (the rule of every suite: within a category, in
    file order, the 1st, 3rd... is tune and the 2nd, 4th... held-out); ``selection``: ids or
    categories, comma-separated; ``half``: ``tune``, ``held-out`` or ``all``."""
    conversations = load_suite(SET_FILE, selection)
    return conversations if half == "all" else [c for c in conversations if c["half"] == half]


def problems(conversations: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the set, one line each (empty when it is well formed)."""
    out: list[str] = []
    ids = [c.get("id") for c in conversations]
    out += [f"{i}: id used twice" for i in sorted({str(i) for i in ids if ids.count(i) > 1})]
    for conv in conversations:
        cid = conv.get("id", "?")
        turns = conv.get("turns") or []
        if not 2 <= len(turns) <= 3:
            out.append(f"{cid}: {len(turns)} turns (2 or 3)")
        for n, turn in enumerate(turns, 1):
            if not str(turn.get("say") or "").strip():
                out.append(f"{cid} turn {n}: nothing said")
            spec = turn.get("check") or {}
            if spec.get("type") not in CHECK_TYPES:
                out.append(f"{cid} turn {n}: check type {spec.get('type')!r}")
            elif spec["type"] != "any" and not spec.get("value") and spec.get("value") != 0:
                out.append(f"{cid} turn {n}: check without a value")
    categories = sorted({c.get("category", "") for c in conversations})
    for category in categories:
        halves = [c.get("half") for c in conversations if c.get("category") == category]
        if halves.count(HALVES[0]) != halves.count(HALVES[1]):
            out.append(f"{category}: {halves.count(HALVES[0])} tune, {halves.count(HALVES[1])} held-out")
    for lang in OTHER_LANGUAGES:
        found = [c for c in conversations if str(c.get("lang", "en")).split("-")[0] == lang]
        if len(found) < 2:
            out.append(f"{lang}: {len(found)} conversations (at least 2)")
    return out


# --- one turn's verdict -------------------------------------------------------------------------


def judge(
    conversation: dict[str, Any],
    turn: dict[str, Any],
    answer: str,
    moments: list[dt.datetime] | None = None,
    digits: Digits | None = None,
) -> tuple[bool, str]:
    """``(right, why not)`` for one turn's answer, by the spoken suite's judge. A ``number`` check may
    list several accepted values ("per day" of a weekly sum: the year's total over 365, or the week's
    over 7): any one passes, and a ``reject`` value fails them all."""
    spec = turn["check"]
    values = (
        spec["value"] if spec["type"] == "number" and isinstance(spec["value"], list) else [spec["value"]]
    )
    verdict = (False, "no check")
    for value in values:
        task = {
            "id": f"{conversation['id']}:{turn.get('say', '')[:30]}",
            "lang": conversation.get("lang", "en-US"),
            "check": {**spec, "value": value},
        }
        verdict = check_spoken(task, [answer], None, moments, digits=digits)
        if verdict[0] or verdict[1] == "rejected value":
            return verdict
    return verdict


# --- running one conversation -------------------------------------------------------------------


def make_sandbox() -> str:
    """A copy of ``tasks/fixtures/`` with the set's own files (``fixtures/conversations/``) at its root."""
    root = Path(tempfile.mkdtemp(prefix="bench-conversation-"))
    fixtures = TASKS_DIR / "fixtures"
    shutil.copytree(
        fixtures,
        root,
        dirs_exist_ok=True,
        ignore=lambda folder, names: [CONVERSATION_FIXTURES] if Path(folder) == fixtures else [],
    )
    shutil.copytree(fixtures / CONVERSATION_FIXTURES, root, dirs_exist_ok=True)
    return str(root)


def engine_config(base_url: str, model: str, sandbox: str, memory: str) -> dict[str, Any]:
    """The loop's section: ``local-assistant``'s as figure 5s runs it, on ``base_url``, with ``memory``."""
    job = persona_job(sandbox)
    return {
        "brain": BRAIN,
        BRAIN: {
            "api_url": base_url,
            "key": "bench",
            "model": model,
            "max_tokens": 512,
            "temperature": 0.2,
            "max_retries": 0,
            "timeout": 600,
        },
        "toolboxes": job["toolboxes"],
        "max_iterations": job["max_iterations"],
        **job["engine_extra"],
        # The spoken suite's budget: a loaded 2-core machine slows turns instead of failing them.
        "time_budget": 900,
        "memory": memory,
    }


def run_conversation(
    conversation: dict[str, Any],
    base_url: str,
    memory: str,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Every turn of one conversation on one new engine; each turn's verdict, calls and times."""
    os.environ.setdefault("OVOS_CONFIG_BASE_FOLDER", "mycroft")
    from ovos_plugin_manager.agents import load_chat_plugin
    from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

    sandbox = make_sandbox()
    tag = uuid.uuid4().hex[:6]
    model = f"conv-{conversation['id']}-{tag}"
    session_id = f"bench-{conversation['id']}-{tag}"
    lang = conversation.get("lang")
    cls = load_chat_plugin(ENGINE)
    try:
        if cls is None:
            raise RuntimeError(f"chat plugin {ENGINE!r} is not installed")
        engine = cls(config=engine_config(base_url, model, sandbox, memory))
    except BaseException:
        shutil.rmtree(sandbox, ignore_errors=True)
        raise
    model_calls: list[int] = [0]
    tool_calls: list[str] = []  # this turn's calls, "name {arguments}", as the loop ran them

    def on_step(event: Any) -> None:
        if event.kind == "model_call":
            model_calls[0] += 1
        elif event.kind == "tool_call":
            arguments = json.dumps(getattr(event, "arguments", {}), ensure_ascii=False, default=str)
            tool_calls.append(f"{getattr(event, 'name', '')} {arguments}")

    engine.add_step_listener(on_step)
    history: list[Any] = []
    turns: list[dict[str, Any]] = []
    try:
        for number, turn in enumerate(conversation["turns"], 1):
            for rel, content in (turn.get("files") or {}).items():  # a fact that changed meanwhile
                (Path(sandbox) / rel).write_text(content)
            messages = [*history, AgentMessage(role=MessageRole.USER, content=turn["say"])]
            model_calls[0] = 0
            tool_calls.clear()
            start = dt.datetime.now(dt.timezone.utc)
            t0 = time.perf_counter()
            first: float | None = None
            said: list[str] = []
            error = ""
            try:
                for sentence in engine.stream_sentences(messages, session_id=session_id, lang=lang):
                    if first is None:
                        first = time.perf_counter() - t0
                    said.append(sentence.strip())
            except Exception as exc:  # noqa: BLE001 - a failed turn is a wrong turn, reported by name
                error = f"{type(exc).__name__}: {exc}"
            seconds = time.perf_counter() - t0
            end = dt.datetime.now(dt.timezone.utc)
            answer = " ".join(s for s in said if s)
            right, why = (False, "engine error") if error else judge(conversation, turn, answer, [start, end])
            turns.append(
                {
                    "turn": number,
                    "say": turn["say"],
                    "ok": right,
                    "why": "" if right else why,
                    "model_calls": model_calls[0],
                    "tool_calls": list(tool_calls),
                    "first_sentence": first,
                    "seconds": seconds,
                    "answer": answer[:300],
                    "error": error,
                }
            )
            log(
                f"  {conversation['id']} turn {number}: {'right' if right else 'WRONG (' + why + ')'}, "
                f"{model_calls[0]} calls, {seconds:.1f} s  {answer[:80]!r}  tools: {tool_calls}"
            )
            history += [
                AgentMessage(role=MessageRole.USER, content=turn["say"]),
                AgentMessage(role=MessageRole.ASSISTANT, content=answer),
            ]
    finally:
        engine.shutdown()
        shutil.rmtree(sandbox, ignore_errors=True)
    return {
        "id": conversation["id"],
        "category": conversation["category"],
        "half": conversation.get("half", ""),
        "lang": lang or "en",
        "turns": turns,
        "ok": len(turns) == len(conversation["turns"]) and all(t["ok"] for t in turns),
    }


# --- the report ---------------------------------------------------------------------------------


def _rate(right: int, total: int) -> str:
    return f"{right}/{total} ({right / total * 100:.0f}%)" if total else "none run"


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}" if values else "n/a"


def _mean(values: list[float]) -> str:
    return f"{statistics.mean(values):.2f}" if values else "n/a"


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the table, from the per-turn records."""
    first = [t for r in results for t in r["turns"] if t["turn"] == 1]
    later = [t for r in results for t in r["turns"] if t["turn"] > 1]
    return {
        "conversations": len(results),
        "conversations_right": sum(r["ok"] for r in results),
        "first_turns": len(first),
        "first_turns_right": sum(t["ok"] for t in first),
        "follow_up_turns": len(later),
        "follow_up_turns_right": sum(t["ok"] for t in later),
        "model_calls_per_first_turn": statistics.mean(t["model_calls"] for t in first) if first else None,
        "model_calls_per_follow_up_turn": statistics.mean(t["model_calls"] for t in later) if later else None,
        "median_first_sentence_first_turns": _median_or_none(first),
        "median_first_sentence_follow_up_turns": _median_or_none(later),
        "median_seconds_first_turns": statistics.median(t["seconds"] for t in first) if first else None,
        "median_seconds_follow_up_turns": statistics.median(t["seconds"] for t in later) if later else None,
    }


def _median_or_none(turns: list[dict[str, Any]]) -> float | None:
    times = [t["first_sentence"] for t in turns if t["first_sentence"] is not None]
    return statistics.median(times) if times else None


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(results: list[dict[str, Any]], context: dict[str, Any], interrupted: str = "") -> str:
    s = summary(results)
    first, later = [], []
    for r in results:
        first += [t for t in r["turns"] if t["turn"] == 1]
        later += [t for t in r["turns"] if t["turn"] > 1]
    lines = [
        f"# Conversations: {context['half']}, template {context['template']}, memory {context['memory']}",
        "",
        f"Date: {context['date']}. Machine: {context['machine']}. Code: {context['commit']}.",
        f"Server: {context['server']}. Command: `{context['command']}`",
        "",
        "| measure | value |",
        "|---|---|",
        f"| first turns right | {_rate(s['first_turns_right'], s['first_turns'])} |",
        f"| follow-up turns right | {_rate(s['follow_up_turns_right'], s['follow_up_turns'])} |",
        f"| conversations right in every turn | {_rate(s['conversations_right'], s['conversations'])} |",
        f"| model calls per follow-up turn (mean) | {_mean([t['model_calls'] for t in later])} |",
        f"| model calls per first turn (mean) | {_mean([t['model_calls'] for t in first])} |",
        "| median s to the first sentence, first turns | "
        f"{_seconds(s['median_first_sentence_first_turns'])} |",
        "| median s to the first sentence, follow-up turns | "
        f"{_seconds(s['median_first_sentence_follow_up_turns'])} |",
        f"| median s per turn, first / follow-up | {_seconds(s['median_seconds_first_turns'])} / "
        f"{_seconds(s['median_seconds_follow_up_turns'])} |",
        "",
    ]
    if interrupted:
        lines += [f"Interrupted: {interrupted} (the figures above are over what finished).", ""]
    lines += ["| category | first turns | follow-up turns | every turn |", "|---|---|---|---|"]
    for category in sorted({r["category"] for r in results}):
        rs = [r for r in results if r["category"] == category]
        f = [t for r in rs for t in r["turns"] if t["turn"] == 1]
        la = [t for r in rs for t in r["turns"] if t["turn"] > 1]
        lines.append(
            f"| {category} | {sum(t['ok'] for t in f)}/{len(f)} | {sum(t['ok'] for t in la)}/{len(la)} "
            f"| {sum(r['ok'] for r in rs)}/{len(rs)} |"
        )
    lines += [
        "",
        "| conversation | turn | said | verdict | model calls | tool calls | first sentence, s | turn, s "
        "| answer |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for t in r["turns"]:
            verdict = "right" if t["ok"] else f"wrong: {t['why']}"
            lines.append(
                f"| {r['id']} | {t['turn']} | {_cell(t['say'])} | {verdict} | {t['model_calls']} | "
                f"{_cell('; '.join(t.get('tool_calls') or []))} | "
                f"{_seconds(t['first_sentence'])} | {t['seconds']:.2f} | {_cell(t['answer'][:160])} |"
            )
    errors = [
        f"- {r['id']} turn {t['turn']}: {t['error']}" for r in results for t in r["turns"] if t["error"]
    ]
    if errors:
        lines += ["", "Engine errors:", *errors]
    lines += [
        "",
        f"{len(results)} conversations from bench/tasks/conversations.json, one run each, on one server; "
        f"each on a new `{ENGINE}` engine with the section of personas/local-assistant.json (toolboxes, "
        f"settings, system prompt, max_iterations; rooted in a fresh sandbox), brain `{BRAIN}`, max_tokens "
        f"512, temperature 0.2, `memory: {context['memory']}`. Every turn through `stream_sentences` with "
        "the conversation's session_id and the earlier utterances and answers as text (as ovos-persona "
        "keeps them); judged on the joined sentences by the spoken suite's checks. Model calls: the loop's "
        "`model_call` step events. One run at temperature 0.2: a turn can pass in one run and fail in "
        "the next.",
    ]
    return "\n".join(lines) + "\n"


def _commit() -> str:
    out = subprocess.run(
        ["git", "-C", str(BENCH_DIR.parent), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip() or "unknown"


def _machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()}, {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


# --- the command --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--llama-url",
        default=None,
        help="a running llama-server /v1 base; 'scripted': the scripted server (tests the runner); "
        "default: start one with `ovos-agentic-loop server start`, as figure 5 does",
    )
    p.add_argument(
        "--template",
        choices=["tools", "stock"],
        default="tools",
        help="the chat template of the server the bench starts; with --llama-url, the name the report "
        "and its file carry (the server's own is not checked)",
    )
    p.add_argument("--half", choices=["tune", "held-out", "held_out", "all"], default="held-out")
    p.add_argument("--memory", choices=MEMORY_MODES, default="process", help="the loop's memory setting")
    p.add_argument("--tasks", default=None, help="comma-separated conversation ids or categories")
    p.add_argument(
        "--results-dir",
        default=str(RESULTS_DIR),
        help="the results folder; the report goes to its conversations/ (default bench/results)",
    )
    args = p.parse_args(argv)
    half = "held-out" if args.half == "held_out" else args.half
    conversations = load_conversations(args.tasks, half)
    if not conversations:
        p.error("no conversation matches --tasks and --half")
    # SIGTERM (a background run being stopped) ends it like Ctrl-C: the report holds what finished.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    bench = SimpleNamespace(args=args, extra_servers=[], llama_info={})
    base_url, started = ensure_llama(bench)
    results: list[dict[str, Any]] = []
    interrupted = ""
    try:
        for n, conversation in enumerate(conversations, 1):
            print(f"[conversations] {n}/{len(conversations)} {conversation['id']}", flush=True)
            try:
                results.append(run_conversation(conversation, base_url, args.memory))
            except KeyboardInterrupt:
                interrupted = f"after {n - 1}/{len(conversations)} conversations"
                break
    finally:
        for server in bench.extra_servers:
            server.stop()
        if started:
            stop_llama()
    context = {
        "half": half,
        "template": args.template,
        "memory": args.memory,
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": _machine(),
        "commit": _commit(),
        "server": "; ".join(v if k == "server" else f"{k}: {v}" for k, v in bench.llama_info.items()) or "?",
        "command": "python3 bench/run.py --conversations " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    out_dir = Path(args.results_dir) / "conversations"
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{half}-{args.template}-{args.memory}-{context['commit']}"
    (out_dir / f"{stem}.md").write_text(markdown(results, context, interrupted))
    payload = {"context": context, "summary": summary(results), "conversations": results}
    (out_dir / f"{stem}.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False))
    print(f"[conversations] wrote {out_dir / stem}.md", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
