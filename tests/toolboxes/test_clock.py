"""Behaviour of ovos-clock-tools, reached through OPM the way a loop reaches it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox


@pytest.fixture(scope="module")
def toolbox_cls() -> type[ToolBox]:
    return find_toolbox_plugins()["ovos-clock-tools"]


LISBON = ZoneInfo("Europe/Lisbon")
# Days the calendar tests run on: one whole week, and the year's edges (the checks of a past
# year's date treat December 31 and January 1 apart). No verdict depends on when the suite runs.
DAYS = [datetime(2026, 11, 30, 9, 30, tzinfo=LISBON) + timedelta(days=offset) for offset in range(7)] + [
    datetime(2026, 12, 31, 23, 0, tzinfo=LISBON),
    datetime(2027, 1, 1, 0, 30, tzinfo=LISBON),
]


@pytest.fixture(scope="module")
def tb(toolbox_cls: type[ToolBox]) -> ToolBox:
    return toolbox_cls(config={"timezone": "Europe/Lisbon"})


@pytest.fixture(params=DAYS, ids=lambda moment: moment.strftime("%a-%m-%d"))
def pinned(request: pytest.FixtureRequest, toolbox_cls: type[ToolBox]) -> Iterator[ToolBox]:
    """A clock toolbox whose clock reads ``request.param`` (the toolbox's ``clock`` seam)."""
    box = toolbox_cls(config={"timezone": "Europe/Lisbon"})
    box.clock = lambda zone: request.param.astimezone(zone)  # type: ignore[attr-defined]
    yield box


def run(tb: ToolBox, name: str, **kwargs: Any) -> Any:
    return tb.call_tool(name, kwargs)


def error_of(tb: ToolBox, name: str, **kwargs: Any) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(name, kwargs)
    assert excinfo.value.__cause__ is not None
    return str(excinfo.value.__cause__)


def test_tools(tb: ToolBox) -> None:
    assert set(tb.tools) == {
        "get_current_datetime",
        "convert_timezone",
        "days_between",
        "add_to_date",
        "get_weekday",
    }


def test_current_datetime_in_default_and_given_zone(tb: ToolBox) -> None:
    out = run(tb, "get_current_datetime")
    moment = datetime.fromisoformat(out.iso)
    assert abs(moment - datetime.now(ZoneInfo("Europe/Lisbon"))) < timedelta(seconds=5)
    assert out.timezone == "Europe/Lisbon"
    assert (out.date, out.time) == (moment.date().isoformat(), moment.strftime("%H:%M:%S"))
    assert out.weekday == moment.strftime("%A")
    tokyo = run(tb, "get_current_datetime", timezone="Asia/Tokyo")
    assert (tokyo.timezone, tokyo.utc_offset) == ("Asia/Tokyo", "+09:00")
    assert tokyo.iso.endswith("+09:00")


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("america/new york", "America/New_York"),
        ("Lisbon", "Europe/Lisbon"),
        ("UTC", "UTC"),
        ("gmt", "UTC"),
        ("UTC+5:30", "UTC+05:30"),
        ("-03:00", "UTC-03:00"),
    ],
)
def test_zone_spellings(tb: ToolBox, written: str, name: str) -> None:
    assert run(tb, "get_current_datetime", timezone=written).timezone == name


def test_invalid_zone_shows_how_to_write_one(tb: ToolBox, toolbox_cls: type[ToolBox]) -> None:
    message = error_of(tb, "get_current_datetime", timezone="Europe/Lisbn")
    assert "did you mean 'Europe/Lisbon'" in message and "America/New_York" in message
    assert "IANA" in error_of(tb, "get_current_datetime", timezone="../../etc/passwd")
    assert "out of range" in error_of(tb, "get_current_datetime", timezone="UTC+20")
    with pytest.raises(ValueError, match="unknown time zone"):
        toolbox_cls(config={"timezone": "Mars/Olympus"})


def test_system_zone_is_the_default_without_config(toolbox_cls: type[ToolBox]) -> None:
    out = toolbox_cls(config={}).call_tool("get_current_datetime", {})
    assert abs(datetime.fromisoformat(out.iso) - datetime.now().astimezone()) < timedelta(seconds=5)


def test_convert_timezone(tb: ToolBox) -> None:
    summer = run(
        tb,
        "convert_timezone",
        time="2025-07-01 15:00",
        from_timezone="Europe/London",
        to_timezone="America/New_York",
    )
    assert (summer.source.utc_offset, summer.result.time, summer.result.utc_offset) == (
        "+01:00",
        "10:00:00",
        "-04:00",
    )
    winter = run(
        tb,
        "convert_timezone",
        time="2025-01-15 15:00",
        from_timezone="Europe/London",
        to_timezone="Asia/Tokyo",
    )
    assert (winter.result.date, winter.result.time) == ("2025-01-16", "00:00:00")
    default_zone = run(tb, "convert_timezone", time="3pm", to_timezone="UTC")
    assert default_zone.source.timezone == "Europe/Lisbon" and default_zone.source.time == "15:00:00"
    gap = run(
        tb, "convert_timezone", time="2025-03-30 01:30", from_timezone="Europe/London", to_timezone="UTC"
    )
    assert "does not exist" in gap.note
    assert "HH:MM" in error_of(tb, "convert_timezone", time="teatime", to_timezone="UTC")


