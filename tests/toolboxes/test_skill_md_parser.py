"""SKILL.md parsing: YAML frontmatter edge cases and the OpenSage Parameters grammar."""

from __future__ import annotations

from pathlib import Path

import pytest

from ovos_agentic_loop_toolboxes.skill_md.parser import (
    SkillParseError,
    parse_parameters,
    parse_skill_md,
    parse_timeout,
)


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(text)
    return path


def test_quoted_and_folded_strings(tmp_path: Path) -> None:
    skill = parse_skill_md(
        write(
            tmp_path / "a",
            '---\nname: "my: skill"\ndescription: >\n  First line,\n  second line.\n'
            "extra: [1, 2]\n---\n# Body\n",
        )
    )
    assert skill.name == "my: skill"
    assert skill.description == "First line, second line."
    assert skill.frontmatter["extra"] == [1, 2]
    assert skill.body == "# Body"
    assert not skill.executable


def test_crlf_and_bom_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "b" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes("\ufeff---\r\nname: b\r\ndescription: 'it''s quoted'\r\n---\r\nbody\r\n".encode())
    skill = parse_skill_md(str(path))
    assert (skill.name, skill.description, skill.body) == ("b", "it's quoted", "body")


def test_missing_name_falls_back_to_the_folder(tmp_path: Path) -> None:
    assert parse_skill_md(write(tmp_path / "folder-name", "---\ndescription: d\n---\n")).name == "folder-name"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no frontmatter here", "no YAML frontmatter"),
        ("---\nname: x\ndescription: d\n", "not closed"),
        ("---\nname: [unclosed\ndescription: d\n---\n", "not valid YAML"),
        ("---\n- a list\n---\n", "must be a YAML mapping"),
        ("---\nname: x\n---\nbody", "no 'description'"),
        ("---\nname: x\ndescription: '   '\n---\n", "no 'description'"),
    ],
)
def test_broken_files_raise_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SkillParseError, match=message):
        parse_skill_md(write(tmp_path / "bad", text))


PARAMETERS = """
### fuzz_target (required, positional position 0)

**Type**: `str`

Fuzz target binary name.

### seed_paths (optional, positional position 2+)

**Type**: `list` of strings

Optional seed paths.

### duration_seconds (required, positional position 1)

**Type**: `int`

Duration (e.g., `180`).

### --custom-mutator (optional, named parameter)

**Type**: `str`

Path to a mutator. Defaults to `"none"`.

### --ratio (optional, named parameter)

**Type**: `float` (default: `0.5`)

### --reset_output (optional, flag)

**Type**: `bool` (default: `false`)

Reset output.

### TARGET_BINARY (required, env var)

**Type**: `str`

The binary.

```bash
### not a parameter (inside a code fence)
```
"""


def test_parameters_grammar() -> None:
    params = {p.key: p for p in parse_parameters(PARAMETERS)}
    assert list(params) == [
        "fuzz_target",
        "duration_seconds",
        "seed_paths",
        "custom_mutator",
        "ratio",
        "reset_output",
        "TARGET_BINARY",
    ]
    target = params["fuzz_target"]
    assert (target.kind, target.type, target.required, target.position) == ("positional", "str", True, 0)
    assert params["duration_seconds"].type == "int" and params["duration_seconds"].position == 1
    seeds = params["seed_paths"]
    assert (seeds.variadic, seeds.type, seeds.required) == (True, "list", False)
    mutator = params["custom_mutator"]
    assert (mutator.kind, mutator.name, mutator.default, mutator.required) == (
        "named",
        "--custom-mutator",
        "none",
        False,
    )
    assert params["ratio"].default == 0.5 and params["ratio"].type == "float"
    flag = params["reset_output"]
    assert (flag.kind, flag.type, flag.default) == ("flag", "bool", False)
    assert params["TARGET_BINARY"].kind == "env" and params["TARGET_BINARY"].required
    assert "not" not in params  # the heading inside the code fence is text, not a parameter


def test_parameters_without_qualifiers() -> None:
    params = parse_parameters("### first\n**Type**: `int`\n### second\n### --verbose\n**Type**: `bool`\n")
    assert [(p.key, p.kind, p.position) for p in params] == [
        ("first", "positional", 0),
        ("second", "positional", 1),
        ("verbose", "flag", None),
    ]


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("### a (required, positional position 0)\n### b (required, positional position 0)\n", "share one"),
        ("### x\n### --x (optional, named parameter)\n", "more than once"),
        ("### LD_PRELOAD (optional, env var)\n", "may not be set"),
        ("### PYTHONPATH (optional, env var)\n", "may not be set"),
        ("### class (required, positional position 0)\n", "not usable"),
    ],
)
def test_parameter_errors(section: str, message: str) -> None:
    with pytest.raises(SkillParseError, match=message):
        parse_parameters(section)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("Default timeout: 60 seconds", 60),
        ("600 seconds", 600),
        ("2 minutes", 120),
        ("1.5 s", 1.5),
        ("none given", None),
    ],
)
def test_timeout_section(text: str, seconds: float | None) -> None:
    assert parse_timeout(text) == seconds


def test_executable_skill_detection(tmp_path: Path) -> None:
    folder = tmp_path / "exe"
    write(folder, "---\nname: exe\ndescription: d\n---\n## Usage\n\nscripts/run.sh x\n\n## Parameters\n")
    (folder / "scripts").mkdir()
    for name in ("run.sh", "helper.sh", "_private.py", "notes.txt"):
        (folder / "scripts" / name).write_text("")
    skill = parse_skill_md(str(folder / "SKILL.md"))
    # Usage names run.sh, so helper.sh is a helper; _private and non-scripts never count.
    assert [Path(s).name for s in skill.scripts] == ["run.sh"]

    plain = tmp_path / "plain"
    write(plain, "---\nname: plain\ndescription: d\n---\nRun scripts/tool.py yourself.\n")
    (plain / "scripts").mkdir()
    (plain / "scripts" / "tool.py").write_text("")
    assert not parse_skill_md(str(plain / "SKILL.md")).executable  # no Parameters, no sandbox key
