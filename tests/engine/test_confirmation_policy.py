"""Ask before acting, the policy alone: which tools need a yes, refused settings, and the error
when the yes/no engine is missing. None of these classifies a reply, so they run without
ovos-yes-no-plugin (a plain ``pip install -e '.[test]'``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engine_helpers import engine_with
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop.testing import ScriptedBrain, tool_call
from ovos_agentic_loop_toolboxes.filesystem import FileSystemToolBox
from ovos_agentic_loop_toolboxes.shell import ShellToolBox

NOTE = {"path": "reminder.txt", "content": "call mom at six"}


def files(root: Path, **config: Any) -> FileSystemToolBox:
    return FileSystemToolBox(config={"root_path": str(root), "allow_write": True, **config})


def written(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir())


def test_without_a_policy_nothing_is_asked(tmp_path: Path) -> None:
    brain = ScriptedBrain([tool_call("write_file", **NOTE), "I wrote the note."])
    engine = engine_with(brain, [files(tmp_path)])
    assert (
        engine.continue_chat([AgentMessage(MessageRole.USER, "Write a note.")]).content == "I wrote the note."
    )
    assert written(tmp_path) == ["reminder.txt"]


def test_our_toolboxes_say_which_tools_change_something(tmp_path: Path) -> None:
    from ovos_agentic_loop_settings import TOOL_ANNOTATIONS_KEY

    notes = {t["name"]: t["argument_schema"][TOOL_ANNOTATIONS_KEY] for t in files(tmp_path).tool_json_list}
    assert notes["write_file"]["readOnlyHint"] is False and notes["write_file"]["destructiveHint"] is True
    assert all(notes[name]["readOnlyHint"] for name in notes if name != "write_file")
    shell = ShellToolBox(config={"allow_shell": True, "root_path": str(tmp_path)})
    hints = {
        t["name"]: t["argument_schema"][TOOL_ANNOTATIONS_KEY]["readOnlyHint"] for t in shell.tool_json_list
    }
    assert hints == {"run_command": False, "get_system_info": True}


def test_an_executable_skill_script_counts_as_a_side_effect() -> None:
    from ovos_agentic_loop_settings import TOOL_ANNOTATIONS_KEY
    from ovos_agentic_loop_toolboxes.skill_md import SkillMDToolBox

    skills = SkillMDToolBox(config={"enabled_skills": ["text-stats"]})
    notes = {t["name"]: t["argument_schema"][TOOL_ANNOTATIONS_KEY] for t in skills.tool_json_list}
    assert notes.pop("text_stats")["readOnlyHint"] is False
    assert notes and all(note["readOnlyHint"] for note in notes.values())  # the instructions are only read


@pytest.mark.parametrize(
    ("key", "value"),
    [("confirm_tools", "write_file"), ("confirm_side_effects", "true"), ("confirm_key", "short")],
)
def test_bad_policy_values_are_refused_by_key(key: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=key):
        engine_with(ScriptedBrain([]), [], **{key: value})


def test_a_bad_toolbox_confirm_is_refused_by_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="confirm"):
        files(tmp_path, confirm="yes")


def test_a_policy_without_the_yes_no_engine_is_an_error_at_construction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ovos_plugin_manager.agents as opm_agents

    monkeypatch.setattr(opm_agents, "load_yesno_plugin", lambda _name: None)
    with pytest.raises(ConfigError, match="pip install ovos-yes-no-plugin"):
        engine_with(ScriptedBrain([]), [files(tmp_path)], confirm_tools=["write_file"])
    with pytest.raises(ConfigError, match="ovos-yes-no-plugin"):
        engine_with(ScriptedBrain([]), [files(tmp_path, confirm=True)])
