"""A past year nobody said: a call holding a date two or more years back, when the conversation
never names that year, is made by the loop with the date in the year it next comes (spoken suite,
tune half: "how many days until christmas" was counted from 2023-12-25, "1072 days", in every
run; told today's date, the model counted from today to today). A date with no such day then (the
29th of February) is sent back once with today's date."""

from __future__ import annotations

import datetime as dt

import pytest
from engine_helpers import engine_with, user
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop.testing import ScriptedBrain, tool_call

#: The suite's clock: the rule reads the engine's, never the machine's (a week of days below).
TODAY = dt.date(2026, 12, 2)
OLD = TODAY.year - 3
WEEK = [TODAY + dt.timedelta(days=n) for n in range(7)]


def clock() -> list:
    return [find_toolbox_plugins()["ovos-clock-tools"](config={})]


def engine_on(day: dt.date, brain: ScriptedBrain, toolboxes: list):
    engine = engine_with(brain, toolboxes)
    engine.today = lambda: day
    return engine


def _made(brain: ScriptedBrain, at: int) -> dict:
    """The arguments of the last call in the request the model got at ``at``."""
    return next(m for m in reversed(brain.calls[at].messages) if m.tool_calls).tool_calls[-1].arguments


@pytest.mark.parametrize("day", WEEK, ids=lambda d: d.strftime("%a"))
def test_the_year_rule_reads_the_engines_clock_on_each_day_of_a_week(day: dt.date) -> None:
    old = day.year - 3
    brain = ScriptedBrain([tool_call("days_between", start_date="today", end_date=f"{old}-12-25"), "ok"])
    engine_on(day, brain, clock()).continue_chat(user("how many days until christmas"))
    assert _made(brain, 1) == {"start_date": "today", "end_date": f"{day.year}-12-25"}
    assert '"days"' in brain.calls[1].last.content
    brain.assert_complete()


def test_a_date_in_a_year_nobody_named_is_made_in_the_year_it_next_comes() -> None:
    brain = ScriptedBrain(
        [tool_call("days_between", start_date=f"{OLD}-03-01", end_date=f"{OLD}-04-15"), "It is 45 days."]
    )
    reply = engine_on(TODAY, brain, clock()).continue_chat(
        user("how many days are there between march first and april fifteenth")
    )
    assert reply.content == "It is 45 days."
    nxt = TODAY.year + 1  # this year's first of March has passed
    assert _made(brain, 1) == {"start_date": f"{nxt}-03-01", "end_date": f"{nxt}-04-15"}
    assert '"days": 45' in brain.calls[1].last.content
    brain.assert_complete()


def test_a_day_the_next_year_lacks_is_sent_back_with_todays_date() -> None:
    leap = TODAY.year - 2  # 2024: the 29th of February, in no year the loop could move it to
    brain = ScriptedBrain(
        [
            tool_call("get_weekday", date=f"{leap}-02-29"),
            tool_call("get_weekday", date=f"{TODAY.year + 1}-02-28"),
            "ok",
        ]
    )
    engine_on(TODAY, brain, clock()).continue_chat(user("what weekday is the twenty ninth of february"))
    held = brain.calls[1].last
    assert held.role == MessageRole.TOOL and held.content.startswith("Not run:")
    assert f"{leap}-02-29 is in {leap}, a year nobody named; today is {TODAY.isoformat()}" in held.content
    assert '"weekday"' in brain.calls[2].last.content  # the corrected call ran
    brain.assert_complete()


@pytest.mark.parametrize(
    ("question", "date"),
    [
        ("what day of the week was the fourth of july two thousand and twenty", "2020-07-04"),
        ("what weekday was christmas nineteen ninety nine", "1999-12-25"),
        ("what weekday was the 1st of may 2015", "2015-05-01"),
        ("what day was christmas last year", f"{TODAY.year - 1}-12-25"),
        ("what day is christmas", f"{TODAY.year}-12-25"),
    ],
)
def test_a_year_the_user_named_or_a_recent_one_runs_at_once(question: str, date: str) -> None:
    brain = ScriptedBrain([tool_call("get_weekday", date=date), "ok"])
    engine_on(TODAY, brain, clock()).continue_chat(user(question))
    assert '"weekday"' in brain.calls[1].last.content
    brain.assert_complete()


def test_a_year_from_earlier_in_the_conversation_counts() -> None:
    brain = ScriptedBrain([tool_call("get_weekday", date=f"{OLD}-05-01"), "ok"])
    history = [
        AgentMessage(MessageRole.USER, f"i moved here in {OLD}"),
        AgentMessage(MessageRole.ASSISTANT, "Nice."),
        AgentMessage(MessageRole.USER, "what weekday was the first of may that year"),
    ]
    engine_on(TODAY, brain, clock()).continue_chat(history)
    assert '"weekday"' in brain.calls[1].last.content
    brain.assert_complete()


def test_sent_back_once_then_the_call_runs() -> None:
    leap = TODAY.year - 2
    same = tool_call("get_weekday", date=f"{leap}-02-29")
    brain = ScriptedBrain([same, tool_call("get_weekday", date=f"{leap}-02-29"), "ok"])
    engine_on(TODAY, brain, clock()).continue_chat(user("what weekday was that leap day"))
    assert brain.calls[1].last.content.startswith("Not run:")
    assert '"weekday"' in brain.calls[2].last.content  # insisted on: it runs
    brain.assert_complete()
