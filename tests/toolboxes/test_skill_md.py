"""ovos-skill-md-toolbox as a user reaches it: through OPM, with ``call_tool``."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError
from ovos_agentic_loop_toolboxes.skill_md import EXAMPLES_DIR

ECHO_ARGS = """\
import json, os, sys
print(json.dumps({"argv": sys.argv[1:], "env": os.environ.get("MODE"), "cwd": os.getcwd(),
                  "secret": os.environ.get("SECRET_TOKEN")}))
"""

ECHO_SKILL = """\
---
name: echo-args
description: Echo the arguments it was given.
should_run_in_sandbox: main
---
## Usage

```bash
python3 scripts/echo_args.py first 2 --label x --loud
```

## Parameters

### first (required, positional position 0)
**Type**: `str`
### count (optional, positional position 1)
**Type**: `int`
### rest (optional, positional position 2+)
**Type**: `list` of strings
### --label (optional, named parameter)
**Type**: `str`
### --loud (optional, flag)
**Type**: `bool` (default: `false`)
### MODE (optional, env var)
**Type**: `str`

## Timeout

5 seconds
"""


def make_box(**config: Any):
    config.setdefault("user_skills_path", None)
    config.setdefault("use_entry_points", False)
    config.setdefault("refresh_interval", 0)
    return find_toolbox_plugins()["ovos-skill-md-toolbox"](config=config)


def add_skill(
    root: Path, rel: str, name: str, description: str = "does things", body: str = "Steps."
) -> Path:
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return folder


def add_script_skill(
    root: Path, rel: str = "echo", skill_md: str = ECHO_SKILL, script: str = ECHO_ARGS
) -> Path:
    folder = root / rel
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md)
    (folder / "scripts" / "echo_args.py").write_text(script)
    return folder


def cause(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    assert isinstance(excinfo.value.__cause__, ToolCallError), repr(excinfo.value.__cause__)
    return str(excinfo.value.__cause__)


# -- discovery and filtering ----------------------------------------------------
def test_no_skills_means_no_tools(tmp_path: Path) -> None:
    assert make_box(skills_paths=[str(tmp_path)]).tools == {}


def test_examples_load_through_the_entry_point_only_when_named(tmp_path: Path, ovos_log) -> None:
    # with "all" they joined every persona's skills: the bundled model called text_stats on its own
    # answer instead of reading the persona's expense-policy skill
    add_skill(tmp_path, "expenses", "expense-policy")
    everything = make_box(use_entry_points=True, skills_paths=[str(tmp_path)])
    assert [s.name for s in everything.call_tool("list_skills", {}).skills] == ["expense-policy"]
    assert "text_stats" not in everything.tools
    # not silently: the log says how to get them back
    assert "example skill 'text-stats' not loaded: name it in enabled_skills to use it" in ovos_log.at("info")
    box = make_box(use_entry_points=True, enabled_skills=["text-stats", "kitchen-conversions"])
    assert set(box.tools) == {"list_skills", "load_skill", "read_skill_file", "text_stats"}
    skills = box.call_tool("list_skills", {}).skills
    assert {s.name for s in skills} == {"text-stats", "kitchen-conversions"}
    assert next(s for s in skills if s.name == "text-stats").tools == ["text_stats"]


def test_user_folder_is_scanned_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    add_skill(tmp_path / "ovos-agentic-loop" / "skills", "mine", "my-skill")
    box = find_toolbox_plugins()["ovos-skill-md-toolbox"](config={"use_entry_points": False})
    assert "my-skill" in box.tools["load_skill"].description


def test_enabled_skills_semantics(tmp_path: Path) -> None:
    add_skill(tmp_path, "fuzz/campaign", "campaign")
    add_skill(tmp_path, "fuzz/campaign/inner", "inner")  # nested inside another skill
    add_skill(tmp_path, "coverage/show", "show")
    add_skill(tmp_path, "notes", "notes")

    def names(enabled: Any) -> set[str]:
        box = make_box(skills_paths=[str(tmp_path)], enabled_skills=enabled)
        return {s.name for s in box.call_tool("list_skills", {}).skills} if box.tools else set()

    assert names("all") == {"campaign", "show", "notes"}
    assert names(None) == set()
    assert names(["fuzz"]) == {"campaign", "inner"}
    assert names(["fuzz/campaign/inner", "notes"]) == {"inner", "notes"}
    assert names(["show"]) == {"show"}  # by skill name
    assert names(["fu"]) == set()  # prefixes are whole path segments
    # the default is "all"
    box = make_box(skills_paths=[str(tmp_path)])
    assert len(box.call_tool("list_skills", {}).skills) == 3


def test_extra_skill_md_paths_always_load(tmp_path: Path) -> None:
    folder = add_skill(tmp_path, "solo", "solo")
    box = make_box(extra_skill_md_paths=[str(folder / "SKILL.md")], enabled_skills=None)
    assert [s.name for s in box.call_tool("list_skills", {}).skills] == ["solo"]


def test_broken_skill_is_skipped_with_a_warning(tmp_path: Path, ovos_log) -> None:
    add_skill(tmp_path, "good", "good")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: [oops\n---\n")
    box = make_box(skills_paths=[str(tmp_path)])
    assert [s.name for s in box.call_tool("list_skills", {}).skills] == ["good"]
    warnings = ovos_log.at("warning")
    assert any(str(bad / "SKILL.md") in w and "not valid YAML" in w for w in warnings), warnings


def test_duplicate_names_first_wins(tmp_path: Path, ovos_log) -> None:
    first = add_skill(tmp_path / "a", "x", "twin", description="first one")
    second = add_skill(tmp_path / "b", "x", "twin", description="second one")
    box = make_box(skills_paths=[str(tmp_path / "a"), str(tmp_path / "b")])
    skills = box.call_tool("list_skills", {}).skills
    assert [(s.name, s.description) for s in skills] == [("twin", "first one")]
    assert any(
        "duplicate skill name 'twin'" in w and str(second) in w and str(first) in w
        for w in ovos_log.at("warning")
    )


def test_cache_refreshes_after_an_edit(tmp_path: Path) -> None:
    folder = add_skill(tmp_path, "s", "editable", description="old text")
    box = make_box(skills_paths=[str(tmp_path)])
    assert "old text" in box.tools["load_skill"].description
    (folder / "SKILL.md").write_text("---\nname: editable\ndescription: new text\n---\nnew body\n")
    assert "new text" in box.tools["load_skill"].description
    assert box.call_tool("load_skill", {"skill": "editable"}).instructions == "new body"
    add_script_skill(tmp_path)
    assert "echo_args" in box.tools  # a new skill folder appears as a tool without a restart


def test_cache_is_not_reparsed_without_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_skill(tmp_path, "s", "stable")
    box = make_box(skills_paths=[str(tmp_path)])
    assert "stable" in box.tools["load_skill"].description
    import ovos_agentic_loop_toolboxes.skill_md.discovery as discovery

    def fail(path: str) -> None:
        raise AssertionError(f"reparsed {path}")

    monkeypatch.setattr(discovery, "parse_skill_md", fail)
    for _ in range(3):
        assert "stable" in box.tools["load_skill"].description


def test_refresh_interval_throttles_the_walk(tmp_path: Path) -> None:
    add_skill(tmp_path, "s", "first")
    box = make_box(skills_paths=[str(tmp_path)], refresh_interval=60)
    assert "first" in box.tools["load_skill"].description
    add_skill(tmp_path, "t", "second")
    assert "second" not in box.tools["load_skill"].description


# -- progressive disclosure -------------------------------------------------------
def test_load_skill_and_read_its_reference() -> None:
    box = make_box(skills_paths=[EXAMPLES_DIR])
    description = box.tools["load_skill"].description
    assert "kitchen-conversions: Scale a recipe" in description
    loaded = box.call_tool("load_skill", {"skill": "kitchen-conversions"})
    assert "reference/measures.md" in loaded.instructions
    assert loaded.files == ["reference/measures.md"]
    content = box.call_tool(
        "read_skill_file", {"skill": "kitchen-conversions", "path": "reference/measures.md"}
    )
    assert "1 cup" in content.content and not content.truncated


def test_unknown_skill_lists_the_known_ones() -> None:
    box = make_box(skills_paths=[EXAMPLES_DIR])
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("load_skill", {"skill": "nope"})
    assert "available skills: kitchen-conversions, text-stats" in cause(excinfo)
    # A slug of the name is accepted (small models write text_stats for text-stats).
    assert box.call_tool("load_skill", {"skill": "text_stats"}).skill == "text-stats"


@pytest.mark.parametrize(
    "path", ["../outside.txt", "/etc/passwd", "ref/../../outside.txt", "link.txt", "dirlink/x"]
)
def test_reading_outside_the_skill_folder_is_refused(tmp_path: Path, path: str) -> None:
    folder = add_skill(tmp_path / "skills", "s", "s")
    (tmp_path / "skills" / "outside.txt").write_text("secret")
    (folder / "ref").mkdir()
    (folder / "link.txt").symlink_to(tmp_path / "skills" / "outside.txt")
    (folder / "dirlink").symlink_to(tmp_path / "skills")
    box = make_box(skills_paths=[str(tmp_path / "skills")])
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("read_skill_file", {"skill": "s", "path": path})
    message = cause(excinfo)
    assert "outside the skill folder" in message or "link" in message
    assert "link.txt" not in box.call_tool("load_skill", {"skill": "s"}).files


# -- executable skills ------------------------------------------------------------
def test_example_script_skill_runs_and_returns_json() -> None:
    box = make_box(skills_paths=[EXAMPLES_DIR])
    out = box.call_tool(
        "text_stats", {"text": "The cat saw the dog. The end!", "top": 2, "ignore_case": True}
    )
    assert out.returncode == 0 and out.stdout == ""
    assert out.result == {
        "characters": 29,
        "words": 7,
        "lines": 1,
        "sentences": 2,
        "top_words": [["the", 3], ["cat", 1]],
    }
    schema = box.tools["text_stats"].argument_schema.model_json_schema()
    assert schema["required"] == ["text"]
    assert schema["properties"]["top"] == {
        "default": 5,
        "description": "How many of the most frequent words to list.",
        "title": "Top",
        "type": "integer",
    }


def argv_of(box: Any, **kwargs: Any) -> dict[str, Any]:
    return box.call_tool("echo_args", kwargs).result


def test_each_parameter_kind_reaches_argv(tmp_path: Path) -> None:
    add_script_skill(tmp_path)
    box = make_box(skills_paths=[str(tmp_path)])
    assert argv_of(box, first="a")["argv"] == ["a"]
    full = argv_of(box, first="a", count=-3, rest=["r1", "r2"], label="hello world", loud=True, MODE="fast")
    assert full["argv"] == ["a", "-3", "--label", "hello world", "--loud", "r1", "r2"]
    assert full["env"] == "fast"
    assert argv_of(box, first="a", loud=False)["argv"] == ["a"]


def test_argument_validation_errors(tmp_path: Path) -> None:
    add_script_skill(tmp_path)
    box = make_box(skills_paths=[str(tmp_path)])
    with pytest.raises(ValueError):
        box.call_tool("echo_args", {})  # first is required
    with pytest.raises(ValueError):
        box.call_tool("echo_args", {"first": "a", "count": "many"})
    with pytest.raises(ValueError):
        box.call_tool("echo_args", {"first": "a", "unknown": 1})
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("echo_args", {"first": "a", "rest": ["r"]})  # count skipped before rest
    assert "give 'count' too" in cause(excinfo)


def test_scripts_get_a_clean_environment_and_private_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    add_script_skill(tmp_path / "skills")
    box = make_box(skills_paths=[str(tmp_path / "skills")])
    out = argv_of(box, first="a")
    assert out["secret"] is None
    assert not os.path.exists(out["cwd"])  # the per-call temporary folder is gone
    work = tmp_path / "work"
    work.mkdir()
    box = make_box(skills_paths=[str(tmp_path / "skills")], root_path=str(work))
    assert argv_of(box, first="a")["cwd"] == str(work.resolve())


def test_nonzero_exit_is_an_error_with_the_stderr_tail(tmp_path: Path) -> None:
    add_script_skill(
        tmp_path, script="import sys\nprint('x' * 5000, file=sys.stderr)\nsys.exit('bad input: try again')\n"
    )
    box = make_box(skills_paths=[str(tmp_path)])
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("echo_args", {"first": "a"})
    message = cause(excinfo)
    assert "exit code 1" in message and message.endswith("bad input: try again")
    assert len(message) < 800


def test_text_output_is_returned_as_text(tmp_path: Path) -> None:
    add_script_skill(tmp_path, script="print('plain words')\n")
    out = make_box(skills_paths=[str(tmp_path)]).call_tool("echo_args", {"first": "a"})
    assert out.result is None and out.stdout == "plain words\n"


def test_bash_scripts_run_with_bash(tmp_path: Path) -> None:
    folder = tmp_path / "hello"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: hello\ndescription: greet\n---\n"
        "## Parameters\n### who (required, positional position 0)\n"
    )
    # Not executable on purpose: it runs through bash, not through its mode bits.
    (folder / "scripts" / "hello.sh").write_text('printf \'{"hello": "%s"}\' "$1"\n')
    out = make_box(skills_paths=[str(tmp_path)]).call_tool("hello", {"who": "Ana; rm -rf /"})
    assert out.result == {"hello": "Ana; rm -rf /"}


def test_allow_scripts_false_keeps_only_the_disclosure_tools() -> None:
    box = make_box(skills_paths=[EXAMPLES_DIR], allow_scripts=False)
    assert set(box.tools) == {"list_skills", "load_skill", "read_skill_file"}


def test_deps_installer_runs_only_when_allowed(tmp_path: Path) -> None:
    folder = add_script_skill(tmp_path / "skills")
    (folder / "deps").mkdir()
    marker = tmp_path / "installed.txt"
    (folder / "deps" / "install.sh").write_text(f"echo run >> {marker}\n")
    make_box(skills_paths=[str(tmp_path / "skills")]).call_tool("echo_args", {"first": "a"})
    assert not marker.exists()
    box = make_box(skills_paths=[str(tmp_path / "skills")], install_deps=True, deps_timeout=5)
    box.call_tool("echo_args", {"first": "a"})
    box.call_tool("echo_args", {"first": "b"})
    assert marker.read_text() == "run\n"  # once, not per call


def test_failing_installer_is_reported(tmp_path: Path) -> None:
    folder = add_script_skill(tmp_path / "skills", rel="echo2")
    (folder / "deps").mkdir()
    (folder / "deps" / "install.sh").write_text("echo nope >&2\nexit 3\n")
    box = make_box(skills_paths=[str(tmp_path / "skills")], install_deps=True)
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("echo_args", {"first": "a"})
    assert "could not install its dependencies" in cause(excinfo)


def test_upstream_brain_keys_are_accepted_and_ignored(tmp_path: Path) -> None:
    box = make_box(skills_paths=[EXAMPLES_DIR], brain="ovos-openai-brain", **{"ovos-openai-brain": {}})
    box.set_brain(object())
    assert "text_stats" in box.tools


def test_tool_json_is_serialisable() -> None:
    box = make_box(skills_paths=[EXAMPLES_DIR])
    json.dumps(box.tool_json_list)
    started = time.monotonic()
    for _ in range(50):
        assert "text_stats" in box.tools
    assert time.monotonic() - started < 1.0  # refresh checks are cheap


def test_a_skill_toolbox_with_no_skills_says_so_at_warning_in_its_constructor(
    tmp_path: Path, ovos_log: Any
) -> None:
    # Built as ovos-PHAL-plugin-tools builds it: nothing else in that host would say it.
    empty = tmp_path / "skills"
    empty.mkdir()
    cls = find_toolbox_plugins()["ovos-skill-md-toolbox"]
    toolbox = cls(config={"skills_paths": [str(empty)], "user_skills_path": None, "use_entry_points": False})
    assert toolbox.tools == {}
    zero = [(level, m) for level, m in ovos_log.records if "serves ZERO tools" in m]
    assert len(zero) == 1 and zero[0][0] == "warning"
    assert str(empty) in zero[0][1] and "text-stats" in zero[0][1]
    cls(config={"enabled_skills": None})
    assert any("enabled_skills is null" in m for m in ovos_log.at("warning"))
