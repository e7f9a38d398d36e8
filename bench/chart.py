"""Draw bench/results/chart.png from the JSON that bench/run.py wrote (runs in the bench venv).

python chart.py OUT.png latest.json [latest-tasks.json]
"""

from __future__ import annotations

import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

LABELS = {
    "floor": "floor",
    "ours": "ours",
    "ours-same": "ours\nupstream's\n11 tools",
    "ours-text": "ours\nmode text",
    "ours-text-same": "ours text\n11 tools",
    "upstream-react": "upstream\nreact",
    "upstream-native": "upstream\nnative",
    "smolagents": "smolagents",
    "openai-agents": "openai-\nagents",
    "pydantic-ai": "pydantic-\nai",
}
OURS, UPSTREAM, OTHER = "#2a9d4b", "#d1495b", "#7a8793"


def color(key: str) -> str:
    return OURS if key.startswith("ours") else UPSTREAM if key.startswith("upstream") else OTHER


def bars(ax, values: dict[str, float], title: str, unit: str, fmt: str = "{:.1f}") -> None:
    keys = [k for k in LABELS if k in values and values[k] == values[k]]
    ys = [values[k] for k in keys]
    rects = ax.bar([LABELS[k] for k in keys], ys, color=[color(k) for k in keys])
    for r, y in zip(rects, ys, strict=True):
        ax.annotate(
            fmt.format(y),
            (r.get_x() + r.get_width() / 2, r.get_height()),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(unit, fontsize=9)
    ax.tick_params(axis="x", labelsize=7.5)
    ax.margins(y=0.15)


def main() -> None:
    out, *inputs = sys.argv[1:]
    data: dict = {}
    for path in inputs:
        with open(path) as fh:
            loaded = json.load(fh)
        data.update({k: v for k, v in loaded.items() if k.startswith("fig")})
        data.setdefault("machine", loaded.get("machine"))
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    axes = axes.flatten()
    med = statistics.median
    if "fig1" in data:
        bars(
            axes[0],
            data["fig1"]["per_step_ms"],
            "1. Loop overhead per step (lower is better)",
            "ms / step",
            "{:.2f}",
        )
    if "fig2" in data:
        ready = {k: med(v["ready"]) * 1000 for k, v in data["fig2"]["marks"].items() if v["ready"]}
        bars(axes[1], ready, "2. Cold start to engine ready (lower is better)", "ms", "{:.0f}")
    if "fig3" in data:
        toks = {k: v["protocol_tokens"] for k, v in data["fig3"].items()}
        bars(axes[2], toks, "3. Prompt added by tools + protocol (lower is better)", "tokens", "{:.0f}")
    if "fig4" in data:
        par = {k: med(v) for k, v in data["fig4"].items() if v}
        bars(axes[3], par, "4. Three 1-s tool calls in one turn (lower is better)", "seconds", "{:.2f}")
        axes[3].axhline(1.0, color="black", lw=0.8, ls="--")
    if "fig5" in data:
        ax = axes[4]
        keys = [k for k in LABELS if k in data["fig5"]]
        rates = [data["fig5"][k]["success_rate"] * 100 for k in keys]
        calls = [data["fig5"][k]["calls_per_task"] for k in keys]
        rects = ax.bar([LABELS[k] for k in keys], rates, color=[color(k) for k in keys])
        for r, rate, c in zip(rects, rates, calls, strict=True):
            ax.annotate(
                f"{rate:.0f}%\n{c:.1f} calls",
                (r.get_x() + r.get_width() / 2, r.get_height()),
                ha="center",
                va="bottom",
                fontsize=8,
            )
        ax.set_ylim(0, 115)
        ax.set_title("5. Task success, real model (higher is better)", fontsize=10)
        ax.set_ylabel("% tasks solved", fontsize=9)
    else:
        axes[4].text(
            0.5, 0.5, "5. Task success: not run\n(python3 bench/run.py --figures 5)", ha="center", va="center"
        )
        axes[4].set_axis_off()
    if "fig6" in data:
        ax = axes[5]
        keys = [k for k in LABELS if k in data["fig6"] and data["fig6"][k]["first"]]
        first = [med(data["fig6"][k]["first"]) for k in keys]
        total = [med(data["fig6"][k]["total"]) for k in keys]
        xs = range(len(keys))
        ax.bar([x - 0.2 for x in xs], first, 0.4, color=[color(k) for k in keys], label="first sentence")
        ax.bar([x + 0.2 for x in xs], total, 0.4, color="#c9ced3", label="whole answer")
        ax.set_xticks(list(xs), [LABELS[k] for k in keys], fontsize=7.5)
        ax.set_title("6. Streaming: first sentence vs whole answer", fontsize=10)
        ax.set_ylabel("seconds", fontsize=9)
        ax.legend(fontsize=8)
    m = data.get("machine") or {}
    fig.suptitle(
        f"ovos-agentic-loop benchmarks - {m.get('date', '')} - {m.get('cpu', '')}, {m.get('cores', '')} cores"
        "  (green: ours, red: upstream, grey: peers and floor)",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
