"""Strict settings for every bundled toolbox, read by the one toolbox core they share.

Each toolbox is built as a persona builds it (``cls(config=section)`` from the entry point), so a
bad section must raise from the constructor: OPM's ``ToolBox.__init__`` hides errors raised later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError

TOOLBOXES = (
    "ovos-filesystem-tools",
    "ovos-shell-tools",
    "ovos-clock-tools",
    "ovos-math-tools",
    "ovos-skill-md-toolbox",
)


def build(name: str, **config: Any):
    if name == "ovos-skill-md-toolbox":
        config.setdefault("user_skills_path", None)
        config.setdefault("use_entry_points", False)
    return find_toolbox_plugins()[name](config=config)


@pytest.mark.parametrize(
    ("name", "key", "value"),
    [
        ("ovos-shell-tools", "allow_shell", "false"),
        ("ovos-shell-tools", "allow_shell_syntax", "yes"),
        ("ovos-shell-tools", "max_timeout", "30"),
        ("ovos-shell-tools", "allowed_commands", "ls"),
        ("ovos-shell-tools", "sandbox", 1),
        ("ovos-filesystem-tools", "allow_write", "false"),
        ("ovos-filesystem-tools", "max_read_bytes", "100"),
        ("ovos-clock-tools", "timezone", 5),
        ("ovos-skill-md-toolbox", "allow_scripts", "false"),
        ("ovos-skill-md-toolbox", "max_timeout", True),
        ("ovos-skill-md-toolbox", "use_entry_points", "no"),
    ],
)
def test_a_wrong_type_is_an_error_naming_the_toolbox_and_key(name: str, key: str, value: Any) -> None:
    with pytest.raises(ToolboxConfigError) as excinfo:
        build(name, **{key: value})
    message = str(excinfo.value)
    assert message.startswith(f"{name}:") and repr(key) in message, message


def test_the_string_false_never_turns_the_shell_on(tmp_path: Path) -> None:
    # bool("false") is True: read loosely, this would enable the shell.
    with pytest.raises(ValueError, match="allow_shell"):
        build("ovos-shell-tools", allow_shell="false", root_path=str(tmp_path))


@pytest.mark.parametrize("name", TOOLBOXES)
def test_a_section_that_is_not_an_object_is_refused(name: str) -> None:
    refused = f"{name}: invalid configuration: its config section must be a JSON object"
    with pytest.raises(ToolboxConfigError, match=refused):
        find_toolbox_plugins()[name](config=["allow_shell"])


@pytest.mark.parametrize("name", TOOLBOXES)
def test_unknown_keys_are_warned_by_name(name: str, ovos_log, tmp_path: Path) -> None:
    extra = {"root_path": str(tmp_path)} if name in ("ovos-shell-tools", "ovos-filesystem-tools") else {}
    build(name, allow_shel=True, enabled=True, **extra)
    warnings = " ".join(ovos_log.at("warning"))
    assert "allow_shel" in warnings and name in warnings
    assert "'enabled'" not in warnings  # persona loaders add it: accepted quietly


def test_bad_root_path_and_zone_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(ToolboxConfigError, match="ovos-shell-tools: root_path"):
        build("ovos-shell-tools", root_path=str(tmp_path / "missing"))
    with pytest.raises(ToolboxConfigError, match="ovos-filesystem-tools: root_path"):
        build("ovos-filesystem-tools", root_path=str(tmp_path / "missing"))
    with pytest.raises(ToolboxConfigError, match="ovos-clock-tools: key 'timezone'"):
        build("ovos-clock-tools", timezone="Mars/Olympus")


def test_valid_sections_still_load(tmp_path: Path) -> None:
    shell = build("ovos-shell-tools", allow_shell=True, max_timeout=5, root_path=str(tmp_path))
    assert shell.settings.allow_shell is True and shell.settings.max_timeout == 5.0
    assert list(build("ovos-filesystem-tools", root_path=str(tmp_path), allow_write=True).tools)
    assert list(build("ovos-math-tools").tools) and list(build("ovos-clock-tools", timezone="UTC").tools)


def test_process_timeouts_default_below_the_loops_tool_timeout(tmp_path: Path) -> None:
    # The loop stops waiting at tool_timeout and tells the model the call is over; only the toolbox
    # can kill the program, so its own cap must come first (it was 120 s for the shell, 300 for skills).
    tool_timeout = LoopConfig().tool_timeout
    shell = build("ovos-shell-tools", allow_shell=True, root_path=str(tmp_path))
    skills = build("ovos-skill-md-toolbox")
    assert shell.settings.max_timeout < tool_timeout
    assert skills.script_settings.max_timeout < tool_timeout
    assert skills.script_settings.default_timeout <= skills.script_settings.max_timeout
    assert (
        shell.tools["run_command"].argument_schema.model_fields["timeout"].default
        <= shell.settings.max_timeout
    )


def test_diagnostics_describe_each_toolbox_for_doctor(tmp_path: Path) -> None:
    files = build("ovos-filesystem-tools", root_path=str(tmp_path)).diagnostics()
    assert files == [f"files under {tmp_path.resolve()}; write_file OFF (allow_write is false)"]
    assert build("ovos-clock-tools", timezone="europe/lisbon").diagnostics() == [
        "default time zone: Europe/Lisbon"
    ]
    assert build("ovos-shell-tools", root_path=str(tmp_path)).diagnostics() == [
        "run_command: OFF (allow_shell is false)"
    ]
    assert build("ovos-skill-md-toolbox", allow_scripts=False).diagnostics() == [
        "skill scripts: OFF (allow_scripts is false)"
    ]
