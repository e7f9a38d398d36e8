"""ovos-agents-md-context-plugin through OPM's public API, and with the loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from optional_packages import require
from ovos_plugin_manager.agents import find_memory_plugins, load_chat_plugin, load_memory_plugin
from ovos_plugin_manager.templates.agents import AgentContextManager, AgentMessage, MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, tool_call

PLUGIN = "ovos-agents-md-context-plugin"


def plugin(**config: Any) -> AgentContextManager:
    cls = load_memory_plugin(PLUGIN)
    assert cls is not None, f"{PLUGIN} is not installed"
    return cls(config=config)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with AGENTS.md at its root and in a subfolder; the working folder is the subfolder."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# Repository rules\n\nAnswer in English.\n")
    sub = root / "service"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("# Service rules\n\nUse metric units.\n")
    monkeypatch.chdir(sub)
    return root


def test_entry_point_is_upstreams_and_an_agent_context_manager() -> None:
    assert PLUGIN in find_memory_plugins()
    cls = load_memory_plugin(PLUGIN)
    assert issubclass(cls, AgentContextManager)
    assert cls.__module__ == "ovos_agentic_loop.context.agents_md"
    assert cls.__name__ == "AgentsMDContextManager"


def test_working_folder_first_then_its_parents_up_to_the_repository(project: Path) -> None:
    prompt = plugin(agents_md_sources=[]).system_prompt
    assert prompt.index("Use metric units.") < prompt.index("Answer in English.")
    assert f"# AGENTS.md ({project / 'service' / 'AGENTS.md'})" in prompt


def test_outside_a_repository_only_the_working_folder_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "AGENTS.md").write_text("parent text")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "AGENTS.md").write_text("work text")
    monkeypatch.chdir(tmp_path / "work")
    prompt = plugin(agents_md_sources=[]).system_prompt
    assert "work text" in prompt and "parent text" not in prompt


def test_configured_files_and_folders_follow_in_order_each_file_once(project: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "AGENTS.md").write_text("Notes folder rules.")
    single = tmp_path / "team.md"
    single.write_text("Team rules.")
    p = plugin(agents_md_sources=[str(single), str(notes), str(project / "AGENTS.md")])

    prompt = p.system_prompt

    order = [
        prompt.index(t) for t in ("Use metric units.", "Answer in English.", "Team rules.", "Notes folder")
    ]
    assert order == sorted(order)
    assert prompt.count("Answer in English.") == 1  # the repository's file, reached twice, counts once


def test_the_personas_prompt_and_prefix_come_first(project: Path) -> None:
    p = plugin(agents_md_sources=[], system_prompt="You are Ana.", system_prompt_prefix="Project rules:")
    assert p.system_prompt.startswith("You are Ana.\n\nProject rules:\n\n# AGENTS.md (")


def test_working_folder_can_be_another_folder_or_off(project: Path, tmp_path: Path) -> None:
    assert "Answer in English." in plugin(agents_md_sources=[], working_folder=str(project)).system_prompt
    assert plugin(agents_md_sources=[], working_folder=None).system_prompt == ""


def test_installed_packages_agents_md_with_auto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Upstream's discovery: an AGENTS.md listed in an installed distribution's RECORD."""
    site = tmp_path / "site"
    (site / "weather_skill").mkdir(parents=True)
    (site / "weather_skill" / "AGENTS.md").write_text("# Weather\n\nSay temperatures in Celsius.\n")
    info = site / "weather_skill-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: weather-skill\nVersion: 1.0\n")
    (info / "RECORD").write_text("weather_skill/AGENTS.md,,\nweather_skill-1.0.dist-info/METADATA,,\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(tmp_path)

    assert "Say temperatures in Celsius." in plugin().system_prompt  # default sources: ["auto"]
    assert "Celsius" not in plugin(agents_md_sources=[]).system_prompt


def test_total_size_is_bounded_and_the_least_specific_file_is_cut(project: Path, ovos_log: Any) -> None:
    (project / "AGENTS.md").write_text("# Long\n\n" + "general rule line\n" * 2000)
    prompt = plugin(agents_md_sources=[], max_chars=1000).system_prompt
    assert len(prompt) <= 1000
    assert "Use metric units." in prompt  # the most specific file is whole
    assert prompt.endswith("[... cut: max_chars reached]")
    assert any("max_chars (1000) reached" in m for m in ovos_log.at("info"))


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x00\x01binary\x00", "binary"),
        ("Regras em portugu\u00eas".encode("latin-1"), "not UTF-8"),
    ],
)
def test_a_broken_file_is_skipped_with_a_warning_naming_it(
    project: Path, ovos_log: Any, content: bytes, reason: str
) -> None:
    broken = project / "AGENTS.md"
    broken.write_bytes(content)
    prompt = plugin(agents_md_sources=[]).system_prompt
    assert "Use metric units." in prompt  # the other file still counts
    assert any(str(broken) in w and reason in w for w in ovos_log.at("warning"))


def test_a_folder_named_agents_md_and_a_missing_source_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ovos_log: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    p = plugin(agents_md_sources=[str(tmp_path / "nope.md")])
    assert p.system_prompt == "" and p.system_prompt == ""
    warnings = [w for w in ovos_log.at("warning") if "nope.md" in w]
    assert len(warnings) == 1  # named once, not on every turn


