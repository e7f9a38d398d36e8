"""Injection and runaway attempts against executable skills."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from processes import pid_alive

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError

SKILL = """\
---
name: probe
description: Print its argv as JSON.
should_run_in_sandbox: main
---
## Parameters

### value (required, positional position 0)
**Type**: `str`
### --name (optional, named parameter)
**Type**: `str`
### --danger (optional, flag)
**Type**: `bool`
"""

SCRIPT = """\
import json, sys
if "--danger" in sys.argv:
    open("DANGER", "w").write("set")
print(json.dumps(sys.argv[1:]))
"""


def make_box(root: Path, **config: Any):
    config = {"skills_paths": [str(root)], "user_skills_path": None, "use_entry_points": False, **config}
    return find_toolbox_plugins()["ovos-skill-md-toolbox"](config=config)


def skill(root: Path, skill_md: str = SKILL, script: str = SCRIPT, suffix: str = ".py") -> Path:
    folder = root / "probe"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md)
    (folder / "scripts" / f"probe{suffix}").write_text(script)
    return folder


@pytest.mark.parametrize(
    "value",
    [
        "x; rm -rf victim",
        "$(rm -rf victim)",
        "`rm -rf victim`",
        "x && rm -rf victim",
        "x | rm -rf victim",
        "x\nrm",
    ],
)
def test_shell_metacharacters_are_data(tmp_path: Path, value: str) -> None:
    work = tmp_path / "work"
    (work / "victim").mkdir(parents=True)
    skill(tmp_path / "skills")
    box = make_box(tmp_path / "skills", root_path=str(work))
    assert box.call_tool("probe", {"value": value, "name": value}).result == [value, "--name", value]
    assert (work / "victim").is_dir()


@pytest.mark.parametrize("suffix", [".py", ".sh"])
def test_metacharacters_are_data_in_bash_scripts_too(tmp_path: Path, suffix: str) -> None:
    work = tmp_path / "work"
    (work / "victim").mkdir(parents=True)
    script = SCRIPT if suffix == ".py" else "printf '%s\\n' \"$@\"\n"
    skill(tmp_path / "skills", script=script, suffix=suffix)
    out = make_box(tmp_path / "skills", root_path=str(work)).call_tool("probe", {"value": "$(rm -rf victim)"})
    assert "$(rm -rf victim)" in (out.stdout or str(out.result))
    assert (work / "victim").is_dir()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"value": "--danger"},
        {"value": "-rf"},
        {"value": "ok", "name": "--danger"},
        {"value": "x\x00y"},
    ],
)
def test_option_injection_is_refused(tmp_path: Path, kwargs: dict[str, str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    skill(tmp_path / "skills")
    with pytest.raises(RuntimeError) as excinfo:
        make_box(tmp_path / "skills", root_path=str(work)).call_tool("probe", kwargs)
    assert isinstance(excinfo.value.__cause__, ToolCallError)
    assert "may not start with '-'" in str(excinfo.value.__cause__) or "NUL" in str(excinfo.value.__cause__)
    assert not (work / "DANGER").exists()


def test_timeout_from_the_skill_kills_the_whole_group(tmp_path: Path) -> None:
    skill_md = SKILL.replace(
        "---\n## Parameters", "---\n## Timeout\n\nDefault timeout: 1 seconds\n\n## Parameters"
    )
    script = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen(['sleep', '100'])\n"
        "open(sys.argv[1], 'w').write(str(p.pid))\n"
        "time.sleep(100)\n"
    )
    skill(tmp_path / "skills", skill_md=skill_md, script=script)
    work = tmp_path / "work"  # the sandbox lets a script write only here
    work.mkdir()
    pidfile = work / "pid"
    box = make_box(tmp_path / "skills", root_path=str(work))
    started = time.monotonic()
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("probe", {"value": str(pidfile)})
    assert time.monotonic() - started < 4
    assert "did not finish within 1 seconds and was killed" in str(excinfo.value.__cause__)
    assert not pid_alive(int(pidfile.read_text()))


def test_max_timeout_caps_the_skill_timeout(tmp_path: Path) -> None:
    skill_md = SKILL.replace("---\n## Parameters", "---\n## Timeout\n\n600 seconds\n\n## Parameters")
    skill(tmp_path / "skills", skill_md=skill_md, script="import time\ntime.sleep(100)\n")
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="probe"):
        make_box(tmp_path / "skills", max_timeout=1).call_tool("probe", {"value": "x"})
    assert time.monotonic() - started < 4


def test_output_flood_is_capped(tmp_path: Path) -> None:
    skill(tmp_path / "skills", script="import sys\nsys.stdout.write('z' * 5_000_000)\n")
    out = make_box(tmp_path / "skills", max_output_bytes=2000).call_tool("probe", {"value": "x"})
    assert out.truncated and len(out.stdout) < 2300 and "5000000 bytes in total" in out.stdout


def test_env_parameter_cannot_be_a_loader_variable(tmp_path: Path, ovos_log) -> None:
    skill_md = SKILL + "### LD_PRELOAD (optional, env var)\n**Type**: `str`\n"
    skill(tmp_path / "skills", skill_md=skill_md)
    box = make_box(tmp_path / "skills")
    assert "probe" not in box.tools  # the script is not offered at all
    assert any("LD_PRELOAD" in w for w in ovos_log.at("warning"))


def test_symlinked_script_leaving_the_folder_is_not_run(tmp_path: Path) -> None:
    folder = skill(tmp_path / "skills")
    outside = tmp_path / "evil.py"
    outside.write_text("print('evil')\n")
    (folder / "scripts" / "probe.py").unlink()
    (folder / "scripts" / "probe.py").symlink_to(outside)
    assert "probe" not in make_box(tmp_path / "skills").tools


# --- found in the adversarial audit ----------------------------------------------------------

BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9)
)


def plain_skill(root: Path, name: str, skill_md: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(skill_md)


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "frontmatter",
    [
        # str() of the name walked 9**9 shared list items: the toolbox hung while listing tools.
        BILLION_LAUGHS + "name: *j\ndescription: bomb\n",
        BILLION_LAUGHS + "name: bomb\ndescription: bomb\nshould_run_in_sandbox: *j\n",
        # PyYAML's composer recursed until RecursionError, which escaped and broke every skill.
        "name: deep\ndescription: deep\nx: " + "[" * 3000 + "]" * 3000 + "\n",
        "name: [not, text]\ndescription: a list as a name\n",
        "name: huge\ndescription: " + "x" * (2 * 1024 * 1024) + "\n",
    ],
    ids=["laughs-in-name", "laughs-in-sandbox", "deep-nesting", "list-name", "huge-file"],
)
def test_hostile_frontmatter_skips_one_skill_quickly(tmp_path: Path, frontmatter: str, ovos_log) -> None:
    root = tmp_path / "skills"
    plain_skill(root, "good", "---\nname: good\ndescription: a fine skill\n---\nDo good.\n")
    plain_skill(root, "evil", "---\n" + frontmatter + "---\nbody\n")
    started = time.monotonic()
    box = make_box(root)
    listed = box.call_tool("list_skills", {})
    assert time.monotonic() - started < 3
    assert [s.name for s in listed.skills] == ["good"]
    assert any("evil" in w for w in ovos_log.at("warning"))


def test_env_parameter_cannot_be_path(tmp_path: Path, ovos_log) -> None:
    # PATH=<a folder the model writes to> would let it choose every program the script calls by
    # name, and the 'bash' that runs a .sh script too.
    for name in ("PATH", "GIT_SSH_COMMAND", "SKILL_DIR", "PERL5OPT", "NODE_OPTIONS"):
        root = tmp_path / name
        skill(root, skill_md=SKILL + f"### {name} (optional, env var)\n**Type**: `str`\n")
        assert "probe" not in make_box(root).tools, name
        assert any(name in w for w in ovos_log.at("warning"))


def test_read_skill_file_cannot_follow_a_parent_link_swapped_in_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The link check and the open were separate steps, and only the LAST component was opened
    # with O_NOFOLLOW: a parent folder replaced by a link in between was followed out.
    root = tmp_path / "skills"
    plain_skill(root, "reader", "---\nname: reader\ndescription: reads\n---\nRead ref/notes.md.\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.md").write_text("the secret\n")
    (root / "reader" / "ref").symlink_to(outside, target_is_directory=True)
    box = make_box(root)
    assert "reader" in [s.name for s in box.call_tool("list_skills", {}).skills]
    # the race: the link check passes, then the path is swapped
    monkeypatch.setattr("ovos_agentic_loop_toolboxes.skill_md.toolbox.os.path.islink", lambda path: False)
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("read_skill_file", {"skill": "reader", "path": "ref/notes.md"})
    assert isinstance(excinfo.value.__cause__, ToolCallError)
    assert "secret" not in str(excinfo.value.__cause__)


def test_read_skill_file_does_not_block_on_a_fifo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "skills"
    plain_skill(root, "reader", "---\nname: reader\ndescription: reads\n---\nRead pipe.md.\n")
    os.mkfifo(root / "reader" / "pipe.md")
    box = make_box(root)
    box.call_tool("list_skills", {})
    # As if a regular file had been swapped for the FIFO after the isfile check.
    monkeypatch.setattr("ovos_agentic_loop_toolboxes.skill_md.toolbox.os.path.isfile", lambda path: True)
    started = time.monotonic()
    with pytest.raises(RuntimeError) as excinfo:
        box.call_tool("read_skill_file", {"skill": "reader", "path": "pipe.md"})
    assert time.monotonic() - started < 2
    assert isinstance(excinfo.value.__cause__, ToolCallError)


def test_script_swapped_for_a_link_after_discovery_is_not_run(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    folder = skill(tmp_path / "skills")
    box = make_box(tmp_path / "skills", root_path=str(work), refresh_interval=3600)
    assert "probe" in box.tools
    evil = tmp_path / "evil.py"
    evil.write_text("open('PWNED', 'w').write('x')\n")
    (folder / "scripts" / "probe.py").unlink()
    (folder / "scripts" / "probe.py").symlink_to(evil)
    with pytest.raises(RuntimeError, match="probe"):
        box.call_tool("probe", {"value": "x"})
    assert not (work / "PWNED").exists()
