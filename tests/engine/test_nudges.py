"""The loop's reactions to a described call and to a program called as a tool:
each bounded, each through the public contract with a ScriptedBrain."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, saying_the_result, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, tool_call


def shell(root: Path, **config: object) -> ToolBox:
    return find_toolbox_plugins()["ovos-shell-tools"](
        config={"allow_shell": True, "root_path": str(root), **config}
    )


def test_a_described_call_gets_one_call_it_now(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            "To add them you can use the `add` function with a=2 and b=3.",
            tool_call("add", a=2, b=3),
            "2 plus 3 is 5.",
        ]
    )
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    nudge = brain.calls[1].last
    assert nudge.role == MessageRole.USER
    assert "call it yourself now" in nudge.content and "add" in nudge.content
    assert brain.calls[1].messages[-2].content.startswith("To add them you can use")
    brain.assert_complete()


def test_the_reaction_is_bounded_per_turn(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        ["Use the add tool with 2 and 3.", "You could call the sleep function.", "Try the `fail` tool."]
    )
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "Try the `fail` tool."
    assert len(brain.calls) == 3  # two corrective messages at most (MAX_NUDGES)


def test_a_message_the_model_did_not_act_on_is_not_sent_again(demo_tools: DemoToolBox) -> None:
    # sent twice, the bundled model parroted the message back as its answer
    brain = ScriptedBrain(["Use the add tool with 2 and 3.", "You could call the add function."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "You could call the add function."
    assert len(brain.calls) == 2


@pytest.mark.parametrize("mode", ["native", "text"])
def test_a_described_call_with_its_arguments_is_made_by_the_loop(demo_tools: DemoToolBox, mode: str) -> None:
    # the reply wrote the tool and every required argument: that is the call. Told to make it, the
    # bundled model answered that it would, or that it could not
    brain = ScriptedBrain(
        ['To add them, use the `add` function with {"a": 2, "b": 3}.', "2 plus 3 is 5."],
        supports_tools=mode == "native",
    )
    answer = engine_with(brain, [demo_tools], mode=mode).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert "5.0" in brain.calls[1].last.content  # the described call ran: its result is what the model sees
    brain.assert_complete()


@pytest.mark.parametrize(
    "reply",
    [
        'To calculate it, use the evaluate_expression function with the expression "sqrt(1764)".',
        "Call `evaluate_expression` with expression='sqrt(1764)'.",
        'Use the evaluate_expression tool with {"expression": "sqrt(1764)"}.',
    ],
)
def test_the_only_required_text_quoted_is_the_call(reply: str) -> None:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={})
    brain = ScriptedBrain([reply, "The square root of 1764 is 42."])
    answer = engine_with(brain, [maths]).continue_chat(user("What is the square root of 1764?"))
    assert answer.content == "The square root of 1764 is 42."
    made = brain.calls[1].messages[-2].tool_calls[0]
    assert (made.name, made.arguments) == ("evaluate_expression", {"expression": "sqrt(1764)"})
    brain.assert_complete()


@pytest.mark.parametrize(
    "reply",
    [
        'Use the `add` function with {"a": 2}.',  # a required argument is missing
        'Use the `add` function with {"a": 2, "b": 3, "c": 4}.',  # not its parameters
    ],
)
def test_a_described_call_with_incomplete_arguments_is_asked_for(demo_tools: DemoToolBox, reply: str) -> None:
    brain = ScriptedBrain([reply, tool_call("add", a=2, b=3), "2 plus 3 is 5."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert "Do not describe add: call it yourself now" in brain.calls[1].last.content
    brain.assert_complete()


def test_a_second_described_call_in_a_chain_is_also_sent_back(tmp_path: Path) -> None:
    # the bundled model called the first tool of a chain after "call it now", then described the
    # second: with one corrective message per turn, that description was the answer
    (tmp_path / "numbers.csv").write_text("a,b\n3,4\n10,20\n")
    plugins = find_toolbox_plugins()
    boxes = [
        plugins["ovos-filesystem-tools"](config={"root_path": str(tmp_path)}),
        plugins["ovos-math-tools"](config={}),
    ]
    brain = ScriptedBrain(
        [
            "To get the values, you can use the `read_file` function.",
            tool_call("read_file", path="numbers.csv"),
            "To get the sum of column b, you can use the `evaluate_expression` function.",
            tool_call("evaluate_expression", expression="4 + 20"),
            "The sum of column b is 24.",
        ]
    )
    answer = engine_with(brain, boxes).continue_chat(user("What is the sum of column b in numbers.csv?"))
    assert answer.content == "The sum of column b is 24."
    assert "Do not describe evaluate_expression" in brain.calls[3].last.content
    brain.assert_complete()


@pytest.mark.parametrize(
    "announcement",
    [
        "I will call the `add` function with a=2 and b=3.",
        "To get the sum, you can use the `add` function with a set to 2 and b set to 3.",
        "To get the sum, use the `add` function with a=2 and b=3.",
    ],
)
def test_announcing_a_tool_already_called_is_a_description(
    demo_tools: DemoToolBox, announcement: str
) -> None:
    # after a failed call the bundled model wrote "I will call the evaluate_expression function with
    # the expression ..." and stopped: an announcement of a call, whether or not it was called before
    brain = ScriptedBrain(
        [
            tool_call("add", a=2),
            announcement,
            tool_call("add", a=2, b=3),
            "2 plus 3 is 5.",
        ]
    )
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "2 plus 3 is 5."
    assert "Do not describe add" in brain.calls[2].last.content
    brain.assert_complete()


def test_naming_a_tool_already_called_is_a_summary_not_a_description(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=2, b=3), "I used the `add` tool: the sum is 5."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("what is 2 + 3?"))
    assert answer.content == "I used the `add` tool: the sum is 5."
    assert len(brain.calls) == 2


@pytest.mark.parametrize(
    "reply",
    [
        "Hello! How can I help you today?",
        "I'll add a note: the capital of France is Paris.",  # 'add' as a plain word is not the tool
        "Let me add that sleep helps memory.",
    ],
)
def test_ordinary_answers_stand(demo_tools: DemoToolBox, reply: str) -> None:
    brain = ScriptedBrain([reply])
    assert engine_with(brain, [demo_tools]).continue_chat(user("hi")).content == reply
    assert len(brain.calls) == 1


def test_a_described_command_is_asked_for_never_run_for_the_model(tmp_path: Path) -> None:
    # prose names a command by its program and leaves the file elsewhere in the sentence: run as
    # written, `wc -l` counted nothing; the model is shown the command and makes the call
    (tmp_path / "story.txt").write_text("one two three\n")
    brain = ScriptedBrain(
        [
            "To count the words of story.txt, you can use the shell command `wc -w`.",
            tool_call("run_command", command="wc -w story.txt"),
            "story.txt has 3 words.",
        ]
    )
    answer = engine_with(brain, [shell(tmp_path)]).continue_chat(user("How many words in story.txt?"))
    assert answer.content == "story.txt has 3 words."
    nudge = brain.calls[1].last.content
    assert 'run it yourself now with run_command {"command": "wc -w"}' in nudge
    assert not brain.calls[1].messages[-2].tool_calls  # nothing was run before the model's own call
    assert '"stdout": "3 story.txt' in brain.calls[2].last.content
    brain.assert_complete()


@pytest.mark.parametrize(
    "reply",
    [
        "I can use more detail if you want: the sky is blue because of Rayleigh scattering.",
        "Paris is the capital of France.",
    ],
)
def test_prose_with_program_like_words_stands(tmp_path: Path, reply: str) -> None:
    brain = ScriptedBrain([reply])
    assert engine_with(brain, [shell(tmp_path)]).continue_chat(user("hi")).content == reply


def test_text_mode_nudge_shows_the_format(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain(
        [
            "Final Answer: you can use the add tool with a=2, b=3.",
            'Action: add\nAction Input: {"a": 2, "b": 3}',
            "Final Answer: 5",
        ],
        supports_tools=False,
    )
    answer = engine_with(brain, [demo_tools]).continue_chat(user("2 + 3?"))
    assert answer.content == "5"
    assert "Action: <tool name>" in brain.calls[1].last.content


def test_a_program_called_as_a_tool_is_told_how_to_run_it(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "numbers.csv").write_text("a,b\n")
    brain = ScriptedBrain(
        [tool_call("ls", path="data"), tool_call("run_command", command="ls data"), "numbers.csv"]
    )
    answer = engine_with(brain, [shell(tmp_path)]).continue_chat(user("list data"))
    assert answer.content == "numbers.csv"
    observation = brain.calls[1].last.content
    assert observation.startswith("Error: there is no tool named 'ls'. 'ls' is a program, not a tool:")
    assert 'run it with run_command, arguments {"command": "ls data"}' in observation
    assert "Available tools: run_command" in observation


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("frobnicate_files", {}),  # not a program on this machine
        ("ls", {"allowed_commands": ["wc"]}),  # a program, but not one the command tool may run
    ],
)
def test_no_program_hint_where_it_would_mislead(tmp_path: Path, name: str, config: dict) -> None:
    brain = ScriptedBrain([tool_call(name), "done"])
    engine_with(brain, [shell(tmp_path, **config)]).continue_chat(user("go"))
    observation = brain.calls[1].last.content
    assert "is a program" not in observation and f"no tool named {name!r}" in observation


def test_no_program_hint_without_a_command_tool(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("ls"), "done"])
    engine_with(brain, [demo_tools]).continue_chat(user("go"))
    assert "is a program" not in brain.calls[1].last.content


@pytest.mark.parametrize(
    ("question", "call", "expression"),
    [
        ("mean of 4, 8 and 15?", tool_call("mean", numbers=[4, 8, 15]), "mean(4, 8, 15)"),
        ("whats the square root of 1764", tool_call("sqrt", value=1764), "sqrt(1764)"),
    ],
)
def test_a_calculator_function_called_as_a_tool_is_told_how_to_call_it(
    question: str, call, expression: str
) -> None:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={})
    brain = ScriptedBrain([call, tool_call("evaluate_expression", expression=expression), saying_the_result])
    answer = engine_with(brain, [maths]).continue_chat(user(question))
    assert answer.content.startswith("It is ")
    observation = brain.calls[1].last.content
    name = expression.split("(")[0]
    assert observation.startswith(f"Error: there is no tool named {name!r}. {name!r} is a function of")
    assert f'call evaluate_expression with {{"expression": "{expression}"}}' in observation
    # and the hinted call is one the calculator reads
    assert '"result"' in brain.calls[2].last.content


@pytest.mark.parametrize("name", ["average_of", "frobnicate", "of"])
def test_no_function_hint_for_names_the_calculator_does_not_list(name: str) -> None:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={})
    brain = ScriptedBrain([tool_call(name, numbers=[1]), "done"])
    engine_with(brain, [maths]).continue_chat(user("go"))
    assert "is a function of" not in brain.calls[1].last.content


def test_a_call_described_by_its_parameters_is_asked_for() -> None:
    # after days_between refused a date in an earlier year, the bundled model answered "use
    # `end_date` as `2026-12-31`", naming no tool
    clock = find_toolbox_plugins()["ovos-clock-tools"](config={})
    brain = ScriptedBrain(
        [
            tool_call("days_between", start_date="today", end_date="2023-12-31"),
            "To compute the days left until December 31 of this year, use `end_date` as `2026-12-31`.",
            tool_call("days_between", start_date="2026-12-01", end_date="2026-12-31"),
            "30 days are left.",
        ]
    )
    answer = engine_with(brain, [clock]).continue_chat(user("How many days are left until December 31?"))
    assert answer.content == "30 days are left."
    assert "Do not describe days_between: call it yourself now" in brain.calls[2].last.content
    brain.assert_complete()


def test_a_parameter_name_in_an_ordinary_answer_stands() -> None:
    clock = find_toolbox_plugins()["ovos-clock-tools"](config={})
    brain = ScriptedBrain(["An end_date is the last day of a period."])
    answer = engine_with(brain, [clock]).continue_chat(user("What is an end date?"))
    assert answer.content == "An end_date is the last day of a period."


@pytest.mark.parametrize(
    "announcement",
    [
        'To find the file that mentions the lighthouse, I will search for lines containing "lighthouse".',
        "Let me check the log file.",
        "I'll calculate that now.",
    ],
)
def test_an_answer_that_only_announces_the_work_is_asked_for_the_call(
    demo_tools: DemoToolBox, announcement: str
) -> None:
    # the bundled model on its stock template answered "Which file mentions the lighthouse?" with
    # the step it would take, and took none
    from ovos_agentic_loop._rules.described import ANNOUNCED_STEP

    brain = ScriptedBrain([announcement, tool_call("add", a=2, b=3), "Done: 5."])
    answer = engine_with(brain, [demo_tools]).continue_chat(user("go"))
    assert answer.content == "Done: 5."
    assert brain.calls[1].last.content == ANNOUNCED_STEP
    brain.assert_complete()


@pytest.mark.parametrize(
    "reply",
    [
        "I'll add a note: the capital of France is Paris.",
        "I will search for meaning all my life. Paris is the capital of France.",  # more than the step
        "I found it: the file is notes.txt.",
    ],
)
def test_answers_that_are_more_than_an_announcement_stand(demo_tools: DemoToolBox, reply: str) -> None:
    brain = ScriptedBrain([reply])
    assert engine_with(brain, [demo_tools]).continue_chat(user("go")).content == reply
