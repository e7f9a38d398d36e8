"""One config shape, both accepted: a toolbox's section inside the loop's section, or at
the persona's top level (the shape ovos-tool-adapters' README and ovos-persona-server's bridges use)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from installed_fakes import install_toolboxes
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput

from ovos_agentic_loop import _doctor as doctor
from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop.personas import Persona, PersonaError, build_engine, find_persona, loop_plan
from ovos_agentic_loop.testing import ScriptedBrain


class ConfiguredTools(ToolBox):
    """A toolbox registered as the entry point 'configured-tools'; it keeps the section it got."""

    def __init__(self, config: dict | None = None, bus: object = None) -> None:
        super().__init__("configured-tools", config, bus)

    def discover_tools(self) -> list[AgentTool]:
        return [AgentTool("noop", "Does nothing.", ToolArguments, ToolOutput, lambda _args: ToolOutput())]


class EmptyTools(ConfiguredTools):
    def discover_tools(self) -> list[AgentTool]:
        return []


@pytest.fixture(autouse=True)
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    install_toolboxes(monkeypatch, {"configured-tools": ConfiguredTools, "empty-tools": EmptyTools})


def top_level_persona(**loop: Any) -> dict[str, Any]:
    return {
        "name": "mcp-like",
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {"toolboxes": ["configured-tools"], **loop},
        "configured-tools": {"where": "top"},
    }


def test_a_top_level_section_reaches_the_toolbox_when_the_persona_is_known(ovos_log) -> None:
    engine = build_engine(Persona("p.json", top_level_persona()))
    (toolbox,) = engine.toolboxes
    assert toolbox.config == {"where": "top"}
    infos = "\n".join(ovos_log.at("info"))
    assert "toolbox 'configured-tools': section from the persona's top level" in infos


def test_the_loop_section_wins_over_the_top_level(ovos_log) -> None:
    data = top_level_persona(**{"configured-tools": {"where": "loop"}})
    engine = build_engine(Persona("p.json", data))
    (toolbox,) = engine.toolboxes
    assert toolbox.config == {"where": "loop"}
    infos = "\n".join(ovos_log.at("info"))
    assert "section from inside the 'ovos-react-loop' section" in infos
    assert "a section at the persona's top level too, not used" in infos


def test_the_engine_given_only_its_section_says_where_it_looked(ovos_log) -> None:
    """ovos-persona builds a handler as cls(config=persona[handler]): the top level is out of sight."""
    from ovos_plugin_manager.agents import load_chat_plugin

    engine = load_chat_plugin("ovos-react-loop")(
        config={"toolboxes": ["configured-tools"]}, brain=ScriptedBrain()
    )
    assert engine.toolboxes[0].config == {}
    infos = "\n".join(ovos_log.at("info"))
    assert "toolbox 'configured-tools': no section inside the 'ovos-react-loop' section" in infos
    assert "the persona's top level was not given to the loop" in infos


@pytest.mark.needs_package("ovos_persona")
def test_under_ovos_persona_a_top_level_section_is_out_of_sight_and_the_log_says_so(ovos_log) -> None:
    """The documented limit, through the real host: ovos-persona passes the loop its own section only."""
    from ovos_persona import Persona as OvosPersona

    data = top_level_persona()
    loaded = OvosPersona(data["name"], data)
    (engine,) = loaded.solvers.loaded_modules.values()
    assert engine.toolboxes[0].config == {}
    assert "the persona's top level was not given to the loop" in "\n".join(ovos_log.at("info"))
    loaded.solvers.shutdown()


def test_the_zero_tools_warning_says_where_it_looked(ovos_log) -> None:
    data = {"name": "x", "handlers": ["ovos-react-loop"], "ovos-react-loop": {"toolboxes": ["empty-tools"]}}
    engine = build_engine(Persona("p.json", data))
    assert engine.toolboxes == []
    (warning,) = [w for w in ovos_log.at("warning") if "empty-tools" in w]
    assert "ZERO tools" in warning
    assert "no section inside the 'ovos-react-loop' section nor at the persona's top level" in warning


def test_a_top_level_section_that_is_not_an_object_is_refused_by_name() -> None:
    data = top_level_persona()
    data["configured-tools"] = ["not", "an", "object"]
    with pytest.raises(ConfigError, match="'configured-tools' section at the persona's top level"):
        loop_plan("ovos-react-loop", data["ovos-react-loop"], persona=data)


def test_the_plan_carries_each_toolboxs_section_and_where_it_came_from() -> None:
    data = top_level_persona(toolboxes=["configured-tools", "empty-tools"])
    plan = loop_plan("ovos-react-loop", data["ovos-react-loop"], persona=data)
    assert plan is not None
    assert plan.toolbox_sections == {"configured-tools": {"where": "top"}, "empty-tools": {}}
    origins = {name: source.origin for name, source in plan.toolbox_sources.items()}
    assert origins == {"configured-tools": "persona", "empty-tools": "none"}


def test_doctor_shows_each_toolboxs_section_and_its_origin(tmp_path: Path) -> None:
    persona = find_persona(str(_write(tmp_path, top_level_persona(toolboxes=["configured-tools"]))))
    plan = loop_plan(persona.handler, persona.handler_section, persona=persona.data)
    assert plan is not None
    (check,) = doctor._toolbox_checks(plan)
    assert check.level == "warn"  # it works here, but not under ovos-persona
    rendered = check.render()
    assert "section {'where': 'top'} from the persona's top level" in rendered
    assert "ovos-persona" in check.fix and "inside the 'ovos-react-loop' section" in check.fix


def test_doctor_is_content_with_a_section_inside_the_loop(tmp_path: Path) -> None:
    data = top_level_persona(**{"configured-tools": {"where": "loop"}})
    del data["configured-tools"]
    plan = loop_plan("ovos-react-loop", data["ovos-react-loop"], persona=data)
    assert plan is not None
    (check,) = doctor._toolbox_checks(plan)
    assert check.level == "ok"
    assert "section {'where': 'loop'} from inside the 'ovos-react-loop' section" in check.render()


def test_a_persona_with_chat_module_instead_of_handlers_says_what_to_write(tmp_path: Path) -> None:
    """ovos-tool-adapters' README writes "chat_module"; ovos-persona reads only "handlers"."""
    data = {"name": "researcher", "chat_module": "ovos-react-loop", "toolboxes": ["ovos-math-tools"]}
    with pytest.raises(PersonaError) as caught:
        find_persona(str(_write(tmp_path, data)))
    message = str(caught.value)
    assert "'chat_module'" in message and '"handlers": ["ovos-react-loop"]' in message
    assert "'toolboxes'" in message and "inside" in message


def test_a_top_level_toolboxes_list_is_named_as_not_read(tmp_path: Path) -> None:
    data = {"name": "x", "handlers": ["ovos-react-loop"], "toolboxes": ["ovos-math-tools"]}
    with pytest.raises(PersonaError, match="'toolboxes' at the persona's top level is not read"):
        find_persona(str(_write(tmp_path, data)))


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "persona.json"
    path.write_text(json.dumps(data))
    return path
