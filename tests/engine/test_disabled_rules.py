"""``disabled_rules``: a rule switched off by name in the loop's section is not asked, through
``continue_chat``; the others still are, and an unknown name is refused naming the known ones."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop._rules.registry import RULE_NAMES
from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop.testing import ScriptedBrain, tool_call

QUESTION = "What is 15% of 2350?"


@pytest.fixture
def maths() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


def test_head_arithmetic_on_sends_the_answer_back(maths: ToolBox) -> None:
    brain = ScriptedBrain(
        ["It is 350.", tool_call("evaluate_expression", expression="15% of 2350"), "It is 352.5."]
    )
    engine = engine_with(brain, [maths])
    finals: list[Any] = []
    engine.add_step_listener(lambda event: finals.append(event) if event.kind == "final" else None)
    assert engine.continue_chat(user(QUESTION)).content == "It is 352.5."
    brain.assert_complete()
    assert finals[-1].rules == ["head_arithmetic"]  # the final event names the rule that corrected it


def test_head_arithmetic_off_lets_the_answer_stand(maths: ToolBox) -> None:
    brain = ScriptedBrain(["It is 350."])
    answer = engine_with(brain, [maths], disabled_rules=["head_arithmetic"]).continue_chat(user(QUESTION))
    assert answer.content == "It is 350."
    brain.assert_complete()


def test_the_other_rules_stay_on(maths: ToolBox) -> None:
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="0.15 * 2250"),  # a number nobody said: held back
            tool_call("evaluate_expression", expression="0.15 * 2350"),
            "It is 352.5.",
        ]
    )
    engine = engine_with(brain, [maths], disabled_rules=["head_arithmetic"])
    finals: list[Any] = []
    engine.add_step_listener(lambda event: finals.append(event) if event.kind == "final" else None)
    assert engine.continue_chat(user(QUESTION)).content == "It is 352.5."
    assert finals[-1].rules == ["ungrounded_value"]
    assert "2250 is no number the user said" in brain.calls[1].last.content
    brain.assert_complete()


def test_every_rule_off_is_the_bare_loop(maths: ToolBox) -> None:
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="0.15 * 2250"), "It is 337.5."])
    engine = engine_with(brain, [maths], disabled_rules=list(RULE_NAMES))
    assert engine.continue_chat(user(QUESTION)).content == "It is 337.5."
    brain.assert_complete()


@pytest.mark.parametrize("value", [["no_such_rule"], "head_arithmetic", [3]])
def test_an_unknown_rule_or_a_wrong_type_is_refused_at_construction(maths: ToolBox, value: object) -> None:
    with pytest.raises(ConfigError, match="disabled_rules") as refused:
        engine_with(ScriptedBrain([]), [maths], disabled_rules=value)
    if value == ["no_such_rule"]:
        assert all(name in str(refused.value) for name in RULE_NAMES)


def test_a_removed_rule_named_is_accepted_and_the_others_stay_on(maths: ToolBox, ovos_log: Any) -> None:
    """A persona written when 'placeholder' was a rule still loads: the rule is gone, which is what
    switching it off asked for; head arithmetic, not named, still corrects the answer."""
    brain = ScriptedBrain(
        ["It is 352.5.", tool_call("evaluate_expression", expression="0.15 * 2350"), "It is 352.5."]
    )
    engine = engine_with(brain, [maths], disabled_rules=["placeholder"])
    assert engine.continue_chat(user(QUESTION)).content == "It is 352.5."
    assert len(brain.calls) == 3  # sent back once by head arithmetic
    assert "placeholder" not in RULE_NAMES
    assert any("placeholder: removed, nothing to switch off" in message for message in ovos_log.at("warning"))


def test_a_merged_rule_named_switches_off_the_rule_it_is_part_of(maths: ToolBox, ovos_log: Any) -> None:
    """A persona written when numbers nobody said were their own rule: naming it still switches
    that correction off (the number runs as written), and the log names the rule it is part of."""
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="0.15 * 2250"), "It is 337.5."])
    engine = engine_with(brain, [maths], disabled_rules=["unsaid_operands", "dropped_sign"])
    assert engine.continue_chat(user(QUESTION)).content == "It is 337.5."
    brain.assert_complete()
    warnings = ovos_log.at("warning")
    assert any("unsaid_operands is part of ungrounded_value now" in message for message in warnings)
