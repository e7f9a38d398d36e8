"""The loop remembers its own turns per conversation: a follow-up's request holds the earlier
turns' calls and results before their answers; nothing crosses sessions or personas; a history
that is not the remembered one starts afresh; an answer cut short is remembered as delivered; the
bounds hold; a correction redoes the last calculation; a call that waited for a yes stays unrun."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with
from ovos_plugin_manager.agents import load_chat_plugin
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._turn.tool_steps import READ_AGAIN
from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.testing import BrainCall, ScriptedBrain, tool_call

FIRST = "What is 15% of 2350?"
FIRST_ANSWER = "15% of 2350 is 352.5."
FOLLOW_UP = "And twenty percent?"
FOLLOW_UP_SENT = "And 20 percent?"  # as the model reads it: spelled numbers in digits


def user(text: str) -> AgentMessage:
    return AgentMessage(MessageRole.USER, text)


def said(text: str) -> AgentMessage:
    return AgentMessage(MessageRole.ASSISTANT, text)


@pytest.fixture
def maths() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={})


def result_of(call: BrainCall) -> str:
    """The calculator's result in the last TOOL message (native) or Observation (text) sent."""
    last = call.messages[-1].content or ""
    found = json.loads(last.removeprefix("Observation: ").split("\n")[-1].removeprefix("Observation: "))
    return str(found["result"])


def remembered_calls(call: BrainCall) -> list[dict[str, Any]]:
    """The arguments of every tool call of the request's history (before its last user message)."""
    last_user = max(i for i, m in enumerate(call.messages) if m.role == MessageRole.USER)
    return [c.arguments for m in call.messages[:last_user] if m.tool_calls for c in m.tool_calls]


def first_turn(engine: Any, brain: ScriptedBrain, session_id: str = "kitchen") -> None:
    brain.add(tool_call("evaluate_expression", expression="2350 * 0.15"), FIRST_ANSWER)
    assert engine.continue_chat([user(FIRST)], session_id=session_id).content == FIRST_ANSWER


def follow_up(
    engine: Any, brain: ScriptedBrain, session_id: str = "kitchen", answer: str = FIRST_ANSWER
) -> str:
    brain.add(tool_call("evaluate_expression", expression="2350 * 0.2"), "Twenty percent is 470.")
    history = [user(FIRST), said(answer), user(FOLLOW_UP)]
    return engine.continue_chat(history, session_id=session_id).content


@pytest.mark.parametrize("entry_point", ["ovos-react-loop", "ovos-native-toolcall-loop"])
def test_a_follow_up_holds_the_earlier_call_and_result_before_its_answer(
    entry_point: str, maths: ToolBox
) -> None:
    brain = ScriptedBrain()
    engine = engine_with(brain, [maths], entry_point)
    first_turn(engine, brain)
    follow_up(engine, brain)

    sent = brain.calls[-1].messages
    at = next(i for i, m in enumerate(sent) if m.role == MessageRole.ASSISTANT and m.content == FIRST_ANSWER)
    call, result = sent[at - 2], sent[at - 1]
    assert call.role == MessageRole.ASSISTANT and [c.arguments for c in call.tool_calls] == [
        {"expression": "2350 * 0.15"}
    ]
    assert result.role == MessageRole.TOOL and result.tool_call_id == call.tool_calls[0].id
    assert json.loads(result.content)["result"] == "352.5"
    assert sent[at + 1].content.startswith(FOLLOW_UP_SENT)
    brain.assert_complete()


def test_the_text_protocol_gets_the_earlier_call_as_action_and_observation(maths: ToolBox) -> None:
    brain = ScriptedBrain(supports_tools=False)
    engine = engine_with(brain, [maths], mode="text")
    brain.add('Action: evaluate_expression\nAction Input: {"expression": "2350 * 0.15"}', FIRST_ANSWER)
    engine.continue_chat([user(FIRST)], session_id="kitchen")
    follow_up(engine, brain)

    sent = [(m.role, m.content) for m in brain.calls[-1].messages[1:]]
    assert sent[0] == (MessageRole.USER, FIRST)
    assert sent[1] == (
        MessageRole.ASSISTANT,
        'Action: evaluate_expression\nAction Input: {"expression": "2350 * 0.15"}',
    )
    assert sent[2][0] == MessageRole.USER and sent[2][1].startswith("Observation: ") and "352.5" in sent[2][1]
    assert sent[3] == (MessageRole.ASSISTANT, FIRST_ANSWER)
    assert sent[4][1].startswith(FOLLOW_UP_SENT)


