"""One persona module: persona file or shipped name -> loop section -> brain + toolboxes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ovos_agentic_loop.errors import ConfigError, PluginNotFound
from ovos_agentic_loop.personas import (
    Persona,
    PersonaError,
    build_engine,
    find_persona,
    loop_plan,
    shipped_personas,
)

REPO = Path(__file__).resolve().parent.parent
REPO_PERSONAS = sorted(p.stem for p in (REPO / "personas").glob("*.json"))


def test_every_repository_persona_is_shipped_in_the_package() -> None:
    shipped = shipped_personas()
    assert sorted(shipped) == REPO_PERSONAS
    for name, entry in shipped.items():
        assert json.loads(entry.read_text()) == json.loads((REPO / "personas" / f"{name}.json").read_text())


def test_a_shipped_persona_is_found_by_name_from_any_folder(tmp_path: Path) -> None:
    persona = find_persona("researcher", cwd=tmp_path)
    assert persona.source == "shipped:researcher"
    assert persona.handler == "ovos-react-loop"


def test_a_path_and_a_local_personas_folder_come_before_the_shipped_ones(tmp_path: Path) -> None:
    (tmp_path / "personas").mkdir()
    (tmp_path / "personas" / "researcher.json").write_text('{"name": "mine", "handlers": ["x"]}')
    assert find_persona("researcher", cwd=tmp_path).name == "mine"
    assert find_persona("researcher.json", cwd=tmp_path).name == "mine"
    direct = tmp_path / "elsewhere.json"
    direct.write_text('{"name": "direct", "solvers": ["y"]}')
    assert find_persona(str(direct)).handler == "y"  # ovos-persona's legacy 'solvers' key


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "a persona is a JSON object"),
        ('{"name": "x"}', "non-empty 'handlers' list"),
        ('{"handlers": [1]}', "non-empty 'handlers' list"),
    ],
)
def test_a_bad_persona_file_says_what_is_wrong(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(PersonaError, match=fragment):
        find_persona(str(path))


def test_a_missing_persona_lists_where_it_looked_and_the_shipped_names(tmp_path: Path) -> None:
    with pytest.raises(PersonaError) as err:
        find_persona("nope", cwd=tmp_path)
    message = str(err.value)
    assert str(tmp_path / "personas" / "nope.json") in message
    assert "local-assistant" in message and "researcher" in message


def test_the_handler_section_is_what_ovos_persona_passes() -> None:
    assert Persona("x", {"handlers": ["a"]}).handler_section == {"enabled": True}
    assert Persona("x", {"handlers": ["a"], "a": {"k": 1}}).handler_section == {"k": 1}


@pytest.mark.parametrize("name", REPO_PERSONAS)
def test_the_plan_is_what_the_engine_loads(name: str) -> None:
    from ovos_plugin_manager.agents import load_chat_plugin

    from ovos_agentic_loop.testing import ScriptedBrain

    persona = find_persona(name)
    plan = loop_plan(persona.handler, persona.handler_section)
    assert plan is not None
    section = persona.handler_section
    assert plan.brain == section.get("brain", "ovos-openai-brain")
    assert plan.brain_section == section.get(plan.brain, {})
    assert list(plan.toolbox_sections) == section["toolboxes"]
    engine = load_chat_plugin(persona.handler)(config={**section, "warm_up": False}, brain=ScriptedBrain())
    assert engine._plan.brain == plan.brain and engine._plan.toolbox_sections == plan.toolbox_sections
    assert engine.settings.mode == plan.settings.mode
    assert sorted(t.toolbox_id for t in engine.toolboxes) == sorted(plan.toolbox_sections)


def test_the_native_loop_plans_its_own_default_mode() -> None:
    plan = loop_plan("ovos-native-toolcall-loop", {})
    assert plan is not None and plan.settings.mode == "native" and plan.brain == "ovos-openai-brain"


def test_a_handler_that_is_not_one_of_our_loops_has_no_plan() -> None:
    assert loop_plan("ovos-openai-brain", {"api_url": "http://127.0.0.1:1/v1"}) is None
    assert loop_plan("no-such-plugin", {}) is None


def test_a_bad_loop_section_is_the_engines_own_error() -> None:
    with pytest.raises(ConfigError, match="max_iterations"):
        loop_plan("ovos-react-loop", {"max_iterations": True})


def test_build_engine_names_a_missing_handler() -> None:
    with pytest.raises(PluginNotFound, match=r"'no-such-engine' is not installed.*ovos-react-loop"):
        build_engine(Persona("p.json", {"handlers": ["no-such-engine"]}))
