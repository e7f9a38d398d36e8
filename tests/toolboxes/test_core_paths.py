"""One path rule for every toolbox: '~' means the same to the shell and to the filesystem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop_toolboxes._core.errors import PathRefused, ToolCallError


def refusal(toolbox: Any, tool: str, args: dict[str, Any]) -> BaseException:
    with pytest.raises(RuntimeError) as excinfo:
        toolbox.call_tool(tool, args)
    cause = excinfo.value.__cause__
    assert isinstance(cause, ToolCallError), repr(cause)
    return cause


@pytest.mark.parametrize("path", ["~", "~/", "~root", "..", "/etc"])
def test_the_same_paths_are_refused_by_every_toolbox(tmp_path: Path, path: str) -> None:
    (tmp_path / "skills" / "s").mkdir(parents=True)
    (tmp_path / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: A skill.\n---\nBody.\n")
    plugins = find_toolbox_plugins()
    files = plugins["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})
    shell = plugins["ovos-shell-tools"](config={"allow_shell": True, "root_path": str(tmp_path)})
    skills = plugins["ovos-skill-md-toolbox"](
        config={
            "skills_paths": [str(tmp_path / "skills")],
            "user_skills_path": None,
            "use_entry_points": False,
        }
    )
    assert isinstance(refusal(files, "list_directory", {"path": path}), PathRefused)
    assert "outside the allowed folder" in str(
        refusal(shell, "run_command", {"command": "pwd", "cwd": path})
    ) or ("'~'" in str(refusal(shell, "run_command", {"command": "pwd", "cwd": path})))
    assert "outside the skill folder" in str(refusal(skills, "read_skill_file", {"skill": "s", "path": path}))


def test_a_refused_path_is_still_a_permission_error(tmp_path: Path) -> None:
    files = find_toolbox_plugins()["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})
    assert isinstance(refusal(files, "read_file", {"path": "../x"}), PermissionError)
