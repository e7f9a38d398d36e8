"""Dates, times and zones said in words reach ovos-clock-tools the way a small model copies them
from the user, and every result says itself in words; through ``call_tool``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

LISBON = ZoneInfo("Europe/Lisbon")
# The clock every test here runs at: a Wednesday morning. The date tests also run on each day
# of that week (``today``): a verdict must not depend on the day or hour the suite runs.
NOW = datetime(2026, 12, 2, 10, 0, tzinfo=LISBON)
WEEK = [NOW + timedelta(days=offset) for offset in range(-2, 5)]  # Monday 11-30 ... Sunday 12-06


def clock_at(moment: datetime) -> Any:
    return lambda zone: moment.astimezone(zone)


@pytest.fixture(scope="module")
def boxes() -> dict[str, ToolBox]:
    cls = find_toolbox_plugins()["ovos-clock-tools"]
    built = {
        lang: cls(config={"timezone": "Europe/Lisbon", "lang": lang})
        for lang in ("en-US", "pt-PT", "es-ES", "de-DE")
    }
    for box in built.values():
        box.clock = clock_at(NOW)  # type: ignore[attr-defined]
    return built


@pytest.fixture(params=WEEK, ids=lambda moment: moment.strftime("%a"))
def today(request: pytest.FixtureRequest, boxes: dict[str, ToolBox]) -> Iterator[date]:
    for box in boxes.values():
        box.clock = clock_at(request.param)  # type: ignore[attr-defined]
    yield request.param.date()
    for box in boxes.values():
        box.clock = clock_at(NOW)  # type: ignore[attr-defined]


def run(tb: ToolBox, name: str, **kwargs: Any) -> Any:
    return tb.call_tool(name, kwargs)


def refusal(tb: ToolBox, name: str, **kwargs: Any) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(name, kwargs)
    return str(excinfo.value)


def next_weekday(today: date, weekday: int) -> date:
    """The first such day after today: what "next friday" means here, whichever day it is said."""
    return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)


def coming_weekday(today: date, weekday: int) -> date:
    """The first such day from today on: ovos-date-parser reads "próxima sexta" said on a Friday
    as that Friday (the result's ``spoken`` names it, so the user hears which day it took)."""
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def coming(today: date, month: int, day: int) -> date:
    """The date the parser means by 'april fifteenth': this year's, or next year's once past."""
    this_year = date(today.year, month, day)
    return this_year if this_year >= today else date(today.year + 1, month, day)


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("en-US", "tomorrow", lambda today: today + timedelta(days=1)),
        ("en-US", "the day after tomorrow", lambda today: today + timedelta(days=2)),
        ("en-US", "next friday", lambda today: next_weekday(today, 4)),
        ("en-US", "next monday", lambda today: next_weekday(today, 0)),
        ("de-DE", "nächsten freitag", lambda today: next_weekday(today, 4)),
        ("en-US", "in two weeks", lambda today: today + timedelta(days=14)),
        ("en-US", "april fifteenth", lambda today: coming(today, 4, 15)),
        # The number parser alone reads "december twenty fifth" as "december 20".
        ("en-US", "december twenty fifth", lambda today: coming(today, 12, 25)),
        ("pt-PT", "quinze de abril", lambda today: coming(today, 4, 15)),
        ("pt-PT", "próxima sexta", lambda today: coming_weekday(today, 4)),
        ("es-ES", "quince de abril", lambda today: coming(today, 4, 15)),
        ("de-DE", "fünfzehnter april", lambda today: coming(today, 4, 15)),
        (
            "en-US",
            "quince de abril",
            lambda today: coming(today, 4, 15),
        ),  # another language than the toolbox's
    ],
)
def test_dates_in_words(boxes: dict[str, ToolBox], today: date, lang: str, text: str, expected: Any) -> None:
    out = run(boxes[lang], "get_weekday", date=text)
    assert out.date == expected(today).isoformat()
    assert out.spoken  # the date in words: the user hears which day was read


def test_next_weekday_at_a_time_is_the_same_day(boxes: dict[str, ToolBox], today: date) -> None:
    out = run(boxes["en-US"], "convert_timezone", time="next friday at six pm", to_timezone="UTC")
    assert out.source.date == next_weekday(today, 4).isoformat() and out.source.time == "18:00:00"


def test_days_between_dates_in_words(boxes: dict[str, ToolBox]) -> None:
    out = run(boxes["en-US"], "days_between", start_date="march first", end_date="april fifteenth")
    assert out.days == (coming(NOW.date(), 4, 15) - coming(NOW.date(), 3, 1)).days


def test_words_left_over_refuse_the_date(boxes: dict[str, ToolBox]) -> None:
    reason = refusal(boxes["en-US"], "get_weekday", date="the banana festival")
    assert "could not read the date" in reason and "YYYY-MM-DD" in reason and "next friday" in reason
    assert "YYYY-MM-DD" in refusal(boxes["en-US"], "get_weekday", date="14/03/2025")  # still ambiguous


@pytest.mark.parametrize(
    ("lang", "text", "hour", "minute"),
    [
        ("en-US", "six pm", 18, 0),
        ("en-US", "nine in the morning", 9, 0),  # today, even once nine has passed
        ("en-US", "six thirty pm", 18, 30),
        ("es-ES", "seis de la tarde", 18, 0),
        ("de-DE", "achtzehn uhr", 18, 0),
    ],
)
def test_clock_times_in_words_are_today(
    boxes: dict[str, ToolBox], lang: str, text: str, hour: int, minute: int
) -> None:
    out = run(
        boxes[lang], "convert_timezone", time=text, from_timezone="Europe/London", to_timezone="Asia/Tokyo"
    )
    source = datetime.fromisoformat(out.source.iso)
    assert (source.hour, source.minute) == (hour, minute)
    assert source.date() == NOW.astimezone(ZoneInfo("Europe/London")).date()
    assert datetime.fromisoformat(out.result.iso) == source and out.result.timezone == "Asia/Tokyo"


