"""Draw bench/results/chart.png from the current figures: the table under "Current figures" in
bench/README.md, the one a reader sees beside the chart, so the two always agree.

python chart.py OUT.png [README.md]    (needs matplotlib: the ``bench`` venv has it)

Figures 1-6 are drawn, each from the first row of its number in the table (the headline
measurement; the rows after it are variants: another template, before and after a change). Each
panel says when its row was measured, as the table's last column does.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parent / "README.md"
HEADING = "## Current figures"
#: The table's system columns, in its order (after "figure" and "measure", before "measured").
SYSTEMS = ("ours", "upstream-react", "upstream-native", "smolagents", "openai-agents", "pydantic-ai", "floor")
LABELS = {
    "ours": "ours",
    "upstream-react": "upstream\nreact",
    "upstream-native": "upstream\nnative",
    "smolagents": "smolagents",
    "openai-agents": "openai-\nagents",
    "pydantic-ai": "pydantic-\nai",
    "floor": "floor /\nbare model",
}
CHARTED = ("1", "2", "3", "4", "5", "6")
OURS, UPSTREAM, OTHER = "#2a9d4b", "#d1495b", "#7a8793"


@dataclass(frozen=True)
class Row:
    """One figure's headline row: the numbers of each system's cell, and when it was measured."""

    figure: str
    measure: str
    values: dict[str, list[float]]
    measured: str


def cell_numbers(cell: str) -> list[float]:
    """The numbers a cell states, leaving out its parenthesised notes: "86% (18/21), 3.10 (before,
    ...: 90%, 3.14)" -> [86, 3.1]; "2889 (19 tools)" -> [2889]; "0.20 / 2.65" -> [0.2, 2.65];
    "n/a" or an empty cell -> []."""
    bare = re.sub(r"\([^()]*\)", "", cell)
    return [float(n) for n in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", bare)]


def current_figures(readme: str) -> dict[str, Row]:
    """Each figure's first row in the "Current figures" table of ``readme`` (the README's text)."""
    lines = readme[readme.index(HEADING) :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows: dict[str, Row] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break  # the table ends at its first line that is not a row
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        figure = cells[0]
        if figure in rows or not re.fullmatch(r"\d+[a-z]?", figure):
            continue  # the header, its rule, and the variant rows after a figure's first
        systems = cells[2 : 2 + len(SYSTEMS)]
        values = {k: cell_numbers(c) for k, c in zip(SYSTEMS, systems, strict=True)}
        rows[figure] = Row(figure, cells[1], {k: v for k, v in values.items() if v}, cells[-1])
    return rows


def _color(key: str) -> str:
    return OURS if key.startswith("ours") else UPSTREAM if key.startswith("upstream") else OTHER


def _when(row: Row) -> str:
    date = re.search(r"\d{4}-\d{2}-\d{2}", row.measured)
    return f"measured {date.group()}" if date else ""


def _bars(ax: Any, row: Row, title: str, unit: str, fmt: str, index: int = 0) -> None:
    keys = [k for k in SYSTEMS if len(row.values.get(k, [])) > index]
    ys = [row.values[k][index] for k in keys]
    rects = ax.bar([LABELS[k] for k in keys], ys, color=[_color(k) for k in keys])
    for r, y in zip(rects, ys, strict=True):
        ax.annotate(
            fmt.format(y),
            (r.get_x() + r.get_width() / 2, r.get_height()),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_title(f"{title}\n{_when(row)}", fontsize=10)
    ax.set_ylabel(unit, fontsize=9)
    ax.tick_params(axis="x", labelsize=7.5)
    ax.margins(y=0.15)


def _success(ax: Any, row: Row) -> None:
    """Figure 5: the share of tasks solved, each bar labelled with its model calls per task."""
    keys = [k for k in SYSTEMS if len(row.values.get(k, [])) >= 2]
    rates = [row.values[k][0] for k in keys]
    rects = ax.bar([LABELS[k] for k in keys], rates, color=[_color(k) for k in keys])
    for r, k in zip(rects, keys, strict=True):
        rate, calls = row.values[k][:2]
        label = f"{rate:.0f}%\n{calls:.2f} calls"
        ax.annotate(
            label, (r.get_x() + r.get_width() / 2, r.get_height()), ha="center", va="bottom", fontsize=8
        )
    ax.set_ylim(0, 115)
    ax.tick_params(axis="x", labelsize=7.5)
    ax.set_title(f"5. Typed tasks, held-out half (higher is better)\n{_when(row)}", fontsize=10)
    ax.set_ylabel("% tasks solved", fontsize=9)


def _streaming(ax: Any, row: Row) -> None:
    """Figure 6: first sentence beside the whole answer, per system."""
    keys = [k for k in SYSTEMS if len(row.values.get(k, [])) >= 2]
    xs = range(len(keys))
    first = [row.values[k][0] for k in keys]
    total = [row.values[k][1] for k in keys]
    ax.bar([x - 0.2 for x in xs], first, 0.4, color=[_color(k) for k in keys], label="first sentence")
    ax.bar([x + 0.2 for x in xs], total, 0.4, color="#c9ced3", label="whole answer")
    ax.set_xticks(list(xs), [LABELS[k] for k in keys], fontsize=7.5)
    ax.set_title(f"6. Streaming: first sentence vs whole answer\n{_when(row)}", fontsize=10)
    ax.set_ylabel("seconds", fontsize=9)
    ax.legend(fontsize=8)


def draw(rows: dict[str, Row], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    missing = [f for f in CHARTED if f not in rows]
    if missing:
        raise ValueError(f"the table has no row for figure(s) {', '.join(missing)}")
    fig, grid = plt.subplots(2, 3, figsize=(15, 9))
    axes = grid.flatten()
    _bars(axes[0], rows["1"], "1. Loop overhead per extra step (lower is better)", "ms / step", "{:.2f}")
    _bars(axes[1], rows["2"], "2. Cold start to engine ready (lower is better)", "ms", "{:.0f}")
    _bars(axes[2], rows["3"], "3. Prompt tokens, five toolboxes (lower is better)", "tokens", "{:.0f}")
    _bars(axes[3], rows["4"], "4. Three 1-s tool calls in one turn (lower is better)", "seconds", "{:.2f}")
    axes[3].axhline(1.0, color="black", lw=0.8, ls="--")
    _success(axes[4], rows["5"])
    _streaming(axes[5], rows["6"])
    fig.suptitle(
        "ovos-agentic-loop benchmarks: the current figures of bench/README.md"
        "  (green: ours, red: upstream, grey: peers and floor)",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    out, *rest = sys.argv[1:] if argv is None else argv
    readme = Path(rest[0]) if rest else README
    draw(current_figures(readme.read_text(encoding="utf-8")), Path(out))


if __name__ == "__main__":
    main()
