"""Each registered rule, its ``detect`` alone on a small transcript: what it finds, and what it
lets be. The rules' effect on a whole turn is tested through the engine (tests/engine/)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._rules.registry import RULE_NAMES, RULES, rule
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._tools.observations import Status, ToolOutcome
from ovos_agentic_loop._tools.spec import ToolSpec
from ovos_agentic_loop._tools.toolset import ToolSet


def _tool(name: str, description: str = "", role: dict[str, Any] | None = None, **arguments: str) -> ToolSpec:
    properties = {arg: {"type": "string", "description": text} for arg, text in arguments.items()}
    schema = {"type": "object", "properties": properties, "required": list(arguments)}
    return ToolSpec(name, description, schema, annotations={"role": role} if role else {})


CALCULATOR = _tool(
    "evaluate_expression",
    "Calculate an expression.",
    {"kind": "calculator", "argument": "expression", "functions": ["mean", "sqrt"]},
    expression="the expression",
)
READER = _tool("read_file", "Read a file.", {"kind": "reader", "argument": "path"}, path="the file")
DATES = _tool("days_between", "Days between two dates, e.g. '2026-12-25'.", end_date="the end date")
TOOLS = ToolSet((CALCULATOR, READER, DATES), {}, frozenset())


def _view(
    question: str, *later: AgentMessage, answer: str = "", outcomes: dict[int, ToolOutcome] | None = None
) -> TurnView:
    transcript = [AgentMessage(MessageRole.USER, question), *later]
    return TurnView(TOOLS, transcript, outcomes or {}, text_mode=False, answer=answer)


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"c-{name}", name=name, arguments=arguments)


def _found(name: str, view: TurnView) -> Any:
    return rule(name).detect(view)


def test_every_rule_is_registered_once_and_tested_here() -> None:
    assert len(RULE_NAMES) == len(set(RULE_NAMES)) == len(RULES)
    tested = {
        name.removeprefix("test_").removesuffix("_alone") for name in globals() if name.endswith("_alone")
    }
    assert tested == set(RULE_NAMES)


def test_described_call_alone() -> None:
    found = _found(
        "described_call", _view("What is 2+2?", answer="You can use the `evaluate_expression` function.")
    )
    assert found.described.tool == "evaluate_expression"
    assert _found("described_call", _view("What is 2+2?", answer="It is 4.")) is None
    # with its arguments written out
    answer = 'You can use the `evaluate_expression` function with {"expression": "sqrt(1764)"}.'
    found = _found("described_call", _view("What is the root of 1764?", answer=answer))
    assert (found.described.tool, found.described.arguments) == (
        "evaluate_expression",
        {"expression": "sqrt(1764)"},
    )
    assert _found("described_call", _view("Hi", answer="Hello there.")) is None
    # a step announced and not taken
    found = _found("described_call", _view("Find the error.", answer="I will search for lines with error."))
    assert found.described is None and found.sentence == "I will search for lines with error."
    assert _found("described_call", _view("Find the error.", answer="The error is on line 3.")) is None


def test_a_described_call_is_made_asked_for_with_the_grammar_or_told() -> None:
    from ovos_agentic_loop._rules.base import Decide, MakeCall, Nudge
    from ovos_agentic_loop._rules.registry import Rules

    written = 'Use `evaluate_expression` with {"expression": "sqrt(1764)"}.'
    made = Rules().react(_view("What is the root of 1764?", answer=written))
    assert made == MakeCall("a described call", "evaluate_expression", {"expression": "sqrt(1764)"})
    asked = Rules().react(
        _view("What is 2+2?", answer="I will calculate it with the `evaluate_expression` function.")
    )
    assert isinstance(asked, Decide) and isinstance(asked.fallback, Nudge)
    assert "evaluate_expression" in asked.fallback.message
    announced = Rules().react(_view("Find the error.", answer="Let me check the log."))
    assert isinstance(announced, Decide) and "call the tool for it now" in announced.fallback.message


def test_unread_file_alone() -> None:
    assert _found("unread_file", _view("What is in notes.txt?", answer="It holds a list.")) == (
        "read_file",
        "path",
        "notes.txt",
    )
    read = AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[_call("read_file", path="notes.txt")])
    assert _found("unread_file", _view("What is in notes.txt?", read, answer="A list.")) is None


def test_head_arithmetic_alone() -> None:
    assert _found("head_arithmetic", _view("What is 15% of 2350?", answer="It is 352.5.")).number == "352.5"
    assert (
        _found("head_arithmetic", _view("What is the capital of France?", answer="Paris, 2 million.")) is None
    )


def test_unstated_result_alone() -> None:
    call = _call("evaluate_expression", expression="6*7")
    transcript = [
        AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[call]),
        AgentMessage(MessageRole.TOOL, '{"result": 42}', tool_call_id=call.id, name=call.name),
    ]
    outcomes = {2: ToolOutcome(call, Status.OK, '{"result": 42}', 0.0, output={"result": 42})}
    view = _view(
        "What is 6 times 7?", *transcript, outcomes=outcomes, answer="The calculation was successful."
    )
    assert _found("unstated_result", view).values == "42"
    assert _found("unstated_result", view.with_answer("It is 42.")) is None


def test_repeated_answer_alone() -> None:
    first = [
        AgentMessage(MessageRole.USER, "how many kilometers is forty five a day in a week"),
        AgentMessage(MessageRole.ASSISTANT, "315 kilometers is the total distance in a week."),
    ]
    follow_up = AgentMessage(MessageRole.USER, "and how much is that in miles")
    view = TurnView(TOOLS, [*first, follow_up], {}, text_mode=False, asked_until=3)
    said_again = view.with_answer("315 Kilometers is the total distance in a week")
    assert _found("repeated_answer", said_again) == first[0].content
    assert rule("repeated_answer").may_apply(view.with_answer("315 kilometers is"))  # type: ignore[misc]
    assert _found("repeated_answer", view.with_answer("That is 195.7 miles.")) is None
    # the same question in the same words: the same answer may be right
    same = TurnView(TOOLS, [*first, first[0]], {}, text_mode=False, asked_until=3)
    assert _found("repeated_answer", same.with_answer(first[1].content or "")) is None
    # a call of this turn: the answer is read from its result, not from the earlier answer
    call = _call("evaluate_expression", expression="315 / 1.609")
    called = replace(
        said_again, transcript=[*first, follow_up, AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[call])]
    )
    assert _found("repeated_answer", called) is None


def test_ungrounded_value_alone() -> None:
    """A sign dropped, a year nobody named, a number nobody said: each traced, each found."""
    minus = _view("whats minus five celsius in fahrenheit")
    found = _found(
        "ungrounded_value", minus.with_calls([_call("evaluate_expression", expression="5*9/5+32")])
    )
    assert (found.number, found.tool) == ("5", "evaluate_expression")
    signed = minus.with_calls([_call("evaluate_expression", expression="-5*9/5+32")])
    assert _found("ungrounded_value", signed) is None

    christmas = _view("How many days until Christmas?")
    found = _found("ungrounded_value", christmas.with_calls([_call("days_between", end_date="2019-12-25")]))
    assert found.year == "2019"
    named = _view("Days until Christmas 2019?").with_calls([_call("days_between", end_date="2019-12-25")])
    assert _found("ungrounded_value", named) is None

    percent = _view("What is 15% of 2350?")
    found = _found(
        "ungrounded_value", percent.with_calls([_call("evaluate_expression", expression="0.15 * 2250")])
    )
    assert found.number == "2250"
    right = percent.with_calls([_call("evaluate_expression", expression="0.15 * 2350")])
    assert _found("ungrounded_value", right) is None


def _number_tools() -> ToolSet:
    convert = ToolSpec(
        "unit_convert",
        "Convert units.",
        {
            "type": "object",
            "properties": {
                "value": {"type": "number", "description": "The number: 100, -5."},
                "from_unit": {"type": "string"},
                "to_unit": {"type": "string"},
            },
            "required": ["value", "from_unit", "to_unit"],
        },
    )
    stats = ToolSpec(
        "statistics_summary",
        "Summary of numbers.",
        {
            "type": "object",
            "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
            "required": ["numbers"],
        },
    )
    dates = ToolSpec(
        "add_to_date",
        "Add to a date.",
        {
            "type": "object",
            "properties": {
                "days": {"type": "integer", "default": 0},
                "weeks": {"type": "integer", "default": 0},
                "limit": {"type": "integer"},
            },
        },
    )
    return ToolSet((convert, stats, dates), {}, frozenset())


def _asked(question: str, *calls: ToolCall, lang: str = "en-US") -> TurnView:
    view = TurnView(_number_tools(), [AgentMessage(MessageRole.USER, question)], {}, False, lang=lang)
    return view.with_calls(calls)


def test_a_number_argument_of_any_tool_is_traced_to_what_the_user_said() -> None:
    copied = _asked(
        "how many pounds is seventy kilos", _call("unit_convert", value=100, from_unit="kg", to_unit="lb")
    )
    found = _found("ungrounded_value", copied)
    assert (found.number, found.tool, found.parameter) == ("100", "unit_convert", "value")
    assert found.example  # 100 is the example of the parameter's own description
    assert "it is the example in the description of value" in found.message
    assert 'The user asked, with the numbers in digits: "how many pounds is 70 kilos"' in found.message
    said = _asked(
        "how many pounds is seventy kilos", _call("unit_convert", value=70, from_unit="kg", to_unit="lb")
    )
    assert _found("ungrounded_value", said) is None
    spanish = _asked(
        "cuántas libras son setenta kilos",
        _call("unit_convert", value=70, from_unit="kg", to_unit="lb"),
        lang="es-ES",
    )
    assert _found("ungrounded_value", spanish) is None


def test_a_list_of_numbers_nobody_gave_is_not_run() -> None:
    invented = _asked(
        "whats the average temperature in temps.csv", _call("statistics_summary", numbers=[21.5, 19, 23])
    )
    assert _found("ungrounded_value", invented).number == "21.5"
    given = _asked("average of 21.5, 19 and 23", _call("statistics_summary", numbers=[21.5, 19, 23]))
    assert _found("ungrounded_value", given) is None


def test_a_tool_result_a_default_and_the_counts_a_voice_leaves_unsaid_ground_a_number() -> None:
    read = AgentMessage(MessageRole.TOOL, '{"content": "21.5\n19\n23"}', tool_call_id="r")
    reading = ToolCall(id="r", name="read_file", arguments={"path": "temps.csv"})
    transcript = [
        AgentMessage(MessageRole.USER, "whats the average temperature in temps.csv"),
        AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[reading]),
        read,
    ]
    view = TurnView(_number_tools(), transcript, {}, False)
    assert (
        _found("ungrounded_value", view.with_calls([_call("statistics_summary", numbers=[21.5, 19, 23])]))
        is None
    )
    # "next week", "a fortnight", a default: nobody says them as numbers
    for arguments in ({"weeks": 1}, {"days": 14}, {"days": 0}):
        assert (
            _found("ungrounded_value", _asked("what date is it next week", _call("add_to_date", **arguments)))
            is None
        )
    # said in words
    assert (
        _found("ungrounded_value", _asked("the date in three weeks", _call("add_to_date", weeks=3))) is None
    )
    assert (
        _found("ungrounded_value", _asked("the date in three weeks", _call("add_to_date", days=45)))
        is not None
    )


def test_an_optional_number_nobody_said_may_be_left_out() -> None:
    found = _found(
        "ungrounded_value", _asked("what date is it in two days", _call("add_to_date", days=2, limit=500))
    )
    assert (found.number, found.parameter, found.optional) == ("500", "limit", True)
    assert found.message.endswith("or leave limit out.")


@pytest.mark.parametrize("name", RULE_NAMES)
def test_each_rule_finds_nothing_without_a_question(name: str) -> None:
    assert _found(name, _view("")) is None


def test_one_budget_for_a_turn_and_its_sub_runs() -> None:
    from ovos_agentic_loop._rules.registry import MAX_NUDGES, Budget, Rules

    shared = Budget()
    turn, sub_run = Rules(shared), Rules(shared)
    answers = ("It is 11.", "It is 12.", "It is 13.")
    view = _view("What is 15% of 2350?")
    sent = [r.react(view.with_answer(a)) for r, a in zip((turn, sub_run, turn), answers, strict=True)]
    assert [s is not None for s in sent] == [True] * MAX_NUDGES + [False]
    assert Rules(Budget()).react(view.with_answer("It is 11.")) is not None


def test_the_config_names_the_registered_rules_in_order() -> None:
    from typing import get_args

    from ovos_agentic_loop.config import RuleName

    assert get_args(RuleName) == RULE_NAMES


@pytest.mark.parametrize("day", range(7))
def test_the_year_rule_reads_the_injected_day_on_each_day_of_a_week(day: int) -> None:
    import datetime as dt

    today = dt.date(2026, 11, 30) + dt.timedelta(days=day)  # Monday to Sunday
    view = replace(_view("How many days until Christmas?"), today=today)
    old = _found("ungrounded_value", view.with_calls([_call("days_between", end_date="2024-12-25")]))
    assert old is not None and (old.year, old.today) == ("2024", today.isoformat())
    assert _found("ungrounded_value", view.with_calls([_call("days_between", end_date="2026-12-25")])) is None


def test_a_program_is_looked_up_through_the_injected_lookup() -> None:
    runner = _tool(
        "run_command",
        "Run a command line.",
        {"kind": "runner", "argument": "command"},
        command="the command line",
    )
    tools = ToolSet((runner,), {}, frozenset())
    question = [AgentMessage(MessageRole.USER, "How many words are in story.txt?")]
    answer = "I will run `wc -w story.txt` for you."
    view = TurnView(tools, question, {}, text_mode=False, answer=answer, which=lambda name: None)
    assert _found("described_call", view) is None  # no such program here
    found = _found("described_call", replace(view, which=lambda name: f"/usr/bin/{name}"))
    assert found.described.arguments == {"command": "wc -w story.txt"}


def test_a_tool_without_a_declared_role_gets_no_role_based_rule() -> None:
    """A third party's calculator named and shaped like ours, whose toolbox declares no role."""
    bare = ToolSpec("evaluate_expression", "Calculate.", CALCULATOR.parameters)
    view = TurnView(
        ToolSet((bare,), {}, frozenset()), [AgentMessage(MessageRole.USER, "What is 15% of 2350?")], {}, False
    )
    assert view.calculator is None
    assert _found("head_arithmetic", view.with_answer("It is 352.5.")) is None
    assert (
        _found("ungrounded_value", view.with_calls([_call("evaluate_expression", expression="0.15 * 2250")]))
        is None
    )


def test_the_bundled_toolboxes_declare_their_roles() -> None:
    from ovos_plugin_manager.persona import find_toolbox_plugins

    from ovos_agentic_loop._tools.toolset import PersonaTools

    plugins = find_toolbox_plugins()
    boxes = [plugins[name](config={}) for name in ("ovos-math-tools", "ovos-filesystem-tools")]
    shell = plugins["ovos-shell-tools"](config={"allow_shell": True, "allowed_commands": ["wc", "ls -l"]})
    tools = PersonaTools([*boxes, shell], engine_name="t").current()
    roles = {kind: tools.with_role(kind) for kind in ("calculator", "reader", "runner")}
    assert {kind: (found[0].name, found[1].argument) for kind, found in roles.items() if found} == {
        "calculator": ("evaluate_expression", "expression"),
        "reader": ("read_file", "path"),
        "runner": ("run_command", "command"),
    }
    assert "mean" in roles["calculator"][1].functions and roles["runner"][1].programs == ("ls", "wc")
    assert all("role" not in str(spec.wire()) for spec in tools.tools)  # never shown to the model
