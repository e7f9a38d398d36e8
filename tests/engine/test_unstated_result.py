"""An unstated result: the answer follows tool results, talks about the call ("This is
the result of the calculation.", "The command executed successfully") and holds none of the
result's values. The bundled model wrote this after most single calls on its stock chat template;
the user heard that something was done, never what. One "answer with the result" message, from the
same per-turn budget as the other reactions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from engine_helpers import ENGINES_AND_MODES, engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.testing import Chunked, ScriptedBrain, in_chunks, tool_call


@pytest.fixture
def maths() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


@pytest.fixture
def shell(tmp_path: Path) -> ToolBox:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "config.json").write_text("{}\n")
    (tmp_path / "data" / "numbers.csv").write_text("a,b\n")
    return find_toolbox_plugins()["ovos-shell-tools"](
        config={"allow_shell": True, "root_path": str(tmp_path)}
    )


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
@pytest.mark.parametrize(
    "narration",
    [
        "This is the result of the calculation.",
        "This is the result of the evaluate_expression function call.",
    ],
)
def test_a_narrated_result_is_sent_back_once(
    entry_point: str, mode: str, narration: str, maths: ToolBox
) -> None:
    brain = ScriptedBrain(
        [tool_call("evaluate_expression", expression="15% of 240"), narration, "15% of 240 is 36."]
    )
    engine = engine_with(brain, [maths], entry_point, mode=mode)
    answer = engine.continue_chat(user("What is 15% of 240?"))
    assert answer.content == "15% of 240 is 36."
    nudge = brain.calls[2].last
    assert nudge.role == MessageRole.USER
    # the values quoted: asked only to give them, the bundled model repeated its narration
    assert nudge.content.startswith("Your reply does not say what the result is. The result was: 36")
    assert brain.calls[2].messages[-2].content == narration  # the model sees what it said
    brain.assert_complete()


def test_a_word_that_describes_results_is_not_one(shell: ToolBox) -> None:
    # "total" is in ls -l's output and in the narration: it states nothing
    narration = (
        "The command `ls -la data` was executed successfully, returning a list of files. The output "
        "included the total number of files and directories."
    )
    brain = ScriptedBrain(
        [tool_call("run_command", command="ls -la data"), narration, "config.json, numbers.csv."]
    )
    answer = engine_with(brain, [shell]).continue_chat(user("Use ls to list the files in the data folder."))
    assert answer.content == "config.json, numbers.csv."
    assert "config.json" in brain.calls[2].last.content
    brain.assert_complete()


def test_a_status_code_is_not_a_result(shell: ToolBox) -> None:
    # the listing's names are the result; the exit code 0 the narration quotes is not
    narration = (
        'The command "ls -la data" returned a successful exit code of 0, with the output listing the '
        'files in the "data" folder.'
    )
    brain = ScriptedBrain(
        [
            tool_call("run_command", command="ls data"),
            narration,
            "The data folder holds config.json and numbers.csv.",
        ]
    )
    answer = engine_with(brain, [shell]).continue_chat(user("Use ls to list the files in the data folder."))
    assert answer.content == "The data folder holds config.json and numbers.csv."
    assert "config.json" in brain.calls[2].last.content and "numbers.csv" in brain.calls[2].last.content
    brain.assert_complete()


@pytest.mark.parametrize(
    "reply",
    [
        "15% of 240 is 36.",
        "The result of the calculation is 36.",
        "The calculation gives thirty-six, that is 36.0.",
        "It is thirty-six.",  # a number in words before the full stop
        "Thirty six, I think.",
    ],
)
def test_answers_that_state_the_result_stand(reply: str, maths: ToolBox) -> None:
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="15% of 240"), reply])
    assert engine_with(brain, [maths]).continue_chat(user("What is 15% of 240?")).content == reply
    brain.assert_complete()


def test_a_rounded_result_counts(maths: ToolBox) -> None:
    reply = "The result of the statistics_summary call: the average is 21.33."
    brain = ScriptedBrain([tool_call("statistics_summary", numbers=[12, 45, 7]), reply])
    assert engine_with(brain, [maths]).continue_chat(user("Average of 12, 45 and 7?")).content == reply


def test_a_word_of_the_result_counts(shell: ToolBox) -> None:
    reply = "The command listed numbers.csv among the files."
    brain = ScriptedBrain([tool_call("run_command", command="ls data"), reply])
    assert engine_with(brain, [shell]).continue_chat(user("list data")).content == reply


def test_after_a_failed_call_the_answer_stands(maths: ToolBox) -> None:
    # an error is not a result to state: "the tool could not do it" is a fair answer
    reply = "The calculation tool could not read that expression."
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="15 percent of"), reply])
    assert engine_with(brain, [maths]).continue_chat(user("What is 15% of?")).content == reply
    brain.assert_complete()


def test_a_stream_speaks_the_result_after_the_narration(maths: ToolBox) -> None:
    # the narration is not held back (that would hold every answer after a tool): it is spoken as
    # talk, and the answer with the result follows it
    brain = ScriptedBrain(
        [
            tool_call("evaluate_expression", expression="15% of 240"),
            "This is the result of the calculation.",
            "15% of 240 is 36.",
        ]
    )
    spoken = list(engine_with(brain, [maths]).stream_sentences(user("What is 15% of 240?")))
    assert spoken[-1] == "15% of 240 is 36."


def test_a_long_result_is_quoted_cut() -> None:
    from ovos_agentic_loop._rules.unstated import MAX_QUOTED_CHARS, unstated_message

    message = unstated_message("x" * 10_000)
    assert "x" * MAX_QUOTED_CHARS + "…" in message and "x" * (MAX_QUOTED_CHARS + 1) not in message


def test_a_reaction_already_spent_gives_way_to_the_next_that_applies(maths: ToolBox) -> None:
    # the bundled model, told once to stop describing a tool, called it, then wrote its earlier
    # description again: "call it now" a second time is parroted, so the result is quoted instead
    described = "To get it, you should use the `evaluate_expression` function with the percentage."
    brain = ScriptedBrain(
        [
            described,
            tool_call("evaluate_expression", expression="15% of 240"),
            described,
            "15% of 240 is 36.",
        ]
    )
    answer = engine_with(brain, [maths]).continue_chat(user("What is 15% of 240?"))
    assert answer.content == "15% of 240 is 36."
    assert "Do not describe evaluate_expression" in brain.calls[1].last.content
    assert brain.calls[3].last.content.startswith("Your reply does not say what the result is.")
    brain.assert_complete()


@pytest.mark.parametrize(
    "echo", ["The name of this computer is Computer Name.", "The name of this computer is."]
)
@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_an_answer_without_a_call_that_only_says_the_question_back_is_sent_back(
    entry_point: str, mode: str, echo: str, shell: ToolBox
) -> None:
    """No tool called: "whats the name of this computer" answered with its own words."""
    from ovos_agentic_loop._rules.unstated import ECHOED_MESSAGE

    brain = ScriptedBrain([echo, tool_call("run_command", command="hostname"), "It is called kitchen-pc."])
    engine = engine_with(brain, [shell], entry_point, mode=mode)
    assert list(engine.stream_sentences(user("whats the name of this computer"))) == [
        "It is called kitchen-pc."
    ]
    assert brain.calls[1].last.content == ECHOED_MESSAGE
    brain.assert_complete()


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("whats the capital of france", "The capital of France is Paris."),
        ("hello", "Hello!"),
        ("who wrote romeo and juliet", "Romeo and Juliet was written by William Shakespeare."),
    ],
)
def test_an_answer_without_a_call_that_adds_a_word_of_its_own_stands(
    question: str, answer: str, shell: ToolBox
) -> None:
    brain = ScriptedBrain([answer])
    assert engine_with(brain, [shell]).continue_chat(user(question)).content == answer
    brain.assert_complete()


def test_a_follow_up_answered_with_the_calculations_operand_states_no_result(
    tmp_path: Path, maths: ToolBox
) -> None:
    """ "and 15 percent of that" after "The budget is 4200 euros.": the loop calculates 15% of 4200
    (630); the earlier answer said again holds 4200, the calculation's own operand (its reading,
    "15 % * 4200", holds it too), which is no result of it: sent back with 630."""
    (tmp_path / "notes.txt").write_text("Budget: 4200 euros.\n")
    files = find_toolbox_plugins()["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})
    brain = ScriptedBrain(
        [tool_call("read_file", path="notes.txt"), "The budget is 4200 euros.", "The budget is 4200 euros."]
    )
    engine = engine_with(brain, [files, maths])
    first = user("whats the budget in notes dot txt")
    answer = engine.continue_chat(first, session_id="s").content
    assert answer == "The budget is 4200 euros."
    brain.add("15 percent of 4200 euros is 630 euros.")
    follow_up = [*first, AgentMessage(MessageRole.ASSISTANT, answer), *user("and 15 percent of that")]
    assert engine.continue_chat(follow_up, session_id="s").content == "15 percent of 4200 euros is 630 euros."
    told = brain.calls[-1].messages[-1]
    assert told.role == MessageRole.USER and "The result was:" in told.content and "630" in told.content
    brain.assert_complete()


def test_a_calculation_whose_result_is_one_of_its_operands_is_stated_by_it(maths: ToolBox) -> None:
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="max([4, 8, 42])"), "It is 42."])
    assert (
        engine_with(brain, [maths]).continue_chat(user("which is bigger, 4, 8 or 42")).content == "It is 42."
    )
    brain.assert_complete()


@pytest.mark.parametrize(
    "slot_answer",
    ["The name of this computer is [insert computer name].", "Your user name is <user-name>."],
)
def test_an_answer_with_no_call_holding_a_slot_is_sent_back_and_never_spoken(
    slot_answer: str, shell: ToolBox
) -> None:
    brain = ScriptedBrain(
        [in_chunks_of(slot_answer), tool_call("get_system_info"), "This computer is called vm."]
    )
    spoken = list(engine_with(brain, [shell]).stream_sentences(user("whats the name of this computer")))
    assert spoken == ["This computer is called vm."]
    told = brain.calls[1].last
    assert told.role == MessageRole.USER and "where the fact belongs" in told.content
    brain.assert_complete()


def test_a_knowledge_answer_with_no_call_stands(shell: ToolBox) -> None:
    brain = ScriptedBrain([in_chunks_of("William Shakespeare wrote Romeo and Juliet. It is a tragedy.")])
    spoken = list(engine_with(brain, [shell]).stream_sentences(user("who wrote romeo and juliet")))
    assert spoken == ["William Shakespeare wrote Romeo and Juliet.", "It is a tragedy."]
    brain.assert_complete()


def in_chunks_of(text: str) -> Chunked:
    """``text`` as a streamed reply, a word a delta."""
    return in_chunks(*re.findall(r"\S+\s*", text))
