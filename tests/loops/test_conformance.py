"""Every loop through its entry point: the ChatEngine contract, the same for all eight."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from loops_helpers import ALL_ENGINES, LOOPS, SCRATCH, loop_with, oracle, user
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop.errors import BrainError, ConfigError
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain


@pytest.mark.parametrize("name", ALL_ENGINES)
def test_every_upstream_entry_point_is_installed(name: str) -> None:
    cls = load_chat_plugin(name)
    assert cls is not None and cls.engine_name == name


@pytest.mark.parametrize("name", ALL_ENGINES)
def test_continue_chat_answers_without_scratch_text(name: str) -> None:
    brain = ScriptedBrain([oracle] * 30)
    reply = loop_with(name, brain).continue_chat(user("Which word: alpha?"))
    assert reply.role == MessageRole.ASSISTANT
    assert "alpha" in reply.content
    assert not SCRATCH.search(reply.content), reply.content


@pytest.mark.parametrize("name", ALL_ENGINES)
def test_stream_sentences_speaks_only_the_final_answer(name: str) -> None:
    brain = ScriptedBrain([oracle] * 30)
    engine = loop_with(name, brain)
    spoken = list(engine.stream_sentences(user("Which word: beta?")))
    assert spoken, "nothing was spoken"
    text = " ".join(spoken)
    assert "beta" in text and not SCRATCH.search(text), spoken


@pytest.mark.parametrize("name", ALL_ENGINES)
def test_a_brain_failure_raises_brain_error(name: str) -> None:
    brain = ScriptedBrain([RuntimeError("server on fire")] * 3)
    with pytest.raises(BrainError, match="server on fire"):
        loop_with(name, brain).continue_chat(user("alpha?"))


@pytest.mark.parametrize("name", ALL_ENGINES)
def test_concurrent_sessions_do_not_see_each_other(name: str) -> None:
    barrier = threading.Barrier(2, timeout=5)
    first_calls: set[str] = set()
    lock = threading.Lock()

    def meet_then_answer(call: BrainCall) -> str:
        with lock:
            first = call.session_id not in first_calls
            first_calls.add(call.session_id)
        if first:
            barrier.wait()  # both sessions are inside a turn at the same time
        return oracle(call)

    brain = ScriptedBrain([meet_then_answer] * 60)
    engine = loop_with(name, brain)
    with ThreadPoolExecutor(2) as pool:
        replies = list(
            pool.map(
                lambda word: engine.continue_chat(user(f"Which word: {word}?"), session_id=word).content,
                ["alpha", "beta"],
            )
        )
    assert "alpha" in replies[0] and "beta" not in replies[0]
    assert "beta" in replies[1] and "alpha" not in replies[1]


@pytest.mark.parametrize("name", LOOPS)
def test_a_wrong_value_of_a_shared_key_names_the_key(name: str) -> None:
    with pytest.raises(ConfigError, match="max_iterations"):
        loop_with(name, ScriptedBrain(), max_iterations="many")


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("ovos-plan-execute-loop", "max_steps"),
        ("ovos-plan-execute-loop", "max_step_iterations"),
        ("ovos-reflexion-loop", "max_reflections"),
        ("ovos-self-ask-loop", "max_follow_ups"),
        ("ovos-critic-loop", "max_critique_rounds"),
        ("ovos-tree-of-thoughts-loop", "n_branches"),
        ("ovos-tree-of-thoughts-loop", "beam_width"),
        ("ovos-tree-of-thoughts-loop", "max_depth"),
    ],
)
def test_each_loops_own_keys_are_typed_and_not_unknown(name: str, key: str, ovos_log) -> None:
    with pytest.raises(ConfigError, match=key):
        loop_with(name, ScriptedBrain(), **{key: -1})
    engine = loop_with(name, ScriptedBrain(), **{key: 2})
    assert getattr(engine.loop_settings, key) == 2
    assert not [w for w in ovos_log.at("warning") if key in w], "an upstream key was called unknown"


@pytest.mark.parametrize("name", LOOPS)
def test_caller_tools_are_refused_loudly_not_silently(name: str, ovos_log) -> None:
    engine = loop_with(name, ScriptedBrain([oracle] * 30))
    assert engine.supports_tools is False
    tool = {"type": "function", "function": {"name": "x", "description": "x", "parameters": {}}}
    engine.continue_chat(user("alpha"), tools=[tool])
    assert any("caller tools are not supported" in w for w in ovos_log.at("warning"))


@pytest.mark.parametrize("name", LOOPS)
def test_a_loop_is_refused_as_the_brain_of_another_loop(name: str) -> None:
    from ovos_agentic_loop.errors import PluginNotFound

    with pytest.raises(PluginNotFound, match="agent loop itself"):
        load_chat_plugin("ovos-react-loop")(config={"brain": name}, toolboxes=[])


def test_the_persona_plan_takes_a_loops_own_keys_out_too(ovos_log) -> None:
    from ovos_agentic_loop.personas import loop_plan

    plan = loop_plan("ovos-plan-execute-loop", {"toolboxes": ["ovos-math-tools"], "max_steps": 3})
    assert plan is not None
    assert not [w for w in ovos_log.at("warning") if "max_steps" in w], "doctor called max_steps unknown"