def test_relative_times(boxes: dict[str, ToolBox]) -> None:
    for lang, text in (("en-US", "in three hours"), ("de-DE", "in drei stunden")):
        out = run(boxes[lang], "convert_timezone", time=text, to_timezone="Asia/Tokyo")
        assert datetime.fromisoformat(out.source.iso) - NOW == timedelta(hours=3)


def test_a_zone_said_with_the_time(boxes: dict[str, ToolBox]) -> None:
    out = run(boxes["en-US"], "convert_timezone", time="six pm london time", to_timezone="new york")
    assert out.source.timezone == "Europe/London" and out.source.time == "18:00:00"
    assert out.result.timezone == "America/New_York"
    assert datetime.fromisoformat(out.result.iso) == datetime.fromisoformat(out.source.iso)
    assert "used as from_timezone" in out.note
    for lang, said in (("en-US", "six pm in tokyo"), ("pt-PT", "seis da tarde em Tóquio")):
        out = run(boxes[lang], "convert_timezone", time=said, to_timezone="UTC")
        assert (out.source.timezone, out.source.time, out.result.time) == (
            "Asia/Tokyo",
            "18:00:00",
            "09:00:00",
        )
    reason = refusal(
        boxes["en-US"],
        "convert_timezone",
        time="six pm london time",
        from_timezone="UTC",
        to_timezone="Asia/Tokyo",
    )
    assert "send the zone once, in from_timezone" in reason
    reason = refusal(boxes["en-US"], "convert_timezone", time="six pm banana", to_timezone="Asia/Tokyo")
    assert "could not read 'banana'" in reason and '"from_timezone": "Europe/London"' in reason


@pytest.mark.parametrize(
    ("written", "zone"),
    [
        ("tokyo", "Asia/Tokyo"),
        ("new york time", "America/New_York"),
        ("the london time zone", "Europe/London"),
        ("Spain", "Europe/Madrid"),
        ("germany", "Europe/Berlin"),
        ("India", "Asia/Kolkata"),
    ],
)
def test_zones_by_city_or_country(boxes: dict[str, ToolBox], written: str, zone: str) -> None:
    out = run(boxes["en-US"], "get_current_datetime", timezone=written)
    assert out.timezone == zone


def test_a_country_with_several_zones_is_refused_with_them(boxes: dict[str, ToolBox]) -> None:
    reason = refusal(boxes["en-US"], "get_current_datetime", timezone="United States")
    assert "several time zones" in reason and "America/New_York" in reason


def test_results_are_said_in_words_in_the_toolbox_language(boxes: dict[str, ToolBox]) -> None:
    fixed = {"time": "2026-12-01 18:15", "from_timezone": "Asia/Tokyo", "to_timezone": "Asia/Tokyo"}
    said = {lang: run(tb, "convert_timezone", **fixed).result.spoken for lang, tb in boxes.items()}
    assert said["en-US"] == "quarter past six p.m., tuesday, december first, twenty twenty six, Tokyo"
    assert said["pt-PT"].startswith("seis e um quarto da tarde, Terça-feira, um de Dezembro")
    assert said["es-ES"].startswith("las seis y cuarto de la tarde, Martes")
    assert said["de-DE"].startswith("viertel sieben abends, Dienstag")
    assert (
        run(boxes["en-US"], "get_weekday", date="2025-03-14").spoken
        == "friday, march fourteenth, twenty twenty five"
    )


@pytest.mark.parametrize(
    ("lang", "written", "zone", "said"),
    [
        ("pt-PT", "Tóquio", "Asia/Tokyo", "Tóquio"),
        ("pt-PT", "nova iorque", "America/New_York", "Nova Iorque"),
        ("es-ES", "Nueva York", "America/New_York", "Nueva York"),
        ("de-DE", "Tokio", "Asia/Tokyo", "Tokio"),
        ("en-US", "Londres", "Europe/London", "London"),  # a fallback language's name, said in English
    ],
)
def test_cities_as_the_language_names_them(
    boxes: dict[str, ToolBox], lang: str, written: str, zone: str, said: str
) -> None:
    out = run(boxes[lang], "get_current_datetime", timezone=written)
    assert out.timezone == zone and out.spoken.endswith(f", {said}")


@pytest.mark.parametrize(
    ("lang", "kwargs", "days_later"),
    [
        ("en-US", {"days": "three"}, 3),
        ("en-US", {"weeks": "two"}, 14),
        ("en-US", {"days": "minus two"}, -2),
        ("pt-PT", {"days": "menos dois"}, -2),
        ("de-DE", {"days": "zehn"}, 10),
        ("es-ES", {"days": "quince"}, 15),
    ],
)
def test_add_to_date_counts_in_words(
    boxes: dict[str, ToolBox], lang: str, kwargs: dict[str, Any], days_later: int
) -> None:
    out = run(boxes[lang], "add_to_date", date="2026-06-10", **kwargs)
    assert out.date == (date(2026, 6, 10) + timedelta(days=days_later)).isoformat()


def test_add_to_date_refuses_a_count_that_is_no_whole_number(boxes: dict[str, ToolBox]) -> None:
    with pytest.raises(ValueError) as excinfo:
        boxes["en-US"].call_tool("add_to_date", {"days": "a few"})
    assert "is not a whole number" in str(excinfo.value) and '"days": 3' in str(excinfo.value)
    schema = boxes["en-US"].tools["add_to_date"].argument_schema.model_json_schema()
    assert schema["properties"]["days"]["type"] == "integer"
