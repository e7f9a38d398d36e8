"""The table of reactions and the typed tool outcomes.

- A reaction that holds the stream must say so early (``may_apply``) whenever it can apply to the
  finished answer (``applies``): otherwise a voice speaks a made-up number and then the corrected
  one. The two are tied here over many questions and answers, not by reading the code.
- Outcomes are typed: a successful result that reads like an error is still a result, a failed
  call whose message reads like a result is still a failure; the loop decides from the status,
  never from the wording.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import engine_with, user
from hypothesis import given, settings
from hypothesis import strategies as st
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._rules.base import Stage
from ovos_agentic_loop._rules.registry import MAX_NUDGES, RULES, Rules
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._tools.observations import Status, ToolOutcome
from ovos_agentic_loop._tools.toolset import PersonaTools
from ovos_agentic_loop.testing import ScriptedBrain, tool_call

QUESTIONS = [
    "What is 15% of 2350?",
    "whats fifteen percent of two thousand three hundred and fifty",
    "What is the total in notes.txt?",
    "How many days until Christmas?",
    "Convert 5 km to miles",
    "What is the capital of France?",
    "Read data/numbers.csv and give me the average",
    "hello",
]
ANSWERS = [
    "It is 352.5.",
    "The answer is 12.",
    "Paris.",
    "I will read the file notes.txt.",
    "You can use the `evaluate_expression` function.",
    "The total is 1,065 and 2026-12-01 is today.",
    "",
]


@pytest.fixture(scope="module")
def toolsets(tmp_path_factory: pytest.TempPathFactory) -> list:
    root = tmp_path_factory.mktemp("files")
    plugins = find_toolbox_plugins()
    maths = plugins["ovos-math-tools"](config={})
    files = plugins["ovos-filesystem-tools"](config={"root_path": str(root)})
    return [
        PersonaTools([maths, files], engine_name="t").current(),
        PersonaTools([files], engine_name="t").current(),
        PersonaTools([maths], engine_name="t").current(),
    ]


def _transcript(question: str, calls: list[ToolCall]) -> list[AgentMessage]:
    messages = [AgentMessage(MessageRole.USER, question)]
    if calls:
        messages.append(AgentMessage(MessageRole.ASSISTANT, "", tool_calls=calls))
    return messages


CALLS = st.sampled_from(
    [
        [],
        [ToolCall(id="c1", name="evaluate_expression", arguments={"expression": "15% of 2350"})],
        [ToolCall(id="c2", name="read_file", arguments={"path": "notes.txt"})],
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    question=st.sampled_from(QUESTIONS),
    answer=st.sampled_from(ANSWERS) | st.text(max_size=40),
    calls=CALLS,
    which=st.integers(min_value=0, max_value=2),
)
def test_a_reaction_that_holds_the_stream_knows_it_before_the_answer(
    toolsets: list, question: str, answer: str, calls: list[ToolCall], which: int
) -> None:
    view = TurnView(toolsets[which], _transcript(question, calls), {}, text_mode=False)
    for rule in RULES:
        if not rule.holds_stream:
            continue
        assert rule.may_apply is not None, f"{rule.name} holds the stream without may_apply"
        if rule.detect(view.with_answer(answer)) is not None:
            assert rule.may_apply(view), f"{rule.name} applied without may_apply"


def test_the_table_names_each_reaction_once_and_holds_the_budget(toolsets: list) -> None:
    names = [r.name for r in RULES if r.stage is Stage.ON_ANSWER]
    assert len(names) == len(set(names))
    reactions = Rules()
    view = TurnView(toolsets[0], _transcript("What is 15% of 2350?", []), {}, text_mode=False)
    answers = ["It is 11.", "It is 12.", "It is 13.", "It is 14."]
    sent = [reactions.react(view.with_answer(a)) for a in answers]
    assert sum(r is not None for r in sent) == MAX_NUDGES  # the table's budget, not each reaction's
    assert not reactions.may_apply(view)  # spent: the stream is no longer held


class _Args(ToolArguments):
    pass


class _Out(ToolOutput):
    text: str


class _WordingBox(ToolBox):
    """A tool whose successful result reads like an error, and one that fails with a message that
    reads like a result."""

    def __init__(self, config: dict | None = None, bus: object = None) -> None:
        super().__init__("wording", config or {}, bus)

    def _status(self, args: _Args) -> _Out:
        return _Out(text="Error budget left: 42 minutes")

    def _broken(self, args: _Args) -> _Out:
        raise RuntimeError("the answer is 99")

    def discover_tools(self) -> list[AgentTool]:
        return [
            AgentTool("service_status", "The service's status line.", _Args, _Out, self._status),
            AgentTool("broken_status", "A status that always fails.", _Args, _Out, self._broken),
        ]


def test_a_result_that_reads_like_an_error_is_still_a_result() -> None:
    brain = ScriptedBrain(
        [tool_call("service_status"), "This is the result of the tool call.", "42 minutes are left."]
    )
    engine = engine_with(brain, [_WordingBox()])
    answer = engine.continue_chat(user("How much error budget is left?"))
    assert answer.content == "42 minutes are left."
    # the narration got the value quoted back, read from the typed outcome, not from its wording
    assert "The result was: Error budget left: 42 minutes" in brain.calls[2].last.content
    brain.assert_complete()


def test_a_failure_that_reads_like_a_result_is_not_quoted_as_one() -> None:
    brain = ScriptedBrain([tool_call("broken_status"), "", "I could not get the status."])
    engine = engine_with(brain, [_WordingBox()])
    answer = engine.continue_chat(user("What is the status?"))
    assert answer.content == "I could not get the status."
    # an empty reply after a FAILED call is not told "the result was: the answer is 99"
    assert "The result was" not in brain.calls[2].last.content
    brain.assert_complete()


def test_outcomes_are_kept_beside_their_tool_messages(tmp_path: Path) -> None:
    events: list = []
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="2+2"),
            tool_call("evaluate_expression", expression="3+3"),
            tool_call("evaluate_expression", expression="2+2"),  # an earlier call: not run again
            tool_call("no_such_tool"),
            "It is 4.",
        ]
    )
    engine = engine_with(brain, [find_toolbox_plugins()["ovos-math-tools"](config={})])
    engine.add_step_listener(events.append)
    engine.continue_chat(user("What is 2+2?"))
    results = [e for e in events if e.kind == "tool_result"]
    assert [e.data["ok"] for e in results] == [True, True, False]  # the reminder runs nothing
    third = brain.calls[4].messages[-1]
    assert third.role == MessageRole.TOOL and third.content.startswith("Error: there is no tool named")


def test_status_of_each_kind_of_outcome() -> None:
    call = ToolCall(id="x", name="t", arguments={})
    assert ToolOutcome(call, Status.OK, '{"a": 1}', 0.0, output={"a": 1}).values() == ["1"]
    assert ToolOutcome(call, Status.FAILED, "Error: 5", 0.0).values() == []
    assert not ToolOutcome(call, Status.TIMED_OUT, "x", 0.0).ok


def test_decisions_do_not_depend_on_the_wording_of_observations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reworded failures and reminders (no "Error" prefix, no "Not run again") change nothing."""
    import ovos_agentic_loop._tools.observations as observations

    monkeypatch.setattr(observations, "observation_for_error", lambda *_: "Oops: 99 things")
    monkeypatch.setattr(observations, "NOT_RUN_AGAIN", "Same as above.")
    brain = ScriptedBrain(
        [
            tool_call("broken_status"),
            "",  # empty after a failure: the failure's text is not quoted as a result
            tool_call("service_status"),
            tool_call("broken_status"),  # fails again
            tool_call("service_status"),  # an earlier result asked again: a reminder, reworded
            tool_call("service_status"),  # asked again: the forced answer
            "42 minutes.",
        ]
    )
    engine = engine_with(brain, [_WordingBox()], max_corrections=1)
    answer = engine.continue_chat(user("What is the status?"))
    assert answer.content == "42 minutes."
    assert "The result was" not in brain.calls[2].last.content
    forced = brain.calls[6].last.content
    assert "Same as above." not in forced  # a reminder holds no result, whatever it says
    assert "Error budget left: 42 minutes" in forced
    brain.assert_complete()
