"""Configuration errors and loading failures are loud, named and say what to do."""

from __future__ import annotations

import pytest
from engine_helpers import user
from ovos_plugin_manager.agents import load_chat_plugin

from ovos_agentic_loop.errors import ConfigError, PluginNotFound
from ovos_agentic_loop.testing import ScriptedBrain


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"max_iterations": "many"}, "max_iterations"),
        ({"max_iterations": 0}, "max_iterations"),
        ({"mode": "telepathy"}, "mode"),
        ({"tool_timeout": -1}, "tool_timeout"),
        ({"toolboxes": "ovos-math-tools"}, "toolboxes"),
    ],
)
def test_wrong_type_or_value_is_a_clear_error_at_construction(config: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_chat_plugin("ovos-react-loop")(config=config, brain=ScriptedBrain())
    assert fragment in str(err.value)
    assert "ovos-react-loop: invalid configuration" in str(err.value)


def test_unknown_key_is_a_warning_naming_it(ovos_log) -> None:
    load_chat_plugin("ovos-react-loop")(config={"max_iteration": 3, "enabled": True}, brain=ScriptedBrain())
    warnings = ovos_log.at("warning")
    assert any("unknown config key 'max_iteration'" in w for w in warnings)
    assert not any("'enabled'" in w for w in warnings)  # ovos-persona adds it to every section


def test_defaults() -> None:
    engine = load_chat_plugin("ovos-react-loop")(config=None, brain=ScriptedBrain())
    s = engine.settings
    assert (s.mode, s.max_iterations, s.tool_timeout, s.time_budget) == ("auto", 10, 30.0, 120.0)
    assert (
        load_chat_plugin("ovos-native-toolcall-loop")(config={}, brain=ScriptedBrain()).settings.mode
        == "native"
    )


def test_missing_brain_names_it_and_lists_the_installed_ones() -> None:
    with pytest.raises(PluginNotFound) as err:
        load_chat_plugin("ovos-react-loop")(config={"brain": "ovos-openai-plugin"})
    message = str(err.value)
    assert "'ovos-openai-plugin' is not an installed chat plugin" in message
    assert "ovos-openai-brain" in message  # listed as installed
    assert "entry-point name" in message and "not a package name" in message


def test_missing_and_empty_toolboxes_are_warnings_by_name(ovos_log, tmp_path) -> None:
    engine = load_chat_plugin("ovos-react-loop")(
        config={
            "toolboxes": ["my-ops-tools", "ovos-skill-md-toolbox", "ovos-filesystem-tools"],
            "ovos-skill-md-toolbox": {"skills_paths": [str(tmp_path)], "enabled_skills": None},
            "ovos-filesystem-tools": {"root_path": str(tmp_path)},
        },
        brain=ScriptedBrain(["ok"]),
    )
    warnings = "\n".join(ovos_log.at("warning"))
    assert "toolbox 'my-ops-tools' is not installed" in warnings
    assert "installed toolboxes:" in warnings and "ovos-math-tools" in warnings
    assert [tb.toolbox_id for tb in engine.toolboxes][-1] == "ovos-filesystem-tools"
    assert engine.continue_chat(user("hi")).content == "ok"


def test_toolbox_sections_reach_the_toolboxes(tmp_path) -> None:
    engine = load_chat_plugin("ovos-react-loop")(
        config={
            "toolboxes": ["ovos-filesystem-tools"],
            "ovos-filesystem-tools": {"root_path": str(tmp_path)},
        },
        brain=ScriptedBrain(),
    )
    (toolbox,) = engine.toolboxes
    assert toolbox.config["root_path"] == str(tmp_path)


def test_default_brain_is_the_projects_own_and_loaded_lazily() -> None:
    engine = load_chat_plugin("ovos-react-loop")(
        config={"ovos-openai-brain": {"api_url": "http://127.0.0.1:9/v1"}}
    )
    assert engine._brains.current is None  # constructing a persona does not build a client
    brain = engine.brain
    assert type(brain).__name__ == "OpenAIBrain"
    assert brain.config["api_url"] == "http://127.0.0.1:9/v1"
