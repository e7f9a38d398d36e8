"""Figure 9's side of ``bfcl-eval``: its data and its AST checker, run with the ``bfcl`` venv's python.

    python bfcl_data.py sample N        # the first N entries of each category, as JSON on stdout
    python bfcl_data.py score < runs    # BFCL's verdict for each run (JSON in, JSON out)

The sample is the first ``N`` entries of each category file in the package, in file order: whole
categories, never picked by hand or by results, the same for every run of one ``bfcl-eval`` version
(pinned in ``requirements-bfcl.txt``). A run is ``{"id", "category", "calls": [{"name",
"arguments"}]}``: the calls a system made, in order.

Scoring follows BFCL's own rules: in the irrelevance categories an entry passes when no function was
called; in the others BFCL's ``ast_checker`` judges the calls against the entry's possible answers.
Tool names are sent with ``.`` replaced by ``_`` (what an OpenAI-style API allows, and what BFCL does
for its own function-calling handlers), and the checker is told so (``underscore_to_dot``).

``bfcl_eval.constants.model_config`` (which the checker imports for that one flag) imports every
provider's SDK; it is replaced here by a one-entry table, so the venv needs ``bfcl-eval`` alone.
"""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass
from importlib import resources
from typing import Any

#: The figure's categories -> the package's file stem (``simple`` is ``simple_python`` since v4).
CATEGORIES = {
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "live_simple": "live_simple",
    "live_multiple": "live_multiple",
    "irrelevance": "irrelevance",
    "live_irrelevance": "live_irrelevance",
}
#: The name the checker is given; its only use is to look up ``underscore_to_dot``.
MODEL_NAME = "ovos-bench"


@dataclass(frozen=True)
class _ModelConfig:
    underscore_to_dot: bool = True


def _install_model_config_stub() -> None:
    module = types.ModuleType("bfcl_eval.constants.model_config")
    module.MODEL_CONFIG_MAPPING = {MODEL_NAME: _ModelConfig()}  # type: ignore[attr-defined]
    sys.modules.setdefault("bfcl_eval.constants.model_config", module)


def _lines(relative: str) -> list[dict[str, Any]]:
    text = (resources.files("bfcl_eval") / "data" / relative).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def sample(per_category: int) -> list[dict[str, Any]]:
    """The first ``per_category`` entries of each category, with their possible answers."""
    if per_category < 1:
        raise ValueError(f"per category must be at least 1, not {per_category}")
    out = []
    for category, stem in CATEGORIES.items():
        entries = _lines(f"BFCL_v4_{stem}.json")[:per_category]
        answers: dict[str, Any] = {}
        if "irrelevance" not in category:
            answers = {a["id"]: a["ground_truth"] for a in _lines(f"possible_answer/BFCL_v4_{stem}.json")}
        for entry in entries:
            out.append(
                {
                    "id": entry["id"],
                    "category": category,
                    "question": entry["question"],
                    "function": entry["function"],
                    "ground_truth": answers.get(entry["id"]),
                }
            )
    return out


def score(runs: list[dict[str, Any]], entries: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """BFCL's verdict per run: ``{"id", "valid", "error"}``."""
    _install_model_config_stub()
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    verdicts = []
    for run in runs:
        entry = entries[run["id"]]
        calls = run.get("calls") or []
        if "irrelevance" in entry["category"]:
            valid = not calls
            verdicts.append({"id": run["id"], "valid": valid, "error": "" if valid else "called a function"})
            continue
        if not calls:
            verdicts.append({"id": run["id"], "valid": False, "error": "no function called"})
            continue
        if any(not isinstance(c.get("arguments"), dict) for c in calls):
            verdicts.append({"id": run["id"], "valid": False, "error": "arguments not a JSON object"})
            continue
        output = [{c["name"]: c["arguments"]} for c in calls]
        stem = CATEGORIES[entry["category"]]
        result = ast_checker(
            entry["function"], output, entry["ground_truth"], Language.PYTHON, stem, MODEL_NAME
        )
        error = "" if result["valid"] else "; ".join(str(e) for e in result.get("error", []))[:300]
        verdicts.append({"id": run["id"], "valid": bool(result["valid"]), "error": error})
    return verdicts


def version() -> str:
    from importlib.metadata import version as dist_version

    return dist_version("bfcl-eval")


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "sample":
        print(json.dumps({"version": version(), "entries": sample(int(argv[1]))}))
        return 0
    if argv == ["score"]:
        payload = json.load(sys.stdin)
        entries = {e["id"]: e for e in payload["entries"]}
        print(json.dumps(score(payload["runs"], entries)))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