def test_a_call_of_an_earlier_turn_runs_again_when_asked_again(demo_tools: DemoToolBox) -> None:
    """A fact that can change is fetched again: the repeat guard counts this turn's calls only."""
    brain = ScriptedBrain([tool_call("add", a=1, b=2), "It is 3."])
    engine = engine_with(brain, [demo_tools])
    engine.continue_chat([user("Add 1 and 2")], session_id="s")
    brain.add(tool_call("add", a=1, b=2), "Still 3.")
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)

    answer = engine.continue_chat([user("Add 1 and 2"), said("It is 3."), user("And now?")], session_id="s")

    assert answer.content == "Still 3."
    assert demo_tools.calls == [("add", {"a": 1, "b": 2}), ("add", {"a": 1, "b": 2})]
    assert [e.data["ok"] for e in events if e.kind == "tool_result"] == [True]
    assert "not run again" not in (brain.calls[-1].messages[-1].content or "").lower()


def test_head_arithmetic_on_a_follow_up_is_still_sent_back(maths: ToolBox) -> None:
    """The remembered calculator call is no call of this turn: a number worked out in the head
    gets the usual "call the calculator" message."""
    brain = ScriptedBrain()
    engine = engine_with(brain, [maths])
    first_turn(engine, brain)
    brain.add(
        "Divided by four that is 88.",
        tool_call("evaluate_expression", expression="352.5 / 4"),
        "It is 88.125.",
    )
    history = [user(FIRST), said(FIRST_ANSWER), user("And divided by four?")]
    assert engine.continue_chat(history, session_id="kitchen").content == "It is 88.125."
    nudge = brain.calls[3].last
    assert nudge.role == MessageRole.USER and "evaluate_expression" in nudge.content


def test_nothing_crosses_sessions(maths: ToolBox) -> None:
    brain = ScriptedBrain()
    engine = engine_with(brain, [maths])
    first_turn(engine, brain, session_id="kitchen")
    follow_up(engine, brain, session_id="bedroom")  # the same words, another session
    assert remembered_calls(brain.calls[-1]) == []


def test_nothing_crosses_personas(maths: ToolBox) -> None:
    """Same loop, same session, same history: another persona's engine remembers nothing of it
    (a persona named by the host, or told apart by its section)."""
    brain = ScriptedBrain()
    cls = load_chat_plugin("ovos-react-loop")
    section: dict[str, Any] = {}
    first = cls(config=section, brain=brain, toolboxes=[maths], persona={"name": "maths-teacher"})
    first_turn(first, brain)
    for other in (
        cls(config=section, brain=brain, toolboxes=[maths], persona={"name": "accountant"}),
        cls(config={"system_prompt": "Be brief."}, brain=brain, toolboxes=[maths]),
    ):
        follow_up(other, brain)
        assert remembered_calls(brain.calls[-1]) == []
    same = cls(config=section, brain=brain, toolboxes=[maths], persona={"name": "maths-teacher"})
    follow_up(same, brain)
    assert remembered_calls(brain.calls[-1]) == [{"expression": "2350 * 0.15"}]


def test_a_history_that_does_not_end_with_the_remembered_answer_starts_afresh(maths: ToolBox) -> None:
    brain = ScriptedBrain()
    engine = engine_with(brain, [maths])
    first_turn(engine, brain)
    follow_up(engine, brain, answer="Fifteen percent is about 350.")  # not what this loop said
    assert remembered_calls(brain.calls[-1]) == []
    # that turn started the conversation's memory afresh: its own answer is what matches now
    brain.add("Sure.")
    history = [user(FIRST), said("Fifteen percent is about 350."), user(FOLLOW_UP)]
    engine.continue_chat([*history, said("Twenty percent is 470."), user("Thanks")], session_id="kitchen")
    assert remembered_calls(brain.calls[-1]) == [{"expression": "2350 * 0.2"}]


