"""Persona sections are parsed strictly: a wrong JSON type is an error naming the key, never a guess."""

from __future__ import annotations

from typing import Any

import pytest
from ovos_plugin_manager.agents import load_chat_plugin
from pydantic import ValidationError

from ovos_agentic_loop.brain import BrainConfig, OpenAIBrain
from ovos_agentic_loop.errors import BrainConfigError, ConfigError
from ovos_agentic_loop.testing import ScriptedBrain
from ovos_agentic_loop_settings import StrictSection, config_errors, describe_errors, require_mapping


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"warm_up": "false"}, "warm_up"),  # bool("false") would be True
        ({"max_iterations": True}, "max_iterations"),  # lax pydantic reads True as 1
        ({"max_iterations": "5"}, "max_iterations"),
        ({"caller_toolboxes": "no"}, "caller_toolboxes"),
        ({"time_budget": "60"}, "time_budget"),
        ({"brain": "ovos-openai-brain", "ovos-openai-brain": "http://127.0.0.1:1/v1"}, "'ovos-openai-brain'"),
        ({"ovos-openai-brain": ["http://x"]}, "'ovos-openai-brain' section"),  # the default brain's section
        ({"toolboxes": ["ovos-math-tools"], "ovos-math-tools": "on"}, "'ovos-math-tools' section"),
    ],
)
def test_the_loop_section_refuses_wrong_types_by_name(config: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_chat_plugin("ovos-react-loop")(config=config, brain=ScriptedBrain())
    assert fragment in str(err.value)
    assert "ovos-react-loop: invalid configuration" in str(err.value)


def test_a_loop_section_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"'ovos-react-loop' section must be a JSON object"):
        load_chat_plugin("ovos-react-loop")(config="ovos-openai-brain", brain=ScriptedBrain())


def test_integers_still_fit_float_keys_and_null_sections_are_empty() -> None:
    engine = load_chat_plugin("ovos-react-loop")(
        config={"tool_timeout": 5, "time_budget": 30, "ovos-openai-brain": None}, brain=ScriptedBrain()
    )
    assert engine.settings.tool_timeout == 5.0 and engine.settings.plugin_section("ovos-openai-brain") == {}


@pytest.mark.parametrize(
    ("section", "fragment"),
    [
        ({"timeout": "60"}, "timeout"),
        ({"max_retries": True}, "max_retries"),
        ({"temperature": "0.2"}, "temperature"),
        ({"api_url": 8091}, "api_url"),
        ({"extra_body": "cache_prompt"}, "extra_body"),
    ],
)
def test_the_brain_section_refuses_wrong_types_by_name(section: dict[str, Any], fragment: str) -> None:
    with pytest.raises(BrainConfigError, match=fragment):
        BrainConfig.parse(section)


def test_a_brain_section_that_is_a_url_string_is_refused() -> None:
    with pytest.raises(BrainConfigError, match="ovos-openai-brain section must be a JSON object"):
        OpenAIBrain("http://127.0.0.1:8091/v1")  # type: ignore[arg-type]


def test_the_brain_still_takes_what_json_writes() -> None:
    settings = BrainConfig.parse({"temperature": 0, "timeout": 120, "stop": "END", "max_tokens": 64})
    assert (settings.temperature, settings.timeout, settings.stop) == (0.0, 120.0, ["END"])


class _Demo(StrictSection):
    flag: bool = False
    count: int = 1


def test_the_shared_helper_names_every_bad_key() -> None:
    with pytest.raises(ValidationError) as err:
        _Demo.model_validate({"flag": "false", "count": True})
    message = describe_errors(err.value)
    assert "key 'flag':" in message and "(got a string 'false')" in message and "key 'count':" in message
    assert require_mapping(None, what="x") == {}
    with pytest.raises(TypeError, match=r"the 'tb' section must be a JSON object.*got str 'on'"):
        require_mapping("on", what="the 'tb' section")


@pytest.mark.parametrize("error", [ValueError, RuntimeError])
def test_config_errors_is_the_one_wording_and_keeps_the_cause(error: type[Exception]) -> None:
    with pytest.raises(error) as err, config_errors("owner-x", error):
        _Demo.model_validate({"flag": "false"})
    assert "owner-x: invalid configuration: key 'flag':" in str(err.value)
    assert isinstance(err.value.__cause__, ValidationError)
    not_an_object = "owner-x: invalid configuration: the 'tb' section must be"
    with pytest.raises(error, match=not_an_object), config_errors("owner-x", error):
        require_mapping([], what="the 'tb' section")
    # Anything else is a bug and passes through unchanged.
    with pytest.raises(ZeroDivisionError), config_errors("owner-x", error):
        _ = 1 / 0


def test_a_toolbox_section_the_toolbox_refuses_is_an_error_naming_it() -> None:
    config = {
        "toolboxes": ["ovos-shell-tools"],
        "ovos-shell-tools": {"allow_shell_syntax": True, "allowed_commands": ["date"]},
    }
    refused = r"toolbox 'ovos-shell-tools' refuses its section: .*allowed_commands"
    with pytest.raises(ConfigError, match=refused):
        load_chat_plugin("ovos-react-loop")(config=config, brain=ScriptedBrain())


def test_a_loops_own_keys_are_strict_too() -> None:
    from ovos_plugin_manager.agents import load_chat_plugin

    critic = load_chat_plugin("ovos-critic-loop")
    assert critic is not None
    with pytest.raises(ConfigError, match=r"key 'verify_with_tools'.*got a string 'false'"):
        critic(config={"verify_with_tools": "false"})
