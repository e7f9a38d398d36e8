"""Figure 9: the Berkeley Function Calling Leaderboard, the bare model beside the loops.

A fixed sample of BFCL (``bfcl-eval`` on PyPI, pinned in ``requirements-bfcl.txt``): the first
``--bfcl-per-category`` entries of each of eight categories (simple, multiple, parallel,
parallel_multiple, live_simple, live_multiple, irrelevance, live_irrelevance). Each entry is
answered, on the same llama-server and through the same counting proxy, by:

- **bare**: the model in one request with the entry's functions as tools (raw ``openai`` client,
  the ``floor`` venv); scored on that reply's native tool calls;
- **ours**: ``ovos-react-loop`` with ``ovos-openai-brain``, the functions as the tools of a throwaway
  toolbox whose calls return a stub;
- **upstream**: upstream's ``ovos-react-loop`` / ``ovos-native-toolcall-loop`` (brain
  ``ovos-chat-openai-plugin``), the same toolbox, when those systems are selected.

A loop is scored on **every call it executed**, in order, as one answer: what the user's request
set in motion. A loop that calls the right function and then another is wrong in ``simple`` and
``multiple`` (one call expected), as it would be for the user. Scoring is BFCL's own (see
``bfcl_data.py``): ``ast_checker`` on the calls, and "no call" in the irrelevance categories.

Each entry runs in a new process (``peers/bfcl_peer.py``), like figure 5's tasks.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

from scripted_server import CountingProxy
from tasks_runner import results_dir

BENCH_DIR = Path(__file__).resolve().parent
CATEGORIES = [
    "simple",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "irrelevance",
    "live_irrelevance",
]
#: Bench systems that figure 9 runs, and the side of ``bfcl_peer.py`` each is.
SIDES = {"floor": "bare", "ours": "ours", "upstream-react": "upstream", "upstream-native": "upstream"}
LABELS = {"floor": "bare model (one request)"}
DEFAULT_PER_CATEGORY = 5
ENTRY_TIMEOUT = 300.0


def _bfcl(args: list[str], payload: Any = None) -> Any:
    """``bfcl_data.py`` in the ``bfcl`` venv (the package's data and checker live there)."""
    import venvs

    python = venvs.ensure("bfcl")
    out = subprocess.run(
        [str(python), str(BENCH_DIR / "bfcl_data.py"), *args],
        input=None if payload is None else json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"bfcl_data.py {' '.join(args)} failed: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout)


def load_sample(per_category: int) -> tuple[str, list[dict[str, Any]]]:
    data = _bfcl(["sample", str(per_category)])
    return data["version"], data["entries"]


def score(entries: list[dict[str, Any]], runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """BFCL's verdict per entry id."""
    verdicts = _bfcl(["score"], {"entries": entries, "runs": runs})
    return {v["id"]: v for v in verdicts}


def run_entry(
    system: Any,
    entry: dict[str, Any],
    proxy: CountingProxy,
    run_adapter: Any,
    timeout: float = ENTRY_TIMEOUT,
) -> dict[str, Any]:
    model = f"t9-{system.key}-{entry['id']}-{uuid.uuid4().hex[:6]}"
    job = {
        "side": SIDES[system.key],
        "base_url": proxy.base_url,
        "model": model,
        "entry": {"question": entry["question"], "function": entry["function"]},
        "max_iterations": 10,
        "max_tokens": 512,
        "temperature": 0.2,
        "request_timeout": 600,
        "engine_extra": {"time_budget": timeout},
    }
    t0 = time.monotonic()
    try:
        res = run_adapter(replace(system, adapter="bfcl_peer.py"), job, timeout=timeout + 30)
        timed_out = False
    except subprocess.TimeoutExpired:
        proxy.cancel(model)
        res, timed_out = {"ok": False, "error": f"timed out after {timeout:.0f} s"}, True
    except KeyboardInterrupt:
        proxy.cancel(model)
        raise
    seconds = timeout if timed_out else (res.get("samples") or [time.monotonic() - t0])[0]
    return {
        "id": entry["id"],
        "category": entry["category"],
        "calls": res.get("calls") or [],
        "requests": proxy.calls.get(model, 0),
        "seconds": seconds,
        "answer": (res.get("answer") or "")[:300],
        "error": res.get("error"),
        "timed_out": timed_out,
    }


def fig9_bfcl(bench: Any, run_adapter: Any) -> None:
    """Run the sample for every selected system of :data:`SIDES`; ``bench.llama_url`` is set."""
    per_category = getattr(bench.args, "bfcl_per_category", None) or DEFAULT_PER_CATEGORY
    systems = [s for s in bench.systems if s.key in SIDES]
    version, entries = load_sample(per_category)
    proxy = CountingProxy(bench.llama_url)
    proxy.start()
    runs: dict[str, list[dict[str, Any]]] = {s.key: [] for s in systems}
    partial = results_dir(bench) / "fig9-partial.json"
    interrupted = ""
    try:
        # System by system (each keeps its prompt in llama-server's cache), entries in file order.
        for system in systems:
            if interrupted:
                break
            for n, entry in enumerate(entries, 1):
                try:
                    result = run_entry(system, entry, proxy, run_adapter)
                except KeyboardInterrupt:
                    interrupted = f"{system.key} after {n - 1}/{len(entries)} entries"
                    print(f"[fig 9] interrupted: {interrupted}", flush=True)
                    break
                runs[system.key].append(result)
                print(
                    f"[fig 9] {system.key} {n}/{len(entries)} {entry['id']}: "
                    f"{len(result['calls'])} calls, {result['requests']} requests, {result['seconds']:.1f}s"
                    + (f"  ! {result['error']}" if result["error"] else ""),
                    flush=True,
                )
                partial.write_text(json.dumps({"bfcl_eval": version, "runs": runs}, indent=1))
    finally:
        proxy.stop()
    by_id = {e["id"]: e for e in entries}
    for system in systems:
        if runs[system.key]:
            verdicts = score([by_id[r["id"]] for r in runs[system.key]], runs[system.key])
            for r in runs[system.key]:
                r["valid"] = bool(verdicts[r["id"]]["valid"]) and not r["error"]
                r["why"] = r["error"] or verdicts[r["id"]]["error"]
    _report(bench, systems, runs, version, per_category, interrupted)
    partial.unlink(missing_ok=True)


def report_saved(bench: Any, path: Path, known: dict[str, Any]) -> None:
    """Score and report the runs a ``fig9-partial.json`` holds (an interrupted run's): nothing runs
    again, no server is needed. The systems are those the file has runs for, in their order."""
    saved = json.loads(path.read_text())
    version, runs = saved["bfcl_eval"], saved["runs"]
    systems = [known[k] for k in runs if runs[k] and k in known]
    ids = {r["id"] for k in runs for r in runs[k]}
    per_category = max(sum(r["category"] == c for r in runs[systems[0].key]) for c in CATEGORIES)
    _, entries = load_sample(per_category)
    by_id = {e["id"]: e for e in entries if e["id"] in ids}
    for system in systems:
        verdicts = score([by_id[r["id"]] for r in runs[system.key]], runs[system.key])
        for r in runs[system.key]:
            r["valid"] = bool(verdicts[r["id"]]["valid"]) and not r["error"]
            r["why"] = r["error"] or verdicts[r["id"]]["error"]
    short = [s.key for s in systems if len(runs[s.key]) < len(runs[systems[0].key])]
    interrupted = ", ".join(f"{k} after {len(runs[k])} entries" for k in short)
    _report(bench, systems, runs, version, per_category, interrupted)


def _report(
    bench: Any,
    systems: list[Any],
    runs: dict[str, list[dict[str, Any]]],
    version: str,
    per_category: int,
    interrupted: str,
) -> None:
    ran = [s for s in systems if runs[s.key]]
    summary: dict[str, Any] = {"bfcl_eval": version, "per_category": per_category, "systems": {}}
    rows = []
    for category in [*CATEGORIES, "all"]:
        row = [category]
        for system in ran:
            r = [x for x in runs[system.key] if category in ("all", x["category"])]
            # an interrupted system has no entries in the categories after the interruption
            row.append(
                f"{sum(x['valid'] for x in r) / len(r) * 100:.0f}% ({sum(x['valid'] for x in r)}/{len(r)})"
                if r
                else "not run"
            )
        rows.append(row)
    for label, key in (("model requests / entry", "requests"), ("s / entry", "seconds")):
        rows.append([label, *[f"{statistics.mean(x[key] for x in runs[s.key]):.2f}" for s in ran]])
    for system in ran:
        r = runs[system.key]
        summary["systems"][system.key] = {
            "accuracy": sum(x["valid"] for x in r) / len(r),
            "by_category": {
                c: sum(x["valid"] for x in r if x["category"] == c)
                / max(1, sum(x["category"] == c for x in r))
                for c in CATEGORIES
            },
            "requests_per_entry": statistics.mean(x["requests"] for x in r),
            "seconds_per_entry": statistics.mean(x["seconds"] for x in r),
            "runs": r,
        }
    bench.results["fig9"] = summary
    notes = [
        f"bfcl-eval {version}: the first {per_category} entries of each category, in the package's file "
        "order (simple is simple_python). Every system on the same llama-server, through a counting "
        "proxy; max_tokens 512, temperature 0.2; loops max_iterations 10. bare: one request with the "
        "entry's functions as tools, its reply's native tool calls scored. Loops: every call they "
        "executed, in order, scored as one answer (a function called after the right one makes "
        "simple/multiple wrong); a call returns the stub 'done'. Scored by BFCL's ast_checker; "
        "irrelevance categories pass when no function was called (BFCL's rule). The leaderboard's "
        "published figures are not in the package: see bench/README.md.",
        "Server: " + "; ".join(f"{k}: {v}" for k, v in (getattr(bench, "llama_info", None) or {}).items()),
    ]
    if interrupted:
        notes.append(f"Interrupted: {interrupted} (rates over the entries run).")
    bench.table(
        "Figure 9 - BFCL sample: bare model vs the loops (BFCL's AST checker on the calls made)",
        ["category", *[LABELS.get(s.key, s.label) for s in ran]],
        rows,
        notes,
    )
    fails = []
    for system in ran:
        bad = [x for x in runs[system.key] if not x["valid"]]
        if bad:
            fails.append(f"- {system.label} failed: " + ", ".join(x["id"] for x in bad))
    if fails:
        bench.tables[-1] += "\n\n" + "\n".join(fails)