def test_whitespace_does_not_tell_histories_apart(maths: ToolBox) -> None:
    brain = ScriptedBrain()
    engine = engine_with(brain, [maths])
    first_turn(engine, brain)
    follow_up(engine, brain, answer="  15% of 2350\nis 352.5. ")
    assert remembered_calls(brain.calls[-1]) == [{"expression": "2350 * 0.15"}]


def test_an_answer_cut_short_while_streaming_is_remembered_as_spoken(maths: ToolBox) -> None:
    whole = "It is 352.5. That is fifteen percent of it. Anything else?"
    brain = ScriptedBrain()
    engine = engine_with(brain, [maths])
    heard = {}
    for session in ("whole", "heard"):
        brain.add(tool_call("evaluate_expression", expression="2350 * 0.15"), whole)
        sentences = engine.stream_sentences([user(FIRST)], session_id=session)
        heard[session] = next(sentences)
        sentences.close()  # the consumer stops reading after the first sentence (the user said stop)
    assert heard["heard"] == "It is 352.5."

    follow_up(engine, brain, session_id="whole", answer=whole)  # never delivered whole
    assert remembered_calls(brain.calls[-1]) == []
    follow_up(engine, brain, session_id="heard", answer=heard["heard"])  # the host keeps what was said
    assert remembered_calls(brain.calls[-1]) == [{"expression": "2350 * 0.15"}]


def test_stream_tokens_remembers_the_whole_answer(maths: ToolBox) -> None:
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="2350 * 0.15"), FIRST_ANSWER])
    engine = engine_with(brain, [maths])
    assert "".join(engine.stream_tokens([user(FIRST)], session_id="kitchen")) == FIRST_ANSWER
    follow_up(engine, brain)
    assert remembered_calls(brain.calls[-1]) == [{"expression": "2350 * 0.15"}]


def test_at_most_memory_turns_are_remembered(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain()
    engine = engine_with(brain, [demo_tools], memory_turns=2)
    history: list[AgentMessage] = []
    for n in range(1, 4):
        brain.add(tool_call("add", a=n, b=n), f"It is {2 * n}.")
        history.append(user(f"Double {n}"))
        history.append(engine.continue_chat(history, session_id="s"))
    brain.add("Fine.")
    engine.continue_chat([*history, user("Thanks")], session_id="s")
    assert remembered_calls(brain.calls[-1]) == [{"a": 2, "b": 2}, {"a": 3, "b": 3}]


def test_a_turn_older_than_memory_max_age_is_forgotten(demo_tools: DemoToolBox) -> None:
    now = [1_000_000.0]
    brain = ScriptedBrain()
    engine = engine_with(brain, [demo_tools], memory_max_age=60)
    engine.memory_clock = lambda: now[0]
    brain.add(tool_call("add", a=1, b=1), "It is 2.")
    history = [user("Double 1")]
    history.append(engine.continue_chat(history, session_id="s"))

    now[0] += 60  # exactly the age allowed: still remembered
    brain.add("Fine.")
    engine.continue_chat([*history, user("Thanks")], session_id="s")
    assert remembered_calls(brain.calls[-1]) == [{"a": 1, "b": 1}]

    now[0] += 1  # the turn is now older than memory_max_age
    brain.add("Fine.")
    engine.continue_chat([*history, user("Thanks")], session_id="s")
    assert remembered_calls(brain.calls[-1]) == []


def test_memory_off_remembers_nothing(maths: ToolBox) -> None:
    brain = ScriptedBrain()
    engine = engine_with(brain, [maths], memory="off")
    first_turn(engine, brain)
    follow_up(engine, brain)
    assert remembered_calls(brain.calls[-1]) == []


def test_the_file_store_survives_a_new_engine(maths: ToolBox, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OVOS_AGENTIC_LOOP_CACHE", str(tmp_path))
    brain = ScriptedBrain()
    with engine_with(brain, [maths], memory="file") as before:
        first_turn(before, brain)
    assert (tmp_path / "memory" / "conversations.sqlite3").is_file()
    after = engine_with(brain, [maths], memory="file")  # the skills service restarted
    follow_up(after, brain)
    assert remembered_calls(brain.calls[-1]) == [{"expression": "2350 * 0.15"}]


def _states_the_result(call: BrainCall) -> str:
    return f"That is {result_of(call)}."


@pytest.mark.parametrize(
    ("lang", "first", "correction"),
    [
        ("en-US", "what is 23 times 17", "no, I meant seventy"),
        ("en-US", "what is twenty three times seventeen", "I meant 70"),
        ("pt-PT", "quanto é 23 vezes 17", "não, queria dizer setenta"),
    ],
)
def test_a_correction_redoes_the_last_calculation(
    lang: str, first: str, correction: str, maths: ToolBox
) -> None:
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="23*17"), _states_the_result])
    engine = engine_with(brain, [maths])
    answer = engine.continue_chat([user(first)], session_id="s", lang=lang).content
    assert answer == "That is 391."
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    brain.add(_states_the_result)

    answer = engine.continue_chat(
        [user(first), said(answer), user(correction)], session_id="s", lang=lang
    ).content

    assert "1190" in answer
    assert [e.data["arguments"] for e in events if e.kind == "tool_call"] == [{"expression": "70*17"}]
    assert len(brain.calls) == 3  # the model answered from the result the loop got for it


