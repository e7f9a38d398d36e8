"""Attacks on ovos-clock-tools: zone names never reach the file system, extreme dates are clear refusals."""

from __future__ import annotations

import time  # "fast" is this thread's CPU time: a busy machine stretches wall time, not CPU time

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox


@pytest.fixture(scope="module")
def tb() -> ToolBox:
    return find_toolbox_plugins()["ovos-clock-tools"](config={})


def refused(tb: ToolBox, tool: str, **kwargs: object) -> str:
    started = time.thread_time()
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(tool, kwargs)
    assert time.thread_time() - started < 1
    assert isinstance(excinfo.value.__cause__, ValueError), repr(excinfo.value.__cause__)
    return str(excinfo.value.__cause__)


@pytest.mark.parametrize(
    "zone",
    [
        "../../../../etc/passwd",
        "/etc/passwd",
        "Europe/../../../../etc/passwd",
        "..\\..\\etc\\passwd",
        "Europe/Lisbon\x00",
        "x" * 100_000,
        "+" + "9" * 5000,
    ],
)
def test_zone_names_are_looked_up_never_opened(tb: ToolBox, zone: str) -> None:
    # Accepted by design: a zone is only a key of available_timezones(); ZoneInfo never sees the text.
    assert "time zone" in refused(tb, "get_current_datetime", timezone=zone)


@pytest.mark.parametrize(
    "kwargs", [{"years": 10**9}, {"months": -(10**30)}, {"days": 10**100}, {"weeks": 10**18}]
)
def test_huge_date_shifts_are_refused(tb: ToolBox, kwargs: dict[str, int]) -> None:
    refused(tb, "add_to_date", date="2025-01-31", **kwargs)


@pytest.mark.parametrize(
    ("time_text", "source", "target"),
    [
        ("9999-12-31 23:59", "UTC-14", "UTC+14"),
        ("0001-01-01 00:00", "UTC+14", "UTC-14"),
        ("9999-12-31T23:59+00:00", None, "Pacific/Kiritimati"),
    ],
)
def test_conversion_past_year_9999_is_a_clear_refusal(
    tb: ToolBox, time_text: str, source: str | None, target: str
) -> None:
    # These ended in a bare OverflowError ('date value out of range').
    assert "years 1 to 9999" in refused(
        tb, "convert_timezone", time=time_text, from_timezone=source, to_timezone=target
    )
