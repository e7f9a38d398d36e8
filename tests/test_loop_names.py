"""The loop names are written once (``_runtime/loop_names.py``); what cannot import it is checked here.

pyproject.toml's entry points, what the environment really has installed, the engine classes and the
README's loop tables must all name the same eight loops with the same classes.
"""

from __future__ import annotations

import importlib
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest

from ovos_agentic_loop import _doctor as doctor
from ovos_agentic_loop._runtime.loop_names import LOOP_NAMES, LOOPS, loop_name
from ovos_agentic_loop.config import LOOP_ENTRY_POINTS
from ovos_agentic_loop.loops import StrategyLoopEngine

REPO = Path(__file__).resolve().parent.parent
CHAT_GROUP = "opm.agents.chat"
#: The one chat entry point of this project that is not a loop.
BRAIN = "ovos-openai-brain"
UPSTREAM_NAMES = {
    "ovos-react-loop",
    "ovos-native-toolcall-loop",
    "ovos-plan-execute-loop",
    "ovos-reflexion-loop",
    "ovos-self-ask-loop",
    "ovos-chain-of-thought-loop",
    "ovos-critic-loop",
    "ovos-tree-of-thoughts-loop",
}


def engine_class(target: str) -> type:
    module, _, name = target.partition(":")
    cls = getattr(importlib.import_module(module), name)
    assert isinstance(cls, type), target
    return cls


def test_the_registry_holds_upstreams_eight_names_once_each() -> None:
    names = [loop.name for loop in LOOPS]
    assert len(names) == len(set(names)) == 8
    assert set(names) == UPSTREAM_NAMES == LOOP_NAMES
    assert LOOP_ENTRY_POINTS == LOOP_NAMES


@pytest.mark.parametrize("loop", LOOPS, ids=lambda loop: loop.name)
def test_each_target_is_an_engine_class_whose_engine_name_is_the_registry_name(loop) -> None:
    cls = engine_class(loop.target)
    assert cls.__name__ == loop.class_name
    assert cls.engine_name == loop.name
    assert loop.summary and "\n" not in loop.summary


def test_an_unknown_engine_class_is_a_clear_error() -> None:
    with pytest.raises(
        LookupError, match=r"'NoSuchEngine' has no entry in .*LOOPS; add it there and to pyproject"
    ):
        loop_name("NoSuchEngine")


def test_pyproject_entry_points_match_the_registry() -> None:
    if sys.version_info < (3, 11):
        pytest.skip("tomllib is in the standard library from Python 3.11")
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = dict(project["entry-points"][CHAT_GROUP])
    assert declared.pop(BRAIN) == "ovos_agentic_loop.brain:OpenAIBrain"
    assert declared == {loop.name: loop.target for loop in LOOPS}


def test_the_installed_entry_points_match_the_registry() -> None:
    """What OPM really finds (a stale install after a rename shows up here, not in a persona)."""
    installed = {
        ep.name: ep.value
        for ep in metadata.distribution("ovos-agentic-loop").entry_points
        if ep.group == CHAT_GROUP
    }
    installed.pop(BRAIN)
    assert installed == {loop.name: loop.target for loop in LOOPS}, (
        "the installed entry points differ from ovos_agentic_loop._runtime.loop_names: "
        "reinstall (pip install -e .)"
    )


def readme_section(heading: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    end = re.compile(r"\n#{2,3} ").search(text, start + len(heading) + 2)
    return text[start : end.start() if end else len(text)]


def test_the_readme_loops_table_has_one_row_per_strategy_loop() -> None:
    rows = re.findall(r"^\| `([a-z-]+)` \|", readme_section("### Loops"), flags=re.MULTILINE)
    strategies = [loop.name for loop in LOOPS if issubclass(engine_class(loop.target), StrategyLoopEngine)]
    assert len(strategies) == 6
    # The table of what each loop does comes first, in registry order; the benchmark table may follow.
    assert rows[: len(strategies)] == strategies


def test_the_readme_names_every_loop_in_its_entry_points_line_and_the_react_pair_in_its_heading() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    intro = text[text.index("- Entry points:") : text.index("\n- ", text.index("- Entry points:"))]
    named = set(re.findall(r"`(ovos-[a-z-]+-loop)`", intro)) - {"ovos-agentic-loop"}  # the package's name
    assert named == LOOP_NAMES
    core = [loop.name for loop in LOOPS if not issubclass(engine_class(loop.target), StrategyLoopEngine)]
    assert f"### The loop ({' / '.join(f'`{name}`' for name in core)} section)" in text


# -- doctor reads the registry ----------------------------------------------------------
def test_doctor_says_what_an_installed_loop_does() -> None:
    check = doctor._handler_check("ovos-critic-loop", {"ovos-critic-loop"})
    assert check.level == "ok"
    assert check.detail == "installed (draft, critique (doubts checked with tools), revise)"


def test_doctor_tells_a_missing_loop_of_ours_to_install_the_package() -> None:
    check = doctor._handler_check("ovos-self-ask-loop", {"ovos-openai-brain"})
    assert (check.level, check.detail) == ("fail", "not installed")
    assert "one of ovos-agentic-loop's loops" in check.fix and "pip install -e ." in check.fix


def test_doctor_suggests_the_loop_a_misspelt_handler_meant() -> None:
    check = doctor._handler_check("ovos-react-loops", set(LOOP_NAMES))
    assert check.level == "fail"
    assert check.fix.startswith("did you mean 'ovos-react-loop'? no package provides it")


def test_the_benchmark_runs_the_registry_loops_in_its_order() -> None:
    """bench/loops_runner.py runs in venvs without this package, so it keeps its own tuple: checked here."""
    source = (REPO / "bench" / "loops_runner.py").read_text(encoding="utf-8")
    block = re.search(r"^LOOPS = \((.*?)^\)", source, re.MULTILINE | re.DOTALL)
    assert block is not None, "bench/loops_runner.py has no LOOPS tuple"
    names = re.findall(r'"(ovos-[a-z-]+)"', block.group(1))
    if "BASELINE" in block.group(1):
        names.insert(0, re.search(r'^BASELINE = "([^"]+)"', source, re.MULTILINE).group(1))  # type: ignore[union-attr]
    assert names == [loop.name for loop in LOOPS]