def test_a_correction_that_names_the_wrong_number_replaces_that_one(maths: ToolBox) -> None:
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="23 * 17"), _states_the_result])
    engine = engine_with(brain, [maths])
    answer = engine.continue_chat([user("what is 23 times 17")], session_id="s").content
    brain.add(_states_the_result)
    history = [user("what is 23 times 17"), said(answer), user("no, I meant seventy, not seventeen")]
    assert engine.continue_chat(history, session_id="s").content == "That is 1610."


def test_a_correction_the_loop_cannot_place_is_left_to_the_model(maths: ToolBox) -> None:
    """The expression does not hold the question's numbers as said: the model decides, with the
    remembered call in front of it."""
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="2350 * 0.15"), FIRST_ANSWER])
    engine = engine_with(brain, [maths])
    engine.continue_chat([user(FIRST)], session_id="s")
    brain.add(tool_call("evaluate_expression", expression="2350 * 0.2"), "It is 470.")
    history = [user(FIRST), said(FIRST_ANSWER), user("no, I meant twenty")]
    assert engine.continue_chat(history, session_id="s").content == "It is 470."
    assert remembered_calls(brain.calls[2]) == [{"expression": "2350 * 0.15"}]
    assert not brain.calls[2].messages[-1].tool_calls and brain.calls[2].messages[-1].role == MessageRole.USER


def _tells_the_time(call: BrainCall) -> str:
    found = json.loads(call.messages[-1].content or "{}")
    return f"It is {found['time']} in {found['timezone']}."


def made_calls(events: list[StepEvent]) -> list[dict[str, Any]]:
    return [e.data["arguments"] for e in events if e.kind == "tool_call"]


@pytest.mark.parametrize(
    ("lang", "first", "follow_up", "expression"),
    [
        ("en-US", "whats twenty three times seventeen", "and thirty", "30 * 17"),
        ("pt-PT", "quanto é quinze por cento de quatrocentos", "e vinte por cento", "20% of 400"),
        ("es-ES", "cuánto es el veinte por ciento de trescientos", "y el treinta por ciento", "30% of 300"),
    ],
)
def test_a_new_number_asks_the_last_question_again_with_it(
    lang: str, first: str, follow_up: str, expression: str, maths: ToolBox
) -> None:
    first_expression = {"en-US": "23 * 17", "pt-PT": "15% of 400", "es-ES": "20% of 300"}[lang]
    brain = ScriptedBrain([tool_call("evaluate_expression", expression=first_expression), _states_the_result])
    engine = engine_with(brain, [maths])
    answer = engine.continue_chat([user(first)], session_id="s", lang=lang).content
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    brain.add(_states_the_result)

    engine.continue_chat([user(first), said(answer), user(follow_up)], session_id="s", lang=lang)

    assert made_calls(events) == [{"expression": expression}]
    assert len(brain.calls) == 3  # the model only phrased the answer to the loop's call