def test_include_sections_keeps_matching_sections_with_subsections(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text(
        "Intro text.\n# Build\nrun make\n```sh\n# Style comment in code, not a heading\n```\n"
        "## Style of builds\nsub text\n# Style\nfour spaces\n## Naming\nsnake_case\n# Testing\ntox -e all\n"
    )
    prompt = plugin(
        agents_md_sources=[], working_folder=str(tmp_path), include_sections=["STYLE"]
    ).system_prompt
    assert "four spaces" in prompt and "snake_case" in prompt and "sub text" in prompt
    assert "run make" not in prompt and "tox -e all" not in prompt and "Intro text." not in prompt
    assert "Style comment in code" not in prompt  # a shell comment in a code block is not a heading


def test_an_edited_file_is_picked_up(project: Path) -> None:
    p = plugin(agents_md_sources=[])
    assert "Use metric units." in p.system_prompt
    target = project / "service" / "AGENTS.md"
    target.write_text("# Service rules\n\nUse imperial units, always.\n")
    assert "Use imperial units, always." in p.system_prompt


def test_bad_configuration_names_the_key() -> None:
    cls = load_memory_plugin(PLUGIN)
    with pytest.raises(ValueError, match="agents_md_sources"):
        cls(config={"agents_md_sources": "auto"})
    with pytest.raises(ValueError, match="max_chars"):
        cls(config={"max_chars": "8000"})
    # Worded like every other section (one wrapper): the key, what it got; not pydantic's raw loc.
    worded = r"ovos-agents-md-context-plugin: invalid configuration: key 'max_chars'"
    with pytest.raises(ValueError, match=worded):
        cls(config={"max_chars": "8000"})


def test_a_section_that_is_not_an_object_is_refused_by_name() -> None:
    # Not dict("auto")'s "dictionary update sequence element #0 has length 1", which names nothing.
    cls = load_memory_plugin(PLUGIN)
    with pytest.raises(ValueError, match=r"its config section must be a JSON object.*got str 'auto'"):
        cls(config="auto")


def test_conversation_context_and_bounded_history(project: Path) -> None:
    p = plugin(agents_md_sources=[], max_history=4)
    for i in range(3):
        p.update_history(
            [AgentMessage(MessageRole.USER, f"q{i}"), AgentMessage(MessageRole.ASSISTANT, f"a{i}")], "s1"
        )
    p.update_history([AgentMessage(MessageRole.USER, "unanswered")], "s1")

    messages = p.build_conversation_context("next question", "s1")

    assert messages[0].role == MessageRole.SYSTEM and "Use metric units." in messages[0].content
    assert [m.content for m in messages[1:]] == ["q2", "a2", "next question"]
    assert [m.content for m in p.build_conversation_context("hi", "other")[1:]] == ["hi"]


# -- with the loop ------------------------------------------------------------------------------------


def test_a_persona_naming_the_plugin_gets_agents_md_in_its_system_message(project: Path) -> None:
    persona = {
        "system_prompt": "You are a concise assistant.",
        "toolboxes": ["ovos-math-tools"],
        "context_plugins": [PLUGIN],
        PLUGIN: {"agents_md_sources": [], "include_sections": ["service"]},
    }
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="6*7"), "42."])
    engine = load_chat_plugin("ovos-react-loop")(config=persona, brain=brain)

    assert engine.continue_chat([AgentMessage(MessageRole.USER, "6 times 7?")]).content == "42."

    for call in brain.calls:  # every model call of the turn carries it, in ONE system message
        systems = [m for m in call.messages if m.role == MessageRole.SYSTEM]
        assert len(systems) == 1
        text = systems[0].content
        assert text.startswith("You are a concise assistant.")
        assert "Use metric units." in text and "Answer in English." not in text
    brain.assert_complete()


def test_ovos_persona_style_memory_module_messages_reach_the_model(project: Path) -> None:
    """ovos-persona calls build_conversation_context and passes the result to the loop."""
    memory = plugin(agents_md_sources=[], system_prompt="You are Ana.")
    brain = ScriptedBrain(["Hello."])
    engine = load_chat_plugin("ovos-react-loop")(config={"toolboxes": ["ovos-clock-tools"]}, brain=brain)

    engine.continue_chat(memory.build_conversation_context("hi", "s1"), session_id="s1")

    (system,) = [m for m in brain.calls[0].messages if m.role == MessageRole.SYSTEM]
    assert system.content.startswith("You are Ana.\n\n# AGENTS.md (")
    assert "Use metric units." in system.content


def test_a_missing_context_plugin_is_named_and_the_persona_still_loads(ovos_log: Any) -> None:
    brain = ScriptedBrain(["ok"])
    engine = load_chat_plugin("ovos-react-loop")(config={"context_plugins": ["no-such-memory"]}, brain=brain)
    assert engine.continue_chat([AgentMessage(MessageRole.USER, "hi")]).content == "ok"
    assert any("context plugin 'no-such-memory' is not installed" in w for w in ovos_log.at("warning"))
    assert not any("unknown config key" in w for w in ovos_log.at("warning"))


def test_through_ovos_persona_as_its_memory_module(project: Path) -> None:
    """The real ovos-persona: ``memory_module`` builds the messages, the loop sends AGENTS.md to the model."""
    ovos_persona = require("ovos_persona")
    from fake_openai_server import FakeOpenAIServer, answer
    from ovos_bus_client.session import Session

    with FakeOpenAIServer() as server:
        server.replies = [answer("Hello from the loop.")]
        config = {
            "name": "agents-md",
            "handlers": ["ovos-react-loop"],
            "memory_module": PLUGIN,
            PLUGIN: {"agents_md_sources": [], "system_prompt": "You are Ana."},
            "ovos-react-loop": {"ovos-openai-brain": {"api_url": server.url, "max_retries": 0}},
        }
        bot = ovos_persona.Persona("agents-md", config)
        session = Session("agents-md")
        reply = bot.chat(bot.get_messages("hi", session), session)

    assert "Hello from the loop." in reply
    system = server.requests[0]["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are Ana.")
    assert "Use metric units." in system["content"] and "Answer in English." in system["content"]
