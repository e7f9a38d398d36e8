"""Long model inputs are refused fast with a clear error (a multi-megabyte command string
would keep the shell busy for more than 20 s before failing)."""

from __future__ import annotations

import time  # "fast" is this thread's CPU time: a busy machine stretches wall time, not CPU time
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins

BIG = 5_000_000
FAST = 0.9  # seconds; ~0.01 s measured: the margin is for a loaded two-core CI machine


def box(name: str, root: Path) -> Any:
    configs: dict[str, dict[str, Any]] = {
        "ovos-shell-tools": {"allow_shell": True, "root_path": str(root)},
        "ovos-filesystem-tools": {"root_path": str(root)},
        "ovos-skill-md-toolbox": {
            "skills_paths": [str(root / "skills")],
            "user_skills_path": None,
            "use_entry_points": False,
        },
    }
    return find_toolbox_plugins()[name](config=configs.get(name, {}))


def refused_fast(toolbox: Any, tool: str, args: dict[str, Any]) -> str:
    started = time.thread_time()
    with pytest.raises((ValueError, RuntimeError)) as excinfo:
        toolbox.call_tool(tool, args)
    took = time.thread_time() - started
    assert took < FAST, f"{tool} took {took:.2f}s to refuse a long input"
    chain: list[BaseException] = []
    error: BaseException | None = excinfo.value
    while error is not None and len(chain) < 5:
        chain.append(error)
        error = error.__cause__ or error.__context__
    text = " ".join(str(e) for e in chain)
    assert "the limit is" in text or "longer than" in text, text
    assert len(text) < 5000, "the error repeats the long input"
    return text


@pytest.mark.parametrize(
    ("name", "tool", "args"),
    [
        ("ovos-shell-tools", "run_command", {"command": "echo " + "a" * BIG}),
        ("ovos-shell-tools", "run_command", {"command": "echo " + "a/" * (BIG // 2)}),
        ("ovos-shell-tools", "run_command", {"command": "ls", "cwd": "a/" * (BIG // 2)}),
        ("ovos-filesystem-tools", "read_file", {"path": "a/" * (BIG // 2)}),
        ("ovos-filesystem-tools", "list_directory", {"path": "a/" * (BIG // 2)}),
        ("ovos-filesystem-tools", "search_in_files", {"pattern": "a" * BIG}),
        ("ovos-filesystem-tools", "find_files", {"glob": "*" * BIG}),
        ("ovos-math-tools", "evaluate_expression", {"expression": "1+" * (BIG // 2) + "1"}),
        ("ovos-math-tools", "solve_equation", {"equation": "x+" * (BIG // 2) + "1 = 0"}),
        ("ovos-math-tools", "unit_convert", {"value": 1, "from_unit": "k" * BIG, "to_unit": "m"}),
        ("ovos-clock-tools", "get_current_datetime", {"timezone": "Europe/" + "x" * BIG}),
        ("ovos-clock-tools", "get_weekday", {"date": "2025-" * (BIG // 5)}),
        ("ovos-clock-tools", "convert_timezone", {"time": "1" * BIG, "to_timezone": "UTC"}),
    ],
)
def test_long_inputs_are_refused_fast(name: str, tool: str, args: dict[str, Any], tmp_path: Path) -> None:
    refused_fast(box(name, tmp_path), tool, args)


def test_long_skill_arguments_are_refused_fast(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "echo"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: echo\ndescription: Echoes.\n---\n## Parameters\n\n"
        "### text (required, positional position 0)\n**Type**: `str`\n"
    )
    (folder / "scripts" / "echo.py").write_text("import sys\nprint(sys.argv[1])\n")
    skills = box("ovos-skill-md-toolbox", tmp_path)
    refused_fast(skills, "echo", {"text": "a" * BIG})
    refused_fast(skills, "read_skill_file", {"skill": "echo", "path": "a/" * (BIG // 2)})
    refused_fast(skills, "load_skill", {"skill": "e" * BIG})
    assert skills.call_tool("echo", {"text": "short"}).stdout == "short\n"