def test_a_new_number_replaces_the_converted_value(maths: ToolBox) -> None:
    first = "wie viele meilen sind hundert kilometer"
    brain = ScriptedBrain(
        [tool_call("unit_convert", value=100, from_unit="km", to_unit="mi"), "62,14 Meilen."]
    )
    engine = engine_with(brain, [maths])
    answer = engine.continue_chat([user(first)], session_id="s", lang="de-DE").content
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    brain.add("124,27 Meilen.")

    engine.continue_chat([user(first), said(answer), user("und zweihundert")], session_id="s", lang="de-DE")

    assert made_calls(events) == [{"value": 200, "from_unit": "km", "to_unit": "mi"}]
    assert '"result":124.27' in (brain.calls[-1].messages[-1].content or "").replace(" ", "")


@pytest.mark.parametrize(
    ("lang", "first", "expression", "follow_ups", "made", "result"),
    [
        (
            "en-US",
            "what is 125 plus 375",
            "125 + 375",
            ["divide that by four", "and now times three"],
            ["divide (125 + 375) by 4", "(divide (125 + 375) by 4) times 3"],
            "375",
        ),
        ("de-DE", "was ist 240 geteilt durch 8", "240 / 8", ["und das mal drei"], ["(240 / 8) mal 3"], "90"),
        (
            "en-US",
            "what is 4000 plus 200",
            "4000 + 200",
            ["and fifteen percent of that"],
            ["15 percent of (4000 + 200)"],
            "630",
        ),
    ],
)
def test_a_calculation_on_the_last_result_is_made_on_the_last_calculation(
    lang: str,
    first: str,
    expression: str,
    follow_ups: list[str],
    made: list[str],
    result: str,
    maths: ToolBox,
) -> None:
    """ "Divide that by four" after 125 + 375 was 31.25 (the model divided 125); "und das mal drei"
    after 240 / 8 was 30 / 3. The loop puts the last calculation where "that" was."""
    brain = ScriptedBrain([tool_call("evaluate_expression", expression=expression), _states_the_result])
    engine = engine_with(brain, [maths])
    history = [user(first)]
    answer = engine.continue_chat(history, session_id="s", lang=lang).content
    for follow_up, expected in zip(follow_ups, made, strict=True):
        events: list[StepEvent] = []
        engine.add_step_listener(events.append)
        brain.add(_states_the_result)
        history += [said(answer), user(follow_up)]
        answer = engine.continue_chat(history, session_id="s", lang=lang).content
        calls = made_calls(events)
        expected_call = calls[0]["expression"] if calls else None
        assert expected_call is not None and " ".join(expected_call.split()) == expected
    assert result in (answer or "")


def test_a_new_place_asks_for_the_time_there() -> None:
    clock = find_toolbox_plugins()["ovos-clock-tools"](config={})
    brain = ScriptedBrain([tool_call("get_current_datetime", timezone="Europe/London"), _tells_the_time])
    engine = engine_with(brain, [clock])
    answer = engine.continue_chat([user("what time is it in london")], session_id="s").content
    assert answer.endswith("in Europe/London.")
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    brain.add(_tells_the_time)

    history = [user("what time is it in london"), said(answer), user("and in tokyo")]
    answer = engine.continue_chat(history, session_id="s").content

    assert made_calls(events) == [{"timezone": "tokyo"}]
    assert answer.endswith("in Asia/Tokyo.")