def test_days_from_today_to_an_earlier_year_are_refused_with_the_call_to_make(pinned: ToolBox) -> None:
    # the bundled model counts "days left until December 31" to the year it was trained in; shown a
    # negative count with a note, it answered "-1066 days left"
    tb = pinned
    today = tb.clock(LISBON).date()  # type: ignore[attr-defined]
    stale = today.replace(year=today.year - 3, month=12, day=31)
    message = error_of(tb, "days_between", start_date="today", end_date=stale.isoformat())
    assert f"for this year's date call again with end_date {today.year}-12-31" in message
    assert f"for the days since {stale.isoformat()}, swap the two dates" in message
    leap = error_of(tb, "days_between", start_date="today", end_date="2020-02-29")
    assert "before today" in leap and "this year's date" not in leap  # no Feb 29 this year to offer
    # the days since a past date, dates that do not involve today, a later date: counted
    assert run(tb, "days_between", start_date=stale.isoformat(), end_date="today").days > 0
    assert run(tb, "days_between", start_date="2024-01-01", end_date="2021-12-31").days < 0
    assert run(tb, "days_between", start_date="today", end_date=f"{today.year + 1}-01-01").days > 0


def test_days_from_a_past_years_date_to_today_say_this_years_count_beside(pinned: ToolBox) -> None:
    """Asked "how many days until christmas", the bundled model sent start_date 2023-12-25 (its
    training year) and end_date today, and said "1072 days until Christmas" on both templates. The
    count stands (the same call asks the days since Christmas 2023); this year's is named beside."""
    tb = pinned
    today = tb.clock(LISBON).date()  # type: ignore[attr-defined]
    ahead = today + timedelta(days=1) if (today.month, today.day) != (12, 31) else today
    past = ahead.replace(year=ahead.year - 28)  # 28 years: the same calendar, leap days included
    out = run(tb, "days_between", start_date=past.isoformat(), end_date="today")
    assert out.days == (today - past).days  # the count as asked
    expected = f"if this year's date was meant, {ahead.isoformat()} is {(ahead - today).days} days from today"
    assert out.note.endswith(expected)
    # this year's date has passed, or today is not one of the dates: no other reading
    if (today.month, today.day) != (1, 1):
        gone = (today - timedelta(days=1)).replace(year=today.year - 28)
        assert run(tb, "days_between", start_date=gone.isoformat(), end_date="today").note == ""
    assert run(tb, "days_between", start_date="2020-01-01", end_date="2021-12-31").note == ""


def test_days_between(tb: ToolBox, pinned: ToolBox) -> None:
    out = run(tb, "days_between", start_date="2024-01-01", end_date="2024-12-25")
    assert (out.days, out.weeks, out.extra_days) == (359, 51, 2)
    back = run(tb, "days_between", start_date="2024-03-01", end_date="2024-02-01")
    assert (back.days, back.weeks, back.extra_days) == (-29, -4, -1)
    today = pinned.clock(LISBON).date()  # type: ignore[attr-defined]
    assert run(pinned, "days_between", start_date="today", end_date="tomorrow").days == 1
    assert (
        run(pinned, "days_between", start_date="2000-01-01", end_date="today").days
        == (today - today.replace(year=2000, month=1, day=1)).days
    )


@pytest.mark.parametrize(
    ("kwargs", "expected", "note"),
    [
        ({"date": "2024-01-31", "months": 1}, "2024-02-29", "does not exist in February 2024"),
        ({"date": "2023-01-31", "months": 1}, "2023-02-28", "used day 28"),
        ({"date": "2024-02-29", "years": 1}, "2025-02-28", "used day 28"),
        ({"date": "2024-12-15", "months": 2}, "2025-02-15", ""),
        ({"date": "2024-03-15", "months": -3}, "2023-12-15", ""),
        ({"date": "2024-12-25", "days": 10}, "2025-01-04", ""),
        ({"date": "2024-01-01", "weeks": -1}, "2023-12-25", ""),
        ({"date": "March 14, 2025", "days": 1, "weeks": 1}, "2025-03-22", ""),
    ],
)
def test_add_to_date(tb: ToolBox, kwargs: dict[str, Any], expected: str, note: str) -> None:
    out = run(tb, "add_to_date", **kwargs)
    assert out.date == expected
    assert (note in out.note) if note else out.note == ""


def test_add_to_date_bounds(tb: ToolBox) -> None:
    assert "years 1 to 9999" in error_of(tb, "add_to_date", date="2024-01-01", years=10**6)
    assert "1000 years" in error_of(tb, "add_to_date", date="2024-01-01", days=10**9)


def test_get_weekday(tb: ToolBox) -> None:
    out = run(tb, "get_weekday", date="2025-03-14")
    assert (out.weekday, out.iso_weekday, out.iso_week, out.day_of_year) == ("Friday", 5, 11, 73)
    assert run(tb, "get_weekday", date="14 March 2025").weekday == "Friday"
    assert run(tb, "get_weekday", date="2025-03-14T10:00:00").weekday == "Friday"
    assert "YYYY-MM-DD" in error_of(tb, "get_weekday", date="14/03/2025")


def test_a_count_from_a_day_to_itself_is_refused_naming_the_ends_such_questions_count_to(
    pinned: ToolBox,
) -> None:
    """ "And how many days are left in it" was sent as today's date to "today": 0 days, said as
    "0 days left in the current year", even with the year's end named beside the 0. The call is
    refused; the error names the ends of the month and year."""
    tb = pinned
    today = tb.clock(LISBON).date()  # type: ignore[attr-defined]
    error = error_of(tb, "days_between", start_date=today.isoformat(), end_date="today")
    assert f"start_date and end_date are the same day, {today.isoformat()}" in error
    assert f"of this year {today.year}-12-31" in error
    assert "call days_between again" in error
    assert run(tb, "days_between", start_date="today", end_date=f"{today.year + 1}-01-01").note == ""
