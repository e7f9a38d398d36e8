"""Figure 12: what each rule that corrects the model is worth on questions it was not tuned on.

Our loop (``ours``) answers the held-out half of the typed suite (figure 5) and of the spoken suite
(figure 5s) once with every rule on, once with every rule off, and once with each rule off alone
(the loop's ``disabled_rules``); one table says what each configuration solved and how far it is
from all on. One command, on a quiet machine: ``python3 bench/run.py --ablation`` (``--tasks``
narrows the questions; ``--llama-url scripted`` runs the runner without a model).

The rule names are read from ``ovos_agentic_loop/config.py`` (``RuleName``) without importing the
package: the orchestrator runs in any Python, the loop in the ``ours`` venv.
"""

from __future__ import annotations

import ast
import json
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scripted_server import CountingProxy
from spoken_runner import SPOKEN
from tasks_runner import TYPED, Suite, disabling, ensure_llama, results_dir, stop_llama

CONFIG_PY = Path(__file__).resolve().parent.parent / "ovos_agentic_loop" / "config.py"
ALL_ON = "all rules on"
ALL_OFF = "all rules off"
SUITES: tuple[Suite, ...] = (TYPED, SPOKEN)


def rule_names(config_py: Path = CONFIG_PY) -> tuple[str, ...]:
    """The names ``disabled_rules`` takes, in the registry's order (``RuleName = Literal[...]``)."""
    for node in ast.parse(config_py.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "RuleName" for t in node.targets):
            assert isinstance(node.value, ast.Subscript) and isinstance(node.value.slice, ast.Tuple)
            return tuple(ast.literal_eval(element) for element in node.value.slice.elts)
    raise LookupError(f"no RuleName in {config_py}")


def configurations(names: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(label, rules switched off): all on, all off, then each rule off alone."""
    return [(ALL_ON, ()), (ALL_OFF, tuple(names)), *((f"without {name}", (name,)) for name in names)]


def parse_rules(text: str | None, names: Sequence[str]) -> list[str]:
    """``--disabled-rules a,b``; an unknown name is refused with the known ones."""
    wanted = [n.strip() for n in (text or "").split(",") if n.strip()]
    unknown = [n for n in wanted if n not in names]
    if unknown:
        raise ValueError(f"unknown rules {unknown}; choose from {', '.join(names)}")
    return wanted


def ablation_rows(
    runs: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]], suites: Iterable[Suite] = SUITES
) -> list[list[str]]:
    """One row a configuration: solved per suite, both together, the difference from all on, and
    model calls per question. ``runs``: configuration label -> suite key -> that suite's results."""
    keys = [s.key for s in suites]

    def solved(label: str) -> tuple[int, int]:
        every = [r for key in keys for r in runs[label].get(key, ())]
        return sum(bool(r["ok"]) for r in every), len(every)

    base, _ = solved(ALL_ON) if ALL_ON in runs else (0, 0)
    rows = []
    for label, by_suite in runs.items():
        cells = []
        for key in keys:
            results = by_suite.get(key, ())
            cells.append(f"{sum(bool(r['ok']) for r in results)}/{len(results)}" if results else "")
        total, count = solved(label)
        calls = [r["calls"] for key in keys for r in by_suite.get(key, ())]
        delta = "" if label == ALL_ON or ALL_ON not in runs else f"{total - base:+d}"
        mean_calls = f"{statistics.mean(calls):.2f}" if calls else ""
        rows.append([label, *cells, f"{total}/{count}", delta, mean_calls])
    return rows


def fired_in(result: Mapping[str, Any], name: str) -> bool:
    """Whether the rule ``name`` sent the model a correction in this run (its ``final`` events)."""
    return name in (result.get("rules") or ())


def fig12_ablation(
    bench: Any,
    run_adapter: Any,
    *,
    names: Sequence[str] | None = None,
    progress: Callable[[str], None] = print,
    every_question: bool | None = None,
) -> None:
    """Run every configuration over the held-out halves and add the table to ``bench``.

    A rule switched off alone is run again only on the questions where it corrected the model
    with every rule on (the runs' ``rules``); on the others it never spoke, so that run's result
    stands for it. That turns 2 + N full passes into 2 and a few questions, which is what makes the
    figure one quiet run on 2 cores. ``every_question`` (``--ablation-every-question``) runs every
    configuration on every question instead."""
    names = tuple(names) if names is not None else rule_names()
    if every_question is None:
        every_question = bool(getattr(bench.args, "ablation_every_question", False))
    system = next(s for s in bench.systems if s.key == "ours")
    selection = getattr(bench.args, "tasks", None) or "held-out"
    tasks = {suite.key: sorted(suite.load(selection), key=suite.group) for suite in SUITES}
    started = False
    llama_url = getattr(bench, "llama_url", None)
    if llama_url is None:
        llama_url, started = ensure_llama(bench)
    proxy = CountingProxy(llama_url).start()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    rerun = 0
    t0 = time.monotonic()
    try:
        for label, off in configurations(names):
            runs[label] = {}
            for suite in SUITES:
                results = runs[label].setdefault(suite.key, [])
                for position, task in enumerate(tasks[suite.key]):
                    if not every_question and len(off) == 1 and ALL_ON in runs:
                        kept = runs[ALL_ON][suite.key][position]
                        if not fired_in(kept, off[0]):
                            results.append({**kept, "kept_from": ALL_ON})
                            continue
                        rerun += 1
                    result = suite.run(system, task, proxy, run_adapter, configure=disabling(off))
                    results.append(result)
                    progress(
                        f"[fig 12] {label} {suite.key} {task['id']}: {'PASS' if result['ok'] else 'fail'} "
                        f"({time.monotonic() - t0:.0f} s)"
                    )
            (results_dir(bench) / "fig12-partial.json").write_text(json.dumps(runs, indent=1))
    finally:
        proxy.stop()
        if started:
            stop_llama()
    bench.results["fig12"] = runs
    counts = ", ".join(f"{len(tasks[s.key])} {s.key}" for s in SUITES)
    how = (
        "every configuration on every question"
        if every_question
        else f"each rule off alone run again only where it corrected the model with all rules on "
        f"({rerun} question runs); elsewhere the all-on result stands for it"
    )
    bench.table(
        "Figure 12 - each rule's worth on the held-out halves (ours, rules switched off by name)",
        ["configuration", *[f"{s.key} solved" for s in SUITES], "both", "vs all on", "LLM calls / question"],
        ablation_rows(runs),
        [
            f"Questions: {counts} ({selection}); one run each per configuration, the loop as shipped "
            f"but for its disabled_rules; {how}. A rule earns its place where switching it off alone "
            "loses questions (a negative 'vs all on').",
            "Fired with all rules on (questions): "
            + (
                ", ".join(
                    f"{name} {sum(fired_in(r, name) for key in runs[ALL_ON] for r in runs[ALL_ON][key])}"
                    for name in names
                )
                if ALL_ON in runs
                else "-"
            ),
        ],
    )
    (results_dir(bench) / "fig12-partial.json").unlink(missing_ok=True)