@pytest.mark.needs_package("ovos_yes_no")
def test_a_call_that_waited_for_a_yes_is_never_run_by_a_later_turn(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=40, b=2)])
    engine = engine_with(brain, [demo_tools], confirm_tools=["add"])
    question = engine.continue_chat([user("Add 40 and 2")], session_id="s")
    assert demo_tools.calls == []
    brain.add("Hello!")
    history = [user("Add 40 and 2"), question, user("What is your name?")]
    engine.continue_chat(history, session_id="s")
    assert demo_tools.calls == []
    assert remembered_calls(brain.calls[-1]) == []
    assert not any(m.role == MessageRole.TOOL for m in brain.calls[-1].messages)


@pytest.mark.needs_package("ovos_yes_no")
def test_a_call_carried_out_after_a_yes_is_remembered(demo_tools: DemoToolBox) -> None:
    brain = ScriptedBrain([tool_call("add", a=40, b=2)])
    engine = engine_with(brain, [demo_tools], confirm_tools=["add"])
    history = [user("Add 40 and 2")]
    history.append(engine.continue_chat(history, session_id="s"))
    brain.add("It is 42.")
    history += [user("yes")]
    history.append(engine.continue_chat(history, session_id="s"))
    assert demo_tools.calls == [("add", {"a": 40, "b": 2})]
    brain.add("Fine.")
    engine.continue_chat([*history, user("Thanks")], session_id="s")
    assert remembered_calls(brain.calls[-1]) == [{"a": 40, "b": 2}]


# --- a file is a fact that can change: read again on the next turn -------------------------------

LIST = "shopping.txt"


def read_list(engine: Any, brain: ScriptedBrain, history: list[AgentMessage], answer: str) -> str:
    brain.add(answer)
    return engine.continue_chat(history, session_id="kitchen").content


def remembered_read(call: BrainCall) -> str:
    """The result of the remembered read_file call in a request."""
    return next(m.content for m in call.messages if m.role == MessageRole.TOOL)


@pytest.mark.parametrize("changed", [True, False])
def test_a_file_an_earlier_turn_read_is_read_again_and_a_change_replaces_it(
    tmp_path: Path, changed: bool
) -> None:
    (tmp_path / LIST).write_text("milk\neggs\nbread\n")
    files = find_toolbox_plugins()["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})
    brain = ScriptedBrain([tool_call("read_file", path=LIST), "Milk, eggs and bread."])
    engine = engine_with(brain, [files])
    first = engine.continue_chat([user("whats on my shopping list")], session_id="kitchen").content
    read_first = brain.calls[-1].messages[-1].content
    if changed:
        (tmp_path / LIST).write_text("milk\nsoap\n")
    history = [user("whats on my shopping list"), said(first), user("how many things are on it now")]
    read_list(engine, brain, history, "Two." if changed else "Three.")

    sent = remembered_read(brain.calls[-1])
    asked = brain.calls[-1].messages
    question = next(m for m in reversed(asked) if m.content and m.content.startswith("how many things"))
    if changed:
        assert "soap" in sent and "eggs" not in sent
        # told where it looks, after the question; then read again as this turn's first call
        told, read, result = asked[-3:]
        assert told.role == MessageRole.USER
        assert told.content == READ_AGAIN.format(files=LIST, tool="read_file")
        assert [(c.name, c.arguments) for c in read.tool_calls] == [("read_file", {"path": LIST})]
        assert result.role == MessageRole.TOOL and "soap" in result.content and "eggs" not in result.content
    else:
        told = asked[-1]
        assert sent == read_first  # byte for byte: the server's prompt cache still holds it
        assert told is question
    brain.assert_complete()


def test_a_follow_up_the_loop_cannot_make_into_a_call_is_told_which_question_it_asks_again(
    maths: ToolBox,
) -> None:
    """The last turn calculated, so no converter call holds a unit to change: the model hears the
    question "and in meters" asks again, after it."""
    first = "i drive forty five kilometers a day how many kilometers is that in a week"
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="45 * 7"), _states_the_result])
    engine = engine_with(brain, [maths])
    answer = engine.continue_chat([user(first)], session_id="s").content
    brain.add(tool_call("unit_convert", value=315, from_unit="km", to_unit="m"), "315000 meters.")

    engine.continue_chat([user(first), said(answer), user("and in meters")], session_id="s")

    told = brain.calls[2].messages[-1]
    assert told.role == MessageRole.USER
    assert (told.content or "").splitlines()[0] == (
        f'The user asks the last question ("{first}") again, in meters.'
    )


def test_an_earlier_answer_said_again_to_a_new_question_is_sent_back(maths: ToolBox) -> None:
    first = "i drive forty five kilometers a day how many kilometers is that in a week"
    answer = "315 kilometers is the total distance you drive in a week."
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="45 * 7"), answer])
    engine = engine_with(brain, [maths])
    assert engine.continue_chat([user(first)], session_id="s").content == answer
    brain.add(answer, tool_call("evaluate_expression", expression="45 * 30"), "About 1350 kilometers.")

    history = [user(first), said(answer), user("and how far is it in a month")]
    assert engine.continue_chat(history, session_id="s").content == "About 1350 kilometers."

    sent_back = brain.calls[3].messages[-1].content or ""
    assert sent_back.startswith(f'That is your answer to an earlier question ("{first}"), said again.')


def test_the_last_result_in_a_new_unit_is_converted_by_the_loop(maths: ToolBox) -> None:
    """ "and how much is that in miles" after a calculation in kilometers: told the question again,
    the stock template said the kilometers again; the loop converts the result as the answer said it."""
    first = "i drive forty five kilometers a day how many kilometers is that in a week"
    answer = "315 kilometers is the total distance you drive in a week."
    brain = ScriptedBrain([tool_call("evaluate_expression", expression="45 * 7"), answer])
    engine = engine_with(brain, [maths])
    engine.continue_chat([user(first)], session_id="s")
    brain.add(_states_the_result)
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)

    history = [user(first), said(answer), user("and how much is that in miles")]
    engine.continue_chat(history, session_id="s")

    assert made_calls(events) == [{"value": 315.0, "from_unit": "kilometers", "to_unit": "miles"}]
    assert '"result": 195.7' in (brain.calls[-1].last.content or "")
    brain.assert_complete()


def test_an_earlier_answer_said_again_after_the_file_changed_is_sent_back(tmp_path: Path) -> None:
    """The list was read again after it changed, and the model said its last count again: the read
    is the loop's, so the answer is still one said again to a new question."""
    (tmp_path / LIST).write_text("milk\neggs\nbread\n")
    files = find_toolbox_plugins()["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})
    brain = ScriptedBrain([tool_call("read_file", path=LIST), "Milk, eggs and bread.", "Three things."])
    engine = engine_with(brain, [files])
    history = [user("whats on my shopping list")]
    history += [
        said(engine.continue_chat(history, session_id="kitchen").content),
        user("how many things are on it"),
    ]
    history += [said(engine.continue_chat(history, session_id="kitchen").content)]
    (tmp_path / LIST).write_text("milk\nsoap\n")
    brain.add("Three things.", "Two things.")

    now = [*history, user("i changed the list how many things are on it now")]
    assert engine.continue_chat(now, session_id="kitchen").content == "Two things."
    assert "said again" in (brain.calls[-1].last.content or "")
    brain.assert_complete()


def test_a_file_read_again_after_it_changed_is_a_call_the_step_events_show(tmp_path: Path) -> None:
    (tmp_path / LIST).write_text("milk\neggs\n")
    files = find_toolbox_plugins()["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})
    brain = ScriptedBrain([tool_call("read_file", path=LIST), "Milk and eggs."])
    engine = engine_with(brain, [files])
    first = engine.continue_chat([user("whats on my shopping list")], session_id="kitchen").content
    (tmp_path / LIST).write_text("soap\n")
    events: list[StepEvent] = []
    engine.add_step_listener(events.append)
    brain.add("One thing: soap.")

    engine.continue_chat(
        [user("whats on my shopping list"), said(first), user("and now")], session_id="kitchen"
    )

    assert made_calls(events) == [{"path": LIST}]
    assert [e.data["ok"] for e in events if e.kind == "tool_result"] == [True]
